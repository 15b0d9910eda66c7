// TPC-H's 22 queries in silt and DuckDB on the same data: silt's TPC-H generator writes the
// tables once into a folder (kept for later runs when --data names one), silt runs each query
// through a Session on the Delta tables, DuckDB reads the same Parquet data files with
// read_parquet; both on T threads. Prints each query's best time of R runs on both sides, the
// ratio silt/DuckDB (below 1.0: silt is faster), silt's CPU time (user + system of the best run,
// which a loaded machine disturbs less than wall time), whether the row counts agree, and the
// geometric means.
// Usage: tpch_bench [--scale SF] [--threads T] [--repetitions R] [--data DIR] [--queries N,M]
//        (defaults: scale factor 1, 2 threads, 3 repetitions, a temporary folder, all 22)
// Measured numbers and what keeps the slowest queries slow: docs/tpch.md.

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "bench_args.h"
#include "silt/api/session_internal.h"
#include "silt/error.h"
#include "silt/io/file_system.h"
#include "silt/session.h"
#include "support/duckdb_peer.h"
#include "support/temp_dir.h"
#include "tools/tpch/tpch_generator.h"

namespace silt {
namespace {

struct Options {
  double scale = 1.0;
  int threads = 2;
  int repetitions = 3;
  std::string data;  ///< empty: a temporary folder
  std::vector<int> queries;  ///< empty: all 22
};

// "7,12" as {7, 12}; nullopt unless every item is a query number.
std::optional<std::vector<int>> ParseQueryList(const std::string& text) {
  std::vector<int> queries;
  std::stringstream items(text);
  std::string item;
  while (std::getline(items, item, ',')) {
    char* end = nullptr;
    long number = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || number < 1 || number > 22) return std::nullopt;
    queries.push_back(static_cast<int>(number));
  }
  if (queries.empty()) return std::nullopt;
  return queries;
}

std::optional<Options> ParseOptions(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    bool has_value = i + 1 < argc;
    if (arg == "--scale" && has_value) {
      options.scale = std::atof(argv[++i]);
    } else if (arg == "--threads" && has_value) {
      options.threads = std::atoi(argv[++i]);
    } else if (arg == "--repetitions" && has_value) {
      options.repetitions = std::atoi(argv[++i]);
    } else if (arg == "--data" && has_value) {
      options.data = argv[++i];
    } else if (arg == "--queries" && has_value) {
      std::optional<std::vector<int>> queries = ParseQueryList(argv[++i]);
      if (!queries) {
        std::fprintf(stderr, "--queries takes query numbers from 1 to 22, separated by commas\n");
        return std::nullopt;
      }
      options.queries = std::move(*queries);
    } else {
      std::fprintf(stderr,
                   "usage: tpch_bench [--scale SF] [--threads T] [--repetitions R] [--data DIR] "
                   "[--queries N,M]\n");
      return std::nullopt;
    }
  }
  if (options.scale <= 0 || options.threads <= 0 || options.repetitions <= 0) {
    std::fprintf(stderr, "--scale, --threads and --repetitions must be positive\n");
    return std::nullopt;
  }
  return options;
}

double MillisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// User and system CPU time of this process so far, in milliseconds.
double ProcessCpuMilliseconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto ms = [](const timeval& t) { return t.tv_sec * 1000.0 + t.tv_usec / 1000.0; };
  return ms(usage.ru_utime) + ms(usage.ru_stime);
}

