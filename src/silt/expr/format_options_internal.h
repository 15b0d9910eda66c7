#pragma once

// Arguments shared by the JSON and CSV functions: the schema string, the options map and the
// parse mode, all constant and read once when the call is bound.

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "silt/expr/expression.h"
#include "silt/expr/scalar.h"
#include "silt/types/time_zone.h"

namespace silt::expr::internal {

/// Whether `expression` reads no input column and is deterministic, so one evaluation gives
/// its value for every row (Spark's foldable).
bool IsFoldable(const Expression& expression);
/// Evaluates a foldable expression once (session settings at their defaults).
Scalar FoldConstant(const Expression& expression);

/// Options given as `map('key', 'value', ...)`: keys compared case-insensitively (stored lower
/// case), as Spark's CaseInsensitiveMap does. Throws INVALID_PARAMETER_VALUE when the argument is
/// not a constant map of strings.
using FormatOptions = std::map<std::string, std::string>;
FormatOptions OptionsArgument(std::string_view function, const ExpressionPtr& argument);
/// The value of option `key` (lower case), or `fallback`.
std::string OptionOr(const FormatOptions& options, const std::string& key, const std::string& fallback);
/// A boolean option ("true"/"false", any case); INVALID_PARAMETER_VALUE for other text.
bool BooleanOption(std::string_view function, const FormatOptions& options, const std::string& key, bool fallback);

/// The schema argument of from_json/from_csv: a foldable string (a literal or a call such as
/// schema_of_json('...')) in DDL or JSON form (schema_ddl.h). Throws INVALID_SCHEMA when it is
/// not a foldable non-NULL string or does not parse.
DataTypePtr SchemaArgument(const ExpressionPtr& argument);

/// Spark's parse modes of from_json/from_csv: PERMISSIVE (malformed input gives NULLs) and
/// FAILFAST (MALFORMED_RECORD_IN_PARSING). Reads option "mode"; DROPMALFORMED and unknown modes
/// are refused with INVALID_PARAMETER_VALUE.
enum class ParseMode { kPermissive, kFailFast };
ParseMode ParseModeOption(std::string_view function, const FormatOptions& options);

/// The date and timestamp text of the JSON and CSV functions: options dateFormat,
/// timestampFormat and timestampNTZFormat (Spark datetime patterns). Without an option, text is
/// read as CAST reads it and written as Spark writes it by default: "2024-01-31",
/// "2024-01-31T10:00:00.000Z" (milliseconds and the session zone's offset) and, for
/// TIMESTAMP_NTZ, "2024-01-31T10:00:00.000".
class DatetimeText {
 public:
  explicit DatetimeText(const FormatOptions& options);

  std::optional<int32_t> ParseDate(std::string_view text) const;
  /// µs since the epoch; text without an offset is read in `zone`.
  std::optional<int64_t> ParseTimestamp(std::string_view text, const TimeZone& zone) const;
  std::optional<int64_t> ParseTimestampNtz(std::string_view text) const;
  std::string FormatDate(int32_t days) const;
  std::string FormatTimestamp(int64_t micros, const TimeZone& zone) const;
  std::string FormatTimestampNtz(int64_t micros) const;

 private:
  std::optional<std::string> date_format_;
  std::optional<std::string> timestamp_format_;
  std::optional<std::string> timestamp_ntz_format_;
};

/// Java's BigDecimal.toString of a decimal, as Spark writes decimals into JSON and CSV: plain
/// ("1.50") unless the adjusted exponent is below -6 ("1E-7").
std::string JavaBigDecimalText(Decimal128 unscaled, int scale);

/// The error a FAILFAST parse raises for `record`.
Error MalformedRecordError(std::string_view record);

}  // namespace silt::expr::internal
