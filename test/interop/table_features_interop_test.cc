// Tables using type widening and row tracking, read by DuckDB straight from their data files and
// checked against the log: the values silt reads (old files widened to the new type) are the
// values DuckDB reads cast to that type, and every row id silt reports is its file's baseRowId
// plus the row's position as DuckDB numbers it. After DROP FEATURE of deletion vectors, type
// widening and column mapping the live files alone hold the table, as any Parquet reader sees it;
// under column mapping every nested struct field is stored under its physical name and id.

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "silt/api/session_internal.h"
#include "silt/io/file_system.h"
#include "silt/log/snapshot.h"
#include "silt/log/table_features.h"
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

// DuckDB's CSV output starts with a header line.
std::vector<std::string> DuckDbRows(const std::string& csv) {
  std::vector<std::string> lines = Lines(csv);
  if (!lines.empty()) lines.erase(lines.begin());
  std::sort(lines.begin(), lines.end());
  return lines;
}

std::vector<std::string> SiltRows(Session& session, const std::string& query) {
  std::vector<std::string> lines =
      Lines(FormatCsv(api::RunStatements(session, query).batches(), /*header=*/false));
  std::sort(lines.begin(), lines.end());
  return lines;
}

class TableFeaturesInteropTest : public ::testing::Test {
 protected:
  Session MakeSession() {
    SessionOptions options;
    options.warehouse = directory_.Child("warehouse");
    return Session(options);
  }

  std::string PathList(const log::Snapshot& snapshot) {
    std::string list;
    for (const log::AddFile& file : snapshot.files()) {
      list += (list.empty() ? "" : ", ") + test::SqlQuote(snapshot.ResolvePath(file.path));
    }
    return list;
  }

  test::TempDir directory_;
};

TEST_F(TableFeaturesInteropTest, WidenedTableFilesReadAsTheNewTypes) {
  std::string root = directory_.Child("widened");
  Session session = MakeSession();
  api::RunStatements(session, "CREATE TABLE w (id TINYINT, amount DECIMAL(5,2), d DATE) USING delta "
                              "LOCATION " + test::SqlQuote(root) +
                              " TBLPROPERTIES ('delta.enableTypeWidening' = 'true')");
  api::RunStatements(session, "INSERT INTO w VALUES (1, 123.45, DATE'2024-01-31'), (2, -0.5, NULL)");
  api::RunStatements(session, "ALTER TABLE w ALTER COLUMN id TYPE BIGINT");
  api::RunStatements(session, "ALTER TABLE w ALTER COLUMN amount TYPE DECIMAL(12,4)");
  api::RunStatements(session, "ALTER TABLE w ALTER COLUMN d TYPE TIMESTAMP_NTZ");
  api::RunStatements(session, "INSERT INTO w VALUES (5000000000, 12345678.1234, "
                              "TIMESTAMP_NTZ'2024-02-01 10:30:00')");

  auto snapshot = log::Snapshot::Load(io::MakeLocalFileSystem(), root);
  ASSERT_EQ(snapshot->files().size(), 2u);
  // The file written before the changes still stores the narrow types (amount, d, id); DuckDB
  // reads each file as it is.
  std::vector<std::string> types;
  for (const log::AddFile& file : snapshot->files()) {
    types.push_back(Lines(test::RunDuckDb(
        {"SELECT string_agg(type, '|' ORDER BY name) FROM parquet_schema(" +
         test::SqlQuote(snapshot->ResolvePath(file.path)) + ") WHERE name <> 'schema'"}))[1]);
  }
  std::sort(types.begin(), types.end());
  EXPECT_EQ(types, (std::vector<std::string>{"INT32|INT32|INT32", "INT64|INT64|INT64"}));

  std::vector<std::string> duckdb = DuckDbRows(test::RunDuckDb(
      {"SELECT CAST(id AS BIGINT), CAST(amount AS DECIMAL(12,4)), "
       "strftime(CAST(d AS TIMESTAMP), '%Y-%m-%d %H:%M:%S') FROM read_parquet([" +
       PathList(*snapshot) + "], union_by_name = true)"}));
  std::vector<std::string> silt = SiltRows(
      session, "SELECT id, amount, date_format(d, 'yyyy-MM-dd HH:mm:ss') FROM w");
  EXPECT_EQ(silt, duckdb);
  EXPECT_EQ(silt.size(), 3u);
}

