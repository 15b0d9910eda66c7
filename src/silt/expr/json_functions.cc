// JSON functions: from_json, to_json, get_json_object, json_tuple, schema_of_json,
// json_array_length and json_object_keys, with Spark's (Jackson's) reading and writing rules.

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>

#include "silt/base/json_writer.h"
#include "silt/expr/cast.h"
#include "silt/expr/format_options_internal.h"
#include "silt/expr/function_kernels_internal.h"
#include "silt/expr/interval_functions.h"
#include "silt/expr/json_text.h"
#include "silt/expr/schema_ddl.h"
#include "silt/types/date_time.h"
#include "silt/vector/value_text.h"

namespace silt::expr::internal {
namespace {

// Spark's from_json parser: JSONOptions defaults (single quotes and NaN/Infinity allowed).
JsonReadFeatures FromJsonFeatures(const FormatOptions& options) {
  JsonReadFeatures features;
  features.single_quotes = BooleanOption("from_json", options, "allowsinglequotes", true);
  features.non_numeric_numbers = BooleanOption("from_json", options, "allownonnumericnumbers", true);
  features.unquoted_control_chars = BooleanOption("from_json", options, "allowunquotedcontrolchars", false);
  features.leading_zeros = BooleanOption("from_json", options, "allownumericleadingzeros", false);
  features.comments = BooleanOption("from_json", options, "allowcomments", false);
  features.unquoted_field_names = BooleanOption("from_json", options, "allowunquotedfieldnames", false);
  features.backslash_escaping_any = BooleanOption("from_json", options, "allowbackslashescapinganycharacter", false);
  return features;
}

// The parser of get_json_object, json_tuple and the json_* functions: strict JSON, but raw
// control characters inside strings are accepted.
JsonReadFeatures PathFeatures() {
  JsonReadFeatures features;
  features.unquoted_control_chars = true;
  return features;
}

ExpressionPtr StringArgument(std::string_view name, size_t index, ExpressionPtr argument) {
  TypeId id = argument->type()->id();
  if (id != TypeId::kString && id != TypeId::kNull) ThrowArgumentType(name, index, argument, "\"STRING\"");
  return ImplicitCast(name, index, std::move(argument), StringType());
}

// ---- from_json: JSON values into typed vectors ----

// Decodes standard base64 (padding optional), as Jackson's getBinaryValue reads binary.
std::optional<std::string> DecodeBase64(std::string_view text) {
  std::string out;
  uint32_t buffer = 0;
  int bits = 0;
  for (char c : text) {
    int value;
    if (c >= 'A' && c <= 'Z') value = c - 'A';
    else if (c >= 'a' && c <= 'z') value = c - 'a' + 26;
    else if (c >= '0' && c <= '9') value = c - '0' + 52;
    else if (c == '+') value = 62;
    else if (c == '/') value = 63;
    else if (c == '=') break;
    else return std::nullopt;
    buffer = (buffer << 6) | static_cast<uint32_t>(value);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((buffer >> bits) & 0xFF);
    }
  }
  return out;
}

// Spark's text for non-numeric doubles inside JSON strings.
std::optional<double> NonNumericDouble(std::string_view text) {
  if (text == "NaN" || text == "+NaN" || text == "-NaN") return std::numeric_limits<double>::quiet_NaN();
  if (text == "Infinity" || text == "+Infinity" || text == "Inf" || text == "+Inf" || text == "INF" || text == "+INF") {
    return std::numeric_limits<double>::infinity();
  }
  if (text == "-Infinity" || text == "-Inf" || text == "-INF") return -std::numeric_limits<double>::infinity();
  return std::nullopt;
}

std::optional<double> NumberValue(const JsonNode& node) {
  if (node.kind == JsonNode::Kind::kNumber) {
    if (auto special = NonNumericDouble(node.text)) return special;
    return std::strtod(node.text.c_str(), nullptr);
  }
  if (node.kind == JsonNode::Kind::kString) return NonNumericDouble(node.text);
  return std::nullopt;
}

// Converts parsed JSON into values of a schema, as Spark's JacksonParser does: a value of the
// wrong JSON kind or out of range fails, and a failed field is NULL while the rest of its
// struct is kept (Spark's partial results); a failed array element or map value fails the
// whole array or map.
class JsonConverter {
 public:
  JsonConverter(const DatetimeText& datetimes, const TimeZone& zone) : datetimes_(datetimes), zone_(zone) {}

  // Appends `node` as a value of `type`; sets `bad` when anything inside failed.
  void Append(const JsonNode& node, const DataType& type, VectorBuilder& out, bool& bad) const {
    if (node.kind == JsonNode::Kind::kNull) return out.AppendNull();
    switch (type.id()) {
      case TypeId::kStruct: {
        if (node.kind != JsonNode::Kind::kObject) {
          bad = true;
          return out.AppendNull();
        }
        AppendStruct(node, type, out, bad);
        return;
      }
      case TypeId::kList: {
        if (!Convertible(node, type)) {
          bad = true;
          return out.AppendNull();
        }
        for (const JsonNode& element : node.elements) Append(element, *type.element_type(), out.child(0), bad);
        out.FinishList();
        return;
      }
      case TypeId::kMap: {
        if (!Convertible(node, type)) {
          bad = true;
          return out.AppendNull();
        }
        for (const auto& [key, value] : node.members) {
          out.child(0).child(0).AppendString(key);
          Append(value, *type.value_type(), out.child(0).child(1), bad);
          out.child(0).AppendStruct();
        }
        out.FinishList();
        return;
      }
      default:
        if (!ConvertScalar(node, type, &out)) {
          bad = true;
          out.AppendNull();
        }
    }
  }

