#include "silt/log/snapshot.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "silt/error.h"
#include "silt/log/log_segment.h"

namespace silt::log {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

constexpr char kProtocol[] = R"({"protocol":{"minReaderVersion":1,"minWriterVersion":2}})";
constexpr char kMetadata[] =
    R"({"metaData":{"id":"t1","format":{"provider":"parquet","options":{}},"schemaString":"{\"type\":\"struct\",\"fields\":[{\"name\":\"id\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}}]}","partitionColumns":[],"configuration":{"k":"v"}}})";

std::string Add(const std::string& path, const std::string& extra = "") {
  return R"({"add":{"path":")" + path +
         R"(","partitionValues":{},"size":1,"modificationTime":1,"dataChange":true)" + extra + "}}";
}
std::string Remove(const std::string& path, const std::string& extra = "") {
  return R"({"remove":{"path":")" + path + R"(","deletionTimestamp":5,"dataChange":true)" + extra +
         "}}";
}
std::string Dv(const std::string& id) {
  return R"(,"deletionVector":{"storageType":"u","pathOrInlineDv":")" + id +
         R"(","offset":1,"sizeInBytes":10,"cardinality":1})";
}

SnapshotOptions AtVersion(int64_t version) {
  SnapshotOptions options;
  options.version = version;
  return options;
}
SnapshotOptions AtTimestamp(int64_t timestamp_ms) {
  SnapshotOptions options;
  options.timestamp_ms = timestamp_ms;
  return options;
}
SnapshotOptions NoCompactions() {
  SnapshotOptions options;
  options.use_compactions = false;
  return options;
}

class SnapshotTest : public ::testing::Test {
 protected:
  void Commit(int64_t version, const std::vector<std::string>& lines, int64_t mtime = 0) {
    std::string text;
    for (const auto& line : lines) text += line + "\n";
    std::string path = "t/_delta_log/" + FormatVersion(version) + ".json";
    fs_->WriteFile(path, text);
    fs_->SetModificationTime(path, mtime > 0 ? mtime : 1000 * (version + 1));
  }
  std::vector<std::string> Paths(const Snapshot& snapshot) {
    std::vector<std::string> paths;
    for (const auto& add : snapshot.files()) {
      paths.push_back(add.path + (add.deletion_vector ? "#" + add.deletion_vector->UniqueId() : ""));
    }
    std::sort(paths.begin(), paths.end());
    return paths;
  }
  std::string ErrorClassOf(const std::function<void()>& body) {
    try {
      body();
    } catch (const Error& error) {
      return std::string(error.error_class());
    }
    return "no error";
  }

  std::shared_ptr<io::FileSystem> fs_ = io::MakeMemoryFileSystem();
};

TEST_F(SnapshotTest, ReplaysAddsRemovesAndReAdds) {
  Commit(0, {R"({"commitInfo":{"timestamp":1}})", kProtocol, kMetadata, Add("a"), Add("b")});
  Commit(1, {Remove("a"), Add("c")});
  Commit(2, {Add("a", R"(,"modificationTime":77)")});
  auto snapshot = Snapshot::Load(fs_, "t");
  EXPECT_EQ(snapshot->version(), 2);
  EXPECT_THAT(Paths(*snapshot), ElementsAre("a", "b", "c"));
  EXPECT_TRUE(snapshot->tombstones().empty());
  EXPECT_EQ(*snapshot->Property("k"), "v");
  EXPECT_EQ(snapshot->timestamp_ms(), 3000);

  auto v1 = Snapshot::Load(fs_, "t", AtVersion(1));
  EXPECT_THAT(Paths(*v1), ElementsAre("b", "c"));
  ASSERT_EQ(v1->tombstones().size(), 1u);
  EXPECT_EQ(v1->tombstones()[0].path, "a");
}

TEST_F(SnapshotTest, DeletionVectorKeysReconcileSeparately) {
  Commit(0, {kProtocol, kMetadata, Add("f"), Add("g")});
  // Replace f's DV: remove (f, none), add (f, d1).
  Commit(1, {Remove("f"), Add("f", Dv("d1"))});
  // Replace again: remove (f, d1), add (f, d2).
  Commit(2, {Remove("f", Dv("d1")), Add("f", Dv("d2"))});
  auto snapshot = Snapshot::Load(fs_, "t");
  EXPECT_THAT(Paths(*snapshot), ElementsAre("f#ud2@1", "g"));
  EXPECT_EQ(snapshot->tombstones().size(), 2u);
}

