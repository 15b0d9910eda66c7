#include <gmock/gmock.h>

#include <chrono>
#include <thread>

#include "silt/stream/delta_source.h"
#include "silt/stream/offset.h"
#include "silt/stream/stream_testing.h"

namespace silt::stream {
namespace {

using ::testing::ElementsAre;

class DeltaSourceTest : public StreamTest {
 protected:
  void SetUp() override {
    Sql("CREATE TABLE src (id BIGINT, k STRING); CREATE TABLE dst (id BIGINT, k STRING)");
  }

  // One INSERT (one data file) per value.
  void InsertEach(std::initializer_list<int> ids) {
    for (int id : ids) {
      // Files of later inserts are newer (the snapshot is read in modification-time order).
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      Sql("INSERT INTO src VALUES (" + std::to_string(id) + ", 'k" + std::to_string(id % 2) + "')");
    }
  }

  std::vector<std::string> Ids(const std::string& table = "dst") {
    return Query("SELECT id FROM " + table + " ORDER BY id");
  }

  static std::vector<int64_t> RowsPerBatch(const std::vector<QueryProgress>& progress) {
    std::vector<int64_t> rows;
    for (const QueryProgress& batch : progress) rows.push_back(batch.num_input_rows);
    return rows;
  }

  const std::string kCopy = "SELECT id, k FROM STREAM(src)";
};

TEST_F(DeltaSourceTest, OffsetIsDeltasJson) {
  DeltaSourceOffset offset{"5c1f8a9e-0000-4000-8000-000000000001", 7, 3, true};
  EXPECT_EQ(offset.ToJson(),
            "{\"sourceVersion\":1,\"reservoirId\":\"5c1f8a9e-0000-4000-8000-000000000001\","
            "\"reservoirVersion\":7,\"index\":3,\"isStartingVersion\":true}");
  EXPECT_EQ(DeltaSourceOffset::Parse(offset.ToJson()), offset);
  EXPECT_EQ(ErrorOf([] {
              DeltaSourceOffset::Parse(
                  "{\"sourceVersion\":9,\"reservoirId\":\"x\",\"reservoirVersion\":1,\"index\":-1,"
                  "\"isStartingVersion\":false}");
            }),
            "DELTA_INVALID_SOURCE_VERSION");
  EXPECT_EQ(ErrorOf([] { DeltaSourceOffset::Parse("{\"sourceVersion\":1}"); }),
            "DELTA_INVALID_SOURCE_OFFSET_FORMAT");
  EXPECT_EQ(ErrorOf([] { DeltaSourceOffset::Parse("not json"); }),
            "DELTA_INVALID_SOURCE_OFFSET_FORMAT");
}

TEST_F(DeltaSourceTest, OffsetsOfDeltasMetadataChangeIndexesReadAsTheVersionsBase) {
  // Delta writes sourceVersion 3 only for the indexes of a metadata change (-20, -19): before
  // the version's first file, which silt names with Delta's serialised base index.
  for (int64_t index : {-20, -19}) {
    DeltaSourceOffset offset = DeltaSourceOffset::Parse(
        "{\"sourceVersion\":3,\"reservoirId\":\"t\",\"reservoirVersion\":5,\"index\":" +
        std::to_string(index) + ",\"isStartingVersion\":false}");
    EXPECT_EQ(offset, (DeltaSourceOffset{"t", 5, DeltaSourceOffset::kBaseIndex, false}));
    EXPECT_EQ(offset.ToJson(),
              "{\"sourceVersion\":1,\"reservoirId\":\"t\",\"reservoirVersion\":5,\"index\":-1,"
              "\"isStartingVersion\":false}");
  }
  // Version 2 is reserved in Delta and never written.
  EXPECT_EQ(ErrorOf([] {
              DeltaSourceOffset::Parse(
                  "{\"sourceVersion\":2,\"reservoirId\":\"t\",\"reservoirVersion\":1,\"index\":-1,"
                  "\"isStartingVersion\":false}");
            }),
            "DELTA_INVALID_SOURCE_VERSION");
  EXPECT_EQ(ErrorOf([] {
              DeltaSourceOffset::Parse(
                  "{\"sourceVersion\":1,\"reservoirId\":\"t\",\"reservoirVersion\":1,\"index\":-7,"
                  "\"isStartingVersion\":false}");
            }),
            "DELTA_INVALID_SOURCE_OFFSET_FORMAT");
}

TEST_F(DeltaSourceTest, OffsetsIndexACommitsDataAddsAndMoveToTheNextVersionAtItsEnd) {
  Sql("CREATE TABLE wide (id BIGINT, p INT) PARTITIONED BY (p)");
  Sql("CREATE TABLE wide_copy (id BIGINT, p INT)");
  Sql("INSERT INTO wide VALUES (1, 1), (2, 2), (3, 3)");  // version 1: three adds
  std::vector<QueryProgress> progress =
      RunInto("wide_copy", "SELECT id, p FROM STREAM(wide)",
              {{"startingVersion", "1"}, {"maxFilesPerTrigger", "2"}});
  ASSERT_EQ(progress.size(), 2u);
  std::string id = Latest("wide")->metadata().id;
  auto offset = [&](int64_t version, int64_t index) {
    return DeltaSourceOffset{id, version, index, false}.ToJson();
  };
  // The second of the commit's adds (indexes count from 0), then, once the commit is read to its
  // end, the next version before its first file: the offsets Delta writes for the same reads.
  EXPECT_EQ(progress[0].sources[0].end_offset, offset(1, 1));
  EXPECT_EQ(progress[1].sources[0].end_offset, offset(2, DeltaSourceOffset::kBaseIndex));
}

TEST_F(DeltaSourceTest, StreamsTheSnapshotThenOnlyNewCommits) {
  InsertEach({1, 2});
  RunInto("dst", kCopy);
  EXPECT_THAT(Ids(), ElementsAre("1", "2"));
  InsertEach({3});
  std::vector<QueryProgress> second = RunInto("dst", kCopy);
  EXPECT_THAT(Ids(), ElementsAre("1", "2", "3"));
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].batch_id, 1);
  EXPECT_EQ(second[0].num_input_rows, 1);
  // Nothing new: no batch at all.
  EXPECT_TRUE(RunInto("dst", kCopy).empty());
}

