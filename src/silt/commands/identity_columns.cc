#include "silt/commands/identity_columns.h"

#include <charconv>
#include <limits>

#include "silt/base/check.h"
#include "silt/types/schema_json.h"
#include "silt/vector/vector.h"

namespace silt::commands::internal {
namespace {

std::optional<int64_t> MetadataInteger(const Field& field, std::string_view key) {
  const std::string* raw = field.FindMetadata(key);
  if (raw == nullptr) return std::nullopt;
  int64_t value = 0;
  auto [end, error] = std::from_chars(raw->data(), raw->data() + raw->size(), value);
  if (error != std::errc() || end != raw->data() + raw->size()) {
    SILT_THROW(INVALID_SCHEMA_JSON, {{"message", "column " + field.name + " has " +
                                                     std::string(key) + " " + *raw +
                                                     ", not an integer"}});
  }
  return value;
}

void SetMetadata(Field& field, std::string_view key, std::string value) {
  for (auto& [existing_key, existing_value] : field.metadata) {
    if (existing_key == key) {
      existing_value = std::move(value);
      return;
    }
  }
  field.metadata.emplace_back(std::string(key), std::move(value));
}

[[noreturn]] void ThrowOverflow(const std::string& column) {
  SILT_THROW(ARITHMETIC_OVERFLOW,
             {{"message", "long overflow generating the next value of IDENTITY column " + column},
              {"alternative", ""}});
}

}  // namespace

bool IsIdentityColumn(const Field& field) {
  return field.FindMetadata(kIdentityStartKey) != nullptr;
}

void AddIdentityMetadata(Field& field, const sql::IdentitySpec& spec) {
  if (field.type->id() != TypeId::kLong) {
    SILT_THROW(DELTA_IDENTITY_COLUMNS_UNSUPPORTED_DATA_TYPE, {{"dataType", field.type->ToString()}});
  }
  if (spec.step == 0) SILT_THROW(DELTA_IDENTITY_COLUMNS_ILLEGAL_STEP, {});
  SetMetadata(field, kIdentityStartKey, std::to_string(spec.start));
  SetMetadata(field, kIdentityStepKey, std::to_string(spec.step));
  SetMetadata(field, kIdentityAllowExplicitInsertKey, spec.always ? "false" : "true");
}

void CheckExplicitIdentityInsert(const Field& field) {
  const std::string* allow = field.FindMetadata(kIdentityAllowExplicitInsertKey);
  if (IsIdentityColumn(field) && (allow == nullptr || *allow != "true")) {
    SILT_THROW(DELTA_IDENTITY_COLUMNS_EXPLICIT_INSERT_NOT_SUPPORTED, {{"colName", field.name}});
  }
}

void CheckIdentityNotUpdated(const Field& field) {
  if (IsIdentityColumn(field)) {
    SILT_THROW(DELTA_IDENTITY_COLUMNS_UPDATE_NOT_SUPPORTED, {{"colName", field.name}});
  }
}

IdentityValueGenerator::IdentityValueGenerator(const Schema& schema) {
  for (size_t i = 0; i < schema.num_fields(); ++i) {
    const Field& field = schema.field(i);
    if (!IsIdentityColumn(field)) continue;
    Column column;
    column.index = i;
    column.name = field.name;
    column.start = MetadataInteger(field, kIdentityStartKey).value_or(1);
    column.step = MetadataInteger(field, kIdentityStepKey).value_or(1);
    if (column.step == 0) SILT_THROW(DELTA_IDENTITY_COLUMNS_ILLEGAL_STEP, {});
    column.high_water_mark = MetadataInteger(field, kIdentityHighWaterMarkKey);
    columns_.push_back(std::move(column));
  }
}

IdentityValueGenerator::Column* IdentityValueGenerator::Find(size_t column) {
  for (Column& c : columns_) {
    if (c.index == column) return &c;
  }
  return nullptr;
}

bool IdentityValueGenerator::IsIdentity(size_t column) const {
  for (const Column& c : columns_) {
    if (c.index == column) return true;
  }
  return false;
}

VectorPtr IdentityValueGenerator::Generate(size_t column, int64_t num_rows) {
  std::lock_guard<std::mutex> lock(mutex_);
  Column* c = Find(column);
  SILT_CHECK(c != nullptr, "not an identity column");
  VectorBuilder builder(LongType(), num_rows);
  if (num_rows == 0) return builder.Finish();
  // The first value is the start, or the step past the high water mark.
  int64_t next = c->start;
  if (c->high_water_mark) {
    __int128 value = static_cast<__int128>(*c->high_water_mark) + c->step;
    if (value > std::numeric_limits<int64_t>::max() || value < std::numeric_limits<int64_t>::min()) {
      ThrowOverflow(c->name);
    }
    next = static_cast<int64_t>(value);
  }
  __int128 last = static_cast<__int128>(next) + static_cast<__int128>(num_rows - 1) * c->step;
  if (last > std::numeric_limits<int64_t>::max() || last < std::numeric_limits<int64_t>::min()) {
    ThrowOverflow(c->name);
  }
  for (int64_t row = 0; row < num_rows; ++row) builder.AppendInt(next + row * c->step);
  c->high_water_mark = static_cast<int64_t>(last);
  c->generated = true;
  return builder.Finish();
}

Batch IdentityValueGenerator::WithGeneratedColumns(const Batch& source, std::vector<int>& mapping) {
  std::vector<Field> fields = source.schema()->fields();
  std::vector<VectorPtr> columns = source.columns();
  for (size_t i = 0; i < mapping.size(); ++i) {
    if (mapping[i] >= 0 || !IsIdentity(i)) continue;
    mapping[i] = static_cast<int>(columns.size());
    fields.push_back(Field{"identity " + std::to_string(i), LongType(), false, {}});
    columns.push_back(Generate(i, source.num_rows()));
  }
  return Batch(std::make_shared<Schema>(std::move(fields)), std::move(columns), source.num_rows());
}

bool IdentityValueGenerator::generated_any() const {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const Column& c : columns_) {
    if (c.generated) return true;
  }
  return false;
}

bool IdentityValueGenerator::UpdateHighWaterMarks(log::Metadata& metadata) const {
  std::lock_guard<std::mutex> lock(mutex_);
  bool any = false;
  for (const Column& c : columns_) any = any || c.generated;
  if (!any) return false;
  std::vector<Field> fields = ParseDeltaSchema(metadata.schema_string).fields();
  for (const Column& c : columns_) {
    if (!c.generated) continue;
    SILT_CHECK(c.index < fields.size() && fields[c.index].name == c.name,
               "identity column moved during the write");
    SetMetadata(fields[c.index], kIdentityHighWaterMarkKey, std::to_string(*c.high_water_mark));
  }
  metadata.schema_string = ToDeltaSchemaJson(Schema(std::move(fields)));
  return true;
}

}  // namespace silt::commands::internal
