#include "silt/log/optimize.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

#include "silt/base/testing_error_class.h"
#include "silt/error.h"
#include "silt/io/file_system.h"
#include "silt/log/deletion_vector_writer.h"
#include "silt/log/file_stats.h"
#include "silt/log/table_writer.h"
#include "silt/types/schema_json.h"

namespace silt::log {
namespace {

using ::testing::ElementsAre;

constexpr const char* kRoot = "mem/table";

class OptimizeTest : public ::testing::Test {
 protected:
  void SetUp() override { fs_ = io::MakeMemoryFileSystem(); }

  // A table (id bigint, x bigint, y bigint, part string).
  void Create(std::vector<std::string> partitions, StringMap configuration = {}) {
    CreateTableOptions options;
    options.schema =
        Schema({Field{"id", LongType(), true, {}}, Field{"x", LongType(), true, {}},
                Field{"y", LongType(), true, {}}, Field{"part", StringType(), true, {}}});
    options.partition_columns = std::move(partitions);
    options.configuration = std::move(configuration);
    schema_ = std::make_shared<Schema>(options.schema);
    CreateTable(fs_, kRoot, options);
  }

  // Appends rows (id, x, y, part) as one commit (one file per partition).
  void Append(const std::vector<std::tuple<int64_t, int64_t, int64_t, std::string>>& rows) {
    VectorBuilder id(LongType()), x(LongType()), y(LongType()), part(StringType());
    for (const auto& [i, xv, yv, p] : rows) {
      id.AppendInt(i);
      x.AppendInt(xv);
      y.AppendInt(yv);
      part.AppendString(p);
    }
    int64_t n = static_cast<int64_t>(rows.size());
    AppendToTable(fs_, kRoot,
                  {Batch(schema_, {id.Finish(), x.Finish(), y.Finish(), part.Finish()}, n)});
  }

  std::shared_ptr<const Snapshot> Latest() { return Snapshot::Load(fs_, kRoot); }

  // Every live row as "id,x,y,part", sorted.
  std::vector<std::string> Rows() {
    std::vector<std::string> rows;
    for (const Batch& batch : TableScan::Make(Latest())->Read()) {
      for (int64_t r = 0; r < batch.num_rows(); ++r) {
        std::string row;
        for (size_t c = 0; c < batch.num_columns(); ++c) {
          row += (c ? "," : "") + batch.column(c)->ValueToString(r);
        }
        rows.push_back(row);
      }
    }
    std::sort(rows.begin(), rows.end());
    return rows;
  }

