#include "silt/log/transaction.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "silt/base/check.h"
#include "silt/base/testing_error_class.h"
#include "silt/io/fault_injecting_file_system.h"
#include "silt/log/log_segment.h"
#include "silt/types/schema_json.h"

namespace silt::log {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr const char* kRoot = "mem/table";

Metadata MakeMetadata(bool partitioned, StringMap configuration = {}) {
  Schema schema({Field{"id", LongType(), true, {}}, Field{"part", StringType(), true, {}}});
  Metadata metadata;
  metadata.schema_string = ToDeltaSchemaJson(schema);
  if (partitioned) metadata.partition_columns = {"part"};
  metadata.configuration = std::move(configuration);
  return metadata;
}

AddFile MakeAdd(const std::string& path, std::optional<std::string> part = std::nullopt,
                std::optional<std::string> stats = std::nullopt) {
  AddFile add;
  add.path = path;
  if (part) add.partition_values = {{"part", *part}};
  add.size = 100;
  add.modification_time = 1000;
  add.stats = std::move(stats);
  return add;
}

std::shared_ptr<io::FileSystem> CreateTable(bool partitioned, StringMap configuration = {}) {
  auto fs = io::MakeMemoryFileSystem();
  auto txn = Transaction::StartCreate(fs, kRoot);
  txn->UpdateMetadata(MakeMetadata(partitioned, std::move(configuration)));
  txn->SetOperation("CREATE TABLE");
  EXPECT_EQ(txn->Commit().version, 0);
  return fs;
}

std::unique_ptr<Transaction> Latest(const std::shared_ptr<io::FileSystem>& fs) {
  return Transaction::Start(Snapshot::Load(fs, kRoot));
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

// A backend that cannot create files atomically: the commit path must refuse it.
class NonAtomicFileSystem final : public io::FileSystem {
 public:
  std::optional<io::FileInfo> Stat(const std::string& path) override { return inner_->Stat(path); }
  std::vector<io::FileInfo> List(const std::string& dir, const std::string& start_after = "",
                                 bool recursive = false) override {
    return inner_->List(dir, start_after, recursive);
  }
  std::unique_ptr<io::RandomAccessFile> OpenRead(const std::string& path) override { return inner_->OpenRead(path); }
  std::unique_ptr<io::OutputStream> OpenWrite(const std::string& path) override { return inner_->OpenWrite(path); }
  io::PutOutcome PutIfAbsent(const std::string& path, std::string_view bytes) override {
    return inner_->PutIfAbsent(path, bytes);
  }
  bool Delete(const std::string& path) override { return inner_->Delete(path); }
  void Rename(const std::string& from, const std::string& to) override { inner_->Rename(from, to); }
  void SetModificationTime(const std::string& path, int64_t ms) override { inner_->SetModificationTime(path, ms); }
  io::Capabilities capabilities() const override { return {false, true}; }

 private:
  std::shared_ptr<io::FileSystem> inner_ = io::MakeMemoryFileSystem();
};

TEST(TransactionTest, CreateTableWritesCommitInfoFirstThenProtocolAndMetadata) {
  auto fs = CreateTable(/*partitioned=*/true);
  std::vector<std::string> lines = Lines(fs->ReadFile("mem/table/_delta_log/00000000000000000000.json"));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_THAT(lines[0], HasSubstr("{\"commitInfo\":{\"timestamp\":"));
  EXPECT_THAT(lines[0], HasSubstr("\"operation\":\"CREATE TABLE\""));
  EXPECT_THAT(lines[0], HasSubstr("\"engineInfo\":\"silt/" SILT_VERSION "\""));
  EXPECT_THAT(lines[0], HasSubstr("\"isolationLevel\":\"Serializable\""));
  EXPECT_THAT(lines[0], HasSubstr("\"isBlindAppend\":true"));
  EXPECT_THAT(lines[0], ::testing::Not(HasSubstr("readVersion")));
  EXPECT_EQ(lines[1], "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}");
  EXPECT_THAT(lines[2], HasSubstr("\"partitionColumns\":[\"part\"]"));
  auto snapshot = Snapshot::Load(fs, kRoot);
  EXPECT_EQ(snapshot->version(), 0);
  EXPECT_EQ(snapshot->metadata().id.size(), 36u);
  EXPECT_TRUE(snapshot->metadata().created_time.has_value());
  EXPECT_EQ(snapshot->commit_info()->txn_id.value_or("").size(), 36u);
}

TEST(TransactionTest, AppendRecordsReadVersionAndLands) {
  auto fs = CreateTable(false);
  auto txn = Latest(fs);
  txn->Add(MakeAdd("a.parquet"));
  txn->SetOperation("WRITE", {{"mode", "\"Append\""}}, {{"numFiles", "1"}});
  CommitResult result = txn->Commit();
  EXPECT_EQ(result.version, 1);
  EXPECT_EQ(result.attempts, 1);
  auto snapshot = Snapshot::Load(fs, kRoot);
  ASSERT_EQ(snapshot->files().size(), 1u);
  EXPECT_EQ(snapshot->files()[0].path, "a.parquet");
  EXPECT_EQ(snapshot->commit_info()->read_version, 0);
  EXPECT_THAT(snapshot->commit_info()->raw_json, HasSubstr("\"operationMetrics\":{\"numFiles\":\"1\"}"));
  EXPECT_THAT(snapshot->commit_info()->raw_json, HasSubstr("\"operationParameters\":{\"mode\":\"Append\"}"));
}

TEST(TransactionTest, ACanceledCommitWritesNothing) {
  auto fs = CreateTable(false);
  Cancellation cancellation;
  cancellation.Cancel();
  CommitOptions options;
  options.cancellation = &cancellation;
  auto txn = Latest(fs);
  txn->Add(MakeAdd("a.parquet"));
  txn->SetOperation("WRITE", {{"mode", "\"Append\""}});
  EXPECT_EQ(ErrorClassOf([&] { txn->Commit(options); }), "OPERATION_CANCELED");
  EXPECT_EQ(Snapshot::Load(fs, kRoot)->version(), 0);

  // Without a request the same options commit.
  cancellation.Reset();
  auto again = Latest(fs);
  again->Add(MakeAdd("a.parquet"));
  again->SetOperation("WRITE", {{"mode", "\"Append\""}});
  EXPECT_EQ(again->Commit(options).version, 1);
}

TEST(TransactionTest, RefusesBackendWithoutAtomicPutIfAbsent) {
  auto fs = std::make_shared<NonAtomicFileSystem>();
  auto txn = Transaction::StartCreate(fs, kRoot);
  txn->UpdateMetadata(MakeMetadata(false));
  EXPECT_EQ(ErrorClassOf([&] { txn->Commit(); }), "DELTA_COMMIT_BACKEND_NOT_ATOMIC");
  EXPECT_TRUE(fs->List("mem/table/_delta_log").empty());
}

TEST(TransactionTest, CreateWithoutMetadataFails) {
  auto fs = io::MakeMemoryFileSystem();
  auto txn = Transaction::StartCreate(fs, kRoot);
  EXPECT_EQ(ErrorClassOf([&] { txn->Commit(); }), "DELTA_METADATA_ABSENT");
}

TEST(TransactionTest, CreateOnExistingTableFails) {
  auto fs = CreateTable(false);
  auto txn = Transaction::StartCreate(fs, kRoot);
  txn->UpdateMetadata(MakeMetadata(false));
  EXPECT_EQ(ErrorClassOf([&] { txn->Commit(); }), "DELTA_TABLE_ALREADY_EXISTS");
}

TEST(TransactionTest, PartitionColumnMustBeInSchema) {
  auto fs = io::MakeMemoryFileSystem();
  auto txn = Transaction::StartCreate(fs, kRoot);
  Metadata metadata = MakeMetadata(false);
  metadata.partition_columns = {"missing"};
  txn->UpdateMetadata(metadata);
  EXPECT_EQ(ErrorClassOf([&] { txn->Commit(); }), "DELTA_PARTITION_COLUMN_NOT_FOUND");
}

TEST(TransactionTest, ConcurrentBlindAppendsBothLand) {
  auto fs = CreateTable(false);
  auto first = Latest(fs);
  auto second = Latest(fs);
  first->Add(MakeAdd("a.parquet"));
  second->Add(MakeAdd("b.parquet"));
  EXPECT_EQ(first->Commit().version, 1);
  CommitResult result = second->Commit();
  EXPECT_EQ(result.version, 2);
  EXPECT_EQ(result.attempts, 2);
  EXPECT_EQ(Snapshot::Load(fs, kRoot)->files().size(), 2u);
}

TEST(TransactionTest, AppendIntoReadPartitionConflicts) {
  auto fs = CreateTable(true);
  auto reader = Latest(fs);
  reader->FilterFiles(ReadPredicate{{ScanPredicate{"part", ScanPredicate::Op::kEqual, "a"}}});
  reader->Add(MakeAdd("part=a/new.parquet", "a"));
  auto writer = Latest(fs);
  writer->Add(MakeAdd("part=a/other.parquet", "a"));
  writer->Commit();
  EXPECT_EQ(ErrorClassOf([&] { reader->Commit(); }), "DELTA_CONCURRENT_APPEND");
}

TEST(TransactionTest, AppendIntoOtherPartitionDoesNotConflict) {
  auto fs = CreateTable(true);
  auto reader = Latest(fs);
  reader->FilterFiles(ReadPredicate{{ScanPredicate{"part", ScanPredicate::Op::kEqual, "a"}}});
  reader->Add(MakeAdd("part=a/new.parquet", "a"));
  auto writer = Latest(fs);
  writer->Add(MakeAdd("part=b/other.parquet", "b"));
  writer->Commit();
  EXPECT_EQ(reader->Commit().version, 2);
}

TEST(TransactionTest, DataPredicateUsesStatistics) {
  auto fs = CreateTable(false);
  auto reader = Latest(fs);
  reader->FilterFiles(ReadPredicate{{ScanPredicate{"id", ScanPredicate::Op::kGreater, "100"}}});
  reader->Add(MakeAdd("mine.parquet"));
  auto writer = Latest(fs);
  writer->Add(MakeAdd("low.parquet", std::nullopt,
                          R"({"numRecords":2,"minValues":{"id":1},"maxValues":{"id":50},"nullCount":{"id":0}})"));
  writer->Commit();
  EXPECT_EQ(reader->Commit().version, 2);  // no row of low.parquet can be > 100

  auto reader2 = Latest(fs);
  reader2->FilterFiles(ReadPredicate{{ScanPredicate{"id", ScanPredicate::Op::kGreater, "100"}}});
  reader2->Add(MakeAdd("mine2.parquet"));
  auto writer2 = Latest(fs);
  writer2->Add(MakeAdd("high.parquet", std::nullopt,
                           R"({"numRecords":2,"minValues":{"id":90},"maxValues":{"id":500},"nullCount":{"id":0}})"));
  writer2->Commit();
  EXPECT_EQ(ErrorClassOf([&] { reader2->Commit(); }), "DELTA_CONCURRENT_APPEND");
}

TEST(TransactionTest, WholeTableReadConflictsWithAnyAppend) {
  auto fs = CreateTable(true);
  auto reader = Latest(fs);
  reader->RecordReadWholeTable();
  reader->Add(MakeAdd("part=a/new.parquet", "a"));
  auto writer = Latest(fs);
  writer->Add(MakeAdd("part=z/other.parquet", "z"));
  writer->Commit();
  EXPECT_EQ(ErrorClassOf([&] { reader->Commit(); }), "DELTA_CONCURRENT_APPEND");
}

TEST(TransactionTest, WriteSerializableIgnoresConcurrentBlindAppends) {
  auto fs = CreateTable(false, {{"delta.isolationLevel", "WriteSerializable"}});
  auto reader = Latest(fs);
  reader->RecordReadWholeTable();
  reader->Add(MakeAdd("mine.parquet"));
  auto writer = Latest(fs);
  writer->Add(MakeAdd("blind.parquet"));
  writer->Commit();
  EXPECT_EQ(reader->Commit().version, 2);
}

TEST(TransactionTest, DeleteOfReadFileConflicts) {
  auto fs = CreateTable(false);
  {
    auto txn = Latest(fs);
    txn->Add(MakeAdd("f.parquet"));
    txn->Commit();
  }
  auto reader = Latest(fs);
  reader->RecordReadFile(reader->snapshot()->files()[0]);
  reader->Add(MakeAdd("derived.parquet"));
  auto deleter = Latest(fs);
  deleter->RemoveLiveFile(deleter->snapshot()->files()[0]);
  deleter->Commit();
  EXPECT_EQ(ErrorClassOf([&] { reader->Commit(); }), "DELTA_CONCURRENT_DELETE_READ");
}

TEST(TransactionTest, DeleteOfSameFileConflicts) {
  auto fs = CreateTable(false);
  {
    auto txn = Latest(fs);
    txn->Add(MakeAdd("f.parquet"));
    txn->Commit();
  }
  auto first = Latest(fs);
  auto second = Latest(fs);
  first->RemoveLiveFile(first->snapshot()->files()[0]);
  second->RemoveLiveFile(second->snapshot()->files()[0]);
  first->Commit();
  EXPECT_EQ(ErrorClassOf([&] { second->Commit(); }), "DELTA_CONCURRENT_DELETE_DELETE");
}

TEST(TransactionTest, ConcurrentMetadataChangeConflicts) {
  auto fs = CreateTable(false);
  auto writer = Latest(fs);
  writer->Add(MakeAdd("a.parquet"));
  auto alter = Latest(fs);
  alter->UpdateMetadata(MakeMetadata(false, {{"delta.appendOnly", "true"}}));
  alter->SetOperation("SET TBLPROPERTIES");
  alter->Commit();
  EXPECT_EQ(ErrorClassOf([&] { writer->Commit(); }), "DELTA_METADATA_CHANGED");
}

TEST(TransactionTest, SameApplicationIdConflicts) {
  auto fs = CreateTable(false);
  auto first = Latest(fs);
  auto second = Latest(fs);
  EXPECT_EQ(first->ReadTransactionVersion("stream-1"), std::nullopt);
  EXPECT_EQ(second->ReadTransactionVersion("stream-1"), std::nullopt);
  first->SetApplicationTransaction("stream-1", 0);
  first->Add(MakeAdd("a.parquet"));
  second->SetApplicationTransaction("stream-1", 0);
  second->Add(MakeAdd("b.parquet"));
  first->Commit();
  EXPECT_EQ(ErrorClassOf([&] { second->Commit(); }), "DELTA_CONCURRENT_TRANSACTION");
  EXPECT_EQ(Snapshot::Load(fs, kRoot)->TransactionVersion("stream-1"), 0);
}

TEST(TransactionTest, AppendOnlyTableRefusesDataRemoves) {
  auto fs = CreateTable(false, {{"delta.appendOnly", "true"}});
  {
    auto txn = Latest(fs);
    txn->Add(MakeAdd("f.parquet"));
    txn->Commit();
  }
  auto txn = Latest(fs);
  txn->RemoveLiveFile(txn->snapshot()->files()[0]);
  EXPECT_EQ(ErrorClassOf([&] { txn->Commit(); }), "DELTA_CANNOT_MODIFY_APPEND_ONLY");
  auto rearrange = Latest(fs);
  rearrange->RemoveLiveFile(rearrange->snapshot()->files()[0], /*data_change=*/false);
  AddFile compacted = MakeAdd("compacted.parquet");
  compacted.data_change = false;
  rearrange->Add(compacted);
  EXPECT_EQ(rearrange->Commit().version, 2);
  EXPECT_THAT(Snapshot::Load(fs, kRoot)->commit_info()->raw_json,
              HasSubstr("\"isolationLevel\":\"SnapshotIsolation\""));
}

TEST(TransactionTest, DuplicateAddsAreRejected) {
  auto fs = CreateTable(false);
  auto txn = Latest(fs);
  txn->Add(MakeAdd("f.parquet"));
  txn->Add(MakeAdd("f.parquet"));
  EXPECT_EQ(ErrorClassOf([&] { txn->Commit(); }), "DELTA_DUPLICATE_ACTIONS_FOUND");
}

TEST(TransactionTest, LostReplyAfterPutIfAbsentIsResolvedByTxnId) {
  auto memory = io::MakeMemoryFileSystem();
  auto fs = io::FaultInjectingFileSystem::Make(memory);
  auto create = Transaction::StartCreate(fs, kRoot);
  create->UpdateMetadata(MakeMetadata(false));
  create->Commit();
  auto txn = Transaction::Start(Snapshot::Load(fs, kRoot));
  txn->Add(MakeAdd("a.parquet"));
  fs->FailAfterNthCall(io::FileOperation::kPutIfAbsent, 1);
  CommitResult result = txn->Commit();
  EXPECT_EQ(result.version, 1);
  EXPECT_EQ(fs->InjectedFaultCount(), 1u);
  EXPECT_EQ(ListCommits(*memory, kRoot).size(), 2u);  // no duplicate commit at version 2
}

TEST(TransactionTest, FailedPutIfAbsentThatDidNotLandIsReported) {
  auto memory = io::MakeMemoryFileSystem();
  auto fs = io::FaultInjectingFileSystem::Make(memory);
  auto create = Transaction::StartCreate(fs, kRoot);
  create->UpdateMetadata(MakeMetadata(false));
  create->Commit();
  auto txn = Transaction::Start(Snapshot::Load(fs, kRoot));
  txn->Add(MakeAdd("a.parquet"));
  fs->FailNthCall(io::FileOperation::kPutIfAbsent, 1);
  EXPECT_EQ(ErrorClassOf([&] { txn->Commit(); }), "FAULT_INJECTED");
  EXPECT_EQ(ListCommits(*memory, kRoot).size(), 1u);
}

// A checkpoint interval another tool wrote that silt cannot parse must not turn a landed commit
// into a reported failure (a caller would retry it and duplicate the data).
TEST(TransactionTest, UnparsableCheckpointIntervalInTheLogDoesNotFailALandedCommit) {
  for (const char* interval : {"0", "-5", "2.5", "abc"}) {
    auto fs = CreateTable(false, {{"delta.checkpointInterval", interval}});
    for (int64_t version = 1; version <= 3; ++version) {
      auto txn = Latest(fs);
      txn->Add(MakeAdd("f" + std::to_string(version) + ".parquet"));
      CommitResult result;
      ::testing::internal::CaptureStderr();
      ASSERT_NO_THROW(result = txn->Commit()) << interval;
      std::string warning = ::testing::internal::GetCapturedStderr();
      EXPECT_EQ(result.version, version);
      EXPECT_FALSE(result.checkpoint_written);
      EXPECT_THAT(result.post_commit_error, HasSubstr("INVALID_CONFIGURATION")) << interval;
      EXPECT_THAT(warning, HasSubstr("[WARN] version " + std::to_string(version)));
    }
    EXPECT_EQ(Snapshot::Load(fs, kRoot)->files().size(), 3u);
  }
}

TEST(TransactionTest, FailedPostCommitCheckpointIsAWarningNotAFailure) {
  auto memory = io::MakeMemoryFileSystem();
  auto fs = io::FaultInjectingFileSystem::Make(memory);
  auto create = Transaction::StartCreate(fs, kRoot);
  create->UpdateMetadata(MakeMetadata(false, {{"delta.checkpointInterval", "1"}}));
  create->Commit();
  auto txn = Transaction::Start(Snapshot::Load(fs, kRoot));
  txn->Add(MakeAdd("a.parquet"));
  fs->FailNthCall(io::FileOperation::kPutIfAbsent, 1, ".checkpoint.parquet");
  CommitResult result;
  ::testing::internal::CaptureStderr();
  ASSERT_NO_THROW(result = txn->Commit());
  std::string warning = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(result.version, 1);
  EXPECT_FALSE(result.checkpoint_written);
  EXPECT_THAT(result.post_commit_error, HasSubstr("FAULT_INJECTED"));
  EXPECT_THAT(warning, HasSubstr("[WARN] version 1"));
  EXPECT_THAT(warning, HasSubstr("FAULT_INJECTED"));
  EXPECT_EQ(Snapshot::Load(memory, kRoot)->files().size(), 1u);
}

TEST(TransactionTest, LostReplyWhileAnotherWriterWonIsAConflictNotASuccess) {
  auto memory = io::MakeMemoryFileSystem();
  auto fs = io::FaultInjectingFileSystem::Make(memory);
  auto create = Transaction::StartCreate(fs, kRoot);
  create->UpdateMetadata(MakeMetadata(false));
  create->Commit();
  auto mine = Transaction::Start(Snapshot::Load(fs, kRoot));
  mine->Add(MakeAdd("mine.parquet"));
  auto other = Transaction::Start(Snapshot::Load(memory, kRoot));
  other->Add(MakeAdd("other.parquet"));
  other->Commit();
  // The put loses (file exists) and its reply is lost too: the writer must still retry.
  fs->FailAfterNthCall(io::FileOperation::kPutIfAbsent, 1);
  CommitResult result = mine->Commit();
  EXPECT_EQ(result.version, 2);
  EXPECT_EQ(Snapshot::Load(memory, kRoot)->files().size(), 2u);
}

TEST(TransactionTest, InCommitTimestampsIncrease) {
  auto fs = CreateTable(false, {{"delta.enableInCommitTimestamps", "true"}});
  auto snapshot0 = Snapshot::Load(fs, kRoot);
  EXPECT_TRUE(IsFeatureSupported(snapshot0->protocol(), "inCommitTimestamp"));
  EXPECT_THAT(*snapshot0->protocol().writer_features,
              ::testing::UnorderedElementsAre("appendOnly", "invariants", "inCommitTimestamp"));
  auto txn = Transaction::Start(snapshot0);
  txn->Add(MakeAdd("a.parquet"));
  CommitOptions options;
  options.now_ms = 5;  // a clock behind the previous commit: ICT must still increase
  txn->Commit(options);
  auto snapshot1 = Snapshot::Load(fs, kRoot);
  ASSERT_TRUE(snapshot1->commit_info()->in_commit_timestamp.has_value());
  EXPECT_EQ(*snapshot1->commit_info()->in_commit_timestamp, *snapshot0->commit_info()->in_commit_timestamp + 1);
}

TEST(TransactionTest, RequiredProtocolFollowsFeatures) {
  EXPECT_EQ(RequiredProtocol(MakeMetadata(false)), (Protocol{1, 2, std::nullopt, std::nullopt}));
  EXPECT_EQ(RequiredProtocol(MakeMetadata(false, {{"delta.enableChangeDataFeed", "true"}})),
            (Protocol{1, 4, std::nullopt, std::nullopt}));
  Protocol dv = RequiredProtocol(MakeMetadata(false, {{"delta.enableDeletionVectors", "true"}}));
  EXPECT_EQ(dv.min_reader_version, 3);
  EXPECT_EQ(dv.min_writer_version, 7);
  EXPECT_THAT(*dv.reader_features, ElementsAre("deletionVectors"));
  EXPECT_THAT(*dv.writer_features, ElementsAre("appendOnly", "invariants", "deletionVectors"));
}

TEST(TransactionTest, DomainMetadataNeedsTheFeatureAndConflictsPerDomain) {
  auto plain = CreateTable(false);
  auto refused = Latest(plain);
  refused->AddDomainMetadata(DomainMetadata{"app.settings", "{}", false});
  EXPECT_EQ(ErrorClassOf([&] { refused->Commit(); }), "DELTA_DOMAIN_METADATA_NOT_SUPPORTED");

  auto fs = io::MakeMemoryFileSystem();
  auto create = Transaction::StartCreate(fs, kRoot);
  create->UpdateMetadata(MakeMetadata(false));
  create->UpdateProtocol(Protocol{1, 7, std::nullopt, std::vector<std::string>{"domainMetadata"}});
  create->Commit();
  auto first = Latest(fs);
  auto second = Latest(fs);
  auto third = Latest(fs);
  first->AddDomainMetadata(DomainMetadata{"app.settings", "{\"a\":1}", false});
  second->AddDomainMetadata(DomainMetadata{"app.settings", "{\"a\":2}", false});
  third->AddDomainMetadata(DomainMetadata{"app.other", "{}", false});
  first->Commit();
  EXPECT_EQ(ErrorClassOf([&] { second->Commit(); }), "DELTA_CONCURRENT_TRANSACTION");
  EXPECT_EQ(third->Commit().version, 2);
  auto snapshot = Snapshot::Load(fs, kRoot);
  EXPECT_EQ(snapshot->domain_metadata().at("app.settings").configuration, "{\"a\":1}");
  EXPECT_EQ(snapshot->domain_metadata().count("app.other"), 1u);
}

TEST(TransactionTest, ParsesIntervals) {
  EXPECT_EQ(ParseIntervalMs("interval 30 days", "k"), 30 * 86'400'000ll);
  EXPECT_EQ(ParseIntervalMs("interval 1 week", "k"), 7 * 86'400'000ll);
  EXPECT_EQ(ParseIntervalMs("2 hours", "k"), 7'200'000);
  EXPECT_EQ(ErrorClassOf([] { ParseIntervalMs("forever", "k"); }), "INVALID_CONFIGURATION");
}

}  // namespace
}  // namespace silt::log

