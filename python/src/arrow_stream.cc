#include "arrow_stream.h"

#include <cerrno>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace silt::python {
namespace {

// The structures of the Arrow C data and stream interfaces, as the specification defines them.
struct ArrowSchema {
  const char* format;
  const char* name;
  const char* metadata;
  int64_t flags;
  int64_t n_children;
  ArrowSchema** children;
  ArrowSchema* dictionary;
  void (*release)(ArrowSchema*);
  void* private_data;
};

struct ArrowArray {
  int64_t length;
  int64_t null_count;
  int64_t offset;
  int64_t n_buffers;
  int64_t n_children;
  const void** buffers;
  ArrowArray** children;
  ArrowArray* dictionary;
  void (*release)(ArrowArray*);
  void* private_data;
};

struct ArrowArrayStream {
  int (*get_schema)(ArrowArrayStream*, ArrowSchema*);
  int (*get_next)(ArrowArrayStream*, ArrowArray*);
  const char* (*get_last_error)(ArrowArrayStream*);
  void (*release)(ArrowArrayStream*);
  void* private_data;
};

constexpr int64_t kNullable = 2;  // ARROW_FLAG_NULLABLE

// Arrow's format string of a type.
std::string FormatOf(const DataType& type) {
  switch (type.id()) {
    case TypeId::kNull:
      return "n";
    case TypeId::kBoolean:
      return "b";
    case TypeId::kByte:
      return "c";
    case TypeId::kShort:
      return "s";
    case TypeId::kInteger:
      return "i";
    case TypeId::kLong:
      return "l";
    case TypeId::kFloat:
      return "f";
    case TypeId::kDouble:
      return "g";
    case TypeId::kDecimal:
      return "d:" + std::to_string(type.precision()) + "," + std::to_string(type.scale());
    case TypeId::kDate:
      return "tdD";
    case TypeId::kTimestamp:
      return "tsu:UTC";
    case TypeId::kTimestampNtz:
      return "tsu:";
    case TypeId::kString:
      return "u";
    case TypeId::kBinary:
      return "z";
    case TypeId::kYearMonthInterval:
      return "tiM";
    case TypeId::kDayTimeInterval:
      return "tDu";
    case TypeId::kList:
      return "+l";
    case TypeId::kMap:
      return "+m";
    case TypeId::kStruct:
      return "+s";
  }
  return "n";
}

struct SchemaData {
  std::string format;
  std::string name;
  std::vector<ArrowSchema*> children;
};

void ReleaseSchema(ArrowSchema* schema) {
  if (schema == nullptr || schema->release == nullptr) return;
  auto* data = static_cast<SchemaData*>(schema->private_data);
  for (ArrowSchema* child : data->children) {
    if (child->release != nullptr) child->release(child);
    delete child;
  }
  delete data;
  schema->release = nullptr;
}

void FillSchema(ArrowSchema* out, const std::string& name, const DataType& type, bool nullable) {
  auto* data = new SchemaData{FormatOf(type), name, {}};
  if (type.is_nested()) {
    for (const Field& field : type.fields()) {
      auto* child = new ArrowSchema();
      FillSchema(child, field.name, *field.type, field.nullable);
      data->children.push_back(child);
    }
    if (type.id() == TypeId::kMap) {
      // Arrow's map: one child "entries", a non-nullable struct of key and value.
      auto* entries = new ArrowSchema();
      auto* entries_data = new SchemaData{"+s", "entries", std::move(data->children)};
      *entries = ArrowSchema{entries_data->format.c_str(),
                             entries_data->name.c_str(),
                             nullptr,
                             0,
                             static_cast<int64_t>(entries_data->children.size()),
                             entries_data->children.data(),
                             nullptr,
                             ReleaseSchema,
                             entries_data};
      data->children = {entries};
    }
  }
  *out = ArrowSchema{data->format.c_str(),
                     data->name.c_str(),
                     nullptr,
                     nullable ? kNullable : 0,
                     static_cast<int64_t>(data->children.size()),
                     data->children.data(),
                     nullptr,
                     ReleaseSchema,
                     data};
}

struct ArrayData {
  VectorPtr vector;  // keeps the buffers alive
  std::vector<const void*> buffers;
  std::vector<ArrowArray*> children;
};

void ReleaseArray(ArrowArray* array) {
  if (array == nullptr || array->release == nullptr) return;
  auto* data = static_cast<ArrayData*>(array->private_data);
  for (ArrowArray* child : data->children) {
    if (child->release != nullptr) child->release(child);
    delete child;
  }
  delete data;
  array->release = nullptr;
}

const void* BufferData(const Vector& vector, size_t index) {
  if (index >= vector.buffers().size() || !vector.buffer(index)) return nullptr;
  return vector.buffer(index)->data();
}

void FillArray(ArrowArray* out, const VectorPtr& vector) {
  auto* data = new ArrayData{vector, {}, {}};
  const Vector& v = *vector;
  switch (v.type_id()) {
    case TypeId::kNull:
      break;  // Arrow's null arrays have no buffers
    case TypeId::kStruct:
      data->buffers = {BufferData(v, 0)};
      break;
    case TypeId::kString:
    case TypeId::kBinary:
      data->buffers = {BufferData(v, 0), BufferData(v, 1), BufferData(v, 2)};
      break;
    default:
      data->buffers = {BufferData(v, 0), BufferData(v, 1)};
      break;
  }
  for (const VectorPtr& child : v.children()) {
    auto* array = new ArrowArray();
    FillArray(array, child);
    data->children.push_back(array);
  }
  int64_t null_count = v.type_id() == TypeId::kNull ? v.length() : v.null_count();
  *out = ArrowArray{v.length(),
                    null_count,
                    v.offset(),
                    static_cast<int64_t>(data->buffers.size()),
                    static_cast<int64_t>(data->children.size()),
                    data->buffers.data(),
                    data->children.data(),
                    nullptr,
                    ReleaseArray,
                    data};
}

// One batch as a struct array of its columns.
void FillBatch(ArrowArray* out, const Batch& batch) {
  auto* data = new ArrayData{nullptr, {nullptr}, {}};
  for (size_t column = 0; column < batch.num_columns(); ++column) {
    auto* array = new ArrowArray();
    FillArray(array, batch.column(column));
    data->children.push_back(array);
  }
  *out = ArrowArray{batch.num_rows(),
                    0,
                    0,
                    1,
                    static_cast<int64_t>(data->children.size()),
                    data->buffers.data(),
                    data->children.data(),
                    nullptr,
                    ReleaseArray,
                    data};
}

struct StreamData {
  SchemaPtr schema;
  std::function<std::optional<Batch>()> next;
  std::string last_error;
};

int GetSchema(ArrowArrayStream* stream, ArrowSchema* out) {
  auto* data = static_cast<StreamData*>(stream->private_data);
  std::vector<Field> fields;
  if (data->schema) fields = data->schema->fields();
  FillSchema(out, "", *StructType(std::move(fields)), false);
  return 0;
}

int GetNext(ArrowArrayStream* stream, ArrowArray* out) {
  auto* data = static_cast<StreamData*>(stream->private_data);
  std::optional<Batch> batch;
  try {
    batch = data->next();
  } catch (const std::exception& error) {
    data->last_error = error.what();
    return EIO;
  }
  if (!batch) {
    out->release = nullptr;  // the end of the stream
    return 0;
  }
  FillBatch(out, *batch);
  return 0;
}

const char* GetLastError(ArrowArrayStream* stream) {
  auto* data = static_cast<StreamData*>(stream->private_data);
  return data->last_error.empty() ? nullptr : data->last_error.c_str();
}

void ReleaseStream(ArrowArrayStream* stream) {
  if (stream == nullptr || stream->release == nullptr) return;
  delete static_cast<StreamData*>(stream->private_data);
  stream->release = nullptr;
}

void DestroyCapsule(PyObject* capsule) {
  auto* stream =
      static_cast<ArrowArrayStream*>(PyCapsule_GetPointer(capsule, "arrow_array_stream"));
  if (stream == nullptr) {
    PyErr_Clear();
    return;
  }
  if (stream->release != nullptr) stream->release(stream);
  delete stream;
}

}  // namespace

pybind11::capsule ExportArrowStream(StatementOutput output) {
  SchemaPtr schema = output.schema();
  auto batches = std::make_shared<std::vector<Batch>>(output.batches());
  size_t next = 0;
  return ExportArrowStream(std::move(schema), [batches, next]() mutable -> std::optional<Batch> {
    // Batches without rows are left out, as the engine's streams leave them out.
    while (next < batches->size() && (*batches)[next].num_rows() == 0) ++next;
    if (next >= batches->size()) return std::nullopt;
    return (*batches)[next++];
  });
}

pybind11::capsule ExportArrowStream(SchemaPtr schema, std::function<std::optional<Batch>()> next) {
  auto* stream = new ArrowArrayStream{GetSchema, GetNext, GetLastError, ReleaseStream,
                                      new StreamData{std::move(schema), std::move(next), {}}};
  PyObject* capsule = PyCapsule_New(stream, "arrow_array_stream", DestroyCapsule);
  if (capsule == nullptr) {
    ReleaseStream(stream);
    delete stream;
    throw pybind11::error_already_set();
  }
  return pybind11::reinterpret_steal<pybind11::capsule>(capsule);
}

}  // namespace silt::python
