// MERGE, UPDATE, DELETE and OPTIMIZE on a table held in one file of many row groups, which they
// read and match a row group at a time on several threads and rewrite in parallel parts: the
// parts, taken in order, keep the file's rows in order; rows keep their row ids; deletion vectors
// mark exactly the rows changed; the change feed holds every changed row.

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "silt/base/thread_pool.h"
#include "silt/commands/dml_support.h"
#include "silt/commands/dml_testing.h"
#include "silt/log/table_writer.h"
#include "silt/vector/vector.h"

namespace silt::commands {
namespace {

using ::testing::ElementsAre;
using ::testing::SizeIs;

// Three threads in the session's pool (set before the pool is first made), so that a file of
// enough row groups is rewritten in three parts of uneven row-group counts.
const bool kThreeThreads = setenv("SILT_THREADS", "3", 1) == 0;

constexpr int64_t kRows = 4000;
constexpr int64_t kRowsPerGroup = 100;  // 40 row groups: the pieces of the one file

class DmlParallelTest : public DmlTest {
 protected:
  // Creates `t` (id BIGINT, v STRING, amount BIGINT) with `properties`, appends ids [0, kRows)
  // in id order as one file of kRowsPerGroup-row row groups (version 1) and, with
  // `change_data_feed`, turns the change feed on (version 2).
  void CreateOneFileTable(const std::string& properties, bool change_data_feed = false) {
    ASSERT_TRUE(kThreeThreads);
    Sql("CREATE TABLE t (id BIGINT, v STRING, amount BIGINT) USING delta" +
        (properties.empty() ? std::string() : " TBLPROPERTIES (" + properties + ")"));
    auto schema = std::make_shared<Schema>(std::vector<Field>{
        {"id", LongType(), true, {}}, {"v", StringType(), true, {}}, {"amount", LongType(), true, {}}});
    VectorBuilder ids(LongType(), kRows);
    VectorBuilder values(StringType(), kRows);
    VectorBuilder amounts(LongType(), kRows);
    for (int64_t id = 0; id < kRows; ++id) {
      ids.AppendInt(id);
      values.AppendString("v" + std::to_string(id));
      amounts.AppendInt(id * 10);
    }
    log::WriteOptions options;
    options.writer.parquet.row_group_max_rows = kRowsPerGroup;
    log::AppendToTable(fs_, Location("t"),
                       {Batch(schema, {ids.Finish(), values.Finish(), amounts.Finish()}, kRows)},
                       options);
    if (change_data_feed) Sql("ALTER TABLE t SET TBLPROPERTIES (delta.enableChangeDataFeed = true)");
  }

  // The parts a rewrite of the whole file is written in (dml::WriteRewrite's rule).
  static size_t ExpectedParts() {
    size_t pieces = static_cast<size_t>(kRows / kRowsPerGroup);
    return std::max<size_t>(1, std::min(ThreadPool::Default().num_threads(),
                                        pieces / dml::kMinPiecesPerRewritePart));
  }

  // Each file's ids in row order, files by name.
  std::map<std::string, std::vector<int64_t>> IdsByFile() {
    std::map<std::string, std::vector<int64_t>> files;
    for (const std::string& line :
         Query("SELECT _metadata.file_name, id FROM t ORDER BY _metadata.file_name, "
               "_metadata.row_index")) {
      size_t comma = line.find(',');
      files[line.substr(0, comma)].push_back(std::stoll(line.substr(comma + 1)));
    }
    return files;
  }

