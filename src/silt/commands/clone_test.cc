// SHALLOW CLONE through the statement executor: the clone reads the source's rows at the version
// cloned, by absolute paths (deletion vectors too), and is independent of it afterwards; REPLACE
// keeps the files it shares with the source; Delta's result row, operation and errors.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "silt/base/testing_error_class.h"
#include "silt/commands/dml_testing.h"

namespace silt::commands {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;

class CloneTest : public DmlTest {
 protected:
  std::string ErrorClassOf(const std::string& sql) {
    return silt::ErrorClassOf([&] { Sql(sql); });
  }
  int64_t ResultValue(const StatementResult& result, const std::string& column) {
    int index = result.schema->FieldIndex(column);
    EXPECT_GE(index, 0) << column;
    return result.batches.at(0).column(static_cast<size_t>(index))->values<int64_t>()[0];
  }
};

TEST_F(CloneTest, TheCloneReadsTheSourceAndThenGoesItsOwnWay) {
  Sql("CREATE TABLE s (id INT, p STRING) USING delta PARTITIONED BY (p) "
      "TBLPROPERTIES (delta.enableDeletionVectors = true)");
  Sql("INSERT INTO s VALUES (1, 'a b'), (2, 'a b'), (3, 'c')");
  Sql("DELETE FROM s WHERE id = 2");  // a deletion vector beside the source's files
  Sql("INSERT INTO s VALUES (4, 'c')");
  auto source = Latest("s");
  int64_t source_bytes = 0;
  for (const auto& file : source->files()) source_bytes += file.size;

  StatementResult result = Sql("CREATE TABLE c SHALLOW CLONE s");
  EXPECT_EQ(result.schema->field(0).name, "source_table_size");
  EXPECT_EQ(ResultValue(result, "source_table_size"), source_bytes);
  EXPECT_EQ(ResultValue(result, "source_num_of_files"), 3);
  EXPECT_EQ(ResultValue(result, "num_copied_files"), 0);
  EXPECT_EQ(ResultValue(result, "num_removed_files"), 0);

  auto actions = Commit("c", 0);
  auto info = Of<log::CommitInfo>(actions).at(0);
  EXPECT_EQ(info.operation, "CLONE");
  EXPECT_EQ(Parameter(info, "sourceVersion"), "3");
  EXPECT_EQ(Parameter(info, "isShallow"), "true");
  EXPECT_EQ(Metric(info, "sourceNumOfFiles"), "3");
  auto metadata = Of<log::Metadata>(actions).at(0);
  EXPECT_NE(metadata.id, source->metadata().id);
  EXPECT_THAT(metadata.partition_columns, ElementsAre("p"));
  auto adds = Of<log::AddFile>(actions);
  ASSERT_THAT(adds, SizeIs(3));
  int vectors = 0;
  for (const auto& add : adds) {
    EXPECT_EQ(add.path.rfind("file:///", 0), 0u) << add.path;
    if (add.deletion_vector) {
      ++vectors;
      EXPECT_EQ(add.deletion_vector->storage_type, 'p');
    }
  }
  EXPECT_EQ(vectors, 1);

  EXPECT_THAT(Query("SELECT id, p FROM c ORDER BY id"), ElementsAre("1,a b", "3,c", "4,c"));
  // Writes to either table leave the other as it was.
  Sql("DELETE FROM c WHERE id = 1");
  Sql("INSERT INTO c VALUES (5, 'c')");
  Sql("UPDATE s SET id = 30 WHERE id = 3");
  EXPECT_THAT(Query("SELECT id FROM c ORDER BY id"), ElementsAre("3", "4", "5"));
  EXPECT_THAT(Query("SELECT id FROM s ORDER BY id"), ElementsAre("1", "4", "30"));
  // VACUUM of the clone deletes nothing of the source's.
  Sql("SET spark.databricks.delta.retentionDurationCheck.enabled = false");
  Sql("VACUUM c RETAIN 0 HOURS");
  EXPECT_THAT(Query("SELECT id FROM s VERSION AS OF 3 ORDER BY id"), ElementsAre("1", "3", "4"));
  EXPECT_THAT(Query("SELECT id FROM c ORDER BY id"), ElementsAre("3", "4", "5"));
}

TEST_F(CloneTest, VersionPropertiesLocationAndReplace) {
  Sql("CREATE TABLE s (id INT) USING delta");
  Sql("INSERT INTO s VALUES (1)");
  Sql("INSERT INTO s VALUES (2)");
  Sql("CREATE TABLE old SHALLOW CLONE s VERSION AS OF 1 TBLPROPERTIES ('delta.appendOnly' = 'true')");
  EXPECT_THAT(Query("SELECT id FROM old"), ElementsAre("1"));
  EXPECT_EQ(ErrorClassOf("DELETE FROM old"), "DELTA_CANNOT_MODIFY_APPEND_ONLY");
  EXPECT_THAT(Query("SELECT id FROM s ORDER BY id"), ElementsAre("1", "2"));

  std::string path = io::JoinPath(folder_.path(), "elsewhere");
  Sql("CREATE TABLE delta.`" + path + "` SHALLOW CLONE delta.`" + Location("s") + "`");
  EXPECT_THAT(Query("SELECT id FROM delta.`" + path + "` ORDER BY id"), ElementsAre("1", "2"));

  // IF NOT EXISTS leaves an existing table alone; without it the name is taken.
  Sql("CREATE TABLE IF NOT EXISTS old SHALLOW CLONE s");
  EXPECT_THAT(Query("SELECT id FROM old"), ElementsAre("1"));
  EXPECT_EQ(ErrorClassOf("CREATE TABLE old SHALLOW CLONE s"), "TABLE_OR_VIEW_ALREADY_EXISTS");

  // Replacing a clone of the same source keeps the files they share: no file is both removed
  // and added in one commit.
  Sql("INSERT INTO old VALUES (9)");
  StatementResult replaced = Sql("CREATE OR REPLACE TABLE old SHALLOW CLONE s");
  EXPECT_EQ(ResultValue(replaced, "num_removed_files"), 1);
  auto actions = Commit("old");
  EXPECT_THAT(Of<log::RemoveFile>(actions), SizeIs(1));
  EXPECT_THAT(Of<log::AddFile>(actions), SizeIs(1));
  EXPECT_THAT(Query("SELECT id FROM old ORDER BY id"), ElementsAre("1", "2"));
  EXPECT_EQ(Of<log::CommitInfo>(actions).at(0).operation, "CLONE");

  EXPECT_EQ(ErrorClassOf("REPLACE TABLE missing SHALLOW CLONE s"), "TABLE_OR_VIEW_NOT_FOUND");
  EXPECT_EQ(ErrorClassOf("CREATE TABLE c2 SHALLOW CLONE nope"), "TABLE_OR_VIEW_NOT_FOUND");
  EXPECT_EQ(ErrorClassOf("CREATE TABLE c2 DEEP CLONE s"), "NOT_IMPLEMENTED");
  EXPECT_EQ(ErrorClassOf("CREATE OR REPLACE TABLE s SHALLOW CLONE s"), "UNSUPPORTED_FEATURE");
  EXPECT_EQ(ErrorClassOf("CREATE TABLE c2 SHALLOW CLONE s VERSION AS OF 7"),
            "DELTA_VERSION_NOT_FOUND");
}

}  // namespace
}  // namespace silt::commands
