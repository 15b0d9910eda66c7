// Streaming overheads (silt only; there is no DuckDB counterpart):
//  (a) a trigger with no new data: an available-now run of a query whose checkpoint has read
//      everything (the cost of a cron job that finds nothing), mean of 10 runs;
//  (b) a stream over 1,000 small commits (one file each), available-now with
//      maxFilesPerTrigger 10: 100 batches, their total and per-batch time and the mean of each
//      step of a batch (Spark's durationMs);
//  (c) a 10M-row bronze -> silver copy as a stream (available-now) against the same copy as a
//      batch INSERT INTO ... SELECT; the goal is a ratio of at most 1.2. The stream runs once
//      with the default admission (one batch) and once with maxFilesPerTrigger 2 (ten batches
//      of 2 of the 20 files), whose peak memory must stay bounded by what a batch admits.
// Each part runs in a child process of its own, so that its peak resident memory
// (getrusage ru_maxrss of the child) is its own.
// Usage: stream_bench [--rows N] [--commits C] [--threads T]

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "bench_args.h"
#include "bench_tables.h"
#include "silt/error.h"
#include "silt/io/file_system.h"
#include "silt/session.h"
#include "silt/streaming.h"
#include "support/temp_dir.h"

namespace silt {
namespace {

using bench::MillisecondsSince;

constexpr int64_t kBronzeFiles = 20;
constexpr int kNoDataRuns = 10;

SessionOptions InWarehouse(const std::string& warehouse) {
  SessionOptions options;
  options.warehouse = warehouse;
  return options;
}

// Streams `source` into `target` (available-now) and returns the batches' progress.
std::vector<StreamingQueryProgress> StreamCopy(Session& session, const std::string& source,
                                               const std::string& target,
                                               const std::string& checkpoint,
                                               std::map<std::string, std::string> options = {}) {
  StreamingQuery query = session.ReadStream()
                             .Options(options)
                             .Table(source)
                             .WriteStream()
                             .Option("checkpointLocation", checkpoint)
                             .Trigger(Trigger::AvailableNow())
                             .ToTable(target);
  query.AwaitTermination();
  return query.RecentProgress();
}

int64_t CountRows(Session& session, const std::string& table) {
  Result result = session.Execute("SELECT count(*) FROM " + table);
  for (const Row& row : result) return row.GetInt64(0);
  return -1;
}

// Runs `part` in a child process; returns its exit status and prints its peak memory.
int RunChild(const char* label, const std::function<int()>& part) {
  std::fflush(stdout);
  pid_t child = fork();
  if (child == 0) {
    int status = 1;
    try {
      status = part();
    } catch (const std::exception& error) {
      std::fprintf(stderr, "%s failed: %s\n", label, error.what());
    }
    std::fflush(stdout);
    std::_Exit(status);
  }
  int status = 0;
  struct rusage usage {};
  wait4(child, &status, 0, &usage);
  std::printf("  %s: peak RSS %.0f MB\n", label, static_cast<double>(usage.ru_maxrss) / 1024.0);
  std::fflush(stdout);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int Run(int64_t rows, int64_t commits) {
  test::TempDir folder;
  std::string warehouse = folder.Child("warehouse");
  std::string small = warehouse + "/small";
  std::string bronze = warehouse + "/bronze";
  int failures = 0;

  failures += RunChild("write tables", [&] {
    std::shared_ptr<io::FileSystem> fs = io::MakeLocalFileSystem();
    auto start = std::chrono::steady_clock::now();
    bench::WriteIdNameAmountTable(fs, small, "stream-bench-small", commits, 10);
    bench::WriteIdNameAmountTable(fs, bronze, "stream-bench-bronze", kBronzeFiles, rows / kBronzeFiles);
    std::printf(
        "tables written: small (%lld commits of 10 rows), bronze (%lld rows in %lld "
        "files) in %.0f ms\n",
        static_cast<long long>(commits), static_cast<long long>(rows),
        static_cast<long long>(kBronzeFiles), MillisecondsSince(start));
    return 0;
  });

  failures += RunChild("(b) small commits", [&] {
    Session session(InWarehouse(warehouse));
    auto start = std::chrono::steady_clock::now();
    std::vector<StreamingQueryProgress> progress = StreamCopy(
        session, "small", "small_copy", folder.Child("chk_small"), {{"maxFilesPerTrigger", "10"}});
    double total = MillisecondsSince(start);
    std::map<std::string, double> steps;
    for (const StreamingQueryProgress& batch : progress) {
      for (const auto& [step, ms] : batch.duration_ms) steps[step] += static_cast<double>(ms);
    }
    int64_t copied = CountRows(session, "small_copy");
    std::printf(
        "(b) %lld commits, maxFilesPerTrigger 10: %zu batches, %lld rows in %.0f ms: "
        "%.1f ms per batch\n",
        static_cast<long long>(commits), progress.size(), static_cast<long long>(copied), total,
        total / static_cast<double>(std::max<size_t>(progress.size(), 1)));
    std::printf("    mean per batch:");
    for (const auto& [step, ms] : steps) {
      std::printf(" %s %.1f ms", step.c_str(), ms / static_cast<double>(progress.size()));
    }
    std::printf("\n");
    return copied == commits * 10 ? 0 : 1;
  });

  failures += RunChild("(a) triggers with no new data", [&] {
    Session session(InWarehouse(warehouse));
    std::vector<double> times;
    for (int run = 0; run < kNoDataRuns; ++run) {
      auto start = std::chrono::steady_clock::now();
      std::vector<StreamingQueryProgress> progress =
          StreamCopy(session, "small", "small_copy", folder.Child("chk_small"),
                     {{"maxFilesPerTrigger", "10"}});
      times.push_back(MillisecondsSince(start));
      if (!progress.empty()) return 1;
    }
    double sum = 0;
    for (double ms : times) sum += ms;
    std::sort(times.begin(), times.end());
    std::printf(
        "(a) available-now run with no new data (table of %lld commits): mean %.1f ms, "
        "median %.1f ms\n",
        static_cast<long long>(commits), sum / kNoDataRuns, times[kNoDataRuns / 2]);
    return 0;
  });

  double batch_ms = 0;
  double stream_ms = 0;
  failures += RunChild("(c) INSERT INTO silver SELECT * FROM bronze", [&] {
    Session session(InWarehouse(warehouse));
    session.Execute("CREATE TABLE silver_batch (id BIGINT, name STRING, amount BIGINT)");
    auto start = std::chrono::steady_clock::now();
    session.Execute("INSERT INTO silver_batch SELECT * FROM bronze");
    double ms = MillisecondsSince(start);
    std::printf("(c) batch INSERT ... SELECT of %lld rows: %.0f ms\n",
                static_cast<long long>(CountRows(session, "silver_batch")), ms);
    std::FILE* out = std::fopen(folder.Child("batch_ms").c_str(), "w");
    std::fprintf(out, "%f\n", ms);
    std::fclose(out);
    return 0;
  });
  failures += RunChild("(c) stream bronze -> silver, one batch", [&] {
    Session session(InWarehouse(warehouse));
    session.Execute("CREATE TABLE silver_stream (id BIGINT, name STRING, amount BIGINT)");
    auto start = std::chrono::steady_clock::now();
    std::vector<StreamingQueryProgress> progress =
        StreamCopy(session, "bronze", "silver_stream", folder.Child("chk_bronze"));
    double ms = MillisecondsSince(start);
    int64_t copied = CountRows(session, "silver_stream");
    std::printf("(c) stream copy of %lld rows in %zu batch(es): %.0f ms\n",
                static_cast<long long>(copied), progress.size(), ms);
    std::FILE* out = std::fopen(folder.Child("stream_ms").c_str(), "w");
    std::fprintf(out, "%f\n", ms);
    std::fclose(out);
    return copied == rows / kBronzeFiles * kBronzeFiles ? 0 : 1;
  });
  failures += RunChild("(c) stream bronze -> silver, maxFilesPerTrigger 2", [&] {
    Session session(InWarehouse(warehouse));
    session.Execute("CREATE TABLE silver_small_batches (id BIGINT, name STRING, amount BIGINT)");
    auto start = std::chrono::steady_clock::now();
    std::vector<StreamingQueryProgress> progress =
        StreamCopy(session, "bronze", "silver_small_batches", folder.Child("chk_bronze_2"),
                   {{"maxFilesPerTrigger", "2"}});
    double ms = MillisecondsSince(start);
    std::printf("(c) stream copy in %zu batches of 2 files: %.0f ms (%.1f ms per batch)\n",
                progress.size(), ms,
                ms / static_cast<double>(std::max<size_t>(progress.size(), 1)));
    return CountRows(session, "silver_small_batches") == rows / kBronzeFiles * kBronzeFiles ? 0 : 1;
  });
  std::FILE* batch_file = std::fopen(folder.Child("batch_ms").c_str(), "r");
  std::FILE* stream_file = std::fopen(folder.Child("stream_ms").c_str(), "r");
  if (batch_file != nullptr && stream_file != nullptr &&
      std::fscanf(batch_file, "%lf", &batch_ms) == 1 &&
      std::fscanf(stream_file, "%lf", &stream_ms) == 1) {
    double ratio = stream_ms / batch_ms;
    std::printf("(c) stream / batch: %.2f (goal <= 1.2: %s)\n", ratio,
                ratio <= 1.2 ? "met" : "MISSED");
  }
  if (batch_file != nullptr) std::fclose(batch_file);
  if (stream_file != nullptr) std::fclose(stream_file);
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace silt

int main(int argc, char** argv) {
  int64_t rows = 10000000;
  int64_t commits = 1000;
  int threads = 2;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--rows" && i + 1 < argc) {
      rows = std::atoll(argv[++i]);
    } else if (arg == "--commits" && i + 1 < argc) {
      commits = std::atoll(argv[++i]);
    } else if (arg == "--threads" && i + 1 < argc) {
      threads = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: stream_bench [--rows N] [--commits C] [--threads T]\n");
      return 2;
    }
  }
  if (rows < silt::kBronzeFiles || commits <= 0 || threads <= 0) {
    std::fprintf(stderr, "--rows must be at least %lld, --commits and --threads positive\n",
                 static_cast<long long>(silt::kBronzeFiles));
    return 2;
  }
  silt::bench::PinSiltThreads(threads);
  return silt::Run(rows, commits);
}
