// CSV functions: from_csv, to_csv and schema_of_csv, reading and writing one CSV record with
// Spark's (univocity's) defaults: separator ',' (option sep), quote '"', escape '\'.

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "silt/base/ascii.h"
#include "silt/expr/cast.h"
#include "silt/expr/format_options_internal.h"
#include "silt/expr/function_kernels_internal.h"
#include "silt/expr/schema_ddl.h"
#include "silt/types/date_time.h"
#include "silt/vector/value_text.h"

namespace silt::expr::internal {
namespace {

struct CsvFormat {
  char separator = ',';
  char quote = '"';
  char escape = '\\';
  std::string null_value;
  std::string nan_value = "NaN";
  std::string positive_infinity = "Inf";
  std::string negative_infinity = "-Inf";
  bool trim_leading = false;   ///< ignoreLeadingWhiteSpace: off when reading, on when writing
  bool trim_trailing = false;  ///< ignoreTrailingWhiteSpace: likewise
  bool quote_all = false;      ///< quoteAll (writing)
};

char SingleCharacterOption(std::string_view function, const FormatOptions& options, const std::string& key,
                           char fallback) {
  auto found = options.find(key);
  if (found == options.end()) return fallback;
  std::string value = found->second == "\\t" ? "\t" : found->second;
  if (value.size() != 1) {
    SILT_THROW(INVALID_PARAMETER_VALUE, {{"parameter", "`options`"},
                                         {"functionName", "`" + std::string(function) + "`"},
                                         {"message", "the option " + key + " must be a single character, not '" +
                                                         found->second + "'."}});
  }
  return value[0];
}

CsvFormat CsvFormatOptions(std::string_view function, const FormatOptions& options, bool writing) {
  CsvFormat format;
  format.separator = SingleCharacterOption(function, options, options.count("sep") ? "sep" : "delimiter", ',');
  format.quote = SingleCharacterOption(function, options, "quote", '"');
  format.escape = SingleCharacterOption(function, options, "escape", '\\');
  format.null_value = OptionOr(options, "nullvalue", "");
  format.nan_value = OptionOr(options, "nanvalue", "NaN");
  format.positive_infinity = OptionOr(options, "positiveinf", "Inf");
  format.negative_infinity = OptionOr(options, "negativeinf", "-Inf");
  format.trim_leading = BooleanOption(function, options, "ignoreleadingwhitespace", writing);
  format.trim_trailing = BooleanOption(function, options, "ignoretrailingwhitespace", writing);
  format.quote_all = BooleanOption(function, options, "quoteall", false);
  return format;
}

bool IsCsvSpace(char c) { return static_cast<unsigned char>(c) <= ' '; }

// The value with the surrounding whitespace the format trims removed.
std::string_view TrimmedField(std::string_view value, const CsvFormat& format) {
  while (format.trim_leading && !value.empty() && IsCsvSpace(value.front())) value.remove_prefix(1);
  while (format.trim_trailing && !value.empty() && IsCsvSpace(value.back())) value.remove_suffix(1);
  return value;
}

// One token of a record: nullopt for an empty unquoted field (and for the null value text).
using CsvToken = std::optional<std::string>;

// Splits one record into fields. An unterminated quote keeps the rest of the text as the field,
// as univocity does.
std::vector<CsvToken> SplitCsvRecord(std::string_view text, const CsvFormat& format) {
  std::vector<CsvToken> tokens;
  size_t i = 0;
  while (true) {
    std::string value;
    bool quoted = false;
    if (i < text.size() && text[i] == format.quote) {
      quoted = true;
      ++i;
      while (i < text.size()) {
        char c = text[i];
        if (c == format.escape && i + 1 < text.size() && (text[i + 1] == format.quote || text[i + 1] == format.escape) &&
            format.escape != format.quote) {
          value += text[i + 1];
          i += 2;
        } else if (c == format.quote && i + 1 < text.size() && text[i + 1] == format.quote) {
          value += format.quote;
          i += 2;
        } else if (c == format.quote) {
          ++i;
          break;
        } else {
          value += c;
          ++i;
        }
      }
      // Text after the closing quote up to the separator belongs to the field.
      while (i < text.size() && text[i] != format.separator) value += text[i++];
    } else {
      while (i < text.size() && text[i] != format.separator) value += text[i++];
      value = std::string(TrimmedField(value, format));
    }
    if (!quoted && (value.empty() || value == format.null_value)) {
      tokens.emplace_back(std::nullopt);
    } else {
      tokens.emplace_back(std::move(value));
    }
    if (i >= text.size()) break;
    ++i;  // the separator
  }
  return tokens;
}

std::string_view TrimSpaces(std::string_view text) {
  while (!text.empty() && static_cast<unsigned char>(text.front()) <= ' ') text.remove_prefix(1);
  while (!text.empty() && static_cast<unsigned char>(text.back()) <= ' ') text.remove_suffix(1);
  return text;
}

// Java's Integer/Long.parseLong: an optional sign and digits, nothing else.
template <typename Integer>
std::optional<int64_t> ParseJavaInteger(std::string_view text) {
  if (text.empty()) return std::nullopt;
  size_t start = text[0] == '+' || text[0] == '-' ? 1 : 0;
  if (start == text.size()) return std::nullopt;
  for (size_t i = start; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
  }
  errno = 0;
  std::string copy(text);
  long long value = std::strtoll(copy.c_str(), nullptr, 10);
  if (errno == ERANGE || value < std::numeric_limits<Integer>::min() || value > std::numeric_limits<Integer>::max()) {
    return std::nullopt;
  }
  return value;
}

// Java's Double.parseDouble (surrounding whitespace allowed) plus the format's texts for NaN
// and the infinities (Spark's nanValue, positiveInf, negativeInf).
std::optional<double> ParseJavaDouble(std::string_view text, const CsvFormat& format) {
  if (text == format.nan_value) return std::numeric_limits<double>::quiet_NaN();
  if (text == format.positive_infinity) return std::numeric_limits<double>::infinity();
  if (text == format.negative_infinity) return -std::numeric_limits<double>::infinity();
  std::string_view trimmed = TrimSpaces(text);
  if (!trimmed.empty() && (trimmed.back() == 'd' || trimmed.back() == 'D' || trimmed.back() == 'f' ||
                           trimmed.back() == 'F')) {
    trimmed.remove_suffix(1);
  }
  if (trimmed.empty()) return std::nullopt;
  for (char c : trimmed) {
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-')) {
      if (trimmed != "Infinity" && trimmed != "-Infinity" && trimmed != "+Infinity" && trimmed != "NaN") {
        return std::nullopt;
      }
    }
  }
  std::string copy(trimmed);
  char* end = nullptr;
  double value = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size()) return std::nullopt;
  return value;
}