TEST_F(SnapshotTest, PathsAreDecodedOnceForTheKey) {
  Commit(0, {kProtocol, kMetadata, Add("p=a%20b/f.parquet")});
  Commit(1, {Remove("p=a b/f.parquet")});
  auto snapshot = Snapshot::Load(fs_, "t");
  EXPECT_TRUE(snapshot->files().empty());
  EXPECT_EQ(snapshot->ResolvePath("p=a%2520b/f.parquet"), "t/p=a%20b/f.parquet");
  EXPECT_EQ(snapshot->ResolvePath("file:/abs/f.parquet"), "/abs/f.parquet");
  EXPECT_EQ(snapshot->ResolvePath("file:///abs/f.parquet"), "/abs/f.parquet");
}

TEST_F(SnapshotTest, TransactionsDomainsProtocolAndMetadataTakeTheNewest) {
  Commit(0, {kProtocol, kMetadata, R"({"txn":{"appId":"app","version":1}})",
             R"({"domainMetadata":{"domain":"d1","configuration":"{}","removed":false}})",
             R"({"domainMetadata":{"domain":"d2","configuration":"x","removed":false}})"});
  Commit(1, {R"({"txn":{"appId":"app","version":3}})", R"({"txn":{"appId":"other","version":2}})",
             R"({"domainMetadata":{"domain":"d1","configuration":"{}","removed":true}})",
             R"({"protocol":{"minReaderVersion":1,"minWriterVersion":4}})"});
  auto snapshot = Snapshot::Load(fs_, "t");
  EXPECT_EQ(snapshot->TransactionVersion("app"), 3);
  EXPECT_EQ(snapshot->TransactionVersion("other"), 2);
  EXPECT_EQ(snapshot->TransactionVersion("none"), std::nullopt);
  ASSERT_EQ(snapshot->domain_metadata().size(), 1u);
  EXPECT_EQ(snapshot->domain_metadata().at("d2").configuration, "x");
  EXPECT_EQ(snapshot->protocol().min_writer_version, 4);
}

TEST_F(SnapshotTest, UuidJsonCheckpointWithLaterCommits) {
  Commit(0, {kProtocol, kMetadata, Add("old")});
  Commit(1, {Add("x")});
  Commit(2, {Add("y")});
  // The checkpoint at v1 disagrees with commit 0 on purpose: it must be used instead of v0/v1.
  fs_->WriteFile("t/_delta_log/" + FormatVersion(1) +
                     ".checkpoint.3a0d65cd-4056-49b8-937b-95f9e3ee90e5.json",
                 std::string(kProtocol) + "\n" + kMetadata + "\n" + Add("from-checkpoint") + "\n" +
                     R"({"checkpointMetadata":{"version":1}})" + "\n");
  fs_->WriteFile("t/_delta_log/_last_checkpoint", R"({"version":1,"size":4})");
  auto snapshot = Snapshot::Load(fs_, "t");
  EXPECT_THAT(Paths(*snapshot), ElementsAre("from-checkpoint", "y"));
  ASSERT_TRUE(snapshot->log_segment().checkpoint.has_value());
  EXPECT_EQ(snapshot->log_segment().checkpoint->version, 1);
  // Time travel before the checkpoint must not use it.
  EXPECT_THAT(Paths(*Snapshot::Load(fs_, "t", AtVersion(0))), ElementsAre("old"));
}

TEST_F(SnapshotTest, LastCheckpointHintMayBeEmptyCorruptOrStale) {
  Commit(0, {kProtocol, kMetadata, Add("a")});
  Commit(1, {Add("b")});
  for (std::string hint : {"", "{not json", R"({"version":17,"size":1})", R"({"size":1})"}) {
    fs_->WriteFile("t/_delta_log/_last_checkpoint", hint);
    EXPECT_THAT(Paths(*Snapshot::Load(fs_, "t")), ElementsAre("a", "b")) << hint;
  }
}

TEST_F(SnapshotTest, IncompleteMultiPartCheckpointIsIgnored) {
  Commit(0, {kProtocol, kMetadata, Add("a")});
  Commit(1, {Add("b")});
  fs_->WriteFile("t/_delta_log/" + FormatVersion(1) + ".checkpoint.0000000001.0000000002.parquet",
                 "not parquet");
  fs_->WriteFile("t/_delta_log/_last_checkpoint", R"({"version":1,"size":3,"parts":2})");
  auto snapshot = Snapshot::Load(fs_, "t");
  EXPECT_FALSE(snapshot->log_segment().checkpoint.has_value());
  EXPECT_THAT(Paths(*snapshot), ElementsAre("a", "b"));
}