  // A struct from an object: the last member of each field's name, missing fields NULL.
  void AppendStruct(const JsonNode& node, const DataType& type, VectorBuilder& out, bool& bad) const {
    const std::vector<Field>& fields = type.fields();
    std::vector<const JsonNode*> values(fields.size(), nullptr);
    for (const auto& [key, value] : node.members) {
      int index = type.FieldIndex(key);
      if (index >= 0) values[index] = &value;
    }
    for (size_t i = 0; i < fields.size(); ++i) {
      if (values[i] == nullptr) {
        out.child(i).AppendNull();
      } else {
        Append(*values[i], *fields[i].type, out.child(i), bad);
      }
    }
    out.AppendStruct();
  }

  // Whether Append would give a non-NULL value for a non-null node (structs always do, from
  // an object, since their fields fail on their own).
  bool Convertible(const JsonNode& node, const DataType& type) const {
    if (node.kind == JsonNode::Kind::kNull) return true;
    switch (type.id()) {
      case TypeId::kStruct: return node.kind == JsonNode::Kind::kObject;
      case TypeId::kList:
        if (node.kind != JsonNode::Kind::kArray) return false;
        for (const JsonNode& element : node.elements) {
          if (!Convertible(element, *type.element_type())) return false;
        }
        return true;
      case TypeId::kMap:
        if (node.kind != JsonNode::Kind::kObject) return false;
        for (const auto& member : node.members) {
          if (!Convertible(member.second, *type.value_type())) return false;
        }
        return true;
      default: return ConvertScalar(node, type, nullptr);
    }
  }

 private:
  template <typename Integer>
  static bool IntegerValue(const JsonNode& node, int64_t& value) {
    if (node.kind != JsonNode::Kind::kNumber || !node.integral) return false;
    errno = 0;
    char* end = nullptr;
    long long parsed = std::strtoll(node.text.c_str(), &end, 10);
    if (errno == ERANGE || parsed < std::numeric_limits<Integer>::min() || parsed > std::numeric_limits<Integer>::max()) {
      return false;
    }
    value = parsed;
    return true;
  }

  // Converts a scalar; appends it when `out` is given. False when the node does not convert.
  bool ConvertScalar(const JsonNode& node, const DataType& type, VectorBuilder* out) const {
    using Kind = JsonNode::Kind;
    switch (type.id()) {
      case TypeId::kNull:
        if (out != nullptr) out->AppendNull();
        return true;
      case TypeId::kBoolean:
        if (node.kind != Kind::kTrue && node.kind != Kind::kFalse) return false;
        if (out != nullptr) out->AppendBool(node.kind == Kind::kTrue);
        return true;
      case TypeId::kByte:
      case TypeId::kShort:
      case TypeId::kInteger:
      case TypeId::kLong: {
        int64_t value = 0;
        bool ok = type.id() == TypeId::kByte    ? IntegerValue<int8_t>(node, value)
                  : type.id() == TypeId::kShort ? IntegerValue<int16_t>(node, value)
                  : type.id() == TypeId::kInteger ? IntegerValue<int32_t>(node, value)
                                                  : IntegerValue<int64_t>(node, value);
        if (!ok) return false;
        if (out != nullptr) out->AppendInt(value);
        return true;
      }
      case TypeId::kFloat:
      case TypeId::kDouble: {
        std::optional<double> value = NumberValue(node);
        if (!value) return false;
        if (out == nullptr) return true;
        if (type.id() == TypeId::kFloat) {
          out->AppendFloat(node.kind == Kind::kNumber && std::isfinite(*value) ? std::strtof(node.text.c_str(), nullptr)
                                                                               : static_cast<float>(*value));
        } else {
          out->AppendDouble(*value);
        }
        return true;
      }
      case TypeId::kDecimal: {
        if (node.kind != Kind::kNumber && node.kind != Kind::kString) return false;
        std::optional<Decimal128> value = ParseDecimal(node.text, type.precision(), type.scale());
        if (!value) return false;
        if (out != nullptr) out->AppendDecimal(*value);
        return true;
      }
      case TypeId::kString: {
        if (out == nullptr) return true;
        if (node.kind == Kind::kString) {
          out->AppendString(node.text);
        } else {
          std::string text;
          AppendJsonNode(text, node);
          out->AppendString(text);
        }
        return true;
      }
      case TypeId::kBinary: {
        if (node.kind != Kind::kString) return false;
        std::optional<std::string> bytes = DecodeBase64(node.text);
        if (!bytes) return false;
        if (out != nullptr) out->AppendString(*bytes);
        return true;
      }
      case TypeId::kDate: {
        if (node.kind != Kind::kString) return false;
        std::optional<int32_t> days = datetimes_.ParseDate(node.text);
        if (!days) return false;
        if (out != nullptr) out->AppendInt(*days);
        return true;
      }
      case TypeId::kTimestamp: {
        std::optional<int64_t> micros;
        if (node.kind == Kind::kString) {
          micros = datetimes_.ParseTimestamp(node.text, zone_);
        } else if (node.kind == Kind::kNumber && node.integral) {
          // An integer is seconds since the epoch.
          int64_t seconds = 0;
          int64_t product = 0;
          if (IntegerValue<int64_t>(node, seconds) && !__builtin_mul_overflow(seconds, kMicrosPerSecond, &product)) {
            micros = product;
          }
        }
        if (!micros) return false;
        if (out != nullptr) out->AppendInt(*micros);
        return true;
      }
      case TypeId::kTimestampNtz: {
        if (node.kind != Kind::kString) return false;
        std::optional<int64_t> micros = datetimes_.ParseTimestampNtz(node.text);
        if (!micros) return false;
        if (out != nullptr) out->AppendInt(*micros);
        return true;
      }
      case TypeId::kYearMonthInterval:
      case TypeId::kDayTimeInterval: {
        // ANSI intervals as Spark writes them ("INTERVAL '1-2' YEAR TO MONTH") or bare ("1-2").
        if (node.kind != Kind::kString) return false;
        std::optional<int64_t> value = ParseIntervalText(node.text, type);
        if (!value) return false;
        if (out != nullptr) out->AppendInt(*value);
        return true;
      }
      default: return false;
    }
  }