bool SupportedCsvType(const DataType& type) {
  switch (type.id()) {
    case TypeId::kBoolean:
    case TypeId::kByte:
    case TypeId::kShort:
    case TypeId::kInteger:
    case TypeId::kLong:
    case TypeId::kFloat:
    case TypeId::kDouble:
    case TypeId::kDecimal:
    case TypeId::kDate:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kString:
    case TypeId::kNull: return true;
    default: return false;
  }
}

// Appends `text` converted to `type`; false (and nothing appended) when it does not convert.
bool AppendCsvValue(std::string_view text, const DataType& type, const CsvFormat& format, const DatetimeText& datetimes,
                    const TimeZone& zone, VectorBuilder& out) {
  switch (type.id()) {
    case TypeId::kString: out.AppendString(text); return true;
    case TypeId::kNull: out.AppendNull(); return true;
    case TypeId::kBoolean:
      if (EqualsIgnoreCase(text, "true") || EqualsIgnoreCase(text, "false")) {
        out.AppendBool(EqualsIgnoreCase(text, "true"));
        return true;
      }
      return false;
    case TypeId::kByte:
    case TypeId::kShort:
    case TypeId::kInteger:
    case TypeId::kLong: {
      std::optional<int64_t> value = type.id() == TypeId::kByte      ? ParseJavaInteger<int8_t>(text)
                                     : type.id() == TypeId::kShort   ? ParseJavaInteger<int16_t>(text)
                                     : type.id() == TypeId::kInteger ? ParseJavaInteger<int32_t>(text)
                                                                     : ParseJavaInteger<int64_t>(text);
      if (!value) return false;
      out.AppendInt(*value);
      return true;
    }
    case TypeId::kFloat:
    case TypeId::kDouble: {
      std::optional<double> value = ParseJavaDouble(text, format);
      if (!value) return false;
      if (type.id() == TypeId::kFloat) out.AppendFloat(static_cast<float>(*value)); else out.AppendDouble(*value);
      return true;
    }
    case TypeId::kDecimal: {
      std::optional<Decimal128> value = ParseDecimal(text, type.precision(), type.scale());
      if (!value) return false;
      out.AppendDecimal(*value);
      return true;
    }
    case TypeId::kDate: {
      std::optional<int32_t> days = datetimes.ParseDate(text);
      if (!days) return false;
      out.AppendInt(*days);
      return true;
    }
    case TypeId::kTimestamp: {
      std::optional<int64_t> micros = datetimes.ParseTimestamp(text, zone);
      if (!micros) return false;
      out.AppendInt(*micros);
      return true;
    }
    case TypeId::kTimestampNtz: {
      std::optional<int64_t> micros = datetimes.ParseTimestampNtz(text);
      if (!micros) return false;
      out.AppendInt(*micros);
      return true;
    }
    default: return false;
  }
}

