// MERGE speed of silt against DuckDB doing the equivalent work on the same Parquet files:
//   t   N rows (id unique, name, city, amount DECIMAL(18,2), updated_at TIMESTAMP), written by
//       silt's log writer in three layouts: about 40 data files (a table appended over time), 4
//       files, and one file (what OPTIMIZE makes of it: Delta's target file size is 1 GB), the
//       last two measuring how MERGE spreads one large file over the threads;
//   s   a source of N/10 (and N/100) rows: 90% ids of t (half with a changed amount, half
//       identical rows) and 10% new ids.
// silt runs, through a Session,
//   MERGE INTO t USING s ON t.id = s.id
//   WHEN MATCHED AND t.amount <> s.amount THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *
// on a fresh copy of t for each timed run, copy-on-write (the default) and with deletion vectors.
// DuckDB (on the same T threads as silt) reads the same files and writes, as Parquet, what each
// variant must write, in the fastest formulation we know of:
//   copy-on-write: one COPY of `t ANTI JOIN s UNION ALL s`. It is exact for this data: a matched
//     source row either changes the amount (the row UPDATE SET * writes is the source row) or
//     repeats its target row exactly (the kept row equals it), and the matched ids are spread
//     by a stride over the whole id range, so every target file holds a changed row and MERGE
//     rewrites all of them. An earlier form (a CASE per column over `t LEFT JOIN s`, restricted
//     to the files holding a changed row) wrote the same rows 1.5-2x slower.
//   deletion vectors: the changed and new rows, plus the (file, row number) of each replaced row.
// Each variant: best of 3 on both sides, silt's result (row count and sum of amount after the
// MERGE, updated and inserted counts of its result row) checked against DuckDB's computation,
// and the ratio silt/DuckDB printed (below 1.0: silt is faster).
// Usage: merge_bench [--rows N] [--threads T]   (defaults: 10,000,000 rows, 2 threads)
//
// One run at the defaults, 2026-12-02, on the 2-core development machine while it was shared
// (load average 10-15, so every time is several times a quiet run's; the ratios are what to
// read). Every variant's results agreed with DuckDB's.
//   target files  variant                          silt ms   DuckDB ms  ratio
//   40            copy-on-write, source N/10         25900      37138   0.70
//   40            copy-on-write, source N/100        16349      25000   0.65
//   40            deletion vectors, source N/10      10419      15495   0.67
//   40            deletion vectors, source N/100      3364       6358   0.53
//   4             copy-on-write, source N/10         19385      22699   0.85
//   4             copy-on-write, source N/100        16276      14696   1.11
//   4             deletion vectors, source N/10       5690       9270   0.61
//   4             deletion vectors, source N/100      3315       4227   0.78
//   1             copy-on-write, source N/10         20982      27195   0.77
//   1             copy-on-write, source N/100        14142      15383   0.92
//   1             deletion vectors, source N/10       5081       8667   0.59
//   1             deletion vectors, source N/100      2659       3275   0.81
// Before MERGE read and rewrote a file's row groups in parallel, the one-file copy-on-write
// MERGE of N/10 took 9.5 s against DuckDB's 2.7 s on a quiet machine (one thread per file).

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <numeric>
#include <sstream>
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
// The target layouts: appended in this many chunks, one data file each.
constexpr int64_t kTargetLayouts[] = {40, 4, 1};
constexpr int64_t kBaseMicros = 1672531200ll * 1000000;     // 2023-01-01 00:00:00 UTC
constexpr int64_t kSourceMicros = 1748736000ll * 1000000;   // 2025-06-01 00:00:00 UTC
constexpr int kRepetitions = 3;

VectorPtr DecimalVector(int64_t rows, const std::function<Decimal128(int64_t)>& cents) {
  return FixedVector(DecimalType(18, 2), rows, 16, [&](uint8_t* out, int64_t i) {
    Decimal128 v = cents(i);
    std::memcpy(out, &v, 16);
  });
}

SchemaPtr RowSchema() {
  return std::make_shared<Schema>(std::vector<Field>{
      {"id", LongType(), true, {}},
      {"name", StringType(), true, {}},
      {"city", StringType(), true, {}},
      {"amount", DecimalType(18, 2), true, {}},
      {"updated_at", TimestampType(), true, {}},
  });
}

