// Reads Parquet files written by DuckDB (an independent implementation) and compares every value
// of every column with DuckDB's own reading of the same file.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "compat/parquet_canonical_text.h"
#include "silt/io/file_system.h"
#include "silt/parquet/reader.h"
#include "support/duckdb_peer.h"
#include "support/temp_dir.h"

namespace silt::parquet {
namespace {

using test::PeerLeafKind;

StatsLiteral IntLiteral(int64_t value) {
  StatsLiteral literal;
  literal.int_value = value;
  return literal;
}
StatsLiteral StringLiteral(const std::string& value) {
  StatsLiteral literal;
  literal.string_value = value;
  return literal;
}
StatsLiteral DecimalLiteral(Decimal128 value) {
  StatsLiteral literal;
  literal.decimal_value = value;
  return literal;
}

std::string ReadText(io::FileSystem& fs, const std::string& path) { return fs.ReadFile(path); }

// Writes DuckDB's corpus (parquet_corpus.sql) once for the whole suite.
class ParquetReadInteropTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    directory_ = new test::TempDir();
    auto fs = io::MakeLocalFileSystem();
    fs->WriteFile(directory_->Child("corpus/.keep"), "");
    std::string script = ReadText(*fs, test::TestDataDir() + "/duckdb/parquet_corpus.sql");
    // The script writes to corpus/ relative to the working folder; point it at ours.
    std::string rewritten;
    size_t position = 0;
    while (true) {
      size_t at = script.find("'corpus/", position);
      if (at == std::string::npos) break;
      rewritten += script.substr(position, at - position) + "'" + directory_->path() + "/corpus/";
      position = at + 8;
    }
    rewritten += script.substr(position);
    // Extra files: the integer/time/UUID/ENUM types, and the delta and byte-stream-split
    // encodings of v2 pages.
    std::string types_file = directory_->path() + "/corpus/types.parquet";
    std::vector<std::string> statements = {
        rewritten,
        "CREATE TYPE color AS ENUM ('red', 'green', 'blue')",
        "COPY (SELECT range::BIGINT AS id, (range % 200)::UTINYINT AS u8, "
        "(range * 7 % 60000)::USMALLINT AS u16, (range * 100003)::UINTEGER AS u32, "
        "(range * 1000000007)::UBIGINT AS u64, (range % 100 - 50)::TINYINT AS i8, "
        "(range - 5000)::SMALLINT AS i16, "
        "make_time((range % 24)::BIGINT, (range % 60)::BIGINT, (range % 60)::DOUBLE) AS t, "
        "(TIMESTAMP '2021-03-04' + to_milliseconds(range * 1001))::TIMESTAMP_MS AS ts_ms, "
        "(TIMESTAMP '2021-03-04' + to_microseconds(range * 1001))::TIMESTAMP_NS AS ts_ns, "
        "CASE WHEN range % 9 = 0 THEN NULL ELSE uuid() END AS u, "
        "(['red', 'green', 'blue'])[range % 3 + 1]::color AS c "
        "FROM range(5000)) TO " +
            test::SqlQuote(types_file) + " (FORMAT parquet)",
        "COPY (SELECT * FROM read_parquet(" + test::SqlQuote(types_file) + ")) TO " +
            test::SqlQuote(directory_->path() + "/corpus/types_v2.parquet") +
            " (FORMAT parquet, PARQUET_VERSION v2)",
        "COPY (SELECT range::BIGINT AS id, range * 3 AS delta_ints, 'prefix_' || (range * 13) AS "
        "delta_strings, (range / 7.0)::DOUBLE AS split_doubles, (range / 3.0)::FLOAT AS "
        "split_floats FROM range(30000)) TO " +
            test::SqlQuote(directory_->path() + "/corpus/delta_v2.parquet") +
            " (FORMAT parquet, PARQUET_VERSION v2, DICTIONARY_SIZE_LIMIT 1)",
    };
    test::RunDuckDb(statements, "csv");
  }
  static void TearDownTestSuite() {
    delete directory_;
    directory_ = nullptr;
  }

  static std::string Corpus(const std::string& name) {
    return directory_->path() + "/corpus/" + name;
  }

  // Reads `path` with silt and compares every row with DuckDB's reading.
  static void ExpectSameAsPeer(const std::string& path,
                               const std::vector<PeerLeafKind>& kinds = {}) {
    ExpectSameAsPeer(std::vector<std::string>{path}, kinds);
  }

