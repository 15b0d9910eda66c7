#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "silt/types/data_type.h"
#include "silt/vector/batch.h"

namespace silt::io {
class FileSystem;
}

namespace silt::exec {

// Readers of the raw text formats a query can name as a table: json.`path` (JSON Lines) and
// csv.`path` (CSV with a header line). Both read a single file or every data file of a folder
// (recursively, in path order, skipping names starting with '_' or '.', as Spark's file index
// does) and infer the schema from the whole input, as Spark does without a user schema.

/// A parsed JSON value. Objects keep their members in text order.
struct JsonValue {
  enum class Kind { kNull, kBoolean, kInteger, kDouble, kString, kArray, kObject };
  Kind kind = Kind::kNull;
  bool boolean = false;
  int64_t integer = 0;
  double number = 0;
  std::string text;  ///< kString: the unescaped value
  std::vector<JsonValue> elements;
  std::vector<std::pair<std::string, JsonValue>> members;

  /// kObject: the member named `key` (exact match), or nullptr.
  const JsonValue* Find(std::string_view key) const;
};

/// Parses one complete JSON document (surrounding whitespace allowed). Integers that fit in 64
/// bits are kInteger, other numbers kDouble. Throws MALFORMED_RECORD_IN_PARSING quoting `text`
/// for anything that is not exactly one JSON value.
JsonValue ParseJson(std::string_view text);

/// Rows read from text files with the schema inferred for them.
struct TextTable {
  SchemaPtr schema;
  std::vector<Batch> batches;
};

/// Reads JSON Lines: one object per non-blank line. Schema inference as Spark's: a field's
/// type is the widest of its values (integers `bigint`, other numbers `double`, an integer and
/// a double `double`, true/false `boolean`, strings `string`, objects `struct` and arrays
/// `array` inferred recursively; JSON null alone gives `string`; conflicting kinds fall back to
/// `string`, whose values are then the JSON text), fields sorted by name, every field nullable;
/// a field a row lacks is NULL. Throws MALFORMED_RECORD_IN_PARSING (naming the line) for a line
/// that is not a JSON object, PATH_NOT_FOUND when `path` does not exist.
TextTable ReadJsonFiles(io::FileSystem& fs, const std::string& path);

/// Reads CSV with a header line giving the column names; every column is STRING (Spark without
/// inferSchema). Fields are separated by ',', may be enclosed in '"' (a quoted field may hold
/// commas and line breaks; a quote inside is written '""' or '\"'); an empty unquoted field is
/// NULL, a quoted empty field "" is the empty string. As in Spark's PERMISSIVE mode, a row with
/// fewer fields is padded with NULL and extra fields are dropped; an unterminated quote throws
/// MALFORMED_RECORD_IN_PARSING. Blank lines are skipped.
/// Each file of a folder must have the same header (the first file's names are used).
/// Without `header` (Spark's default for its header option), every line is a row and the columns
/// are `_c0`, `_c1`, ... as many as the first row has fields.
TextTable ReadCsvFiles(io::FileSystem& fs, const std::string& path, bool header = true);

/// Splits the CSV text of one file into records of fields, as ReadCsvFiles reads them (no
/// header handling): an unquoted empty field is nullopt. Throws MALFORMED_RECORD_IN_PARSING
/// naming `file` for an unterminated quote.
std::vector<std::vector<std::optional<std::string>>> ParseCsvRecords(std::string_view text,
                                                                     const std::string& file);

}  // namespace silt::exec