  const DatetimeText& datetimes_;
  const TimeZone& zone_;
};

// Map keys anywhere in a from_json schema must be strings (Spark's checkJsonSchema).
void CheckJsonSchemaMapKeys(const DataType& type, const DataType& schema) {
  if (type.id() == TypeId::kMap && type.key_type()->id() != TypeId::kString) {
    SILT_THROW(INVALID_JSON_SCHEMA_MAP_TYPE, {{"jsonSchema", "\"" + TypeSqlText(schema) + "\""}});
  }
  if (type.is_nested()) {
    for (const Field& field : type.fields()) CheckJsonSchemaMapKeys(*field.type, schema);
  }
}

// A schema's fields all nullable, as Spark reads JSON into `schema.asNullable`.
DataTypePtr AsNullable(const DataTypePtr& type) {
  switch (type->id()) {
    case TypeId::kList: return ListType(AsNullable(type->element_type()), true);
    case TypeId::kMap: return MapType(type->key_type(), AsNullable(type->value_type()), true);
    case TypeId::kStruct: {
      std::vector<Field> fields;
      for (const Field& field : type->fields()) fields.push_back(Field{field.name, AsNullable(field.type), true, {}});
      return StructType(std::move(fields));
    }
    default: return type;
  }
}

ExpressionPtr BindFromJson(std::vector<ExpressionPtr> arguments) {
  CheckArgumentCount("from_json", arguments, 2, 3);
  arguments[0] = StringArgument("from_json", 0, std::move(arguments[0]));
  DataTypePtr schema = SchemaArgument(arguments[1]);
  if (schema->id() != TypeId::kStruct && schema->id() != TypeId::kList && schema->id() != TypeId::kMap) {
    SILT_THROW(DATATYPE_MISMATCH, {{"sqlExpr", "\"from_json(...)\""},
                                   {"message", "Input schema \"" + TypeSqlText(*schema) +
                                                   "\" must be a struct, an array or a map."}});
  }
  CheckJsonSchemaMapKeys(*schema, *schema);
  schema = AsNullable(schema);
  FormatOptions options = arguments.size() == 3 ? OptionsArgument("from_json", arguments[2]) : FormatOptions{};
  ParseMode mode = ParseModeOption("from_json", options);
  JsonReadFeatures features = FromJsonFeatures(options);
  auto datetimes = std::make_shared<DatetimeText>(options);
  // A STRING field named by columnNameOfCorruptRecord (Spark's default `_corrupt_record`) is not
  // read from the JSON: it holds the text of a record that did not parse or convert.
  int corrupt_index = -1;
  DataTypePtr parsed_schema = schema;
  if (schema->id() == TypeId::kStruct) {
    corrupt_index = schema->FieldIndex(OptionOr(options, "columnnameofcorruptrecord", "_corrupt_record"));
    if (corrupt_index >= 0 && schema->fields()[corrupt_index].type->id() == TypeId::kString) {
      std::vector<Field> fields = schema->fields();
      fields.erase(fields.begin() + corrupt_index);
      parsed_schema = StructType(std::move(fields));
    } else {
      corrupt_index = -1;
    }
  }
  return MakeCall("from_json", schema, {arguments[0]},
                  [schema, parsed_schema, corrupt_index, mode, features, datetimes](
                      const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask mask) {
                    JsonConverter converter(*datetimes, context.Zone());
                    const DataType& type = *parsed_schema;
                    VectorBuilder out(parsed_schema, num_rows);
                    VectorBuilder corrupt(StringType(), corrupt_index >= 0 ? num_rows : 0);
                    JsonNode node;
                    for (int64_t row = 0; row < num_rows; ++row) {
                      if (args[0]->IsNull(row)) {
                        out.AppendNull();
                        if (corrupt_index >= 0) corrupt.AppendNull();
                        continue;
                      }
                      std::string_view text = args[0]->GetString(row);
                      JsonParseOutcome outcome = ParseJsonText(text, features, node);
                      if (outcome == JsonParseOutcome::kEmpty) {
                        out.AppendNull();
                        if (corrupt_index >= 0) corrupt.AppendNull();
                        continue;
                      }
                      bool bad = outcome == JsonParseOutcome::kMalformed;
                      if (type.id() == TypeId::kStruct) {
                        // A malformed record is a struct of NULLs, not NULL.
                        if (!bad && node.kind == JsonNode::Kind::kObject) {
                          converter.AppendStruct(node, type, out, bad);
                        } else {
                          bad = true;
                          for (size_t i = 0; i < type.fields().size(); ++i) out.child(i).AppendNull();
                          out.AppendStruct();
                        }
                      } else if (bad || node.kind == JsonNode::Kind::kNull) {
                        bad = true;
                        out.AppendNull();
                      } else if (type.id() == TypeId::kList && node.kind == JsonNode::Kind::kObject &&
                                 type.element_type()->id() == TypeId::kStruct) {
                        // An object read with an array-of-structs schema is a one-element array.
                        converter.AppendStruct(node, *type.element_type(), out.child(0), bad);
                        out.FinishList();
                      } else {
                        converter.Append(node, type, out, bad);
                      }
                      if (bad && mode == ParseMode::kFailFast && mask.Contains(row)) {
                        context.RecordError(MalformedRecordError(text));
                      }
                      if (corrupt_index >= 0) {
                        if (bad) corrupt.AppendString(text); else corrupt.AppendNull();
                      }
                    }
                    VectorPtr parsed = out.Finish();
                    if (corrupt_index < 0) return parsed;
                    std::vector<VectorPtr> children = parsed->children();
                    children.insert(children.begin() + corrupt_index, corrupt.Finish());
                    return Vector::Make(schema, num_rows, parsed->buffers(), std::move(children));
                  });
}

// ---- to_json ----

// Writes values as Spark's JacksonGenerator does. With `pretty`, Jackson's DefaultPrettyPrinter
// layout: object members on their own lines indented two spaces per open object, `"key" : value`,
// arrays on one line as `[ 1, 2 ]`, empty ones as `{ }` and `[ ]`.
class JsonValueWriter {
 public:
  JsonValueWriter(const DatetimeText& datetimes, const TimeZone& zone, bool ignore_null_fields, bool pretty)
      : datetimes_(datetimes), zone_(zone), ignore_null_fields_(ignore_null_fields), pretty_(pretty) {}