[[noreturn]] void ThrowUnsupportedCsvType(std::string_view function, const DataType& type) {
  SILT_THROW(DATATYPE_MISMATCH, {{"sqlExpr", "\"" + std::string(function) + "(...)\""},
                                 {"message", "CSV does not support the type \"" + TypeSqlText(type) + "\"."}});
}

ExpressionPtr BindFromCsv(std::vector<ExpressionPtr> arguments) {
  CheckArgumentCount("from_csv", arguments, 2, 3);
  TypeId input = arguments[0]->type()->id();
  if (input != TypeId::kString && input != TypeId::kNull) ThrowArgumentType("from_csv", 0, arguments[0], "\"STRING\"");
  arguments[0] = ImplicitCast("from_csv", 0, std::move(arguments[0]), StringType());
  DataTypePtr schema = SchemaArgument(arguments[1]);
  if (schema->id() != TypeId::kStruct) {
    SILT_THROW(INVALID_SCHEMA, {{"inputSchema", "\"" + TypeSqlText(*schema) + "\""},
                                {"message", "The input expression should be evaluated to struct type, but got \"" +
                                                TypeSqlText(*schema) + "\"."}});
  }
  std::vector<Field> fields;
  for (const Field& field : schema->fields()) {
    if (!SupportedCsvType(*field.type)) ThrowUnsupportedCsvType("from_csv", *field.type);
    fields.push_back(Field{field.name, field.type, true, {}});
  }
  schema = StructType(std::move(fields));
  FormatOptions options = arguments.size() == 3 ? OptionsArgument("from_csv", arguments[2]) : FormatOptions{};
  ParseMode mode = ParseModeOption("from_csv", options);
  CsvFormat format = CsvFormatOptions("from_csv", options, false);
  auto datetimes = std::make_shared<DatetimeText>(options);
  // A STRING field named by columnNameOfCorruptRecord (default `_corrupt_record`) takes no
  // token: it holds the text of a malformed record.
  int corrupt_index = schema->FieldIndex(OptionOr(options, "columnnameofcorruptrecord", "_corrupt_record"));
  if (corrupt_index >= 0 && schema->fields()[corrupt_index].type->id() != TypeId::kString) corrupt_index = -1;
  return MakeCall("from_csv", schema, {arguments[0]},
                  [schema, mode, format, datetimes, corrupt_index](const std::vector<VectorPtr>& args, int64_t num_rows,
                                                                   EvalContext& context, RowMask mask) {
                    const std::vector<Field>& fields = schema->fields();
                    const TimeZone& zone = context.Zone();
                    VectorBuilder out(schema, num_rows);
                    for (int64_t row = 0; row < num_rows; ++row) {
                      if (args[0]->IsNull(row)) {
                        out.AppendNull();
                        continue;
                      }
                      std::string_view text = args[0]->GetString(row);
                      // An empty record has no fields: malformed, as in Spark.
                      std::vector<CsvToken> tokens;
                      if (!text.empty()) tokens = SplitCsvRecord(text, format);
                      size_t read_fields = fields.size() - (corrupt_index >= 0 ? 1 : 0);
                      bool bad = tokens.size() != read_fields;
                      size_t token = 0;
                      for (size_t i = 0; i < fields.size(); ++i) {
                        if (static_cast<int>(i) == corrupt_index) continue;
                        if (token >= tokens.size() || !tokens[token]) {
                          out.child(i).AppendNull();
                        } else if (!AppendCsvValue(*tokens[token], *fields[i].type, format, *datetimes, zone,
                                                   out.child(i))) {
                          bad = true;
                          out.child(i).AppendNull();
                        }
                        ++token;
                      }
                      if (corrupt_index >= 0) {
                        if (bad) out.child(corrupt_index).AppendString(text); else out.child(corrupt_index).AppendNull();
                      }
                      out.AppendStruct();
                      if (bad && mode == ParseMode::kFailFast && mask.Contains(row)) {
                        context.RecordError(MalformedRecordError(text));
                      }
                    }
                    return out.Finish();
                  });
}

