// SQL query speed of silt against DuckDB on the same Parquet data files:
//   t     the Parquet benchmark's table (id 0..N-1, name, city of 1,000 values, amount
//         DECIMAL(18,2), updated_at TIMESTAMP) as a Delta table written by silt's log writer;
//   small N/10 random ids of t (a join's build side);
//   u     N/10 rows with about four versions of each id (a dedupe's input).
// silt runs each query through a Session on the Delta tables; DuckDB reads the same data files
// with read_parquet; both on T threads. Each query: best of 5 on both sides, results checked equal, and
// the ratio silt/DuckDB printed (below 1.0: silt is faster).
// Usage: query_bench [--rows N] [--threads T]   (defaults: 10,000,000 rows, 2 threads)

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <sstream>
#include <optional>
#include <string>
#include <vector>

#include "silt/api/session_internal.h"
#include "silt/base/thread_pool.h"
#include "silt/error.h"
#include "silt/io/file_system.h"
#include "silt/log/table_writer.h"
#include "silt/session.h"
#include "silt/vector/batch.h"
#include "support/duckdb_peer.h"
#include "support/temp_dir.h"
#include "bench_args.h"
#include "bench_columns.h"

namespace silt {
namespace {

using bench::FixedVector;
using bench::Hash;
using bench::LongVector;
using bench::StringVector;
using bench::TimestampVector;

constexpr int64_t kBatchRows = 1 << 20;
// Rows per append (and so per data file): bounds the generator's memory and gives the table
// several files, as a table written over time has.
constexpr int64_t kRowsPerAppend = 2500000;
constexpr int64_t kBaseMicros = 1672531200ll * 1000000;  // 2023-01-01 00:00:00 UTC
constexpr int kRepetitions = 5;

VectorPtr AmountVector(int64_t rows, const std::function<uint64_t(int64_t)>& seed) {
  return FixedVector(DecimalType(18, 2), rows, 16, [&](uint8_t* out, int64_t i) {
    Decimal128 cents = static_cast<Decimal128>(Hash(seed(i)) % 100000000);
    std::memcpy(out, &cents, 16);
  });
}

SchemaPtr MainSchema() {
  return std::make_shared<Schema>(std::vector<Field>{
      {"id", LongType(), true, {}},
      {"name", StringType(), true, {}},
      {"city", StringType(), true, {}},
      {"amount", DecimalType(18, 2), true, {}},
      {"updated_at", TimestampType(), true, {}},
  });
}

// Rows [start, start + count) of t: the same values as parquet_bench's table.
Batch MainRows(const SchemaPtr& schema, int64_t start, int64_t count) {
  std::vector<VectorPtr> columns;
  columns.push_back(LongVector(count, [&](int64_t i) { return start + i; }));
  columns.push_back(StringVector(count, [&](int64_t i, char* scratch) {
    static const char kDigits[] = "0123456789abcdef";
    uint64_t hash = Hash(static_cast<uint64_t>(start + i));
    for (int d = 0; d < 10; ++d) scratch[d] = kDigits[(hash >> (4 * d)) & 15];
    return std::string_view(scratch, 10);
  }));
  columns.push_back(StringVector(count, [&](int64_t i, char* scratch) {
    uint64_t city = Hash(static_cast<uint64_t>(start + i) ^ 0xC17) % 1000;
    std::snprintf(scratch, 32, "city_%04d", static_cast<int>(city));
    return std::string_view(scratch, 9);
  }));
  columns.push_back(AmountVector(count, [&](int64_t i) { return start + i + 7; }));
  columns.push_back(TimestampVector(count, [&](int64_t i) {
    return kBaseMicros +
           static_cast<int64_t>(Hash(static_cast<uint64_t>(start + i) * 3) % 31536000) * 1000000;
  }));
  return Batch(schema, std::move(columns), count);
}

SchemaPtr SmallSchema() {
  return std::make_shared<Schema>(std::vector<Field>{
      {"id", LongType(), true, {}},
      {"label", LongType(), true, {}},
  });
}

// Random ids of t (each matches exactly one row of t), for the join's build side.
Batch SmallRows(const SchemaPtr& schema, int64_t start, int64_t count, int64_t main_rows) {
  std::vector<VectorPtr> columns;
  columns.push_back(LongVector(count, [&](int64_t i) {
    return static_cast<int64_t>(Hash(static_cast<uint64_t>(start + i) ^ 0x5A11) %
                                static_cast<uint64_t>(main_rows));
  }));
  columns.push_back(LongVector(count, [&](int64_t i) { return (start + i) % 100; }));
  return Batch(schema, std::move(columns), count);
}

SchemaPtr UpdatesSchema() {
  return std::make_shared<Schema>(std::vector<Field>{
      {"id", LongType(), true, {}},
      {"amount", DecimalType(18, 2), true, {}},
      {"updated_at", TimestampType(), true, {}},
  });
}

// About four versions per id; updated_at is unique per row, so the newest version is unique.
Batch UpdateRows(const SchemaPtr& schema, int64_t start, int64_t count, int64_t total) {
  uint64_t distinct_ids = static_cast<uint64_t>(std::max<int64_t>(total / 4, 1));
  std::vector<VectorPtr> columns;
  columns.push_back(LongVector(count, [&](int64_t i) {
    return static_cast<int64_t>(Hash(static_cast<uint64_t>(start + i) * 7 + 1) % distinct_ids);
  }));
  columns.push_back(AmountVector(count, [&](int64_t i) { return start + i + 11; }));
  columns.push_back(TimestampVector(count, [&](int64_t i) {
    return kBaseMicros + (Hash(static_cast<uint64_t>(start + i)) % 1000) * 1000000000ll +
           (start + i);
  }));
  return Batch(schema, std::move(columns), count);
}

// Writes a Delta table of `rows` rows at `root`: created empty, then appended in chunks.
void WriteDeltaTable(const std::shared_ptr<io::FileSystem>& fs, const std::string& root,
                     const SchemaPtr& schema, int64_t rows, ThreadPool& pool,
                     const std::function<Batch(int64_t start, int64_t count)>& make_rows) {
  log::DataFileWriterOptions writer;
  writer.parquet.codec = parquet::CompressionCodec::kSnappy;
  writer.parquet.pool = &pool;
  writer.parquet.max_parallelism = pool.num_threads();
  log::CreateTableOptions create;
  create.schema = *schema;
  create.writer = writer;
  log::CreateTable(fs, root, create);
  log::WriteOptions append;
  append.writer = writer;
  for (int64_t chunk = 0; chunk < rows; chunk += kRowsPerAppend) {
    int64_t chunk_rows = std::min(kRowsPerAppend, rows - chunk);
    std::vector<Batch> batches;
    for (int64_t start = chunk; start < chunk + chunk_rows; start += kBatchRows) {
      batches.push_back(make_rows(start, std::min(kBatchRows, chunk + chunk_rows - start)));
    }
    log::AppendToTable(fs, root, batches, append);
  }
}

// DuckDB's view over the table's data files (the live files: every table here is append-only).
std::string DuckDbView(io::FileSystem& fs, const std::string& name, const std::string& root) {
  std::string files;
  for (const io::FileInfo& info : fs.List(root, "", /*recursive=*/true)) {
    bool in_log = info.path.find("/_delta_log/") != std::string::npos;
    bool parquet = info.path.size() > 8 && info.path.ends_with(".parquet");
    if (in_log || !parquet) continue;
    if (!files.empty()) files += ", ";
    files += test::SqlQuote(info.path);
  }
  return "CREATE VIEW " + name + " AS SELECT * FROM read_parquet([" + files + "])";
}

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

std::vector<std::string> SplitFields(const std::string& line) {
  std::vector<std::string> fields;
  size_t start = 0;
  while (true) {
    size_t comma = line.find(',', start);
    fields.push_back(line.substr(start, comma == std::string::npos ? comma : comma - start));
    if (comma == std::string::npos) return fields;
    start = comma + 1;
  }
}

// Fields agree when their text is equal or both are numbers within rounding: Spark's average of
// a decimal is a decimal(22,6) while DuckDB's is a double.
bool FieldsAgree(const std::string& a, const std::string& b) {
  if (a == b) return true;
  char* end_a = nullptr;
  char* end_b = nullptr;
  double x = std::strtod(a.c_str(), &end_a);
  double y = std::strtod(b.c_str(), &end_b);
  if (a.empty() || b.empty() || *end_a != '\0' || *end_b != '\0') return false;
  return std::fabs(x - y) <= 1e-6 + 1e-9 * std::max(std::fabs(x), std::fabs(y));
}

// Compares silt's rows (CSV, no header) with DuckDB's (CSV with a header), ignoring row order.
bool ResultsAgree(std::vector<std::string> silt_rows, std::vector<std::string> duckdb_rows) {
  if (!duckdb_rows.empty()) duckdb_rows.erase(duckdb_rows.begin());  // the header
  if (silt_rows.size() != duckdb_rows.size()) return false;
  std::sort(silt_rows.begin(), silt_rows.end());
  std::sort(duckdb_rows.begin(), duckdb_rows.end());
  for (size_t r = 0; r < silt_rows.size(); ++r) {
    std::vector<std::string> a = SplitFields(silt_rows[r]);
    std::vector<std::string> b = SplitFields(duckdb_rows[r]);
    if (a.size() != b.size()) return false;
    for (size_t f = 0; f < a.size(); ++f) {
      if (!FieldsAgree(a[f], b[f])) return false;
    }
  }
  return true;
}

double MillisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

struct Query {
  const char* name;
  std::string sql;
};

// Runs `silt sql --warehouse W -e SQL` (output discarded) and returns its peak resident set in
// MB, or nullopt when the binary is missing or fails.
std::optional<double> PeakMegabytesOfShell(const std::string& silt_binary, const std::string& warehouse,
                                           const std::string& sql) {
  if (silt_binary.empty() || ::access(silt_binary.c_str(), X_OK) != 0) return std::nullopt;
  pid_t child = ::fork();
  if (child < 0) return std::nullopt;
  if (child == 0) {
    int devnull = ::open("/dev/null", O_WRONLY);
    if (devnull >= 0) ::dup2(devnull, STDOUT_FILENO);
    ::execl(silt_binary.c_str(), silt_binary.c_str(), "sql", "--warehouse", warehouse.c_str(), "-e",
            sql.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  struct rusage usage {};
  if (::wait4(child, &status, 0, &usage) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return std::nullopt;
  }
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

// Writes the benchmark's tables t, small and u under `warehouse` (managed tables of a session
// whose warehouse it is).
void WriteTables(const std::shared_ptr<io::FileSystem>& shared_fs, const test::TempDir& warehouse,
                 int64_t rows, int64_t side_rows, int threads) {
  ThreadPool pool(static_cast<size_t>(threads));
  SchemaPtr main_schema = MainSchema();
  WriteDeltaTable(
      shared_fs, warehouse.Child("t"), main_schema, rows, pool,
      [&](int64_t begin, int64_t count) { return MainRows(main_schema, begin, count); });
  SchemaPtr small_schema = SmallSchema();
  WriteDeltaTable(
      shared_fs, warehouse.Child("small"), small_schema, side_rows, pool,
      [&](int64_t begin, int64_t count) { return SmallRows(small_schema, begin, count, rows); });
  SchemaPtr updates_schema = UpdatesSchema();
  WriteDeltaTable(shared_fs, warehouse.Child("u"), updates_schema, side_rows, pool,
                  [&](int64_t begin, int64_t count) {
                    return UpdateRows(updates_schema, begin, count, side_rows);
                  });
}

int Run(int64_t rows, int threads, const std::string& silt_binary) {
  int64_t side_rows = std::max<int64_t>(rows / 10, 1);
  test::TempDir warehouse;
  auto fs = io::MakeLocalFileSystem();
  std::shared_ptr<io::FileSystem> shared_fs = std::move(fs);

  // The tables are written by a child process: this one stays small, so that the `silt sql`
  // processes it starts below (whose peak memory is measured) do not begin as copies of a large
  // parent (a forked child's peak resident set counts the pages it inherited).
  auto start = std::chrono::steady_clock::now();
  std::fflush(stdout);
  pid_t writer = ::fork();
  if (writer < 0) {
    std::fprintf(stderr, "fork failed\n");
    return 1;
  }
  if (writer == 0) {
    int code = 0;
    try {
      WriteTables(shared_fs, warehouse, rows, side_rows, threads);
    } catch (const std::exception& error) {
      std::fprintf(stderr, "writing the tables failed: %s\n", error.what());
      code = 1;
    }
    std::fflush(stderr);
    ::_exit(code);  // no destructors: the parent owns the warehouse folder
  }
  int writer_status = 0;
  if (::waitpid(writer, &writer_status, 0) != writer || !WIFEXITED(writer_status) ||
      WEXITSTATUS(writer_status) != 0) {
    std::fprintf(stderr, "the table writer failed\n");
    return 1;
  }
  std::printf("tables written: t %lld rows, small and u %lld rows each (%.0f ms)\n",
              static_cast<long long>(rows), static_cast<long long>(side_rows),
              MillisecondsSince(start));
  std::fflush(stdout);

  std::vector<Query> queries = {
      {"filtered aggregate",
       "SELECT count(*) AS n, sum(amount) AS total FROM t "
       "WHERE city = 'city_0017' AND amount > 100"},
      {"group by city",
       "SELECT city, count(*) AS n, sum(amount) AS total, avg(amount) AS mean FROM t "
       "GROUP BY city"},
      {"join 1/10 against t",
       "SELECT count(*) AS n, sum(b.amount) AS total FROM small s JOIN t b ON s.id = b.id"},
      {"dedupe (QUALIFY row_number)",
       "SELECT count(*) AS n, sum(amount) AS total FROM (SELECT * FROM u QUALIFY "
       "row_number() OVER (PARTITION BY id ORDER BY updated_at DESC) = 1) AS latest"},
  };

  // Memory: each query in a fresh `silt sql` process, whose peak resident set is the query's
  // alone; measured first, while this process is still small.
  for (const Query& query : queries) {
    std::optional<double> megabytes = PeakMegabytesOfShell(silt_binary, warehouse.path(), query.sql);
    if (megabytes) {
      std::printf("%s: peak memory of silt sql %.0f MB\n", query.name, *megabytes);
    } else {
      std::printf("%s: peak memory not measured (no silt binary beside the bench)\n", query.name);
    }
  }
  std::fflush(stdout);

  std::vector<std::string> views = {DuckDbView(*shared_fs, "t", warehouse.Child("t")),
                                    DuckDbView(*shared_fs, "small", warehouse.Child("small")),
                                    DuckDbView(*shared_fs, "u", warehouse.Child("u"))};

  SessionOptions options;
  options.warehouse = warehouse.path();
  Session session(options);
  bool all_agree = true;
  for (const Query& query : queries) {
    double silt_best = std::numeric_limits<double>::infinity();
    StatementOutput output;
    for (int i = 0; i < kRepetitions; ++i) {
      auto begin = std::chrono::steady_clock::now();
      output = api::RunStatements(session, query.sql);
      silt_best = std::min(silt_best, MillisecondsSince(begin));
    }
    std::vector<std::string> statements = views;
    for (int i = 0; i < kRepetitions; ++i) statements.push_back(query.sql);
    std::vector<double> times = test::TimeDuckDb(statements, threads);
    if (times.size() != statements.size()) {
      std::fprintf(stderr, "DuckDB reported %zu timings, expected %zu\n", times.size(),
                   statements.size());
      return 1;
    }
    double duckdb_best =
        *std::min_element(times.begin() + static_cast<long>(views.size()), times.end());

    std::vector<std::string> check = views;
    check.push_back(query.sql);
    std::string duckdb_result = test::RunDuckDb(check, "csv");
    std::string silt_result = FormatCsv(output.batches(), /*header=*/false);
    bool agree = ResultsAgree(SplitLines(silt_result), SplitLines(duckdb_result));
    all_agree = all_agree && agree;
    std::printf("%s: silt %.0f ms, duckdb %.0f ms, ratio %.2f%s\n", query.name, silt_best,
                duckdb_best, duckdb_best > 0 ? silt_best / duckdb_best : 0.0,
                agree ? "" : "  RESULTS DIFFER");
    if (!agree) {
      std::printf("  silt:\n%s  duckdb:\n%s", silt_result.substr(0, 2000).c_str(),
                  duckdb_result.substr(0, 2000).c_str());
    }
    std::fflush(stdout);
  }

  return all_agree ? 0 : 1;
}

}  // namespace
}  // namespace silt

int main(int argc, char** argv) {
  std::optional<silt::bench::RowsAndThreads> arguments =
      silt::bench::ParseRowsAndThreads(argc, argv, "query_bench");
  if (!arguments) return 2;
  const auto [rows, threads] = *arguments;
  silt::bench::PinSiltThreads(threads);
  try {
    // The silt binary sits one folder above the benchmark (build/silt, build/bench/query_bench).
    std::string self = argv[0];
    size_t slash = self.rfind('/');
    std::string bench_dir = slash == std::string::npos ? "." : self.substr(0, slash);
    return silt::Run(rows, threads, bench_dir + "/../silt");
  } catch (const std::exception& error) {
    std::fprintf(stderr, "query_bench failed: %s\n", error.what());
    return 1;
  }
}