  void Write(const Vector& vector, int64_t row, std::string& out) const { Write(vector, row, out, 0); }

 private:
  void Indent(std::string& out, int nesting) const {
    out += '\n';
    out.append(static_cast<size_t>(nesting) * 2, ' ');
  }

  // Opens an object member: the separator before it, the key and the name-value separator.
  void BeginMember(std::string& out, bool first, std::string_view key, int nesting) const {
    if (!first) out += ',';
    if (pretty_) Indent(out, nesting);
    AppendJsonString(out, key);
    out += pretty_ ? " : " : ":";
  }

  void EndObject(std::string& out, bool empty, int nesting) const {
    if (pretty_) {
      if (empty) out += ' '; else Indent(out, nesting);
    }
    out += '}';
  }

  // `nesting` counts the objects open around the value (arrays stay on their line).
  void Write(const Vector& vector, int64_t row, std::string& out, int nesting) const {
    if (vector.IsNull(row)) {
      out += "null";
      return;
    }
    switch (vector.type_id()) {
      case TypeId::kBoolean: out += vector.GetBool(row) ? "true" : "false"; return;
      case TypeId::kByte:
      case TypeId::kShort:
      case TypeId::kInteger:
      case TypeId::kLong: out += std::to_string(ReadInteger(vector, row)); return;
      case TypeId::kFloat: {
        float value = vector.values<float>()[row];
        if (std::isfinite(value)) out += FormatJavaFloat(value); else AppendJsonString(out, FormatJavaFloat(value));
        return;
      }
      case TypeId::kDouble: {
        double value = vector.values<double>()[row];
        if (std::isfinite(value)) out += FormatJavaDouble(value); else AppendJsonString(out, FormatJavaDouble(value));
        return;
      }
      case TypeId::kDecimal: out += JavaBigDecimalText(vector.values<Decimal128>()[row], vector.type()->scale()); return;
      case TypeId::kString: AppendJsonString(out, vector.GetString(row)); return;
      case TypeId::kBinary: AppendJsonString(out, EncodeBase64(vector.GetString(row))); return;
      case TypeId::kDate: AppendJsonString(out, datetimes_.FormatDate(vector.values<int32_t>()[row])); return;
      case TypeId::kTimestamp:
        AppendJsonString(out, datetimes_.FormatTimestamp(vector.values<int64_t>()[row], zone_));
        return;
      case TypeId::kTimestampNtz:
        AppendJsonString(out, datetimes_.FormatTimestampNtz(vector.values<int64_t>()[row]));
        return;
      case TypeId::kYearMonthInterval:
      case TypeId::kDayTimeInterval: AppendJsonString(out, CastValueToString(vector, row)); return;
      case TypeId::kList: {
        out += '[';
        int32_t start = vector.ListStart(row);
        int32_t length = vector.ListLength(row);
        for (int32_t i = 0; i < length; ++i) {
          if (i > 0) out += ',';
          if (pretty_) out += ' ';
          Write(*vector.child(0), start + i, out, nesting);
        }
        if (pretty_) out += ' ';
        out += ']';
        return;
      }
      case TypeId::kMap: {
        out += '{';
        VectorPtr keys = vector.child(0)->StructField(0);
        VectorPtr values = vector.child(0)->StructField(1);
        int32_t start = vector.ListStart(row);
        int32_t length = vector.ListLength(row);
        for (int32_t i = 0; i < length; ++i) {
          BeginMember(out, i == 0, KeyText(*keys, start + i), nesting + 1);
          Write(*values, start + i, out, nesting + 1);
        }
        EndObject(out, length == 0, nesting);
        return;
      }
      case TypeId::kStruct: {
        out += '{';
        bool first = true;
        for (size_t i = 0; i < vector.type()->fields().size(); ++i) {
          VectorPtr field = vector.StructField(i);
          if (field->IsNull(row) && ignore_null_fields_) continue;
          BeginMember(out, first, vector.type()->fields()[i].name, nesting + 1);
          first = false;
          Write(*field, row, out, nesting + 1);
        }
        EndObject(out, first, nesting);
        return;
      }
      case TypeId::kNull: out += "null"; return;
    }
  }