// Univocity's writer: leading and trailing whitespace trimmed (by default); a value holding the
// separator, the quote or a line break quoted (every value with quoteAll), with quotes inside
// escaped.
void AppendCsvField(std::string& out, std::string_view value, const CsvFormat& format) {
  value = TrimmedField(value, format);
  if (value.empty()) {
    out += format.quote;
    out += format.quote;
    return;
  }
  bool needs_quotes = format.quote_all ||
                      value.find_first_of(std::string{format.separator, format.quote, '\r', '\n'}) != std::string_view::npos;
  if (!needs_quotes) {
    out.append(value);
    return;
  }
  out += format.quote;
  for (char c : value) {
    if (c == format.quote || c == format.escape) out += format.escape;
    out += c;
  }
  out += format.quote;
}

ExpressionPtr BindToCsv(std::vector<ExpressionPtr> arguments) {
  CheckArgumentCount("to_csv", arguments, 1, 2);
  if (arguments[0]->type()->id() != TypeId::kStruct) ThrowArgumentType("to_csv", 0, arguments[0], "\"STRUCT\"");
  for (const Field& field : arguments[0]->type()->fields()) {
    if (!SupportedCsvType(*field.type)) ThrowUnsupportedCsvType("to_csv", *field.type);
  }
  FormatOptions options = arguments.size() == 2 ? OptionsArgument("to_csv", arguments[1]) : FormatOptions{};
  CsvFormat format = CsvFormatOptions("to_csv", options, true);
  auto datetimes = std::make_shared<DatetimeText>(options);
  return MakeCall("to_csv", StringType(), {arguments[0]},
                  [format, datetimes](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context,
                                      RowMask) {
                    const TimeZone& zone = context.Zone();
                    const Vector& input = *args[0];
                    std::vector<VectorPtr> fields;
                    for (size_t i = 0; i < input.type()->fields().size(); ++i) fields.push_back(input.StructField(i));
                    VectorBuilder out(StringType(), num_rows);
                    std::string text;
                    for (int64_t row = 0; row < num_rows; ++row) {
                      if (input.IsNull(row)) {
                        out.AppendNull();
                        continue;
                      }
                      text.clear();
                      for (size_t i = 0; i < fields.size(); ++i) {
                        if (i > 0) text += format.separator;
                        const Vector& field = *fields[i];
                        if (field.IsNull(row)) {
                          text += format.null_value;
                          continue;
                        }
                        std::string value;
                        switch (field.type_id()) {
                          case TypeId::kString: value = field.GetString(row); break;
                          case TypeId::kDouble: value = FormatJavaDouble(field.values<double>()[row]); break;
                          case TypeId::kFloat: value = FormatJavaFloat(field.values<float>()[row]); break;
                          case TypeId::kDecimal:
                            value = JavaBigDecimalText(field.values<Decimal128>()[row], field.type()->scale());
                            break;
                          case TypeId::kDate: value = datetimes->FormatDate(field.values<int32_t>()[row]); break;
                          case TypeId::kTimestamp:
                            value = datetimes->FormatTimestamp(field.values<int64_t>()[row], zone);
                            break;
                          case TypeId::kTimestampNtz:
                            value = datetimes->FormatTimestampNtz(field.values<int64_t>()[row]);
                            break;
                          default: value = CastValueToString(field, row, &zone); break;
                        }
                        AppendCsvField(text, value, format);
                      }
                      out.AppendString(text);
                    }
                    return out.Finish();
                  });
}

