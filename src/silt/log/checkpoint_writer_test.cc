#include "silt/log/checkpoint_writer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "silt/io/path.h"
#include "silt/parquet/reader.h"
#include "silt/log/log_cleanup.h"
#include "silt/log/transaction.h"
#include "silt/types/schema_json.h"

namespace silt::log {
namespace {

using ::testing::HasSubstr;

constexpr const char* kRoot = "mem/t";

std::shared_ptr<io::FileSystem> MakeTable(StringMap configuration, int commits, int files_per_commit = 2) {
  auto fs = io::MakeMemoryFileSystem();
  auto create = Transaction::StartCreate(fs, kRoot);
  Metadata metadata;
  metadata.schema_string = ToDeltaSchemaJson(Schema({Field{"id", LongType(), true, {}}}));
  metadata.configuration = std::move(configuration);
  create->UpdateMetadata(metadata);
  create->Commit();
  for (int commit = 1; commit <= commits; ++commit) {
    auto txn = Transaction::Start(Snapshot::Load(fs, kRoot));
    for (int i = 0; i < files_per_commit; ++i) {
      AddFile add;
      add.path = "f-" + std::to_string(commit) + "-" + std::to_string(i) + ".parquet";
      add.size = 10 + i;
      add.modification_time = commit;
      add.stats = R"({"numRecords":1})";
      add.partition_values = {};
      txn->Add(add);
    }
    if (commit % 3 == 0) {
      // Remove a file of the previous commit so checkpoints carry tombstones.
      AddFile old;
      old.path = "f-" + std::to_string(commit - 1) + "-0.parquet";
      old.size = 10;
      txn->RemoveLiveFile(old);
    }
    txn->SetApplicationTransaction("app", commit);
    txn->Commit();
  }
  return fs;
}

TEST(CheckpointWriterTest, Md5MatchesKnownDigests) {
  EXPECT_EQ(Md5Hex(""), "d41d8cd98f00b204e9800998ecf8427e");
  EXPECT_EQ(Md5Hex("abc"), "900150983cd24fb0d6963f7d28e17f72");
  EXPECT_EQ(Md5Hex(std::string(1000, 'a')), "cabe45dcc9ae5b66ba86600cca6b8ba8");
}

TEST(CheckpointWriterTest, ChecksumMatchesProtocolTestVector) {
  EXPECT_EQ(LastCheckpointChecksum(
                R"({"k0":"'v 0'", "checksum": "adsaskfljadfkjadfkj", "k1":{"k2": 2, "k3": ["v3", [1, 2], {"k4": "v4", "k5": ["v5", "v6", "v7"]}]}})"),
            "6a92d155a59bf2eecbd4b4ec7fd1f875");
}

TEST(CheckpointWriterTest, CommitAtIntervalWritesCheckpointThatReadsBack) {
  auto fs = MakeTable({}, 10);
  EXPECT_TRUE(fs->Stat("mem/t/_delta_log/00000000000000000010.checkpoint.parquet").has_value());
  std::string hint = fs->ReadFile("mem/t/_delta_log/_last_checkpoint");
  EXPECT_THAT(hint, HasSubstr("{\"version\":10,\"size\":"));
  EXPECT_THAT(hint, HasSubstr("\"numOfAddFiles\":17"));
  // The stored checksum verifies.
  std::string without = hint.substr(0, hint.find(",\"checksum\"")) + "}";
  EXPECT_THAT(hint, HasSubstr(LastCheckpointChecksum(without)));

  auto from_checkpoint = Snapshot::Load(fs, kRoot);
  ASSERT_TRUE(from_checkpoint->log_segment().checkpoint.has_value());
  EXPECT_EQ(from_checkpoint->log_segment().checkpoint->version, 10);
  EXPECT_TRUE(from_checkpoint->log_segment().commits.empty());
  EXPECT_EQ(from_checkpoint->files().size(), 17u);
  EXPECT_EQ(from_checkpoint->tombstones().size(), 3u);
  EXPECT_EQ(from_checkpoint->TransactionVersion("app"), 10);

  // Compare with a replay of the JSON commits alone.
  auto json_only = io::MakeMemoryFileSystem();
  for (const auto& entry : fs->List("mem/t/_delta_log")) {
    if (entry.path.ends_with(".json")) json_only->WriteFile(entry.path, fs->ReadFile(entry.path));
  }
  auto replayed = Snapshot::Load(json_only, kRoot);
  auto paths = [](const Snapshot& s) {
    std::vector<std::pair<std::string, std::optional<std::string>>> out;
    for (const auto& f : s.files()) out.emplace_back(f.path, f.stats);
    std::sort(out.begin(), out.end());
    return out;
  };
  EXPECT_EQ(paths(*from_checkpoint), paths(*replayed));
  EXPECT_EQ(from_checkpoint->metadata(), replayed->metadata());
  EXPECT_EQ(from_checkpoint->protocol(), replayed->protocol());
}

TEST(CheckpointWriterTest, ExpiredTombstonesAreLeftOut) {
  auto fs = MakeTable({{"delta.checkpointInterval", "1000"}}, 6);
  CheckpointWriteOptions options;
  options.now_ms = INT64_MAX / 2;  // far future: every tombstone has expired
  CheckpointWriteResult result = WriteCheckpoint(fs, kRoot, 6, options);
  auto snapshot = Snapshot::Load(fs, kRoot);
  EXPECT_EQ(snapshot->log_segment().checkpoint->version, 6);
  EXPECT_TRUE(snapshot->tombstones().empty());
  EXPECT_EQ(result.num_add_files, 10);
}

TEST(CheckpointWriterTest, V2CheckpointFeatureWritesCheckpointMetadata) {
  auto fs = MakeTable({{"delta.checkpointPolicy", "v2"}, {"delta.checkpointInterval", "2"}}, 2);
  auto snapshot = Snapshot::Load(fs, kRoot);
  EXPECT_TRUE(IsFeatureSupported(snapshot->protocol(), "v2Checkpoint"));
  ASSERT_TRUE(snapshot->log_segment().checkpoint.has_value());
  EXPECT_EQ(snapshot->files().size(), 4u);
  EXPECT_EQ(snapshot->log_segment().checkpoint->kind, CheckpointKind::kUuid);
  EXPECT_EQ(snapshot->log_segment().checkpoint->version, 2);
  EXPECT_TRUE(snapshot->log_segment().commits.empty());
  EXPECT_EQ(snapshot->TransactionVersion("app"), 2);
  std::string hint = fs->ReadFile("mem/t/_delta_log/_last_checkpoint");
  EXPECT_THAT(hint, HasSubstr("\"v2Checkpoint\":{\"path\":\"00000000000000000002.checkpoint."));
  std::string without = hint.substr(0, hint.find(",\"checksum\"")) + "}";
  EXPECT_THAT(hint, HasSubstr(LastCheckpointChecksum(without)));
  // A second writer checkpointing the same version adds another complete V2 checkpoint.
  CheckpointWriteResult again = WriteCheckpoint(fs, kRoot, 2);
  EXPECT_TRUE(again.v2);
  EXPECT_FALSE(again.already_existed);
  EXPECT_EQ(Snapshot::Load(fs, kRoot)->files().size(), 4u);
}

TEST(CheckpointWriterTest, LastCheckpointNeverMovesBackwards) {
  auto fs = MakeTable({{"delta.checkpointInterval", "1000"}}, 4);
  WriteCheckpoint(fs, kRoot, 4);
  WriteCheckpoint(fs, kRoot, 2);
  EXPECT_THAT(fs->ReadFile("mem/t/_delta_log/_last_checkpoint"), HasSubstr("{\"version\":4,"));
}

TEST(LogCleanupTest, DeletesOnlyWhatTheCutoffCheckpointMakesRedundant) {
  auto fs = MakeTable({{"delta.checkpointInterval", "5"}}, 12);
  // Commits 0..12 written at t = version * 1000; checkpoints at 5 and 10.
  for (const auto& entry : fs->List("mem/t/_delta_log")) {
    auto name = ParseLogFileName(io::BaseName(entry.path));
    if (name) fs->SetModificationTime(entry.path, name->version * 1000);
  }
  Metadata metadata = Snapshot::Load(fs, kRoot)->metadata();
  metadata.configuration.emplace_back("delta.logRetentionDuration", "interval 1 seconds");
  // Now = 8500: the cut-off 7500 leaves checkpoint 5 as the newest expired one.
  LogCleanupResult result = CleanUpExpiredLogs(*fs, kRoot, metadata, 8500);
  EXPECT_EQ(result.cutoff_checkpoint_version, 5);
  EXPECT_EQ(result.deleted_files, 5);  // commits 0..4
  EXPECT_FALSE(fs->Stat("mem/t/_delta_log/00000000000000000004.json").has_value());
  EXPECT_TRUE(fs->Stat("mem/t/_delta_log/00000000000000000005.json").has_value());
  auto snapshot = Snapshot::Load(fs, kRoot);
  EXPECT_EQ(snapshot->version(), 12);
  SnapshotOptions at5;
  at5.version = 5;
  EXPECT_EQ(Snapshot::Load(fs, kRoot, at5)->version(), 5);
  // Disabled cleanup deletes nothing.
  metadata.configuration.emplace_back("delta.enableExpiredLogCleanup", "false");
  EXPECT_EQ(CleanUpExpiredLogs(*fs, kRoot, metadata, INT64_MAX / 2).deleted_files, 0);
}

TEST(CheckpointWriterTest, WritesTypedPartitionValuesAndStats) {
  auto fs = io::MakeMemoryFileSystem();
  auto create = Transaction::StartCreate(fs, kRoot);
  Metadata metadata;
  metadata.schema_string = ToDeltaSchemaJson(Schema({Field{"id", LongType(), true, {}},
                                                     Field{"day", DateType(), true, {}}}));
  metadata.partition_columns = {"day"};
  create->UpdateMetadata(metadata);
  create->Commit();
  auto txn = Transaction::Start(Snapshot::Load(fs, kRoot));
  AddFile add;
  add.path = "day=2024-01-02/f.parquet";
  add.partition_values = {{"day", "2024-01-02"}};
  add.size = 5;
  add.stats = R"({"numRecords":3,"minValues":{"id":-4},"maxValues":{"id":9},"nullCount":{"id":1}})";
  txn->Add(add);
  txn->Commit();
  CheckpointWriteResult result = WriteCheckpoint(fs, kRoot, 1);

  auto reader = parquet::FileReader::Open(*fs, result.path);
  Batch batch = ConcatenateBatches(reader->Read());
  int add_index = batch.schema()->FieldIndex("add");
  ASSERT_GE(add_index, 0);
  const VectorPtr& adds = batch.column(static_cast<size_t>(add_index));
  const DataType& add_type = *adds->type();
  int parsed_index = add_type.FieldIndex("partitionValues_parsed");
  int stats_index = add_type.FieldIndex("stats_parsed");
  ASSERT_GE(parsed_index, 0);
  ASSERT_GE(stats_index, 0);
  VectorPtr parsed = adds->StructField(static_cast<size_t>(parsed_index));
  VectorPtr stats = adds->StructField(static_cast<size_t>(stats_index));
  int64_t row = -1;
  for (int64_t i = 0; i < batch.num_rows(); ++i) {
    if (adds->IsValid(i)) row = i;
  }
  ASSERT_GE(row, 0);
  VectorPtr day = parsed->StructField(0);
  EXPECT_EQ(day->type_id(), TypeId::kDate);
  EXPECT_EQ(day->values<int32_t>()[row], 19724);  // 2024-01-02
  const DataType& stats_type = *stats->type();
  EXPECT_EQ(stats->StructField(static_cast<size_t>(stats_type.FieldIndex("numRecords")))->values<int64_t>()[row], 3);
  VectorPtr min = stats->StructField(static_cast<size_t>(stats_type.FieldIndex("minValues")));
  EXPECT_EQ(min->StructField(0)->values<int64_t>()[row], -4);
  VectorPtr nulls = stats->StructField(static_cast<size_t>(stats_type.FieldIndex("nullCount")));
  EXPECT_EQ(nulls->StructField(0)->values<int64_t>()[row], 1);
  // The reading side still reconstructs the same state from it.
  auto snapshot = Snapshot::Load(fs, kRoot);
  ASSERT_EQ(snapshot->files().size(), 1u);
  EXPECT_EQ(snapshot->files()[0].stats, add.stats);
}

}  // namespace
}  // namespace silt::log
