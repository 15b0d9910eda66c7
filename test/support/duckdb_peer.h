#pragma once

#include <string>
#include <vector>

namespace silt::test {

/// The folder with the shared test data: $SILT_SHARED_DIR, else "../shared" from the source tree.
std::string SharedDir();

/// Runs SQL statements in the DuckDB peer (../shared/tools/duckdb/duckdb) and returns what the
/// last statement printed (--quiet) in `format` ("csv", "json", "jsonl" or "table"). Throws
/// std::runtime_error with DuckDB's stderr when a statement fails or the peer cannot start.
std::string RunDuckDb(const std::vector<std::string>& statements, const std::string& format = "csv");

/// Runs the DuckDB peer with --timer and returns the milliseconds each statement took.
std::vector<double> TimeDuckDb(const std::vector<std::string>& statements, int threads);

/// Quotes `text` as a SQL string literal ('it''s').
std::string SqlQuote(const std::string& text);

}  // namespace silt::test
