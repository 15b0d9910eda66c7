#include "sqllogic/sqllogic_runner.h"

#include <algorithm>
#include <exception>
#include <sstream>
#include <stdexcept>

#include "silt/api/session_internal.h"
#include "silt/error.h"
#include "silt/session.h"
#include "silt/vector/batch.h"
#include "support/temp_dir.h"

namespace silt::sqllogic {
namespace {

constexpr std::string_view kTempVariable = "${TEMP}";
constexpr std::string_view kResultSeparator = "----";

bool IsBlank(std::string_view line) {
  return line.find_first_not_of(" \t\r") == std::string_view::npos;
}

std::vector<std::string> SplitLines(std::string_view text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.emplace_back(line);
    start = end + 1;
  }
  return lines;
}

std::vector<std::string> SplitWords(std::string_view line) {
  std::vector<std::string> words;
  std::istringstream in{std::string(line)};
  std::string word;
  while (in >> word) words.push_back(word);
  return words;
}

// The text of `line` after its first `count` words.
std::string AfterWords(std::string_view line, size_t count) {
  size_t pos = 0;
  for (size_t i = 0; i < count; ++i) {
    pos = line.find_first_not_of(" \t", pos);
    if (pos == std::string_view::npos) return "";
    pos = line.find_first_of(" \t", pos);
    if (pos == std::string_view::npos) return "";
  }
  size_t begin = line.find_first_not_of(" \t", pos);
  if (begin == std::string_view::npos) return "";
  size_t end = line.find_last_not_of(" \t");
  return std::string(line.substr(begin, end - begin + 1));
}

std::string ReplaceAll(std::string text, std::string_view from, const std::string& to) {
  for (size_t pos = text.find(from); pos != std::string::npos;
       pos = text.find(from, pos + to.size())) {
    text.replace(pos, from.size(), to);
  }
  return text;
}

[[noreturn]] void Malformed(const std::string& name, int line, const std::string& problem) {
  throw std::runtime_error(name + ":" + std::to_string(line) + ": " + problem);
}

std::string JoinLines(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& line : lines) out += "    " + line + "\n";
  return out;
}

// What the failure of record `record` reports: where, which SQL, and the problem.
std::string Describe(const std::string& name, const Record& record, const std::string& problem) {
  std::string out = name + ":" + std::to_string(record.line) + ": " + problem + "\n";
  out += "  SQL:\n" + JoinLines(SplitLines(record.sql));
  return out;
}

