#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "silt/types/data_type.h"
#include "silt/vector/vector.h"

namespace silt {

/// A set of equally long columns with their schema: the unit operators exchange.
/// Immutable once made; thread-safe for reads.
class Batch {
 public:
  Batch() = default;
  /// Checks that there is one column per field, each of `num_rows` values of the field's type
  /// (INTERNAL_ERROR otherwise).
  Batch(SchemaPtr schema, std::vector<VectorPtr> columns, int64_t num_rows);

  const SchemaPtr& schema() const { return schema_; }
  const std::vector<VectorPtr>& columns() const { return columns_; }
  const VectorPtr& column(size_t i) const { return columns_[i]; }
  size_t num_columns() const { return columns_.size(); }
  int64_t num_rows() const { return num_rows_; }

  /// A zero-copy view of rows [offset, offset + length).
  Batch Slice(int64_t offset, int64_t length) const;
  /// Deep equality of schema and values.
  bool Equals(const Batch& other) const;

 private:
  SchemaPtr schema_;
  std::vector<VectorPtr> columns_;
  int64_t num_rows_ = 0;
};

/// Concatenates batches of one schema into one (copying; a single batch is returned as is; no
/// batches give an empty Batch()). Batches of different schemas throw INTERNAL_ERROR.
Batch ConcatenateBatches(const std::vector<Batch>& batches);

/// Options for printing batches.
struct ShowOptions {
  int64_t max_rows = 20;  ///< rows printed; the footer says "only showing top N rows"
  int truncate = 20;      ///< cell width limit as in Spark's show(); 0 = never truncate
};

/// Renders rows as Spark's Dataset.show() does: +---+ borders; column width the largest of 3,
/// the header and the cells, counted in UTF-8 code points; cells (not headers) longer than
/// `truncate` cut to truncate-3 characters plus "..." (to `truncate` characters when it is
/// below 4); header and cells right-aligned when truncate > 0 and left-aligned when it is 0;
/// NULL as "NULL"; control characters shown escaped ("\n") as Spark does; and the
/// "only showing top N rows" ("row" when N is 1) footer when rows were left out. The schema is
/// the first batch's; all batches must share it.
std::string FormatShow(const std::vector<Batch>& batches, const ShowOptions& options = {});

/// CSV with a header line: RFC 4180 quoting (a field holding a quote, comma, CR or LF is quoted,
/// quotes doubled), "\n" line ends, NULL as an empty field, the empty string as "" (so that it
/// differs from NULL, as Spark writes it). Primitive values use Vector::ValueToString; nested
/// values (struct, array, map) are written as their compact JSON as in FormatJsonLines, e.g.
/// "{""a"":1}" for a map. No batches give "".
std::string FormatCsv(const std::vector<Batch>& batches, bool header = true);

/// JSON Lines: one object per row ("\n"-terminated, no spaces), keys in schema order; integers
/// and decimals as exact JSON numbers (decimal(5,2) 1.50 as 1.50), floats as JSON numbers in
/// Java's text form ("1.0E-4"; NaN/Infinity as strings, as Spark does), dates and timestamps as
/// strings in Spark's text form, binary as base64, structs as objects, maps as objects keyed by
/// the key's text form, arrays as arrays, NULL as null (also for top-level fields).
std::string FormatJsonLines(const std::vector<Batch>& batches);

}  // namespace silt