TEST_F(TableFeaturesInteropTest, RowIdsAreBaseRowIdPlusThePhysicalPosition) {
  std::string root = directory_.Child("tracked");
  Session session = MakeSession();
  api::RunStatements(session, "CREATE TABLE r (id BIGINT, v STRING) USING delta LOCATION " +
                                  test::SqlQuote(root) +
                                  " TBLPROPERTIES ('delta.enableRowTracking' = 'true', "
                                  "'delta.enableDeletionVectors' = 'true')");
  for (int batch = 0; batch < 3; ++batch) {
    std::string values;
    for (int i = 0; i < 50; ++i) {
      int id = batch * 50 + i;
      values += (values.empty() ? "(" : ", (") + std::to_string(id) + ", 's" + std::to_string(id) + "')";
    }
    api::RunStatements(session, "INSERT INTO r VALUES " + values);
  }
  api::RunStatements(session, "DELETE FROM r WHERE id % 7 = 0");
  api::RunStatements(session, "UPDATE r SET v = 'u' WHERE id % 11 = 0");

  auto snapshot = log::Snapshot::Load(io::MakeLocalFileSystem(), root);
  // Every live file has row ids and a commit version, below the domain's high water mark.
  auto domain = snapshot->domain_metadata().find("delta.rowTracking");
  ASSERT_NE(domain, snapshot->domain_metadata().end());
  std::map<std::string, int64_t> base_row_ids;
  std::set<int64_t> bases;
  for (const log::AddFile& file : snapshot->files()) {
    ASSERT_TRUE(file.base_row_id.has_value()) << file.path;
    ASSERT_TRUE(file.default_row_commit_version.has_value()) << file.path;
    EXPECT_TRUE(bases.insert(*file.base_row_id).second) << "two files share baseRowId";
    base_row_ids[snapshot->ResolvePath(file.path)] = *file.base_row_id;
  }

  // DuckDB numbers each file's rows; silt's ids are baseRowId + that number. Rows a deletion
  // vector drops are in DuckDB's output only, so each of silt's (id, row id) pairs must be one
  // of DuckDB's.
  std::set<std::string> expected;
  for (const std::string& line : Lines(test::RunDuckDb(
           {"SELECT id, filename, file_row_number FROM read_parquet([" + PathList(*snapshot) +
            "], filename = true, file_row_number = true)"}))) {
    std::vector<std::string> fields;
    std::stringstream stream(line);
    std::string field;
    while (std::getline(stream, field, ',')) fields.push_back(field);
    if (fields.size() != 3 || fields[0] == "id") continue;
    auto base = base_row_ids.find(fields[1]);
    ASSERT_NE(base, base_row_ids.end()) << fields[1];
    expected.insert(fields[0] + "," + std::to_string(base->second + std::stoll(fields[2])));
  }
  std::set<std::string> seen_ids;
  std::vector<std::string> rows = SiltRows(session, "SELECT id, _metadata.row_id FROM r");
  EXPECT_EQ(rows.size(), 150u - 22u);
  for (const std::string& row : rows) {
    std::string row_id = row.substr(row.find(',') + 1);
    EXPECT_EQ(expected.count(row), 1u) << row;
    EXPECT_TRUE(seen_ids.insert(row_id).second) << "row id " << row_id << " twice";
  }
}

