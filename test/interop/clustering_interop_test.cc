// Liquid clustering end to end: the log of a clustered table against the shapes of Delta's
// PROTOCOL.md ("Clustered Table": the clustering writer feature with domainMetadata, the
// delta.clustering domain of physical-name paths, `clusteringProvider` on the files OPTIMIZE
// clustered, with Delta's ZCube tags), data skipping on the clustering columns after OPTIMIZE,
// DuckDB reading the clustered data files, and the clustered golden table read through the log.

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "silt/api/session_internal.h"
#include "silt/io/file_system.h"
#include "silt/io/path.h"
#include "silt/log/clustering.h"
#include "silt/log/file_stats.h"
#include "silt/log/snapshot.h"
#include "silt/log/table_features.h"
#include "silt/log/table_scan.h"
#include "silt/session.h"
#include "silt/vector/batch.h"
#include "support/duckdb_peer.h"
#include "support/temp_dir.h"

namespace silt {
namespace {

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream stream(text);
  std::string line;
  while (std::getline(stream, line)) {
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

bool Contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

class ClusteringInteropTest : public ::testing::Test {
 protected:
  Session MakeSession() {
    SessionOptions options;
    options.warehouse = directory_.Child("warehouse");
    return Session(options);
  }

  // Appends `batches` INSERTs of `rows_per_batch` rows (id, v); batch k holds the ids congruent
  // to k modulo `batches`, so every file spans the whole range of ids before clustering.
  static void InsertSpread(Session& session, const std::string& table, int batches,
                           int rows_per_batch) {
    for (int batch = 0; batch < batches; ++batch) {
      std::string values;
      for (int i = 0; i < rows_per_batch; ++i) {
        int id = i * batches + batch;
        values += (values.empty() ? "(" : ", (") + std::to_string(id) + ", " +
                  std::to_string((id * 7919) % 1000) + ")";
      }
      api::RunStatements(session, "INSERT INTO " + table + " VALUES " + values);
    }
  }

  // The files the last statement of `session` had to read (after file pruning).
  static int64_t FilesToRead(Session& session, const std::string& query) {
    api::RunStatements(session, query);
    return api::StatementProgress(session).files_to_read;
  }

  test::TempDir directory_;
};

TEST_F(ClusteringInteropTest, LogActionsHaveTheShapesOfTheProtocol) {
  std::string root = directory_.Child("shapes");
  Session session = MakeSession();
  api::RunStatements(session,
                     "CREATE TABLE s (id BIGINT, v BIGINT, n STRUCT<x: INT>) USING delta "
                     "CLUSTER BY (id, n.x) LOCATION " +
                         test::SqlQuote(root));
  for (int batch = 0; batch < 3; ++batch) {
    api::RunStatements(session,
                       "INSERT INTO s SELECT id, id * 2, named_struct('x', CAST(id % 10 "
                       "AS INT)) FROM range(" +
                           std::to_string(batch * 100) + ", " + std::to_string(batch * 100 + 100) +
                           ")");
  }
  auto fs = io::MakeLocalFileSystem();
  auto before = log::Snapshot::Load(fs, root);
  // Writers add unclustered files.
  for (const log::AddFile& file : before->files()) {
    EXPECT_FALSE(file.clustering_provider.has_value()) << file.path;
  }
  api::RunStatements(session, "OPTIMIZE s");
  auto snapshot = log::Snapshot::Load(fs, root);
  ASSERT_EQ(snapshot->version(), 4);

  // Protocol: writer version 7 with clustering and the domainMetadata feature it requires.
  const log::Protocol& protocol = snapshot->protocol();
  EXPECT_EQ(protocol.min_writer_version, 7);
  ASSERT_TRUE(protocol.writer_features.has_value());
  EXPECT_TRUE(Contains(*protocol.writer_features, "clustering"));
  EXPECT_TRUE(Contains(*protocol.writer_features, "domainMetadata"));
  EXPECT_TRUE(log::IsClusteringSupported(protocol));
  EXPECT_FALSE(snapshot->metadata().partition_columns.size() > 0);

  // The domain: one array of physical names per clustering column.
  auto domain = snapshot->domain_metadata().find("delta.clustering");
  ASSERT_NE(domain, snapshot->domain_metadata().end());
  EXPECT_EQ(domain->second.configuration, R"({"clusteringColumns":[["id"],["n","x"]]})");
  EXPECT_FALSE(domain->second.removed);

  // OPTIMIZE replaced every file by clustered ones of one new ZCube.
  std::set<std::string> before_paths;
  for (const log::AddFile& file : before->files()) before_paths.insert(file.path);
  std::set<std::string> cubes;
  for (const log::AddFile& file : snapshot->files()) {
    EXPECT_EQ(before_paths.count(file.path), 0u) << file.path;
    EXPECT_EQ(file.clustering_provider, std::optional<std::string>("liquid")) << file.path;
    ASSERT_TRUE(file.tags.has_value()) << file.path;
    const std::string* cube = log::FindValue(*file.tags, "ZCUBE_ID");
    const std::string* zorder_by = log::FindValue(*file.tags, "ZCUBE_ZORDER_BY");
    ASSERT_NE(cube, nullptr);
    ASSERT_NE(zorder_by, nullptr);
    EXPECT_EQ(*zorder_by, R"(["id","n.x"])");
    cubes.insert(*cube);
    EXPECT_TRUE(file.stats.has_value()) << "clustered files need statistics";
  }
  EXPECT_EQ(cubes.size(), 1u);

  // The commit file itself: adds with dataChange false and clusteringProvider, removes of the
  // old files, and commitInfo naming the clustering columns.
  std::string commit = fs->ReadFile(io::JoinPath(root, "_delta_log/00000000000000000004.json"));
  int adds = 0;
  int removes = 0;
  for (const std::string& line : Lines(commit)) {
    if (line.rfind("{\"add\":", 0) == 0) {
      ++adds;
      EXPECT_NE(line.find("\"dataChange\":false"), std::string::npos) << line;
      EXPECT_NE(line.find("\"clusteringProvider\":\"liquid\""), std::string::npos) << line;
      EXPECT_NE(line.find("\"partitionValues\":{}"), std::string::npos) << line;
    } else if (line.rfind("{\"remove\":", 0) == 0) {
      ++removes;
      EXPECT_NE(line.find("\"dataChange\":false"), std::string::npos) << line;
    } else if (line.rfind("{\"commitInfo\":", 0) == 0) {
      EXPECT_NE(line.find("\"operation\":\"OPTIMIZE\""), std::string::npos) << line;
      EXPECT_NE(line.find(R"("clusterBy":"[\"id\",\"n.x\"]")"), std::string::npos) << line;
    }
  }
  EXPECT_EQ(adds, static_cast<int>(snapshot->files().size()));
  EXPECT_EQ(removes, 3);

  // The first commit: protocol, then the domain action as Delta writes it.
  std::string create = fs->ReadFile(io::JoinPath(root, "_delta_log/00000000000000000000.json"));
  EXPECT_NE(
      create.find(
          R"({"domainMetadata":{"domain":"delta.clustering","configuration":"{\"clusteringColumns\":[[\"id\"],[\"n\",\"x\"]]}","removed":false}})"),
      std::string::npos)
      << create;
  EXPECT_EQ(create.find("delta.feature.clustering"), std::string::npos) << create;
}

TEST_F(ClusteringInteropTest, ClusteringLetsQueriesSkipFiles) {
  std::string root = directory_.Child("skipping");
  Session session = MakeSession();
  api::RunStatements(session,
                     "CREATE TABLE k (id BIGINT, v BIGINT) USING delta CLUSTER BY (id) "
                     "LOCATION " +
                         test::SqlQuote(root));
  InsertSpread(session, "k", 8, 500);
  auto fs = io::MakeLocalFileSystem();
  auto unclustered = log::Snapshot::Load(fs, root);
  ASSERT_EQ(unclustered->files().size(), 8u);
  int64_t total = 0;
  for (const log::AddFile& file : unclustered->files()) total += file.size;
  // Every file spans all ids: a point lookup reads them all.
  EXPECT_EQ(FilesToRead(session, "SELECT v FROM k WHERE id = 1234"), 8);

  // Output files of about a quarter of the table each.
  api::RunStatements(
      session, "SET spark.databricks.delta.optimize.maxFileSize = " + std::to_string(total / 4));
  api::RunStatements(session, "OPTIMIZE k");
  auto clustered = log::Snapshot::Load(fs, root);
  ASSERT_GE(clustered->files().size(), 3u);
  // Ordered by id, the files hold disjoint ranges of ids.
  std::vector<std::pair<int64_t, int64_t>> ranges;
  for (const log::AddFile& file : clustered->files()) {
    ASSERT_TRUE(file.stats.has_value());
    log::FileStats stats = log::FileStats::Parse(*file.stats, file.path);
    std::optional<log::Scalar> min = stats.Min({"id"}, *LongType());
    std::optional<log::Scalar> max = stats.Max({"id"}, *LongType());
    ASSERT_TRUE(min && max) << *file.stats;
    ranges.emplace_back(std::get<int64_t>(*min), std::get<int64_t>(*max));
  }
  std::sort(ranges.begin(), ranges.end());
  for (size_t i = 1; i < ranges.size(); ++i) {
    EXPECT_LT(ranges[i - 1].second, ranges[i].first) << "overlapping files after clustering";
  }
  EXPECT_EQ(FilesToRead(session, "SELECT v FROM k WHERE id = 1234"), 1);
  std::vector<std::string> rows =
      Lines(FormatCsv(api::RunStatements(session, "SELECT v FROM k WHERE id = 1234").batches(),
                      /*header=*/false));
  EXPECT_EQ(rows, (std::vector<std::string>{std::to_string((1234 * 7919) % 1000)}));
  EXPECT_EQ(
      Lines(FormatCsv(api::RunStatements(session, "SELECT count(*), sum(id) FROM k").batches(),
                      /*header=*/false)),
      (std::vector<std::string>{"4000,7998000"}));
}

// Delta's ClusteringStats of an OPTIMIZE result row: {inputZCubeFiles.numFiles,
// inputOtherFiles.numFiles, inputNumZCubes, mergedFiles.numFiles, numOutputZCubes}.
std::vector<int64_t> ClusteringStats(const StatementOutput& output) {
  const Batch& batch = output.batches().at(0);
  const VectorPtr& metrics = batch.column(1);
  const auto& fields = metrics->type()->fields();
  size_t index = 0;
  while (index < fields.size() && fields[index].name != "clusteringStats") ++index;
  EXPECT_LT(index, fields.size());
  VectorPtr stats = metrics->StructField(index);
  if (stats->IsNull(0)) return {};
  auto number = [](const VectorPtr& vector) { return vector->values<int64_t>()[0]; };
  return {number(stats->StructField(0)->StructField(0)),
          number(stats->StructField(1)->StructField(0)), number(stats->StructField(2)),
          number(stats->StructField(3)->StructField(0)), number(stats->StructField(4))};
}

std::set<std::string> ZCubes(const log::Snapshot& snapshot) {
  std::set<std::string> cubes;
  for (const log::AddFile& file : snapshot.files()) {
    if (file.tags && log::FindValue(*file.tags, "ZCUBE_ID")) {
      cubes.insert(*log::FindValue(*file.tags, "ZCUBE_ID"));
    }
  }
  return cubes;
}

std::set<std::string> Paths(const log::Snapshot& snapshot) {
  std::set<std::string> paths;
  for (const log::AddFile& file : snapshot.files()) paths.insert(file.path);
  return paths;
}

TEST_F(ClusteringInteropTest, OptimizeClustersIncrementallyAndFullReclustersOtherColumns) {
  std::string root = directory_.Child("incremental");
  Session session = MakeSession();
  auto fs = io::MakeLocalFileSystem();
  api::RunStatements(session,
                     "CREATE TABLE inc (id BIGINT, v BIGINT) USING delta CLUSTER BY (id) "
                     "LOCATION " +
                         test::SqlQuote(root));
  InsertSpread(session, "inc", 4, 100);
  EXPECT_EQ(ClusteringStats(api::RunStatements(session, "OPTIMIZE inc")),
            (std::vector<int64_t>{0, 4, 0, 4, 1}));
  auto first = log::Snapshot::Load(fs, root);
  std::set<std::string> first_paths = Paths(*first);
  ASSERT_EQ(ZCubes(*first).size(), 1u);

  // ZCubes past the size threshold are stable: only the new files are clustered, into a
  // second ZCube.
  api::RunStatements(session,
                     "SET spark.databricks.delta.optimize.clustering.mergeStrategy."
                     "minCubeSize.threshold = 1");
  InsertSpread(session, "inc", 3, 100);
  int64_t clustered_files = static_cast<int64_t>(first_paths.size());
  EXPECT_EQ(ClusteringStats(api::RunStatements(session, "OPTIMIZE inc")),
            (std::vector<int64_t>{clustered_files, 3, 1, 3, 1}));
  auto second = log::Snapshot::Load(fs, root);
  for (const std::string& path : first_paths) EXPECT_EQ(Paths(*second).count(path), 1u) << path;
  EXPECT_EQ(ZCubes(*second).size(), 2u);

  // Below Delta's default threshold (100 GiB) both ZCubes are small: they merge into one.
  api::RunStatements(session,
                     "RESET spark.databricks.delta.optimize.clustering.mergeStrategy."
                     "minCubeSize.threshold");
  api::RunStatements(session, "OPTIMIZE inc");
  auto merged = log::Snapshot::Load(fs, root);
  EXPECT_EQ(ZCubes(*merged).size(), 1u);
  for (const std::string& path : Paths(*merged)) EXPECT_EQ(Paths(*second).count(path), 0u) << path;

  // Files clustered by other columns are left alone, except by OPTIMIZE FULL.
  api::RunStatements(session, "ALTER TABLE inc CLUSTER BY (v)");
  int64_t altered = log::Snapshot::Load(fs, root)->version();
  api::RunStatements(session, "OPTIMIZE inc");
  EXPECT_EQ(log::Snapshot::Load(fs, root)->version(), altered);
  api::RunStatements(session, "OPTIMIZE inc FULL");
  auto full = log::Snapshot::Load(fs, root);
  EXPECT_EQ(full->version(), altered + 1);
  for (const log::AddFile& file : full->files()) {
    EXPECT_EQ(Paths(*merged).count(file.path), 0u) << file.path;
    ASSERT_TRUE(file.tags.has_value());
    EXPECT_EQ(*log::FindValue(*file.tags, "ZCUBE_ZORDER_BY"), R"(["v"])");
  }
  EXPECT_EQ(
      Lines(FormatCsv(api::RunStatements(session, "SELECT count(*), sum(id) FROM inc").batches(),
                      /*header=*/false)),
      (std::vector<std::string>{"700,124650"}));
}

TEST_F(ClusteringInteropTest, DuckDbReadsTheClusteredFiles) {
  std::string root = directory_.Child("duck");
  Session session = MakeSession();
  api::RunStatements(session,
                     "CREATE TABLE d (id BIGINT, v BIGINT) USING delta CLUSTER BY (v, id) "
                     "LOCATION " +
                         test::SqlQuote(root));
  InsertSpread(session, "d", 4, 250);
  api::RunStatements(session, "OPTIMIZE d");
  auto snapshot = log::Snapshot::Load(io::MakeLocalFileSystem(), root);
  std::string paths;
  for (const log::AddFile& file : snapshot->files()) {
    ASSERT_EQ(file.clustering_provider, std::optional<std::string>("liquid"));
    paths += (paths.empty() ? "" : ", ") + test::SqlQuote(snapshot->ResolvePath(file.path));
  }
  std::vector<std::string> duckdb =
      Lines(test::RunDuckDb({"SELECT id, v FROM read_parquet([" + paths + "]) ORDER BY id"}));
  ASSERT_FALSE(duckdb.empty());
  duckdb.erase(duckdb.begin());  // the header
  std::vector<std::string> silt = Lines(FormatCsv(
      api::RunStatements(session, "SELECT id, v FROM d ORDER BY id").batches(), /*header=*/false));
  EXPECT_EQ(silt.size(), 1000u);
  EXPECT_EQ(silt, duckdb);
}

TEST_F(ClusteringInteropTest, GoldenClusteredTableReads) {
  // Written by Databricks: the clustering feature (with domainMetadata, deletion vectors and row
  // tracking) and no rows yet.
  std::string root = io::JoinPath(test::TestDataDir(), "golden/delta-kernel-rs/crc-full/delta");
  auto snapshot = log::Snapshot::Load(io::MakeLocalFileSystem(), root);
  EXPECT_TRUE(log::IsClusteringSupported(snapshot->protocol()));
  log::CheckWriteSupported(snapshot->protocol(), snapshot->metadata(), root);
  EXPECT_TRUE(log::ClusteringColumnNames(snapshot->domain_metadata(), snapshot->schema()).empty());
  Session session = MakeSession();
  EXPECT_EQ(Lines(FormatCsv(
                api::RunStatements(session, "SELECT count(*) FROM delta.`" + root + "`").batches(),
                /*header=*/false)),
            (std::vector<std::string>{"0"}));
}

}  // namespace
}  // namespace silt