  // A map key as Spark writes it: its string form; a struct key as its values in brackets
  // ("[1,a]"), as Spark's row text shows it.
  std::string KeyText(const Vector& keys, int64_t row) const {
    if (keys.type_id() != TypeId::kStruct) return CastValueToString(keys, row, &zone_);
    std::string text = "[";
    for (size_t i = 0; i < keys.type()->fields().size(); ++i) {
      if (i > 0) text += ',';
      text += KeyText(*keys.StructField(i), row);
    }
    return text + "]";
  }

  const DatetimeText& datetimes_;
  const TimeZone& zone_;
  bool ignore_null_fields_;
  bool pretty_;
};

ExpressionPtr BindToJson(std::vector<ExpressionPtr> arguments) {
  CheckArgumentCount("to_json", arguments, 1, 2);
  TypeId id = arguments[0]->type()->id();
  if (id != TypeId::kStruct && id != TypeId::kList && id != TypeId::kMap) {
    ThrowArgumentType("to_json", 0, arguments[0], "(\"STRUCT\" or \"ARRAY\" or \"MAP\")");
  }
  FormatOptions options = arguments.size() == 2 ? OptionsArgument("to_json", arguments[1]) : FormatOptions{};
  bool ignore_null_fields = BooleanOption("to_json", options, "ignorenullfields", true);
  bool pretty = BooleanOption("to_json", options, "pretty", false);
  auto datetimes = std::make_shared<DatetimeText>(options);
  return MakeCall("to_json", StringType(), {arguments[0]},
                  [ignore_null_fields, pretty, datetimes](const std::vector<VectorPtr>& args, int64_t num_rows,
                                                          EvalContext& context, RowMask mask) {
                    JsonValueWriter writer(*datetimes, context.Zone(), ignore_null_fields, pretty);
                    VectorBuilder out(StringType(), num_rows);
                    std::string text;
                    for (int64_t row = 0; row < num_rows; ++row) {
                      if (args[0]->IsNull(row)) {
                        out.AppendNull();
                        continue;
                      }
                      text.clear();
                      writer.Write(*args[0], row, text);
                      if (text.size() > context.max_value_bytes) {
                        try {
                          CheckValueSize("The result of to_json", text.size(), context.max_value_bytes);
                        } catch (Error& error) {
                          if (mask.Contains(row)) context.RecordError(std::move(error));
                        }
                        out.AppendNull();
                        continue;
                      }
                      out.AppendString(text);
                    }
                    return out.Finish();
                  });
}

// ---- get_json_object ----

// One step of Spark's JSONPath subset: `.name` / `['name']`, `[n]`, `[*]`.
struct PathStep {
  enum class Kind { kKey, kIndex, kWildcard };
  Kind kind;
  std::string name;
  int64_t index = 0;
};

// Parses a path; nullopt for anything outside the subset (Spark returns NULL for those).
std::optional<std::vector<PathStep>> ParseJsonPath(std::string_view path) {
  if (path.empty() || path[0] != '$') return std::nullopt;
  std::vector<PathStep> steps;
  size_t i = 1;
  while (i < path.size()) {
    if (path[i] == '.') {
      size_t end = path.find_first_of(".[", i + 1);
      if (end == std::string_view::npos) end = path.size();
      std::string name(path.substr(i + 1, end - i - 1));
      if (name.empty() || name == "*") return std::nullopt;
      steps.push_back(PathStep{PathStep::Kind::kKey, name});
      i = end;
    } else if (path.substr(i, 2) == "['") {
      size_t end = path.find("']", i + 2);
      if (end == std::string_view::npos) return std::nullopt;
      std::string name(path.substr(i + 2, end - i - 2));
      if (name.empty() || name == "*" || name.find_first_of("'?") != std::string::npos) return std::nullopt;
      steps.push_back(PathStep{PathStep::Kind::kKey, name});
      i = end + 2;
    } else if (path.substr(i, 3) == "[*]") {
      steps.push_back(PathStep{PathStep::Kind::kWildcard, ""});
      i += 3;
    } else if (path[i] == '[') {
      size_t end = path.find(']', i + 1);
      if (end == std::string_view::npos || end == i + 1 || end - i - 1 > 18) return std::nullopt;
      int64_t index = 0;
      for (size_t k = i + 1; k < end; ++k) {
        if (path[k] < '0' || path[k] > '9') return std::nullopt;
        index = index * 10 + (path[k] - '0');
      }
      steps.push_back(PathStep{PathStep::Kind::kIndex, "", index});
      i = end + 1;
    } else {
      return std::nullopt;
    }
  }
  return steps;
}

// Collects the values `steps` reach from `node` (a wildcard may reach several).
void EvaluateJsonPath(const JsonNode& node, const std::vector<PathStep>& steps, size_t step,
                      std::vector<const JsonNode*>& matches) {
  if (step == steps.size()) {
    matches.push_back(&node);
    return;
  }
  const PathStep& current = steps[step];
  switch (current.kind) {
    case PathStep::Kind::kKey:
      if (node.kind != JsonNode::Kind::kObject) return;
      // The first member of that name that leads somewhere, as Spark stops at the first.
      for (const auto& [key, value] : node.members) {
        if (key != current.name) continue;
        size_t before = matches.size();
        EvaluateJsonPath(value, steps, step + 1, matches);
        if (matches.size() > before) return;
      }
      return;
    case PathStep::Kind::kIndex:
      if (node.kind != JsonNode::Kind::kArray || current.index >= static_cast<int64_t>(node.elements.size())) return;
      EvaluateJsonPath(node.elements[current.index], steps, step + 1, matches);
      return;
    case PathStep::Kind::kWildcard:
      if (node.kind != JsonNode::Kind::kArray) return;
      for (const JsonNode& element : node.elements) EvaluateJsonPath(element, steps, step + 1, matches);
      return;
  }
}

// The text get_json_object returns: a string value raw, other values as JSON; through a
// wildcard, several values are a JSON array and a single one keeps its JSON form.
std::optional<std::string> JsonPathResult(const JsonNode& root, const std::vector<PathStep>& steps) {
  std::vector<const JsonNode*> matches;
  EvaluateJsonPath(root, steps, 0, matches);
  bool wildcard = std::any_of(steps.begin(), steps.end(),
                              [](const PathStep& step) { return step.kind == PathStep::Kind::kWildcard; });
  if (matches.empty()) return std::nullopt;
  std::string text;
  if (!wildcard) {
    const JsonNode& match = *matches[0];
    if (match.kind == JsonNode::Kind::kNull) return std::nullopt;
    if (match.kind == JsonNode::Kind::kString) return match.text;
    AppendJsonNode(text, match);
    return text;
  }
  if (matches.size() == 1) {
    AppendJsonNode(text, *matches[0]);
    return text;
  }
  text += '[';
  for (size_t i = 0; i < matches.size(); ++i) {
    if (i > 0) text += ',';
    AppendJsonNode(text, *matches[i]);
  }
  text += ']';
  return text;
}

ExpressionPtr BindGetJsonObject(std::vector<ExpressionPtr> arguments) {
  CheckArgumentCount("get_json_object", arguments, 2, 2);
  arguments[0] = StringArgument("get_json_object", 0, std::move(arguments[0]));
  arguments[1] = StringArgument("get_json_object", 1, std::move(arguments[1]));
  return MakeCall("get_json_object", StringType(), std::move(arguments),
                  [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                    JsonReadFeatures features = PathFeatures();
                    JsonNode node;
                    std::string last_path;
                    std::optional<std::vector<PathStep>> steps;
                    bool parsed_path = false;
                    return MapRows(StringType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                      std::string_view path = args[1]->GetString(row);
                      if (!parsed_path || path != last_path) {
                        steps = ParseJsonPath(path);
                        last_path = std::string(path);
                        parsed_path = true;
                      }
                      if (!steps || ParseJsonText(args[0]->GetString(row), features, node) != JsonParseOutcome::kValue) {
                        return out.AppendNull();
                      }
                      std::optional<std::string> result = JsonPathResult(node, *steps);
                      if (result) out.AppendString(*result); else out.AppendNull();
                    });
                  });
}

