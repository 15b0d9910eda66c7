#include "silt/types/schema_json.h"

#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <string>

#include "silt/base/check.h"
#include "silt/base/json_writer.h"
#include "silt/types/type_nesting.h"

namespace silt {
namespace {

namespace ondemand = simdjson::ondemand;

[[noreturn]] void ThrowInvalid(std::string message) {
  SILT_THROW(INVALID_SCHEMA_JSON, {{"message", std::move(message)}});
}

// Turns a simdjson error code into INVALID_SCHEMA_JSON, naming what was being read.
void Check(simdjson::error_code error, std::string_view what) {
  if (error != simdjson::SUCCESS) {
    ThrowInvalid(std::string(what) + ": " + simdjson::error_message(error));
  }
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

int ParseDecimalPart(std::string_view text, std::string_view full_name) {
  text = Trim(text);
  int value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) {
    ThrowInvalid("malformed decimal type '" + std::string(full_name) + "'");
  }
  return value;
}

DataTypePtr ParsePrimitiveName(std::string_view name) {
  if (name == "string") return StringType();
  if (name == "long") return LongType();
  if (name == "integer") return IntegerType();
  if (name == "short") return ShortType();
  if (name == "byte") return ByteType();
  if (name == "float") return FloatType();
  if (name == "double") return DoubleType();
  if (name == "boolean") return BooleanType();
  if (name == "binary") return BinaryType();
  if (name == "date") return DateType();
  if (name == "timestamp") return TimestampType();
  if (name == "timestamp_ntz") return TimestampNtzType();
  if (name == "void") return NullType();
  // Spark writes a bare "decimal" for the system default decimal(10,0).
  if (name == "decimal") return DecimalType(10, 0);
  if (name.starts_with("decimal(") && name.ends_with(")")) {
    std::string_view inside = name.substr(8, name.size() - 9);
    size_t comma = inside.find(',');
    if (comma == std::string_view::npos) {
      ThrowInvalid("malformed decimal type '" + std::string(name) + "'");
    }
    int precision = ParseDecimalPart(inside.substr(0, comma), name);
    int scale = ParseDecimalPart(inside.substr(comma + 1), name);
    return DecimalType(precision, scale);
  }
  SILT_THROW(UNSUPPORTED_DATA_TYPE, {{"type", std::string(name)}});
}

DataTypePtr ParseTypeObject(ondemand::object object);

// A type is either a JSON string naming a primitive, or an object describing a nested type.
DataTypePtr ParseTypeValue(ondemand::value value) {
  ondemand::json_type json_type = ondemand::json_type::null;
  Check(value.type().get(json_type), "type");
  if (json_type == ondemand::json_type::string) {
    std::string_view name;
    Check(value.get_string().get(name), "type name");
    return ParsePrimitiveName(name);
  }
  if (json_type == ondemand::json_type::object) {
    ondemand::object object;
    Check(value.get_object().get(object), "type");
    return ParseTypeObject(object);
  }
  ThrowInvalid("a type must be a string or an object");
}

bool ReadBool(ondemand::value value, std::string_view key) {
  bool result = false;
  Check(value.get_bool().get(result), key);
  return result;
}

// Copies the value's JSON text without insignificant whitespace.
std::string MinifiedRawJson(ondemand::value value) {
  // simdjson 3.0 (Debian 12) has raw_json() on objects and arrays only; scalars are one token.
  ondemand::json_type json_type = ondemand::json_type::null;
  Check(value.type().get(json_type), "metadata value");
  std::string_view raw;
  if (json_type == ondemand::json_type::object) {
    ondemand::object object;
    Check(value.get_object().get(object), "metadata value");
    Check(object.raw_json().get(raw), "metadata value");
  } else if (json_type == ondemand::json_type::array) {
    ondemand::array array;
    Check(value.get_array().get(array), "metadata value");
    Check(array.raw_json().get(raw), "metadata value");
  } else {
    raw = value.raw_json_token();
  }
  std::string out(raw.size(), '\0');
  size_t length = 0;
  Check(simdjson::minify(raw.data(), raw.size(), out.data(), length), "metadata value");
  out.resize(length);
  return out;
}

FieldMetadata ParseMetadata(ondemand::value value) {
  ondemand::object object;
  Check(value.get_object().get(object), "metadata");
  FieldMetadata metadata;
  for (auto member : object) {
    std::string_view key;
    Check(member.unescaped_key().get(key), "metadata key");
    std::string key_copy(key);
    ondemand::value member_value;
    Check(member.value().get(member_value), "metadata value");
    metadata.emplace_back(std::move(key_copy), MinifiedRawJson(member_value));
  }
  return metadata;
}

Field ParseField(ondemand::object object) {
  Field field;
  bool has_name = false;
  for (auto member : object) {
    std::string_view key;
    Check(member.unescaped_key().get(key), "field key");
    ondemand::value value;
    Check(member.value().get(value), "field");
    if (key == "name") {
      std::string_view name;
      Check(value.get_string().get(name), "field name");
      field.name = std::string(name);
      has_name = true;
    } else if (key == "type") {
      field.type = ParseTypeValue(value);
    } else if (key == "nullable") {
      field.nullable = ReadBool(value, "nullable");
    } else if (key == "metadata") {
      field.metadata = ParseMetadata(value);
    }
  }
  if (!has_name) ThrowInvalid("a struct field has no name");
  if (!field.type) ThrowInvalid("field '" + field.name + "' has no type");
  return field;
}

DataTypePtr ParseTypeObject(ondemand::object object) {
  std::string type_name;
  std::vector<Field> fields;
  bool has_fields = false;
  DataTypePtr element;
  DataTypePtr key_type;
  DataTypePtr value_type;
  bool contains_null = true;
  bool value_contains_null = true;
  // One forward pass (simdjson's on-demand API reads each value once): the members can come in
  // any order, so nested types are parsed as met and assembled once "type" is known.
  for (auto member : object) {
    std::string_view key;
    Check(member.unescaped_key().get(key), "type key");
    ondemand::value value;
    Check(member.value().get(value), "type");
    if (key == "type") {
      std::string_view name;
      Check(value.get_string().get(name), "type");
      type_name = std::string(name);
    } else if (key == "fields") {
      ondemand::array array;
      Check(value.get_array().get(array), "fields");
      for (auto item : array) {
        ondemand::object field_object;
        Check(item.get_object().get(field_object), "struct field");
        fields.push_back(ParseField(field_object));
      }
      has_fields = true;
    } else if (key == "elementType") {
      element = ParseTypeValue(value);
    } else if (key == "containsNull") {
      contains_null = ReadBool(value, "containsNull");
    } else if (key == "keyType") {
      key_type = ParseTypeValue(value);
    } else if (key == "valueType") {
      value_type = ParseTypeValue(value);
    } else if (key == "valueContainsNull") {
      value_contains_null = ReadBool(value, "valueContainsNull");
    }
  }
  if (type_name == "struct") {
    if (!has_fields) ThrowInvalid("struct type without \"fields\"");
    return StructType(std::move(fields));
  }
  if (type_name == "array") {
    if (!element) ThrowInvalid("array type without \"elementType\"");
    return ListType(std::move(element), contains_null);
  }
  if (type_name == "map") {
    if (!key_type || !value_type) ThrowInvalid("map type without \"keyType\" or \"valueType\"");
    return MapType(std::move(key_type), std::move(value_type), value_contains_null);
  }
  if (type_name.empty()) ThrowInvalid("type object without \"type\"");
  SILT_THROW(UNSUPPORTED_DATA_TYPE, {{"type", type_name}});
}

// Schemas nest a few levels; anything deeper than this is rejected before parsing.
constexpr int kMaxNestingDepth = 256;

// The deepest nesting of objects and arrays in `json`, ignoring brackets inside strings.
// simdjson's on-demand parser only asserts its depth limit in debug builds, so the limit is
// enforced here.
int NestingDepth(std::string_view json) {
  int depth = 0;
  int deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < json.size(); ++i) {
    char c = json[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      deepest = std::max(deepest, ++depth);
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return deepest;
}

DataTypePtr ParseDocument(std::string_view json) {
  if (NestingDepth(json) > kMaxNestingDepth) {
    ThrowInvalid("nested deeper than " + std::to_string(kMaxNestingDepth) + " levels");
  }
  simdjson::padded_string padded(json);
  ondemand::parser parser;
  ondemand::document document;
  Check(parser.iterate(padded).get(document), "document");
  ondemand::json_type json_type = ondemand::json_type::null;
  Check(document.type().get(json_type), "document");
  DataTypePtr type;
  if (json_type == ondemand::json_type::string) {
    std::string_view name;
    Check(document.get_string().get(name), "type name");
    type = ParsePrimitiveName(name);
  } else if (json_type == ondemand::json_type::object) {
    ondemand::object object;
    Check(document.get_object().get(object), "document");
    type = ParseTypeObject(object);
  } else {
    ThrowInvalid("a type must be a string or an object");
  }
  // current_location() fails with OUT_OF_BOUNDS exactly when the whole input was consumed.
  if (document.current_location().error() == simdjson::SUCCESS) {
    ThrowInvalid("trailing content after the JSON value");
  }
  return type;
}

void WriteType(JsonWriter& json, const DataType& type);

void WriteField(JsonWriter& json, const Field& field) {
  json.BeginObject();
  json.Key("name");
  json.String(field.name);
  json.Key("type");
  WriteType(json, *field.type);
  json.Key("nullable");
  json.Bool(field.nullable);
  json.Key("metadata");
  json.BeginObject();
  for (const auto& [key, value] : field.metadata) {
    json.Key(key);
    json.Raw(value);
  }
  json.EndObject();
  json.EndObject();
}

void WriteStruct(JsonWriter& json, const std::vector<Field>& fields) {
  json.BeginObject();
  json.Key("type");
  json.String("struct");
  json.Key("fields");
  json.BeginArray();
  for (const Field& field : fields) WriteField(json, field);
  json.EndArray();
  json.EndObject();
}

void WriteType(JsonWriter& json, const DataType& type) {
  switch (type.id()) {
    case TypeId::kStruct:
      WriteStruct(json, type.fields());
      return;
    case TypeId::kList:
      json.BeginObject();
      json.Key("type");
      json.String("array");
      json.Key("elementType");
      WriteType(json, *type.element_type());
      json.Key("containsNull");
      json.Bool(type.contains_null());
      json.EndObject();
      return;
    case TypeId::kMap:
      json.BeginObject();
      json.Key("type");
      json.String("map");
      json.Key("keyType");
      WriteType(json, *type.key_type());
      json.Key("valueType");
      WriteType(json, *type.value_type());
      json.Key("valueContainsNull");
      json.Bool(type.value_contains_null());
      json.EndObject();
      return;
    default:
      json.String(type.DeltaName());
      return;
  }
}

// Adds "path: type" for each interval type in `type`: Spark has them as query values, but the
// Delta protocol has no such column type.
void CollectUnstorable(const DataType& type, const std::string& path, std::vector<std::string>& out) {
  if (type.is_interval()) {
    out.push_back(path + ": " + type.ToString());
    return;
  }
  switch (type.id()) {
    case TypeId::kStruct:
      for (const Field& field : type.fields()) CollectUnstorable(*field.type, path + "." + field.name, out);
      return;
    case TypeId::kList:
      CollectUnstorable(*type.element_type(), path + ".element", out);
      return;
    case TypeId::kMap:
      CollectUnstorable(*type.key_type(), path + ".key", out);
      CollectUnstorable(*type.value_type(), path + ".value", out);
      return;
    default:
      return;
  }
}

}  // namespace

Schema ParseDeltaSchema(std::string_view json) {
  DataTypePtr type = ParseDocument(json);
  if (type->id() != TypeId::kStruct) {
    ThrowInvalid("a schema must be a struct type, got " + type->ToString());
  }
  return Schema(type->fields());
}

DataTypePtr ParseDeltaType(std::string_view json) { return ParseDocument(json); }

std::string ToDeltaSchemaJson(const Schema& schema) {
  // Refused here, before the schema is committed, rather than written as a log that
  // ParseDeltaSchema would then call corrupt.
  for (const Field& field : schema.fields()) CheckTypeNesting(*field.type);
  std::vector<std::string> unsupported;
  for (const Field& field : schema.fields()) CollectUnstorable(*field.type, field.name, unsupported);
  if (!unsupported.empty()) {
    std::string list;
    for (const std::string& entry : unsupported) list += (list.empty() ? "" : ", ") + entry;
    SILT_THROW(DELTA_UNSUPPORTED_DATA_TYPES, {{"dataTypeList", "[" + list + "]"}});
  }
  JsonWriter json;
  WriteStruct(json, schema.fields());
  return json.Release();
}

std::string ToDeltaTypeJson(const DataType& type) {
  CheckTypeNesting(type);
  JsonWriter json;
  WriteType(json, type);
  return json.Release();
}

}  // namespace silt