  // Several files of one schema, compared in one DuckDB run.
  static void ExpectSameAsPeer(const std::vector<std::string>& paths,
                               const std::vector<PeerLeafKind>& kinds = {}) {
    SCOPED_TRACE(paths.front());
    auto fs = io::MakeLocalFileSystem();
    std::vector<Batch> batches;
    std::unique_ptr<FileReader> reader;
    for (const std::string& path : paths) {
      reader = FileReader::Open(*fs, path);
      std::vector<Batch> file_batches = reader->Read();
      int64_t rows = 0;
      for (const Batch& batch : file_batches) rows += batch.num_rows();
      EXPECT_EQ(rows, reader->num_rows());
      batches.insert(batches.end(), file_batches.begin(), file_batches.end());
    }
    std::vector<std::string> ours = test::CanonicalRows(batches);
    std::vector<std::string> theirs = test::PeerCanonicalRows(paths, reader->schema(), kinds);
    ASSERT_EQ(ours.size(), theirs.size());
    size_t mismatches = 0;
    for (size_t i = 0; i < ours.size(); ++i) {
      if (ours[i] != theirs[i] && ++mismatches <= 3) {
        ADD_FAILURE() << "row " << i << "\n silt:   " << ours[i] << "\n duckdb: " << theirs[i];
      }
    }
    EXPECT_EQ(mismatches, 0u);
  }

  static test::TempDir* directory_;
};

test::TempDir* ParquetReadInteropTest::directory_ = nullptr;

TEST_F(ParquetReadInteropTest, EveryCorpusFileMatchesDuckDb) {
  for (const char* name :
       {"snappy_v1.parquet", "zstd_v1.parquet", "gzip_v1.parquet", "lz4raw_v1.parquet",
        "brotli_v1.parquet", "uncompressed_v1.parquet", "snappy_v2.parquet", "zstd_v2.parquet",
        "nodict.parquet", "rg1000.parquet", "small_pages.parquet", "field_ids.parquet",
        "empty.parquet"}) {
    // ROW_GROUPS_PER_FILE makes DuckDB write a folder of files under the name.
    auto fs = io::MakeLocalFileSystem();
    std::optional<io::FileInfo> info = fs->Stat(Corpus(name));
    ASSERT_TRUE(info.has_value()) << name;
    if (!info->is_directory) {
      ExpectSameAsPeer(Corpus(name));
      continue;
    }
    std::vector<std::string> paths;
    for (const io::FileInfo& file : fs->List(Corpus(name), "", true)) paths.push_back(file.path);
    ASSERT_FALSE(paths.empty());
    ExpectSameAsPeer(paths);
  }
}

TEST_F(ParquetReadInteropTest, HivePartitionedFilesMatchDuckDb) {
  auto fs = io::MakeLocalFileSystem();
  std::vector<io::FileInfo> files = fs->List(Corpus("partitioned"), "", true);
  std::vector<std::string> paths;
  for (const io::FileInfo& file : files) {
    if (file.path.size() < 8 || file.path.substr(file.path.size() - 8) != ".parquet") continue;
    paths.push_back(file.path);
  }
  EXPECT_GT(paths.size(), 10u);
  ExpectSameAsPeer(paths);
}

TEST_F(ParquetReadInteropTest, IntegerTimeUuidAndEnumTypesMatchDuckDb) {
  for (const char* name : {"types.parquet", "types_v2.parquet"}) {
    auto fs = io::MakeLocalFileSystem();
    auto reader = FileReader::Open(*fs, Corpus(name));
    const Schema& schema = reader->schema();
    EXPECT_EQ(schema.field(schema.FieldIndex("u8")).type->ToString(), "smallint");
    EXPECT_EQ(schema.field(schema.FieldIndex("u16")).type->ToString(), "int");
    EXPECT_EQ(schema.field(schema.FieldIndex("u32")).type->ToString(), "bigint");
    EXPECT_EQ(schema.field(schema.FieldIndex("u64")).type->ToString(), "decimal(20,0)");
    EXPECT_EQ(schema.field(schema.FieldIndex("i8")).type->ToString(), "tinyint");
    EXPECT_EQ(schema.field(schema.FieldIndex("i16")).type->ToString(), "smallint");
    EXPECT_EQ(schema.field(schema.FieldIndex("t")).type->ToString(), "bigint");
    EXPECT_EQ(schema.field(schema.FieldIndex("ts_ms")).type->ToString(), "timestamp_ntz");
    EXPECT_EQ(schema.field(schema.FieldIndex("ts_ns")).type->ToString(), "timestamp_ntz");
    EXPECT_EQ(schema.field(schema.FieldIndex("u")).type->ToString(), "binary");
    EXPECT_EQ(schema.field(schema.FieldIndex("c")).type->ToString(), "string");
    std::vector<PeerLeafKind> kinds(schema.num_fields(), PeerLeafKind::kDefault);
    kinds[schema.FieldIndex("t")] = PeerLeafKind::kTime;
    kinds[schema.FieldIndex("u")] = PeerLeafKind::kUuid;
    ExpectSameAsPeer(Corpus(name), kinds);
  }
}