// The target's column values of row `id` (a source row with that id repeats them, bar the
// changed amount and time).
std::string_view NameOf(int64_t id, char* scratch) {
  static const char kDigits[] = "0123456789abcdef";
  uint64_t hash = Hash(static_cast<uint64_t>(id));
  for (int d = 0; d < 10; ++d) scratch[d] = kDigits[(hash >> (4 * d)) & 15];
  return std::string_view(scratch, 10);
}
std::string_view CityOf(int64_t id, char* scratch) {
  uint64_t city = Hash(static_cast<uint64_t>(id) ^ 0xC17) % 1000;
  std::snprintf(scratch, 32, "city_%04d", static_cast<int>(city));
  return std::string_view(scratch, 9);
}
Decimal128 AmountOf(int64_t id) {
  return static_cast<Decimal128>(Hash(static_cast<uint64_t>(id) + 7) % 100000000);
}
int64_t UpdatedAtOf(int64_t id) {
  return kBaseMicros +
         static_cast<int64_t>(Hash(static_cast<uint64_t>(id) * 3) % 31536000) * 1000000;
}

// Rows of t with ids [start, start + count).
Batch TargetRows(const SchemaPtr& schema, int64_t start, int64_t count) {
  std::vector<VectorPtr> columns;
  columns.push_back(LongVector(count, [&](int64_t i) { return start + i; }));
  columns.push_back(StringVector(count, [&](int64_t i, char* s) { return NameOf(start + i, s); }));
  columns.push_back(StringVector(count, [&](int64_t i, char* s) { return CityOf(start + i, s); }));
  columns.push_back(DecimalVector(count, [&](int64_t i) { return AmountOf(start + i); }));
  columns.push_back(TimestampVector(count, [&](int64_t i) { return UpdatedAtOf(start + i); }));
  return Batch(schema, std::move(columns), count);
}

// The source's shape: its first `matched` rows take ids of t, spread over all of t's files by a
// stride coprime to the target size (so the ids are distinct); even ones change the amount by
// one cent and the time, odd ones repeat the target row exactly. The rest are new ids (>= N).
struct SourceShape {
  int64_t target_rows;
  int64_t rows;
  int64_t matched;
  int64_t stride;

  SourceShape(int64_t target, int64_t source) : target_rows(target), rows(source) {
    matched = std::min(target, source * 9 / 10);
    stride = 7919;
    while (std::gcd(stride, target) != 1) ++stride;
  }
  bool IsMatched(int64_t row) const { return row < matched; }
  bool IsChanged(int64_t row) const { return row < matched && row % 2 == 0; }
  int64_t Id(int64_t row) const {
    return IsMatched(row) ? static_cast<int64_t>((static_cast<__int128>(row) * stride) %
                                                 target_rows)
                          : target_rows + (row - matched);
  }
};

Batch SourceRows(const SchemaPtr& schema, const SourceShape& shape, int64_t start, int64_t count) {
  std::vector<VectorPtr> columns;
  columns.push_back(LongVector(count, [&](int64_t i) { return shape.Id(start + i); }));
  columns.push_back(
      StringVector(count, [&](int64_t i, char* s) { return NameOf(shape.Id(start + i), s); }));
  columns.push_back(
      StringVector(count, [&](int64_t i, char* s) { return CityOf(shape.Id(start + i), s); }));
  columns.push_back(DecimalVector(count, [&](int64_t i) {
    int64_t row = start + i;
    return AmountOf(shape.Id(row)) + (shape.IsChanged(row) ? 1 : 0);
  }));
  columns.push_back(TimestampVector(count, [&](int64_t i) {
    int64_t row = start + i;
    return shape.IsMatched(row) && !shape.IsChanged(row) ? UpdatedAtOf(shape.Id(row))
                                                         : kSourceMicros + row * 1000000;
  }));
  return Batch(schema, std::move(columns), count);
}

