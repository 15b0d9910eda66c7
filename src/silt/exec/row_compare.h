#pragma once

#include <cstdint>

#include "silt/types/data_type.h"
#include "silt/vector/vector.h"

/// Spark's total order over values of one type, shared by sort, window and merge operators.
namespace silt::exec {

/// Whether values of `type` can be ordered (every type but MAP, also inside structs and arrays).
bool IsOrderable(const DataType& type);

/// Throws DATATYPE_MISMATCH when `type` cannot be ordered; `what` names the operation
/// ("sort", "window") for the message.
void CheckOrderable(const DataType& type, const char* what);

/// Compares row `i` of `left` with row `j` of `right` (vectors of an equal, orderable type) in
/// Spark's ascending order: NULL below every value (also inside structs and arrays), false <
/// true, NaN above every number and equal to NaN, -0.0 equal to 0.0, strings and binary by
/// unsigned bytes, structs field by field, arrays element by element and then by length.
/// Returns a negative, zero or positive number.
int CompareValues(const Vector& left, int64_t i, const Vector& right, int64_t j);

/// Whether rows `i` and `j` are equal under CompareValues (NULL equals NULL).
inline bool ValuesEqual(const Vector& left, int64_t i, const Vector& right, int64_t j) {
  return CompareValues(left, i, right, j) == 0;
}

}  // namespace silt::exec
