#include "silt/log/change_feed.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <set>

#include "silt/base/testing_error_class.h"
#include "silt/error.h"
#include "silt/log/deletion_vector.h"
#include "silt/log/log_segment.h"
#include "silt/log/transaction.h"
#include "silt/parquet/writer.h"

namespace silt::log {
namespace {

using ::testing::ElementsAre;
using ::testing::UnorderedElementsAre;
using ::testing::UnorderedElementsAreArray;

constexpr const char* kSchema =
    R"({\"type\":\"struct\",\"fields\":[{\"name\":\"id\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}},{\"name\":\"v\",\"type\":\"string\",\"nullable\":true,\"metadata\":{}}]})";

std::string ParseableSchema() {
  return R"({"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}},{"name":"v","type":"string","nullable":true,"metadata":{}}]})";
}

// Writes a Parquet file of (id long, v string), with `_change_type` when `change_types` is
// not empty (a cdc file).
void WriteFile(io::FileSystem& fs, const std::string& path, const std::vector<int64_t>& ids,
               const std::vector<std::string>& change_types = {}) {
  std::vector<Field> fields = {Field{"id", LongType(), true, {}}, Field{"v", StringType(), true, {}}};
  if (!change_types.empty()) fields.push_back(Field{"_change_type", StringType(), true, {}});
  auto schema = std::make_shared<const Schema>(fields);
  VectorBuilder ids_builder(LongType());
  VectorBuilder values(StringType());
  VectorBuilder types(StringType());
  for (size_t i = 0; i < ids.size(); ++i) {
    ids_builder.AppendInt(ids[i]);
    values.AppendString("v" + std::to_string(ids[i]));
    if (!change_types.empty()) types.AppendString(change_types[i]);
  }
  std::vector<VectorPtr> columns = {ids_builder.Finish(), values.Finish()};
  if (!change_types.empty()) columns.push_back(types.Finish());
  parquet::WriterOptions options;
  options.max_parallelism = 1;
  auto writer = parquet::FileWriter::Open(fs.OpenWrite(path), *schema, options);
  writer->Write(Batch(schema, columns, static_cast<int64_t>(ids.size())));
  writer->Close();
}

std::vector<std::string> RowsOf(const std::vector<Batch>& batches) {
  std::vector<std::string> rows;
  for (const auto& batch : batches) {
    for (int64_t r = 0; r < batch.num_rows(); ++r) {
      std::string row;
      for (size_t c = 0; c < batch.num_columns(); ++c) {
        if (c > 0) row += ",";
        row += batch.column(c)->ValueToString(r);
      }
      rows.push_back(row);
    }
  }
  return rows;
}

std::string MetadataAction(bool feed) {
  return R"({"metaData":{"id":"t","format":{"provider":"parquet","options":{}},"schemaString":")" +
         std::string(kSchema) + R"(","partitionColumns":[],"configuration":{)" +
         (feed ? R"("delta.enableChangeDataFeed":"true")" : "") + "}}}";
}

std::string Protocol() {
  return R"({"protocol":{"minReaderVersion":3,"minWriterVersion":7,"readerFeatures":["deletionVectors"],"writerFeatures":["deletionVectors","changeDataFeed"]}})";
}

std::string Add(const std::string& path, bool data_change = true, const std::string& dv = "") {
  return R"({"add":{"path":")" + path + R"(","partitionValues":{},"size":1,"modificationTime":1,"dataChange":)" +
         (data_change ? "true" : "false") + (dv.empty() ? "" : R"(,"deletionVector":)" + dv) + "}}";
}

std::string Remove(const std::string& path, bool data_change = true, const std::string& dv = "") {
  return R"({"remove":{"path":")" + path + R"(","deletionTimestamp":1,"dataChange":)" +
         (data_change ? "true" : "false") + (dv.empty() ? "" : R"(,"deletionVector":)" + dv) + "}}";
}

std::string Cdc(const std::string& path) {
  return R"({"cdc":{"path":")" + path + R"(","partitionValues":{},"size":1,"dataChange":false}})";
}

