#include "silt/log/restore.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

#include "silt/error.h"
#include "silt/io/fault_injecting_file_system.h"
#include "silt/io/path.h"
#include "silt/log/checkpoint_writer.h"
#include "silt/log/log_segment.h"
#include "silt/log/snapshot.h"
#include "silt/log/transaction.h"
#include "silt/types/schema_json.h"

namespace silt::log {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

constexpr const char* kRoot = "mem/table";

std::string ErrorOf(const std::function<void()>& body) {
  try {
    body();
  } catch (const Error& error) {
    return std::string(error.error_class()) + ": " + error.what();
  }
  return "no error";
}

std::string ErrorClassOf(const std::function<void()>& body) {
  std::string error = ErrorOf(body);
  return error.substr(0, error.find(':'));
}

class RestoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs_ = io::MakeMemoryFileSystem();
    Schema schema({Field{"id", LongType(), true, {}}});
    Metadata metadata;
    metadata.id = "table-id";
    metadata.schema_string = ToDeltaSchemaJson(schema);
    auto txn = Transaction::StartCreate(fs_, kRoot);
    txn->UpdateMetadata(metadata);
    txn->SetOperation("CREATE TABLE");
    txn->Commit();
  }

  AddFile MakeAdd(const std::string& path, int64_t size,
                  std::optional<DeletionVectorDescriptor> dv = std::nullopt) {
    fs_->WriteFile(io::JoinPath(kRoot, path), std::string(static_cast<size_t>(size), 'x'));
    AddFile add;
    add.path = path;
    add.size = size;
    add.modification_time = 1;
    add.stats = R"({"numRecords":10})";
    add.deletion_vector = std::move(dv);
    return add;
  }

  static DeletionVectorDescriptor InlineDeletionVector(const std::string& bitmap) {
    DeletionVectorDescriptor dv;
    dv.storage_type = 'i';
    dv.path_or_inline_dv = bitmap;
    dv.size_in_bytes = 10;
    dv.cardinality = 1;
    return dv;
  }

  AddFile LiveFile(const std::string& path) {
    auto snapshot = Snapshot::Load(fs_, kRoot);
    for (const AddFile& file : snapshot->files()) {
      if (file.path == path) return file;
    }
    ADD_FAILURE() << path << " is not live";
    return {};
  }

  int64_t Commit(const std::function<void(Transaction&)>& body) {
    auto txn = Transaction::Start(Snapshot::Load(fs_, kRoot));
    body(*txn);
    return txn->Commit().version;
  }

  std::vector<Action> Actions(int64_t version) {
    std::string path = io::JoinPath(kRoot, "_delta_log/" + FormatVersion(version) + ".json");
    return ParseActions(fs_->ReadFile(path), path);
  }

  template <typename T>
  static std::vector<T> Of(const std::vector<Action>& actions) {
    std::vector<T> out;
    for (const auto& action : actions) {
      if (const T* typed = std::get_if<T>(&action)) out.push_back(*typed);
    }
    return out;
  }

  static std::vector<std::string> Paths(const std::vector<AddFile>& files) {
    std::vector<std::string> paths;
    for (const AddFile& file : files) paths.push_back(file.path);
    std::sort(paths.begin(), paths.end());
    return paths;
  }

  static std::string Parameter(const CommitInfo& info, std::string_view name) {
    for (const auto& [key, value] : info.operation_parameters) {
      if (key == name) return value;
    }
    return "<absent>";
  }

  static std::string Metric(const CommitInfo& info, std::string_view name) {
    const std::string* value = FindValue(info.operation_metrics, name);
    return value ? *value : "<absent>";
  }

  RestoreResult RestoreTo(int64_t version) {
    RestoreOptions options;
    options.version = version;
    return Restore(fs_, kRoot, options);
  }

  std::shared_ptr<io::FileSystem> fs_;
};

