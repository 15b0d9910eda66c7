// Reads the change data feed of every golden CDF table (test/data/golden, see its README.md)
// through log::ChangeFeed and compares it with each expected/cdf_from_vA_to_vB|latest.csv
// (columns + _change_type + _commit_version; order ignored; an empty field is NULL), plus the
// negative cases and the in-commit-timestamp table the README names. The expectations are met
// on disk and with the tables copied byte for byte to the S3 test server and to Azurite.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <set>
#include <sstream>

#include "silt/error.h"
#include "silt/io/file_system.h"
#include "silt/io/path.h"
#include "silt/io/storage_file_system.h"
#include "silt/log/change_feed.h"
#include "silt/log/log_segment.h"
#include "support/azurite_test_server.h"
#include "support/duckdb_peer.h"
#include "support/s3_test_server.h"

namespace silt::log {
namespace {

std::string GoldenDir() { return silt::test::TestDataDir() + "/golden"; }

bool GoldenAvailable() {
  return io::MakeLocalFileSystem()->Stat(GoldenDir() + "/tables.csv").has_value();
}

// Sorted CSV lines of the feed's rows over `columns`.
std::vector<std::string> FeedRows(const ChangeFeed& feed, const std::vector<std::string>& columns) {
  std::vector<int> indexes;
  for (const auto& name : columns) {
    int index = feed.schema()->FieldIndex(name, /*case_sensitive=*/false);
    if (index < 0) throw std::runtime_error("column " + name + " is not in the change feed");
    indexes.push_back(index);
  }
  std::vector<std::string> rows;
  for (const Batch& batch : feed.MakeReader(indexes)->ReadAll()) {
    for (int64_t r = 0; r < batch.num_rows(); ++r) {
      std::string row;
      for (size_t c = 0; c < batch.num_columns(); ++c) {
        if (c > 0) row += ",";
        if (!batch.column(c)->IsNull(r)) row += batch.column(c)->ValueToString(r);
      }
      rows.push_back(std::move(row));
    }
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

struct Expectation {
  std::string table_root;
  std::string csv_path;
  int64_t start = 0;
  std::optional<int64_t> end;  // nullopt: latest
};

// Every expected/cdf_*.csv under the golden folder.
std::vector<Expectation> FindExpectations() {
  auto fs = io::MakeLocalFileSystem();
  std::vector<Expectation> result;
  static const std::regex kName(R"(cdf_from_v(\d+)_to_(v(\d+)|latest)\.csv)");
  for (const io::FileInfo& file : fs->List(GoldenDir(), "", /*recursive=*/true)) {
    std::string base = file.path.substr(file.path.find_last_of('/') + 1);
    std::smatch match;
    if (!std::regex_match(base, match, kName)) continue;
    std::string expected_dir = file.path.substr(0, file.path.find_last_of('/'));
    if (expected_dir.size() < 9 || expected_dir.substr(expected_dir.size() - 9) != "/expected") {
      continue;
    }
    Expectation expectation;
    expectation.table_root = expected_dir.substr(0, expected_dir.size() - 9) + "/delta";
    expectation.csv_path = file.path;
    expectation.start = std::stoll(match[1].str());
    if (match[3].matched) expectation.end = std::stoll(match[3].str());
    result.push_back(std::move(expectation));
  }
  return result;
}

// Compares the feed of the table at `table_root` on `store` with the expectation's CSV.
std::string CompareWithCsv(const Expectation& expectation, std::shared_ptr<io::FileSystem> store,
                           const std::string& table_root) {
  auto fs = io::MakeLocalFileSystem();
  std::istringstream lines(fs->ReadFile(expectation.csv_path));
  std::string header;
  std::getline(lines, header);
  if (!header.empty() && header.back() == '\r') header.pop_back();
  std::vector<std::string> columns;
  std::stringstream header_stream(header);
  for (std::string column; std::getline(header_stream, column, ',');) columns.push_back(column);
  std::vector<std::string> expected;
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) expected.push_back(line);
  }
  std::sort(expected.begin(), expected.end());

  ChangeFeedOptions options;
  options.start = ChangeFeedBound::Version(expectation.start);
  if (expectation.end) options.end = ChangeFeedBound::Version(*expectation.end);
  auto feed = ChangeFeed::Make(store, table_root, options);
  std::vector<std::string> actual = FeedRows(*feed, columns);
  if (actual == expected) return "";
  std::vector<std::string> missing;
  std::vector<std::string> extra;
  std::set_difference(expected.begin(), expected.end(), actual.begin(), actual.end(),
                      std::back_inserter(missing));
  std::set_difference(actual.begin(), actual.end(), expected.begin(), expected.end(),
                      std::back_inserter(extra));
  std::string text = "missing:";
  for (const auto& row : missing) text += " [" + row + "]";
  text += " extra:";
  for (const auto& row : extra) text += " [" + row + "]";
  return text;
}

enum class Store { kDisk, kS3, kAzure };

class DeltaCdfGoldenStoreTest : public ::testing::TestWithParam<Store> {};

TEST_P(DeltaCdfGoldenStoreTest, EveryCdfExpectationIsMet) {
  ASSERT_TRUE(GoldenAvailable()) << "golden tables not found under SILT_TEST_DATA_DIR";
  std::vector<Expectation> expectations = FindExpectations();
  // cdf-table, cdf-column-mapping-name-mode, cdf-table-partitioned, cdf-table-with-dv,
  // cdf-table-simple (4 ranges), cdf-table-with-cdc-and-dvs.
  EXPECT_GE(expectations.size(), 9u);
  // The store and where the golden folder's tables are on it.
  auto local = io::MakeLocalFileSystem();
  std::shared_ptr<io::FileSystem> store = local;
  std::string root = GoldenDir();
  std::string why_not;
  if (GetParam() == Store::kS3) {
    test::S3TestServer* server = test::S3TestServer::Shared(&why_not);
    if (server == nullptr) GTEST_SKIP() << "no S3 test server: " << why_not;
    store = io::MakeStorageFileSystem(server->Options());
    root = server->NewFolder("golden-cdf");
  } else if (GetParam() == Store::kAzure) {
    test::AzuriteTestServer* server = test::AzuriteTestServer::Shared(&why_not);
    if (server == nullptr) GTEST_SKIP() << "no Azurite: " << why_not;
    store = io::MakeStorageFileSystem(server->Options());
    root = server->NewFolder("golden-cdf");
  }
  std::set<std::string> copied;
  for (const Expectation& expectation : expectations) {
    if (store == local || !copied.insert(expectation.table_root).second) continue;
    for (const io::FileInfo& file : local->List(expectation.table_root, "", true)) {
      store->WriteFile(root + file.path.substr(GoldenDir().size()), local->ReadFile(file.path));
    }
  }
  for (const Expectation& expectation : expectations) {
    std::string name = expectation.csv_path.substr(GoldenDir().size() + 1);
    std::string difference;
    try {
      difference = CompareWithCsv(expectation, store,
                                  root + expectation.table_root.substr(GoldenDir().size()));
    } catch (const std::exception& error) {
      difference = std::string("error: ") + error.what();
    }
    std::printf("%s %s\n", difference.empty() ? "PASS" : "FAIL", name.c_str());
    EXPECT_EQ(difference, "") << name;
  }
}

INSTANTIATE_TEST_SUITE_P(Stores, DeltaCdfGoldenStoreTest,
                         ::testing::Values(Store::kDisk, Store::kS3, Store::kAzure),
                         [](const ::testing::TestParamInfo<Store>& info) {
                           return std::string(info.param == Store::kS3      ? "S3"
                                              : info.param == Store::kAzure ? "Azure"
                                                                            : "Disk");
                         });

TEST(DeltaCdfGoldenTest, SimpleTableRangeErrors) {
  ASSERT_TRUE(GoldenAvailable()) << "golden tables not found under SILT_TEST_DATA_DIR";
  auto fs = io::MakeLocalFileSystem();
  std::string root = GoldenDir() + "/delta-kernel-rs/cdf-table-simple/delta";
  auto error_class = [&](int64_t start, std::optional<int64_t> end) -> std::string {
    ChangeFeedOptions options;
    options.start = ChangeFeedBound::Version(start);
    if (end) options.end = ChangeFeedBound::Version(*end);
    try {
      ChangeFeed::Make(fs, root, options);
    } catch (const Error& error) {
      return std::string(error.error_class());
    }
    return "";
  };
  EXPECT_EQ(error_class(2, 1), "DELTA_INVALID_CDC_RANGE");
  EXPECT_EQ(error_class(3, std::nullopt), "DELTA_CDC_START_VERSION_AFTER_LATEST");
  EXPECT_EQ(error_class(0, 2), "");
}

// cdc_ict_table: commit timestamps come from inCommitTimestamp (version 1's is deliberately
// earlier than its commitInfo.timestamp), not from file times.
TEST(DeltaCdfGoldenTest, InCommitTimestampsAreTheCommitTimestamps) {
  ASSERT_TRUE(GoldenAvailable()) << "golden tables not found under SILT_TEST_DATA_DIR";
  auto fs = io::MakeLocalFileSystem();
  std::string root = GoldenDir() + "/delta-rs/cdc_ict_table/delta";
  ChangeFeedOptions options;
  options.start = ChangeFeedBound::Version(0);
  auto feed = ChangeFeed::Make(fs, root, options);
  ASSERT_FALSE(feed->files().empty());
  int64_t checked = 0;
  for (int64_t version = feed->start_version(); version <= feed->end_version(); ++version) {
    std::string path = root + "/_delta_log/" + FormatVersion(version) + ".json";
    std::optional<int64_t> ict;
    for (const Action& action : ParseActions(fs->ReadFile(path), path)) {
      if (const auto* info = std::get_if<CommitInfo>(&action)) ict = info->in_commit_timestamp;
    }
    ASSERT_TRUE(ict.has_value()) << version;
    for (const ChangeFile& file : feed->files()) {
      if (file.version != version) continue;
      EXPECT_EQ(file.timestamp_ms, *ict) << version;
      ++checked;
    }
  }
  EXPECT_GT(checked, 0);
  // Every change row carries its commit's timestamp.
  int timestamp_column = static_cast<int>(feed->schema()->num_fields()) - 1;
  int version_column = timestamp_column - 1;
  for (const Batch& batch : feed->MakeReader({version_column, timestamp_column})->ReadAll()) {
    for (int64_t r = 0; r < batch.num_rows(); ++r) {
      int64_t version = batch.column(0)->values<int64_t>()[r];
      auto file = std::find_if(feed->files().begin(), feed->files().end(),
                               [&](const ChangeFile& f) { return f.version == version; });
      ASSERT_NE(file, feed->files().end());
      EXPECT_EQ(batch.column(1)->values<int64_t>()[r], file->timestamp_ms * 1000);
    }
  }
}

}  // namespace
}  // namespace silt::log