// ---- json_tuple ----

ExpressionPtr BindJsonTuple(std::vector<ExpressionPtr> arguments) {
  CheckArgumentCount("json_tuple", arguments, 2, SIZE_MAX);
  std::vector<Field> fields;
  for (size_t i = 0; i < arguments.size(); ++i) {
    arguments[i] = StringArgument("json_tuple", i, std::move(arguments[i]));
    if (i > 0) fields.push_back(Field{"c" + std::to_string(i - 1), StringType(), true, {}});
  }
  DataTypePtr type = StructType(std::move(fields));
  return MakeCall("json_tuple", type, std::move(arguments),
                  [type](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                    JsonReadFeatures features = PathFeatures();
                    JsonNode node;
                    size_t count = args.size() - 1;
                    VectorBuilder out(type, num_rows);
                    for (int64_t row = 0; row < num_rows; ++row) {
                      // Always a row: NULLs when the input is NULL, malformed or not an object.
                      bool object = !args[0]->IsNull(row) &&
                                    ParseJsonText(args[0]->GetString(row), features, node) == JsonParseOutcome::kValue &&
                                    node.kind == JsonNode::Kind::kObject;
                      for (size_t i = 0; i < count; ++i) {
                        const JsonNode* value = nullptr;
                        if (object && !args[i + 1]->IsNull(row)) {
                          std::string_view name = args[i + 1]->GetString(row);
                          for (const auto& member : node.members) {
                            if (member.first == name) value = &member.second;
                          }
                        }
                        if (value == nullptr || value->kind == JsonNode::Kind::kNull) {
                          out.child(i).AppendNull();
                        } else if (value->kind == JsonNode::Kind::kString) {
                          out.child(i).AppendString(value->text);
                        } else {
                          std::string text;
                          AppendJsonNode(text, *value);
                          out.child(i).AppendString(text);
                        }
                      }
                      out.AppendStruct();
                    }
                    return out.Finish();
                  });
}