TEST_F(SnapshotTest, GapIsRefused) {
  Commit(0, {kProtocol, kMetadata, Add("a")});
  Commit(2, {Add("b")});
  EXPECT_EQ(ErrorClassOf([&] { Snapshot::Load(fs_, "t"); }), "DELTA_VERSIONS_NOT_CONTIGUOUS");
  EXPECT_THAT(Paths(*Snapshot::Load(fs_, "t", AtVersion(0))), ElementsAre("a"));
}

TEST_F(SnapshotTest, MissingTableVersionsAndState) {
  EXPECT_EQ(ErrorClassOf([&] { Snapshot::Load(fs_, "t"); }), "DELTA_MISSING_DELTA_TABLE");
  Commit(0, {kProtocol, Add("a")});
  EXPECT_EQ(ErrorClassOf([&] { Snapshot::Load(fs_, "t"); }), "DELTA_STATE_RECOVER_ERROR");
  Commit(0, {kMetadata, Add("a")});
  EXPECT_EQ(ErrorClassOf([&] { Snapshot::Load(fs_, "t"); }), "DELTA_STATE_RECOVER_ERROR");
  Commit(0, {kProtocol, kMetadata});
  EXPECT_EQ(ErrorClassOf([&] { Snapshot::Load(fs_, "t", AtVersion(5)); }),
            "DELTA_VERSION_NOT_FOUND");
  Commit(0, {R"({"protocol":{"minReaderVersion":99,"minWriterVersion":7}})", kMetadata});
  EXPECT_EQ(ErrorClassOf([&] { Snapshot::Load(fs_, "t"); }), "DELTA_INVALID_PROTOCOL_VERSION");
  Commit(0, {kProtocol, kMetadata, "{\"add\":"});
  EXPECT_EQ(ErrorClassOf([&] { Snapshot::Load(fs_, "t"); }), "DELTA_INVALID_LOG_ENTRY");
}

TEST_F(SnapshotTest, UnreconciledCompactionUsesFirstSeenWins) {
  Commit(0, {kProtocol, kMetadata, Add("a")});
  Commit(1, {Remove("a"), Add("b")});
  Commit(2, {Remove("b"), Add("c")});
  Commit(3, {Add("d")});
  // Newest-first, not reconciled: both the add and the remove of b appear.
  fs_->WriteFile("t/_delta_log/" + FormatVersion(0) + "." + FormatVersion(2) + ".compacted.json",
                 Remove("b") + "\n" + Add("c") + "\n" + Remove("a") + "\n" + Add("b") + "\n" +
                     kProtocol + "\n" + kMetadata + "\n" + Add("a") + "\n");
  auto snapshot = Snapshot::Load(fs_, "t");
  EXPECT_THAT(Paths(*snapshot), ElementsAre("c", "d"));
  auto without = Snapshot::Load(fs_, "t", NoCompactions());
  EXPECT_THAT(Paths(*without), ElementsAre("c", "d"));
}

TEST_F(SnapshotTest, TimeTravelByTimestamp) {
  Commit(0, {kProtocol, kMetadata, Add("a")}, 1540415658000);
  Commit(1, {Add("b")}, 1540416858000);
  Commit(2, {Add("c")}, 1540418058000);
  EXPECT_EQ(VersionAtTimestamp(*fs_, "t", 1540416858000), 1);
  EXPECT_EQ(VersionAtTimestamp(*fs_, "t", 1540416858001), 1);
  EXPECT_EQ(VersionAtTimestamp(*fs_, "t", 1540418058000), 2);
  auto snapshot = Snapshot::Load(fs_, "t", AtTimestamp(1540416000000));
  EXPECT_EQ(snapshot->version(), 0);
  EXPECT_EQ(ErrorClassOf([&] { VersionAtTimestamp(*fs_, "t", 1540418058001); }),
            "DELTA_TIMESTAMP_GREATER_THAN_COMMIT");
  EXPECT_EQ(VersionAtTimestamp(*fs_, "t", 1540418058001, /*allow_after_latest=*/true), 2);
  EXPECT_EQ(ErrorClassOf([&] { VersionAtTimestamp(*fs_, "t", 1); }),
            "DELTA_TIMESTAMP_EARLIER_THAN_COMMIT_RETENTION");
}

