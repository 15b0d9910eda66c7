// Object storage against the local disk: the same table written, scanned and merged into on
// the S3 test server (tools/s3-test-server, on 127.0.0.1) and in a local folder, through a
// Session as users reach both. For each step it prints the time and, on S3, the requests the
// session made by kind (as it counts them, and all of them as the server counted them), the
// bytes read and the reads its cache of immutable files served: on a real store the request
// count is what costs. For each scan it checks the claim that the GETs are at most one per
// needed column chunk range group (the chunks a row group's scan reads, coalesced as the reader
// coalesces them), plus one footer per data file, plus the log files read.
//   t   N rows (id, k = id % 1000, v DOUBLE, name STRING), written by CTAS from range(N)
//   s   N/10 rows: ids of t every 20th row with a new v, and as many new ids
// Steps: the CTAS of t and of s, a scan (SELECT count(*), sum(v), max(name) WHERE k < 100), the
// same scan again (footers from the cache), MERGE INTO t USING s ON t.id = s.id (update matched,
// insert the rest), and a scan after the merge.
// Usage: storage_bench [--rows N] [--threads T]   (defaults: 10,000,000 rows, 2 threads)
// Run by `make bench` (not by `make test`); it needs Node.js, and the npm registry on first run.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench_args.h"
#include "silt/api/session_internal.h"
#include "silt/error.h"
#include "silt/io/object_read_file.h"
#include "silt/io/read_ahead.h"
#include "silt/io/storage_file_system.h"
#include "silt/io/storage_statistics.h"
#include "silt/log/snapshot.h"
#include "silt/parquet/reader.h"
#include "silt/result.h"
#include "silt/session.h"
#include "silt/sql/session_state.h"
#include "support/s3_test_server.h"
#include "support/temp_dir.h"

