// The health of tables built here, checked against what their logs hold: per-commit rows and
// files, small files, partition skew, deletion-vector density, change data, the last OPTIMIZE,
// VACUUM and checkpoint, the VACUUM estimate, the advice, and DESCRIBE HEALTH's row.

#include "silt/commands/table_health.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>

#include "silt/base/clock.h"
#include "silt/commands/dml_testing.h"
#include "silt/log/file_stats.h"

namespace silt::commands {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr int64_t kDayMs = 24 * 3600 * 1000;

class TableHealthTest : public DmlTest {
 protected:
  TableHealth Health(const std::string& table, TableHealthOptions options = {}) {
    return ComputeTableHealth(fs_, Location(table), options);
  }

  static const HealthAdvice* FindAdvice(const TableHealth& health, std::string_view kind) {
    for (const HealthAdvice& advice : health.advice) {
      if (advice.kind == kind) return &advice;
    }
    return nullptr;
  }

  static int64_t Records(const log::AddFile& file) {
    return log::FileStats::Parse(*file.stats, file.path).num_records().value();
  }
};

TEST_F(TableHealthTest, CommitsCountTheRowsAndFilesOfTheirActions) {
  Sql("CREATE TABLE t (id INT, v STRING) USING delta");
  Sql("INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')");
  Sql("INSERT INTO t VALUES (4, 'd')");
  Sql("DELETE FROM t WHERE id = 2");  // copy-on-write: the 3-row file becomes a 2-row file
  TableHealth health = Health("t");

  ASSERT_EQ(health.commits.size(), 4u);
  EXPECT_EQ(health.version, 3);
  for (size_t v = 0; v < health.commits.size(); ++v) {
    const CommitHealth& commit = health.commits[v];
    std::vector<log::Action> actions = Commit("t", static_cast<int64_t>(v));
    std::vector<log::AddFile> adds = Of<log::AddFile>(actions);
    std::vector<log::RemoveFile> removes = Of<log::RemoveFile>(actions);
    EXPECT_EQ(commit.version, static_cast<int64_t>(v));
    EXPECT_EQ(commit.operation, *Of<log::CommitInfo>(actions).at(0).operation);
    EXPECT_EQ(commit.files_added, static_cast<int64_t>(adds.size()));
    EXPECT_EQ(commit.files_removed, static_cast<int64_t>(removes.size()));
    int64_t bytes_added = 0;
    for (const log::AddFile& add : adds) bytes_added += add.size;
    EXPECT_EQ(commit.bytes_added, bytes_added);
  }
  EXPECT_EQ(health.commits[0].operation, "CREATE TABLE");
  EXPECT_EQ(health.commits[1].operation, "WRITE");
  EXPECT_EQ(health.commits[1].rows_added, 3);
  EXPECT_EQ(health.commits[1].rows_removed, 0);
  EXPECT_EQ(health.commits[2].rows_added, 1);
  EXPECT_EQ(health.commits[3].operation, "DELETE");
  EXPECT_EQ(health.commits[3].rows_added, 2);
  EXPECT_EQ(health.commits[3].rows_removed, 3);
  EXPECT_EQ(health.num_rows, 3);
  EXPECT_EQ(health.num_files, 2);
  for (size_t i = 1; i < health.commits.size(); ++i) {
    EXPECT_LE(health.commits[i - 1].timestamp_ms, health.commits[i].timestamp_ms);
  }
}

TEST_F(TableHealthTest, RemovesWithoutStatisticsCountTheRowsOfTheirAdds) {
  Sql("CREATE TABLE t (id INT) USING delta");
  Sql("INSERT INTO t VALUES (1), (2), (3)");
  Sql("INSERT INTO t VALUES (4)");
  Sql("DELETE FROM t WHERE id = 2");
  // Rewrite the DELETE commit as Spark writes removes: without statistics.
  std::vector<log::Action> actions = Commit("t", 3);
  int stripped = 0;
  for (log::Action& action : actions) {
    if (auto* remove = std::get_if<log::RemoveFile>(&action)) {
      stripped += remove->stats.has_value();
      remove->stats.reset();
    }
  }
  ASSERT_EQ(stripped, 1);
  std::string path = Location("t") + "/_delta_log/" + log::FormatVersion(3) + ".json";
  fs_->Delete(path);
  auto out = fs_->OpenWrite(path);
  std::string text = log::SerializeActions(actions);
  out->Write(text.data(), text.size());
  out->Close();

  TableHealth health = Health("t");
  EXPECT_EQ(health.commits.at(3).rows_removed, 3);  // the rows of the add of version 1
  EXPECT_EQ(health.commits.at(3).rows_added, 2);
}

TEST_F(TableHealthTest, ManySmallFilesAreCountedAndOptimizeIsAdvised) {
  Sql("CREATE TABLE t (id INT) USING delta");
  for (int i = 0; i < 6; ++i) Sql("INSERT INTO t VALUES (" + std::to_string(i) + ")");
  TableHealth health = Health("t");
  int64_t bytes = 0;
  auto snapshot = Latest("t");  // kept alive: the loop reads its files
  for (const log::AddFile& file : snapshot->files()) bytes += file.size;

  EXPECT_EQ(health.num_files, 6);
  EXPECT_EQ(health.size_bytes, bytes);
  EXPECT_EQ(health.small_file_bytes, 8 << 20);
  EXPECT_EQ(health.small_files, 6);
  EXPECT_EQ(health.small_files_bytes, bytes);
  // Every file of a few hundred bytes lands in the first bar.
  ASSERT_FALSE(health.size_histogram.empty());
  EXPECT_EQ(health.size_histogram[0].lower_bytes, 0);
  EXPECT_EQ(health.size_histogram[0].upper_bytes, 64 * 1024);
  EXPECT_EQ(health.size_histogram[0].files, 6);
  EXPECT_EQ(health.size_histogram[0].bytes, bytes);
  int64_t histogram_files = 0;
  for (const SizeBucket& bucket : health.size_histogram) histogram_files += bucket.files;
  EXPECT_EQ(histogram_files, 6);
  EXPECT_FALSE(health.size_histogram.back().upper_bytes.has_value());

  const HealthAdvice* advice = FindAdvice(health, "optimize");
  ASSERT_NE(advice, nullptr);
  EXPECT_EQ(advice->message, "100% of files (6 of 6) are under 8 MB: run OPTIMIZE");

  // A threshold below every file finds none small, and gives no advice.
  TableHealthOptions tiny;
  tiny.small_file_bytes = 10;
  TableHealth strict = Health("t", tiny);
  EXPECT_EQ(strict.small_files, 0);
  EXPECT_EQ(FindAdvice(strict, "optimize"), nullptr);
}

TEST_F(TableHealthTest, LoneSmallFilesPerPartitionAreNotWorthAnOptimize) {
  // OPTIMIZE packs files within a partition; one small file per partition has no partner.
  Sql("CREATE TABLE t (id INT, p INT) USING delta PARTITIONED BY (p)");
  Sql("INSERT INTO t VALUES (1, 1), (2, 2), (3, 3)");
  TableHealth health = Health("t");
  EXPECT_EQ(health.small_files, 3);
  EXPECT_EQ(health.compactable_small_files, 0);
  EXPECT_EQ(FindAdvice(health, "optimize"), nullptr);
  Sql("INSERT INTO t VALUES (4, 1)");
  TableHealth paired = Health("t");
  EXPECT_EQ(paired.compactable_small_files, 2);
  const HealthAdvice* advice = FindAdvice(paired, "optimize");
  ASSERT_NE(advice, nullptr);
  EXPECT_EQ(advice->message, "100% of files (4 of 4) are under 8 MB: run OPTIMIZE");
}

TEST_F(TableHealthTest, TargetFileSizeIsReported) {
  Sql("CREATE TABLE t (id INT) USING delta TBLPROPERTIES (delta.targetFileSize = '1kb')");
  Sql("INSERT INTO t VALUES (1)");
  TableHealth health = Health("t");
  EXPECT_EQ(health.target_file_bytes, 1024);
  int64_t size = Latest("t")->files().at(0).size;
  EXPECT_EQ(health.files_below_half_target, size < 512 ? 1 : 0);

  // A malformed size is refused when it is set, so the table keeps the size it had.
  try {
    Sql("ALTER TABLE t SET TBLPROPERTIES (delta.targetFileSize = 'lots')");
    FAIL() << "a malformed delta.targetFileSize was accepted";
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), "INVALID_CONFIGURATION");
  }
  EXPECT_EQ(Health("t").target_file_bytes, 1024);
}

