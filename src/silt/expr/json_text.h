#pragma once

// JSON text as Spark reads it: a small DOM parser with Jackson's feature switches (as Spark
// configures them per function and data source), and the compact text Jackson writes back. The
// JSON functions, the JSON file readers and the small JSON documents silt keeps (catalog
// entries, view definitions) all parse with it.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace silt::expr {

/// Jackson's (and so Spark's) default nesting limit: deeper documents are malformed.
inline constexpr int kMaxJsonNestingDepth = 1000;

/// One parsed JSON value. Numbers keep their text; objects keep members in text order
/// (duplicates included).
struct JsonNode {
  enum class Kind : uint8_t { kNull, kTrue, kFalse, kNumber, kString, kArray, kObject };
  Kind kind = Kind::kNull;
  /// kNumber: true when written without fraction or exponent (Jackson's VALUE_NUMBER_INT).
  bool integral = false;
  /// kNumber: the number as written ("NaN"/"Infinity" too); kString: the unescaped value.
  std::string text;
  std::vector<JsonNode> elements;
  std::vector<std::pair<std::string, JsonNode>> members;
};

/// Parser features (Jackson's JsonReadFeature names).
struct JsonReadFeatures {
  bool single_quotes = false;           ///< ALLOW_SINGLE_QUOTES
  bool unquoted_control_chars = false;  ///< ALLOW_UNESCAPED_CONTROL_CHARS
  bool non_numeric_numbers = false;     ///< ALLOW_NON_NUMERIC_NUMBERS: NaN, Infinity, INF
  bool leading_zeros = false;           ///< ALLOW_LEADING_ZEROS_FOR_NUMBERS
  bool comments = false;                ///< ALLOW_JAVA_COMMENTS: /* ... */ and // to line end
  bool unquoted_field_names = false;    ///< ALLOW_UNQUOTED_FIELD_NAMES: [A-Za-z_$][A-Za-z0-9_$]*
  bool backslash_escaping_any = false;  ///< ALLOW_BACKSLASH_ESCAPING_ANY_CHARACTER: \x is x
};

enum class JsonParseOutcome { kValue, kEmpty, kMalformed };

/// Parses the first JSON value of `text` (text after it is not read, as Jackson's streaming
/// parser leaves it). kEmpty when the text is only whitespace; kMalformed for anything else
/// that is not a JSON value, including nesting deeper than kMaxJsonNestingDepth. `end`, when
/// given, is set to the offset just past the value, or where the text stopped being JSON.
JsonParseOutcome ParseJsonText(std::string_view text, const JsonReadFeatures& features, JsonNode& node,
                               size_t* end = nullptr);

/// Appends `node` as compact JSON as Jackson's copyCurrentStructure writes it: no whitespace,
/// integers as written, other numbers as Java's Double.toString ("1.5", "1.0E10"; NaN and
/// infinities quoted), strings escaped as Jackson does.
void AppendJsonNode(std::string& out, const JsonNode& node);

}  // namespace silt::expr