// An inline deletion vector descriptor deleting `rows`.
std::string InlineDv(const std::vector<uint64_t>& rows) {
  std::string bitmap = DeletedRows::FromIndexes(rows).Serialize();
  return R"({"storageType":"i","pathOrInlineDv":")" + Z85Encode(bitmap) +
         R"(","sizeInBytes":)" + std::to_string(bitmap.size()) +
         R"(,"cardinality":)" + std::to_string(rows.size()) + "}";
}

class ChangeFeedTest : public ::testing::Test {
 protected:
  void Commit(int64_t version, const std::vector<std::string>& actions, int64_t time_ms = 0) {
    std::string text;
    for (const auto& action : actions) text += action + "\n";
    std::string path = "t/_delta_log/" + FormatVersion(version) + ".json";
    fs_->WriteFile(path, text);
    fs_->SetModificationTime(path, time_ms != 0 ? time_ms : 1'000'000 + version * 1000);
  }

  std::shared_ptr<const ChangeFeed> Feed(ChangeFeedBound start,
                                         std::optional<ChangeFeedBound> end = std::nullopt) {
    ChangeFeedOptions options;
    options.start = start;
    options.end = end;
    return ChangeFeed::Make(fs_, "t", options);
  }

  // Rows as "id,v,_change_type,_commit_version".
  std::vector<std::string> Read(ChangeFeedBound start,
                                std::optional<ChangeFeedBound> end = std::nullopt) {
    return RowsOf(Feed(start, end)->MakeReader({0, 1, 2, 3})->ReadAll());
  }

  // v0 creates the table with f0 (1, 2, 3), v1 appends f1 (4, 5), v2 removes f0, v3 compacts f1
  // into f2 without a data change.
  void MakeBasicTable() {
    WriteFile(*fs_, "t/f0.parquet", {1, 2, 3});
    WriteFile(*fs_, "t/f1.parquet", {4, 5});
    WriteFile(*fs_, "t/f2.parquet", {4, 5});
    Commit(0, {Protocol(), MetadataAction(true), Add("f0.parquet")});
    Commit(1, {Add("f1.parquet")});
    Commit(2, {Remove("f0.parquet")});
    Commit(3, {Remove("f1.parquet", false), Add("f2.parquet", false)});
  }

  std::shared_ptr<io::FileSystem> fs_ = io::MakeMemoryFileSystem();
};

TEST_F(ChangeFeedTest, AddsAndRemovesWithDataChangeAreInsertsAndDeletes) {
  MakeBasicTable();
  EXPECT_THAT(Read(ChangeFeedBound::Version(0)),
              UnorderedElementsAre("1,v1,insert,0", "2,v2,insert,0", "3,v3,insert,0",
                                   "4,v4,insert,1", "5,v5,insert,1", "1,v1,delete,2",
                                   "2,v2,delete,2", "3,v3,delete,2"));
  // A commit without data change contributes nothing.
  EXPECT_THAT(Read(ChangeFeedBound::Version(3)), ElementsAre());
}

TEST_F(ChangeFeedTest, ReadsOnlyTheCommitsOfTheRange) {
  MakeBasicTable();
  auto feed = Feed(ChangeFeedBound::Version(1), ChangeFeedBound::Version(2));
  EXPECT_EQ(feed->commits_read(), 2);
  EXPECT_EQ(feed->start_version(), 1);
  EXPECT_EQ(feed->end_version(), 2);
  EXPECT_EQ(feed->files().size(), 2u);
  EXPECT_THAT(RowsOf(feed->MakeReader({0, 3})->ReadAll()),
              UnorderedElementsAre("4,1", "5,1", "1,2", "2,2", "3,2"));
}

