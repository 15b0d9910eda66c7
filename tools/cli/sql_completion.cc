#include "sql_completion.h"

#include <algorithm>
#include <set>

#include "silt/base/ascii.h"

namespace silt::cli {
namespace {

// Spark SQL keywords a user types in the statements silt runs.
constexpr const char* kKeywords[] = {
    "ADD",       "ALL",           "ALTER",      "ALWAYS",     "AND",
    "ANTI",      "ARRAY",         "AS",         "ASC",        "BETWEEN",
    "BIGINT",    "BINARY",        "BOOLEAN",    "BY",         "CASCADE",
    "CASE",      "CAST",          "CHANGE",     "CHECK",      "COLUMN",
    "COLUMNS",   "COMMENT",       "CONSTRAINT", "CONVERT",    "CREATE",
    "CROSS",     "CURRENT",       "DATABASE",   "DATABASES",  "DATE",
    "DECIMAL",   "DELETE",        "DELTA",      "DESC",       "DESCRIBE",
    "DETAIL",    "DISTINCT",      "DOUBLE",     "DROP",       "DRY",
    "ELSE",      "END",           "EXCEPT",     "EXISTS",     "EXPLAIN",
    "EXTENDED",  "FALSE",         "FILTER",     "FIRST",      "FLOAT",
    "FOLLOWING", "FROM",          "FULL",       "GENERATED",  "GROUP",
    "HAVING",    "HISTORY",       "HOURS",      "IF",         "ILIKE",
    "IN",        "INNER",         "INSERT",     "INT",        "INTEGER",
    "INTERSECT", "INTERVAL",      "INTO",       "IS",         "JOIN",
    "LAST",      "LATERAL",       "LEFT",       "LIKE",       "LIMIT",
    "LOCATION",  "MAP",           "MATCHED",    "MERGE",      "NOT",
    "NULL",      "NULLS",         "OF",         "ON",         "OPTIMIZE",
    "OR",        "ORDER",         "OUTER",      "OVER",       "OVERWRITE",
    "PARTITION", "PARTITIONED",   "PRECEDING",  "PROPERTIES", "QUALIFY",
    "RANGE",     "RENAME",        "REPLACE",    "RESET",      "RESTORE",
    "RETAIN",    "RIGHT",         "RLIKE",      "ROW",        "ROWS",
    "RUN",       "SELECT",        "SEMI",       "SET",        "SHOW",
    "SMALLINT",  "SOURCE",        "STRING",     "STRUCT",     "TABLE",
    "TABLES",    "TBLPROPERTIES", "TEMP",       "TEMPORARY",  "THEN",
    "TIMESTAMP", "TIMESTAMP_NTZ", "TINYINT",    "TO",         "TRUE",
    "UNBOUNDED", "UNION",         "UPDATE",     "USE",        "USING",
    "VACUUM",    "VALUES",        "VERSION",    "VIEW",       "WHEN",
    "WHERE",     "WINDOW",        "WITH",       "ZORDER"};

// Keywords after which a table name comes.
constexpr const char* kBeforeTable[] = {"from",   "join",     "into",    "table",
                                        "update", "describe", "desc",    "optimize",
                                        "vacuum", "detail",   "history", ".schema"};

bool IsWordChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.';
}

bool StartsWithIgnoringCase(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() &&
         AsciiLower(text.substr(0, prefix.size())) == AsciiLower(prefix);
}

// The words of `text` (runs of word characters), lower-cased.
std::vector<std::string> LowerWords(std::string_view text) {
  std::vector<std::string> words;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && !IsWordChar(text[i])) ++i;
    size_t start = i;
    while (i < text.size() && IsWordChar(text[i])) ++i;
    if (i > start) words.push_back(AsciiLower(text.substr(start, i - start)));
  }
  return words;
}

// The catalog's spelling of `name` (matched case-insensitively), or nullptr.
const std::string* FindTable(const CompletionCatalog& catalog, std::string_view name) {
  for (const std::string& table : catalog.tables) {
    if (AsciiLower(table) == AsciiLower(name)) return &table;
  }
  return nullptr;
}

}  // namespace

const std::vector<std::string>& MetaCommands() {
  static const std::vector<std::string> commands = {".exit", ".help",   ".mode",
                                                    ".quit", ".schema", ".tables"};
  return commands;
}

std::vector<std::string> CompleteSql(std::string_view text, const CompletionCatalog& catalog) {
  size_t start = text.size();
  while (start > 0 && IsWordChar(text[start - 1])) --start;
  std::string_view word = text.substr(start);
  std::string_view before = text.substr(0, start);
  std::set<std::string> out;

  // Meta commands: a line that starts with '.'.
  size_t line_start = before.find_last_of('\n');
  line_start = line_start == std::string_view::npos ? 0 : line_start + 1;
  std::string_view line_before = before.substr(line_start);
  if (line_before.find_first_not_of(" \t") == std::string_view::npos && !word.empty() &&
      word.front() == '.') {
    for (const std::string& command : MetaCommands()) {
      if (StartsWithIgnoringCase(command, word)) out.insert(command);
    }
    return {out.begin(), out.end()};
  }

  // table.column
  if (size_t dot = word.rfind('.'); dot != std::string_view::npos) {
    std::string_view qualifier = word.substr(0, dot);
    std::string_view prefix = word.substr(dot + 1);
    if (const std::string* table = FindTable(catalog, qualifier); table && catalog.columns) {
      for (const std::string& column : catalog.columns(*table)) {
        if (StartsWithIgnoringCase(column, prefix)) {
          out.insert(std::string(qualifier) + "." + column);
        }
      }
    }
    return {out.begin(), out.end()};
  }

  std::vector<std::string> words = LowerWords(before);
  bool table_expected =
      !words.empty() && std::find(std::begin(kBeforeTable), std::end(kBeforeTable), words.back()) !=
                            std::end(kBeforeTable);
  if (!table_expected && word.empty()) return {};
  for (const std::string& table : catalog.tables) {
    if (StartsWithIgnoringCase(table, word)) out.insert(table);
  }
  if (table_expected) return {out.begin(), out.end()};

  bool lower_case =
      std::none_of(word.begin(), word.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
  for (const char* keyword : kKeywords) {
    if (StartsWithIgnoringCase(keyword, word)) {
      out.insert(lower_case ? AsciiLower(keyword) : std::string(keyword));
    }
  }
  if (catalog.columns) {
    std::set<std::string> mentioned;
    for (const std::string& each : LowerWords(text)) {
      if (const std::string* table = FindTable(catalog, each)) mentioned.insert(*table);
    }
    for (const std::string& table : mentioned) {
      for (const std::string& column : catalog.columns(table)) {
        if (StartsWithIgnoringCase(column, word)) out.insert(column);
      }
    }
  }
  return {out.begin(), out.end()};
}

}  // namespace silt::cli