TEST_F(TableHealthTest, PartitionsAreSizedAndSkewIsAdvised) {
  Sql("CREATE TABLE t (id INT, p STRING) USING delta PARTITIONED BY (p)");
  for (int i = 0; i < 12; ++i) Sql("INSERT INTO t VALUES (" + std::to_string(i) + ", 'big')");
  Sql("INSERT INTO t VALUES (100, 'small'), (101, 'tiny')");
  TableHealth health = Health("t");

  std::map<std::string, std::pair<int64_t, int64_t>> expected;  // files, bytes
  auto latest = Latest("t");  // kept alive: the loop reads its files
  for (const log::AddFile& file : latest->files()) {
    std::string name = "p=" + *file.partition_values.at(0).second;
    ++expected[name].first;
    expected[name].second += file.size;
  }
  EXPECT_THAT(health.partition_columns, ElementsAre("p"));
  ASSERT_EQ(health.partitions.size(), 3u);
  EXPECT_EQ(health.partitions[0].name, "p=big");
  EXPECT_EQ(health.partitions[0].files, 12);
  EXPECT_EQ(health.partitions[0].bytes, expected["p=big"].second);
  for (const PartitionHealth& partition : health.partitions) {
    EXPECT_EQ(partition.files, expected[partition.name].first) << partition.name;
    EXPECT_EQ(partition.bytes, expected[partition.name].second) << partition.name;
  }
  EXPECT_EQ(health.median_partition_bytes, health.partitions[1].bytes);
  const HealthAdvice* advice = FindAdvice(health, "partition_skew");
  ASSERT_NE(advice, nullptr);
  EXPECT_THAT(advice->message,
              HasSubstr("partition p=big holds " + FormatByteSize(expected["p=big"].second) +
                        " in 12 files"));

  EXPECT_EQ(health.small_files, 14);
  EXPECT_EQ(health.compactable_small_files, 12);  // the lone files of small and tiny stay
  EXPECT_NE(FindAdvice(health, "optimize"), nullptr);

  // An unpartitioned table is one unnamed partition and never skewed.
  Sql("CREATE TABLE u (id INT) USING delta");
  Sql("INSERT INTO u VALUES (1)");
  TableHealth flat = Health("u");
  ASSERT_EQ(flat.partitions.size(), 1u);
  EXPECT_EQ(flat.partitions[0].name, "");
  EXPECT_EQ(FindAdvice(flat, "partition_skew"), nullptr);
}

