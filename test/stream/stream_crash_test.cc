// Exactly-once streaming under crashes (issue 15): a child process runs a streaming query and
// is killed with SIGKILL at a step of a batch (after its offsets are written, after the sink's
// data files are written, between the sink's commit and the commit marker, after the marker)
// or at a random moment; then a child runs the query again from its checkpoint until it
// finishes. The sink must then hold exactly what a crash-free run writes: no row lost, none
// written twice. The queries: a copy into the Delta sink (its txn action), foreachBatch running
// an additive MERGE with the txnAppId / txnVersion session options, the Delta sink fed by the
// file source (the source table's Parquet files read as a folder; also killed after the source
// logged a batch's files and before the batch's offsets), two with state kept in the
// checkpoint — an aggregation in complete mode and a deduplication, both into the Delta sink,
// also killed while a state version is written and after it is — and the SQL flows run by
// REFRESH STREAMING TABLE: AUTO CDC into SCD type 1 and type 2 targets (a MERGE into the target
// and one into the flow's state per batch; the kill after the sink's data files falls between
// the two) and a MERGE flow adding counts.
//
// SILT_STREAM_CRASH_TRIALS sets the number of random-kill trials per sink (default 4; `make
// stream-crash-test` runs 125 for each of the 8 sinks, 1,000 in all); when it is set, the flows
// are also killed at each step of their first and last batches, not only of a middle one.
//
// Child processes are this binary re-executed with "--child" (fork + exec, so that no thread
// pool state of the parent is inherited).
//
// The same kill points run once more with the warehouse on the S3 test server
// (tools/s3-test-server) and once on Azurite (tools/azurite-test-server): the children reach
// them through the AWS_* and AZURE_STORAGE_CONNECTION_STRING environment variables the parent
// sets.

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "silt/commands/statement_executor.h"
#include "silt/io/file_system.h"
#include "silt/io/path.h"
#include "silt/io/storage_file_system.h"
#include "silt/sql/parser.h"
#include "silt/sql/session_state.h"
#include "silt/stream/delta_sink.h"
#include "silt/stream/fault_point.h"
#include "silt/stream/stream_execution.h"
#include "silt/stream/streaming_table.h"
#include "silt/vector/batch.h"
#include "support/azurite_test_server.h"
#include "support/s3_test_server.h"
#include "support/temp_dir.h"