namespace silt {
namespace {

// The most GETs a scan of `columns` of the table at `root` may make: what the log's files take
// (each commit after the last checkpoint, the pointer to it and the checkpoint's files), one per
// data file for its footer, and one per group of each row group's needed chunks that the reader
// fetches together. Read through `fs`, a file system of its own, so the session's counts do not
// see it.
struct GetBound {
  int64_t log_files = 0;
  int64_t footers = 0;
  int64_t range_groups = 0;
  int64_t total() const { return log_files + footers + range_groups; }
};

GetBound ScanGetBound(std::shared_ptr<io::FileSystem> fs, const std::string& root,
                      const std::vector<std::string>& columns) {
  GetBound bound;
  std::shared_ptr<const log::Snapshot> snapshot = log::Snapshot::Load(fs, root);
  for (const io::FileInfo& entry : fs->List(root + "/_delta_log")) {
    const std::string& name = entry.path;
    bool checkpoint = name.find(".checkpoint.") != std::string::npos;
    bool commit = name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0 && !checkpoint;
    if (checkpoint || commit || name.ends_with("_last_checkpoint")) ++bound.log_files;
  }
  for (const log::AddFile& file : snapshot->files()) {
    auto reader = parquet::FileReader::Open(*fs, snapshot->ResolvePath(file.path));
    ++bound.footers;
    for (const parquet::RowGroup& group : reader->metadata().row_groups) {
      std::vector<io::ByteRange> ranges;
      for (const parquet::ColumnChunk& chunk : group.columns) {
        if (!chunk.meta_data || chunk.meta_data->path_in_schema.empty()) continue;
        const parquet::ColumnMetaData& meta = *chunk.meta_data;
        if (std::find(columns.begin(), columns.end(), meta.path_in_schema[0]) == columns.end()) {
          continue;
        }
        int64_t start = meta.data_page_offset;
        if (meta.dictionary_page_offset && *meta.dictionary_page_offset > 0) {
          start = std::min(start, *meta.dictionary_page_offset);
        }
        ranges.push_back(io::ByteRange{static_cast<uint64_t>(start),
                                       static_cast<uint64_t>(meta.total_compressed_size)});
      }
      bound.range_groups +=
          static_cast<int64_t>(io::CoalesceRanges(ranges, io::ObjectReadFile::kMaxGapBytes,
                                                  io::ObjectReadFile::kMaxRequestBytes)
                                   .size());
    }
  }
  return bound;
}

struct Step {
  std::string name;
  double seconds = 0;
  int64_t server_requests = -1;
  io::StorageStatistics statistics;
  std::string answer;
  std::optional<GetBound> bound;  // for scans on S3
};

std::string FirstRow(const Result& result) {
  if (result.num_rows() == 0) return "";
  Row row = result.row(0);
  std::string text;
  for (size_t c = 0; c < row.size(); ++c) text += (c ? "," : "") + row.ToString(c);
  return text;
}

std::vector<Step> RunAll(Session& session, const std::string& root, int64_t rows,
                         test::S3TestServer* server) {
  std::vector<Step> steps;
  io::FileSystem& fs = *api::Access::State(session).fs();
  auto run = [&](const std::string& name, const std::string& sql,
                 const std::vector<std::string>& scanned = {}) {
    Step step;
    if (server != nullptr && !scanned.empty()) {
      step.bound = ScanGetBound(io::MakeStorageFileSystem(server->Options()), root + "/t", scanned);
    }
    if (server != nullptr) server->ResetStats();
    io::ResetStorageStatistics(fs);
    auto start = std::chrono::steady_clock::now();
    Result result = session.Execute(sql);
    step.name = name;
    step.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    step.answer = FirstRow(result);
    if (server != nullptr) {
      step.server_requests = server->GetStats().requests;
      step.statistics = io::StorageStatisticsOf(fs);
    }
    steps.push_back(step);
  };
  std::string n = std::to_string(rows);
  run("write t (CTAS)",
      "CREATE TABLE delta.`" + root +
          "/t` AS SELECT id, id % 1000 AS k, "
          "CAST(id * 3 AS DOUBLE) AS v, concat('name', CAST(id AS STRING)) AS name "
          "FROM range(" +
          n + ")");
  run("write s (CTAS)",
      "CREATE TABLE delta.`" + root + "/s` AS SELECT CASE WHEN id % 2 = 0 THEN id * 10 ELSE " + n +
          " + id END AS id, 7 AS k, CAST(id AS DOUBLE) AS v, 'merged' AS name FROM range(" +
          std::to_string(rows / 10) + ")");
  std::string scan = "SELECT count(*), sum(v), max(name) FROM delta.`" + root + "/t` WHERE k < 100";
  run("scan", scan, {"k", "v", "name"});
  run("scan again", scan, {"k", "v", "name"});
  run("merge",
      "MERGE INTO delta.`" + root + "/t` t USING delta.`" + root +
          "/s` s ON t.id = s.id "
          "WHEN MATCHED THEN UPDATE SET v = s.v, name = s.name WHEN NOT MATCHED THEN INSERT *");
  run("scan after merge", "SELECT count(*), sum(v) FROM delta.`" + root + "/t`", {"v"});
  return steps;
}

int Main(int argc, char** argv) {
  std::optional<bench::RowsAndThreads> args =
      bench::ParseRowsAndThreads(argc, argv, "storage_bench");
  if (!args) return 2;
  bench::PinSiltThreads(args->threads);
  std::string why_not;
  test::S3TestServer* server = test::S3TestServer::Shared(&why_not);
  if (server == nullptr) {
    std::fprintf(stderr, "storage_bench: no S3 test server: %s\n", why_not.c_str());
    return 1;
  }
  test::TempDir warehouse;
  test::TempDir disk;
  SessionOptions options;
  options.warehouse = warehouse.path();
  for (const auto& [key, value] : server->SessionSettings()) options.conf[key] = value;
  Session session(options);

  std::vector<Step> on_disk = RunAll(session, disk.path(), args->rows, nullptr);
  std::vector<Step> on_s3 = RunAll(session, server->NewFolder("bench"), args->rows, server);

  std::printf("%lld rows\n", static_cast<long long>(args->rows));
  std::printf("%-17s %8s %8s %6s %8s | %6s %6s %5s %6s %6s %9s %6s | %s\n", "step", "disk s",
              "s3 s", "ratio", "server", "GET", "PUT", "LIST", "HEAD", "DELETE", "MB read",
              "cached", "answers agree");
  int disagreements = 0;
  int broken_claims = 0;
  for (size_t i = 0; i < on_disk.size(); ++i) {
    const Step& s3 = on_s3[i];
    bool agree = on_disk[i].answer == s3.answer;
    disagreements += agree ? 0 : 1;
    const io::StorageStatistics& counts = s3.statistics;
    std::printf(
        "%-17s %8.3f %8.3f %6.2f %8lld | %6llu %6llu %5llu %6llu %6llu %9.1f %6llu | %s\n",
        on_disk[i].name.c_str(), on_disk[i].seconds, s3.seconds, s3.seconds / on_disk[i].seconds,
        static_cast<long long>(s3.server_requests), static_cast<unsigned long long>(counts.gets),
        static_cast<unsigned long long>(counts.puts), static_cast<unsigned long long>(counts.lists),
        static_cast<unsigned long long>(counts.heads),
        static_cast<unsigned long long>(counts.deletes), counts.bytes_read / 1e6,
        static_cast<unsigned long long>(counts.cache_hits),
        agree ? "yes" : ("NO: " + on_disk[i].answer + " vs " + s3.answer).c_str());
  }
  std::printf(
      "\nGETs of each scan against the most it may make (log files + footers + "
      "range groups of the needed column chunks):\n");
  for (const Step& s3 : on_s3) {
    if (!s3.bound) continue;
    bool holds = static_cast<int64_t>(s3.statistics.gets) <= s3.bound->total();
    broken_claims += holds ? 0 : 1;
    std::printf("%-17s %6llu GETs <= %lld = %lld + %lld + %lld: %s\n", s3.name.c_str(),
                static_cast<unsigned long long>(s3.statistics.gets),
                static_cast<long long>(s3.bound->total()),
                static_cast<long long>(s3.bound->log_files),
                static_cast<long long>(s3.bound->footers),
                static_cast<long long>(s3.bound->range_groups), holds ? "holds" : "BROKEN");
  }
  if (broken_claims > 0) return 1;
  return disagreements == 0 ? 0 : 1;
}

}  // namespace
}  // namespace silt

int main(int argc, char** argv) {
  try {
    return silt::Main(argc, argv);
  } catch (const silt::Error& error) {
    std::fprintf(stderr, "storage_bench: %s\n", error.what());
    return 1;
  }
}
