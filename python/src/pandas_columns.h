#pragma once

// The columns of toPandas's frame, converted while the engine produces the next batches.

#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "silt/types/data_type.h"
#include "silt/vector/batch.h"
#include "values.h"

namespace silt::python {

/// A query's rows as toPandas builds its frame from them, batch by batch as they arrive:
/// fixed-width values copied out of each batch, strings, dates and the other types made Python
/// objects (dates shared per day, strings per distinct value where that pays). Each column
/// grows in memory of its own that numpy then uses as it is (no copy at the end, no page
/// faults of a second copy).
class PandasColumns {
 public:
  explicit PandasColumns(const Schema& schema);
  PandasColumns(const PandasColumns&) = delete;
  PandasColumns& operator=(const PandasColumns&) = delete;
  ~PandasColumns();

  /// Takes one batch of the schema's columns. Needs the GIL.
  void Add(const Batch& batch);

  /// Column `index`: (numpy array, NULL mask or None) for fixed-width types other than DATE
  /// (TIMESTAMP and TIMESTAMP_NTZ as int64 microseconds since the epoch), else a numpy array of
  /// objects (strings, dates, and the values Result.column gives for other types). Each column
  /// can be taken once.
  pybind11::object Take(size_t index);

  int64_t num_rows() const { return rows_; }

 private:
  struct Column;

  ValueConverter converter_;
  std::vector<std::unique_ptr<Column>> columns_;
  int64_t rows_ = 0;
};

}  // namespace silt::python