// ---- schema_of_json ----

// Spark's JsonInferSchema.compatibleType.
DataTypePtr MergeInferred(const DataTypePtr& left, const DataTypePtr& right) {
  if (left->Equals(*right)) return left;
  if (left->id() == TypeId::kNull) return right;
  if (right->id() == TypeId::kNull) return left;
  auto as_decimal = [](const DataTypePtr& type) {
    return type->id() == TypeId::kLong ? DecimalType(20, 0) : type;
  };
  TypeId a = left->id(), b = right->id();
  bool numeric_pair = (a == TypeId::kLong || a == TypeId::kDouble || a == TypeId::kDecimal) &&
                      (b == TypeId::kLong || b == TypeId::kDouble || b == TypeId::kDecimal);
  if (numeric_pair) {
    if (a == TypeId::kDouble || b == TypeId::kDouble) return DoubleType();
    DataTypePtr x = as_decimal(left), y = as_decimal(right);
    int scale = std::max(x->scale(), y->scale());
    int range = std::max(x->precision() - x->scale(), y->precision() - y->scale());
    if (range + scale > 38) return DoubleType();
    return DecimalType(range + scale, scale);
  }
  if (a == TypeId::kStruct && b == TypeId::kStruct) {
    std::map<std::string, DataTypePtr> merged;
    for (const Field& field : left->fields()) merged[field.name] = field.type;
    for (const Field& field : right->fields()) {
      auto [found, inserted] = merged.emplace(field.name, field.type);
      if (!inserted) found->second = MergeInferred(found->second, field.type);
    }
    std::vector<Field> fields;
    for (auto& [name, type] : merged) fields.push_back(Field{name, type, true, {}});
    return StructType(std::move(fields));
  }
  if (a == TypeId::kList && b == TypeId::kList) return ListType(MergeInferred(left->element_type(), right->element_type()));
  return StringType();
}

// The DECIMAL a number written with a fraction or exponent reads as under prefersDecimal
// (Java's BigDecimal precision and scale), or DOUBLE when it has no such type (NaN, a negative
// scale, more than 38 digits).
DataTypePtr PreferredDecimalType(const std::string& text) {
  size_t exponent_at = text.find_first_of("eE");
  std::string mantissa = text.substr(0, exponent_at);
  int64_t exponent = exponent_at == std::string::npos ? 0 : std::strtoll(text.c_str() + exponent_at + 1, nullptr, 10);
  size_t point = mantissa.find('.');
  int64_t fraction_digits = point == std::string::npos ? 0 : static_cast<int64_t>(mantissa.size() - point - 1);
  std::string digits;
  for (char c : mantissa) {
    if (c >= '0' && c <= '9') digits += c;
  }
  if (digits.empty() || mantissa.find_first_not_of("+-.0123456789") != std::string::npos) return DoubleType();
  size_t first = digits.find_first_not_of('0');
  int64_t precision = first == std::string::npos ? 1 : static_cast<int64_t>(digits.size() - first);
  int64_t scale = fraction_digits - exponent;
  int64_t width = std::max(precision, scale);
  if (scale < 0 || width > 38) return DoubleType();
  return DecimalType(static_cast<int>(width), static_cast<int>(scale));
}

DataTypePtr InferJsonType(const JsonNode& node, bool prefers_decimal) {
  switch (node.kind) {
    case JsonNode::Kind::kNull: return NullType();
    case JsonNode::Kind::kTrue:
    case JsonNode::Kind::kFalse: return BooleanType();
    case JsonNode::Kind::kString: return StringType();
    case JsonNode::Kind::kNumber: {
      if (!node.integral) return prefers_decimal ? PreferredDecimalType(node.text) : DoubleType();
      errno = 0;
      std::strtoll(node.text.c_str(), nullptr, 10);
      if (errno != ERANGE) return LongType();
      size_t digits = node.text.size() - (node.text[0] == '-' ? 1 : 0);
      return digits <= 38 ? DecimalType(static_cast<int>(digits), 0) : DoubleType();
    }
    case JsonNode::Kind::kArray: {
      DataTypePtr element = NullType();
      for (const JsonNode& value : node.elements) element = MergeInferred(element, InferJsonType(value, prefers_decimal));
      return ListType(element);
    }
    case JsonNode::Kind::kObject: {
      std::map<std::string, DataTypePtr> fields;
      for (const auto& [key, value] : node.members) {
        DataTypePtr type = InferJsonType(value, prefers_decimal);
        auto [found, inserted] = fields.emplace(key, type);
        if (!inserted) found->second = MergeInferred(found->second, type);
      }
      std::vector<Field> list;
      for (auto& [name, type] : fields) list.push_back(Field{name, type, true, {}});
      return StructType(std::move(list));
    }
  }
  return StringType();
}