TEST_F(TableHealthTest, ColumnMappedPartitionsAreNamedByTheirLogicalColumns) {
  // A table written elsewhere with column mapping: the partition column `newid` is stored
  // under its physical name `col-b2`.
  std::string root = Location("mapped");
  std::string schema =
      R"({\"type\":\"struct\",\"fields\":[{\"name\":\"v\",\"type\":\"integer\",\"nullable\":true,)"
      R"(\"metadata\":{\"delta.columnMapping.id\":1,\"delta.columnMapping.physicalName\":\"col-a1\"}},)"
      R"({\"name\":\"newid\",\"type\":\"integer\",\"nullable\":true,\"metadata\":)"
      R"({\"delta.columnMapping.id\":2,\"delta.columnMapping.physicalName\":\"col-b2\"}}]})";
  std::string commit =
      R"({"protocol":{"minReaderVersion":2,"minWriterVersion":5}})"
      "\n"
      R"({"metaData":{"id":"m","format":{"provider":"parquet","options":{}},"schemaString":")" +
      schema +
      R"(","partitionColumns":["newid"],"configuration":{"delta.columnMapping.mode":"name",)"
      R"("delta.columnMapping.maxColumnId":"2"},"createdTime":1}})"
      "\n"
      R"({"add":{"path":"col-b2=1/a.parquet","partitionValues":{"col-b2":"1"},"size":100,)"
      R"("modificationTime":1,"dataChange":true,"stats":"{\"numRecords\":2}"}})"
      "\n"
      R"({"add":{"path":"col-b2=2/b.parquet","partitionValues":{"col-b2":"2"},"size":300,)"
      R"("modificationTime":1,"dataChange":true,"stats":"{\"numRecords\":5}"}})"
      "\n"
      R"({"commitInfo":{"timestamp":1700000000000,"operation":"WRITE"}})"
      "\n";
  auto out = fs_->OpenWrite(root + "/_delta_log/" + log::FormatVersion(0) + ".json");
  out->Write(commit.data(), commit.size());
  out->Close();

  TableHealth health = Health("mapped");
  EXPECT_THAT(health.partition_columns, ElementsAre("newid"));
  ASSERT_EQ(health.partitions.size(), 2u);
  EXPECT_EQ(health.partitions[0].name, "newid=2");
  EXPECT_EQ(health.partitions[0].bytes, 300);
  EXPECT_EQ(health.partitions[1].name, "newid=1");
  EXPECT_EQ(health.num_rows, 7);
  EXPECT_EQ(health.timestamp_ms, 1700000000000);
  EXPECT_EQ(health.commits.at(0).rows_added, 7);
  // silt writes column-mapped tables, so VACUUM's estimate is part of the report too.
  EXPECT_TRUE(health.vacuum.has_value());
}

