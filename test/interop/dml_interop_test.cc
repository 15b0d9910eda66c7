// Tables silt changes through UPDATE, DELETE and MERGE, read back by readers that share none of
// the DML code: silt's compatibility reader (a fresh log snapshot and TableScan), and DuckDB
// reading the live data files and the change-data files directly. Every combination of deletion
// vectors and change data feed, partitioned and not, is checked against rows computed in the test
// from the statements' semantics, with the table on the local disk, on the S3 test server
// (tools/s3-test-server) and on Azurite (tools/azurite-test-server). DuckDB reads a table on an
// object store from a byte-for-byte copy of its folder.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <ostream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "silt/api/session_internal.h"
#include "silt/io/file_system.h"
#include "silt/io/storage_file_system.h"
#include "silt/log/deletion_vector.h"
#include "silt/log/snapshot.h"
#include "silt/log/table_scan.h"
#include "silt/session.h"
#include "silt/vector/batch.h"
#include "support/azurite_test_server.h"
#include "support/duckdb_peer.h"
#include "support/s3_test_server.h"
#include "support/temp_dir.h"

namespace silt {
namespace {

struct ModelRow {
  int64_t group = 0;
  int64_t value = 0;
  std::string text;
};

// id -> row: the table's expected content, kept in step with each statement.
using Model = std::map<int64_t, ModelRow>;

constexpr int64_t kInsertBatches = 4;
constexpr int64_t kRowsPerInsert = 100;
// MERGE source: ids [kMergeFirst, kMergeEnd); those already in the table are updated, or deleted
// when their source value is negative; the others are inserted.
constexpr int64_t kMergeFirst = 350;
constexpr int64_t kMergeEnd = 450;

struct ChangeCounts {
  int64_t update_preimage = 0;
  int64_t update_postimage = 0;
  int64_t deletes = 0;
  int64_t inserts = 0;
};

// One row of the change feed as "change_type,id,v,s".
std::string ChangeLine(const std::string& change_type, int64_t id, const ModelRow& row) {
  return change_type + "," + std::to_string(id) + "," + std::to_string(row.value) + "," +
         row.text;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream stream(text);
  std::string line;
  while (std::getline(stream, line)) {
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

std::vector<std::string> Split(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream stream(line);
  std::string field;
  while (std::getline(stream, field, ',')) fields.push_back(field);
  return fields;
}

// DuckDB's CSV output starts with a header line.
std::vector<std::string> DuckDbRows(const std::string& csv) {
  std::vector<std::string> lines = Lines(csv);
  if (!lines.empty()) lines.erase(lines.begin());
  return lines;
}

std::vector<std::string> Sorted(std::vector<std::string> lines) {
  std::sort(lines.begin(), lines.end());
  return lines;
}

std::string RowLine(int64_t id, const ModelRow& row, bool with_group) {
  std::string line = std::to_string(id) + ",";
  if (with_group) line += std::to_string(row.group) + ",";
  return line + std::to_string(row.value) + "," + row.text;
}

enum class Store { kDisk, kS3, kAzure };

struct Variant {
  bool deletion_vectors;
  bool change_data;
  bool partitioned;
  Store store = Store::kDisk;
};

std::string DescribeVariant(const Variant& variant) {
  return std::string(variant.deletion_vectors ? "Dv" : "NoDv") +
         (variant.change_data ? "Cdf" : "NoCdf") +
         (variant.partitioned ? "Partitioned" : "Unpartitioned") +
         (variant.store == Store::kS3      ? "OnS3"
          : variant.store == Store::kAzure ? "OnAzure"
                                           : "");
}

// Every table kind on every store.
std::vector<Variant> AllVariants() {
  std::vector<Variant> variants;
  for (Store store : {Store::kDisk, Store::kS3, Store::kAzure}) {
    for (bool deletion_vectors : {false, true}) {
      for (bool change_data : {false, true}) {
        for (bool partitioned : {false, true}) {
          variants.push_back(Variant{deletion_vectors, change_data, partitioned, store});
        }
      }
    }
  }
  return variants;
}

// Copies every file below `root` on `fs` to the same relative path below the local `folder`.
void CopyToDisk(io::FileSystem& fs, const std::string& root, const std::string& folder) {
  auto local = io::MakeLocalFileSystem();
  for (const io::FileInfo& file : fs.List(root, "", /*recursive=*/true)) {
    local->WriteFile(folder + file.path.substr(root.size()), fs.ReadFile(file.path));
  }
}

std::string VariantName(const ::testing::TestParamInfo<Variant>& info) {
  return DescribeVariant(info.param);
}

// Names the table kind in failure messages instead of the parameter's raw bytes.
void PrintTo(const Variant& variant, std::ostream* out) { *out << DescribeVariant(variant); }

class DmlInteropTest : public ::testing::TestWithParam<Variant> {
 protected:
  // Places the table on its store: `root_` and the file system and session settings reaching it.
  void SetUp() override {
    std::string why_not;
    switch (GetParam().store) {
      case Store::kDisk:
        root_ = directory_.Child("t");
        fs_ = io::MakeLocalFileSystem();
        return;
      case Store::kS3: {
        test::S3TestServer* server = test::S3TestServer::Shared(&why_not);
        if (server == nullptr) GTEST_SKIP() << "no S3 test server: " << why_not;
        root_ = server->NewFolder("dml-interop");
        fs_ = io::MakeStorageFileSystem(server->Options());
        settings_ = server->SessionSettings();
        return;
      }
      case Store::kAzure: {
        test::AzuriteTestServer* server = test::AzuriteTestServer::Shared(&why_not);
        if (server == nullptr) GTEST_SKIP() << "no Azurite: " << why_not;
        root_ = server->NewFolder("dml-interop");
        fs_ = io::MakeStorageFileSystem(server->Options());
        settings_ = server->SessionSettings();
        return;
      }
    }
  }

  // Where DuckDB reads the table: its folder, or a local copy of a table on an object store.
  std::string LocalRoot() {
    if (GetParam().store == Store::kDisk) return root_;
    std::string copy = directory_.Child("copy");
    CopyToDisk(*fs_, root_, copy);
    return copy;
  }

  // Runs the statements through a Session, keeping `model_` and `changes_` in step.
  void RunStatements() {
    const Variant& variant = GetParam();
    SessionOptions options;
    options.warehouse = directory_.Child("warehouse");
    for (const auto& [key, value] : settings_) options.conf[key] = value;
    Session session(options);
    api::RunStatements(
        session,
        std::string("CREATE TABLE t (id BIGINT, grp BIGINT, v BIGINT, s STRING) USING delta ") +
            (variant.partitioned ? "PARTITIONED BY (grp) " : "") + "LOCATION " +
            test::SqlQuote(root_) + " TBLPROPERTIES ('delta.enableDeletionVectors' = '" +
            (variant.deletion_vectors ? "true" : "false") + "', 'delta.enableChangeDataFeed' = '" +
            (variant.change_data ? "true" : "false") + "')");

    for (int64_t batch = 0; batch < kInsertBatches; ++batch) {
      std::string values;
      for (int64_t id = batch * kRowsPerInsert; id < (batch + 1) * kRowsPerInsert; ++id) {
        ModelRow row{id % 4, id * 10, "s" + std::to_string(id)};
        if (!values.empty()) values += ", ";
        values += "(" + std::to_string(id) + ", " + std::to_string(row.group) + ", " +
                  std::to_string(row.value) + ", '" + row.text + "')";
        model_[id] = row;
      }
      api::RunStatements(session, "INSERT INTO t VALUES " + values);
    }

    api::RunStatements(session, "UPDATE t SET v = v + 1, s = concat(s, '_u') WHERE id % 5 = 0");
    for (auto& [id, row] : model_) {
      if (id % 5 != 0) continue;
      change_rows_.push_back(ChangeLine("update_preimage", id, row));
      row.value += 1;
      row.text += "_u";
      change_rows_.push_back(ChangeLine("update_postimage", id, row));
      ++changes_.update_preimage;
      ++changes_.update_postimage;
    }

    // Not a partition-only predicate: every file keeps some rows, so the rows are rewritten (or
    // marked in deletion vectors) and the change feed gets its delete rows from change files.
    api::RunStatements(session, "DELETE FROM t WHERE id % 7 = 3");
    for (auto it = model_.begin(); it != model_.end();) {
      if (it->first % 7 == 3) {
        change_rows_.push_back(ChangeLine("delete", it->first, it->second));
        it = model_.erase(it);
        ++changes_.deletes;
      } else {
        ++it;
      }
    }

    std::string source;
    Model after_merge = model_;
    for (int64_t id = kMergeFirst; id < kMergeEnd; ++id) {
      int64_t value = id % 3 == 0 ? -1 : id * 100;
      std::string text = "m" + std::to_string(id);
      if (!source.empty()) source += ", ";
      source += "(" + std::to_string(id) + ", " + std::to_string(id % 4) + ", " +
                std::to_string(value) + ", '" + text + "')";
      auto target = model_.find(id);
      ModelRow merged{id % 4, value, text};
      if (target == model_.end()) {
        after_merge[id] = merged;
        change_rows_.push_back(ChangeLine("insert", id, merged));
        ++changes_.inserts;
      } else if (value < 0) {
        change_rows_.push_back(ChangeLine("delete", id, target->second));
        after_merge.erase(id);
        ++changes_.deletes;
      } else {
        change_rows_.push_back(ChangeLine("update_preimage", id, target->second));
        change_rows_.push_back(ChangeLine("update_postimage", id, merged));
        after_merge[id] = merged;
        ++changes_.update_preimage;
        ++changes_.update_postimage;
      }
    }
    api::RunStatements(session, "MERGE INTO t USING (VALUES " + source +
                                    ") AS src(id, grp, v, s) ON t.id = src.id "
                                    "WHEN MATCHED AND src.v < 0 THEN DELETE "
                                    "WHEN MATCHED THEN UPDATE SET v = src.v, s = src.s "
                                    "WHEN NOT MATCHED THEN INSERT (id, grp, v, s) VALUES "
                                    "(src.id, src.grp, src.v, src.s)");
    model_ = std::move(after_merge);

    silt_rows_ = Lines(FormatCsv(
        api::RunStatements(session, "SELECT id, grp, v, s FROM t ORDER BY id").batches(),
        /*header=*/false));
  }

  std::vector<std::string> ExpectedRows(bool with_group) const {
    std::vector<std::string> rows;
    for (const auto& [id, row] : model_) rows.push_back(RowLine(id, row, with_group));
    return rows;
  }

  test::TempDir directory_;
  std::string root_;
  // Where the table is, and the session settings that reach it.
  std::shared_ptr<io::FileSystem> fs_;
  std::vector<std::pair<std::string, std::string>> settings_;
  Model model_;
  ChangeCounts changes_;
  // Every row the change feed must hold for the UPDATE, DELETE and MERGE (inserts of the plain
  // INSERTs come from their add actions, not from change files).
  std::vector<std::string> change_rows_;
  std::vector<std::string> silt_rows_;
};

TEST_P(DmlInteropTest, IndependentReadersSeeTheStatementsResult) {
  const Variant& variant = GetParam();
  ASSERT_NO_FATAL_FAILURE(RunStatements());
  ASSERT_GT(changes_.update_preimage, 0);
  ASSERT_GT(changes_.deletes, 0);
  ASSERT_GT(changes_.inserts, 0);

  // 1. silt's own query.
  EXPECT_EQ(silt_rows_, ExpectedRows(/*with_group=*/true));

  // 2. The compatibility reader: a fresh snapshot of the log and a plain scan.
  auto fs = fs_;
  auto snapshot = log::Snapshot::Load(fs, root_);
  log::ScanOptions whole_table;
  whole_table.columns = {"id", "grp", "v", "s"};
  std::vector<std::string> scanned =
      Lines(FormatCsv(log::TableScan::Make(snapshot, whole_table)->Read(), /*header=*/false));
  EXPECT_EQ(Sorted(scanned), Sorted(ExpectedRows(/*with_group=*/true)));

  // 3. DuckDB reads every live data file. Partition values live in the log, not in the files, so
  // both sides compare the stored columns only.
  log::ScanOptions stored_columns;
  stored_columns.columns = {"id", "v", "s"};
  auto file_scan = log::TableScan::Make(snapshot, stored_columns);
  std::string local_root = LocalRoot();
  std::vector<std::string> paths;  // where DuckDB reads each live file
  std::string path_list;
  for (const log::AddFile& file : snapshot->files()) {
    paths.push_back(local_root + snapshot->ResolvePath(file.path).substr(root_.size()));
    path_list += (path_list.empty() ? "" : ", ") + test::SqlQuote(paths.back());
  }
  ASSERT_GT(paths.size(), 1u);
  std::string duckdb_csv = test::RunDuckDb(
      {"SELECT filename, file_row_number, id, v, s FROM read_parquet([" + path_list +
       "], filename = true, file_row_number = true, hive_partitioning = false) "
       "ORDER BY filename, file_row_number"});
  // path -> (physical row position, "id,v,s")
  std::map<std::string, std::vector<std::pair<uint64_t, std::string>>> duckdb_rows;
  for (const std::string& line : DuckDbRows(duckdb_csv)) {
    std::vector<std::string> fields = Split(line);
    ASSERT_EQ(fields.size(), 5u) << line;
    duckdb_rows[fields[0]].emplace_back(std::stoull(fields[1]),
                                        fields[2] + "," + fields[3] + "," + fields[4]);
  }
  // DuckDB was given the same paths it reports back, so every file is found.
  ASSERT_EQ(duckdb_rows.size(), paths.size());
  for (const std::string& path : paths) ASSERT_EQ(duckdb_rows.count(path), 1u) << path;
  size_t physical_rows = 0;
  for (const auto& [path, rows] : duckdb_rows) physical_rows += rows.size();
  int files_with_deletion_vector = 0;
  for (size_t i = 0; i < paths.size(); ++i) {
    const log::AddFile& file = snapshot->files()[i];
    std::vector<std::string> silt_file_rows =
        Lines(FormatCsv(file_scan->ReadFile(file), /*header=*/false));
    std::vector<std::string> duckdb_live_rows;
    if (file.deletion_vector.has_value()) {
      ++files_with_deletion_vector;
      log::DeletedRows deleted = log::LoadDeletionVector(*fs, root_, *file.deletion_vector);
      for (const auto& [position, row] : duckdb_rows[paths[i]]) {
        if (!deleted.Contains(position)) duckdb_live_rows.push_back(row);
      }
    } else {
      for (const auto& entry : duckdb_rows[paths[i]]) duckdb_live_rows.push_back(entry.second);
    }
    EXPECT_EQ(Sorted(duckdb_live_rows), Sorted(silt_file_rows)) << paths[i];
  }
  // With deletion vectors on, the DELETE and the MERGE mark rows instead of rewriting files.
  // Rows marked in deletion vectors stay in the files; without them, files hold live rows only.
  if (variant.deletion_vectors) {
    EXPECT_GT(files_with_deletion_vector, 0);
    EXPECT_GT(physical_rows, model_.size());
  } else {
    EXPECT_EQ(files_with_deletion_vector, 0);
    EXPECT_EQ(physical_rows, model_.size());
  }

  // 4. The change-data files, read by DuckDB.
  std::string change_glob = test::SqlQuote(local_root + "/_change_data/**/*.parquet");
  if (variant.change_data) {
    std::vector<std::string> change_rows = DuckDbRows(test::RunDuckDb(
        {"SELECT _change_type, id, v, s FROM read_parquet(" + change_glob +
         ", hive_partitioning = false)"}));
    std::map<std::string, int64_t> counts;
    for (const std::string& line : change_rows) ++counts[line.substr(0, line.find(','))];
    std::vector<std::string> actual_counts;
    for (const auto& [change_type, count] : counts) {
      actual_counts.push_back(change_type + "," + std::to_string(count));
    }
    std::vector<std::string> expected_counts = {
        "delete," + std::to_string(changes_.deletes),
        "insert," + std::to_string(changes_.inserts),
        "update_postimage," + std::to_string(changes_.update_postimage),
        "update_preimage," + std::to_string(changes_.update_preimage)};
    EXPECT_EQ(actual_counts, expected_counts);
    EXPECT_EQ(Sorted(change_rows), Sorted(change_rows_));
  } else {
    EXPECT_TRUE(fs->List(root_ + "/_change_data", "", /*recursive=*/true).empty());
  }
}

INSTANTIATE_TEST_SUITE_P(AllTableKinds, DmlInteropTest, ::testing::ValuesIn(AllVariants()),
                         VariantName);

}  // namespace
}  // namespace silt
