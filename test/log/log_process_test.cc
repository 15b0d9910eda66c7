// Crash-safety and multi-process concurrency tests of the Delta commit path (issue 4):
//  - writer processes SIGKILLed at random moments: the table always opens, every acknowledged
//    commit is present, no partial commit is ever visible;
//  - fault injection (failed calls, lost replies, torn writes, lost unsynced data);
//  - several processes appending to one local table at once, and pairs of processes whose
//    commits conflict in each of Delta's ways.
//
// Child processes are this binary re-executed with a "--child" mode (fork + exec, so that no
// thread pool state of the parent is inherited by a forked child). The binary has its own main.

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "silt/base/check.h"
#include "silt/io/fault_injecting_file_system.h"
#include "silt/io/path.h"
#include "silt/log/log_segment.h"
#include "silt/log/table_scan.h"
#include "silt/log/table_writer.h"
#include "silt/log/transaction.h"
#include "silt/types/schema_json.h"
#include "support/duckdb_peer.h"
#include "support/temp_dir.h"

namespace silt::log {
namespace {

std::string self_path;  // this binary, for re-executing as a child

Schema RowSchema() {
  return Schema({Field{"id", LongType(), true, {}}, Field{"part", StringType(), true, {}}});
}

Batch OneRow(int64_t id, const std::string& part) {
  VectorBuilder ids(LongType()), parts(StringType());
  ids.AppendInt(id);
  parts.AppendString(part);
  return Batch(std::make_shared<const Schema>(RowSchema()), {ids.Finish(), parts.Finish()}, 1);
}

void CreateRowTable(std::shared_ptr<io::FileSystem> fs, const std::string& root, StringMap configuration,
                    bool partitioned) {
  CreateTableOptions options;
  options.schema = RowSchema();
  options.configuration = std::move(configuration);
  if (partitioned) options.partition_columns = {"part"};
  CreateTable(std::move(fs), root, options);
}

// Starts this binary with `arguments`; `keep_fds` stay open in the child (others are CLOEXEC
// or closed by exec as usual).
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

int WaitExitCode(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Reads one acknowledgement; false when the writer exited (the pipe closed) first.
bool ReadAck(int fd, std::vector<int64_t>& acks) {
  int64_t value;
  if (::read(fd, &value, sizeof(value)) != static_cast<ssize_t>(sizeof(value))) return false;
  acks.push_back(value);
  return true;
}

// Every commit file must parse completely and start with commitInfo: a partial commit would
// fail to parse or miss lines.
void ExpectEveryCommitWhole(io::FileSystem& fs, const std::string& root) {
  for (const auto& commit : ListCommits(fs, root)) {
    std::vector<Action> actions = ParseActions(fs.ReadFile(commit.file.path), commit.file.path);
    ASSERT_FALSE(actions.empty()) << commit.file.path;
    EXPECT_TRUE(std::holds_alternative<CommitInfo>(actions[0])) << commit.file.path;
  }
}

// ---- crash safety ----

// The kill points follow the writer's progress, not the clock, so a slow or loaded machine
// moves them but cannot take commits away from the test: each run waits for the writer to
// acknowledge a random number of commits (0 to 12, so kills land before the first commit, on
// checkpoint versions and between them), then kills it a random few microseconds into its next
// commit, while it writes data, its commit file, a checkpoint or _last_checkpoint.
TEST(LogCrashTest, WriterKilledAtRandomPointsKeepsEveryAcknowledgedCommit) {
  test::TempDir dir;
  auto fs = io::MakeLocalFileSystem();
  std::mt19937_64 random(20261129);
  int runs_with_commits = 0;
  constexpr int kRuns = 200;
  for (int run = 0; run < kRuns; ++run) {
    std::string root = dir.Child("t" + std::to_string(run));
    // Checkpoint often so kills also land inside checkpoint and _last_checkpoint writes.
    CreateRowTable(fs, root, {{"delta.checkpointInterval", "3"}}, false);
    int pipe_fds[2];
    ASSERT_EQ(::pipe(pipe_fds), 0);
    pid_t child = Spawn({"--child", "crash-writer", root, std::to_string(pipe_fds[1])});
    ::close(pipe_fds[1]);
    size_t wait_for = random() % 13;
    std::vector<int64_t> acked;
    bool writer_alive = true;
    while (acked.size() < wait_for && writer_alive) writer_alive = ReadAck(pipe_fds[0], acked);
    ASSERT_TRUE(writer_alive) << "the writer exited before its " << wait_for << "th commit";
    std::this_thread::sleep_for(std::chrono::microseconds(random() % 3'000));
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
    while (ReadAck(pipe_fds[0], acked)) {
    }
    ::close(pipe_fds[0]);
    EXPECT_GE(acked.size(), wait_for);
    if (!acked.empty()) ++runs_with_commits;

    auto snapshot = Snapshot::Load(fs, root);  // the table always opens
    int64_t newest_acked = acked.empty() ? 0 : *std::max_element(acked.begin(), acked.end());
    EXPECT_GE(snapshot->version(), newest_acked) << root;
    std::set<std::string> live;
    for (const auto& file : snapshot->files()) live.insert(file.path);
    for (int64_t version : acked) {
      // The child adds "v<iteration>-<n>.parquet"; it acknowledges the commit's version.
      SnapshotOptions at;
      at.version = version;
      EXPECT_NO_THROW(Snapshot::Load(fs, root, at)) << root << " version " << version;
    }
    // Every file the child acknowledged is live (the child only appends).
    EXPECT_GE(live.size(), acked.size() * 2) << root;
    ExpectEveryCommitWhole(*fs, root);
    if (HasFailure()) break;
  }
  // About 12 in 13 runs wait for at least one acknowledged commit.
  EXPECT_GT(runs_with_commits, kRuns * 3 / 4);
}

// Applies random faults around commits on a memory file system and checks the invariants after
// each step, then after a simulated power loss.
TEST(LogCrashTest, FaultInjectionNeverCorruptsTheTable) {
  std::mt19937_64 random(42);
  for (int run = 0; run < 60; ++run) {
    auto memory = io::MakeMemoryFileSystem();
    auto fs = io::FaultInjectingFileSystem::Make(memory);
    const std::string root = "mem/faults";
    CreateRowTable(memory, root, {{"delta.checkpointInterval", "4"}}, true);
    std::set<int64_t> acked_ids;
    for (int64_t step = 0; step < 16; ++step) {
      switch (random() % 5) {
        case 0: fs->FailNthCallOfAny(1 + random() % 25); break;
        case 1: fs->FailAfterNthCall(io::FileOperation::kPutIfAbsent, 1); break;
        case 2: fs->TearNextWrite(); break;
        case 3: fs->FailNthCall(io::FileOperation::kRename, 1); break;
        default: break;
      }
      try {
        WriteResult result = AppendToTable(fs, root, {OneRow(step, step % 2 ? "odd" : "even")});
        if (result.commit) acked_ids.insert(step);
      } catch (const Error& error) {
        // Only storage faults may escape; never a corruption or internal error.
        EXPECT_EQ(error.category(), ErrorCategory::kIo) << error.what();
      }
      fs->ClearFaults();
    }
    if (random() % 2) fs->DropUnsyncedWrites();
    auto snapshot = Snapshot::Load(memory, root);
    ExpectEveryCommitWhole(*memory, root);
    std::set<int64_t> ids;
    for (const auto& batch : TableScan::Make(snapshot)->Read()) {
      for (int64_t row = 0; row < batch.num_rows(); ++row) ids.insert(batch.column(0)->values<int64_t>()[row]);
    }
    // Every acknowledged row is readable; an unacknowledged commit may or may not have landed
    // (a lost reply), but then its rows are complete too.
    for (int64_t id : acked_ids) EXPECT_TRUE(ids.count(id)) << "run " << run << " id " << id;
    if (HasFailure()) break;
  }
}

// ---- concurrency ----

TEST(LogConcurrencyTest, FourProcessesAppendingAllLand) {
  test::TempDir dir;
  auto fs = io::MakeLocalFileSystem();
  std::string root = dir.Child("table");
  CreateRowTable(fs, root, {}, false);
  constexpr int kProcesses = 4;
  constexpr int kCommits = 100;
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    children.push_back(Spawn({"--child", "appender", root, std::to_string(p), std::to_string(kCommits)}));
  }
  for (pid_t child : children) EXPECT_EQ(WaitExitCode(child), 0);
  auto snapshot = Snapshot::Load(fs, root);
  EXPECT_EQ(snapshot->version(), kProcesses * kCommits);
  EXPECT_EQ(snapshot->files().size(), static_cast<size_t>(kProcesses * kCommits));
  std::vector<int64_t> ids;
  for (const auto& batch : TableScan::Make(snapshot)->Read()) {
    for (int64_t row = 0; row < batch.num_rows(); ++row) ids.push_back(batch.column(0)->values<int64_t>()[row]);
  }
  std::sort(ids.begin(), ids.end());
  std::vector<int64_t> expected;
  for (int p = 0; p < kProcesses; ++p) {
    for (int i = 0; i < kCommits; ++i) expected.push_back(p * 1000 + i);
  }
  EXPECT_EQ(ids, expected);
  ExpectEveryCommitWhole(*fs, root);
  // Checkpoints were written along the way and read back.
  EXPECT_TRUE(snapshot->log_segment().checkpoint.has_value());
}

// Runs a winner and a loser process: both prepare their transaction on the same snapshot, the
// winner commits first, then the loser; returns what the loser reported (its error class or
// "committed").
std::string RunConflictPair(const std::string& root, const std::string& winner, const std::string& loser) {
  int ready[2], go_winner[2], go_loser[2], report[2];
  EXPECT_EQ(::pipe(ready), 0);
  EXPECT_EQ(::pipe(go_winner), 0);
  EXPECT_EQ(::pipe(go_loser), 0);
  EXPECT_EQ(::pipe(report), 0);
  auto spawn = [&](const std::string& kind, int go_fd) {
    return Spawn({"--child", "conflict", root, kind, std::to_string(ready[1]), std::to_string(go_fd),
                  std::to_string(report[1])});
  };
  pid_t winner_pid = spawn(winner, go_winner[0]);
  pid_t loser_pid = spawn(loser, go_loser[0]);
  ::close(ready[1]);
  ::close(report[1]);
  char byte;
  for (int i = 0; i < 2; ++i) EXPECT_EQ(::read(ready[0], &byte, 1), 1);  // both prepared
  EXPECT_EQ(::write(go_winner[1], "g", 1), 1);
  EXPECT_EQ(WaitExitCode(winner_pid), 0);
  EXPECT_EQ(::write(go_loser[1], "g", 1), 1);
  EXPECT_EQ(WaitExitCode(loser_pid), 0);
  std::string reports;
  char buffer[256];
  ssize_t got;
  while ((got = ::read(report[0], buffer, sizeof(buffer))) > 0) reports.append(buffer, static_cast<size_t>(got));
  for (int fd : {ready[0], go_winner[0], go_winner[1], go_loser[0], go_loser[1], report[0]}) ::close(fd);
  // Reports are "<kind>=<outcome>\n"; return the loser's outcome.
  std::string key = loser + "=";
  size_t at = reports.rfind(key);
  if (at == std::string::npos) return "no report: " + reports;
  return reports.substr(at + key.size(), reports.find('\n', at) - at - key.size());
}

TEST(LogConcurrencyTest, ConflictingProcessPairsRaiseDeltaErrors) {
  test::TempDir dir;
  auto fs = io::MakeLocalFileSystem();
  int table = 0;
  auto fresh = [&]() {
    std::string root = dir.Child("t" + std::to_string(table++));
    CreateRowTable(fs, root, {}, true);
    AppendToTable(fs, root, {OneRow(1, "a")});
    return root;
  };
  EXPECT_EQ(RunConflictPair(fresh(), "blind-append-a", "read-a-then-write"), "DELTA_CONCURRENT_APPEND");
  EXPECT_EQ(RunConflictPair(fresh(), "blind-append-b", "read-a-then-write"), "committed");
  EXPECT_EQ(RunConflictPair(fresh(), "delete-all", "delete-all-2"), "DELTA_CONCURRENT_DELETE_DELETE");
  EXPECT_EQ(RunConflictPair(fresh(), "delete-all", "read-a-then-write"), "DELTA_CONCURRENT_DELETE_READ");
  EXPECT_EQ(RunConflictPair(fresh(), "alter", "blind-append-b"), "DELTA_METADATA_CHANGED");
  EXPECT_EQ(RunConflictPair(fresh(), "stream-batch", "stream-batch-2"), "DELTA_CONCURRENT_TRANSACTION");
  EXPECT_EQ(RunConflictPair(fresh(), "blind-append-a", "blind-append-b"), "committed");
}

// ---- interop ----

// DuckDB, an independent Parquet implementation, reads the data files silt wrote (with Hive
// partition folders) and agrees with the log on rows and partition values.
TEST(LogInteropTest, DuckDbReadsWrittenDataFilesAndPartitionFolders) {
  test::TempDir dir;
  auto fs = io::MakeLocalFileSystem();
  std::string root = dir.Child("table");
  CreateRowTable(fs, root, {}, true);
  AppendToTable(fs, root, {OneRow(1, "a"), OneRow(2, "b:c"), OneRow(3, "a")});
  auto snapshot = Snapshot::Load(fs, root);
  ASSERT_EQ(snapshot->files().size(), 2u);  // one file per partition
  std::string output;
  try {
    output = test::RunDuckDb({"SELECT id, part FROM read_parquet(" + test::SqlQuote(root + "/*/*.parquet") +
                              ", hive_partitioning = true) ORDER BY id"});
  } catch (const std::runtime_error& error) {
    GTEST_SKIP() << "DuckDB peer unavailable: " << error.what();
  }
  EXPECT_EQ(output, "id,part\n1,a\n2,b:c\n3,a\n");
  // Each add's size is the file's size, and numRecords its row count.
  for (const auto& add : snapshot->files()) {
    std::string path = snapshot->ResolvePath(add.path);
    EXPECT_EQ(static_cast<int64_t>(fs->Stat(path)->size), add.size);
    std::string count = test::RunDuckDb({"SELECT count(*) AS n FROM read_parquet(" + test::SqlQuote(path) + ")"});
    int64_t expected = add.partition_values[0].second == "a" ? 2 : 1;
    EXPECT_EQ(count, "n\n" + std::to_string(expected) + "\n");
    EXPECT_THAT(*add.stats, ::testing::StartsWith("{\"numRecords\":" + std::to_string(expected) + ","));
  }
}

// DuckDB reads a checkpoint silt wrote: one row per action, the add rows with their typed
// partition values.
TEST(LogInteropTest, DuckDbReadsWrittenCheckpoint) {
  test::TempDir dir;
  auto fs = io::MakeLocalFileSystem();
  std::string root = dir.Child("table");
  CreateRowTable(fs, root, {{"delta.checkpointInterval", "3"}}, true);
  for (int i = 0; i < 3; ++i) AppendToTable(fs, root, {OneRow(i, i == 1 ? "b" : "a")});
  std::string checkpoint = root + "/_delta_log/00000000000000000003.checkpoint.parquet";
  ASSERT_TRUE(fs->Stat(checkpoint).has_value());
  std::string output;
  try {
    output = test::RunDuckDb({"SELECT count(add) AS adds, count(metaData) AS metadata, count(protocol) AS protocols, "
                              "string_agg(add.partitionValues_parsed.part, ',' ORDER BY add.partitionValues_parsed.part) AS parts, "
                              "sum(add.stats_parsed.numRecords) AS records FROM read_parquet(" +
                              test::SqlQuote(checkpoint) + ")"});
  } catch (const std::runtime_error& error) {
    GTEST_SKIP() << "DuckDB peer unavailable: " << error.what();
  }
  EXPECT_EQ(output, "adds,metadata,protocols,parts,records\n3,1,1,\"a,a,b\",3\n");
}

// ---- child modes ----

int CrashWriterChild(const std::string& root, int ack_fd) {
  auto fs = io::MakeLocalFileSystem();
  for (int iteration = 0; iteration < 1000; ++iteration) {
    auto txn = Transaction::StartLatest(fs, root);
    for (int n = 0; n < 2; ++n) {
      AddFile add;
      add.path = "v" + std::to_string(iteration) + "-" + std::to_string(n) + ".parquet";
      add.size = 1;
      add.modification_time = 1;
      add.stats = "{\"numRecords\":1}";
      txn->Add(add);
    }
    CommitResult result = txn->Commit();
    int64_t version = result.version;
    if (::write(ack_fd, &version, sizeof(version)) != sizeof(version)) return 2;
  }
  return 0;
}

int AppenderChild(const std::string& root, int process, int commits) {
  auto fs = io::MakeLocalFileSystem();
  for (int i = 0; i < commits; ++i) AppendToTable(fs, root, {OneRow(process * 1000 + i, "p")});
  return 0;
}

int ConflictChild(const std::string& root, const std::string& kind, int ready_fd, int go_fd, int report_fd) {
  auto fs = io::MakeLocalFileSystem();
  auto txn = Transaction::Start(Snapshot::Load(fs, root));
  auto add_row = [&](const std::string& part) {
    auto writer = DataFileWriter::Make(fs, root, txn->metadata());
    writer->Write(OneRow(7, part));
    for (auto& add : writer->Finish()) txn->Add(std::move(add));
  };
  if (kind == "blind-append-a") {
    add_row("a");
  } else if (kind == "blind-append-b") {
    add_row("b");
  } else if (kind == "read-a-then-write") {
    txn->FilterFiles(ReadPredicate{{ScanPredicate{"part", ScanPredicate::Op::kEqual, "a"}}});
    add_row("a");
  } else if (kind == "delete-all" || kind == "delete-all-2") {
    // "delete-all-2" removes without recording a read (as a path-based delete would), so that
    // the delete/delete check (after the delete/read check in Delta's order) decides.
    for (const auto& file : txn->snapshot()->files()) {
      if (kind == "delete-all") txn->RecordReadFile(file);
      txn->RemoveLiveFile(file);
    }
  } else if (kind == "alter") {
    Metadata metadata = txn->metadata();
    metadata.configuration.emplace_back("delta.appendOnly", "true");
    txn->UpdateMetadata(metadata);
    txn->SetOperation("SET TBLPROPERTIES");
  } else if (kind == "stream-batch" || kind == "stream-batch-2") {
    txn->ReadTransactionVersion("query-1");
    txn->SetApplicationTransaction("query-1", 0);
    add_row("a");
  } else {
    return 3;
  }
  if (::write(ready_fd, "r", 1) != 1) return 4;
  char byte;
  if (::read(go_fd, &byte, 1) != 1) return 5;
  std::string outcome;
  try {
    txn->Commit();
    outcome = "committed";
  } catch (const Error& error) {
    outcome = std::string(error.error_class());
  }
  std::string line = kind + "=" + outcome + "\n";
  return ::write(report_fd, line.data(), line.size()) == static_cast<ssize_t>(line.size()) ? 0 : 6;
}

int RunChild(int argc, char** argv) {
  std::string mode = argv[2];
  try {
    if (mode == "crash-writer" && argc == 5) return CrashWriterChild(argv[3], std::atoi(argv[4]));
    if (mode == "appender" && argc == 6) return AppenderChild(argv[3], std::atoi(argv[4]), std::atoi(argv[5]));
    if (mode == "conflict" && argc == 8) {
      return ConflictChild(argv[3], argv[4], std::atoi(argv[5]), std::atoi(argv[6]), std::atoi(argv[7]));
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "child %s failed: %s\n", mode.c_str(), error.what());
    return 1;
  }
  return 2;
}

}  // namespace
}  // namespace silt::log

int main(int argc, char** argv) {
  silt::log::self_path = "/proc/self/exe";
  char resolved[4096];
  ssize_t length = ::readlink("/proc/self/exe", resolved, sizeof(resolved) - 1);
  if (length > 0) silt::log::self_path.assign(resolved, static_cast<size_t>(length));
  if (argc >= 3 && std::strcmp(argv[1], "--child") == 0) return silt::log::RunChild(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
