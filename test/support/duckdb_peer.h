#pragma once

#include <string>
#include <vector>

namespace silt::test {

/// The folder with the repository's test data (test/data: golden Delta tables, the DuckDB corpus
/// script): $SILT_TEST_DATA_DIR, else the source tree's test/data.
std::string TestDataDir();

/// The DuckDB peer runner: $SILT_DUCKDB_PEER, else the source tree's tools/duckdb-peer/duckdb.
std::string DuckDbPeer();

/// Runs SQL statements in the DuckDB peer and returns what the last statement printed (--quiet)
/// in `format` ("csv", "json", "jsonl" or "table"). Throws std::runtime_error with DuckDB's
/// stderr when a statement fails or the peer cannot start.
std::string RunDuckDb(const std::vector<std::string>& statements, const std::string& format = "csv");

/// Runs the DuckDB peer with --timer and `threads` worker threads and returns the milliseconds
/// each statement took.
std::vector<double> TimeDuckDb(const std::vector<std::string>& statements, int threads);

/// Quotes `text` as a SQL string literal ('it''s').
std::string SqlQuote(const std::string& text);

}  // namespace silt::test
