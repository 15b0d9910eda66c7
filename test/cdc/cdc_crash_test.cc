// Exactly-once change data capture under crashes (issue 20): a child process mirrors two
// PostgreSQL tables into Delta tables (processing-time trigger, small batches) and is killed
// with SIGKILL at a step of a batch (after its offsets are written, between the MERGEs of its
// tables, after the MERGEs, after the commit marker) or at a random moment, while a writer in
// the parent keeps committing transactions in PostgreSQL. Each child resumes from the last
// one's checkpoint. At the end the writer stops, one last child applies what is left, and the
// Delta tables must equal the PostgreSQL tables: no change lost, none applied twice.
//
// SILT_CDC_CRASH_TRIALS sets the number of killed children (default 200; `make cdc-crash-test`
// runs 1000). Without PostgreSQL's server binaries the test is skipped.

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "silt/cdc/postgres_cdc_source.h"
#include "silt/cdc/postgres_connection.h"
#include "silt/cdc/testing_postgres_server.h"
#include "silt/commands/statement_executor.h"
#include "silt/io/file_system.h"
#include "silt/io/path.h"
#include "silt/sql/parser.h"
#include "silt/sql/session_state.h"
#include "silt/stream/fault_point.h"
#include "silt/stream/stream_execution.h"
#include "silt/vector/batch.h"
#include "support/temp_dir.h"

namespace silt::cdc {
namespace {

std::string self_path;
constexpr const char* kSlot = "crash_slot";
constexpr const char* kPublication = "crash_pub";

PostgresMirrorSpec Spec(const std::string& warehouse, const std::string& uri, bool small_batches) {
  PostgresMirrorSpec spec;
  spec.source = PostgresCdcOptions::FromMap({{"connection", uri},
                                             {"tables", "public.t, public.u"},
                                             {"slot", kSlot},
                                             {"publication", kPublication},
                                             {"maxChangesPerBatch", small_batches ? "40" : "100000"}});
  spec.tables = {{"public.t", "t", MirrorHistory::kScdType1}, {"public.u", "u", MirrorHistory::kScdType1}};
  spec.checkpoint_location = io::JoinPath(warehouse, "_checkpoint");
  return spec;
}

// ---- the child: mirrors until killed (or, with no kill, applies what is there and stops) ----

int RunChild(const std::string& warehouse, const std::string& uri, const std::string& step,
             int occurrence, int64_t kill_after_us) {
  bool until_killed = !step.empty() || kill_after_us > 0;
  if (!step.empty()) {
    auto seen = std::make_shared<std::atomic<int>>(0);
    stream::TestingSetFaultHook([step, occurrence, seen](std::string_view reached, int64_t) {
      if (reached == step && seen->fetch_add(1) == occurrence) ::raise(SIGKILL);
    });
  }
  if (kill_after_us > 0) {
    std::thread([kill_after_us] {
      std::this_thread::sleep_for(std::chrono::microseconds(kill_after_us));
      ::raise(SIGKILL);
    }).detach();
  }
  auto fs = io::MakeLocalFileSystem();
  sql::SessionState state(fs, warehouse);
  // Killed children take small batches (many batch boundaries to die at); the last one takes
  // what is left at once.
  PostgresMirrorSpec spec = Spec(warehouse, uri, until_killed);
  stream::StreamSpec stream;
  stream.source = MakeMirrorSource(fs, spec);
  stream.sink = MakeMirrorSink(*stream.source, spec);
  stream.query = sql::ParseStatement("SELECT * FROM STREAM(changes)").query;
  stream::ReplaceStreamSource(*stream.query);
  stream.checkpoint_location = spec.checkpoint_location;
  stream.trigger.kind = until_killed ? stream::TriggerKind::kProcessingTime : stream::TriggerKind::kAvailableNow;
  stream.trigger.interval_ms = 0;
  stream::StreamExecution execution(state, std::move(stream));
  execution.Run();
  return 0;
}

// ---- the parent ----

pid_t Spawn(const std::vector<std::string>& arguments) {
  pid_t pid = ::fork();
  if (pid == 0) {
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(self_path.c_str()));
    for (const auto& argument : arguments) argv.push_back(const_cast<char*>(argument.c_str()));
    argv.push_back(nullptr);
    ::execv(self_path.c_str(), argv.data());
    ::_exit(127);
  }
  return pid;
}

// Runs a child; kills it after `timeout_ms` if it is still running (a step that was not reached).
int RunChildProcess(const std::string& warehouse, const std::string& uri, const std::string& step,
                    int occurrence, int64_t kill_after_us, int64_t timeout_ms) {
  pid_t pid = Spawn({"--child", warehouse, uri, step.empty() ? "-" : step, std::to_string(occurrence),
                     std::to_string(kill_after_us)});
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (WIFSIGNALED(status)) return -WTERMSIG(status);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1000;
}

// Commits random transactions of 1 to 6 changes (inserts, updates, deletes, key changes, across
// both tables) until told to stop.
class Writer {
 public:
  explicit Writer(const std::string& uri) : connection_(PostgresConnection::Open(uri, false)) {}

  void Start() {
    thread_ = std::thread([this] { Loop(); });
  }
  void Stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  int64_t transactions() const { return transactions_; }
  /// Why the writer stopped early, or empty.
  const std::string& failure() const { return failure_; }