TEST_F(TableFeaturesInteropTest, DroppedReaderWriterFeaturesLeavePlainParquet) {
  std::string root = directory_.Child("dropped");
  Session session = MakeSession();
  api::RunStatements(
      session,
      "CREATE TABLE d (id SMALLINT, name STRING, score DOUBLE) USING delta "
      "LOCATION " +
          test::SqlQuote(root) +
          " TBLPROPERTIES ('delta.enableDeletionVectors' = 'true', "
          "'delta.enableTypeWidening' = 'true', 'delta.columnMapping.mode' = 'name')");
  api::RunStatements(session,
                     "INSERT INTO d VALUES (1, 'ann', 1.5), (2, 'bob', 2.5), (3, 'cy', 0.25)");
  api::RunStatements(session, "DELETE FROM d WHERE id = 2");
  api::RunStatements(session, "ALTER TABLE d ALTER COLUMN id TYPE INT");
  api::RunStatements(session, "ALTER TABLE d RENAME COLUMN name TO who");
  api::RunStatements(session, "INSERT INTO d VALUES (70000, 'dee', 4.5)");
  std::vector<std::string> before = SiltRows(session, "SELECT id, who, score FROM d");

  api::RunStatements(session, "ALTER TABLE d DROP FEATURE deletionVectors");
  api::RunStatements(session, "ALTER TABLE d DROP FEATURE typeWidening");
  api::RunStatements(session, "ALTER TABLE d DROP FEATURE columnMapping");

  auto snapshot = log::Snapshot::Load(io::MakeLocalFileSystem(), root);
  for (const log::AddFile& file : snapshot->files()) EXPECT_FALSE(file.deletion_vector.has_value());
  EXPECT_FALSE(log::IsFeatureSupported(snapshot->protocol(), "deletionVectors"));
  EXPECT_FALSE(log::IsFeatureSupported(snapshot->protocol(), "typeWidening"));
  EXPECT_FALSE(log::IsFeatureSupported(snapshot->protocol(), "columnMapping"));
  // Every file names its columns as the table does and stores the table's types.
  for (const log::AddFile& file : snapshot->files()) {
    EXPECT_EQ(
        Lines(test::RunDuckDb({"SELECT string_agg(name || ':' || type, '|' ORDER BY name) FROM "
                               "parquet_schema(" +
                               test::SqlQuote(snapshot->ResolvePath(file.path)) +
                               ") WHERE name <> 'schema'"}))[1],
        "id:INT32|score:DOUBLE|who:BYTE_ARRAY");
  }
  std::vector<std::string> duckdb = DuckDbRows(
      test::RunDuckDb({"SELECT id, who, score FROM read_parquet([" + PathList(*snapshot) + "])"}));
  std::vector<std::string> silt = SiltRows(session, "SELECT id, who, score FROM d");
  EXPECT_EQ(silt, before);
  EXPECT_EQ(silt, duckdb);
  EXPECT_EQ(silt.size(), 3u);
}

TEST_F(TableFeaturesInteropTest, NestedFieldsOfMappedTablesCarryTheirIdsInParquet) {
  std::string root = directory_.Child("nested");
  Session session = MakeSession();
  api::RunStatements(session,
                     "CREATE TABLE n (id INT, s STRUCT<a: INT, b: STRING>, "
                     "arr ARRAY<STRUCT<x: INT>>) USING delta LOCATION " +
                         test::SqlQuote(root) +
                         " TBLPROPERTIES ('delta.columnMapping.mode' = 'id')");
  api::RunStatements(session,
                     "INSERT INTO n VALUES (1, named_struct('a', 2, 'b', 'x'), "
                     "array(named_struct('x', 3), named_struct('x', 4)))");
  auto snapshot = log::Snapshot::Load(io::MakeLocalFileSystem(), root);
  ASSERT_EQ(snapshot->files().size(), 1u);
  std::string file = test::SqlQuote(snapshot->ResolvePath(snapshot->files()[0].path));
  // DuckDB sees every struct field under a physical name with the id the schema gives it.
  std::vector<std::string> ids = Lines(test::RunDuckDb(
      {"SELECT string_agg(CAST(field_id AS VARCHAR), '|' ORDER BY field_id) FROM parquet_schema(" +
       file + ") WHERE field_id IS NOT NULL AND name LIKE 'col-%'"}));
  ASSERT_EQ(ids.size(), 2u);
  EXPECT_EQ(ids[1], "1|2|3|4|5|6");
  // Its values, read by those names, are the table's.
  const Schema& schema = snapshot->schema();
  auto physical = [](const Field& field) {
    std::string name = *field.FindMetadata("delta.columnMapping.physicalName");
    return "\"" + name.substr(1, name.size() - 2) + "\"";
  };
  const Field& s = schema.field(1);
  const Field& arr = schema.field(2);
  std::vector<std::string> duckdb = DuckDbRows(test::RunDuckDb(
      {"SELECT " + physical(schema.field(0)) + ", " + physical(s) + "." +
       physical(s.type->fields()[0]) + ", " + physical(s) + "." + physical(s.type->fields()[1]) +
       ", " + physical(arr) + "[2]." + physical(arr.type->element_type()->fields()[0]) +
       " FROM read_parquet(" + file + ")"}));
  EXPECT_EQ(duckdb, SiltRows(session, "SELECT id, s.a, s.b, arr[1].x FROM n"));
  EXPECT_EQ(duckdb, (std::vector<std::string>{"1,2,x,4"}));
}

}  // namespace
}  // namespace silt