std::vector<std::string> ActualRows(const StatementOutput& output, bool header) {
  std::vector<std::string> rows;
  if (header) {
    std::string names;
    for (size_t c = 0; c < output.schema()->num_fields(); ++c) {
      if (c > 0) names += '\t';
      names += output.schema()->field(c).name;
    }
    rows.push_back(std::move(names));
  }
  for (const Batch& batch : output.DisplayBatches()) {
    for (int64_t r = 0; r < batch.num_rows(); ++r) {
      std::string row;
      for (size_t c = 0; c < batch.num_columns(); ++c) {
        if (c > 0) row += '\t';
        row += FormatCell(*batch.column(c), r);
      }
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

// Runs one record; returns its failure description, or "" when it passed.
std::string RunRecord(Session& session, const Record& record, const std::string& name) {
  bool expects_error = record.kind == RecordKind::kStatementError;
  StatementOutput output;
  try {
    output = api::RunStatements(session, record.sql);
  } catch (const Error& error) {
    if (!expects_error) return Describe(name, record, std::string("failed: ") + error.what());
    if (error.error_class() != record.error_class) {
      return Describe(name, record,
                      "expected error " + record.error_class + ", got: " + error.what());
    }
    if (!record.error_text.empty() &&
        std::string_view(error.what()).find(record.error_text) == std::string_view::npos) {
      return Describe(name, record,
                      "error message lacks '" + record.error_text + "': " + error.what());
    }
    return "";
  } catch (const std::exception& error) {
    return Describe(name, record, std::string("threw a non-silt exception: ") + error.what());
  }
  if (expects_error) {
    return Describe(name, record, "expected error " + record.error_class + ", but it succeeded");
  }
  if (record.kind != RecordKind::kQuery) return "";
  if (!output.has_rows()) return Describe(name, record, "query returned no result set");

  std::vector<std::string> actual = ActualRows(output, record.header);
  std::vector<std::string> expected = record.expected;
  if (!record.ordered) {
    // The header line stays first; only the rows are sorted.
    size_t first_row = record.header ? 1 : 0;
    if (actual.size() > first_row) std::sort(actual.begin() + first_row, actual.end());
    if (expected.size() > first_row) std::sort(expected.begin() + first_row, expected.end());
  }
  if (actual == expected) return "";
  std::string out = Describe(
      name, record,
      std::string("query results differ (") + (record.ordered ? "ordered" : "rowsort") + ")");
  out += "  expected (" + std::to_string(expected.size()) + " lines):\n" + JoinLines(expected);
  out += "  actual (" + std::to_string(actual.size()) + " lines):\n" + JoinLines(actual);
  return out;
}

}  // namespace

std::vector<Record> ParseTestFile(std::string_view text, const std::string& name) {
  std::vector<std::string> lines = SplitLines(text);
  std::vector<Record> records;
  size_t i = 0;
  while (i < lines.size()) {
    const std::string& line = lines[i];
    if (IsBlank(line) || line[0] == '#') {
      ++i;
      continue;
    }
    Record record;
    record.line = static_cast<int>(i + 1);
    std::vector<std::string> words = SplitWords(line);
    bool is_query = false;
    if (words[0] == "halt" && words.size() == 1) {
      record.kind = RecordKind::kHalt;
      records.push_back(record);
      return records;
    } else if (words[0] == "statement" && words.size() == 2 && words[1] == "ok") {
      record.kind = RecordKind::kStatementOk;
    } else if ((words[0] == "statement" || words[0] == "query") && words.size() >= 2 &&
               words[1] == "error") {
      if (words.size() < 3) Malformed(name, record.line, "an error record needs an error class");
      record.kind = RecordKind::kStatementError;
      record.error_class = words[2];
      record.error_text = AfterWords(line, 3);
    } else if (words[0] == "query") {
      record.kind = RecordKind::kQuery;
      is_query = true;
      for (size_t w = 1; w < words.size(); ++w) {
        if (words[w] == "rowsort") {
          record.ordered = false;
        } else if (words[w] == "ordered") {
          record.ordered = true;
        } else if (words[w] == "header") {
          record.header = true;
        } else {
          Malformed(name, record.line, "unknown query option '" + words[w] + "'");
        }
      }
    } else {
      Malformed(name, record.line, "unknown record '" + line + "'");
    }
    ++i;

    // The SQL: until a blank line, or `----` for a query.
    bool saw_separator = false;
    while (i < lines.size() && !IsBlank(lines[i])) {
      if (lines[i] == kResultSeparator) {
        if (!is_query) Malformed(name, static_cast<int>(i + 1), "'----' outside a query");
        saw_separator = true;
        ++i;
        break;
      }
      if (lines[i][0] != '#') {
        if (!record.sql.empty()) record.sql += '\n';
        record.sql += lines[i];
      }
      ++i;
    }
    if (record.sql.empty()) Malformed(name, record.line, "the record has no SQL");
    if (is_query) {
      if (!saw_separator) Malformed(name, record.line, "a query needs '----' before its rows");
      // Expected lines are data: a line starting with '#' is a value here, not a comment.
      while (i < lines.size() && !IsBlank(lines[i])) record.expected.push_back(lines[i++]);
    }
    records.push_back(std::move(record));
  }
  return records;
}

std::string FormatCell(const Vector& vector, int64_t row) {
  std::string text = vector.ValueToString(row);
  if (text.empty()) return "(empty)";
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\t') {
      out += "\\t";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::vector<std::string> RunTestFile(std::string_view text, const std::string& name,
                                     const std::optional<StorageLocation>& location) {
  std::vector<Record> records;
  try {
    records = ParseTestFile(text, name);
  } catch (const std::exception& error) {
    return {error.what()};
  }
  test::TempDir warehouse;
  test::TempDir temp;
  SessionOptions options;
  options.warehouse = location ? location->warehouse : warehouse.path();
  std::string temp_path = location ? location->temp : temp.path();
  if (location) {
    for (const auto& [key, value] : location->settings) options.conf[key] = value;
  }
  std::vector<std::string> failures;
  try {
    Session session(options);
    for (Record& record : records) {
      if (record.kind == RecordKind::kHalt) break;
      record.sql = ReplaceAll(record.sql, kTempVariable, temp_path);
      for (std::string& line : record.expected) line = ReplaceAll(line, kTempVariable, temp_path);
      std::string failure = RunRecord(session, record, name);
      if (!failure.empty()) failures.push_back(std::move(failure));
    }
  } catch (const std::exception& error) {
    failures.push_back(name + ": the session failed: " + error.what());
  }
  return failures;
}

}  // namespace silt::sqllogic