namespace silt::stream {
namespace {

std::string self_path;

constexpr int kSourceFiles = 5;  // one insert each; one file per batch

// The local disk, or the object store a warehouse URL names (settings from the environment).
std::shared_ptr<io::FileSystem> Store() {
  return io::MakeStorageFileSystem(std::make_shared<io::StorageOptions>());
}

commands::StatementResult Sql(sql::SessionState& state, const std::string& text) {
  commands::StatementResult last;
  for (const sql::Statement& statement : sql::ParseStatements(text)) {
    last = IsStreamingStatement(statement) ? ExecuteStreamingStatement(state, statement)
                                           : commands::ExecuteStatement(state, statement);
  }
  return last;
}

std::string Csv(sql::SessionState& state, const std::string& query) {
  return FormatCsv(Sql(state, query).batches, /*header=*/false);
}

// The SQL flows: each reads its source one commit per batch.
bool IsFlow(const std::string& kind) {
  return kind == "scd1" || kind == "scd2" || kind == "merge_flow";
}

std::string FlowTarget(const std::string& kind) {
  return kind == "merge_flow" ? "flow_totals" : "customers_" + kind;
}

// Changes of keys a, b and c, one commit each: updates, a late one, a delete and an upsert
// older than the delete.
constexpr const char* kChangeCommits[kSourceFiles] = {
    "('a', 1, 'U', 1), ('b', 1, 'U', 1)",
    "('a', 2, 'U', 3), ('c', 1, 'U', 2)",
    "('a', 9, 'U', 2), ('b', 0, 'D', 4)",
    "('b', 5, 'U', 3), ('c', 2, 'U', 5)",
    "('b', 6, 'U', 6), ('a', 3, 'U', 7)",
};

// ---- the child: runs the query available-now, killing itself where told ----

int RunChild(const std::string& sink_kind, const std::string& warehouse, const std::string& step,
             int64_t batch, int64_t kill_after_us) {
  if (!step.empty()) {
    TestingSetFaultHook([step, batch](std::string_view reached, int64_t reached_batch) {
      if (reached == step && reached_batch == batch) ::raise(SIGKILL);
    });
  }
  if (kill_after_us > 0) {
    std::thread([kill_after_us] {
      std::this_thread::sleep_for(std::chrono::microseconds(kill_after_us));
      ::raise(SIGKILL);
    }).detach();
  }
  sql::SessionState state(Store(), warehouse);
  if (IsFlow(sink_kind)) {
    ExecuteStreamingStatement(state, sql::ParseStatement("REFRESH STREAMING TABLE " +
                                                         FlowTarget(sink_kind)));
    return 0;
  }
  StreamSpec spec;
  spec.query = sql::ParseStatement(sink_kind == "aggregate"
                                        ? "SELECT k, count(*) AS n, sum(id) AS s FROM STREAM(src) "
                                          "GROUP BY k"
                                        : "SELECT id, k FROM STREAM(src)")
                   .query;
  StreamOptions options;
  options.Set("maxFilesPerTrigger", "1");
  if (sink_kind == "files") {
    spec.query = sql::ParseStatement("SELECT id, k FROM STREAM(parquet.`" +
                                     io::JoinPath(warehouse, "src") + "`)")
                     .query;
    options.Set("schema", "id BIGINT, k STRING");
  }
  spec.source = OpenStreamSource(state, *spec.query, options);
  spec.checkpoint_location = io::JoinPath(warehouse, "_checkpoint");
  spec.trigger.kind = TriggerKind::kAvailableNow;
  if (sink_kind == "delta" || sink_kind == "dedup" || sink_kind == "files") {
    spec.sink = MakeDeltaSink(state.fs(), io::JoinPath(warehouse, "dst"), DeltaSinkOptions{});
    if (sink_kind == "dedup") spec.deduplication = Deduplication{{"k"}, false};
  } else if (sink_kind == "aggregate") {
    DeltaSinkOptions complete;
    complete.output_mode = OutputMode::kComplete;
    spec.output_mode = OutputMode::kComplete;
    spec.sink = MakeDeltaSink(state.fs(), io::JoinPath(warehouse, "totals"), complete);
  } else {
    spec.sink = MakeForEachBatchSink([&state](const BatchContext& batch) {
      state.SetConf("spark.databricks.delta.write.txnAppId", batch.query_id);
      state.SetConf("spark.databricks.delta.write.txnVersion", std::to_string(batch.batch_id));
      Sql(state, "MERGE INTO totals t USING (SELECT k, count(*) AS n, sum(id) AS s FROM (" +
                     batch.query_sql +
                     ") GROUP BY k) b ON t.k = b.k "
                     "WHEN MATCHED THEN UPDATE SET n = t.n + b.n, s = t.s + b.s "
                     "WHEN NOT MATCHED THEN INSERT (k, n, s) VALUES (b.k, b.n, b.s)");
      ReachFaultPoint(kAfterDataFilesWritten, batch.batch_id);
    });
  }
  StreamExecution execution(state, std::move(spec));
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

struct ChildEnd {
  bool killed = false;
  int exit_code = -1;
};

ChildEnd RunChildProcess(const std::string& sink_kind, const std::string& warehouse,
                         const std::string& step, int64_t batch, int64_t kill_after_us) {
  pid_t pid = Spawn({"--child", sink_kind, warehouse, step.empty() ? "-" : step,
                     std::to_string(batch), std::to_string(kill_after_us)});
  int status = 0;
  ::waitpid(pid, &status, 0);
  ChildEnd end;
  end.killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
  end.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return end;
}

class StreamCrashTest : public ::testing::TestWithParam<std::string> {
 public:  // also for KillAtEachStepOnStore
  // A warehouse with the source's files and an empty sink table.
  void Prepare(const std::string& warehouse) {
    sql::SessionState state(Store(), warehouse);
    Sql(state, "CREATE TABLE src (id BIGINT, k STRING); CREATE TABLE dst (id BIGINT, k STRING); "
               "CREATE TABLE totals (k STRING, n BIGINT, s BIGINT)");
    // The flows are created over empty sources, so that their first run streams nothing.
    const std::string& kind = GetParam();
    if (kind == "scd1" || kind == "scd2") {
      Sql(state, "CREATE TABLE changes (k STRING, v BIGINT, op STRING, seq BIGINT)");
      Sql(state, "CREATE STREAMING TABLE " + FlowTarget(kind));
      Sql(state, "CREATE FLOW cdc AS AUTO CDC INTO " + FlowTarget(kind) +
                     " FROM STREAM(changes) WITH (maxFilesPerTrigger = 1) KEYS (k) "
                     "APPLY AS DELETE WHEN op = 'D' SEQUENCE BY seq COLUMNS * EXCEPT (op, seq) "
                     "STORED AS SCD TYPE " + (kind == "scd1" ? "1" : "2"));
      for (const char* commit : kChangeCommits) {
        Sql(state, std::string("INSERT INTO changes VALUES ") + commit);
      }
    } else if (kind == "merge_flow") {
      Sql(state, "CREATE TABLE flow_totals (k STRING, n BIGINT, s BIGINT)");
      Sql(state, "CREATE FLOW totals_flow AS MERGE INTO flow_totals t USING (SELECT k, count(*) "
                 "AS n, sum(id) AS s FROM STREAM(src) WITH (maxFilesPerTrigger = 1) GROUP BY k) b "
                 "ON t.k = b.k WHEN MATCHED THEN UPDATE SET n = t.n + b.n, s = t.s + b.s "
                 "WHEN NOT MATCHED THEN INSERT (k, n, s) VALUES (b.k, b.n, b.s)");
    }
    for (int id = 1; id <= kSourceFiles; ++id) {
      Sql(state, "INSERT INTO src VALUES (" + std::to_string(id) + ", 'k" + std::to_string(id % 2) +
                     "'), (" + std::to_string(100 + id) + ", 'k2')");
    }
  }

  // What a crash-free run leaves in the sink.
  std::string Expected() {
    // The first row of each key: batch 0 reads ids 1 (k1) and 101 (k2), batch 1 id 2 (k0).
    if (GetParam() == "dedup") return "1\n2\n101\n";
    if (GetParam() == "delta" || GetParam() == "files") {
      std::string csv;
      std::vector<int> ids;
      for (int id = 1; id <= kSourceFiles; ++id) ids.push_back(id);
      for (int id = 1; id <= kSourceFiles; ++id) ids.push_back(100 + id);
      for (int id : ids) csv += std::to_string(id) + "\n";
      return csv;
    }
    if (GetParam() == "scd1") return "a,3\nb,6\nc,2\n";
    if (GetParam() == "scd2") {
      // a: 1 from 1, 2 from 3 (the late 9 at 2 ignored), 3 from 7; b: deleted at 4, the
      // upsert at 3 ignored, back at 6; c: 1 from 2, 2 from 5.
      return "a,1,1,3\na,2,3,7\na,3,7,\nb,1,1,4\nb,6,6,\nc,1,2,5\nc,2,5,\n";
    }
    // k0: ids 2, 4; k1: 1, 3, 5; k2: 101..105.
    return "k0,2,6\nk1,3,9\nk2,5,515\n";
  }

  std::string Actual(const std::string& warehouse) {
    sql::SessionState state(Store(), warehouse);
    const std::string& kind = GetParam();
    if (kind == "delta" || kind == "dedup" || kind == "files") {
      return Csv(state, "SELECT id FROM dst ORDER BY id");
    }
    if (kind == "scd1") return Csv(state, "SELECT k, v FROM customers_scd1 ORDER BY k");
    if (kind == "scd2") {
      return Csv(state, "SELECT k, v, __START_AT, __END_AT FROM customers_scd2 "
                        "ORDER BY k, __START_AT");
    }
    if (kind == "merge_flow") return Csv(state, "SELECT k, n, s FROM flow_totals ORDER BY k");
    return Csv(state, "SELECT k, n, s FROM totals ORDER BY k");
  }

  // Restarts the query until a run finishes (a random kill may hit the restart too).
  void FinishAfterCrash(const std::string& warehouse) {
    ChildEnd end = RunChildProcess(GetParam(), warehouse, "", 0, 0);
    ASSERT_FALSE(end.killed);
    ASSERT_EQ(end.exit_code, 0);
  }
};

TEST_P(StreamCrashTest, KilledAtEachStepOfABatchIsExactlyOnce) {
  std::vector<std::string_view> steps = {kAfterOffsetsWritten, kAfterDataFilesWritten,
                                         kAfterSinkCommit, kAfterBatchCommitted};
  if (GetParam() == "aggregate" || GetParam() == "dedup") {
    steps.insert(steps.begin() + 1, {kDuringStateWrite, kAfterStateWritten});
  }
  if (GetParam() == "files") steps.push_back(kAfterSourceLogWritten);
  for (std::string_view step : steps) {
    // A flow's first run, by CREATE FLOW over the empty source, commits batch 0 (the empty
    // starting snapshot); the source's commits are the batches after it. A flow's trial takes
    // longer (its child first runs the statements that prepare it): the fast form kills only a
    // middle batch, the long form (SILT_STREAM_CRASH_TRIALS set) the first and the last too.
    int64_t first = IsFlow(GetParam()) ? 1 : 0;
    std::vector<int64_t> batches = {first, first + 2, first + kSourceFiles - 1};
    if (IsFlow(GetParam()) && std::getenv("SILT_STREAM_CRASH_TRIALS") == nullptr) {
      batches = {first + 2};
    }
    for (int64_t batch : batches) {
      SCOPED_TRACE(std::string(step) + " of batch " + std::to_string(batch));
      test::TempDir folder;
      std::string warehouse = folder.Child("warehouse");
      Prepare(warehouse);
      ChildEnd crashed = RunChildProcess(GetParam(), warehouse, std::string(step), batch, 0);
      EXPECT_TRUE(crashed.killed) << "exit code " << crashed.exit_code;
      FinishAfterCrash(warehouse);
      EXPECT_EQ(Actual(warehouse), Expected());
    }
  }
}

TEST_P(StreamCrashTest, KilledAtRandomMomentsIsExactlyOnce) {
  int trials = 4;
  if (const char* text = std::getenv("SILT_STREAM_CRASH_TRIALS")) trials = std::atoi(text);
  std::mt19937_64 random(std::random_device{}());
  // A run of the whole query takes some hundreds of milliseconds; kill within that.
  // A flow's batches run more statements (AUTO CDC: two MERGEs and the queries they read).
  std::uniform_int_distribution<int64_t> delay_us(1000, IsFlow(GetParam()) ? 1500000 : 400000);
  for (int trial = 0; trial < trials; ++trial) {
    int64_t delay = delay_us(random);
    SCOPED_TRACE("trial " + std::to_string(trial) + ", killed after " + std::to_string(delay) + " us");
    test::TempDir folder;
    std::string warehouse = folder.Child("warehouse");
    Prepare(warehouse);
    RunChildProcess(GetParam(), warehouse, "", 0, delay);
    // A second random kill during recovery, then a run to the end.
    RunChildProcess(GetParam(), warehouse, "", 0, delay_us(random));
    FinishAfterCrash(warehouse);
    ASSERT_EQ(Actual(warehouse), Expected());
  }
}

// Each kill point once (in batch 2) with the warehouse on an object store, whose settings the
// children find in `environment` (set here, inherited by them); `new_folder` names a fresh
// warehouse on it.
void KillAtEachStepOnStore(StreamCrashTest& test, const std::string& store,
                           const std::vector<std::pair<std::string, std::string>>& environment,
                           const std::function<std::string()>& new_folder) {
  for (const auto& [name, value] : environment) ::setenv(name.c_str(), value.c_str(), 1);
  for (std::string_view step :
       {kAfterOffsetsWritten, kAfterDataFilesWritten, kAfterSinkCommit, kAfterBatchCommitted}) {
    SCOPED_TRACE(std::string(step) + " of batch 2 on " + store);
    std::string warehouse = new_folder();
    test.Prepare(warehouse);
    ChildEnd crashed = RunChildProcess(test.GetParam(), warehouse, std::string(step), 2, 0);
    EXPECT_TRUE(crashed.killed) << "exit code " << crashed.exit_code;
    test.FinishAfterCrash(warehouse);
    EXPECT_EQ(test.Actual(warehouse), test.Expected());
  }
}

// The object-store variants cover the two sinks' commits; the other queries differ from them
// only above the storage layer.
bool RunsOnObjectStores(const std::string& kind) { return kind == "delta" || kind == "merge"; }

TEST_P(StreamCrashTest, KilledAtEachStepOfABatchIsExactlyOnceOnS3) {
  std::string why_not;
  test::S3TestServer* server = test::S3TestServer::Shared(&why_not);
  if (server == nullptr) GTEST_SKIP() << "no S3 test server: " << why_not;
  if (!RunsOnObjectStores(GetParam())) GTEST_SKIP() << "run on local disk only";
  std::shared_ptr<io::StorageOptions> options = server->Options();
  std::vector<std::pair<std::string, std::string>> environment;
  for (const char* name : {"AWS_ENDPOINT_URL", "AWS_REGION", "AWS_ACCESS_KEY_ID",
                           "AWS_SECRET_ACCESS_KEY", "AWS_CONDITIONAL_PUT"}) {
    environment.emplace_back(name, options->Find({name}).value_or(""));
  }
  KillAtEachStepOnStore(*this, "S3", environment,
                        [server] { return server->NewFolder("stream-crash"); });
}

TEST_P(StreamCrashTest, KilledAtEachStepOfABatchIsExactlyOnceOnAzure) {
  std::string why_not;
  test::AzuriteTestServer* server = test::AzuriteTestServer::Shared(&why_not);
  if (server == nullptr) GTEST_SKIP() << "no Azurite: " << why_not;
  if (!RunsOnObjectStores(GetParam())) GTEST_SKIP() << "run on local disk only";
  KillAtEachStepOnStore(*this, "Azure",
                        {{"AZURE_STORAGE_CONNECTION_STRING", server->ConnectionString()}},
                        [server] { return server->NewFolder("stream-crash"); });
}

INSTANTIATE_TEST_SUITE_P(Sinks, StreamCrashTest,
                         ::testing::Values("delta", "merge", "files", "aggregate", "dedup", "scd1",
                                           "scd2", "merge_flow"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           if (info.param == "delta") return std::string("DeltaSink");
                           if (info.param == "merge") return std::string("ForEachBatchMerge");
                           if (info.param == "files") return std::string("FileSourceDeltaSink");
                           if (info.param == "aggregate") return std::string("StatefulAggregation");
                           if (info.param == "dedup") return std::string("StatefulDeduplication");
                           if (info.param == "scd1") return std::string("AutoCdcScdType1");
                           if (info.param == "scd2") return std::string("AutoCdcScdType2");
                           return std::string("MergeFlow");
                         });

}  // namespace
}  // namespace silt::stream

int main(int argc, char** argv) {
  silt::stream::self_path = "/proc/self/exe";
  char resolved[4096];
  ssize_t length = ::readlink("/proc/self/exe", resolved, sizeof(resolved) - 1);
  if (length > 0) silt::stream::self_path.assign(resolved, static_cast<size_t>(length));
  if (argc == 7 && std::strcmp(argv[1], "--child") == 0) {
    std::string step = argv[4];
    return silt::stream::RunChild(argv[2], argv[3], step == "-" ? "" : step,
                                  std::atoll(argv[5]), std::atoll(argv[6]));
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
