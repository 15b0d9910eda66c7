#pragma once

// The SQL logic test format (docs/format/sqllogic.md): parsing a .test file into records and
// running them against a fresh silt::Session.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <string_view>
#include <vector>

#include "silt/vector/vector.h"

namespace silt::sqllogic {

enum class RecordKind {
  kStatementOk,     ///< `statement ok`
  kStatementError,  ///< `statement error CLASS [text]` or `query error CLASS [text]`
  kQuery,           ///< `query [rowsort|ordered] [header]` with expected rows after `----`
  kHalt,            ///< `halt`: stop the file here
};

struct Record {
  RecordKind kind = RecordKind::kStatementOk;
  int line = 0;  ///< 1-based line of the record's header
  std::string sql;
  std::string error_class;
  std::string error_text;             ///< must occur in what() when not empty
  bool ordered = false;               ///< compare rows in order (otherwise sorted as strings)
  bool header = false;                ///< the first expected line is the column names
  std::vector<std::string> expected;  ///< tab-separated lines, header first when `header`
};

/// Parses the text of a .test file. Throws std::runtime_error "<name>:<line>: <problem>" for a
/// malformed record (unknown header, a query without `----`, a record without SQL).
std::vector<Record> ParseTestFile(std::string_view text, const std::string& name);

/// Row `row` of `vector` as an expected-results cell: Spark's show() text, the empty string as
/// `(empty)`, tab and newline written as `\t` and `\n`.
std::string FormatCell(const Vector& vector, int64_t row);

/// Where a test file's tables live when not in local temporary folders: a warehouse and a
/// `${TEMP}` on an object store, and the session settings that reach it.
struct StorageLocation {
  std::string warehouse;
  std::string temp;
  std::vector<std::pair<std::string, std::string>> settings;
};

/// Runs the records of a .test file from the top in a fresh Session whose warehouse is a new
/// temporary folder, with `${TEMP}` replaced by another one (or both at `location`). Returns one
/// description per failed record (file, line, SQL, expected and actual); empty when the file
/// passes. A malformed file is one failure.
std::vector<std::string> RunTestFile(std::string_view text, const std::string& name,
                                     const std::optional<StorageLocation>& location = std::nullopt);

}  // namespace silt::sqllogic
