#include "silt/log/vacuum.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>

#include "silt/base/testing_error_class.h"
#include "silt/error.h"
#include "silt/io/fault_injecting_file_system.h"
#include "silt/io/path.h"
#include "silt/log/deletion_vector.h"
#include "silt/log/log_segment.h"
#include "silt/log/transaction.h"
#include "silt/types/schema_json.h"

namespace silt::log {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr const char* kRoot = "mem/table";
constexpr int64_t kHourMs = 3'600'000;
constexpr int64_t kDayMs = 24 * kHourMs;

std::string Path(std::string_view relative) { return io::JoinPath(kRoot, relative); }

class VacuumTest : public ::testing::Test {
 protected:
  void SetUp() override {
    inner_ = io::MakeMemoryFileSystem();
    fs_ = io::FaultInjectingFileSystem::Make(inner_);
    now_ms_ = 1'700'000'000'000;
  }

  void CreateTable(StringMap configuration = {}, std::vector<std::string> partitions = {}) {
    Schema schema({Field{"id", LongType(), true, {}}, Field{"_p", StringType(), true, {}}});
    Metadata metadata;
    metadata.schema_string = ToDeltaSchemaJson(schema);
    metadata.partition_columns = std::move(partitions);
    metadata.configuration = std::move(configuration);
    auto txn = Transaction::StartCreate(fs_, kRoot);
    txn->UpdateMetadata(metadata);
    txn->SetOperation("CREATE TABLE");
    txn->Commit();
  }

  // Writes a file whose modification time is `age_ms` before the test's clock.
  void WriteFile(std::string_view relative, int64_t age_ms, std::string_view bytes = "data") {
    inner_->WriteFile(Path(relative), bytes);
    inner_->SetModificationTime(Path(relative), now_ms_ - age_ms);
  }

  bool Exists(std::string_view relative) { return inner_->Stat(Path(relative)).has_value(); }

  static AddFile MakeAdd(const std::string& path,
                         std::optional<DeletionVectorDescriptor> dv = std::nullopt) {
    AddFile add;
    add.path = path;
    add.size = 4;
    add.modification_time = 1;
    add.deletion_vector = std::move(dv);
    if (add.deletion_vector) add.stats = R"({"numRecords":10})";
    return add;
  }

  // A UUID-relative deletion vector descriptor and the table-relative name of its file.
  static std::pair<DeletionVectorDescriptor, std::string> MakeDeletionVector(char seed) {
    DeletionVectorDescriptor dv;
    dv.storage_type = 'u';
    dv.path_or_inline_dv = Z85Encode(std::string(16, seed));
    dv.offset = 1;
    dv.size_in_bytes = 10;
    dv.cardinality = 1;
    std::string path = DeletionVectorPath(dv, kRoot);
    return {dv, path.substr(std::string(kRoot).size() + 1)};
  }

  void Commit(const std::function<void(Transaction&)>& body) {
    auto txn = Transaction::Start(Snapshot::Load(fs_, kRoot));
    body(*txn);
    txn->Commit();
  }

  // Removes `path` with a deletion time `age_ms` before the clock.
  void CommitRemove(const std::string& path, int64_t age_ms,
                    std::optional<DeletionVectorDescriptor> dv = std::nullopt) {
    Commit([&](Transaction& txn) {
      RemoveFile remove;
      remove.path = path;
      remove.deletion_timestamp = now_ms_ - age_ms;
      remove.size = 4;
      remove.deletion_vector = std::move(dv);
      txn.Remove(remove);
    });
  }

  VacuumResult Run(VacuumOptions options = {}) {
    options.now_ms = now_ms_;
    return Vacuum(Snapshot::Load(fs_, kRoot), options);
  }

