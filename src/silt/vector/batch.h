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

/// Concatenates batches of one schema into one.
Batch ConcatenateBatches(const std::vector<Batch>& batches);

/// Options for printing batches.
struct ShowOptions {
  int64_t max_rows = 20;  ///< rows printed; the footer says "only showing top N rows"
  int truncate = 20;      ///< cell width limit as in Spark's show(); 0 = never truncate
};

/// Renders rows as Spark's Dataset.show() does: +---+ borders, right-aligned cells, NULL as
/// "NULL", cells longer than `truncate` cut to truncate-3 characters plus "...", and the
/// "only showing top N rows" footer when rows were left out.
std::string FormatShow(const std::vector<Batch>& batches, const ShowOptions& options = {});

/// CSV with a header line: RFC 4180 quoting (quotes, commas, newlines), NULL as an empty field.
std::string FormatCsv(const std::vector<Batch>& batches, bool header = true);

/// JSON Lines: one object per row, keys in schema order; integers and decimals as exact JSON
/// numbers, floats as JSON numbers (NaN/Infinity as strings, as Spark does), dates and
/// timestamps as strings in Spark's text form, binary as base64, structs and maps as objects,
/// arrays as arrays, NULL as null.
std::string FormatJsonLines(const std::vector<Batch>& batches);

}  // namespace silt
