#pragma once

// Python objects of silt's values, one at a time: what Result.rows, Result.column and toPandas
// make of a vector's rows. Every function here needs the GIL.

#include <pybind11/pybind11.h>

#include <cstdint>
#include <string_view>

#include "silt/vector/vector.h"

namespace silt::python {

/// A new reference to None.
PyObject* NewNone();

/// A new str of `text`: ASCII text (most strings) is copied into a new str as it is, other text
/// is decoded as UTF-8 (strictly, as str(bytes, "utf-8") does). Null with a Python error set
/// when that fails.
PyObject* NewString(std::string_view text);

/// Converts values of result vectors to Python objects. Holds the Python types it needs, so
/// one converter serves every value of a result.
class ValueConverter {
 public:
  ValueConverter();

  /// Row `row` of `vector`. `hashable` asks for tuples instead of lists and dicts (map keys).
  pybind11::object Convert(const Vector& vector, int64_t row, bool hashable = false) const;

 private:
  pybind11::object Micros(int64_t micros) const;
  pybind11::object ConvertList(const Vector& vector, int64_t row, bool hashable) const;
  pybind11::object ConvertStruct(const Vector& vector, int64_t row, bool hashable) const;
  pybind11::object ConvertMap(const Vector& vector, int64_t row, bool hashable) const;

  pybind11::object decimal_;
  pybind11::object date_;
  pybind11::object timedelta_;
  pybind11::object utc_epoch_;
  pybind11::object naive_epoch_;
};

}  // namespace silt::python
