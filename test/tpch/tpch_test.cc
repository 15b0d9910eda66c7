// TPC-H's 22 queries (test/tpch/queries) on tables from silt's TPC-H generator, run in silt on
// the Delta tables and in DuckDB on the same Parquet data files, compared row by row: in order
// where the query orders, exact where both print a decimal of one scale, and otherwise within a
// relative 1e-9 plus half a unit of silt's decimal scale (Spark's average of a decimal is a
// decimal rounded to 6 places where DuckDB's is a double). The generator's own checks come
// first: cardinalities, value domains and determinism. SILT_TPCH_DATA=DIR runs the queries on
// tables silt-tpch-gen wrote into DIR instead (any scale factor).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "silt/api/session_internal.h"
#include "silt/error.h"
#include "silt/io/file_system.h"
#include "silt/session.h"
#include "silt/vector/batch.h"
#include "support/duckdb_peer.h"
#include "support/temp_dir.h"
#include "tools/tpch/tpch_generator.h"

namespace silt {
namespace {

constexpr double kScaleFactor = 0.01;

std::string ReadQuery(int number) {
  char name[16];
  std::snprintf(name, sizeof(name), "q%02d.sql", number);
  std::ifstream in(std::string(SILT_TPCH_QUERY_DIR) + "/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// One row of text fields; `null` marks NULLs.
struct TextRow {
  std::vector<std::string> fields;
  std::vector<bool> null;
};

// RFC 4180 lines as the DuckDB peer prints them (NULL is an unquoted empty field).
std::vector<TextRow> ParseCsv(const std::string& text, bool skip_header) {
  std::vector<TextRow> rows;
  size_t i = 0;
  while (i < text.size()) {
    TextRow row;
    while (true) {
      std::string field;
      bool quoted = false;
      if (i < text.size() && text[i] == '"') {
        quoted = true;
        ++i;
        while (i < text.size()) {
          if (text[i] == '"') {
            if (i + 1 < text.size() && text[i + 1] == '"') {
              field += '"';
              i += 2;
              continue;
            }
            ++i;
            break;
          }
          field += text[i++];
        }
      }
      while (i < text.size() && text[i] != ',' && text[i] != '\n') field += text[i++];
      row.null.push_back(!quoted && field.empty());
      row.fields.push_back(std::move(field));
      if (i < text.size() && text[i] == ',') {
        ++i;
        continue;
      }
      ++i;  // the line end
      break;
    }
    rows.push_back(std::move(row));
  }
  if (skip_header && !rows.empty()) rows.erase(rows.begin());
  return rows;
}

std::vector<TextRow> SiltRows(const StatementOutput& output) {
  std::vector<TextRow> rows;
  for (const Batch& batch : output.batches()) {
    for (int64_t r = 0; r < batch.num_rows(); ++r) {
      TextRow row;
      for (const VectorPtr& column : batch.columns()) {
        bool null = column->IsNull(r);
        row.null.push_back(null);
        row.fields.push_back(null ? "" : column->ValueToString(r));
      }
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

int FractionDigits(const std::string& text) {
  size_t point = text.find('.');
  if (point == std::string::npos || text.find_first_of("eE") != std::string::npos) return -1;
  return static_cast<int>(text.size() - point - 1);
}

// Whether silt's field (of `type`) and DuckDB's say the same.
bool FieldsAgree(const DataType& type, const std::string& silt, const std::string& duckdb) {
  if (silt == duckdb) return true;
  bool decimal = type.id() == TypeId::kDecimal;
  bool floating = type.id() == TypeId::kDouble || type.id() == TypeId::kFloat;
  if (!decimal && !floating) return false;
  // Two decimals of one scale are exact.
  if (decimal && FractionDigits(duckdb) == type.scale()) return false;
  char* end = nullptr;
  long double a = std::strtold(silt.c_str(), &end);
  if (end == silt.c_str() || *end != '\0') return false;
  long double b = std::strtold(duckdb.c_str(), &end);
  if (end == duckdb.c_str() || *end != '\0') return false;
  long double tolerance = 1e-9L * std::max(std::fabs(a), std::fabs(b));
  if (decimal) tolerance += 0.5L * std::pow(10.0L, -type.scale());
  return std::fabs(a - b) <= tolerance;
}

std::string Describe(const TextRow& row) {
  std::string text;
  for (size_t i = 0; i < row.fields.size(); ++i) {
    if (i > 0) text += " | ";
    text += row.null[i] ? "NULL" : row.fields[i];
  }
  return text;
}

// DuckDB's view of a Delta table: its data files (each table is one commit of adds).
std::string DuckDbView(io::FileSystem& fs, const std::string& name, const std::string& root) {
  std::string files;
  for (const io::FileInfo& info : fs.List(root, "", /*recursive=*/true)) {
    if (info.path.find("/_delta_log/") != std::string::npos || !info.path.ends_with(".parquet")) {
      continue;
    }
    if (!files.empty()) files += ", ";
    files += test::SqlQuote(info.path);
  }
  return "CREATE VIEW " + name + " AS SELECT * FROM read_parquet([" + files + "])";
}

class TpchEnvironment {
 public:
  /// Generates scale factor 0.01 into a temporary folder, or, given `folder`, uses the tables
  /// already there.
  explicit TpchEnvironment(std::string folder = "") : folder_(std::move(folder)) {
    if (folder_.empty()) {
      tpch::GenerateOptions options;
      options.scale_factor = kScaleFactor;
      tables_ = tpch::Generate(fs_, warehouse(), options);
    } else {
      for (const std::string& name : tpch::TableNames()) {
        tables_.push_back(tpch::GeneratedTable{name, folder_ + "/" + name, 0, 0});
      }
    }
    for (const auto& table : tables_) views_.push_back(DuckDbView(*fs_, table.name, table.path));
  }
  std::string warehouse() const {
    return folder_.empty() ? directory_.Child("warehouse") : folder_;
  }
  const std::vector<tpch::GeneratedTable>& tables() const { return tables_; }
  const std::vector<std::string>& views() const { return views_; }
  io::FileSystem& fs() { return *fs_; }

 private:
  std::string folder_;
  test::TempDir directory_;
  std::shared_ptr<io::FileSystem> fs_ = io::MakeLocalFileSystem();
  std::vector<tpch::GeneratedTable> tables_;
  std::vector<std::string> views_;
};

TpchEnvironment& Environment() {
  // Generated once for the whole binary, removed at exit.
  static TpchEnvironment environment;
  return environment;
}

// The queries' tables: $SILT_TPCH_DATA (tables silt-tpch-gen wrote, e.g. at scale factor 1,
// to compare the answers at that scale) or the generated scale factor 0.01.
TpchEnvironment& QueryEnvironment() {
  static const char* data = std::getenv("SILT_TPCH_DATA");
  if (data == nullptr || *data == '\0') return Environment();
  static TpchEnvironment given(data);
  return given;
}

StatementOutput RunSilt(const std::string& warehouse, const std::string& sql) {
  SessionOptions options;
  options.warehouse = warehouse;
  Session session(options);
  return api::RunStatements(session, sql);
}

std::string Scalar(const std::string& warehouse, const std::string& sql) {
  StatementOutput output = RunSilt(warehouse, sql);
  std::vector<TextRow> rows = SiltRows(output);
  if (rows.size() != 1 || rows[0].fields.size() != 1) return "<not one value>";
  return rows[0].fields[0];
}

TEST(TpchGeneratorTest, WritesTheSpecificationsCardinalities) {
  TpchEnvironment& environment = Environment();
  std::vector<std::pair<std::string, int64_t>> counts;
  for (const auto& table : environment.tables()) counts.emplace_back(table.name, table.rows);
  ASSERT_EQ(counts.size(), 8u);
  EXPECT_EQ(counts[0], std::make_pair(std::string("region"), int64_t{5}));
  EXPECT_EQ(counts[1], std::make_pair(std::string("nation"), int64_t{25}));
  EXPECT_EQ(counts[2], std::make_pair(std::string("supplier"), int64_t{100}));
  EXPECT_EQ(counts[3], std::make_pair(std::string("part"), int64_t{2000}));
  EXPECT_EQ(counts[4], std::make_pair(std::string("partsupp"), int64_t{8000}));
  EXPECT_EQ(counts[5], std::make_pair(std::string("customer"), int64_t{1500}));
  EXPECT_EQ(counts[6], std::make_pair(std::string("orders"), int64_t{15000}));
  // One to seven lines per order, four on average.
  EXPECT_EQ(counts[7].first, "lineitem");
  EXPECT_GT(counts[7].second, 15000 * 3.9);
  EXPECT_LT(counts[7].second, 15000 * 4.1);
  const std::string warehouse = environment.warehouse();
  EXPECT_EQ(Scalar(warehouse, "SELECT count(*) FROM lineitem"), std::to_string(counts[7].second));
}

TEST(TpchGeneratorTest, KeysReferToExistingRows) {
  const std::string warehouse = Environment().warehouse();
  // Every line's (part, supplier) is one of the part's four partsupp rows.
  EXPECT_EQ(Scalar(warehouse,
                   "SELECT count(*) FROM lineitem LEFT ANTI JOIN partsupp "
                   "ON l_partkey = ps_partkey AND l_suppkey = ps_suppkey"),
            "0");
  EXPECT_EQ(Scalar(warehouse,
                   "SELECT count(*) FROM (SELECT ps_partkey, ps_suppkey FROM partsupp "
                   "GROUP BY ps_partkey, ps_suppkey HAVING count(*) > 1)"),
            "0");
  EXPECT_EQ(Scalar(warehouse,
                   "SELECT count(*) FROM orders LEFT ANTI JOIN customer "
                   "ON o_custkey = c_custkey"),
            "0");
  // Customers whose key is a multiple of three place no orders; order keys use the first 8 of
  // every 32 (the 15,000th order is 1874 * 32 + 8).
  EXPECT_EQ(Scalar(warehouse, "SELECT count(*) FROM orders WHERE o_custkey % 3 = 0"), "0");
  EXPECT_EQ(Scalar(warehouse, "SELECT max(o_orderkey) FROM orders"), "59976");
  // An order's total and status follow from its lines.
  EXPECT_EQ(Scalar(warehouse,
                   "SELECT count(*) FROM orders JOIN (SELECT l_orderkey, "
                   "sum(round(l_extendedprice * (1 + l_tax) * (1 - l_discount), 2)) AS total, "
                   "CASE WHEN min(l_linestatus) = 'F' AND max(l_linestatus) = 'F' THEN 'F' "
                   "WHEN min(l_linestatus) = 'O' THEN 'O' ELSE 'P' END AS status "
                   "FROM lineitem GROUP BY l_orderkey) ON o_orderkey = l_orderkey "
                   "WHERE o_totalprice = total AND o_orderstatus = status"),
            "15000");
}

TEST(TpchGeneratorTest, ValuesComeFromTheSpecificationsDomains) {
  const std::string warehouse = Environment().warehouse();
  EXPECT_EQ(Scalar(warehouse,
                   "SELECT count(DISTINCT p_brand) FROM part WHERE p_brand RLIKE "
                   "'^Brand#[1-5][1-5]$'"),
            "25");
  EXPECT_EQ(Scalar(warehouse, "SELECT count(DISTINCT p_type) FROM part"), "150");
  EXPECT_EQ(Scalar(warehouse, "SELECT count(DISTINCT p_container) FROM part"), "40");
  EXPECT_EQ(Scalar(warehouse, "SELECT count(*) FROM part WHERE p_name LIKE '%green%'") == "0",
            false);
  EXPECT_EQ(Scalar(warehouse, "SELECT count(*) FROM part WHERE size(split(p_name, ' ')) = 5"),
            "2000");
  EXPECT_EQ(Scalar(warehouse, "SELECT count(DISTINCT c_mktsegment) FROM customer"), "5");
  EXPECT_EQ(Scalar(warehouse, "SELECT count(DISTINCT o_orderpriority) FROM orders"), "5");
  EXPECT_EQ(Scalar(warehouse, "SELECT count(DISTINCT l_shipmode) FROM lineitem"), "7");
  EXPECT_EQ(Scalar(warehouse,
                   "SELECT count(*) FROM customer "
                   "WHERE CAST(substring(c_phone, 1, 2) AS INT) <> c_nationkey + 10"),
            "0");
  EXPECT_EQ(Scalar(warehouse,
                   "SELECT min(o_orderdate) >= DATE'1992-01-01' AND "
                   "max(l_receiptdate) <= DATE'1998-12-31' FROM orders, lineitem "
                   "WHERE o_orderkey = l_orderkey"),
            "true");
  EXPECT_EQ(Scalar(warehouse,
                   "SELECT count(*) FROM lineitem WHERE l_shipdate > DATE'1995-06-17' "
                   "AND l_linestatus <> 'O'"),
            "0");
  EXPECT_EQ(Scalar(warehouse,
                   "SELECT count(*) FROM lineitem WHERE l_discount NOT BETWEEN 0 AND "
                   "0.1 OR l_tax NOT BETWEEN 0 AND 0.08 OR l_quantity NOT BETWEEN 1 AND 50"),
            "0");
  EXPECT_EQ(Scalar(warehouse,
                   "SELECT count(*) > 0 FROM supplier "
                   "WHERE s_comment LIKE '%Customer%Complaints%'"),
            "true");
  EXPECT_EQ(Scalar(warehouse,
                   "SELECT count(*) > 0 FROM orders "
                   "WHERE o_comment LIKE '%special%requests%'"),
            "true");
}

TEST(TpchGeneratorTest, SameSeedSameTablesOtherSeedOthers) {
  test::TempDir directory;
  auto fs = io::MakeLocalFileSystem();
  tpch::GenerateOptions options;
  options.scale_factor = kScaleFactor;
  tpch::Generate(fs, directory.Child("same"), options);
  options.seed = 7;
  tpch::Generate(fs, directory.Child("other"), options);
  const std::string checksum =
      "SELECT sum(hash(l_orderkey, l_partkey, l_suppkey, l_quantity, l_shipdate, l_comment)) "
      "FROM lineitem";
  std::string original = Scalar(Environment().warehouse(), checksum);
  EXPECT_EQ(Scalar(directory.Child("same"), checksum), original);
  EXPECT_NE(Scalar(directory.Child("other"), checksum), original);
}

TEST(TpchGeneratorTest, RefusesScaleFactorsOutsideItsRange) {
  test::TempDir directory;
  tpch::GenerateOptions options;
  options.scale_factor = 0;
  try {
    tpch::Generate(io::MakeLocalFileSystem(), directory.path(), options);
    FAIL() << "scale factor 0 was accepted";
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.error_class()), "INVALID_PARAMETER_VALUE");
  }
}

class TpchQueryTest : public ::testing::TestWithParam<int> {};

TEST_P(TpchQueryTest, MatchesDuckDb) {
  TpchEnvironment& environment = QueryEnvironment();
  const std::string sql = ReadQuery(GetParam());
  ASSERT_FALSE(sql.empty()) << "no query text";

  StatementOutput output = RunSilt(environment.warehouse(), sql);
  std::vector<TextRow> silt_rows = SiltRows(output);
  std::vector<std::string> statements = environment.views();
  statements.push_back(sql);
  std::vector<TextRow> duckdb_rows = ParseCsv(test::RunDuckDb(statements, "csv"), true);

  // Every query finds rows in the generated data.
  ASSERT_FALSE(silt_rows.empty());
  ASSERT_EQ(silt_rows.size(), duckdb_rows.size());
  const bool ordered = sql.find("\norder by") != std::string::npos;
  auto less = [](const TextRow& a, const TextRow& b) { return a.fields < b.fields; };
  if (!ordered) {
    std::sort(silt_rows.begin(), silt_rows.end(), less);
    std::sort(duckdb_rows.begin(), duckdb_rows.end(), less);
  }
  const Schema& schema = *output.schema();
  for (size_t r = 0; r < silt_rows.size(); ++r) {
    const TextRow& silt = silt_rows[r];
    const TextRow& duckdb = duckdb_rows[r];
    ASSERT_EQ(silt.fields.size(), duckdb.fields.size());
    bool agree = true;
    for (size_t c = 0; c < silt.fields.size(); ++c) {
      bool both_null = silt.null[c] && duckdb.null[c];
      if (!both_null &&
          (silt.null[c] != duckdb.null[c] ||
           !FieldsAgree(*schema.fields()[c].type, silt.fields[c], duckdb.fields[c]))) {
        agree = false;
      }
    }
    ASSERT_TRUE(agree) << "row " << r << "\n  silt:   " << Describe(silt)
                       << "\n  duckdb: " << Describe(duckdb);
  }
}

INSTANTIATE_TEST_SUITE_P(Queries, TpchQueryTest, ::testing::Range(1, 23),
                         [](const ::testing::TestParamInfo<int>& info) {
                           char name[8];
                           std::snprintf(name, sizeof(name), "Q%02d", info.param);
                           return std::string(name);
                         });

}  // namespace
}  // namespace silt