// Spark's CSVInferSchema for one field: INT, BIGINT, DECIMAL (whole numbers past BIGINT),
// DOUBLE, TIMESTAMP (text with a time of day that CAST reads), BOOLEAN, else STRING.
DataTypePtr InferCsvType(const CsvToken& token, const CsvFormat& format) {
  if (!token) return NullType();
  std::string_view text = *token;
  if (ParseJavaInteger<int32_t>(text)) return IntegerType();
  if (ParseJavaInteger<int64_t>(text)) return LongType();
  std::string_view digits = text;
  if (!digits.empty() && (digits[0] == '-' || digits[0] == '+')) digits.remove_prefix(1);
  if (!digits.empty() && digits.find_first_not_of("0123456789") == std::string_view::npos && digits.size() <= 38) {
    return DecimalType(static_cast<int>(digits.size()), 0);
  }
  if (ParseJavaDouble(text, format)) return DoubleType();
  if (text.find(':') != std::string_view::npos && ParseSparkTimestamp(text, true, 0)) return TimestampType();
  if (EqualsIgnoreCase(text, "true") || EqualsIgnoreCase(text, "false")) return BooleanType();
  return StringType();
}

ExpressionPtr BindSchemaOfCsv(std::vector<ExpressionPtr> arguments) {
  CheckArgumentCount("schema_of_csv", arguments, 1, 2);
  const ExpressionPtr& csv = arguments[0];
  if (csv->type()->id() != TypeId::kString || !IsFoldable(*csv)) {
    SILT_THROW(DATATYPE_MISMATCH, {{"sqlExpr", "\"schema_of_csv(...)\""},
                                   {"message", "the input csv should be a foldable \"STRING\" expression; however, got \"" +
                                                   csv->ToString() + "\"."}});
  }
  FormatOptions options = arguments.size() == 2 ? OptionsArgument("schema_of_csv", arguments[1]) : FormatOptions{};
  CsvFormat format = CsvFormatOptions("schema_of_csv", options, false);
  Scalar value = FoldConstant(*csv);
  std::string text = value.is_null() ? "" : std::string(value.GetString());
  std::vector<Field> fields;
  std::vector<CsvToken> tokens = SplitCsvRecord(text, format);
  for (size_t i = 0; i < tokens.size(); ++i) {
    DataTypePtr type = InferCsvType(tokens[i], format);
    if (type->id() == TypeId::kNull) type = StringType();
    fields.push_back(Field{"_c" + std::to_string(i), type, true, {}});
  }
  return Literal(Scalar::String(TypeSqlText(*StructType(std::move(fields)))));
}

}  // namespace

void RegisterCsvFunctions(FunctionRegistry& registry) {
  registry.Register("from_csv", BindFromCsv);
  registry.Register("to_csv", BindToCsv);
  registry.Register("schema_of_csv", BindSchemaOfCsv);
}

}  // namespace silt::expr::internal