TEST_F(DeltaSourceTest, InitialSnapshotIsReadInModificationTimeThenPathOrder) {
  InsertEach({1, 2, 3});
  std::vector<int64_t> batches;
  auto execution = Make(kCopy, MakeForEachBatchSink([&](const BatchContext& batch) {
                          SchemaPtr schema;
                          std::vector<Batch> rows = batch.Run(&schema);
                          ASSERT_EQ(rows.size(), 1u);
                          batches.push_back(rows[0].column(0)->values<int64_t>()[0]);
                        }),
                        {{"maxFilesPerTrigger", "1"}});
  execution->Run();
  // Each insert's file is newer than the one before.
  EXPECT_THAT(batches, ElementsAre(1, 2, 3));
}

TEST_F(DeltaSourceTest, MaxFilesPerTriggerSplitsBatches) {
  InsertEach({1, 2, 3, 4, 5});
  std::vector<QueryProgress> progress = RunInto("dst", kCopy, {{"maxFilesPerTrigger", "2"}});
  EXPECT_THAT(RowsPerBatch(progress), ElementsAre(2, 2, 1));
  EXPECT_THAT(Ids(), ElementsAre("1", "2", "3", "4", "5"));
  InsertEach({6, 7, 8});
  progress = RunInto("dst", kCopy, {{"maxFilesPerTrigger", "2"}});
  EXPECT_THAT(RowsPerBatch(progress), ElementsAre(2, 1));
  EXPECT_EQ(progress.front().batch_id, 3);
}