std::string ReadQuery(int number) {
  char name[16];
  std::snprintf(name, sizeof(name), "q%02d.sql", number);
  std::ifstream in(std::string(SILT_TPCH_QUERY_DIR) + "/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// DuckDB's view of a Delta table written in one commit: its data files.
std::string DuckDbView(io::FileSystem& fs, const std::string& name, const std::string& root) {
  std::string files;
  for (const io::FileInfo& info : fs.List(root, "", /*recursive=*/true)) {
    if (info.path.find("/_delta_log/") != std::string::npos || !info.path.ends_with(".parquet")) {
      continue;
    }
    if (!files.empty()) files += ", ";
    files += test::SqlQuote(info.path);
  }
  return "CREATE VIEW " + name + " AS SELECT * FROM read_parquet([" + files + "])";
}

int64_t CsvRows(const std::string& csv) {
  // One header line; no TPC-H answer holds a line break in a value.
  int64_t lines = std::count(csv.begin(), csv.end(), '\n');
  return std::max<int64_t>(0, lines - 1);
}

int Run(const Options& options) {
  std::unique_ptr<test::TempDir> temporary;
  std::string folder = options.data;
  if (folder.empty()) {
    temporary = std::make_unique<test::TempDir>();
    folder = temporary->path();
  }
  std::shared_ptr<io::FileSystem> fs = io::MakeLocalFileSystem();
  bool present = fs->Stat(folder + "/lineitem/_delta_log/00000000000000000000.json").has_value();
  if (!present) {
    auto start = std::chrono::steady_clock::now();
    tpch::GenerateOptions generate;
    generate.scale_factor = options.scale;
    for (const auto& table : tpch::Generate(fs, folder, generate)) {
      std::printf("%-9s %10lld rows\n", table.name.c_str(), static_cast<long long>(table.rows));
    }
    std::printf("scale factor %g generated in %.1f s\n", options.scale,
                MillisecondsSince(start) / 1000);
  } else {
    std::printf("using the tables in %s\n", folder.c_str());
  }
  std::fflush(stdout);

  std::vector<std::string> views;
  for (const std::string& name : tpch::TableNames()) {
    views.push_back(DuckDbView(*fs, name, folder + "/" + name));
  }
  SessionOptions session_options;
  session_options.warehouse = folder;
  Session session(session_options);

  double silt_log_sum = 0, duckdb_log_sum = 0;
  int timed = 0;
  bool all_agree = true;
  std::printf("%-5s %12s %12s %8s %13s\n", "query", "silt ms", "duckdb ms", "ratio", "silt cpu ms");
  std::vector<int> queries = options.queries;
  if (queries.empty()) {
    for (int number = 1; number <= 22; ++number) queries.push_back(number);
  }
  for (int number : queries) {
    std::string sql = ReadQuery(number);
    double silt_best = std::numeric_limits<double>::infinity();
    double silt_cpu_best = std::numeric_limits<double>::infinity();
    int64_t silt_rows = -1;
    std::string silt_error;
    for (int i = 0; i < options.repetitions && silt_error.empty(); ++i) {
      auto begin = std::chrono::steady_clock::now();
      double cpu_begin = ProcessCpuMilliseconds();
      try {
        StatementOutput output = api::RunStatements(session, sql);
        silt_best = std::min(silt_best, MillisecondsSince(begin));
        silt_cpu_best = std::min(silt_cpu_best, ProcessCpuMilliseconds() - cpu_begin);
        silt_rows = output.num_rows();
      } catch (const Error& error) {
        silt_error = error.what();
      }
    }
    std::vector<std::string> statements = views;
    for (int i = 0; i < options.repetitions; ++i) statements.push_back(sql);
    std::vector<double> times = test::TimeDuckDb(statements, options.threads);
    double duckdb_best =
        times.size() == statements.size()
            ? *std::min_element(times.begin() + static_cast<long>(views.size()), times.end())
            : std::numeric_limits<double>::quiet_NaN();
    std::vector<std::string> check = views;
    check.push_back(sql);
    int64_t duckdb_rows = CsvRows(test::RunDuckDb(check, "csv"));
    if (!silt_error.empty()) {
      all_agree = false;
      std::printf("Q%02d   %12s %12.0f   failed: %s\n", number, "-", duckdb_best,
                  silt_error.c_str());
      continue;
    }
    bool agree = silt_rows == duckdb_rows;
    all_agree = all_agree && agree;
    double ratio = duckdb_best > 0 ? silt_best / duckdb_best : 0.0;
    std::printf("Q%02d   %12.0f %12.0f %8.2f %13.0f%s\n", number, silt_best, duckdb_best, ratio,
                silt_cpu_best, agree ? "" : "  ROW COUNTS DIFFER");
    std::fflush(stdout);
    if (silt_best > 0 && duckdb_best > 0) {
      silt_log_sum += std::log(silt_best);
      duckdb_log_sum += std::log(duckdb_best);
      ++timed;
    }
  }
  if (timed > 0) {
    double silt_mean = std::exp(silt_log_sum / timed),
           duckdb_mean = std::exp(duckdb_log_sum / timed);
    std::printf("geometric mean: silt %.0f ms, duckdb %.0f ms, ratio %.2f (%d queries)\n",
                silt_mean, duckdb_mean, silt_mean / duckdb_mean, timed);
  }
  return all_agree ? 0 : 1;
}

}  // namespace
}  // namespace silt

int main(int argc, char** argv) {
  std::optional<silt::Options> options = silt::ParseOptions(argc, argv);
  if (!options) return 2;
  silt::bench::PinSiltThreads(options->threads);
  return silt::Run(*options);
}