  std::vector<CommitInfo> CommitInfos() {
    std::vector<CommitInfo> infos;
    for (const CommitFile& commit : ListCommits(*inner_, kRoot)) {
      for (const Action& action :
           ParseActions(inner_->ReadFile(commit.file.path), commit.file.path)) {
        if (const auto* info = std::get_if<CommitInfo>(&action)) infos.push_back(*info);
      }
    }
    return infos;
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

  std::shared_ptr<io::FileSystem> inner_;
  std::shared_ptr<io::FaultInjectingFileSystem> fs_;
  int64_t now_ms_ = 0;
};

TEST_F(VacuumTest, DeletesOnlyUnreferencedFilesOlderThanTheRetention) {
  CreateTable();
  auto [live_dv, live_dv_file] = MakeDeletionVector('a');
  auto [old_dv, old_dv_file] = MakeDeletionVector('b');
  Commit([&](Transaction& txn) {
    txn.Add(MakeAdd("live.parquet", live_dv));
    txn.Add(MakeAdd("removed-long-ago.parquet", old_dv));
    txn.Add(MakeAdd("removed-recently.parquet"));
  });
  CommitRemove("removed-long-ago.parquet", 8 * kDayMs, old_dv);
  CommitRemove("removed-recently.parquet", 1 * kDayMs);
  const int64_t kOld = 30 * kDayMs;
  for (const std::string& file :
       {std::string("live.parquet"), live_dv_file, std::string("removed-long-ago.parquet"),
        old_dv_file, std::string("removed-recently.parquet"), std::string("orphan-old.parquet"),
        std::string("_change_data/cdc-00000.parquet"), std::string("_checkpoints/offsets/0"),
        std::string(".hidden.crc"), std::string("_SUCCESS")}) {
    WriteFile(file, kOld);
  }
  // Written a minute ago by a writer that has not committed yet.
  WriteFile("in-flight.parquet", 60'000);

  VacuumResult result = Run();

  EXPECT_THAT(result.files,
              ElementsAre(Path("_change_data/cdc-00000.parquet"), Path(old_dv_file),
                          Path("orphan-old.parquet"), Path("removed-long-ago.parquet")));
  EXPECT_EQ(result.bytes, 16);
  EXPECT_EQ(result.deleted_files, 4);
  EXPECT_EQ(result.delete_before_ms, now_ms_ - kDefaultDeletedFileRetentionMs);
  // The root and `_change_data`; hidden folders are neither searched nor counted.
  EXPECT_EQ(result.directories, 2);
  for (const std::string& file : result.files) EXPECT_FALSE(inner_->Stat(file)) << file;
  for (const std::string& kept :
       {std::string("live.parquet"), live_dv_file, std::string("removed-recently.parquet"),
        std::string("in-flight.parquet"), std::string("_checkpoints/offsets/0"),
        std::string(".hidden.crc"), std::string("_SUCCESS")}) {
    EXPECT_TRUE(Exists(kept)) << kept;
  }
  EXPECT_NO_THROW(Snapshot::Load(fs_, kRoot));
}

TEST_F(VacuumTest, ShorterRetentionReachesRecentTombstonesButNeverLiveFiles) {
  CreateTable();
  Commit([&](Transaction& txn) {
    txn.Add(MakeAdd("live.parquet"));
    txn.Add(MakeAdd("removed.parquet"));
  });
  CommitRemove("removed.parquet", 2 * kHourMs);
  WriteFile("live.parquet", 10 * kDayMs);
  WriteFile("removed.parquet", 10 * kDayMs);
  WriteFile("orphan-recent.parquet", 30 * 60'000);

  VacuumOptions options;
  options.retention_check_enabled = false;
  options.retention_ms = 3 * kHourMs;
  EXPECT_THAT(Run(options).files, IsEmpty());
  options.retention_ms = 1 * kHourMs;
  EXPECT_THAT(Run(options).files, ElementsAre(Path("removed.parquet")));
  options.retention_ms = 0;
  EXPECT_THAT(Run(options).files, ElementsAre(Path("orphan-recent.parquet")));
  EXPECT_TRUE(Exists("live.parquet"));
}

TEST_F(VacuumTest, DryRunListsWithoutDeletingOrCommitting) {
  CreateTable();
  WriteFile("orphan.parquet", 8 * kDayMs);
  int64_t version = Snapshot::Load(fs_, kRoot)->version();
  VacuumOptions options;
  options.dry_run = true;
  VacuumResult result = Run(options);
  EXPECT_THAT(result.files, ElementsAre(Path("orphan.parquet")));
  EXPECT_EQ(result.deleted_files, 0);
  EXPECT_FALSE(result.start_version.has_value());
  EXPECT_TRUE(Exists("orphan.parquet"));
  EXPECT_EQ(Snapshot::Load(fs_, kRoot)->version(), version);
}

TEST_F(VacuumTest, ACancelBeforeTheDeletesDeletesAndCommitsNothing) {
  CreateTable();
  WriteFile("orphan.parquet", 8 * kDayMs);
  int64_t version = Snapshot::Load(fs_, kRoot)->version();
  Cancellation cancellation;
  cancellation.Cancel();
  VacuumOptions options;
  options.cancellation = &cancellation;
  EXPECT_EQ(ErrorClassOf([&] { Run(options); }), "OPERATION_CANCELED");
  EXPECT_TRUE(Exists("orphan.parquet"));
  EXPECT_EQ(Snapshot::Load(fs_, kRoot)->version(), version);
  cancellation.Reset();
  EXPECT_EQ(Run(options).deleted_files, 1);
  EXPECT_FALSE(Exists("orphan.parquet"));
}

TEST_F(VacuumTest, RecordsVacuumStartAndEndInTheHistory) {
  CreateTable();
  WriteFile("a.parquet", 8 * kDayMs, "12345");
  WriteFile("sub/b.parquet", 8 * kDayMs, "123");
  VacuumOptions options;
  options.retention_check_enabled = false;
  options.retention_ms = 0;
  VacuumResult result = Run(options);
  EXPECT_EQ(result.start_version, 1);
  EXPECT_EQ(result.end_version, 2);
  auto snapshot = Snapshot::Load(fs_, kRoot);
  EXPECT_THAT(snapshot->files(), IsEmpty());
  EXPECT_THAT(snapshot->tombstones(), IsEmpty());
  std::vector<CommitInfo> infos = CommitInfos();
  ASSERT_EQ(infos.size(), 3u);
  const CommitInfo& start = infos[1];
  EXPECT_EQ(start.operation, "VACUUM START");
  EXPECT_EQ(Parameter(start, "retentionCheckEnabled"), "false");
  EXPECT_EQ(Parameter(start, "specifiedRetentionMillis"), "0");
  EXPECT_EQ(Parameter(start, "defaultRetentionMillis"), "604800000");
  EXPECT_EQ(Metric(start, "numFilesToDelete"), "2");
  EXPECT_EQ(Metric(start, "sizeOfDataToDelete"), "8");
  const CommitInfo& end = infos[2];
  EXPECT_EQ(end.operation, "VACUUM END");
  EXPECT_EQ(Parameter(end, "status"), "\"COMPLETED\"");
  EXPECT_EQ(Metric(end, "numDeletedFiles"), "2");
  EXPECT_EQ(Metric(end, "numVacuumedDirectories"), "2");
}

TEST_F(VacuumTest, DefaultRetentionIsNotRecordedAsSpecified) {
  CreateTable({{"delta.deletedFileRetentionDuration", "interval 2 days"}});
  Run();
  std::vector<CommitInfo> infos = CommitInfos();
  ASSERT_EQ(infos.size(), 3u);
  EXPECT_EQ(Parameter(infos[1], "retentionCheckEnabled"), "true");
  EXPECT_EQ(Parameter(infos[1], "specifiedRetentionMillis"), "<absent>");
  EXPECT_EQ(Parameter(infos[1], "defaultRetentionMillis"), std::to_string(2 * kDayMs));
}

TEST_F(VacuumTest, WithoutLoggingNothingIsCommitted) {
  CreateTable();
  WriteFile("orphan.parquet", 8 * kDayMs);
  VacuumOptions options;
  options.log_operation = false;
  VacuumResult result = Run(options);
  EXPECT_EQ(result.deleted_files, 1);
  EXPECT_FALSE(Exists("orphan.parquet"));
  EXPECT_EQ(Snapshot::Load(fs_, kRoot)->version(), 0);
}

TEST_F(VacuumTest, AFailedDeletionIsRecordedAsFailed) {
  CreateTable();
  WriteFile("orphan.parquet", 8 * kDayMs);
  fs_->FailNthCall(io::FileOperation::kDelete, 1, "orphan.parquet");
  EXPECT_EQ(ErrorClassOf([&] { Run(); }), "FAULT_INJECTED");
  std::vector<CommitInfo> infos = CommitInfos();
  ASSERT_EQ(infos.size(), 3u);
  EXPECT_EQ(infos[2].operation, "VACUUM END");
  EXPECT_EQ(Parameter(infos[2], "status"), "\"FAILED\"");
  EXPECT_THAT(infos[2].operation_metrics, IsEmpty());
  EXPECT_TRUE(Exists("orphan.parquet"));
}

TEST_F(VacuumTest, RefusesARetentionBelowTheTablesUnlessTheCheckIsOff) {
  CreateTable({{"delta.deletedFileRetentionDuration", "interval 36 hours"}});
  WriteFile("orphan.parquet", 8 * kDayMs);
  VacuumOptions options;
  options.retention_ms = 35 * kHourMs;
  try {
    Run(options);
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), "DELTA_VACUUM_RETENTION_PERIOD_TOO_SHORT");
    EXPECT_THAT(error.what(), HasSubstr("\"36 hours\""));
    EXPECT_THAT(error.what(), HasSubstr("retentionDurationCheck.enabled = false"));
  }
  EXPECT_TRUE(Exists("orphan.parquet"));
  EXPECT_EQ(Snapshot::Load(fs_, kRoot)->version(), 0);
  options.retention_ms = 36 * kHourMs;
  EXPECT_EQ(Run(options).deleted_files, 1);
  options.retention_ms = 0;
  options.retention_check_enabled = false;
  EXPECT_NO_THROW(Run(options));
  options.retention_ms = -1;
  EXPECT_EQ(ErrorClassOf([&] { Run(options); }), "INVALID_ARGUMENT");
}

TEST_F(VacuumTest, MalformedTableRetentionIsAConfigurationError) {
  CreateTable({{"delta.deletedFileRetentionDuration", "forever"}});
  EXPECT_EQ(ErrorClassOf([&] { Run(); }), "INVALID_CONFIGURATION");
}

TEST_F(VacuumTest, PartitionFoldersMayStartWithAnUnderscore) {
  CreateTable({}, {"_p"});
  Commit([&](Transaction& txn) {
    AddFile add = MakeAdd("_p=x/live.parquet");
    add.partition_values = {{"_p", "x"}};
    txn.Add(add);
  });
  WriteFile("_p=x/live.parquet", 8 * kDayMs);
  WriteFile("_p=x/orphan.parquet", 8 * kDayMs);
  WriteFile("_p=y/orphan.parquet", 8 * kDayMs);
  WriteFile("_other/kept.parquet", 8 * kDayMs);
  EXPECT_THAT(Run().files, ElementsAre(Path("_p=x/orphan.parquet"), Path("_p=y/orphan.parquet")));
  EXPECT_TRUE(Exists("_p=x/live.parquet"));
  EXPECT_TRUE(Exists("_other/kept.parquet"));
}

TEST(VacuumHiddenNames, FollowDeltasRule) {
  std::vector<std::string> partitions = {"_p", "year"};
  EXPECT_TRUE(IsHiddenFromVacuum("_delta_log", partitions));
  EXPECT_TRUE(IsHiddenFromVacuum(".part-0.parquet.crc", partitions));
  EXPECT_TRUE(IsHiddenFromVacuum("_checkpoints", partitions));
  EXPECT_TRUE(IsHiddenFromVacuum("_p", partitions));
  EXPECT_FALSE(IsHiddenFromVacuum("_p=1", partitions));
  EXPECT_FALSE(IsHiddenFromVacuum("_change_data", partitions));
  EXPECT_FALSE(IsHiddenFromVacuum("_delta_index", partitions));
  EXPECT_FALSE(IsHiddenFromVacuum("year=2024", partitions));
  EXPECT_FALSE(IsHiddenFromVacuum("part-0.parquet", partitions));
  EXPECT_FALSE(IsHiddenFromVacuum("deletion_vector_1.bin", {}));
}

TEST(VacuumRetention, ParsesTheTableProperty) {
  Metadata metadata;
  EXPECT_EQ(DeletedFileRetentionMs(metadata), 7 * kDayMs);
  metadata.configuration = {{"delta.deletedFileRetentionDuration", "interval 2 hours"}};
  EXPECT_EQ(DeletedFileRetentionMs(metadata), 2 * kHourMs);
  metadata.configuration = {{"delta.deletedFileRetentionDuration", "interval 1 week"}};
  EXPECT_EQ(DeletedFileRetentionMs(metadata), 7 * kDayMs);
}

}  // namespace
}  // namespace silt::log