TEST_F(RestoreTest, CommitsTheDifferenceToAnEarlierVersion) {
  Commit([&](Transaction& txn) { txn.Add(MakeAdd("a.parquet", 10)); });  // 1
  Commit([&](Transaction& txn) { txn.Add(MakeAdd("b.parquet", 20)); });  // 2
  Commit([&](Transaction& txn) {                                         // 3
    txn.RemoveLiveFile(LiveFile("a.parquet"));
    txn.Add(MakeAdd("c.parquet", 30));
  });

  RestoreResult result = RestoreTo(1);

  EXPECT_EQ(result.committed_version, 4);
  EXPECT_EQ(result.restored_version, 1);
  EXPECT_EQ(result.num_restored_files, 1);
  EXPECT_EQ(result.restored_files_size, 10);
  EXPECT_EQ(result.num_removed_files, 2);
  EXPECT_EQ(result.removed_files_size, 50);
  EXPECT_EQ(result.num_of_files_after_restore, 1);
  EXPECT_EQ(result.table_size_after_restore, 10);
  std::vector<Action> actions = Actions(4);
  std::vector<AddFile> adds = Of<AddFile>(actions);
  ASSERT_EQ(adds.size(), 1u);
  EXPECT_EQ(adds[0].path, "a.parquet");
  EXPECT_TRUE(adds[0].data_change);
  EXPECT_EQ(adds[0].stats, R"({"numRecords":10})");
  std::vector<RemoveFile> removes = Of<RemoveFile>(actions);
  ASSERT_EQ(removes.size(), 2u);
  EXPECT_EQ(removes[0].path, "b.parquet");
  EXPECT_EQ(removes[1].path, "c.parquet");
  EXPECT_TRUE(removes[0].data_change);
  EXPECT_THAT(Of<AddCdcFile>(actions), IsEmpty());
  EXPECT_THAT(Of<Metadata>(actions), IsEmpty());
  EXPECT_THAT(Of<Protocol>(actions), IsEmpty());
  CommitInfo info = Of<CommitInfo>(actions).at(0);
  EXPECT_EQ(info.operation, "RESTORE");
  EXPECT_EQ(Parameter(info, "version"), "1");
  EXPECT_EQ(Parameter(info, "timestamp"), "null");
  EXPECT_EQ(Metric(info, "numRestoredFiles"), "1");
  EXPECT_EQ(Metric(info, "restoredFilesSize"), "10");
  EXPECT_EQ(Metric(info, "numRemovedFiles"), "2");
  EXPECT_EQ(Metric(info, "removedFilesSize"), "50");
  EXPECT_EQ(Metric(info, "numOfFilesAfterRestore"), "1");
  EXPECT_EQ(Metric(info, "tableSizeAfterRestore"), "10");
  EXPECT_THAT(Paths(Snapshot::Load(fs_, kRoot)->files()), ElementsAre("a.parquet"));

  // Restoring forward again brings back the later state.
  RestoreTo(3);
  EXPECT_THAT(Paths(Snapshot::Load(fs_, kRoot)->files()), ElementsAre("b.parquet", "c.parquet"));
}

TEST_F(RestoreTest, AChangedDeletionVectorIsARemoveAndAnAdd) {
  Commit([&](Transaction& txn) { txn.Add(MakeAdd("a.parquet", 10)); });  // 1
  Commit([&](Transaction& txn) {                                         // 2
    AddFile live = LiveFile("a.parquet");
    txn.RemoveLiveFile(live);
    live.deletion_vector = InlineDeletionVector("ABCDE");
    live.data_change = true;
    txn.Add(live);
  });
  RestoreResult result = RestoreTo(1);
  EXPECT_EQ(result.num_restored_files, 1);
  EXPECT_EQ(result.num_removed_files, 1);
  std::vector<Action> actions = Actions(3);
  std::vector<AddFile> adds = Of<AddFile>(actions);
  ASSERT_EQ(adds.size(), 1u);
  EXPECT_FALSE(adds[0].deletion_vector.has_value());
  std::vector<RemoveFile> removes = Of<RemoveFile>(actions);
  ASSERT_EQ(removes.size(), 1u);
  ASSERT_TRUE(removes[0].deletion_vector.has_value());
  EXPECT_EQ(removes[0].deletion_vector->path_or_inline_dv, "ABCDE");
  auto files = Snapshot::Load(fs_, kRoot)->files();
  ASSERT_EQ(files.size(), 1u);
  EXPECT_FALSE(files[0].deletion_vector.has_value());
}

