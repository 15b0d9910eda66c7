#include "silt/commands/merge.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include <string>
#include <vector>

#include "silt/base/check.h"
#include "silt/commands/statement_executor.h"
#include "silt/io/fault_injecting_file_system.h"
#include "silt/io/file_system.h"
#include "silt/io/path.h"
#include "silt/io/testing_temporary_folder.h"
#include "silt/log/snapshot.h"
#include "silt/sql/parser.h"
#include "silt/sql/session_state.h"

namespace silt::commands {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::string> Lines(const StatementResult& result) {
  std::string csv = FormatCsv(result.batches, /*header=*/false);
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < csv.size()) {
    size_t end = csv.find('\n', start);
    lines.push_back(csv.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

class MergeTest : public ::testing::Test {
 protected:
  StatementResult Sql(std::string_view text) {
    StatementResult last;
    for (const sql::Statement& statement : sql::ParseStatements(text)) {
      last = ExecuteStatement(state_, statement);
    }
    return last;
  }
  std::vector<std::string> Query(std::string_view text) { return Lines(Sql(text)); }
  std::string ErrorClassOf(std::string_view text) {
    try {
      Sql(text);
    } catch (const Error& error) {
      return std::string(error.error_class());
    }
    return "no error";
  }
  std::shared_ptr<const log::Snapshot> Snapshot(const std::string& table) {
    return log::Snapshot::Load(state_.fs(), io::JoinPath(warehouse_, table));
  }
  // The newest commit's operationParameters / operationMetrics as DESCRIBE HISTORY prints them.
  std::string NewestHistoryColumn(const std::string& table, size_t column) {
    StatementResult history = Sql("DESCRIBE HISTORY " + table + " LIMIT 1");
    return history.batches.at(0).column(column)->ValueToString(0);
  }

  io::TestingTemporaryFolder folder_;
  std::string warehouse_ = io::JoinPath(folder_.path(), "warehouse");
  sql::SessionState state_{io::MakeLocalFileSystem(), warehouse_};
};

TEST_F(MergeTest, CommitRecordsOperationParametersAndEveryMetric) {
  Sql("CREATE TABLE t (id INT, v STRING) USING delta");
  Sql("INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')");
  Sql("INSERT INTO t VALUES (10, 'j')");
  EXPECT_THAT(
      Query("MERGE INTO t USING (SELECT * FROM VALUES (1, 'A'), (2, 'B'), (5, 'E') AS s(id, v)) s "
            "ON t.id = s.id "
            "WHEN MATCHED AND s.id = 2 THEN DELETE "
            "WHEN MATCHED THEN UPDATE SET v = s.v "
            "WHEN NOT MATCHED THEN INSERT * "
            "WHEN NOT MATCHED BY SOURCE AND t.id > 3 THEN UPDATE SET v = 'old'"),
      ElementsAre("5,3,1,1"));
  EXPECT_EQ(NewestHistoryColumn("t", 4), "MERGE");
  std::string parameters = NewestHistoryColumn("t", 5);
  EXPECT_THAT(parameters, HasSubstr("predicate -> [\"(t.id = s.id)\"]"));
  EXPECT_THAT(parameters,
              HasSubstr("matchedPredicates -> [{\"predicate\":\"(s.id = 2)\",\"actionType\":\"delete\"},"
                        "{\"actionType\":\"update\"}]"));
  EXPECT_THAT(parameters, HasSubstr("notMatchedPredicates -> [{\"actionType\":\"insert\"}]"));
  EXPECT_THAT(parameters, HasSubstr("notMatchedBySourcePredicates -> [{\"predicate\":\"(t.id > 3)\","
                                    "\"actionType\":\"update\"}]"));
  std::string metrics = NewestHistoryColumn("t", 12);
  for (const char* expected :
       {"numSourceRows -> 3", "numTargetRowsInserted -> 1", "numTargetRowsUpdated -> 3",
        "numTargetRowsMatchedUpdated -> 1", "numTargetRowsNotMatchedBySourceUpdated -> 2",
        "numTargetRowsDeleted -> 1", "numTargetRowsMatchedDeleted -> 1",
        "numTargetRowsNotMatchedBySourceDeleted -> 0", "numTargetRowsCopied -> 1",
        "numOutputRows -> 5", "numTargetFilesAdded -> 3", "numTargetFilesRemoved -> 2",
        "numTargetChangeFilesAdded -> 0", "numTargetDeletionVectorsAdded -> 0",
        "numTargetDeletionVectorsRemoved -> 0", "numTargetDeletionVectorsUpdated -> 0",
        "numTargetBytesAdded -> ", "numTargetBytesRemoved -> ", "executionTimeMs -> ",
        "materializeSourceTimeMs -> ", "scanTimeMs -> ", "rewriteTimeMs -> "}) {
    EXPECT_THAT(metrics, HasSubstr(expected));
  }
  EXPECT_THAT(Query("SELECT * FROM t ORDER BY id"),
              ElementsAre("1,A", "3,c", "4,old", "5,E", "10,old"));
}

TEST_F(MergeTest, OnlyFilesWithChangedRowsAreRewritten) {
  Sql("CREATE TABLE t (id INT, v INT) USING delta");
  for (int file = 0; file < 4; ++file) {
    Sql("INSERT INTO t SELECT id, 0 FROM range(" + std::to_string(file * 100) + ", " +
        std::to_string(file * 100 + 100) + ")");
  }
  auto before = Snapshot("t");
  ASSERT_EQ(before->files().size(), 4u);
  // Key 150 lives in the second file; key 1000 is new. The min/max statistics rule out the
  // first and last files; the third is read but has no match.
  EXPECT_THAT(Query("MERGE INTO t USING (SELECT * FROM VALUES (150, 1), (1000, 1) AS s(id, v)) s "
                    "ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = s.v "
                    "WHEN NOT MATCHED THEN INSERT *"),
              ElementsAre("2,1,0,1"));
  auto after = Snapshot("t");
  EXPECT_EQ(after->files().size(), 5u);  // one removed, its rewrite and the insert added
  std::string metrics = NewestHistoryColumn("t", 12);
  EXPECT_THAT(metrics, HasSubstr("numTargetFilesRemoved -> 1"));
  EXPECT_THAT(metrics, HasSubstr("numTargetRowsCopied -> 99"));
  // Regression: a multi-file target with update + insert must not lose files.
  EXPECT_THAT(Query("SELECT count(*), sum(v) FROM t"), ElementsAre("401,2"));
}

TEST_F(MergeTest, NotMatchedBySourceReadsOnlyFilesItsConditionAllows) {
  Sql("CREATE TABLE t (id INT, p STRING) USING delta PARTITIONED BY (p)");
  Sql("INSERT INTO t VALUES (1, 'hot'), (2, 'hot'), (3, 'cold'), (4, 'archive')");
  // Remove the archive partition's file from storage: reading it would fail, so the MERGE
  // below succeeds only if neither the source's keys nor the NOT MATCHED BY SOURCE condition
  // lead it there.
  auto snapshot = Snapshot("t");
  for (const log::AddFile& file : snapshot->files()) {
    if (file.path.find("p=archive") != std::string::npos) {
      std::filesystem::remove(snapshot->ResolvePath(file.path));
    }
  }
  EXPECT_THAT(Query("MERGE INTO t USING (SELECT 1 AS id) s ON t.id = s.id "
                    "WHEN MATCHED THEN UPDATE SET p = 'hot' "
                    "WHEN NOT MATCHED BY SOURCE AND t.p = 'cold' THEN DELETE"),
              ElementsAre("2,1,1,0"));
  std::string parameters = NewestHistoryColumn("t", 5);
  EXPECT_THAT(parameters, HasSubstr("notMatchedBySourcePredicates -> [{\"predicate\":\"(t.p = 'cold')\","));
  // An unconditional NOT MATCHED BY SOURCE clause must read every file.
  EXPECT_EQ(ErrorClassOf("MERGE INTO t USING (SELECT 1 AS id) s ON t.id = s.id "
                         "WHEN NOT MATCHED BY SOURCE THEN DELETE"),
            "PATH_NOT_FOUND");
}

TEST_F(MergeTest, UniqueSourceAgainstLargeFileIsNoDuplicate) {
  // Regression: a target file of more than 8,192 rows (several batches inside the reader) and a
  // 100k-row self-merge must not raise a false duplicate error.
  Sql("CREATE TABLE big (id BIGINT, v BIGINT) USING delta");
  Sql("INSERT INTO big SELECT id, id FROM range(0, 100000)");
  EXPECT_THAT(Query("MERGE INTO big USING (SELECT id FROM range(0, 20000)) s ON big.id = s.id "
                    "WHEN MATCHED THEN UPDATE SET v = big.v + 1"),
              ElementsAre("20000,20000,0,0"));
  EXPECT_THAT(Query("MERGE INTO big USING big AS s ON big.id = s.id "
                    "WHEN MATCHED THEN UPDATE SET v = s.v * 2"),
              ElementsAre("100000,100000,0,0"));
  EXPECT_THAT(Query("SELECT count(*), sum(v) FROM big"),
              ElementsAre("100000," + std::to_string(2 * (99999LL * 100000 / 2 + 20000))));
}

TEST_F(MergeTest, SourceFromTargetTableDoesNotNullOtherRows) {
  // Regression: a source read from the target's own table must not null the rows it does not
  // touch (unassigned columns keep their values).
  Sql("CREATE TABLE t (id INT, a STRING, b STRING) USING delta");
  Sql("INSERT INTO t VALUES (1, 'a1', 'b1'), (2, 'a2', 'b2'), (3, 'a3', 'b3')");
  EXPECT_THAT(Query("MERGE INTO t USING (SELECT id, upper(a) AS a FROM t WHERE id = 2) s "
                    "ON t.id = s.id WHEN MATCHED THEN UPDATE SET a = s.a"),
              ElementsAre("1,1,0,0"));
  EXPECT_THAT(Query("SELECT * FROM t ORDER BY id"),
              ElementsAre("1,a1,b1", "2,A2,b2", "3,a3,b3"));
}

TEST_F(MergeTest, FailedMergeCommitsNothing) {
  Sql("CREATE TABLE t (id INT, v INT) USING delta");
  Sql("INSERT INTO t VALUES (1, 1), (2, 2)");
  int64_t version = Snapshot("t")->version();
  EXPECT_EQ(ErrorClassOf("MERGE INTO t USING (SELECT * FROM VALUES (1), (1) AS s(id)) s "
                         "ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = 0 "
                         "WHEN NOT MATCHED THEN INSERT (id) VALUES (s.id)"),
            "DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE");
  EXPECT_EQ(Snapshot("t")->version(), version);
  EXPECT_THAT(Query("SELECT * FROM t ORDER BY id"), ElementsAre("1,1", "2,2"));
}

TEST_F(MergeTest, GeneratedColumnsAreComputedOnInsertAndUpdate) {
  Sql("CREATE TABLE g (id INT, v INT, doubled INT GENERATED ALWAYS AS (v * 2)) USING delta");
  Sql("INSERT INTO g (id, v) VALUES (1, 1)");
  EXPECT_THAT(Query("MERGE INTO g USING (SELECT * FROM VALUES (1, 5), (2, 7) AS s(id, v)) s "
                    "ON g.id = s.id WHEN MATCHED THEN UPDATE SET v = s.v "
                    "WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, s.v)"),
              ElementsAre("2,1,0,1"));
  EXPECT_THAT(Query("SELECT * FROM g ORDER BY id"), ElementsAre("1,5,10", "2,7,14"));
  EXPECT_EQ(ErrorClassOf("MERGE INTO g USING (SELECT 3 AS id) s ON g.id = s.id "
                         "WHEN NOT MATCHED THEN INSERT (id, v, doubled) VALUES (s.id, 1, 5)"),
            "DELTA_GENERATED_COLUMN_VALUE_MISMATCH");
}

TEST_F(MergeTest, DeletionVectorsMarkChangedRowsInsteadOfRewriting) {
  Sql("CREATE TABLE dv (id INT, v STRING) USING delta "
      "TBLPROPERTIES (delta.enableDeletionVectors = true)");
  Sql("INSERT INTO dv VALUES (1, 'a'), (2, 'b'), (3, 'c'), (5, 'e')");
  Sql("INSERT INTO dv VALUES (4, 'd')");
  EXPECT_THAT(Query("MERGE INTO dv USING (SELECT * FROM VALUES (1, 'A'), (2, NULL), (4, NULL) AS s(id, v)) s "
                    "ON dv.id = s.id WHEN MATCHED AND s.v IS NULL THEN DELETE "
                    "WHEN MATCHED THEN UPDATE SET v = s.v"),
              ElementsAre("3,1,2,0"));
  auto snapshot = Snapshot("dv");
  // The first file stays with a deletion vector for rows 1 and 2; the second lost its only row
  // and is removed; the updated row is in a new file.
  size_t with_dv = 0;
  for (const auto& file : snapshot->files()) with_dv += file.deletion_vector.has_value();
  EXPECT_EQ(snapshot->files().size(), 2u);
  EXPECT_EQ(with_dv, 1u);
  std::string metrics = NewestHistoryColumn("dv", 12);
  EXPECT_THAT(metrics, HasSubstr("numTargetDeletionVectorsAdded -> 1"));
  EXPECT_THAT(metrics, HasSubstr("numTargetDeletionVectorsUpdated -> 0"));
  EXPECT_THAT(metrics, HasSubstr("numTargetRowsCopied -> 0"));
  EXPECT_THAT(metrics, HasSubstr("numTargetFilesRemoved -> 1"));
  EXPECT_THAT(Query("SELECT * FROM dv ORDER BY id"), ElementsAre("1,A", "3,c", "5,e"));
  // A second merge on the same file updates its deletion vector; one that takes its last live
  // row removes the file.
  EXPECT_THAT(Query("MERGE INTO dv USING (SELECT 3 AS id) s ON dv.id = s.id "
                    "WHEN MATCHED THEN UPDATE SET v = 'C'"),
              ElementsAre("1,1,0,0"));
  EXPECT_THAT(NewestHistoryColumn("dv", 12), HasSubstr("numTargetDeletionVectorsUpdated -> 1"));
  EXPECT_THAT(Query("SELECT * FROM dv ORDER BY id"), ElementsAre("1,A", "3,C", "5,e"));
  EXPECT_THAT(Query("MERGE INTO dv USING (SELECT 5 AS id) s ON dv.id = s.id WHEN MATCHED THEN DELETE"),
              ElementsAre("1,0,1,0"));
  metrics = NewestHistoryColumn("dv", 12);
  EXPECT_THAT(metrics, HasSubstr("numTargetDeletionVectorsRemoved -> 1"));
  EXPECT_THAT(metrics, HasSubstr("numTargetFilesRemoved -> 1"));
  EXPECT_THAT(Query("SELECT * FROM dv ORDER BY id"), ElementsAre("1,A", "3,C"));
}

// A source larger than its share of the memory limit is merged in passes over hash partitions of
// its keys; the table, its change data and the row metrics come out as the in-memory MERGE's.
// Without change data (`in_passes_plain`) the passes but the last decode only the columns the
// keys and clauses read, and the last copies the rows no pass removed as it matches its own.
TEST_F(MergeTest, SourceLargerThanMemoryMergesInPassesAsInMemory) {
  for (const char* table : {"in_memory", "in_passes", "in_passes_dv", "in_passes_plain"}) {
    std::string dv =
        std::string(table) == "in_passes_dv" ? ", delta.enableDeletionVectors = true" : "";
    std::string change_data = std::string(table) == "in_passes_plain" ? "false" : "true";
    Sql(std::string("CREATE TABLE ") + table + " (id BIGINT, v BIGINT, note STRING) USING delta " +
        "TBLPROPERTIES (delta.enableChangeDataFeed = " + change_data +
        ", delta.enableRowTracking = true" + dv + ")");
    for (int file = 0; file < 4; ++file) {
      Sql(std::string("INSERT INTO ") + table +
          " SELECT id, id % 1000, concat('n', id) FROM range(" + std::to_string(file * 100000) +
          ", " + std::to_string(file * 100000 + 100000) + ")");
    }
    // Small files, each with one row a source key matches (so each is changed in one pass only,
    // not always the first) beside one nothing changes, and one file nothing changes.
    for (int file = 0; file < 11; ++file) {
      const int64_t matched = file < 10 ? 400002 + 10 * file : 700004;
      Sql(std::string("INSERT INTO ") + table + " VALUES (" + std::to_string(matched) +
          ", 1, 'small'), (" + std::to_string(700002 + 10 * file) + ", 2, 'small')");
    }
  }
  // 320,000 source rows (about 14 MB with their hash table, against an 8 MB share of the 16 MB
  // limit): 200,000 match, 120,000 are new.
  Sql("CREATE TABLE s AS SELECT id, id % 7 AS v, concat('s', id) AS note FROM range(200000, "
      "520000)");
  auto merge = [&](const std::string& table) {
    return Query("MERGE INTO " + table +
                 " t USING s ON t.id = s.id "
                 "WHEN MATCHED AND s.v = 0 THEN DELETE "
                 "WHEN MATCHED THEN UPDATE SET v = s.v, note = s.note "
                 "WHEN NOT MATCHED AND s.v <> 1 THEN INSERT * "
                 "WHEN NOT MATCHED BY SOURCE AND t.id % 10 = 0 THEN DELETE "
                 "WHEN NOT MATCHED BY SOURCE AND t.id % 10 = 1 THEN UPDATE SET v = -1");
  };
  std::vector<std::string> expected = merge("in_memory");
  Sql("SET silt.memory.limit = '16MB'");
  EXPECT_EQ(merge("in_passes"), expected);
  EXPECT_EQ(merge("in_passes_dv"), expected);
  EXPECT_EQ(merge("in_passes_plain"), expected);
  Sql("RESET silt.memory.limit");

  auto metrics_of = [&](const std::string& table) {
    std::string metrics = NewestHistoryColumn(table, 12);
    std::vector<std::string> rows;
    for (const char* name :
         {"numSourceRows", "numTargetRowsInserted", "numTargetRowsUpdated",
          "numTargetRowsMatchedUpdated", "numTargetRowsNotMatchedBySourceUpdated",
          "numTargetRowsDeleted", "numTargetRowsMatchedDeleted",
          "numTargetRowsNotMatchedBySourceDeleted", "numTargetRowsCopied", "numOutputRows",
          "numTargetFilesRemoved"}) {
      size_t at = metrics.find(std::string(name) + " -> ");
      EXPECT_NE(at, std::string::npos) << name;
      if (at == std::string::npos) continue;
      rows.push_back(metrics.substr(at, metrics.find_first_of(",}", at) - at));
    }
    return rows;
  };
  const std::vector<std::string> metrics = metrics_of("in_memory");
  EXPECT_THAT(metrics, ::testing::Contains("numSourceRows -> 320000"));
  EXPECT_EQ(metrics_of("in_passes"), metrics);
  EXPECT_EQ(metrics_of("in_passes_plain"), metrics);
  for (const char* table : {"in_passes", "in_passes_dv", "in_passes_plain"}) {
    SCOPED_TRACE(table);
    EXPECT_EQ(Query(std::string("SELECT count(*), sum(v), count(DISTINCT note) FROM ") + table),
              Query("SELECT count(*), sum(v), count(DISTINCT note) FROM in_memory"));
    EXPECT_THAT(
        Query(
            std::string("SELECT count(*) FROM (SELECT * FROM in_memory EXCEPT ALL SELECT * FROM ") +
            table + ")"),
        ElementsAre("0"));
    // Updated and copied rows keep their row ids.
    const std::string ids = "SELECT id, _metadata.row_id FROM ";
    EXPECT_THAT(Query("SELECT count(*) FROM (" + ids + "in_memory WHERE id < 400000 EXCEPT ALL " +
                      ids + table + " WHERE id < 400000)"),
                ElementsAre("0"));
    if (std::string(table) == "in_passes_plain") continue;
    const std::string changes = "SELECT id, v, note, _change_type FROM table_changes('";
    EXPECT_THAT(Query("SELECT count(*) FROM (" + changes + "in_memory', 16) EXCEPT ALL " + changes +
                      table + "', 16))"),
                ElementsAre("0"));
    EXPECT_EQ(Query("SELECT count(*) FROM (" + changes + table + "', 16))"),
              Query("SELECT count(*) FROM (" + changes + "in_memory', 16))"));
  }
}

// Under the limit a partitioned MERGE still finds several source rows matching one target row,
// and a source with no equi-join key to partition by fails with the limit's class.
TEST_F(MergeTest, SourceLargerThanMemoryKeepsErrors) {
  Sql("CREATE TABLE t AS SELECT id, concat('n', id) AS note FROM range(0, 100000)");
  Sql("CREATE TABLE s AS SELECT id % 250000 AS id, concat('s', id) AS note FROM range(0, 300000)");
  Sql("SET silt.memory.limit = '16MB'");
  EXPECT_EQ(ErrorClassOf(
                "MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN UPDATE SET note = s.note"),
            "DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE");
  EXPECT_EQ(ErrorClassOf("MERGE INTO t USING s ON t.id <= s.id AND t.id >= s.id "
                         "WHEN MATCHED THEN UPDATE SET note = s.note"),
            "EXEC_MEMORY_LIMIT_EXCEEDED");
  // Only one unconditional DELETE may take a target row several source rows match.
  EXPECT_THAT(Query("MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN DELETE"),
              ElementsAre("100000,0,100000,0"));
  Sql("RESET silt.memory.limit");
  EXPECT_THAT(Query("SELECT count(*) FROM t"), ElementsAre("0"));
}

// The files a MERGE writes are synced while it goes on (io::BackgroundSync), and all of them
// before its commit: after a power loss the committed table and change data read whole.
TEST(MergeDurabilityTest, EveryFileTheCommitNamesSurvivesAPowerLoss) {
  std::shared_ptr<io::FaultInjectingFileSystem> fs =
      io::FaultInjectingFileSystem::Make(io::MakeMemoryFileSystem());
  auto run = [&](sql::SessionState& state, std::string_view text) {
    StatementResult last;
    for (const sql::Statement& statement : sql::ParseStatements(text)) {
      last = ExecuteStatement(state, statement);
    }
    return Lines(last);
  };
  {
    sql::SessionState state(fs, "/warehouse");
    run(state,
        "CREATE TABLE t (id BIGINT, note STRING) USING delta "
        "TBLPROPERTIES (delta.enableChangeDataFeed = true)");
    for (int file = 0; file < 4; ++file) {
      run(state, "INSERT INTO t SELECT id, concat('t', id) FROM range(" +
                     std::to_string(file * 50000) + ", " + std::to_string((file + 1) * 50000) + ")");
    }
    EXPECT_THAT(run(state,
                    "MERGE INTO t USING (SELECT id * 3 AS id, concat('s', id) AS note "
                    "FROM range(0, 100000)) s ON t.id = s.id "
                    "WHEN MATCHED THEN UPDATE SET note = s.note WHEN NOT MATCHED THEN INSERT *"),
                ElementsAre("100000,66667,0,33333"));
  }
  fs->DropUnsyncedWrites();
  sql::SessionState state(fs, "/warehouse");
  EXPECT_THAT(run(state, "SELECT count(*), count(DISTINCT id), sum(CAST(note LIKE 's%' AS INT)) FROM t"),
              ElementsAre("233333,233333,100000"));
  EXPECT_THAT(run(state,
                  "SELECT _change_type, count(*) FROM table_changes('t', 5) "
                  "GROUP BY _change_type ORDER BY 1"),
              ElementsAre("insert,33333", "update_postimage,66667", "update_preimage,66667"));
}

}  // namespace
}  // namespace silt::commands