TEST_F(ChangeFeedTest, OutputSchemaAddsTheChangeColumns) {
  MakeBasicTable();
  auto feed = Feed(ChangeFeedBound::Version(0));
  const Schema& schema = *feed->schema();
  ASSERT_EQ(schema.num_fields(), 5u);
  EXPECT_EQ(schema.field(2).name, "_change_type");
  EXPECT_EQ(schema.field(3).name, "_commit_version");
  EXPECT_EQ(schema.field(3).type->id(), TypeId::kLong);
  EXPECT_EQ(schema.field(4).name, "_commit_timestamp");
  EXPECT_EQ(schema.field(4).type->id(), TypeId::kTimestamp);
  // Commit timestamps are the commit files' times, in microseconds.
  auto batches = feed->MakeReader({3, 4})->ReadAll();
  ASSERT_FALSE(batches.empty());
  for (const Batch& batch : batches) {
    for (int64_t r = 0; r < batch.num_rows(); ++r) {
      int64_t version = batch.column(0)->values<int64_t>()[r];
      EXPECT_EQ(batch.column(1)->values<int64_t>()[r], (1'000'000 + version * 1000) * 1000);
    }
  }
}

TEST_F(ChangeFeedTest, CdcFilesReplaceTheAddsAndRemovesOfTheirCommit) {
  WriteFile(*fs_, "t/f0.parquet", {1, 2});
  WriteFile(*fs_, "t/f1.parquet", {1, 20});
  WriteFile(*fs_, "t/_change_data/c1.parquet", {2, 20}, {"update_preimage", "update_postimage"});
  Commit(0, {Protocol(), MetadataAction(true), Add("f0.parquet")});
  Commit(1, {Remove("f0.parquet"), Add("f1.parquet"), Cdc("_change_data/c1.parquet")});
  EXPECT_THAT(Read(ChangeFeedBound::Version(1)),
              UnorderedElementsAre("2,v2,update_preimage,1", "20,v20,update_postimage,1"));
}

TEST_F(ChangeFeedTest, ChangeColumnsAloneStillCountEveryRow) {
  WriteFile(*fs_, "t/f0.parquet", {1, 2});
  WriteFile(*fs_, "t/_change_data/c1.parquet", {2}, {"delete"});
  Commit(0, {Protocol(), MetadataAction(true), Add("f0.parquet")});
  Commit(1, {Remove("f0.parquet"), Cdc("_change_data/c1.parquet")});
  auto feed = Feed(ChangeFeedBound::Version(0));
  EXPECT_THAT(RowsOf(feed->MakeReader({2})->ReadAll()),
              UnorderedElementsAre("insert", "insert", "delete"));
  EXPECT_THAT(RowsOf(feed->MakeReader({3})->ReadAll()), UnorderedElementsAre("0", "0", "1"));
}

TEST_F(ChangeFeedTest, DeletionVectorChangesGiveOnlyTheRowsTheyChange) {
  WriteFile(*fs_, "t/f0.parquet", {10, 11, 12, 13});
  Commit(0, {Protocol(), MetadataAction(true), Add("f0.parquet")});
  // Rows 1 and 2 deleted by a new DV.
  Commit(1, {Remove("f0.parquet"), Add("f0.parquet", true, InlineDv({1, 2}))});
  // Row 2 restored, row 3 deleted.
  Commit(2, {Remove("f0.parquet", true, InlineDv({1, 2})), Add("f0.parquet", true, InlineDv({1, 3}))});
  // The whole logical file deleted: its live rows are the deletes.
  Commit(3, {Remove("f0.parquet", true, InlineDv({1, 3}))});
  EXPECT_THAT(Read(ChangeFeedBound::Version(1)),
              UnorderedElementsAre("11,v11,delete,1", "12,v12,delete,1", "13,v13,delete,2",
                                   "12,v12,insert,2", "10,v10,delete,3", "12,v12,delete,3"));
}

