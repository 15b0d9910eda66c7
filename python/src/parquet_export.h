#pragma once

// Local data of Python (createDataFrame of pandas frames and large row lists) as a Parquet file
// that queries then read: built column by column with silt's vector builders and written with
// silt's Parquet writer, so no value passes through SQL text.

#include <pybind11/pybind11.h>

#include <string>

namespace silt::python {

/// Writes `columns` (per field a numpy array of the vector layout without NULLs, or a Python
/// list of values already in the engine's form: ints
/// for integers, dates as days, timestamps as microseconds, decimals as 16 little-endian bytes
/// of the unscaled value, lists for arrays, lists of (key, value) pairs for maps, sequences for
/// structs, None for NULL) as a Parquet file at `path`. `fields` holds (name, Spark type text,
/// nullable) tuples. Throws INVALID_ARGUMENT when the columns' lengths differ.
void WriteParquetFile(const std::string& path, const pybind11::list& fields,
                      const pybind11::list& columns);

}  // namespace silt::python
