#include "silt/log/type_widening.h"

#include <simdjson.h>

#include <algorithm>

#include "silt/base/ascii.h"
#include "silt/base/check.h"
#include "silt/base/json_writer.h"
#include "silt/error.h"
#include "silt/log/table_features.h"
#include "silt/types/schema_json.h"

namespace silt::log {

namespace {

bool IsIntegral(TypeId id) {
  return id == TypeId::kByte || id == TypeId::kShort || id == TypeId::kInteger || id == TypeId::kLong;
}

int IntegralRank(TypeId id) {
  switch (id) {
    case TypeId::kByte: return 1;
    case TypeId::kShort: return 2;
    case TypeId::kInteger: return 3;
    default: return 4;
  }
}

// Spark's DecimalType.isWiderThan for a decimal: no fewer integer digits and no smaller scale.
bool DecimalCovers(const DataType& decimal, int integer_digits, int scale) {
  return decimal.precision() - decimal.scale() >= integer_digits && decimal.scale() >= scale;
}

bool IsStringType(const DataType& type) { return type.id() == TypeId::kString; }

// Spark's DataType.sql of an atomic type: its simple string in upper case ("BIGINT").
std::string SqlName(const DataType& type) {
  std::string name = type.ToString();
  for (char& c : name) c = c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
  return name;
}

// Applies `edit` to every struct field of `type`, at any depth (inside arrays and maps too).
template <typename Edit>
DataTypePtr EditFields(const DataTypePtr& type, const Edit& edit);

template <typename Edit>
Field EditField(const Field& field, const Edit& edit) {
  Field edited = field;
  edit(edited);
  edited.type = EditFields(field.type, edit);
  return edited;
}

template <typename Edit>
DataTypePtr EditFields(const DataTypePtr& type, const Edit& edit) {
  switch (type->id()) {
    case TypeId::kStruct: {
      std::vector<Field> fields;
      for (const Field& field : type->fields()) fields.push_back(EditField(field, edit));
      return StructType(std::move(fields));
    }
    case TypeId::kList:
      return ListType(EditFields(type->element_type(), edit), type->contains_null());
    case TypeId::kMap:
      return MapType(EditFields(type->key_type(), edit), EditFields(type->value_type(), edit),
                     type->value_contains_null());
    default:
      return type;
  }
}

template <typename Visit>
void VisitFields(const std::vector<Field>& fields, const std::string& prefix, const Visit& visit);

template <typename Visit>
void VisitType(const DataType& type, const std::string& path, const Visit& visit) {
  if (type.id() == TypeId::kStruct) {
    VisitFields(type.fields(), path + ".", visit);
  } else if (type.id() == TypeId::kList) {
    VisitType(*type.element_type(), path + ".element", visit);
  } else if (type.id() == TypeId::kMap) {
    VisitType(*type.key_type(), path + ".key", visit);
    VisitType(*type.value_type(), path + ".value", visit);
  }
}

template <typename Visit>
void VisitFields(const std::vector<Field>& fields, const std::string& prefix, const Visit& visit) {
  for (const Field& field : fields) {
    std::string path = prefix + field.name;
    visit(field, path);
    VisitType(*field.type, path, visit);
  }
}

}  // namespace

bool IsTypeChangeSupported(const DataType& from, const DataType& to) {
  if (from.Equals(to)) return true;
  if (from.is_nested() || to.is_nested()) return false;
  TypeId f = from.id();
  TypeId t = to.id();
  if (IsIntegral(f) && IsIntegral(t)) return IntegralRank(f) <= IntegralRank(t);
  if (f == TypeId::kFloat && t == TypeId::kDouble) return true;
  if (f == TypeId::kDate && t == TypeId::kTimestampNtz) return true;
  bool int32_stored = f == TypeId::kByte || f == TypeId::kShort || f == TypeId::kInteger;
  if (int32_stored && t == TypeId::kDouble) return true;
  if (t != TypeId::kDecimal) return false;
  if (f == TypeId::kDecimal) return DecimalCovers(to, from.precision() - from.scale(), from.scale());
  // Parquet readers convert INT32 to decimal(10, 0) and wider, INT64 to decimal(20, 0) and wider.
  if (int32_stored) return DecimalCovers(to, 10, 0);
  if (f == TypeId::kLong) return DecimalCovers(to, 20, 0);
  return false;
}

bool IsTypeChangeSupportedForSchemaEvolution(const DataType& from, const DataType& to) {
  if (!IsTypeChangeSupported(from, to)) return false;
  if (from.Equals(to)) return true;
  TypeId f = from.id();
  TypeId t = to.id();
  return (IsIntegral(f) && IsIntegral(t)) || (f == TypeId::kFloat && t == TypeId::kDouble) ||
         (f == TypeId::kDecimal && t == TypeId::kDecimal) ||
         (f == TypeId::kDate && t == TypeId::kTimestampNtz);
}

namespace {

// `new_type` with the changes from `old_type` recorded: a change of an atomic type, directly or
// as a map key/value or array element (`path` leads there from `owner`), goes into `owner`; a
// struct's fields record their own changes.
DataTypePtr RecordChanges(Field& owner, const DataType& old_type, const DataTypePtr& new_type,
                          const std::string& path) {
  auto member = [&](const std::string& name) { return path.empty() ? name : path + "." + name; };
  if (old_type.id() != new_type->id()) {
    if (!old_type.is_nested() && !new_type->is_nested()) {
      RecordTypeChange(owner, old_type, *new_type, path);
    }
    return new_type;
  }
  switch (new_type->id()) {
    case TypeId::kStruct: {
      std::vector<Field> fields = new_type->fields();
      for (Field& field : fields) {
        for (const Field& old_field : old_type.fields()) {
          if (!EqualsIgnoreCase(old_field.name, field.name)) continue;
          DataTypePtr type = field.type;
          field.type = RecordChanges(field, *old_field.type, type, "");
          break;
        }
      }
      return StructType(std::move(fields));
    }
    case TypeId::kList:
      return ListType(RecordChanges(owner, *old_type.element_type(), new_type->element_type(),
                                    member("element")),
                      new_type->contains_null());
    case TypeId::kMap: {
      DataTypePtr key = RecordChanges(owner, *old_type.key_type(), new_type->key_type(), member("key"));
      DataTypePtr value =
          RecordChanges(owner, *old_type.value_type(), new_type->value_type(), member("value"));
      return MapType(key, value, new_type->value_contains_null());
    }
    default:
      if (!old_type.Equals(*new_type)) RecordTypeChange(owner, old_type, *new_type, path);
      return new_type;
  }
}

}  // namespace

Schema WithTypeChangesRecorded(const Schema& old, const Schema& updated) {
  std::vector<Field> fields = updated.fields();
  for (Field& field : fields) {
    int index = old.FieldIndex(field.name, /*case_sensitive=*/false);
    if (index < 0) continue;
    DataTypePtr type = field.type;
    field.type = RecordChanges(field, *old.field(static_cast<size_t>(index)).type, type, "");
  }
  return Schema(std::move(fields));
}

bool IsTypeWideningSupported(const Protocol& protocol) {
  return IsFeatureSupported(protocol, "typeWidening") ||
         IsFeatureSupported(protocol, "typeWidening-preview");
}

bool IsTypeWideningEnabled(const Protocol& protocol, const Metadata& metadata) {
  const std::string* value = FindValue(metadata.configuration, "delta.enableTypeWidening");
  return value != nullptr && EqualsIgnoreCase(*value, "true") && IsTypeWideningSupported(protocol);
}

void RecordTypeChange(Field& field, const DataType& from, const DataType& to,
                      std::string_view field_path) {
  JsonWriter change;
  change.BeginObject();
  change.Key("fromType");
  change.String(from.DeltaName());
  change.Key("toType");
  change.String(to.DeltaName());
  if (!field_path.empty()) {
    change.Key("fieldPath");
    change.String(field_path);
  }
  change.EndObject();
  for (auto& [key, value] : field.metadata) {
    if (key != kTypeChangesKey) continue;
    // Append to the existing list: drop its closing bracket, add ",<change>]".
    size_t close = value.rfind(']');
    if (close == std::string::npos) break;
    bool empty = value.find_first_not_of(" \t\r\n", value.find('[') + 1) == close;
    value = value.substr(0, close) + (empty ? "" : ",") + change.str() + "]";
    return;
  }
  field.metadata.emplace_back(std::string(kTypeChangesKey), "[" + change.str() + "]");
}

bool HasTypeChanges(const Schema& schema) {
  bool found = false;
  VisitFields(schema.fields(), "", [&](const Field& field, const std::string&) {
    if (field.FindMetadata(kTypeChangesKey) != nullptr) found = true;
  });
  return found;
}

Schema WithoutTypeChanges(const Schema& schema) {
  auto strip = [](Field& field) {
    auto& metadata = field.metadata;
    metadata.erase(std::remove_if(metadata.begin(), metadata.end(),
                                  [](const auto& entry) { return entry.first == kTypeChangesKey; }),
                   metadata.end());
  };
  std::vector<Field> fields;
  for (const Field& field : schema.fields()) fields.push_back(EditField(field, strip));
  return Schema(std::move(fields));
}

void CheckTypeChangesReadable(const Schema& schema) {
  VisitFields(schema.fields(), "", [&](const Field& field, const std::string& path) {
    const std::string* history = field.FindMetadata(kTypeChangesKey);
    if (history == nullptr) return;
    auto unsupported = [&](const std::string& at, const std::string& from, const std::string& to) {
      SILT_THROW(DELTA_UNSUPPORTED_TYPE_CHANGE_IN_SCHEMA,
                 {{"fieldName", at}, {"fromType", from}, {"toType", to}});
    };
    simdjson::dom::parser parser;
    simdjson::dom::array changes;
    if (parser.parse(*history).get_array().get(changes) != simdjson::SUCCESS) {
      unsupported(path, *history, field.type->DeltaName());
    }
    for (simdjson::dom::element change : changes) {
      std::string_view from_name;
      std::string_view to_name;
      std::string_view inner;
      if (change["fromType"].get_string().get(from_name) != simdjson::SUCCESS ||
          change["toType"].get_string().get(to_name) != simdjson::SUCCESS) {
        unsupported(path, *history, field.type->DeltaName());
      }
      std::string at = path;
      if (change["fieldPath"].get_string().get(inner) == simdjson::SUCCESS && !inner.empty()) {
        at += "." + std::string(inner);
      }
      DataTypePtr from;
      DataTypePtr to;
      try {
        std::string quoted_from;
        std::string quoted_to;
        AppendJsonString(quoted_from, from_name);
        AppendJsonString(quoted_to, to_name);
        from = ParseDeltaType(quoted_from);
        to = ParseDeltaType(quoted_to);
      } catch (const Error&) {
        unsupported(at, std::string(from_name), std::string(to_name));
      }
      if (IsStringType(*from) && IsStringType(*to)) continue;
      if (!IsTypeChangeSupported(*from, *to)) unsupported(at, SqlName(*from), SqlName(*to));
    }
  });
}

}  // namespace silt::log