TEST_F(TableHealthTest, DeletionVectorDensityPerFile) {
  Sql("CREATE TABLE t (id INT) USING delta TBLPROPERTIES (delta.enableDeletionVectors = true)");
  Sql("INSERT INTO t SELECT CAST(id AS INT) FROM range(0, 10)");
  Sql("INSERT INTO t SELECT CAST(id AS INT) FROM range(10, 30)");
  Sql("DELETE FROM t WHERE id < 4");   // 4 of the first file's 10 rows
  Sql("DELETE FROM t WHERE id = 20");  // 1 of the second file's 20 rows
  auto snapshot = Latest("t");
  int64_t deleted = 0;
  for (const log::AddFile& file : snapshot->files()) {
    ASSERT_TRUE(file.deletion_vector.has_value());
    deleted += file.deletion_vector->cardinality;
  }
  ASSERT_EQ(deleted, 5);
  TableHealth health = Health("t");

  ASSERT_EQ(health.deletion_vectors.size(), 2u);
  EXPECT_EQ(health.deleted_rows, 5);
  EXPECT_EQ(health.num_rows, 25);
  EXPECT_EQ(health.deletion_vectors[0].rows, 10);
  EXPECT_EQ(health.deletion_vectors[0].deleted_rows, 4);
  EXPECT_DOUBLE_EQ(health.deletion_vectors[0].density.value(), 0.4);
  EXPECT_EQ(health.deletion_vectors[1].rows, 20);
  EXPECT_EQ(health.deletion_vectors[1].deleted_rows, 1);
  EXPECT_DOUBLE_EQ(health.deletion_vectors[1].density.value(), 0.05);
  EXPECT_EQ(health.dense_deletion_vector_files, 1);
  // The DELETE re-adds the file with its vector: logical rows 10 -> 6.
  const CommitHealth& first_delete = health.commits.at(3);
  EXPECT_EQ(first_delete.rows_removed, 10);
  EXPECT_EQ(first_delete.rows_added, 6);

  const HealthAdvice* advice = FindAdvice(health, "purge_deletion_vectors");
  ASSERT_NE(advice, nullptr);
  EXPECT_EQ(advice->message,
            "1 of 2 files with deletion vectors have more than 30% of their rows deleted (5 rows "
            "hidden): run OPTIMIZE (Spark: REORG TABLE ... APPLY (PURGE))");

  // OPTIMIZE purges them.
  Sql("OPTIMIZE t");
  TableHealth optimized = Health("t");
  EXPECT_THAT(optimized.deletion_vectors, IsEmpty());
  EXPECT_EQ(optimized.num_rows, 25);
  EXPECT_EQ(FindAdvice(optimized, "purge_deletion_vectors"), nullptr);
}