TEST_F(ParquetReadInteropTest, DeltaAndByteStreamSplitEncodingsMatchDuckDb) {
  std::string encodings = test::RunDuckDb(
      {"SELECT string_agg(DISTINCT encodings, ';' ORDER BY encodings) FROM parquet_metadata(" +
       test::SqlQuote(Corpus("delta_v2.parquet")) + ")"},
      "csv");
  EXPECT_THAT(encodings, ::testing::HasSubstr("DELTA_BINARY_PACKED"));
  ExpectSameAsPeer(Corpus("delta_v2.parquet"));
  ExpectSameAsPeer(Corpus("types_v2.parquet"),
                   {PeerLeafKind::kDefault, PeerLeafKind::kDefault, PeerLeafKind::kDefault,
                    PeerLeafKind::kDefault, PeerLeafKind::kDefault, PeerLeafKind::kDefault,
                    PeerLeafKind::kDefault, PeerLeafKind::kTime, PeerLeafKind::kDefault,
                    PeerLeafKind::kDefault, PeerLeafKind::kUuid});
}

TEST_F(ParquetReadInteropTest, FieldIdsProjectionAndRowGroups) {
  auto fs = io::MakeLocalFileSystem();
  auto reader = FileReader::Open(*fs, Corpus("field_ids.parquet"));
  const std::string* id = reader->schema().field(0).FindMetadata("parquet.field.id");
  ASSERT_NE(id, nullptr);
  ReadOptions by_id;
  by_id.field_ids = {std::stoi(*id)};
  std::vector<Batch> batches = reader->Read(by_id);
  ASSERT_FALSE(batches.empty());
  EXPECT_EQ(batches[0].schema()->field(0).name, "id");

  // DuckDB rounds ROW_GROUP_SIZE up to its vector size, so the group bounds come from the footer.
  auto grouped = FileReader::Open(*fs, Corpus("rg1000.parquet"));
  ASSERT_GT(grouped->num_row_groups(), 5);
  std::vector<int64_t> first_rows;
  int64_t total = 0;
  for (const RowGroup& group : grouped->metadata().row_groups) {
    first_rows.push_back(total);
    total += group.num_rows;
  }
  ReadOptions options;
  options.columns = {"s", "id"};
  options.row_groups = {3};
  std::vector<Batch> one = grouped->Read(options);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].num_rows(), grouped->metadata().row_groups[3].num_rows);
  EXPECT_EQ(one[0].schema()->field(1).name, "id");
  EXPECT_EQ(one[0].column(1)->values<int64_t>()[0], first_rows[3]);

  // Only the group holding id 12345 can match; the statistics rule the others out.
  int holder = 0;
  while (holder + 1 < static_cast<int>(first_rows.size()) && first_rows[holder + 1] <= 12345) {
    ++holder;
  }
  ReadOptions predicate;
  predicate.predicates.push_back({"id", ColumnPredicate::Op::kEqual, IntLiteral(12345)});
  EXPECT_THAT(grouped->SelectRowGroups(predicate), ::testing::ElementsAre(holder));
  predicate.predicates[0].op = ColumnPredicate::Op::kGreaterOrEqual;
  EXPECT_EQ(grouped->SelectRowGroups(predicate).size(),
            static_cast<size_t>(grouped->num_row_groups() - holder));
  predicate.predicates[0].op = ColumnPredicate::Op::kLess;
  EXPECT_EQ(grouped->SelectRowGroups(predicate).size(), static_cast<size_t>(holder + 1));
  predicate.predicates = {{"ts", ColumnPredicate::Op::kIsNull, {}}};
  EXPECT_EQ(grouped->SelectRowGroups(predicate).size(),
            static_cast<size_t>(grouped->num_row_groups()));
  predicate.predicates = {{"s", ColumnPredicate::Op::kLess, StringLiteral("")}};
  EXPECT_TRUE(grouped->SelectRowGroups(predicate).empty());
  predicate.predicates = {{"d18", ColumnPredicate::Op::kLess, DecimalLiteral(0)}};
  EXPECT_TRUE(grouped->SelectRowGroups(predicate).empty());
}

}  // namespace
}  // namespace silt::parquet
