// The change feed scan operator: projection of table and change columns, the row filter, the
// files-scanned counter and errors raised by workers.

#include "silt/exec/change_feed_scan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "silt/error.h"
#include "silt/io/file_system.h"
#include "silt/log/log_segment.h"
#include "silt/parquet/writer.h"

namespace silt::exec {
namespace {

using ::testing::UnorderedElementsAre;

void WriteIds(io::FileSystem& fs, const std::string& path, int64_t first, int64_t count) {
  auto schema = std::make_shared<const Schema>(std::vector<Field>{Field{"id", LongType(), true, {}}});
  VectorBuilder ids(LongType());
  for (int64_t i = 0; i < count; ++i) ids.AppendInt(first + i);
  parquet::WriterOptions options;
  options.max_parallelism = 1;
  auto writer = parquet::FileWriter::Open(fs.OpenWrite(path), *schema, options);
  writer->Write(Batch(schema, {ids.Finish()}, count));
  writer->Close();
}

std::string AddAction(const std::string& path) {
  return R"({"add":{"path":")" + path +
         R"(","partitionValues":{},"size":1,"modificationTime":1,"dataChange":true}})";
}

class ChangeFeedScanTest : public ::testing::Test {
 protected:
  ChangeFeedScanTest() {
    std::string commit0 =
        R"({"protocol":{"minReaderVersion":1,"minWriterVersion":4}})"
        "\n"
        R"({"metaData":{"id":"t","format":{"provider":"parquet","options":{}},"schemaString":"{\"type\":\"struct\",\"fields\":[{\"name\":\"id\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}}]}","partitionColumns":[],"configuration":{"delta.enableChangeDataFeed":"true"}}})"
        "\n";
    for (int v = 0; v < 4; ++v) {
      std::string name = "f" + std::to_string(v) + ".parquet";
      WriteIds(*fs_, "t/" + name, v * 10, 3);
      fs_->WriteFile("t/_delta_log/" + log::FormatVersion(v) + ".json",
                     (v == 0 ? commit0 : "") + AddAction(name) + "\n");
    }
  }

  std::shared_ptr<const log::ChangeFeed> Feed(int64_t start) {
    log::ChangeFeedOptions options;
    options.start = log::ChangeFeedBound::Version(start);
    return log::ChangeFeed::Make(fs_, "t", options);
  }

  static std::vector<std::string> Rows(const std::vector<Batch>& batches) {
    std::vector<std::string> rows;
    for (const Batch& batch : batches) {
      for (int64_t r = 0; r < batch.num_rows(); ++r) {
        std::string row;
        for (size_t c = 0; c < batch.num_columns(); ++c) {
          row += (c > 0 ? "," : "") + batch.column(c)->ValueToString(r);
        }
        rows.push_back(row);
      }
    }
    return rows;
  }

  std::shared_ptr<io::FileSystem> fs_ = io::MakeMemoryFileSystem();
};

TEST_F(ChangeFeedScanTest, ProjectsTableAndChangeColumns) {
  ChangeFeedScanSpec spec;
  spec.feed = Feed(2);
  spec.columns = {2, 0, 1};  // _commit_version, id, _change_type
  OperatorPtr scan = MakeChangeFeedScan(spec);
  ASSERT_EQ(scan->schema()->num_fields(), 3u);
  EXPECT_EQ(scan->schema()->field(0).name, "_commit_version");
  ExecContext context;
  EXPECT_THAT(Rows(Collect(*scan, context)),
              UnorderedElementsAre("2,20,insert", "2,21,insert", "2,22,insert", "3,30,insert",
                                   "3,31,insert", "3,32,insert"));
  EXPECT_EQ(context.counters->files_scanned.load(), 2);
}

TEST_F(ChangeFeedScanTest, FiltersRowsInsideTheScan) {
  ChangeFeedScanSpec spec;
  spec.feed = Feed(0);
  spec.columns = {0, 2};
  spec.filter = expr::Compare(expr::ComparisonOperator::kEqual, expr::Column(1, LongType(), false),
                              expr::Literal(expr::Scalar::Long(1)));
  OperatorPtr scan = MakeChangeFeedScan(spec);
  ExecContext context;
  EXPECT_THAT(Rows(Collect(*scan, context)), UnorderedElementsAre("10,1", "11,1", "12,1"));
  EXPECT_THAT(scan->Describe(), ::testing::HasSubstr("versions 0 to 3"));
}

TEST_F(ChangeFeedScanTest, VersionPredicatesSkipWholeCommits) {
  ChangeFeedScanSpec spec;
  spec.feed = Feed(0);
  spec.columns = {0};
  spec.predicates = {{"_commit_version", log::ScanPredicate::Op::kGreaterOrEqual, "2"},
                     {"_commit_version", log::ScanPredicate::Op::kLess, "3"}};
  OperatorPtr scan = MakeChangeFeedScan(spec);
  ExecContext context;
  EXPECT_THAT(Rows(Collect(*scan, context)), UnorderedElementsAre("20", "21", "22"));
  EXPECT_EQ(context.counters->files_scanned.load(), 1);
  EXPECT_EQ(context.counters->files_pruned.load(), 3);
}

TEST_F(ChangeFeedScanTest, MissingChangeFileFailsTheQuery) {
  fs_->Delete("t/f3.parquet");
  ChangeFeedScanSpec spec;
  spec.feed = Feed(1);
  OperatorPtr scan = MakeChangeFeedScan(spec);
  ExecContext context;
  try {
    Collect(*scan, context);
    FAIL();
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), "DELTA_CHANGE_DATA_FILE_NOT_FOUND");
    EXPECT_THAT(error.what(), ::testing::HasSubstr("t/f3.parquet"));
  }
}

}  // namespace
}  // namespace silt::exec
