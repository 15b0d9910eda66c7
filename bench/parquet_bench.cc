// Parquet write and full-scan speed of silt against DuckDB on the same rows:
//   id BIGINT 0..N-1, name STRING (10 hex chars of a hash of id), city STRING (1,000 values),
//   amount DECIMAL(18,2), updated_at TIMESTAMP.
// silt generates the rows and writes them; DuckDB loads exactly those rows from silt's file
// (untimed) before its timed write. Both scans compute the same aggregates over every column
// (count, max of id, name, city and updated_at, sum of amount), and the answers must agree.
// Both sides run on T threads.
// Usage: parquet_bench [--rows N] [--threads T] [--silt-only]
//   (defaults: 10,000,000 rows, 2 threads; --silt-only times the silt write alone, for profiling)
// Prints one line per measurement with the ratio silt/DuckDB (below 1.0: silt is faster).

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <mutex>
#include <string>
#include <vector>

#include "silt/base/thread_pool.h"
#include "silt/error.h"
#include "silt/io/file_system.h"
#include "silt/parquet/reader.h"
#include "silt/parquet/writer.h"
#include "silt/vector/batch.h"
#include "support/duckdb_peer.h"
#include "support/temp_dir.h"
#include "bench_args.h"
#include "bench_columns.h"

namespace silt {
namespace {

using bench::FixedVector;
using bench::Hash;
using bench::StringVector;

constexpr int64_t kBatchRows = 1 << 20;
constexpr int64_t kBaseMicros = 1672531200ll * 1000000;  // 2023-01-01 00:00:00 UTC

std::vector<Batch> MakeTable(int64_t rows, const SchemaPtr& schema) {
  std::vector<Batch> batches;
  for (int64_t start = 0; start < rows; start += kBatchRows) {
    int64_t count = std::min(kBatchRows, rows - start);
    std::vector<VectorPtr> columns;
    columns.push_back(FixedVector(LongType(), count, 8, [&](uint8_t* out, int64_t i) {
      int64_t id = start + i;
      std::memcpy(out, &id, 8);
    }));
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
    columns.push_back(FixedVector(DecimalType(18, 2), count, 16, [&](uint8_t* out, int64_t i) {
      Decimal128 cents =
          static_cast<Decimal128>(Hash(static_cast<uint64_t>(start + i) + 7) % 100000000);
      std::memcpy(out, &cents, 16);
    }));
    columns.push_back(FixedVector(TimestampType(), count, 8, [&](uint8_t* out, int64_t i) {
      int64_t micros =
          kBaseMicros +
          static_cast<int64_t>(Hash(static_cast<uint64_t>(start + i) * 3) % 31536000) * 1000000;
      std::memcpy(out, &micros, 8);
    }));
    batches.emplace_back(schema, std::move(columns), count);
  }
  return batches;
}

// What both engines compute when they scan a file: every column is decoded and aggregated.
//   SELECT count(*), max(id), max(name), max(city), sum(amount), max(updated_at)
struct ScanAggregates {
  int64_t rows = 0;
  int64_t max_id = std::numeric_limits<int64_t>::min();
  std::string max_name;
  std::string max_city;
  Decimal128 amount_cents = 0;  // DECIMAL(18,2), scale 2
  int64_t max_updated_at = std::numeric_limits<int64_t>::min();

  void Add(const Batch& batch) {
    const Vector& id = *batch.column(0);
    const Vector& name = *batch.column(1);
    const Vector& city = *batch.column(2);
    const Vector& amount = *batch.column(3);
    const Vector& updated_at = *batch.column(4);
    for (int64_t i = 0; i < batch.num_rows(); ++i) {
      if (!id.IsNull(i)) max_id = std::max(max_id, id.values<int64_t>()[i]);
      if (!name.IsNull(i) && name.GetString(i) > max_name) max_name = name.GetString(i);
      if (!city.IsNull(i) && city.GetString(i) > max_city) max_city = city.GetString(i);
      if (!amount.IsNull(i)) amount_cents += amount.values<Decimal128>()[i];
      if (!updated_at.IsNull(i)) {
        max_updated_at = std::max(max_updated_at, updated_at.values<int64_t>()[i]);
      }
    }
    rows += batch.num_rows();
  }

  void Merge(const ScanAggregates& other) {
    rows += other.rows;
    max_id = std::max(max_id, other.max_id);
    max_name = std::max(max_name, other.max_name);
    max_city = std::max(max_city, other.max_city);
    amount_cents += other.amount_cents;
    max_updated_at = std::max(max_updated_at, other.max_updated_at);
  }