TEST_F(TableHealthTest, ChangeDataFilesStillInTheLog) {
  Sql("CREATE TABLE t (id INT, v STRING) USING delta "
      "TBLPROPERTIES (delta.enableChangeDataFeed = true)");
  Sql("INSERT INTO t VALUES (1, 'a'), (2, 'b')");
  Sql("UPDATE t SET v = 'x' WHERE id = 1");
  Sql("DELETE FROM t WHERE id = 2");
  int64_t files = 0;
  int64_t bytes = 0;
  for (int64_t v = 0; v <= Latest("t")->version(); ++v) {
    for (const log::AddCdcFile& cdc : Of<log::AddCdcFile>(Commit("t", v))) {
      ++files;
      bytes += cdc.size;
    }
  }
  ASSERT_GT(files, 0);
  TableHealth health = Health("t");
  EXPECT_EQ(health.change_data_files, files);
  EXPECT_EQ(health.change_data_bytes, bytes);
  EXPECT_EQ(health.commits.at(2).change_data_files,
            static_cast<int64_t>(Of<log::AddCdcFile>(Commit("t", 2)).size()));
}

TEST_F(TableHealthTest, LastOptimizeVacuumAndTheVacuumEstimate) {
  Sql("CREATE TABLE t (id INT) USING delta");
  for (int i = 0; i < 3; ++i) Sql("INSERT INTO t VALUES (" + std::to_string(i) + ")");
  TableHealth before = Health("t");
  EXPECT_FALSE(before.last_optimize_version.has_value());
  EXPECT_FALSE(before.last_vacuum_version.has_value());

  Sql("OPTIMIZE t");
  int64_t optimize_version = Latest("t")->version();
  std::vector<log::RemoveFile> compacted = Of<log::RemoveFile>(Commit("t", optimize_version));
  ASSERT_EQ(compacted.size(), 3u);
  int64_t compacted_bytes = 0;
  for (const log::RemoveFile& file : compacted) compacted_bytes += file.size.value();

  Sql("VACUUM t");  // nothing is old enough yet, but START and END are recorded
  int64_t vacuum_end = Latest("t")->version();
  TableHealth now = Health("t");
  EXPECT_EQ(now.last_optimize_version, optimize_version);
  EXPECT_EQ(now.last_optimize_ms, now.commits.at(optimize_version).timestamp_ms);
  EXPECT_EQ(now.commits.at(vacuum_end).operation, "VACUUM END");
  EXPECT_EQ(now.last_vacuum_version, vacuum_end);
  ASSERT_TRUE(now.vacuum.has_value());
  EXPECT_EQ(now.vacuum->files, 0);
  EXPECT_EQ(now.vacuum->retention_ms, 7 * kDayMs);
  EXPECT_EQ(FindAdvice(now, "vacuum"), nullptr);

  // Eight days on, the compacted files are past the week's retention: a VACUUM would take them.
  TableHealthOptions later;
  later.now_ms = SystemNowMs() + 8 * kDayMs;
  TableHealth aged = Health("t", later);
  ASSERT_TRUE(aged.vacuum.has_value());
  EXPECT_EQ(aged.vacuum->files, 3);
  EXPECT_EQ(aged.vacuum->bytes, compacted_bytes);
  const HealthAdvice* advice = FindAdvice(aged, "vacuum");
  ASSERT_NE(advice, nullptr);
  EXPECT_THAT(advice->message,
              HasSubstr("VACUUM would delete " + FormatByteSize(compacted_bytes) + " in 3 files"));
  // The estimate deleted nothing and committed nothing.
  EXPECT_EQ(Latest("t")->version(), vacuum_end);
  for (const log::RemoveFile& file : compacted) {
    EXPECT_TRUE(std::filesystem::exists(Latest("t")->ResolvePath(file.path)));
  }
}