namespace silt::log {
namespace {

// Row tracking: two writers that read the same snapshot both append; the one that loses the race
// takes the winner's high water mark when it retries, so no row id is handed out twice.
TEST(TransactionTest, ConcurrentAppendsUnderRowTrackingNeverShareRowIds) {
  auto fs = CreateTable(false, {{"delta.enableRowTracking", "true"}});
  auto first = Latest(fs);
  auto second = Latest(fs);
  first->Add(MakeAdd("a.parquet", std::nullopt, R"({"numRecords":5})"));
  second->Add(MakeAdd("b.parquet", std::nullopt, R"({"numRecords":3})"));
  EXPECT_EQ(first->Commit().version, 1);
  EXPECT_EQ(second->Commit().version, 2);

  auto snapshot = Snapshot::Load(fs, kRoot);
  std::map<std::string, std::pair<int64_t, int64_t>> ids;
  for (const AddFile& file : snapshot->files()) {
    ASSERT_TRUE(file.base_row_id && file.default_row_commit_version) << file.path;
    ids[file.path] = {*file.base_row_id, *file.default_row_commit_version};
  }
  EXPECT_EQ(ids["a.parquet"], std::make_pair(int64_t{0}, int64_t{1}));
  EXPECT_EQ(ids["b.parquet"], std::make_pair(int64_t{5}, int64_t{2}));
  auto domain = snapshot->domain_metadata().find("delta.rowTracking");
  ASSERT_NE(domain, snapshot->domain_metadata().end());
  EXPECT_EQ(domain->second.configuration, R"({"rowIdHighWaterMark":7})");
  // The metadata that enabled it names the materialized columns.
  EXPECT_NE(FindValue(snapshot->metadata().configuration,
                      "delta.rowTracking.materializedRowIdColumnName"),
            nullptr);
}

}  // namespace
}  // namespace silt::log