  // As DuckDB prints the check query's row in CSV (the timestamp in microseconds).
  std::string Csv() const {
    std::string cents;
    Decimal128 value = amount_cents < 0 ? -amount_cents : amount_cents;
    do {
      cents.insert(cents.begin(), static_cast<char>('0' + static_cast<int>(value % 10)));
      value /= 10;
    } while (value != 0);
    while (cents.size() < 3) cents.insert(cents.begin(), '0');
    cents.insert(cents.end() - 2, '.');
    return std::to_string(rows) + "," + std::to_string(max_id) + "," + max_name + "," + max_city +
           "," + (amount_cents < 0 ? "-" : "") + cents + "," + std::to_string(max_updated_at);
  }
};

double MillisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

void PrintLine(const char* what, int64_t rows, double silt, double duckdb) {
  std::printf("%s %lld rows: silt %.0f ms, duckdb %.0f ms, ratio %.2f\n", what,
              static_cast<long long>(rows), silt, duckdb, duckdb > 0 ? silt / duckdb : 0.0);
  std::fflush(stdout);
}

double CpuMilliseconds() {
  timespec now;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) * 1e3 + static_cast<double>(now.tv_nsec) / 1e6;
}

// `silt_only` skips the scans and DuckDB (for profiling the write path).
int Run(int64_t rows, int threads, bool silt_only) {
  auto schema = std::make_shared<Schema>(std::vector<Field>{
      {"id", LongType(), true, {}},
      {"name", StringType(), true, {}},
      {"city", StringType(), true, {}},
      {"amount", DecimalType(18, 2), true, {}},
      {"updated_at", TimestampType(), true, {}},
  });
  std::vector<Batch> batches = MakeTable(rows, schema);
  test::TempDir dir;
  std::string silt_file = dir.Child("silt.parquet");
  std::string duckdb_file = dir.Child("duckdb.parquet");
  auto fs = io::MakeLocalFileSystem();
  ThreadPool pool(static_cast<size_t>(threads));

  // silt write.
  parquet::WriterOptions options;
  options.codec = parquet::CompressionCodec::kSnappy;
  options.pool = &pool;
  options.max_parallelism = static_cast<size_t>(threads);
  double cpu_start = CpuMilliseconds();
  auto start = std::chrono::steady_clock::now();
  auto writer = parquet::FileWriter::Open(fs->OpenWrite(silt_file), *schema, options);
  for (const Batch& batch : batches) writer->Write(batch);
  writer->Close();
  double silt_write = MillisecondsSince(start);
  double silt_write_cpu = CpuMilliseconds() - cpu_start;
  uint64_t silt_bytes = writer->bytes_written();
  batches.clear();
  // CPU time tells the work apart from waiting on a machine shared with other jobs.
  std::printf("silt write: %.0f ms wall, %.0f ms cpu, %.1f MB\n", silt_write, silt_write_cpu,
              static_cast<double>(silt_bytes) / 1e6);
  if (silt_only) return 0;

  // silt full scan: every column of every row group decoded into batches, streamed into the
  // aggregates DuckDB's timed scan computes, and released, as a query's scan works. The
  // materialising Read, which keeps every batch, is timed too and printed for information.
  parquet::ReadOptions read_options;
  read_options.pool = &pool;
  read_options.max_parallelism = static_cast<size_t>(threads);
  auto streaming_scan = [&](const std::string& path, double* cpu_ms, ScanAggregates* result) {
    double cpu_before = CpuMilliseconds();
    auto begin = std::chrono::steady_clock::now();
    auto reader = parquet::FileReader::Open(*fs, path);
    std::mutex mutex;
    reader->Scan(read_options, [&](int, Batch batch) {
      ScanAggregates part;
      part.Add(batch);
      std::lock_guard<std::mutex> lock(mutex);
      result->Merge(part);
    });
    double elapsed = MillisecondsSince(begin);
    *cpu_ms = CpuMilliseconds() - cpu_before;
    if (result->rows != rows) {
      std::fprintf(stderr, "silt scanned %lld rows of %s, expected %lld\n",
                   static_cast<long long>(result->rows), path.c_str(), static_cast<long long>(rows));
      std::exit(1);
    }
    return elapsed;
  };
  double scan_cpu = 0;
  ScanAggregates silt_of_silt_file;
  double silt_scan = streaming_scan(silt_file, &scan_cpu, &silt_of_silt_file);
  std::printf("silt scan: %.0f ms wall, %.0f ms cpu\n", silt_scan, scan_cpu);
  {
    start = std::chrono::steady_clock::now();
    auto reader = parquet::FileReader::Open(*fs, silt_file);
    std::vector<Batch> kept = reader->Read(read_options);
    std::printf("silt materialising read (all batches kept): %.0f ms wall\n",
                MillisecondsSince(start));
  }

  // DuckDB: the rows silt wrote loaded into a table (not timed), then the timed COPY and scans.
  std::string scan =
      "SELECT count(*), max(id), max(name), max(city), sum(amount), "
      "max(updated_at) FROM read_parquet(";
  std::vector<double> times = test::TimeDuckDb(
      {"CREATE TABLE t AS SELECT * FROM read_parquet(" + test::SqlQuote(silt_file) + ")",
       "COPY t TO " + test::SqlQuote(duckdb_file) + " (FORMAT parquet, COMPRESSION snappy)",
       scan + test::SqlQuote(silt_file) + ")", scan + test::SqlQuote(duckdb_file) + ")"},
      threads);
  if (times.size() < 4) {
    std::fprintf(stderr, "DuckDB reported %zu timings, expected 4\n", times.size());
    return 1;
  }
  auto duckdb_bytes = fs->Stat(duckdb_file)->size;

  std::printf("parquet files: silt %.1f MB, duckdb %.1f MB (snappy, %d threads)\n",
              static_cast<double>(silt_bytes) / 1e6, static_cast<double>(duckdb_bytes) / 1e6,
              threads);
  PrintLine("parquet write", rows, silt_write, times[1]);
  PrintLine("parquet scan (silt's file)", rows, silt_scan, times[2]);

  // silt scanning DuckDB's file, against DuckDB scanning it.
  ScanAggregates silt_of_duckdb_file;
  double silt_scan_duckdb_file = streaming_scan(duckdb_file, &scan_cpu, &silt_of_duckdb_file);
  PrintLine("parquet scan (duckdb's file)", rows, silt_scan_duckdb_file, times[3]);

  // The two files hold the same rows, so all four scans must give one answer (checked untimed).
  std::string check = "SELECT count(*), max(id), max(name), max(city), sum(amount), "
                      "epoch_us(max(updated_at)) FROM read_parquet(";
  std::vector<std::string> duckdb_answers = {
      test::RunDuckDb({check + test::SqlQuote(silt_file) + ")"}, "csv"),
      test::RunDuckDb({check + test::SqlQuote(duckdb_file) + ")"}, "csv")};
  bool agree = silt_of_silt_file.Csv() == silt_of_duckdb_file.Csv();
  for (const std::string& answer : duckdb_answers) {
    size_t line = answer.find('\n');
    std::string row = line == std::string::npos ? "" : answer.substr(line + 1);
    while (!row.empty() && (row.back() == '\n' || row.back() == '\r')) row.pop_back();
    agree = agree && row == silt_of_silt_file.Csv();
  }
  if (!agree) {
    std::printf("RESULTS DIFFER\n  silt: %s | %s\n  duckdb: %s  duckdb: %s",
                silt_of_silt_file.Csv().c_str(), silt_of_duckdb_file.Csv().c_str(),
                duckdb_answers[0].c_str(), duckdb_answers[1].c_str());
    return 1;
  }
  std::printf("scan results agree: %s\n", silt_of_silt_file.Csv().c_str());
  return 0;
}

}  // namespace
}  // namespace silt

int main(int argc, char** argv) {
  int64_t rows = 10000000;
  int threads = 2;
  bool silt_only = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--rows" && i + 1 < argc) {
      rows = std::atoll(argv[++i]);
    } else if (arg == "--threads" && i + 1 < argc) {
      threads = std::atoi(argv[++i]);
    } else if (arg == "--silt-only") {
      silt_only = true;
    } else {
      std::fprintf(stderr, "usage: parquet_bench [--rows N] [--threads T] [--silt-only]\n");
      return 2;
    }
  }
  if (rows <= 0 || threads <= 0) {
    std::fprintf(stderr, "--rows and --threads must be positive\n");
    return 2;
  }
  silt::bench::PinSiltThreads(threads);
  try {
    return silt::Run(rows, threads, silt_only);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "parquet_bench failed: %s\n", error.what());
    return 1;
  }
}
