#pragma once

#include <cstdint>
#include <vector>

#include "silt/vector/batch.h"
#include "silt/vector/vector.h"

namespace silt {

/// The rows `rows[0, num_rows)` of `source`, in that order and repeated as often as they appear;
/// a negative index gives a NULL row (the unmatched side of an outer join). The one gather every
/// operator uses: filters, joins, sorts, windows, generators and DML. Dictionary codes of a
/// string vector are taken along. Throws VECTOR_CAPACITY_EXCEEDED when the gathered strings
/// exceed 2 GiB.
VectorPtr TakeRows(const Vector& source, const int64_t* rows, int64_t num_rows);

inline VectorPtr TakeRows(const Vector& source, const std::vector<int64_t>& rows) {
  return TakeRows(source, rows.data(), static_cast<int64_t>(rows.size()));
}

/// TakeRows of every column of `batch`.
Batch TakeBatchRows(const Batch& batch, const std::vector<int64_t>& rows);

}  // namespace silt