// Writes a Delta table of `rows` rows at `root`: created empty, then appended in `files` chunks.
void WriteDeltaTable(const std::shared_ptr<io::FileSystem>& fs, const std::string& root,
                     const SchemaPtr& schema, int64_t rows, int64_t files, ThreadPool& pool,
                     const log::StringMap& properties,
                     const std::function<Batch(int64_t start, int64_t count)>& make_rows) {
  log::DataFileWriterOptions writer;
  writer.parquet.codec = parquet::CompressionCodec::kSnappy;
  writer.parquet.pool = &pool;
  writer.parquet.max_parallelism = pool.num_threads();
  log::CreateTableOptions create;
  create.schema = *schema;
  create.configuration = properties;
  create.writer = writer;
  log::CreateTable(fs, root, create);
  log::WriteOptions append;
  append.writer = writer;
  int64_t rows_per_append = std::max<int64_t>((rows + files - 1) / files, 1);
  for (int64_t chunk = 0; chunk < rows; chunk += rows_per_append) {
    int64_t chunk_rows = std::min(rows_per_append, rows - chunk);
    std::vector<Batch> batches;
    for (int64_t start = chunk; start < chunk + chunk_rows; start += kBatchRows) {
      batches.push_back(make_rows(start, std::min(kBatchRows, chunk + chunk_rows - start)));
    }
    log::AppendToTable(fs, root, batches, append);
  }
}