TEST_F(DeltaSourceTest, MaxBytesPerTriggerAdmitsTheFileThatCrossesIt) {
  InsertEach({1, 2, 3});
  EXPECT_THAT(RowsPerBatch(RunInto("dst", kCopy, {{"maxBytesPerTrigger", "1"}})),
              ElementsAre(1, 1, 1));
  Sql("DELETE FROM dst");
  InsertEach({4, 5});
  EXPECT_THAT(RowsPerBatch(RunInto("dst", kCopy, {{"maxBytesPerTrigger", "1g"}}, TriggerKind::kAvailableNow,
                                   OutputMode::kAppend, "other")),
              ElementsAre(5));
}

TEST_F(DeltaSourceTest, StartingVersionSkipsTheSnapshot) {
  InsertEach({1, 2, 3});  // versions 1, 2, 3
  RunInto("dst", kCopy, {{"startingVersion", "2"}});
  EXPECT_THAT(Ids(), ElementsAre("2", "3"));
}

TEST_F(DeltaSourceTest, StartingVersionLatestReadsOnlyLaterCommits) {
  InsertEach({1, 2});
  EXPECT_TRUE(RunInto("dst", kCopy, {{"startingVersion", "latest"}}).empty());
  InsertEach({3});
  RunInto("dst", kCopy, {{"startingVersion", "latest"}});
  EXPECT_THAT(Ids(), ElementsAre("3"));
}

TEST_F(DeltaSourceTest, StartingTimestampStartsAtTheFirstCommitAtOrAfterIt) {
  InsertEach({1, 2, 3});
  // Commit times: version v at 2024-01-0v (UTC midnight).
  for (int version = 0; version <= 3; ++version) {
    fs_->SetModificationTime(
        io::JoinPath(Location("src"), "_delta_log/" + log::FormatVersion(version) + ".json"),
        1704067200000LL + version * 86400000LL);
  }
  RunInto("dst", kCopy, {{"startingTimestamp", "2024-01-02 12:00:00"}});
  EXPECT_THAT(Ids(), ElementsAre("2", "3"));
  EXPECT_TRUE(RunInto("dst", kCopy, {{"startingTimestamp", "2030-01-01"}}, TriggerKind::kAvailableNow,
                      OutputMode::kAppend, "later")
                  .empty());
}

TEST_F(DeltaSourceTest, BadOptionsAreRefused) {
  InsertEach({1});
  auto open = [&](std::map<std::string, std::string> options) {
    return ErrorOf([&] { RunInto("dst", kCopy, options); });
  };
  EXPECT_EQ(open({{"startingVersion", "1"}, {"startingTimestamp", "2024-01-01"}}),
            "DELTA_STARTING_VERSION_AND_TIMESTAMP_BOTH_SET");
  EXPECT_EQ(open({{"startingVersion", "one"}}), "INVALID_STREAMING_OPTION");
  EXPECT_EQ(open({{"startingVersion", "-1"}}), "INVALID_STREAMING_OPTION");
  EXPECT_EQ(open({{"startingTimestamp", "yesterday"}}), "INVALID_STREAMING_OPTION");
  EXPECT_EQ(open({{"maxFilesPerTrigger", "0"}}), "INVALID_STREAMING_OPTION");
  EXPECT_EQ(open({{"maxBytesPerTrigger", "10q"}}), "INVALID_STREAMING_OPTION");
  EXPECT_EQ(open({{"ignoreDeletes", "maybe"}}), "INVALID_STREAMING_OPTION");
  EXPECT_EQ(open({{"excludeRegex", "["}}), "INVALID_STREAMING_OPTION");
  // Option names are case-insensitive, as Spark's.
  EXPECT_EQ(open({{"MAXFILESPERTRIGGER", "x"}}), "INVALID_STREAMING_OPTION");
}