TEST_F(SnapshotTest, TimeTravelByTimestampBeforeTheHintedCheckpoint) {
  Commit(0, {kProtocol, kMetadata, Add("a")}, 1000);
  Commit(1, {Add("b")}, 2000);
  Commit(2, {Add("c")}, 3000);
  fs_->WriteFile("t/_delta_log/" + FormatVersion(1) +
                     ".checkpoint.3a0d65cd-4056-49b8-937b-95f9e3ee90e5.json",
                 std::string(kProtocol) + "\n" + kMetadata + "\n" + Add("a") + "\n" + Add("b") + "\n");
  fs_->WriteFile("t/_delta_log/_last_checkpoint", R"({"version":1,"size":4})");
  EXPECT_EQ(EarliestReconstructableVersion(*fs_, "t"), 0);
  EXPECT_EQ(VersionAtTimestamp(*fs_, "t", 1500), 0);
  EXPECT_THAT(Paths(*Snapshot::Load(fs_, "t", AtTimestamp(1500))), ElementsAre("a"));
  // Once commit 0 is cleaned up, only the checkpoint's version and later remain.
  fs_->Delete("t/_delta_log/" + FormatVersion(0) + ".json");
  EXPECT_EQ(EarliestReconstructableVersion(*fs_, "t"), 1);
  EXPECT_EQ(ErrorClassOf([&] { VersionAtTimestamp(*fs_, "t", 1500); }),
            "DELTA_TIMESTAMP_EARLIER_THAN_COMMIT_RETENTION");
}

TEST_F(SnapshotTest, FileTimesAreMadeMonotonic) {
  Commit(0, {kProtocol, kMetadata}, 5000);
  Commit(1, {Add("b")}, 4000);
  auto timestamps = ListCommitTimestamps(*fs_, "t");
  ASSERT_EQ(timestamps.size(), 2u);
  EXPECT_EQ(timestamps[1].timestamp_ms, 5001);
}

TEST_F(SnapshotTest, InCommitTimestampsWinOverFileTimes) {
  Commit(0, {R"({"commitInfo":{"inCommitTimestamp":100}})", kProtocol, kMetadata}, 9000);
  Commit(1, {R"({"commitInfo":{"inCommitTimestamp":200}})", Add("b")}, 9000);
  EXPECT_EQ(VersionAtTimestamp(*fs_, "t", 150), 0);
  EXPECT_EQ(Snapshot::Load(fs_, "t")->timestamp_ms(), 200);
}

TEST(LogSegmentTest, ParsesLogFileNames) {
  auto commit = ParseLogFileName("00000000000000000012.json");
  ASSERT_TRUE(commit);
  EXPECT_EQ(commit->type, LogFileName::Type::kCommit);
  EXPECT_EQ(commit->version, 12);
  auto multi = ParseLogFileName("00000000000000000010.checkpoint.0000000002.0000000003.parquet");
  ASSERT_TRUE(multi);
  EXPECT_EQ(multi->checkpoint_kind, CheckpointKind::kMultiPart);
  EXPECT_EQ(multi->part, 2);
  EXPECT_EQ(multi->num_parts, 3);
  auto uuid = ParseLogFileName("00000000000000000002.checkpoint.39af70be-31c1-4e29-ac01-acfe7c9e27ba.json");
  ASSERT_TRUE(uuid);
  EXPECT_EQ(uuid->checkpoint_kind, CheckpointKind::kUuid);
  EXPECT_TRUE(uuid->json);
  auto compaction = ParseLogFileName("00000000000000000006.00000000000000000015.compacted.json");
  ASSERT_TRUE(compaction);
  EXPECT_EQ(compaction->type, LogFileName::Type::kCompaction);
  EXPECT_EQ(compaction->end_version, 15);
  EXPECT_TRUE(ParseLogFileName("00000000000000000001.crc"));
  EXPECT_FALSE(ParseLogFileName("_last_checkpoint"));
  EXPECT_FALSE(ParseLogFileName(".00000000000000000001.json.crc"));
  EXPECT_FALSE(ParseLogFileName("00000000000000000001.json.tmp"));
  EXPECT_FALSE(ParseLogFileName("0000000000000000001.json"));
  EXPECT_FALSE(ParseLogFileName("00000000000000000010.checkpoint.0000000004.0000000003.parquet"));
  EXPECT_EQ(FormatVersion(7), "00000000000000000007");
}

}  // namespace
}  // namespace silt::log