TEST_F(ChangeFeedTest, RangeErrors) {
  MakeBasicTable();
  EXPECT_EQ(ErrorClassOf([&] { Feed(ChangeFeedBound::Version(2), ChangeFeedBound::Version(1)); }),
            "DELTA_INVALID_CDC_RANGE");
  try {
    Feed(ChangeFeedBound::Version(7));
    FAIL();
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), "DELTA_CDC_START_VERSION_AFTER_LATEST");
    EXPECT_NE(std::string(error.what()).find("latest table version 3"), std::string::npos)
        << error.what();
  }
  // An end after the latest version is capped.
  auto feed = Feed(ChangeFeedBound::Version(2), ChangeFeedBound::Version(50));
  EXPECT_EQ(feed->end_version(), 3);
  EXPECT_EQ(ErrorClassOf([&] { Feed(ChangeFeedBound::Version(-1)); }), "DELTA_VERSION_NOT_FOUND");
}

TEST_F(ChangeFeedTest, TimestampBounds) {
  MakeBasicTable();  // commits at 1'000'000 + 1000 * version ms
  auto feed = Feed(ChangeFeedBound::Timestamp(1'000'500), ChangeFeedBound::Timestamp(1'002'000));
  EXPECT_EQ(feed->start_version(), 1);
  EXPECT_EQ(feed->end_version(), 2);
  // Both bounds between the same two commits: nothing, not an error.
  feed = Feed(ChangeFeedBound::Timestamp(1'001'200), ChangeFeedBound::Timestamp(1'001'800));
  EXPECT_TRUE(feed->empty());
  EXPECT_TRUE(feed->files().empty());
  EXPECT_EQ(ErrorClassOf([&] { Feed(ChangeFeedBound::Timestamp(9'000'000)); }),
            "DELTA_TIMESTAMP_GREATER_THAN_COMMIT");
  EXPECT_EQ(ErrorClassOf([&] {
              Feed(ChangeFeedBound::Timestamp(1'002'000), ChangeFeedBound::Timestamp(1'000'000));
            }),
            "DELTA_INVALID_CDC_RANGE");
}

TEST_F(ChangeFeedTest, MissingChangeDataBeforeTheFeedWasEnabledOrAfterItWasTurnedOff) {
  WriteFile(*fs_, "t/f0.parquet", {1});
  Commit(0, {Protocol(), MetadataAction(false), Add("f0.parquet")});
  Commit(1, {MetadataAction(true)});
  Commit(2, {Add("f0.parquet")});
  Commit(3, {MetadataAction(false)});
  try {
    Feed(ChangeFeedBound::Version(0), ChangeFeedBound::Version(2));
    FAIL();
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), "DELTA_MISSING_CHANGE_DATA");
    EXPECT_NE(std::string(error.what()).find("range [0 , 2]"), std::string::npos);
    EXPECT_NE(std::string(error.what()).find("version [0]"), std::string::npos);
  }
  EXPECT_THAT(Read(ChangeFeedBound::Version(1), ChangeFeedBound::Version(2)),
              ElementsAre("1,v1,insert,2"));
  try {
    Feed(ChangeFeedBound::Version(2));
    FAIL();
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), "DELTA_MISSING_CHANGE_DATA");
    EXPECT_NE(std::string(error.what()).find("version [3]"), std::string::npos);
  }
}

TEST_F(ChangeFeedTest, MissingCommitsAndFiles) {
  MakeBasicTable();
  fs_->Delete("t/f1.parquet");
  auto feed = Feed(ChangeFeedBound::Version(1));
  EXPECT_EQ(ErrorClassOf([&] { feed->MakeReader({})->ReadAll(); }),
            "DELTA_CHANGE_DATA_FILE_NOT_FOUND");
  fs_->Delete("t/_delta_log/" + FormatVersion(0) + ".json");
  try {
    Feed(ChangeFeedBound::Version(0));
    FAIL();
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), "DELTA_VERSION_NOT_FOUND");
    EXPECT_NE(std::string(error.what()).find("[1, 3]"), std::string::npos) << error.what();
  }
}

