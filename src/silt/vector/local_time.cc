#include "silt/vector/local_time.h"

#include <cstring>
#include <optional>

namespace silt {
namespace {

bool ContainsTimestamp(const DataType& type) {
  if (type.id() == TypeId::kTimestamp) return true;
  // Struct fields, an array's element and a map's key and value are all fields of the type.
  for (const Field& field : type.fields()) {
    if (ContainsTimestamp(*field.type)) return true;
  }
  return false;
}

VectorPtr ToLocal(const VectorPtr& vector, const TimeZone& zone) {
  if (!ContainsTimestamp(*vector->type())) return vector;
  std::vector<BufferPtr> buffers = vector->buffers();
  std::vector<VectorPtr> children;
  children.reserve(vector->children().size());
  for (const VectorPtr& child : vector->children()) children.push_back(ToLocal(child, zone));
  if (vector->type_id() == TypeId::kTimestamp) {
    // Values [offset, offset + length) are converted; the rest of a shared buffer is left as is.
    const int64_t* source = vector->values<int64_t>();
    BufferPtr values = Buffer::Allocate(buffers[1]->size());
    int64_t* target = values->as<int64_t>();
    std::memcpy(target, buffers[1]->data(), buffers[1]->size());
    for (int64_t row = 0; row < vector->length(); ++row) {
      if (vector->IsValid(row)) target[vector->offset() + row] = zone.UtcToLocal(source[row]);
    }
    buffers[1] = values;
  }
  return Vector::Make(vector->type(), vector->length(), std::move(buffers), std::move(children),
                      vector->null_count(), vector->offset());
}

}  // namespace

std::vector<Batch> TimestampsAsLocalTime(const std::vector<Batch>& batches, const TimeZone& zone) {
  std::optional<int32_t> fixed = zone.fixed_offset_seconds();
  if (fixed && *fixed == 0) return batches;
  std::vector<Batch> result;
  result.reserve(batches.size());
  for (const Batch& batch : batches) {
    std::vector<VectorPtr> columns;
    columns.reserve(batch.num_columns());
    for (const VectorPtr& column : batch.columns()) columns.push_back(ToLocal(column, zone));
    result.emplace_back(batch.schema(), std::move(columns), batch.num_rows());
  }
  return result;
}

}  // namespace silt