  std::shared_ptr<io::FileSystem> fs_;
  SchemaPtr schema_;
};

TEST_F(OptimizeTest, CompactsSmallFilesPerPartition) {
  Create({"part"});
  Append({{1, 0, 0, "a"}, {2, 0, 0, "b"}});
  Append({{3, 0, 0, "a"}, {4, 0, 0, "b"}});
  Append({{5, 0, 0, "a"}});
  std::vector<std::string> before = Rows();
  ASSERT_EQ(Latest()->files().size(), 5u);

  OptimizeResult result = Optimize(Latest(), {});
  ASSERT_TRUE(result.commit.has_value());
  auto snapshot = Latest();
  EXPECT_EQ(snapshot->version(), 4);
  EXPECT_EQ(snapshot->files().size(), 2u);
  EXPECT_EQ(Rows(), before);
  for (const AddFile& add : snapshot->files()) {
    EXPECT_FALSE(add.data_change);
    ASSERT_TRUE(add.stats.has_value());
  }
  EXPECT_EQ(result.metrics.num_files_removed, 5);
  EXPECT_EQ(result.metrics.num_files_added, 2);
  EXPECT_EQ(result.metrics.partitions_optimized, 2);
  EXPECT_EQ(result.metrics.total_considered_files, 5);
  EXPECT_EQ(result.metrics.total_files_skipped, 0);
  EXPECT_EQ(*FindValue(result.operation_metrics, "numRemovedFiles"), "5");
  EXPECT_EQ(*FindValue(result.operation_metrics, "numAddedFiles"), "2");
  EXPECT_EQ(result.operation_metrics[0].first, "numRemovedFiles");

  // The commit is a rearrangement: snapshot isolation, OPTIMIZE with Delta's parameters.
  const auto& info = snapshot->commit_info();
  ASSERT_TRUE(info.has_value());
  EXPECT_THAT(info->raw_json, ::testing::HasSubstr("\"operation\":\"OPTIMIZE\""));
  EXPECT_THAT(info->raw_json, ::testing::HasSubstr("\"isolationLevel\":\"SnapshotIsolation\""));
  EXPECT_THAT(info->raw_json, ::testing::HasSubstr("\"zOrderBy\":\"[]\""));

  // Nothing left to do: no commit.
  OptimizeResult again = Optimize(Latest(), {});
  EXPECT_FALSE(again.commit.has_value());
  EXPECT_EQ(Latest()->version(), 4);
  EXPECT_EQ(again.metrics.total_files_skipped, 2);
}

TEST_F(OptimizeTest, PartitionFilterLimitsTheWork) {
  Create({"part"});
  Append({{1, 0, 0, "a"}, {2, 0, 0, "b"}});
  Append({{3, 0, 0, "a"}, {4, 0, 0, "b"}});
  OptimizeOptions options;
  options.partition_filter = [](const AddFile& file) {
    return file.partition_values.size() == 1 && file.partition_values[0].second == "a";
  };
  options.predicate_sql = {"(part = 'a')"};
  OptimizeResult result = Optimize(Latest(), options);
  EXPECT_EQ(result.metrics.num_files_removed, 2);
  auto snapshot = Latest();
  EXPECT_EQ(snapshot->files().size(), 3u);
  EXPECT_THAT(snapshot->commit_info()->raw_json,
              ::testing::HasSubstr("\"predicate\":\"[\\\"(part = 'a')\\\"]\""));
}

TEST_F(OptimizeTest, BinsRespectTheMaximumFileSize) {
  Create({});
  for (int i = 0; i < 4; ++i) Append({{i, i, i, "p"}});
  int64_t file_size = Latest()->files()[0].size;
  OptimizeOptions options;
  // Two files fit in a bin, a third does not.
  options.max_file_size = file_size * 2 + file_size / 2;
  OptimizeResult result = Optimize(Latest(), options);
  EXPECT_EQ(result.metrics.num_bins, 2);
  EXPECT_EQ(Latest()->files().size(), 2u);
  // Files at or above minFileSize are left alone.
  Append({{10, 0, 0, "p"}});
  options.min_file_size = 1;
  EXPECT_FALSE(Optimize(Latest(), options).commit.has_value());
}

TEST_F(OptimizeTest, PurgesDeletedRows) {
  Create({}, {{"delta.enableDeletionVectors", "true"}});
  Append({{1, 0, 0, "p"}, {2, 0, 0, "p"}, {3, 0, 0, "p"}});
  auto snapshot = Latest();
  const AddFile& file = snapshot->files()[0];
  auto writer = DeletionVectorWriter::Open(fs_, kRoot, snapshot->protocol(), snapshot->metadata());
  std::optional<DeletionVectorUpdate> update = writer->DeleteRows(file, {1});
  ASSERT_TRUE(update.has_value());
  writer->Finish();
  auto txn = Transaction::Start(snapshot);
  txn->Remove(update->remove);
  txn->Add(*update->add);
  txn->SetOperation("DELETE");
  txn->Commit();
  ASSERT_TRUE(Latest()->files()[0].deletion_vector.has_value());

  // A lone file is rewritten when its deletion vector removes enough rows.
  OptimizeResult result = Optimize(Latest(), {});
  ASSERT_TRUE(result.commit.has_value());
  auto after = Latest();
  ASSERT_EQ(after->files().size(), 1u);
  EXPECT_FALSE(after->files()[0].deletion_vector.has_value());
  EXPECT_EQ(FileStats::Parse(*after->files()[0].stats, "").num_records(), 2);
  EXPECT_THAT(Rows(), ElementsAre("1,0,0,p", "3,0,0,p"));
  EXPECT_EQ(result.metrics.num_deletion_vectors_removed, 1);
  EXPECT_EQ(result.metrics.num_deletion_vector_rows_removed, 1);
  EXPECT_EQ(*FindValue(result.operation_metrics, "numDeletionVectorsRemoved"), "1");
}

// The sum over files of each column's max - min, from the files' statistics.
int64_t TotalRange(const Snapshot& snapshot, const std::string& column) {
  int64_t total = 0;
  for (const AddFile& add : snapshot.files()) {
    FileStats stats = FileStats::Parse(*add.stats, add.path);
    total += std::get<int64_t>(*stats.Max({column}, *LongType())) -
             std::get<int64_t>(*stats.Min({column}, *LongType()));
  }
  return total;
}

TEST_F(OptimizeTest, ZOrderNarrowsTheRangesOfEachFile) {
  Create({});
  // Four files, each spread over the whole 0..63 square.
  int64_t id = 0;
  for (int file = 0; file < 4; ++file) {
    std::vector<std::tuple<int64_t, int64_t, int64_t, std::string>> rows;
    for (int64_t k = 0; k < 64; ++k) {
      int64_t x = (k * 37 + file * 11) % 64;
      int64_t y = (k * 23 + file * 29 + 7) % 64;
      rows.emplace_back(id++, x, y, "p");
    }
    Append(rows);
  }
  std::vector<std::string> before = Rows();
  auto snapshot = Latest();
  int64_t x_before = TotalRange(*snapshot, "x");
  int64_t y_before = TotalRange(*snapshot, "y");
  int64_t bytes = 0;
  for (const AddFile& add : snapshot->files()) bytes += add.size;

  OptimizeOptions options;
  options.zorder_columns = {"x", "y"};
  options.max_file_size = bytes / 4;
  OptimizeResult result = Optimize(snapshot, options);
  auto after = Latest();
  EXPECT_EQ(after->files().size(), 4u);
  EXPECT_EQ(Rows(), before);
  // Each output file holds about one quadrant: both columns' ranges shrink a lot.
  EXPECT_LT(TotalRange(*after, "x"), x_before * 3 / 4);
  EXPECT_LT(TotalRange(*after, "y"), y_before * 3 / 4);
  EXPECT_TRUE(result.metrics.zorder);
  EXPECT_THAT(after->commit_info()->raw_json,
              ::testing::HasSubstr("\"zOrderBy\":\"[\\\"x\\\",\\\"y\\\"]\""));
}

TEST_F(OptimizeTest, ZOrderRewritesEvenASingleFile) {
  Create({});
  Append({{1, 5, 0, "p"}, {2, 1, 0, "p"}, {3, 3, 0, "p"}});
  OptimizeOptions options;
  options.zorder_columns = {"X"};
  OptimizeResult result = Optimize(Latest(), options);
  ASSERT_TRUE(result.commit.has_value());
  std::vector<int64_t> xs;
  for (const Batch& batch : TableScan::Make(Latest())->Read()) {
    for (int64_t r = 0; r < batch.num_rows(); ++r)
      xs.push_back(batch.column(1)->values<int64_t>()[r]);
  }
  EXPECT_THAT(xs, ElementsAre(1, 3, 5));
}

TEST_F(OptimizeTest, ZOrderColumnErrors) {
  Create({"part"}, {{"delta.dataSkippingNumIndexedCols", "2"}});
  Append({{1, 0, 0, "a"}});
  auto zorder = [&](std::vector<std::string> columns, bool check_stats = true) {
    OptimizeOptions options;
    options.zorder_columns = std::move(columns);
    options.check_zorder_column_stats = check_stats;
    return ErrorClassOf([&] { Optimize(Latest(), options); });
  };
  EXPECT_EQ(zorder({"part"}), "DELTA_ZORDERING_ON_PARTITION_COLUMN");
  EXPECT_EQ(zorder({"nope"}), "DELTA_ZORDERING_COLUMN_DOES_NOT_EXIST");
  // Only id and x get statistics.
  EXPECT_EQ(zorder({"x", "y"}), "DELTA_ZORDERING_ON_COLUMN_WITHOUT_STATS");
  EXPECT_EQ(zorder({"y"}, /*check_stats=*/false), "no error");
  EXPECT_EQ(zorder({"x"}), "no error");
}

TEST(OptimizeStatsColumnsTest, FollowsTheTableProperties) {
  Schema schema(
      {Field{"a", LongType(), true, {}},
       Field{"s",
             StructType({Field{"p", LongType(), true, {}}, Field{"q", LongType(), true, {}}}),
             true,
             {}},
       Field{"b", LongType(), true, {}}, Field{"part", StringType(), true, {}}});
  Metadata metadata;
  metadata.schema_string = ToDeltaSchemaJson(schema);
  metadata.partition_columns = {"part"};
  EXPECT_THAT(StatsColumns(metadata), ElementsAre("a", "s", "b"));
  metadata.configuration = {{"delta.dataSkippingNumIndexedCols", "3"}};
  EXPECT_THAT(StatsColumns(metadata), ElementsAre("a", "s"));
  metadata.configuration = {{"delta.dataSkippingStatsColumns", "b, `a`"}};
  EXPECT_THAT(StatsColumns(metadata), ElementsAre("b", "a"));
}

TEST_F(OptimizeTest, ConcurrentDeleteOfAReadFileConflicts) {
  Create({});
  Append({{1, 0, 0, "p"}});
  Append({{2, 0, 0, "p"}});
  auto read = Latest();
  // Another writer deletes one of the files OPTIMIZE is about to compact.
  auto remover = Transaction::Start(Latest());
  remover->RemoveLiveFile(read->files()[0]);
  remover->SetOperation("DELETE");
  remover->Commit();
  EXPECT_EQ(ErrorClassOf([&] { Optimize(read, {}); }), "DELTA_CONCURRENT_DELETE_READ");
  EXPECT_EQ(Latest()->version(), 3);
}

TEST_F(OptimizeTest, ConcurrentAppendDoesNotConflict) {
  Create({});
  Append({{1, 0, 0, "p"}});
  Append({{2, 0, 0, "p"}});
  auto read = Latest();
  Append({{3, 0, 0, "p"}});
  OptimizeResult result = Optimize(read, {});
  ASSERT_TRUE(result.commit.has_value());
  EXPECT_EQ(result.commit->version, 4);
  EXPECT_EQ(result.commit->attempts, 2);
  // The appended file stays; the two read files became one.
  EXPECT_EQ(Latest()->files().size(), 2u);
  EXPECT_THAT(Rows(), ElementsAre("1,0,0,p", "2,0,0,p", "3,0,0,p"));
}

TEST_F(OptimizeTest, TwoConcurrentOptimizesOfTheSameFilesConflict) {
  Create({});
  Append({{1, 0, 0, "p"}});
  Append({{2, 0, 0, "p"}});
  auto read = Latest();
  ASSERT_TRUE(Optimize(Latest(), {}).commit.has_value());
  EXPECT_EQ(ErrorClassOf([&] { Optimize(read, {}); }), "DELTA_CONCURRENT_DELETE_DELETE");
  EXPECT_THAT(Rows(), ElementsAre("1,0,0,p", "2,0,0,p"));
}

TEST_F(OptimizeTest, AppendOnlyTablesCanBeCompacted) {
  // Rearranging rows is not a change of data, so append-only tables allow it.
  Create({}, {{"delta.appendOnly", "true"}});
  Append({{1, 0, 0, "p"}});
  Append({{2, 0, 0, "p"}});
  ASSERT_TRUE(Optimize(Latest(), {}).commit.has_value());
  EXPECT_EQ(Latest()->files().size(), 1u);
}

}  // namespace
}  // namespace silt::log