  // id -> row id of every row of `t` at `version`.
  std::map<int64_t, std::string> RowIds(int64_t version) {
    std::map<int64_t, std::string> ids;
    for (const std::string& line : Query("SELECT id, _metadata.row_id FROM t VERSION AS OF " +
                                         std::to_string(version))) {
      size_t comma = line.find(',');
      ids[std::stoll(line.substr(0, comma))] = line.substr(comma + 1);
    }
    return ids;
  }
};

// The copied rows of each part, in row order, are ascending ids, and the parts (in the order the
// commit adds them) follow each other: the rewrite kept the file's order.
void ExpectCopiedRowsInFileOrder(const std::vector<log::AddFile>& parts,
                                 const std::map<std::string, std::vector<int64_t>>& ids_by_file,
                                 const std::set<int64_t>& changed) {
  int64_t previous = -1;
  for (const log::AddFile& part : parts) {
    std::string name = part.path.substr(part.path.rfind('/') + 1);
    auto file = ids_by_file.find(name);
    ASSERT_NE(file, ids_by_file.end()) << name;
    for (int64_t id : file->second) {
      if (changed.count(id) > 0) continue;
      EXPECT_GT(id, previous) << "copied row " << id << " out of order in " << name;
      previous = id;
    }
  }
}

TEST_F(DmlParallelTest, MergeRewritesOneLargeFileInOrderedPartsKeepingRowIds) {
  CreateOneFileTable("delta.enableRowTracking = true");
  std::map<int64_t, std::string> before = RowIds(1);
  ASSERT_THAT(before, SizeIs(kRows));
  // Every 7th id gets a new amount; ids 4000..4009 are new; NOT MATCHED BY SOURCE deletes the
  // unmatched ids ending in 03.
  Sql("CREATE TABLE s AS SELECT id, 'new' AS v, -id AS amount FROM range(0, 4010) WHERE id % 7 = 0 "
      "OR id >= 4000");
  std::set<int64_t> updated;
  int64_t deleted = 0;
  int64_t expected_sum = 0;
  int64_t expected_rows = 0;
  for (int64_t id = 0; id < 4010; ++id) {
    bool matched = id % 7 == 0 || id >= 4000;
    if (!matched && id % 100 == 3) {
      ++deleted;
      continue;
    }
    ++expected_rows;
    expected_sum += matched ? -id : id * 10;
    if (matched && id < kRows) updated.insert(id);
  }
  const int64_t num_updated = static_cast<int64_t>(updated.size());
  EXPECT_THAT(Query("MERGE INTO t USING s ON t.id = s.id "
                    "WHEN MATCHED THEN UPDATE SET amount = s.amount, v = s.v "
                    "WHEN NOT MATCHED THEN INSERT * "
                    "WHEN NOT MATCHED BY SOURCE AND t.id % 100 = 3 THEN DELETE"),
              ElementsAre(std::to_string(num_updated + deleted + 10) + "," +
                          std::to_string(num_updated) + "," + std::to_string(deleted) + ",10"));
  EXPECT_THAT(Query("SELECT count(*), sum(amount), count_if(v = 'new') FROM t"),
              ElementsAre(std::to_string(expected_rows) + "," + std::to_string(expected_sum) +
                          "," + std::to_string(num_updated + 10)));

  auto actions = Commit("t");
  ASSERT_THAT(Of<log::RemoveFile>(actions), SizeIs(1));
  std::vector<log::AddFile> adds = Of<log::AddFile>(actions);
  // The rewrite's parts, then the inserted rows' file.
  ASSERT_THAT(adds, SizeIs(ExpectedParts() + 1));
  std::vector<log::AddFile> parts(adds.begin(), adds.end() - 1);
  EXPECT_GT(ExpectedParts(), 1u);
  ExpectCopiedRowsInFileOrder(parts, IdsByFile(), updated);
  auto info = Of<log::CommitInfo>(actions).at(0);
  EXPECT_EQ(Metric(info, "numTargetRowsCopied"), std::to_string(kRows - num_updated - deleted));
  EXPECT_EQ(Metric(info, "numTargetFilesAdded"), std::to_string(ExpectedParts() + 1));

  // Updated and copied rows keep their row ids; inserted rows get new ones.
  std::map<int64_t, std::string> after = RowIds(Latest("t")->version());
  std::set<std::string> new_ids;
  for (const auto& [id, row_id] : after) {
    if (id < kRows) {
      EXPECT_EQ(row_id, before.at(id)) << "row " << id;
    } else {
      new_ids.insert(row_id);
    }
  }
  EXPECT_THAT(new_ids, SizeIs(10));
}

// A source larger than its share of the memory limit is merged in passes; the last copies the
// file's kept rows once, in parallel parts that keep the file's order, with their row ids.
TEST_F(DmlParallelTest, MergeInPassesCopiesOneLargeFileInOrderedPartsKeepingRowIds) {
  CreateOneFileTable("delta.enableRowTracking = true");
  std::map<int64_t, std::string> before = RowIds(1);
  ASSERT_THAT(before, SizeIs(kRows));
  // Every 7th id gets a new amount; 300,000 new ids make the source (about 24 MB with its hash
  // table) larger than its share of a 16 MB limit.
  Sql("CREATE TABLE s AS SELECT id, 'new' AS v, -id AS amount FROM range(0, 304000) "
      "WHERE id % 7 = 0 OR id >= 4000");
  std::set<int64_t> updated;
  int64_t expected_sum = 0;
  for (int64_t id = 0; id < kRows; ++id) {
    if (id % 7 == 0) updated.insert(id);
    expected_sum += id % 7 == 0 ? -id : id * 10;
  }
  for (int64_t id = kRows; id < 304000; ++id) expected_sum -= id;
  const int64_t num_updated = static_cast<int64_t>(updated.size());
  Sql("SET silt.memory.limit = '16MB'");
  EXPECT_THAT(Query("MERGE INTO t USING s ON t.id = s.id "
                    "WHEN MATCHED THEN UPDATE SET amount = s.amount, v = s.v "
                    "WHEN NOT MATCHED THEN INSERT *"),
              ElementsAre(std::to_string(304000 - kRows + num_updated) + "," +
                          std::to_string(num_updated) + ",0," + std::to_string(304000 - kRows)));
  Sql("RESET silt.memory.limit");
  EXPECT_THAT(Query("SELECT count(*), sum(amount) FROM t"),
              ElementsAre("304000," + std::to_string(expected_sum)));

  auto actions = Commit("t");
  ASSERT_THAT(Of<log::RemoveFile>(actions), SizeIs(1));
  // The files holding copied rows, in the order the commit adds them.
  std::map<std::string, std::vector<int64_t>> ids_by_file = IdsByFile();
  std::vector<log::AddFile> copies;
  for (const log::AddFile& add : Of<log::AddFile>(actions)) {
    const std::vector<int64_t>& ids = ids_by_file[add.path.substr(add.path.rfind('/') + 1)];
    if (std::any_of(ids.begin(), ids.end(),
                    [&](int64_t id) { return id < kRows && updated.count(id) == 0; })) {
      copies.push_back(add);
    }
  }
  EXPECT_GT(ExpectedParts(), 1u);
  EXPECT_THAT(copies, SizeIs(ExpectedParts()));
  ExpectCopiedRowsInFileOrder(copies, ids_by_file, updated);
  // The passes before the last wrote their updated rows in files of their own; the last writes
  // its own beside the copies, as an in-memory MERGE does. Each updated row is written once.
  std::map<int64_t, int> times_written;
  for (const log::AddFile& add : Of<log::AddFile>(actions)) {
    for (int64_t id : ids_by_file[add.path.substr(add.path.rfind('/') + 1)]) ++times_written[id];
  }
  for (int64_t id : updated) EXPECT_EQ(times_written[id], 1) << "updated row " << id;
  auto info = Of<log::CommitInfo>(actions).at(0);
  EXPECT_EQ(Metric(info, "numTargetRowsCopied"), std::to_string(kRows - num_updated));
  // Updated and copied rows keep their row ids.
  std::map<int64_t, std::string> after = RowIds(Latest("t")->version());
  for (int64_t id = 0; id < kRows; ++id) EXPECT_EQ(after.at(id), before.at(id)) << "row " << id;
}

TEST_F(DmlParallelTest, MergeChangeDataOfOneLargeFileHoldsEveryChangedRow) {
  CreateOneFileTable("", /*change_data_feed=*/true);
  Sql("CREATE TABLE s AS SELECT id, CASE WHEN id % 10 = 1 THEN 'u' ELSE 'd' END AS op "
      "FROM range(0, 4000) WHERE id % 10 IN (1, 2) UNION ALL SELECT id, 'i' FROM range(5000, 5005)");
  EXPECT_THAT(Query("MERGE INTO t USING s ON t.id = s.id "
                    "WHEN MATCHED AND s.op = 'd' THEN DELETE "
                    "WHEN MATCHED THEN UPDATE SET v = 'updated' "
                    "WHEN NOT MATCHED THEN INSERT (id, v, amount) VALUES (s.id, 'inserted', 0)"),
              ElementsAre("805,400,400,5"));
  auto actions = Commit("t");
  EXPECT_THAT(Of<log::AddFile>(actions), SizeIs(ExpectedParts() + 1));
  std::set<int64_t> updated;
  for (int64_t id = 1; id < kRows; id += 10) updated.insert(id);
  std::vector<log::AddFile> adds = Of<log::AddFile>(actions);
  ExpectCopiedRowsInFileOrder(std::vector<log::AddFile>(adds.begin(), adds.end() - 1), IdsByFile(),
                              updated);
  EXPECT_THAT(Query("SELECT _change_type, count(*), min(id % 10), max(id % 10), count(DISTINCT id) "
                    "FROM table_changes('t', 3) GROUP BY _change_type ORDER BY _change_type"),
              ElementsAre("delete,400,2,2,400", "insert,5,0,4,5", "update_postimage,400,1,1,400",
                          "update_preimage,400,1,1,400"));
  EXPECT_THAT(Query("SELECT count(*), count_if(v = 'updated'), count_if(v = 'inserted') FROM t"),
              ElementsAre("3605,400,5"));
}

TEST_F(DmlParallelTest, UpdateAndDeleteRewriteOneLargeFileInPartsWithChangeData) {
  CreateOneFileTable("delta.enableRowTracking = true", /*change_data_feed=*/true);
  std::map<int64_t, std::string> before = RowIds(1);
  EXPECT_THAT(Query("UPDATE t SET amount = amount + 1 WHERE id % 10 = 5"), ElementsAre("400"));
  auto actions = Commit("t");
  ASSERT_THAT(Of<log::RemoveFile>(actions), SizeIs(1));
  std::vector<log::AddFile> parts = Of<log::AddFile>(actions);
  ASSERT_THAT(parts, SizeIs(ExpectedParts()));
  std::set<int64_t> updated;
  for (int64_t id = 5; id < kRows; id += 10) updated.insert(id);
  ExpectCopiedRowsInFileOrder(parts, IdsByFile(), updated);
  EXPECT_EQ(Metric(Of<log::CommitInfo>(actions).at(0), "numCopiedRows"), "3600");
  std::map<int64_t, std::string> after = RowIds(Latest("t")->version());
  EXPECT_EQ(after, before);

  EXPECT_THAT(Query("DELETE FROM t WHERE id % 10 = 3"), ElementsAre("400"));
  EXPECT_THAT(Of<log::AddFile>(Commit("t")), SizeIs(ExpectedParts()));
  int64_t kept_sum = 0;
  int64_t deleted_sum = 0;
  int64_t updated_sum = 0;  // before the update
  for (int64_t id = 0; id < kRows; ++id) {
    if (id % 10 == 3) deleted_sum += id * 10;
    if (id % 10 == 5) updated_sum += id * 10;
    if (id % 10 != 3) kept_sum += id * 10 + (id % 10 == 5 ? 1 : 0);
  }
  EXPECT_THAT(Query("SELECT count(*), sum(amount) FROM t"),
              ElementsAre("3600," + std::to_string(kept_sum)));
  // Change data: every updated row's pre- and post-image, every deleted row once.
  EXPECT_THAT(Query("SELECT _change_type, count(*), sum(amount), count(DISTINCT id) FROM "
                    "table_changes('t', 3) GROUP BY _change_type ORDER BY _change_type"),
              ElementsAre("delete,400," + std::to_string(deleted_sum) + ",400",
                          "update_postimage,400," + std::to_string(updated_sum + 400) + ",400",
                          "update_preimage,400," + std::to_string(updated_sum) + ",400"));
}

TEST_F(DmlParallelTest, DeletionVectorsOfOneLargeFileMarkExactlyTheChangedRows) {
  CreateOneFileTable("delta.enableDeletionVectors = true", /*change_data_feed=*/true);
  EXPECT_THAT(Query("DELETE FROM t WHERE id % 10 = 3"), ElementsAre("400"));
  std::vector<log::AddFile> adds = Of<log::AddFile>(Commit("t"));
  ASSERT_THAT(adds, SizeIs(1));
  ASSERT_TRUE(adds[0].deletion_vector.has_value());
  EXPECT_EQ(adds[0].deletion_vector->cardinality, 400);
  EXPECT_THAT(Query("UPDATE t SET v = 'u' WHERE id % 10 = 5"), ElementsAre("400"));
  Sql("CREATE TABLE s AS SELECT id, 'm' AS v, 0 AS amount FROM range(0, 4000) WHERE id % 10 = 7");
  EXPECT_THAT(Query("MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = s.v"),
              ElementsAre("400,400,0,0"));
  // The old file's deletion vector now holds the deleted rows and both updates' old rows: the
  // rows at positions (= ids) ending in 3, 5 and 7.
  int with_deletion_vector = 0;
  for (const log::AddFile& add : Of<log::AddFile>(Commit("t"))) {
    if (!add.deletion_vector) continue;
    ++with_deletion_vector;
    EXPECT_EQ(add.deletion_vector->cardinality, 1200);
  }
  EXPECT_EQ(with_deletion_vector, 1);
  EXPECT_THAT(Query("SELECT count(*), count_if(v = 'u'), count_if(v = 'm'), "
                    "count_if(v = concat('v', id)) FROM t"),
              ElementsAre("3600,400,400,2800"));
  EXPECT_THAT(Query("SELECT count(*) FROM t WHERE (id % 10 = 5 AND v <> 'u') OR "
                    "(id % 10 = 7 AND v <> 'm') OR id % 10 = 3"),
              ElementsAre("0"));
  EXPECT_THAT(Query("SELECT _change_type, count(*) FROM table_changes('t', 3) "
                    "GROUP BY _change_type ORDER BY _change_type"),
              ElementsAre("delete,400", "update_postimage,800", "update_preimage,800"));
}

TEST_F(DmlParallelTest, OptimizeCompactsFilesOfManyRowGroupsInFileOrder) {
  CreateOneFileTable("delta.enableRowTracking = true, delta.enableDeletionVectors = true");
  Sql("DELETE FROM t WHERE id % 10 = 3");
  // Three more small files.
  for (int64_t file = 1; file <= 3; ++file) {
    Sql("INSERT INTO t SELECT id, 'w', id FROM range(" + std::to_string(file * 10000) + ", " +
        std::to_string(file * 10000 + 1000) + ")");
  }
  int64_t version = Latest("t")->version();
  std::map<int64_t, std::string> before = RowIds(version);
  Sql("OPTIMIZE t");
  auto actions = Commit("t");
  ASSERT_THAT(Of<log::AddFile>(actions), SizeIs(1));
  EXPECT_THAT(Of<log::RemoveFile>(actions), SizeIs(4));
  EXPECT_EQ(RowIds(Latest("t")->version()), before);
  // Within the compacted file each input file's rows stay in their order.
  std::map<std::string, std::vector<int64_t>> files = IdsByFile();
  ASSERT_THAT(files, SizeIs(1));
  std::map<int64_t, int64_t> last_by_input;  // input (ids / 10000) -> last id seen
  int64_t rows = 0;
  for (int64_t id : files.begin()->second) {
    auto [last, inserted] = last_by_input.emplace(id / 10000, id);
    if (!inserted) {
      EXPECT_GT(id, last->second);
      last->second = id;
    }
    ++rows;
  }
  EXPECT_EQ(rows, 3600 + 3000);
}

}  // namespace
}  // namespace silt::commands