// The table's data files (every table here is freshly appended, so all of them are live).
std::string DataFileList(io::FileSystem& fs, const std::string& root) {
  std::string files;
  for (const io::FileInfo& info : fs.List(root, "", /*recursive=*/true)) {
    bool in_log = info.path.find("/_delta_log/") != std::string::npos;
    bool parquet = info.path.size() > 8 && info.path.ends_with(".parquet");
    if (in_log || !parquet) continue;
    if (!files.empty()) files += ", ";
    files += test::SqlQuote(info.path);
  }
  return "[" + files + "]";
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

double MillisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// The single CSV row of a one-row result (silt: no header; DuckDB: a header first).
std::vector<std::string> OnlyRow(const std::string& csv, bool has_header) {
  std::vector<std::string> lines = SplitLines(csv);
  size_t expected = has_header ? 2 : 1;
  if (lines.size() != expected) return {};
  return SplitFields(lines.back());
}

// Whether the table's latest commit added files with deletion vectors: the deletion-vector
// variant only measures what it claims when silt's MERGE really wrote them.
bool LatestCommitHasDeletionVectors(const std::string& root) {
  std::filesystem::path latest;
  for (const auto& entry : std::filesystem::directory_iterator(root + "/_delta_log")) {
    if (entry.path().extension() == ".json" && entry.path() > latest) latest = entry.path();
  }
  std::ifstream in(latest);
  std::stringstream text;
  text << in.rdbuf();
  return text.str().find("\"deletionVector\":{") != std::string::npos;
}

const char* kMerge =
    "MERGE INTO t USING s ON t.id = s.id "
    "WHEN MATCHED AND t.amount <> s.amount THEN UPDATE SET * "
    "WHEN NOT MATCHED THEN INSERT *";

struct Variant {
  const char* name;
  bool deletion_vectors;
  const std::string* source_root;
  int64_t source_rows;
};

int Run(int64_t rows, int threads) {
  test::TempDir bases;
  test::TempDir outputs;
  auto local_fs = io::MakeLocalFileSystem();
  std::shared_ptr<io::FileSystem> fs = std::move(local_fs);
  ThreadPool pool(static_cast<size_t>(threads));
  SchemaPtr schema = RowSchema();

  auto start = std::chrono::steady_clock::now();
  SourceShape large(rows, std::max<int64_t>(rows / 10, 1));
  SourceShape small(rows, std::max<int64_t>(rows / 100, 1));
  std::string large_root = bases.Child("s_large");
  std::string small_root = bases.Child("s_small");
  WriteDeltaTable(fs, large_root, schema, large.rows, 1, pool, {},
                  [&](int64_t b, int64_t c) { return SourceRows(schema, large, b, c); });
  WriteDeltaTable(fs, small_root, schema, small.rows, 1, pool, {},
                  [&](int64_t b, int64_t c) { return SourceRows(schema, small, b, c); });
  std::printf("sources written: %lld and %lld rows (%.0f ms)\n",
              static_cast<long long>(large.rows), static_cast<long long>(small.rows),
              MillisecondsSince(start));
  std::fflush(stdout);

  bool all_agree = true;
  for (int64_t target_files_count : kTargetLayouts) {
    // Each layout's targets live only while it is measured.
    test::TempDir layout;
    start = std::chrono::steady_clock::now();
    std::string cow_base = layout.Child("t_cow");
    std::string dv_base = layout.Child("t_dv");
    auto target_rows = [&](int64_t begin, int64_t count) {
      return TargetRows(schema, begin, count);
    };
    WriteDeltaTable(fs, cow_base, schema, rows, target_files_count, pool, {}, target_rows);
    WriteDeltaTable(fs, dv_base, schema, rows, target_files_count, pool,
                    {{"delta.enableDeletionVectors", "true"}}, target_rows);
    std::printf("target written: %lld rows in %lld files (%.0f ms)\n", static_cast<long long>(rows),
                static_cast<long long>(target_files_count), MillisecondsSince(start));
    std::fflush(stdout);

    std::string target_files = DataFileList(*fs, cow_base);
    std::vector<Variant> variants = {
        {"copy-on-write, source N/10", false, &large_root, large.rows},
        {"copy-on-write, source N/100", false, &small_root, small.rows},
        {"deletion vectors, source N/10", true, &large_root, large.rows},
        {"deletion vectors, source N/100", true, &small_root, small.rows},
    };

    for (const Variant& variant : variants) {
      // silt: each run on a fresh copy of the target in a fresh warehouse; only the MERGE timed.
      double silt_best = std::numeric_limits<double>::infinity();
      std::vector<std::string> merge_row;
      std::vector<std::string> after_row;
      bool wrote_deletion_vectors = false;
      for (int i = 0; i < kRepetitions; ++i) {
        test::TempDir warehouse;
        std::filesystem::copy(variant.deletion_vectors ? dv_base : cow_base, warehouse.Child("t"),
                              std::filesystem::copy_options::recursive);
        std::filesystem::copy(*variant.source_root, warehouse.Child("s"),
                              std::filesystem::copy_options::recursive);
        SessionOptions options;
        options.warehouse = warehouse.path();
        Session session(options);
        auto begin = std::chrono::steady_clock::now();
        StatementOutput output = api::RunStatements(session, kMerge);
        silt_best = std::min(silt_best, MillisecondsSince(begin));
        if (i == 0) {
          merge_row = OnlyRow(FormatCsv(output.batches(), /*header=*/false), false);
          after_row = OnlyRow(
              FormatCsv(
                  api::RunStatements(session, "SELECT count(*), sum(amount) FROM t").batches(),
                  false),
              false);
          wrote_deletion_vectors = LatestCommitHasDeletionVectors(warehouse.Child("t"));
        }
      }

      // DuckDB: the same inputs, and the files this variant has to write.
      std::string source_files = DataFileList(*fs, *variant.source_root);
      std::vector<std::string> views = {
          "CREATE OR REPLACE VIEW t AS SELECT * FROM read_parquet(" + target_files + ")",
          "CREATE OR REPLACE VIEW t_rows AS SELECT * FROM read_parquet(" + target_files +
              ", filename = true, file_row_number = true)",
          "CREATE OR REPLACE VIEW s AS SELECT * FROM read_parquet(" + source_files + ")",
      };
      std::string out = outputs.path() + "/";
      std::vector<std::string> work;
      if (!variant.deletion_vectors) {
        work.push_back(
            "COPY (SELECT t.* FROM t ANTI JOIN s ON t.id = s.id UNION ALL "
            "SELECT * FROM s) TO " +
            test::SqlQuote(out + "cow.parquet") + " (FORMAT PARQUET, COMPRESSION snappy)");
      } else {
        work.push_back(
            "COPY (SELECT s.* FROM s LEFT JOIN t ON s.id = t.id "
            "WHERE t.id IS NULL OR t.amount <> s.amount) TO " +
            test::SqlQuote(out + "dv_rows.parquet") + " (FORMAT PARQUET, COMPRESSION snappy)");
        work.push_back(
            "COPY (SELECT t.filename, t.file_row_number FROM t_rows AS t JOIN s ON t.id = s.id "
            "WHERE t.amount <> s.amount) TO " +
            test::SqlQuote(out + "dv_positions.parquet") + " (FORMAT PARQUET, COMPRESSION snappy)");
      }
      std::vector<std::string> statements = views;
      for (int i = 0; i < kRepetitions; ++i) {
        statements.insert(statements.end(), work.begin(), work.end());
      }
      std::vector<double> times = test::TimeDuckDb(statements, threads);
      if (times.size() != statements.size()) {
        std::fprintf(stderr, "DuckDB reported %zu timings, expected %zu\n", times.size(),
                     statements.size());
        return 1;
      }
      double duckdb_best = std::numeric_limits<double>::infinity();
      for (int i = 0; i < kRepetitions; ++i) {
        auto first = times.begin() + static_cast<long>(views.size() + i * work.size());
        duckdb_best = std::min(duckdb_best,
                               std::accumulate(first, first + static_cast<long>(work.size()), 0.0));
      }

      // The expected outcome: rows and sum of amount after the MERGE, updated and inserted rows.
      std::vector<std::string> check = views;
      check.push_back(
          "SELECT count(*) AS n, sum(CASE WHEN s.id IS NOT NULL AND (t.id IS NULL OR "
          "t.amount <> s.amount) THEN s.amount ELSE t.amount END) AS total, "
          "count(*) FILTER (WHERE t.id IS NOT NULL AND s.id IS NOT NULL AND t.amount <> s.amount) "
          "AS updated, count(*) FILTER (WHERE t.id IS NULL) AS inserted "
          "FROM t FULL OUTER JOIN s ON t.id = s.id");
      std::vector<std::string> expected = OnlyRow(test::RunDuckDb(check, "csv"), true);
      // silt's MERGE row: num_affected_rows, num_updated_rows, num_deleted_rows, num_inserted_rows.
      std::vector<std::string> actual;
      if (after_row.size() == 2 && merge_row.size() == 4) {
        actual = {after_row[0], after_row[1], merge_row[1], merge_row[3]};
      }
      bool agree = expected.size() == 4 && actual == expected &&
                   wrote_deletion_vectors == variant.deletion_vectors;
      if (!variant.deletion_vectors && expected.size() == 4) {
        // DuckDB's copy-on-write output holds the merged table: its rows and sum(amount).
        std::vector<std::string> written = OnlyRow(
            test::RunDuckDb({"SELECT count(*) AS n, sum(amount) AS total FROM read_parquet(" +
                             test::SqlQuote(out + "cow.parquet") + ")"},
                            "csv"),
            true);
        agree = agree && written == std::vector<std::string>{expected[0], expected[1]};
      }
      all_agree = all_agree && agree;
      std::printf(
          "%lld target files, %s (%lld source rows): silt %.0f ms, duckdb %.0f ms, "
          "ratio %.2f%s\n",
          static_cast<long long>(target_files_count), variant.name,
          static_cast<long long>(variant.source_rows), silt_best, duckdb_best,
          duckdb_best > 0 ? silt_best / duckdb_best : 0.0, agree ? "" : "  RESULTS DIFFER");
      auto join = [](const std::vector<std::string>& fields) {
        std::string text;
        for (const std::string& field : fields) text += (text.empty() ? "" : ",") + field;
        return text;
      };
      std::printf(
          "  rows after, sum(amount), updated, inserted: silt %s, duckdb %s; silt wrote %s\n",
          join(actual).c_str(), join(expected).c_str(),
          wrote_deletion_vectors ? "deletion vectors" : "rewritten files");
      std::fflush(stdout);
    }
  }
  return all_agree ? 0 : 1;
}

}  // namespace
}  // namespace silt

int main(int argc, char** argv) {
  std::optional<silt::bench::RowsAndThreads> arguments =
      silt::bench::ParseRowsAndThreads(argc, argv, "merge_bench");
  if (!arguments) return 2;
  const auto [rows, threads] = *arguments;
  silt::bench::PinSiltThreads(threads);
  try {
    return silt::Run(rows, threads);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "merge_bench failed: %s\n", error.what());
    return 1;
  }
}
