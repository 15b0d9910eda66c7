#include "silt/vector/batch.h"

#include <string>

#include "silt/base/check.h"

namespace silt {

Batch::Batch(SchemaPtr schema, std::vector<VectorPtr> columns, int64_t num_rows)
    : schema_(std::move(schema)), columns_(std::move(columns)), num_rows_(num_rows) {
  SILT_CHECK(schema_ != nullptr, "batch without a schema");
  SILT_CHECK(num_rows_ >= 0, "negative batch row count");
  SILT_CHECK(columns_.size() == schema_->num_fields(),
             "batch has " + std::to_string(columns_.size()) + " columns for " +
                 std::to_string(schema_->num_fields()) + " fields");
  for (size_t i = 0; i < columns_.size(); ++i) {
    const Field& field = schema_->field(i);
    SILT_CHECK(columns_[i] != nullptr, "batch column " + field.name + " is null");
    SILT_CHECK(columns_[i]->length() == num_rows_,
               "batch column " + field.name + " has " + std::to_string(columns_[i]->length()) +
                   " rows, expected " + std::to_string(num_rows_));
    SILT_CHECK(columns_[i]->type()->Equals(*field.type),
               "batch column " + field.name + " has type " + columns_[i]->type()->ToString() +
                   ", schema says " + field.type->ToString());
  }
}

Batch Batch::Slice(int64_t offset, int64_t length) const {
  SILT_CHECK(offset >= 0 && length >= 0 && offset + length <= num_rows_,
             "batch slice out of range");
  std::vector<VectorPtr> sliced;
  sliced.reserve(columns_.size());
  for (const VectorPtr& column : columns_) sliced.push_back(column->Slice(offset, length));
  return Batch(schema_, std::move(sliced), length);
}

bool Batch::Equals(const Batch& other) const {
  if (num_rows_ != other.num_rows_ || columns_.size() != other.columns_.size()) return false;
  if (schema_ != other.schema_) {
    if (!schema_ || !other.schema_ || !schema_->Equals(*other.schema_)) return false;
  }
  for (size_t i = 0; i < columns_.size(); ++i) {
    if (!columns_[i]->Equals(*other.columns_[i])) return false;
  }
  return true;
}

Batch ConcatenateBatches(const std::vector<Batch>& batches) {
  if (batches.empty()) return Batch();
  if (batches.size() == 1) return batches[0];
  const SchemaPtr& schema = batches[0].schema();
  int64_t total_rows = 0;
  for (const Batch& batch : batches) {
    SILT_CHECK(batch.schema() && batch.schema()->Equals(*schema),
               "ConcatenateBatches needs batches of one schema");
    total_rows += batch.num_rows();
  }
  std::vector<VectorPtr> columns;
  for (size_t c = 0; c < schema->num_fields(); ++c) {
    VectorBuilder builder(schema->field(c).type, total_rows);
    for (const Batch& batch : batches) builder.AppendRange(*batch.column(c), 0, batch.num_rows());
    columns.push_back(builder.Finish());
  }
  return Batch(schema, std::move(columns), total_rows);
}

}  // namespace silt
