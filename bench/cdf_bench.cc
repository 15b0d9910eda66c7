// Change data feed reads against full scans: a Delta table with the change data feed on, built
// by many small appends (default 1,000 commits of 10,000 rows), read through
// table_changes(last 10 commits) and through a full-table aggregate in silt; DuckDB reads the
// same data files: those 10 commits' files, then all of them. Both run on T threads (default 2). Each query: best of 3,
// results checked equal, ratios printed. A feed read should cost about its share of the table
// (10 of N commits), not a scan of the whole table.
// Usage: cdf_bench [--commits N] [--rows-per-commit R] [--threads T]

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "silt/api/session_internal.h"
#include "silt/base/thread_pool.h"
#include "silt/error.h"
#include "silt/io/file_system.h"
#include "silt/log/data_file_writer.h"
#include "silt/log/transaction.h"
#include "silt/session.h"
#include "silt/types/schema_json.h"
#include "silt/vector/batch.h"
#include "support/duckdb_peer.h"
#include "support/temp_dir.h"
#include "bench_args.h"
#include "bench_tables.h"

namespace silt {
namespace {

using bench::MillisecondsSince;

constexpr int kRepetitions = 3;
constexpr int64_t kReadCommits = 10;

std::string DuckDbFiles(const std::vector<std::string>& files) {
  std::string list;
  for (const std::string& file : files) {
    if (!list.empty()) list += ", ";
    list += test::SqlQuote(file);
  }
  return "read_parquet([" + list + "])";
}

// The first data line of DuckDB's CSV output, or of silt's.
std::string FirstLine(const std::string& text, bool skip_header) {
  std::istringstream in(text);
  std::string line;
  if (skip_header) std::getline(in, line);
  std::getline(in, line);
  return line;
}

struct Timed {
  double best_ms = std::numeric_limits<double>::infinity();
  std::string result;
};

Timed TimeSilt(Session& session, const std::string& sql) {
  Timed timed;
  for (int i = 0; i < kRepetitions; ++i) {
    auto begin = std::chrono::steady_clock::now();
    StatementOutput output = api::RunStatements(session, sql);
    timed.best_ms = std::min(timed.best_ms, MillisecondsSince(begin));
    timed.result = FirstLine(FormatCsv(output.batches(), /*header=*/false), false);
  }
  return timed;
}

Timed TimeDuckDb(const std::string& sql, int threads) {
  Timed timed;
  std::vector<std::string> statements(kRepetitions, sql);
  std::vector<double> times = test::TimeDuckDb(statements, threads);
  for (double ms : times) timed.best_ms = std::min(timed.best_ms, ms);
  timed.result = FirstLine(test::RunDuckDb({sql}, "csv"), true);
  return timed;
}

int Run(int64_t commits, int64_t rows_per_commit, int threads) {
  test::TempDir warehouse;
  std::shared_ptr<io::FileSystem> fs = io::MakeLocalFileSystem();
  std::string root = warehouse.Child("t");
  auto start = std::chrono::steady_clock::now();
  std::vector<std::string> files = bench::WriteIdNameAmountTable(fs, root, "cdf-bench", commits, rows_per_commit,
                                   /*change_data_feed=*/true);
  int64_t bytes = 0;
  for (const std::string& file : files) bytes += static_cast<int64_t>(fs->Stat(file)->size);
  std::printf("table written: %lld commits, %lld rows, %zu data files, %.1f MB (%.0f ms)\n",
              static_cast<long long>(commits), static_cast<long long>(commits * rows_per_commit),
              files.size(), static_cast<double>(bytes) / 1e6, MillisecondsSince(start));
  std::fflush(stdout);

  SessionOptions options;
  options.warehouse = warehouse.path();
  Session session(options);
  int64_t first = std::max<int64_t>(commits - kReadCommits + 1, 1);
  std::vector<std::string> last_files(files.begin() + (first - 1), files.end());

  Timed silt_changes = TimeSilt(session, "SELECT count(*), sum(amount) FROM table_changes('t', " +
                                             std::to_string(first) + ")");
  Timed silt_full = TimeSilt(session, "SELECT count(*), sum(amount) FROM t");
  Timed duckdb_changes =
      TimeDuckDb("SELECT count(*), sum(amount) FROM " + DuckDbFiles(last_files), threads);
  Timed duckdb_full = TimeDuckDb("SELECT count(*), sum(amount) FROM " + DuckDbFiles(files), threads);

  bool agree = silt_changes.result == duckdb_changes.result && silt_full.result == duckdb_full.result;
  int64_t expected_rows = (commits - first + 1) * rows_per_commit;
  agree = agree && silt_changes.result.rfind(std::to_string(expected_rows) + ",", 0) == 0;
  std::printf("table_changes(last %lld commits): silt %.1f ms, duckdb (their %zu files) %.1f ms, "
              "ratio %.2f\n",
              static_cast<long long>(commits - first + 1), silt_changes.best_ms, last_files.size(),
              duckdb_changes.best_ms, silt_changes.best_ms / duckdb_changes.best_ms);
  std::printf("full table scan: silt %.1f ms, duckdb (all %zu files) %.1f ms, ratio %.2f\n",
              silt_full.best_ms, files.size(), duckdb_full.best_ms,
              silt_full.best_ms / duckdb_full.best_ms);
  std::printf("feed read / full scan: silt %.3f, duckdb %.3f (the feed holds %.1f%% of the rows)\n",
              silt_changes.best_ms / silt_full.best_ms, duckdb_changes.best_ms / duckdb_full.best_ms,
              100.0 * static_cast<double>(commits - first + 1) / static_cast<double>(commits));
  std::printf("results %s: feed [%s] vs [%s], full [%s] vs [%s]\n", agree ? "agree" : "DIFFER",
              silt_changes.result.c_str(), duckdb_changes.result.c_str(), silt_full.result.c_str(),
              duckdb_full.result.c_str());
  return agree ? 0 : 1;
}

}  // namespace
}  // namespace silt

int main(int argc, char** argv) {
  int64_t commits = 1000;
  int64_t rows_per_commit = 10000;
  int threads = 2;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--commits" && i + 1 < argc) {
      commits = std::atoll(argv[++i]);
    } else if (arg == "--rows-per-commit" && i + 1 < argc) {
      rows_per_commit = std::atoll(argv[++i]);
    } else if (arg == "--threads" && i + 1 < argc) {
      threads = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: cdf_bench [--commits N] [--rows-per-commit R] [--threads T]\n");
      return 2;
    }
  }
  if (commits <= 0 || rows_per_commit <= 0 || threads <= 0) {
    std::fprintf(stderr, "--commits, --rows-per-commit and --threads must be positive\n");
    return 2;
  }
  silt::bench::PinSiltThreads(threads);
  try {
    return silt::Run(commits, rows_per_commit, threads);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "cdf_bench failed: %s\n", error.what());
    return 1;
  }
}
