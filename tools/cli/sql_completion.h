#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace silt::cli {

/// What tab completion knows of the catalog.
struct CompletionCatalog {
  /// The tables and views of the current database (names as the catalog lists them).
  std::vector<std::string> tables;
  /// The column names of a table of `tables` (empty when it has none or cannot be read).
  std::function<std::vector<std::string>(const std::string& table)> columns;
};

/// The shell's meta commands, as `.help` lists them and completion offers them.
const std::vector<std::string>& MetaCommands();

/// Tab completion: the candidates for the word that ends `text` (what was typed before the
/// cursor, including earlier lines of the statement), sorted and without duplicates. The word is
/// the run of letters, digits, `_` and `.` before the cursor; the candidates are whole words that
/// start with it, compared case-insensitively:
///  - a line starting with `.`: the meta commands;
///  - `table.prefix`: `table.column` for the columns of that table;
///  - after FROM, JOIN, INTO, TABLE, UPDATE, DESCRIBE, `.schema` and the like: table names;
///  - elsewhere: SQL keywords (in the case the prefix is typed in: lower case for a lower-case
///    prefix, else upper case), table names, and the columns of the tables the text mentions.
/// An empty word completes only table names (after the keywords above) and columns after
/// `table.`.
std::vector<std::string> CompleteSql(std::string_view text, const CompletionCatalog& catalog);

}  // namespace silt::cli
