#include "parquet_export.h"

#include <pybind11/numpy.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "silt/base/error_class.h"
#include "silt/io/file_system.h"
#include "silt/parquet/writer.h"
#include "silt/sql/parser.h"
#include "silt/vector/batch.h"
#include "silt/vector/vector.h"

namespace py = pybind11;

namespace silt::python {
namespace {

// Rows per batch handed to the writer.
constexpr int64_t kBatchRows = 65536;

void Append(VectorBuilder& builder, const DataType& type, py::handle value) {
  if (value.is_none()) {
    builder.AppendNull();
    return;
  }
  switch (type.id()) {
    case TypeId::kNull:
      builder.AppendNull();
      return;
    case TypeId::kBoolean:
      builder.AppendBool(value.cast<bool>());
      return;
    case TypeId::kByte:
    case TypeId::kShort:
    case TypeId::kInteger:
    case TypeId::kLong:
    case TypeId::kDate:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kYearMonthInterval:
    case TypeId::kDayTimeInterval:
      builder.AppendInt(value.cast<int64_t>());
      return;
    case TypeId::kFloat:
      builder.AppendFloat(value.cast<float>());
      return;
    case TypeId::kDouble:
      builder.AppendDouble(value.cast<double>());
      return;
    case TypeId::kDecimal: {
      std::string bytes = value.cast<py::bytes>();
      Decimal128 unscaled = 0;
      if (bytes.size() != sizeof(unscaled)) {
        throw MakeError(ErrorClass::INVALID_ARGUMENT,
                        {{"message", "a decimal value must be 16 bytes of its unscaled value"}});
      }
      std::memcpy(&unscaled, bytes.data(), sizeof(unscaled));
      builder.AppendDecimal(unscaled);
      return;
    }
    case TypeId::kString:
      builder.AppendString(value.cast<std::string>());
      return;
    case TypeId::kBinary:
      builder.AppendString(value.cast<py::bytes>().cast<std::string>());
      return;
    case TypeId::kList:
      for (py::handle element : value) Append(builder.child(0), *type.element_type(), element);
      builder.FinishList();
      return;
    case TypeId::kMap: {
      VectorBuilder& entries = builder.child(0);
      for (py::handle pair : value) {
        py::tuple entry = py::reinterpret_borrow<py::object>(pair).cast<py::tuple>();
        Append(entries.child(0), *type.key_type(), entry[0]);
        Append(entries.child(1), *type.value_type(), entry[1]);
        entries.AppendStruct();
      }
      builder.FinishList();
      return;
    }
    case TypeId::kStruct: {
      py::sequence values = py::reinterpret_borrow<py::sequence>(value);
      const std::vector<Field>& fields = type.fields();
      if (static_cast<size_t>(py::len(values)) != fields.size()) {
        throw MakeError(ErrorClass::INVALID_ARGUMENT,
                        {{"message", "a struct value must have one value per field"}});
      }
      for (size_t i = 0; i < fields.size(); ++i)
        Append(builder.child(i), *fields[i].type, values[i]);
      builder.AppendStruct();
      return;
    }
  }
}

// Rows [start, end) of a numpy array without NULLs whose items have the vector layout of `type`
// (int8..int64, float32/64, int32 days, int64 microseconds; bool for booleans).
void AppendArray(VectorBuilder& builder, const DataType& type, const py::array& array,
                 int64_t start, int64_t end) {
  py::array values = py::array::ensure(array, py::array::c_style);
  const auto* data = static_cast<const uint8_t*>(values.data());
  size_t item = static_cast<size_t>(values.itemsize());
  if (type.id() == TypeId::kBoolean && item == 1) {
    for (int64_t row = start; row < end; ++row) builder.AppendBool(data[row] != 0);
    return;
  }
  if (type.FixedWidth() == 0 || static_cast<size_t>(type.FixedWidth()) != item) {
    throw MakeError(
        ErrorClass::INVALID_ARGUMENT,
        {{"message", "a numpy column's item size does not match its type " + type.ToString()}});
  }
  builder.AppendValues(data + static_cast<size_t>(start) * item, end - start);
}

}  // namespace

void WriteParquetFile(const std::string& path, const py::list& fields, const py::list& columns) {
  std::vector<Field> schema_fields;
  for (py::handle entry : fields) {
    py::tuple field = py::reinterpret_borrow<py::object>(entry).cast<py::tuple>();
    schema_fields.push_back(Field{field[0].cast<std::string>(),
                                  sql::ParseDataType(field[1].cast<std::string>()),
                                  field[2].cast<bool>(),
                                  {}});
  }
  if (schema_fields.size() != static_cast<size_t>(py::len(columns))) {
    throw MakeError(ErrorClass::INVALID_ARGUMENT, {{"message", "one column per field is needed"}});
  }
  int64_t rows = schema_fields.empty() ? 0 : static_cast<int64_t>(py::len(columns[0]));
  for (py::handle column : columns) {
    if (static_cast<int64_t>(py::len(column)) != rows) {
      throw MakeError(ErrorClass::INVALID_ARGUMENT, {{"message", "the columns' lengths differ"}});
    }
  }
  // Only when numpy is loaded can a column be an array (asking pybind11 otherwise imports it).
  bool numpy_loaded = py::module_::import("sys").attr("modules").contains("numpy");
  auto schema = std::make_shared<const Schema>(schema_fields);
  std::vector<std::unique_ptr<VectorBuilder>> builders;
  for (const Field& field : schema_fields) {
    builders.push_back(std::make_unique<VectorBuilder>(field.type, std::min(rows, kBatchRows)));
  }
  std::unique_ptr<parquet::FileWriter> writer =
      parquet::FileWriter::Open(io::MakeLocalFileSystem()->OpenWrite(path), *schema);
  for (int64_t start = 0; start < rows; start += kBatchRows) {
    int64_t end = std::min(rows, start + kBatchRows);
    std::vector<VectorPtr> vectors;
    for (size_t column = 0; column < schema_fields.size(); ++column) {
      const DataType& type = *schema_fields[column].type;
      py::object values = columns[column];
      if (numpy_loaded && py::isinstance<py::array>(values)) {
        AppendArray(*builders[column], type, values.cast<py::array>(), start, end);
      } else {
        py::list list = values.cast<py::list>();
        for (int64_t row = start; row < end; ++row) Append(*builders[column], type, list[row]);
      }
      vectors.push_back(builders[column]->Finish());
    }
    writer->Write(Batch(schema, std::move(vectors), end - start));
  }
  writer->Close();
}

}  // namespace silt::python