TEST_F(DeltaSourceTest, ACommitThatOnlyDeletesFailsUnlessIgnoreDeletes) {
  InsertEach({1});
  RunInto("dst", kCopy);
  InsertEach({2});
  Sql("DELETE FROM src WHERE id = 1");  // removes the whole file of row 1
  EXPECT_EQ(ErrorOf([&] { RunInto("dst", kCopy); }), "DELTA_SOURCE_IGNORE_DELETE");
  // What came before the delete was streamed first.
  EXPECT_THAT(Ids(), ElementsAre("1", "2"));
  InsertEach({3});
  RunInto("dst", kCopy, {{"ignoreDeletes", "true"}});
  EXPECT_THAT(Ids(), ElementsAre("1", "2", "3"));
}

TEST_F(DeltaSourceTest, ACommitThatRewritesFailsUnlessSkipChangeCommits) {
  Sql("INSERT INTO src VALUES (1, 'a'), (2, 'b')");
  RunInto("dst", kCopy);
  Sql("UPDATE src SET k = 'z' WHERE id = 1");  // rewrites the file: remove + add
  EXPECT_EQ(ErrorOf([&] { RunInto("dst", kCopy); }), "DELTA_SOURCE_TABLE_IGNORE_CHANGES");
  // ignoreDeletes is for whole-file deletes only.
  EXPECT_EQ(ErrorOf([&] { RunInto("dst", kCopy, {{"ignoreDeletes", "true"}}); }),
            "DELTA_SOURCE_TABLE_IGNORE_CHANGES");
  InsertEach({3});
  RunInto("dst", kCopy, {{"skipChangeCommits", "true"}});
  // The rewritten rows are not streamed again; later commits are.
  EXPECT_THAT(Ids(), ElementsAre("1", "2", "3"));
}

TEST_F(DeltaSourceTest, IgnoreChangesStreamsARewritesFilesAgain) {
  Sql("INSERT INTO src VALUES (1, 'a'), (2, 'b')");
  RunInto("dst", kCopy);
  Sql("UPDATE src SET k = 'z' WHERE id = 1");
  RunInto("dst", kCopy, {{"ignoreChanges", "true"}});
  EXPECT_THAT(Ids(), ElementsAre("1", "1", "2", "2"));
}

TEST_F(DeltaSourceTest, ASchemaChangeFailsTheStreamAndARestartReadsTheNewSchema) {
  const std::string query = "SELECT id FROM STREAM(src)";
  Sql("CREATE TABLE ids (id BIGINT)");
  InsertEach({1});
  RunInto("ids", query);
  InsertEach({2});
  // The source reads the schema it finds when it starts.
  auto execution = Make(query, SinkInto("ids"));
  Sql("ALTER TABLE src ADD COLUMNS (extra INT)");
  Sql("INSERT INTO src VALUES (3, 'k1', 30)");
  EXPECT_EQ(ErrorOf([&] { execution->Run(); }), "DELTA_SCHEMA_CHANGED_WITH_VERSION");
  EXPECT_THAT(Ids("ids"), ElementsAre("1", "2"));
  RunInto("ids", query);
  EXPECT_THAT(Ids("ids"), ElementsAre("1", "2", "3"));
}

TEST_F(DeltaSourceTest, ASchemaChangeNamesTheStartingOptionsWhenTheyWereGiven) {
  InsertEach({1});
  Sql("ALTER TABLE src ADD COLUMNS (extra INT)");
  Sql("CREATE TABLE ids (id BIGINT)");
  // The source reads the latest schema; version 0 declared the one before the change.
  EXPECT_EQ(ErrorOf([&] { RunInto("ids", "SELECT id FROM STREAM(src)", {{"startingVersion", "0"}}); }),
            "DELTA_SCHEMA_CHANGED_WITH_STARTING_OPTIONS");
}

TEST_F(DeltaSourceTest, ACheckpointOfAnotherTableIsRefused) {
  InsertEach({1});
  RunInto("dst", kCopy);
  Sql("CREATE TABLE other (id BIGINT, k STRING); INSERT INTO other VALUES (9, 'x')");
  EXPECT_EQ(ErrorOf([&] { RunInto("dst", "SELECT id, k FROM STREAM(other)"); }),
            "DIFFERENT_DELTA_TABLE_READ_BY_STREAMING_SOURCE");
}