TEST_F(RestoreTest, BringsBackOldMetadataButNeverDowngradesTheProtocol) {
  Commit([&](Transaction& txn) { txn.Add(MakeAdd("a.parquet", 10)); });  // 1
  // The change data feed needs a writer that writes change files: the SQL statements do.
  const std::vector<std::string> kWritesChangeData = {"changeDataFeed"};
  auto txn = Transaction::Start(Snapshot::Load(fs_, kRoot), kWritesChangeData);  // 2
  Metadata metadata = txn->metadata();
  metadata.configuration = {{"delta.enableChangeDataFeed", "true"}};
  txn->UpdateMetadata(metadata);
  txn->Commit();
  Protocol upgraded = Snapshot::Load(fs_, kRoot)->protocol();
  EXPECT_GE(upgraded.min_writer_version, 4);
  RestoreOptions options;
  options.version = 1;
  options.enforced_features = kWritesChangeData;
  Restore(fs_, kRoot, options);
  auto snapshot = Snapshot::Load(fs_, kRoot);
  EXPECT_THAT(snapshot->properties(), IsEmpty());
  EXPECT_EQ(snapshot->metadata().id, "table-id");
  EXPECT_EQ(snapshot->protocol(), upgraded);
  EXPECT_THAT(Of<Metadata>(Actions(3)), testing::SizeIs(1));
}

TEST_F(RestoreTest, InCommitTimestampsStayOn) {
  Commit([&](Transaction& txn) { txn.Add(MakeAdd("a.parquet", 10)); });  // 1
  Commit([&](Transaction& txn) {                                         // 2
    Metadata metadata = txn.metadata();
    metadata.configuration = {{"delta.enableInCommitTimestamps", "true"},
                              {"delta.inCommitTimestampEnablementVersion", "2"}};
    txn.UpdateMetadata(metadata);
  });
  RestoreTo(1);
  auto snapshot = Snapshot::Load(fs_, kRoot);
  EXPECT_THAT(
      snapshot->properties(),
      UnorderedElementsAre(
          std::pair<std::string, std::string>("delta.enableInCommitTimestamps", "true"),
          std::pair<std::string, std::string>("delta.inCommitTimestampEnablementVersion", "2")));
  EXPECT_TRUE(Of<CommitInfo>(Actions(3)).at(0).in_commit_timestamp.has_value());
}

TEST_F(RestoreTest, MissingFilesFailBeforeAnythingIsCommitted) {
  Commit([&](Transaction& txn) { txn.Add(MakeAdd("a.parquet", 10)); });  // 1
  Commit([&](Transaction& txn) {                                         // 2
    txn.RemoveLiveFile(LiveFile("a.parquet"));
  });
  fs_->Delete(io::JoinPath(kRoot, "a.parquet"));
  std::string error = ErrorOf([&] { RestoreTo(1); });
  EXPECT_THAT(error, HasSubstr("DELTA_RESTORE_MISSING_DATA_FILES"));
  EXPECT_THAT(error, HasSubstr("a.parquet"));
  EXPECT_EQ(Snapshot::Load(fs_, kRoot)->version(), 2);
  // Version 0 needs no file, so it can still be restored.
  EXPECT_EQ(RestoreTo(0).num_of_files_after_restore, 0);
}

TEST_F(RestoreTest, VersionsOutsideTheHistoryAreRefusedWithTheRange) {
  Commit([&](Transaction& txn) { txn.Add(MakeAdd("a.parquet", 10)); });  // 1
  Commit([&](Transaction& txn) { txn.Add(MakeAdd("b.parquet", 10)); });  // 2
  std::string error = ErrorOf([&] { RestoreTo(5); });
  EXPECT_THAT(error, HasSubstr("DELTA_CANNOT_RESTORE_TABLE_VERSION"));
  EXPECT_THAT(error, HasSubstr("Available versions: [0, 2]"));
  EXPECT_EQ(ErrorClassOf([&] { RestoreTo(-1); }), "DELTA_CANNOT_RESTORE_TABLE_VERSION");
  EXPECT_EQ(ErrorClassOf([&] { RestoreTo(2); }), "DELTA_CANNOT_RESTORE_TO_LATEST_VERSION");
  EXPECT_EQ(Snapshot::Load(fs_, kRoot)->version(), 2);

  // After a checkpoint at 2 and the loss of the commits before it, only 2 is reconstructable.
  Commit([&](Transaction& txn) { txn.Add(MakeAdd("c.parquet", 10)); });  // 3
  WriteCheckpoint(fs_, kRoot, 2);
  fs_->Delete(io::JoinPath(kRoot, "_delta_log/" + FormatVersion(0) + ".json"));
  fs_->Delete(io::JoinPath(kRoot, "_delta_log/" + FormatVersion(1) + ".json"));
  error = ErrorOf([&] { RestoreTo(1); });
  EXPECT_THAT(error, HasSubstr("DELTA_CANNOT_RESTORE_TABLE_VERSION"));
  EXPECT_THAT(error, HasSubstr("Available versions: [2, 3]"));
  EXPECT_EQ(RestoreTo(2).num_removed_files, 1);
}

