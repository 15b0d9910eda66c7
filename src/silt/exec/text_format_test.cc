#include "silt/exec/text_format.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>

#include "silt/base/testing_error_class.h"
#include "silt/error.h"
#include "silt/io/file_system.h"

namespace silt::exec {
namespace {

std::string SchemaText(const Schema& schema) { return schema.AsStruct()->ToString(); }

TEST(JsonParserTest, ParsesValuesAndEscapes) {
  JsonValue value = ParseJson(
      R"( {"a": [1, -2.5e1, true, null], "s": "x\"\u00e9\n", "big": 99999999999999999999} )");
  ASSERT_EQ(value.kind, JsonValue::Kind::kObject);
  const JsonValue* a = value.Find("a");
  ASSERT_NE(a, nullptr);
  ASSERT_EQ(a->elements.size(), 4u);
  EXPECT_EQ(a->elements[0].integer, 1);
  EXPECT_EQ(a->elements[1].number, -25.0);
  EXPECT_TRUE(a->elements[2].boolean);
  EXPECT_EQ(a->elements[3].kind, JsonValue::Kind::kNull);
  EXPECT_EQ(value.Find("s")->text, "x\"\xc3\xa9\n");
  EXPECT_EQ(value.Find("big")->kind, JsonValue::Kind::kDouble);
  for (const char* bad : {"{", "[1,]", "{\"a\" 1}", "tru", "\"abc", "1 2", "{\"a\":01x}", ""}) {
    EXPECT_EQ(ErrorClassOf([&] { ParseJson(bad); }), "MALFORMED_RECORD_IN_PARSING") << bad;
  }
}

class TextFormatTest : public ::testing::Test {
 protected:
  std::shared_ptr<io::FileSystem> fs_ = io::MakeMemoryFileSystem();
};

TEST_F(TextFormatTest, JsonLinesInferSparkSchema) {
  fs_->WriteFile(
      "data/part-1.json",
      "{\"name\": \"a\", \"id\": 1, \"score\": 1, \"tags\": [\"x\"], \"info\": {\"k\": 1}}\n"
      "\n"
      "{\"id\": 2, \"score\": 2.5, \"flag\": true, \"mixed\": 1, \"none\": null}\n");
  fs_->WriteFile("data/part-2.json",
                 "{\"id\": 3, \"mixed\": \"text\", \"info\": {\"j\": \"v\"}}\n");
  fs_->WriteFile("data/_SUCCESS", "not json");
  TextTable table = ReadJsonFiles(*fs_, "data");
  EXPECT_EQ(SchemaText(*table.schema),
            "struct<flag:boolean,id:bigint,info:struct<j:string,k:bigint>,mixed:string,name:string,"
            "none:string,score:double,tags:array<string>>");
  Batch rows = ConcatenateBatches(table.batches);
  ASSERT_EQ(rows.num_rows(), 3);
  EXPECT_EQ(FormatCsv({rows}),
            "flag,id,info,mixed,name,none,score,tags\n"
            ",1,\"{\"\"j\"\":null,\"\"k\"\":1}\",,a,,1.0,\"[\"\"x\"\"]\"\n"
            "true,2,,1,,,2.5,\n"
            ",3,\"{\"\"j\"\":\"\"v\"\",\"\"k\"\":null}\",text,,,,\n");
}

TEST_F(TextFormatTest, JsonMalformedLineNamesTheRecord) {
  fs_->WriteFile("bad.json", "{\"a\": 1}\n[1, 2]\n");
  try {
    ReadJsonFiles(*fs_, "bad.json");
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), "MALFORMED_RECORD_IN_PARSING");
    EXPECT_THAT(error.what(), ::testing::HasSubstr("[1, 2]"));
  }
  fs_->WriteFile("bad2.json", "{\"a\": }\n");
  EXPECT_EQ(ErrorClassOf([&] { ReadJsonFiles(*fs_, "bad2.json"); }), "MALFORMED_RECORD_IN_PARSING");
  EXPECT_EQ(ErrorClassOf([&] { ReadJsonFiles(*fs_, "missing.json"); }), "PATH_NOT_FOUND");
}

TEST_F(TextFormatTest, CsvWithHeaderQuotesAndNulls) {
  fs_->WriteFile("c.csv",
                 "id,name,note\r\n"
                 "1,\"Smith, J\",\"say \"\"hi\"\"\"\r\n"
                 "2,,\"\"\n"
                 "\n"
                 "3,\"multi\nline\",\"esc \\\" q\"\n"
                 "4\n"
                 "5,e,f,extra\n");
  TextTable table = ReadCsvFiles(*fs_, "c.csv");
  EXPECT_EQ(SchemaText(*table.schema), "struct<id:string,name:string,note:string>");
  Batch rows = ConcatenateBatches(table.batches);
  ASSERT_EQ(rows.num_rows(), 5);
  EXPECT_EQ(rows.column(1)->ValueToString(0), "Smith, J");
  EXPECT_EQ(rows.column(2)->ValueToString(0), "say \"hi\"");
  EXPECT_TRUE(rows.column(1)->IsNull(1));
  EXPECT_FALSE(rows.column(2)->IsNull(1));
  EXPECT_EQ(rows.column(2)->GetString(1), "");
  EXPECT_EQ(rows.column(1)->ValueToString(2), "multi\nline");
  EXPECT_EQ(rows.column(2)->ValueToString(2), "esc \" q");
  EXPECT_TRUE(rows.column(1)->IsNull(3));
  EXPECT_EQ(rows.column(2)->ValueToString(4), "f");

  fs_->WriteFile("open.csv", "a,b\n1,\"never closed\n");
  EXPECT_EQ(ErrorClassOf([&] { ReadCsvFiles(*fs_, "open.csv"); }), "MALFORMED_RECORD_IN_PARSING");
}

TEST_F(TextFormatTest, CsvWithoutHeaderReadsEveryLineOfEveryFile) {
  // Spark's header=false: columns _c0, _c1, ... as many as the first row has fields.
  fs_->WriteFile("dir/a.csv", "id,name\n1,Ada,extra\n");
  fs_->WriteFile("dir/b.csv", "2\n");
  TextTable table = ReadCsvFiles(*fs_, "dir", /*header=*/false);
  EXPECT_EQ(SchemaText(*table.schema), "struct<_c0:string,_c1:string>");
  Batch rows = ConcatenateBatches(table.batches);
  ASSERT_EQ(rows.num_rows(), 3);
  EXPECT_EQ(rows.column(0)->ValueToString(0), "id");
  EXPECT_EQ(rows.column(1)->ValueToString(1), "Ada");
  EXPECT_EQ(rows.column(0)->ValueToString(2), "2");
  EXPECT_TRUE(rows.column(1)->IsNull(2));
}

}  // namespace
}  // namespace silt::exec