TEST_F(DeltaSourceTest, DeletionVectorsOfTheSnapshotAreHonoured) {
  Sql("CREATE TABLE dv (id BIGINT, k STRING) TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')");
  Sql("INSERT INTO dv VALUES (1, 'a'), (2, 'b'), (3, 'c')");
  Sql("DELETE FROM dv WHERE id = 2");
  std::vector<QueryProgress> progress = RunInto("dst", "SELECT id, k FROM STREAM(dv)");
  EXPECT_THAT(Ids(), ElementsAre("1", "3"));
  ASSERT_EQ(progress.size(), 1u);
  EXPECT_EQ(progress[0].num_input_rows, 2);
}

TEST_F(DeltaSourceTest, ExcludeRegexLeavesFilesOut) {
  Sql("CREATE TABLE parts (id BIGINT, k STRING) PARTITIONED BY (k)");
  Sql("INSERT INTO parts VALUES (1, 'keep'), (2, 'skip'), (3, 'keep')");
  RunInto("dst", "SELECT id, k FROM STREAM(parts)", {{"excludeRegex", "k=skip"}});
  EXPECT_THAT(Ids(), ElementsAre("1", "3"));
}

TEST_F(DeltaSourceTest, ReadChangeFeedStreamsTheSnapshotAsInsertsThenEachCommitsChanges) {
  Sql("CREATE TABLE cdf (id BIGINT, k STRING) TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true')");
  Sql("INSERT INTO cdf VALUES (1, 'a'), (2, 'b')");  // version 1
  Sql("CREATE TABLE changes (id BIGINT, k STRING, _change_type STRING, _commit_version BIGINT)");
  const std::string query = "SELECT id, k, _change_type, _commit_version FROM STREAM(cdf)";
  RunInto("changes", query, {{"readChangeFeed", "true"}});
  Sql("UPDATE cdf SET k = 'z' WHERE id = 1");  // version 2
  Sql("DELETE FROM cdf WHERE id = 2");         // version 3: a change, not a failure
  std::vector<QueryProgress> progress =
      RunInto("changes", query, {{"readChangeFeed", "true"}, {"maxFilesPerTrigger", "1"}});
  EXPECT_EQ(progress.size(), 2u);  // one commit per batch
  EXPECT_THAT(Query("SELECT id, k, _change_type, _commit_version FROM changes "
                    "ORDER BY _commit_version, id, _change_type"),
              ElementsAre("1,a,insert,1", "2,b,insert,1", "1,z,update_postimage,2",
                          "1,a,update_preimage,2", "2,b,delete,3"));
}

TEST_F(DeltaSourceTest, ReadChangeFeedFromAStartingVersion) {
  Sql("CREATE TABLE cdf (id BIGINT, k STRING) TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true')");
  Sql("INSERT INTO cdf VALUES (1, 'a')");  // version 1
  Sql("INSERT INTO cdf VALUES (2, 'b')");  // version 2
  Sql("CREATE TABLE changes (id BIGINT, _change_type STRING, _commit_version BIGINT)");
  RunInto("changes", "SELECT id, _change_type, _commit_version FROM STREAM(cdf)",
          {{"readChangeFeed", "true"}, {"startingVersion", "2"}});
  EXPECT_THAT(Query("SELECT * FROM changes"), ElementsAre("2,insert,2"));
}

TEST_F(DeltaSourceTest, StreamOfAViewIsRefused) {
  Sql("CREATE TEMP VIEW v AS SELECT * FROM src");
  EXPECT_EQ(ErrorOf([&] { RunInto("dst", "SELECT id, k FROM STREAM(v)"); }), "UNSUPPORTED_FEATURE");
  EXPECT_EQ(ErrorClassOf("SELECT * FROM STREAM(src)"), "UNSUPPORTED_FEATURE");
}

}  // namespace
}  // namespace silt::stream