TEST_F(RestoreTest, TimestampsResolveToTheLatestCommitAtOrBeforeThem) {
  Commit([&](Transaction& txn) { txn.Add(MakeAdd("a.parquet", 10)); });  // 1
  Commit([&](Transaction& txn) { txn.Add(MakeAdd("b.parquet", 10)); });  // 2
  for (int64_t version = 0; version <= 2; ++version) {
    fs_->SetModificationTime(io::JoinPath(kRoot, "_delta_log/" + FormatVersion(version) + ".json"),
                             1'000'000 + version * 1000);
  }
  RestoreOptions options;
  options.timestamp_ms = 1'001'500;
  options.timestamp_text = "1970-01-01 00:16:41.5";
  RestoreResult result = Restore(fs_, kRoot, options);
  EXPECT_EQ(result.restored_version, 1);
  CommitInfo info = Of<CommitInfo>(Actions(3)).at(0);
  EXPECT_EQ(Parameter(info, "version"), "null");
  EXPECT_EQ(Parameter(info, "timestamp"), "\"1970-01-01 00:16:41.5\"");

  options.timestamp_text.clear();
  options.timestamp_ms = 5'000'000'000'000;
  std::string error = ErrorOf([&] { Restore(fs_, kRoot, options); });
  EXPECT_THAT(error, HasSubstr("DELTA_CANNOT_RESTORE_TIMESTAMP_GREATER"));
  EXPECT_THAT(error, HasSubstr("Cannot restore table to timestamp (2128-06-11 08:53:20)"));
  options.timestamp_ms = 999'999;
  EXPECT_EQ(ErrorClassOf([&] { Restore(fs_, kRoot, options); }),
            "DELTA_CANNOT_RESTORE_TIMESTAMP_EARLIER");
}

TEST_F(RestoreTest, AConcurrentAppendMakesTheRestoreFail) {
  Commit([&](Transaction& txn) { txn.Add(MakeAdd("a.parquet", 10)); });  // 1
  Commit([&](Transaction& txn) { txn.Add(MakeAdd("b.parquet", 10)); });  // 2
  // Another writer appends just before the restore's commit lands.
  auto racing = io::FaultInjectingFileSystem::Make(fs_);
  bool appended = false;
  racing->SetCallHook([&](io::FileOperation operation, const std::string& path) {
    if (appended || operation != io::FileOperation::kPutIfAbsent ||
        path.find("_delta_log/" + FormatVersion(3) + ".json") == std::string::npos) {
      return;
    }
    appended = true;
    Commit([&](Transaction& txn) { txn.Add(MakeAdd("c.parquet", 10)); });
  });
  RestoreOptions options;
  options.version = 1;
  EXPECT_EQ(ErrorClassOf([&] { Restore(racing, kRoot, options); }), "DELTA_CONCURRENT_APPEND");
  EXPECT_TRUE(appended);
  EXPECT_THAT(Paths(Snapshot::Load(fs_, kRoot)->files()),
              ElementsAre("a.parquet", "b.parquet", "c.parquet"));
}

TEST(MergeProtocols, KeepsTheHigherVersionsAndEveryFeature) {
  Protocol legacy{1, 2, std::nullopt, std::nullopt};
  Protocol cdf{1, 4, std::nullopt, std::nullopt};
  EXPECT_EQ(MergeProtocols(cdf, legacy), cdf);
  EXPECT_EQ(MergeProtocols(legacy, cdf), cdf);
  Protocol features{3, 7, std::vector<std::string>{"deletionVectors"},
                    std::vector<std::string>{"deletionVectors", "appendOnly", "invariants"}};
  EXPECT_EQ(MergeProtocols(features, legacy), features);
  Protocol merged = MergeProtocols(features, cdf);
  EXPECT_EQ(merged.min_reader_version, 3);
  EXPECT_EQ(merged.min_writer_version, 7);
  EXPECT_THAT(*merged.writer_features,
              UnorderedElementsAre("deletionVectors", "appendOnly", "invariants",
                                   "checkConstraints", "changeDataFeed", "generatedColumns"));
  EXPECT_THAT(*merged.reader_features, ElementsAre("deletionVectors"));
  Protocol upgraded = MergeProtocols(cdf, features);
  EXPECT_EQ(upgraded.min_writer_version, 7);
  EXPECT_THAT(*upgraded.reader_features, ElementsAre("deletionVectors"));
}

}  // namespace
}  // namespace silt::log