 private:
  void Loop() {
    std::mt19937 random(12345);
    while (!stop_) {
      std::string sql = "BEGIN;";
      int changes = 1 + static_cast<int>(random() % 6);
      for (int i = 0; i < changes; ++i) {
        int k = static_cast<int>(random() % 300);
        switch (random() % 6) {
          case 0:
          case 1:
            sql += "INSERT INTO t VALUES (" + std::to_string(k) + ", 1, 'n') ON CONFLICT (k) DO UPDATE SET v = t.v + 1;";
            break;
          case 2:
            sql += "UPDATE t SET v = (v * 3 + 1) % 1000003, note = right(note || 'x', 40) WHERE k % 37 = " + std::to_string(k % 37) + ";";
            break;
          case 3:
            sql += "DELETE FROM t WHERE k = " + std::to_string(k) + ";";
            break;
          case 4:
            sql += "UPDATE t SET k = k + 1000 WHERE k = " + std::to_string(k) + " AND NOT EXISTS (SELECT 1 FROM t WHERE k = " +
                   std::to_string(k + 1000) + ");";
            break;
          default:
            sql += "INSERT INTO u VALUES (" + std::to_string(k % 50) + ", 1) ON CONFLICT (k) DO UPDATE SET n = u.n + 1;";
        }
      }
      sql += "COMMIT;";
      try {
        connection_->Execute(sql);
      } catch (const Error& error) {
        failure_ = error.what();
        return;
      }
      ++transactions_;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }

  std::unique_ptr<PostgresConnection> connection_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> transactions_{0};
  std::string failure_;
};

std::vector<std::string> PgRows(const std::string& uri, const std::string& query) {
  auto connection = PostgresConnection::Open(uri, false);
  PostgresResult result = connection->Execute(query);
  std::vector<std::string> rows;
  for (int r = 0; r < result.rows(); ++r) {
    std::string row;
    for (int c = 0; c < result.columns(); ++c) row += (c ? "|" : "") + std::string(result.Value(r, c));
    rows.push_back(row);
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

std::vector<std::string> SiltRows(const std::string& warehouse, const std::string& query) {
  sql::SessionState state(io::MakeLocalFileSystem(), warehouse);
  commands::StatementResult result = commands::ExecuteStatement(state, sql::ParseStatement(query));
  std::vector<std::string> rows;
  for (const Batch& batch : result.batches) {
    for (int64_t r = 0; r < batch.num_rows(); ++r) {
      std::string row;
      for (size_t c = 0; c < batch.num_columns(); ++c) row += (c ? "|" : "") + batch.column(c)->ValueToString(r);
      rows.push_back(row);
    }
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

TEST(CdcCrashTest, KilledMirrorWhilePostgresWritesIsExactlyOnce) {
  testing::PostgresServer server;
  if (!server.started()) GTEST_SKIP() << server.error();
  ASSERT_EQ(server.Psql("CREATE TABLE t (k int PRIMARY KEY, v bigint, note text);"
                        "CREATE TABLE u (k int PRIMARY KEY, n int);"
                        "INSERT INTO t SELECT i, i, 's' FROM generate_series(0, 99) i;"),
            0);
  int trials = 200;
  if (const char* text = std::getenv("SILT_CDC_CRASH_TRIALS")) trials = std::atoi(text);

  test::TempDir folder;
  std::string warehouse = folder.Child("warehouse");
  Writer writer(server.Uri());
  writer.Start();
  std::mt19937_64 random(std::random_device{}());
  const std::vector<std::string> steps = {std::string(stream::kAfterOffsetsWritten),
                                          std::string(stream::kAfterDataFilesWritten),
                                          std::string(stream::kAfterSinkCommit),
                                          std::string(stream::kAfterBatchCommitted)};
  int killed = 0;
  for (int trial = 0; trial < trials; ++trial) {
    int code;
    auto trial_start = std::chrono::steady_clock::now();
    if (trial % 2 == 0) {
      const std::string& step = steps[(trial / 2) % steps.size()];
      code = RunChildProcess(warehouse, server.Uri(), step, static_cast<int>(random() % 3), 0, 10000);
    } else {
      code = RunChildProcess(warehouse, server.Uri(), "", 0, 20000 + static_cast<int64_t>(random() % 400000), 10000);
    }
    ASSERT_TRUE(code == -SIGKILL) << "trial " << trial << ": child ended with " << code;
    if (std::getenv("SILT_CDC_CRASH_VERBOSE")) {
      std::fprintf(stderr, "trial %d: %lld ms\n", trial,
                   static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                              std::chrono::steady_clock::now() - trial_start)
                                              .count()));
    }
    ++killed;
  }
  writer.Stop();
  ASSERT_EQ(writer.failure(), "");
  ASSERT_EQ(RunChildProcess(warehouse, server.Uri(), "", 0, 0, 120000), 0);
  EXPECT_GT(writer.transactions(), 0);
  EXPECT_EQ(killed, trials);
  EXPECT_EQ(SiltRows(warehouse, "SELECT k, v, note FROM t"), PgRows(server.Uri(), "SELECT k, v, note FROM t"));
  EXPECT_EQ(SiltRows(warehouse, "SELECT k, n FROM u"), PgRows(server.Uri(), "SELECT k, n FROM u"));
}

}  // namespace
}  // namespace silt::cdc

int main(int argc, char** argv) {
  silt::cdc::self_path = argv[0];
  if (argc == 7 && std::string(argv[1]) == "--child") {
    return silt::cdc::RunChild(argv[2], argv[3], std::string(argv[4]) == "-" ? "" : argv[4],
                               std::atoi(argv[5]), std::atoll(argv[6]));
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
