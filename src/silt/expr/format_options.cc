#include "silt/expr/format_options_internal.h"

#include "silt/base/ascii.h"
#include "silt/base/check.h"
#include "silt/expr/cast.h"
#include "silt/expr/datetime_pattern_internal.h"
#include "silt/expr/evaluator.h"
#include "silt/expr/schema_ddl.h"
#include "silt/types/date_time.h"
#include "silt/vector/batch.h"
#include "silt/vector/value_text.h"

namespace silt::expr::internal {
namespace {

[[noreturn]] void ThrowBadOptions(std::string_view function, const std::string& message) {
  SILT_THROW(INVALID_PARAMETER_VALUE,
             {{"parameter", "`options`"}, {"functionName", "`" + std::string(function) + "`"}, {"message", message}});
}

}  // namespace

bool IsFoldable(const Expression& expression) {
  if (expression.kind() == ExpressionKind::kColumn || !expression.deterministic()) return false;
  for (const ExpressionPtr& child : expression.children()) {
    if (!IsFoldable(*child)) return false;
  }
  return true;
}

Scalar FoldConstant(const Expression& expression) {
  EvalContext context;
  Batch one_row(std::make_shared<Schema>(), {}, 1);
  VectorPtr result = Evaluate(expression, one_row, context);
  return Scalar::FromVector(*result, 0);
}

FormatOptions OptionsArgument(std::string_view function, const ExpressionPtr& argument) {
  const DataType& type = *argument->type();
  if (type.id() != TypeId::kMap || !IsFoldable(*argument)) {
    ThrowBadOptions(function, "options must be given with the map() function, e.g. map('mode', 'FAILFAST').");
  }
  if (type.key_type()->id() != TypeId::kString || type.value_type()->id() != TypeId::kString) {
    ThrowBadOptions(function, "options must be a map of STRING keys to STRING values, not " + type.ToString() + ".");
  }
  Scalar value = FoldConstant(*argument);
  FormatOptions options;
  if (value.is_null()) return options;
  const Vector& map = *value.vector();
  VectorPtr keys = map.child(0)->StructField(0);
  VectorPtr values = map.child(0)->StructField(1);
  int32_t start = map.ListStart(0);
  for (int32_t i = 0; i < map.ListLength(0); ++i) {
    int64_t at = start + i;
    if (values->IsNull(at)) ThrowBadOptions(function, "an option value must not be NULL.");
    options[AsciiLower(keys->GetString(at))] = std::string(values->GetString(at));
  }
  return options;
}

std::string OptionOr(const FormatOptions& options, const std::string& key, const std::string& fallback) {
  auto found = options.find(key);
  return found == options.end() ? fallback : found->second;
}

bool BooleanOption(std::string_view function, const FormatOptions& options, const std::string& key, bool fallback) {
  auto found = options.find(key);
  if (found == options.end()) return fallback;
  if (EqualsIgnoreCase(found->second, "true")) return true;
  if (EqualsIgnoreCase(found->second, "false")) return false;
  ThrowBadOptions(function, key + " should be a boolean (true or false), not '" + found->second + "'.");
}

DataTypePtr SchemaArgument(const ExpressionPtr& argument) {
  if (argument->type()->id() != TypeId::kString || !IsFoldable(*argument)) {
    SILT_THROW(INVALID_SCHEMA, {{"inputSchema", "\"" + argument->ToString() + "\""},
                                {"message", "The input expression must be string literal and not null."}});
  }
  Scalar value = FoldConstant(*argument);
  if (value.is_null()) {
    SILT_THROW(INVALID_SCHEMA, {{"inputSchema", "\"NULL\""},
                                {"message", "The input expression must be string literal and not null."}});
  }
  return ParseSchemaDdl(value.GetString());
}

ParseMode ParseModeOption(std::string_view function, const FormatOptions& options) {
  std::string mode = OptionOr(options, "mode", "PERMISSIVE");
  if (EqualsIgnoreCase(mode, "PERMISSIVE")) return ParseMode::kPermissive;
  if (EqualsIgnoreCase(mode, "FAILFAST")) return ParseMode::kFailFast;
  ThrowBadOptions(function, "the " + mode + " mode is not supported; acceptable modes are PERMISSIVE and FAILFAST.");
}

DatetimeText::DatetimeText(const FormatOptions& options) {
  if (auto found = options.find("dateformat"); found != options.end()) date_format_ = found->second;
  if (auto found = options.find("timestampformat"); found != options.end()) timestamp_format_ = found->second;
  if (auto found = options.find("timestampntzformat"); found != options.end()) timestamp_ntz_format_ = found->second;
  // A pattern with a letter silt does not know fails when the call is bound, not per row.
  for (const std::optional<std::string>* format : {&date_format_, &timestamp_format_, &timestamp_ntz_format_}) {
    if (*format) FormatWithPattern(0, **format);
  }
}

std::optional<int32_t> DatetimeText::ParseDate(std::string_view text) const {
  if (!date_format_) return ParseSparkDate(text);
  std::optional<int64_t> local = ParseWithPattern(text, *date_format_);
  if (!local) return std::nullopt;
  int64_t days = *local / kMicrosPerDay - (*local % kMicrosPerDay < 0 ? 1 : 0);
  return static_cast<int32_t>(days);
}

std::optional<int64_t> DatetimeText::ParseTimestamp(std::string_view text, const TimeZone& zone) const {
  if (!timestamp_format_) return ParseSparkTimestamp(text, true, zone);
  std::optional<int64_t> offset;
  std::optional<int64_t> local = ParseWithPattern(text, *timestamp_format_, &offset);
  if (!local) return std::nullopt;
  return offset ? *local - *offset : zone.LocalToUtc(*local);
}

std::optional<int64_t> DatetimeText::ParseTimestampNtz(std::string_view text) const {
  if (!timestamp_ntz_format_) return ParseSparkTimestamp(text, false, 0);
  return ParseWithPattern(text, *timestamp_ntz_format_);
}

std::string DatetimeText::FormatDate(int32_t days) const {
  return FormatWithPattern(static_cast<int64_t>(days) * kMicrosPerDay, date_format_.value_or("yyyy-MM-dd"));
}

std::string DatetimeText::FormatTimestamp(int64_t micros, const TimeZone& zone) const {
  return FormatWithPattern(zone.UtcToLocal(micros), timestamp_format_.value_or("yyyy-MM-dd'T'HH:mm:ss.SSSXXX"),
                           zone.OffsetAt(micros));
}

std::string DatetimeText::FormatTimestampNtz(int64_t micros) const {
  return FormatWithPattern(micros, timestamp_ntz_format_.value_or("yyyy-MM-dd'T'HH:mm:ss.SSS"));
}

std::string JavaBigDecimalText(Decimal128 unscaled, int scale) {
  std::string digits = FormatDecimal(unscaled < 0 ? -unscaled : unscaled, 0);
  int64_t adjusted = static_cast<int64_t>(digits.size()) - 1 - scale;
  if (adjusted >= -6) return FormatDecimal(unscaled, scale);
  std::string text = unscaled < 0 ? "-" : "";
  text += digits.substr(0, 1);
  if (digits.size() > 1) text += "." + digits.substr(1);
  return text + "E" + std::to_string(adjusted);
}

Error MalformedRecordError(std::string_view record) {
  return MakeError(ErrorClass::MALFORMED_RECORD_IN_PARSING,
                   {{"badRecord", "[" + std::string(record) + "]"},
                    {"message", "Parse Mode: FAILFAST. To process malformed records as null result, try setting the "
                                "option 'mode' as 'PERMISSIVE'."}});
}

}  // namespace silt::expr::internal