TEST_F(TableHealthTest, CheckpointAgeAndTheMissingCheckpointAdvice) {
  Sql("CREATE TABLE t (id INT) USING delta TBLPROPERTIES (delta.checkpointInterval = 5)");
  for (int i = 0; i < 12; ++i) Sql("INSERT INTO t VALUES (" + std::to_string(i) + ")");
  TableHealth health = Health("t");
  EXPECT_EQ(health.version, 12);
  EXPECT_EQ(health.checkpoint_interval, 5);
  EXPECT_EQ(health.last_checkpoint_version, 10);
  EXPECT_EQ(health.commits_since_checkpoint, 2);
  ASSERT_TRUE(health.last_checkpoint_ms.has_value());
  EXPECT_EQ(FindAdvice(health, "checkpoint"), nullptr);

  // Without its checkpoints the table replays all 13 commits: more than two intervals.
  for (const auto& entry : std::filesystem::directory_iterator(Location("t") + "/_delta_log")) {
    std::string name = entry.path().filename().string();
    if (name.find(".checkpoint") != std::string::npos || name == "_last_checkpoint") {
      std::filesystem::remove(entry.path());
    }
  }
  TableHealth bare = Health("t");
  EXPECT_FALSE(bare.last_checkpoint_version.has_value());
  EXPECT_EQ(bare.commits_since_checkpoint, 13);
  const HealthAdvice* advice = FindAdvice(bare, "checkpoint");
  ASSERT_NE(advice, nullptr);
  EXPECT_THAT(advice->message, HasSubstr("no checkpoint for 13 commits"));
}

TEST_F(TableHealthTest, JsonHasStableKeys) {
  Sql("CREATE TABLE t (id INT, p STRING) USING delta PARTITIONED BY (p)");
  Sql("INSERT INTO t VALUES (1, 'a')");
  TableHealthOptions options;
  options.now_ms = 1'000'000'000'000;
  std::string json = TableHealthJson(Health("t", options));
  for (const char* key :
       {"\"location\":", "\"version\":1", "\"numFiles\":1", "\"numRows\":1", "\"commits\":[",
        "\"operation\":\"WRITE\"", "\"rowsAdded\":1", "\"fileSizes\":{", "\"histogram\":[",
        "\"smallFileThreshold\":8388608", "\"partitions\":{\"columns\":[\"p\"]", "\"name\":\"p=a\"",
        "\"deletionVectors\":{", "\"changeDataFeed\":{", "\"maintenance\":{",
        "\"vacuum\":{\"numFiles\":0", "\"advice\":[", "\"now\":1000000000000"}) {
    EXPECT_THAT(json, HasSubstr(key));
  }
}

TEST_F(TableHealthTest, DescribeHealthReturnsTheKeyNumbers) {
  Sql("CREATE TABLE t (id INT, p STRING) USING delta PARTITIONED BY (p) "
      "TBLPROPERTIES (delta.enableDeletionVectors = true)");
  Sql("INSERT INTO t VALUES (1, 'a'), (2, 'a'), (3, 'b')");
  Sql("INSERT INTO t VALUES (4, 'a')");
  Sql("DELETE FROM t WHERE id = 1");
  std::vector<std::string> row = Query("DESCRIBE HEALTH t");
  ASSERT_EQ(row.size(), 1u);
  StatementResult result = Sql("DESCRIBE HEALTH t");
  const Schema& schema = *result.schema;
  EXPECT_EQ(schema.field(0).name, "location");
  EXPECT_EQ(schema.field(2).name, "numFiles");
  EXPECT_EQ(schema.field(schema.num_fields() - 1).name, "advice");
  TableHealth health = Health("t");
  std::string expected_start = Location("t") + ",3,3," + std::to_string(health.size_bytes) +
                               ",3,8388608,3,1.0,2," + std::to_string(health.partitions[0].bytes) +
                               "," + std::to_string(health.median_partition_bytes) + ",1,1,1,0,0,";
  EXPECT_EQ(row[0].substr(0, expected_start.size()), expected_start) << row[0];

  Sql("CREATE TEMP VIEW v AS SELECT * FROM t");
  EXPECT_EQ(ErrorClassOf("DESCRIBE HEALTH v"), "EXPECT_TABLE_NOT_VIEW");
  EXPECT_EQ(ErrorClassOf("DESCRIBE HEALTH missing"), "TABLE_OR_VIEW_NOT_FOUND");
  // A table named `health` is still described.
  Sql("CREATE TABLE health (x INT) USING delta");
  EXPECT_EQ(Sql("DESCRIBE health").schema->field(0).name, "col_name");
}

}  // namespace
}  // namespace silt::commands
