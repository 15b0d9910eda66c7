#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "silt/io/file_system.h"
#include "silt/parquet/metadata.h"
#include "silt/vector/batch.h"

namespace silt {
class ThreadPool;
}

namespace silt::parquet {

/// A literal for statistics-based row-group skipping, in the column's silt type: integers, dates
/// (days) and timestamps (µs) as int_value, floats as double_value, decimals as the unscaled
/// decimal_value, strings and binary as string_value (byte-wise order).
struct StatsLiteral {
  std::optional<int64_t> int_value;
  std::optional<double> double_value;
  std::optional<Decimal128> decimal_value;
  std::optional<std::string> string_value;
};

/// A set of values that a row filter tests rows for membership in (ColumnPredicate::Op::kIn):
/// the keys a hash join's build side holds, for one. May answer yes for a value it does not
/// hold (a Bloom filter), never no for one it holds. Shared between threads.
class ValueSet {
 public:
  virtual ~ValueSet() = default;
  /// keep[i] &= row i of `values` may be in the set, for i in [0, values.length()); the values
  /// of NULL rows are unspecified (the caller drops those rows). A vector of a type the set
  /// cannot test leaves `keep` as it is.
  virtual void KeepMembers(const Vector& values, uint8_t* keep) const = 0;
};

/// `column op literal` on one top-level primitive column, or `column IN values`; a row group is
/// skipped only when its statistics prove no row can satisfy the predicate.
struct ColumnPredicate {
  enum class Op {
    kEqual, kLess, kLessOrEqual, kGreater, kGreaterOrEqual, kIsNull, kIsNotNull,
    kIn,  ///< a member of `values` (never NULL); statistics skip only a row group of NULLs
  };
  std::string column;
  Op op = Op::kEqual;
  StatsLiteral literal;  // unused for kIsNull / kIsNotNull / kIn
  std::shared_ptr<const ValueSet> values = nullptr;  // kIn only
};

struct ReadOptions {
  /// Top-level columns to read, by name, in this order; empty = every column.
  std::vector<std::string> columns;
  /// Alternatively, top-level columns by Parquet field id (used when `columns` is empty).
  std::vector<int32_t> field_ids;
  /// Row groups to read; empty = all (after predicate skipping).
  std::vector<int> row_groups;
  /// Conjunction of predicates used to skip row groups.
  std::vector<ColumnPredicate> predicates;
  /// Conjunction of predicates that ReadRowGroup, Read and Scan apply row by row: a returned
  /// batch holds only the rows that satisfy every one of them (a comparison is never true for
  /// NULL; kIsNull / kIsNotNull test for NULL). The columns they name need not be projected.
  /// Supported: top-level primitive columns compared with a literal of the column's silt type
  /// (integers, dates and timestamps as int_value; float and double as double_value, ordered
  /// as Spark orders them, NaN above everything and equal to itself; decimals as decimal_value
  /// unscaled at the column's scale; string and binary as string_value, byte-wise), and
  /// kIsNull / kIsNotNull on any top-level primitive column, kIn on any top-level primitive
  /// column (the set tests the decoded values, or the entries of a dictionary). Any other predicate (an unknown or
  /// nested column, another literal) is ignored, so the rows returned are a superset of those
  /// satisfying the conjunction: callers that must be exact re-apply their own filter. For the
  /// same reason a row group where more than half the rows pass comes back whole (only
  /// `keep_rows` applied): gathering most rows costs more than the caller's filter.
  /// A string or binary column whose pages are dictionary-encoded is compared once per
  /// dictionary entry; the other projected columns are decoded only when a row passes and then
  /// gathered for the passing rows only.
  std::vector<ColumnPredicate> row_filters;
  /// Pool for parallel decoding across row groups and columns; nullptr = ThreadPool::Default().
  ThreadPool* pool = nullptr;
  /// Upper bound of parallel tasks; 1 decodes on the calling thread only.
  size_t max_parallelism = 0;
};

/// Reads one Parquet file into silt batches (one per row group). The file's schema is mapped
/// to silt types the way Spark reads it (see docs/format/parquet-reading.md). Thread-safe after Open.
class FileReader {
 public:
  /// Reads and validates the footer. `path` is used in error messages. Throws
  /// PARQUET_CORRUPT_FILE for anything malformed, PARQUET_UNSUPPORTED_FEATURE for what silt
  /// cannot read.
  static std::unique_ptr<FileReader> Open(std::shared_ptr<io::RandomAccessFile> file);
  static std::unique_ptr<FileReader> Open(io::FileSystem& fs, const std::string& path);
  virtual ~FileReader() = default;

  virtual const FileMetaData& metadata() const = 0;
  /// The file's columns as a silt schema (field ids in field metadata "parquet.field.id").
  virtual const Schema& schema() const = 0;
  virtual int64_t num_rows() const = 0;
  virtual int num_row_groups() const = 0;

  /// The row groups `options` selects, after skipping by statistics.
  virtual std::vector<int> SelectRowGroups(const ReadOptions& options) const = 0;
  /// Reads the rows of row group `index` that pass `options.row_filters` (all rows without
  /// them), with the projected columns.
  virtual Batch ReadRowGroup(int index, const ReadOptions& options) const = 0;
  /// As above, also dropping the rows that `keep_rows` does not keep, and reporting where the
  /// returned rows are.
  ///  - `keep_rows`: nullptr keeps every row; else one entry per row of the row group (its size
  ///    must be the row group's row count, INVALID_ARGUMENT otherwise), row i (its position in
  ///    the row group) is dropped when `(*keep_rows)[i]` is false: a deletion vector's mask.
  ///  - `positions`: when not null, set to the positions within the row group of the returned
  ///    rows, ascending, one per row of the batch (row k of the batch is row
  ///    `(*positions)[k]` of the row group).
  /// Rows dropped by the mask cost no decoding of the projected columns when no row of the
  /// row group is kept.
  virtual Batch ReadRowGroup(int index, const ReadOptions& options,
                             const std::vector<bool>* keep_rows,
                             std::vector<int64_t>* positions) const = 0;
  /// Reads every selected row group (in parallel), in file order.
  virtual std::vector<Batch> Read(const ReadOptions& options = {}) const = 0;
  /// Streams the selected row groups: decodes them in parallel (a row group per task) and calls
  /// `consume(row_group_index, batch)` for each as soon as it is decoded, without keeping them.
  /// `consume` may run on several threads at once and in any row-group order; an exception it
  /// throws stops the scan and is rethrown here.
  virtual void Scan(const ReadOptions& options,
                    const std::function<void(int, Batch)>& consume) const = 0;
};

}  // namespace silt::parquet
