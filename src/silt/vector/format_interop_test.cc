// Reads silt's CSV and JSON Lines output back with DuckDB, an independent implementation, to
// check quoting, escaping and number formats end to end.

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "silt/vector/batch.h"
#include "support/duckdb_peer.h"
#include "support/temp_dir.h"

namespace silt {
namespace {

void WriteFile(const std::string& path, const std::string& content) {
  std::ofstream file(path, std::ios::binary);
  file << content;
}

std::string Hex(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char c : bytes) {
    out += kHex[static_cast<unsigned char>(c) >> 4];
    out += kHex[static_cast<unsigned char>(c) & 15];
  }
  return out;
}

const std::vector<std::optional<std::string>>& TrickyStrings() {
  static const std::vector<std::optional<std::string>> kStrings = {"plain",
                                                                   "with,comma",
                                                                   "say \"hi\"",
                                                                   "two\nlines",
                                                                   "crlf\r\nend",
                                                                   std::nullopt,
                                                                   "",
                                                                   "back\\slash",
                                                                   "tab\there",
                                                                   "héllo €",
                                                                   std::string("nul\0byte", 8),
                                                                   "\x01\x1f"};
  return kStrings;
}

Batch StringBatch() {
  auto schema = std::make_shared<const Schema>(
      std::vector<Field>{{"id", LongType(), false, {}}, {"name", StringType(), true, {}}});
  VectorBuilder ids(LongType());
  VectorBuilder names(StringType());
  int64_t id = 0;
  for (const auto& value : TrickyStrings()) {
    ids.AppendInt(id++);
    if (value) {
      names.AppendString(*value);
    } else {
      names.AppendNull();
    }
  }
  return Batch(schema, {ids.Finish(), names.Finish()}, id);
}

std::string ExpectedIdAndHex() {
  std::string expected = "id,name\n";
  int64_t id = 0;
  for (const auto& value : TrickyStrings()) {
    expected += std::to_string(id++) + "," + (value ? Hex(*value) : "NULL") + "\n";
  }
  return expected;
}

TEST(FormatInteropTest, DuckDbReadsCsvQuoting) {
  test::TempDir dir;
  std::string path = dir.Child("strings.csv");
  // DuckDB's CSV reader stops at NUL bytes, so that value is left out here.
  Batch batch = StringBatch();
  std::vector<Batch> without_nul = {batch.Slice(0, 10), batch.Slice(11, 1)};
  WriteFile(path, FormatCsv(without_nul));
  std::string result = test::RunDuckDb(
      {"SELECT id, coalesce(hex(name), 'NULL') AS name FROM read_csv(" + test::SqlQuote(path) +
       ", header = true, allow_quoted_nulls = false, columns = {'id': 'BIGINT', 'name': "
       "'VARCHAR'}) ORDER BY id"});
  std::string expected = ExpectedIdAndHex();
  // Drop the expected line of id 10 (the NUL string).
  size_t start = expected.find("\n10,") + 1;
  expected.erase(start, expected.find('\n', start) - start + 1);
  EXPECT_EQ(result, expected);
}

TEST(FormatInteropTest, DuckDbReadsJsonStringEscapes) {
  test::TempDir dir;
  std::string path = dir.Child("strings.jsonl");
  WriteFile(path, FormatJsonLines({StringBatch()}));
  std::string result = test::RunDuckDb(
      {"SELECT id, coalesce(hex(name), 'NULL') AS name FROM read_json(" + test::SqlQuote(path) +
       ", format = 'newline_delimited', columns = {'id': 'BIGINT', 'name': 'VARCHAR'}) "
       "ORDER BY id"});
  EXPECT_EQ(result, ExpectedIdAndHex());
}

TEST(FormatInteropTest, DuckDbReadsJsonValuesOfEveryKind) {
  DataTypePtr tags_type = ListType(IntegerType());
  DataTypePtr map_type = MapType(StringType(), LongType());
  DataTypePtr struct_type =
      StructType({{"a", IntegerType(), true, {}}, {"b", StringType(), true, {}}});
  auto schema =
      std::make_shared<const Schema>(std::vector<Field>{{"id", LongType(), false, {}},
                                                        {"dec", DecimalType(5, 2), true, {}},
                                                        {"d", DoubleType(), true, {}},
                                                        {"tags", tags_type, true, {}},
                                                        {"m", map_type, true, {}},
                                                        {"st", struct_type, true, {}},
                                                        {"dt", DateType(), true, {}},
                                                        {"ts", TimestampType(), true, {}},
                                                        {"bin", BinaryType(), true, {}}});
  VectorBuilder id(LongType());
  VectorBuilder dec(DecimalType(5, 2));
  VectorBuilder d(DoubleType());
  VectorBuilder tags(tags_type);
  VectorBuilder m(map_type);
  VectorBuilder st(struct_type);
  VectorBuilder dt(DateType());
  VectorBuilder ts(TimestampType());
  VectorBuilder bin(BinaryType());

  id.AppendInt(1);
  dec.AppendDecimal(-5);
  d.AppendDouble(1.0e-4);
  tags.child(0).AppendInt(1);
  tags.child(0).AppendNull();
  tags.FinishList();
  m.child(0).child(0).AppendString("k");
  m.child(0).child(1).AppendInt(7);
  m.child(0).AppendStruct();
  m.child(0).child(0).AppendString("x,y");
  m.child(0).child(1).AppendNull();
  m.child(0).AppendStruct();
  m.FinishList();
  st.child(0).AppendInt(3);
  st.child(1).AppendString("z");
  st.AppendStruct();
  dt.AppendInt(-1);
  ts.AppendInt(1706702400500000);
  bin.AppendString("hi!?");

  id.AppendInt(2);
  dec.AppendDecimal(150);
  d.AppendDouble(std::nan(""));
  tags.AppendNull();
  m.FinishList();
  st.AppendNull();
  dt.AppendNull();
  ts.AppendNull();
  bin.AppendNull();

  id.AppendInt(3);
  dec.AppendDecimal(99999);
  d.AppendDouble(1.2345678e7);
  tags.FinishList();
  m.AppendNull();
  st.child(0).AppendNull();
  st.child(1).AppendNull();
  st.AppendStruct();
  dt.AppendInt(-719162);
  ts.AppendInt(-1);
  bin.AppendString("");

  Batch batch(schema,
              {id.Finish(), dec.Finish(), d.Finish(), tags.Finish(), m.Finish(), st.Finish(),
               dt.Finish(), ts.Finish(), bin.Finish()},
              3);
  test::TempDir dir;
  std::string path = dir.Child("values.jsonl");
  WriteFile(path, FormatJsonLines({batch}));
  std::string result = test::RunDuckDb(
      {"SELECT id, dec::VARCHAR AS dec, d::VARCHAR AS d, tags::VARCHAR AS tags, m::VARCHAR AS m, "
       "st::VARCHAR AS st, dt::VARCHAR AS dt, ts::VARCHAR AS ts, "
       "coalesce(hex(from_base64(bin)), 'NULL') AS bin FROM read_json(" +
       test::SqlQuote(path) +
       ", format = 'newline_delimited', columns = {'id': 'BIGINT', 'dec': 'DECIMAL(5,2)', "
       "'d': 'DOUBLE', 'tags': 'INTEGER[]', 'm': 'MAP(VARCHAR, BIGINT)', "
       "'st': 'STRUCT(a INTEGER, b VARCHAR)', 'dt': 'DATE', 'ts': 'TIMESTAMP', "
       "'bin': 'VARCHAR'}) ORDER BY id"});
  EXPECT_EQ(result,
            "id,dec,d,tags,m,st,dt,ts,bin\n"
            "1,-0.05,0.0001,\"[1, NULL]\",\"{k=7, 'x,y'=NULL}\",\"{'a': 3, 'b': z}\",1969-12-31,"
            "2024-01-31 12:00:00.5,6869213F\n"
            "2,1.50,nan,,{},,,,NULL\n"
            "3,999.99,12345678.0,[],,\"{'a': NULL, 'b': NULL}\",0001-01-01,"
            "1969-12-31 23:59:59.999999,\n");
}

}  // namespace
}  // namespace silt