// Spark's canonicalizeType: NULL-only values become STRING, empty structs and fields with an
// empty name are dropped (nullptr).
DataTypePtr CanonicalJsonType(const DataTypePtr& type) {
  switch (type->id()) {
    case TypeId::kNull: return StringType();
    case TypeId::kList: {
      DataTypePtr element = CanonicalJsonType(type->element_type());
      return element == nullptr ? nullptr : ListType(element);
    }
    case TypeId::kStruct: {
      std::vector<Field> fields;
      for (const Field& field : type->fields()) {
        if (field.name.empty()) continue;
        DataTypePtr canonical = CanonicalJsonType(field.type);
        if (canonical != nullptr) fields.push_back(Field{field.name, canonical, true, {}});
      }
      return fields.empty() ? nullptr : StructType(std::move(fields));
    }
    default: return type;
  }
}

ExpressionPtr BindSchemaOfJson(std::vector<ExpressionPtr> arguments) {
  CheckArgumentCount("schema_of_json", arguments, 1, 2);
  const ExpressionPtr& json = arguments[0];
  if (json->type()->id() != TypeId::kString || !IsFoldable(*json)) {
    SILT_THROW(DATATYPE_MISMATCH, {{"sqlExpr", "\"schema_of_json(...)\""},
                                   {"message", "the input json should be a foldable \"STRING\" expression; however, got \"" +
                                                   json->ToString() + "\"."}});
  }
  FormatOptions options = arguments.size() == 2 ? OptionsArgument("schema_of_json", arguments[1]) : FormatOptions{};
  JsonReadFeatures features = FromJsonFeatures(options);
  Scalar value = FoldConstant(*json);
  std::string text = value.is_null() ? "" : std::string(value.GetString());
  JsonNode node;
  if (ParseJsonText(text, features, node) != JsonParseOutcome::kValue) throw MalformedRecordError(text);
  bool prefers_decimal = BooleanOption("schema_of_json", options, "prefersdecimal", false);
  DataTypePtr inferred = CanonicalJsonType(InferJsonType(node, prefers_decimal));
  if (inferred == nullptr) inferred = node.kind == JsonNode::Kind::kObject ? StructType({}) : StringType();
  if (inferred->id() == TypeId::kList && inferred->element_type()->id() == TypeId::kStruct &&
      inferred->element_type()->fields().empty()) {
    inferred = ListType(StructType({}));
  }
  return Literal(Scalar::String(TypeSqlText(*inferred)));
}

// ---- json_array_length, json_object_keys ----

ExpressionPtr BindJsonArrayLength(std::vector<ExpressionPtr> arguments) {
  CheckArgumentCount("json_array_length", arguments, 1, 1);
  arguments[0] = StringArgument("json_array_length", 0, std::move(arguments[0]));
  return MakeCall("json_array_length", IntegerType(), std::move(arguments),
                  [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                    JsonReadFeatures features = PathFeatures();
                    JsonNode node;
                    return MapRows(IntegerType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                      if (ParseJsonText(args[0]->GetString(row), features, node) != JsonParseOutcome::kValue ||
                          node.kind != JsonNode::Kind::kArray) {
                        return out.AppendNull();
                      }
                      out.AppendInt(static_cast<int64_t>(node.elements.size()));
                    });
                  });
}

ExpressionPtr BindJsonObjectKeys(std::vector<ExpressionPtr> arguments) {
  CheckArgumentCount("json_object_keys", arguments, 1, 1);
  arguments[0] = StringArgument("json_object_keys", 0, std::move(arguments[0]));
  DataTypePtr type = ListType(StringType());
  return MakeCall("json_object_keys", type, std::move(arguments),
                  [type](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                    JsonReadFeatures features = PathFeatures();
                    JsonNode node;
                    return MapRows(type, args, num_rows, [&](int64_t row, VectorBuilder& out) {
                      if (ParseJsonText(args[0]->GetString(row), features, node) != JsonParseOutcome::kValue ||
                          node.kind != JsonNode::Kind::kObject) {
                        return out.AppendNull();
                      }
                      for (const auto& member : node.members) out.child(0).AppendString(member.first);
                      out.FinishList();
                    });
                  });
}

}  // namespace

void RegisterJsonFunctions(FunctionRegistry& registry) {
  registry.Register("from_json", BindFromJson);
  registry.Register("to_json", BindToJson);
  registry.Register("get_json_object", BindGetJsonObject);
  registry.Register("json_tuple", BindJsonTuple);
  registry.Register("schema_of_json", BindSchemaOfJson);
  registry.Register("json_array_length", BindJsonArrayLength);
  registry.Register("json_object_keys", BindJsonObjectKeys);
}

}  // namespace silt::expr::internal
