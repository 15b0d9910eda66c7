// Object storage against the local disk: the same table written, scanned and merged into on
// the S3 test server (tools/s3-test-server, on 127.0.0.1) and in a local folder, through a
// Session as users reach both. For each step it prints the time and, on S3, the requests the
// server answered (all, and GETs) and the bytes it sent back: on a real store the request count
// is what costs, at most one GET per needed column chunk range group plus the footers.
//   t   N rows (id, k = id % 1000, v DOUBLE, name STRING), written by CTAS from range(N)
//   s   N/10 rows: ids of t every 20th row with a new v, and as many new ids
// Steps: the CTAS of t and of s, a scan (SELECT count(*), sum(v), max(name) WHERE k < 100),
// and MERGE INTO t USING s ON t.id = s.id (update matched, insert the rest).
// Usage: storage_bench [--rows N] [--threads T]   (defaults: 10,000,000 rows, 2 threads)
// Run by `make bench` (not by `make test`); it needs Node.js, and the npm registry on first run.

#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "bench_args.h"
#include "silt/error.h"
#include "silt/result.h"
#include "silt/session.h"
#include "support/s3_test_server.h"
#include "support/temp_dir.h"

namespace silt {
namespace {

struct Step {
  std::string name;
  double seconds = 0;
  int64_t requests = -1;
  int64_t gets = -1;
  int64_t bytes = -1;
  std::string answer;
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
  auto run = [&](const std::string& name, const std::string& sql) {
    if (server != nullptr) server->ResetStats();
    auto start = std::chrono::steady_clock::now();
    Result result = session.Execute(sql);
    Step step;
    step.name = name;
    step.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    step.answer = FirstRow(result);
    if (server != nullptr) {
      test::S3TestServer::Stats stats = server->GetStats();
      step.requests = stats.requests;
      step.gets = stats.gets;
      step.bytes = stats.bytes_sent;
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
  run("scan", "SELECT count(*), sum(v), max(name) FROM delta.`" + root + "/t` WHERE k < 100");
  run("merge",
      "MERGE INTO delta.`" + root + "/t` t USING delta.`" + root +
          "/s` s ON t.id = s.id "
          "WHEN MATCHED THEN UPDATE SET v = s.v, name = s.name WHEN NOT MATCHED THEN INSERT *");
  run("scan after merge", "SELECT count(*), sum(v) FROM delta.`" + root + "/t`");
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
  std::printf("%-18s %10s %10s %7s %10s %10s %14s  %s\n", "step", "disk s", "s3 s", "ratio",
              "requests", "GETs", "bytes read", "answers agree");
  int disagreements = 0;
  for (size_t i = 0; i < on_disk.size(); ++i) {
    bool agree = on_disk[i].answer == on_s3[i].answer;
    disagreements += agree ? 0 : 1;
    std::printf("%-18s %10.3f %10.3f %7.2f %10lld %10lld %14lld  %s\n", on_disk[i].name.c_str(),
                on_disk[i].seconds, on_s3[i].seconds, on_s3[i].seconds / on_disk[i].seconds,
                static_cast<long long>(on_s3[i].requests), static_cast<long long>(on_s3[i].gets),
                static_cast<long long>(on_s3[i].bytes),
                agree ? "yes" : ("NO: " + on_disk[i].answer + " vs " + on_s3[i].answer).c_str());
  }
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