// Counts the files opened for reading.
class CountingFileSystem final : public io::FileSystem {
 public:
  explicit CountingFileSystem(std::shared_ptr<io::FileSystem> base) : base_(std::move(base)) {}
  std::optional<io::FileInfo> Stat(const std::string& path) override { return base_->Stat(path); }
  std::vector<io::FileInfo> List(const std::string& dir, const std::string& start_after,
                                 bool recursive) override {
    return base_->List(dir, start_after, recursive);
  }
  std::unique_ptr<io::RandomAccessFile> OpenRead(const std::string& path) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      opened_.insert(path);
    }
    return base_->OpenRead(path);
  }
  std::unique_ptr<io::OutputStream> OpenWrite(const std::string& path) override {
    return base_->OpenWrite(path);
  }
  io::PutOutcome PutIfAbsent(const std::string& path, std::string_view bytes) override {
    return base_->PutIfAbsent(path, bytes);
  }
  bool Delete(const std::string& path) override { return base_->Delete(path); }
  void Rename(const std::string& from, const std::string& to) override { base_->Rename(from, to); }
  void SetModificationTime(const std::string& path, int64_t time_ms) override {
    base_->SetModificationTime(path, time_ms);
  }
  io::Capabilities capabilities() const override { return base_->capabilities(); }

  std::set<std::string> opened() {
    std::lock_guard<std::mutex> lock(mutex_);
    return opened_;
  }

 private:
  std::shared_ptr<io::FileSystem> base_;
  std::mutex mutex_;
  std::set<std::string> opened_;
};

TEST(ChangeFeedLongLogTest, LastTenOfAThousandCommitsReadOnlyTheirFiles) {
  auto memory = io::MakeMemoryFileSystem();
  // Commits through Transaction (the enforcing writers are the SQL statements): a table with the
  // feed on and one small data file per commit, checkpointed every 10 commits.
  auto create = Transaction::StartCreate(memory, "t", {"changeDataFeed"});
  log::Metadata metadata;
  metadata.id = "t";
  metadata.schema_string = ParseableSchema();
  metadata.configuration = {{"delta.enableChangeDataFeed", "true"}};
  create->UpdateMetadata(metadata);
  create->Commit();
  std::vector<std::string> last_files;
  constexpr int64_t kCommits = 1000;
  for (int64_t i = 1; i <= kCommits; ++i) {
    std::string name = "f" + std::to_string(i) + ".parquet";
    WriteFile(*memory, "t/" + name, {i});
    auto transaction = Transaction::StartLatest(memory, "t", {"changeDataFeed"});
    AddFile add;
    add.path = name;
    add.size = 1;
    transaction->Add(add);
    transaction->Commit();
    if (i > kCommits - 10) last_files.push_back("t/" + name);
  }
  auto counting = std::make_shared<CountingFileSystem>(memory);
  ChangeFeedOptions options;
  options.start = ChangeFeedBound::Version(kCommits - 9);
  auto feed = ChangeFeed::Make(counting, "t", options);
  EXPECT_EQ(feed->commits_read(), 10);
  EXPECT_EQ(feed->files().size(), 10u);
  auto rows = RowsOf(feed->MakeReader({0, 2, 3})->ReadAll());
  std::vector<std::string> expected;
  for (int64_t v = kCommits - 9; v <= kCommits; ++v) {
    expected.push_back(std::to_string(v) + ",insert," + std::to_string(v));
  }
  EXPECT_THAT(rows, UnorderedElementsAreArray(expected));

  std::set<std::string> commits_opened;
  std::set<std::string> data_opened;
  for (const std::string& path : counting->opened()) {
    if (path.find("_delta_log/") == std::string::npos) {
      data_opened.insert(path);
    } else if (path.size() > 5 && path.substr(path.size() - 5) == ".json" &&
               path.find("checkpoint") == std::string::npos) {
      commits_opened.insert(path);
    }
  }
  std::set<std::string> expected_commits;
  for (int64_t v = kCommits - 9; v <= kCommits; ++v) {
    expected_commits.insert("t/_delta_log/" + FormatVersion(v) + ".json");
  }
  EXPECT_EQ(commits_opened, expected_commits);
  EXPECT_EQ(data_opened, std::set<std::string>(last_files.begin(), last_files.end()));
}

}  // namespace
}  // namespace silt::log
