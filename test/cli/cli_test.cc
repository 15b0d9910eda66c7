// Runs the `silt` binary as a user would and checks its output and exit codes.

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "silt/io/file_system.h"
#include "silt/parquet/writer.h"
#include "silt_process.h"
#include "support/duckdb_peer.h"
#include "support/temp_dir.h"

namespace silt {
namespace {

using test::ReadFileText;
using test::RunResult;
using test::RunSilt;

// A small file with a nested column, written by silt.
std::string WriteSampleFile(const test::TempDir& dir) {
  auto schema = std::make_shared<Schema>(std::vector<Field>{
      {"id", LongType(), false, {}},
      {"name", StringType(), true, {}},
      {"tags", ListType(StringType()), true, {}},
  });
  VectorBuilder ids(LongType()), names(StringType()), tags(ListType(StringType()));
  for (int i = 0; i < 3; ++i) {
    ids.AppendInt(i + 1);
    if (i == 1) {
      names.AppendNull();
    } else {
      names.AppendString("name_" + std::to_string(i + 1));
    }
    for (int t = 0; t < i; ++t) tags.child(0).AppendString("t" + std::to_string(t));
    tags.FinishList();
  }
  Batch batch(schema, {ids.Finish(), names.Finish(), tags.Finish()}, 3);
  std::string path = dir.Child("sample.parquet");
  auto fs = io::MakeLocalFileSystem();
  auto writer = parquet::FileWriter::Open(fs->OpenWrite(path), *schema);
  writer->Write(batch);
  writer->Close();
  return path;
}

TEST(CliTest, VersionAndHelp) {
  RunResult version = RunSilt("--version");
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.out, std::string("silt ") + SILT_VERSION + "\n");

  RunResult help = RunSilt("--help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("parquet"), std::string::npos);

  RunResult no_args = RunSilt("");
  EXPECT_EQ(no_args.exit_code, 0);
  EXPECT_NE(no_args.out.find("Usage"), std::string::npos);

  RunResult sub_help = RunSilt("parquet cat --help");
  EXPECT_EQ(sub_help.exit_code, 0);
  EXPECT_NE(sub_help.out.find("--format"), std::string::npos);
}

TEST(CliTest, UsageErrorsExitTwo) {
  EXPECT_EQ(RunSilt("--no-such-flag").exit_code, 2);
  EXPECT_EQ(RunSilt("no-such-command").exit_code, 2);
  EXPECT_EQ(RunSilt("parquet cat").exit_code, 2);
  EXPECT_EQ(RunSilt("parquet cat x.parquet --format xml").exit_code, 2);
}

TEST(CliTest, StorageErrorsPrintClassAndExitFour) {
  test::TempDir dir;
  RunResult missing = RunSilt("parquet cat " + dir.Child("missing.parquet"));
  EXPECT_EQ(missing.exit_code, 4);
  EXPECT_EQ(missing.err.rfind("[PATH_NOT_FOUND] ", 0), 0u) << missing.err;

  std::ofstream(dir.Child("junk.parquet")) << "this is not a parquet file at all";
  RunResult corrupt = RunSilt("parquet cat " + dir.Child("junk.parquet"));
  EXPECT_EQ(corrupt.exit_code, 4);
  EXPECT_EQ(corrupt.err.rfind("[PARQUET_CORRUPT_FILE] ", 0), 0u) << corrupt.err;
}

TEST(CliTest, CatPrintsRowsLikeSparkShow) {
  test::TempDir dir;
  std::string path = WriteSampleFile(dir);
  RunResult table = RunSilt("parquet cat " + path);
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_EQ(table.out,
            "+---+------+--------+\n"
            "| id|  name|    tags|\n"
            "+---+------+--------+\n"
            "|  1|name_1|      []|\n"
            "|  2|  NULL|    [t0]|\n"
            "|  3|name_3|[t0, t1]|\n"
            "+---+------+--------+\n");

  RunResult csv = RunSilt("parquet cat --format csv --columns id,name " + path);
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(csv.out, "id,name\n1,name_1\n2,\n3,name_3\n");

  RunResult json = RunSilt("parquet cat --format json --limit 2 " + path);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(json.out,
            "{\"id\":1,\"name\":\"name_1\",\"tags\":[]}\n"
            "{\"id\":2,\"name\":null,\"tags\":[\"t0\"]}\n");
}

TEST(CliTest, SchemaPrintsSparkTree) {
  test::TempDir dir;
  std::string path = WriteSampleFile(dir);
  RunResult schema = RunSilt("parquet schema " + path);
  ASSERT_EQ(schema.exit_code, 0) << schema.err;
  EXPECT_EQ(schema.out,
            "root\n"
            " |-- id: long (nullable = false)\n"
            " |-- name: string (nullable = true)\n"
            " |-- tags: array (nullable = true)\n"
            " |    |-- element: string (containsNull = true)\n");
}

TEST(CliTest, MetaShowsFooter) {
  test::TempDir dir;
  std::string path = WriteSampleFile(dir);
  RunResult meta = RunSilt("parquet meta " + path);
  ASSERT_EQ(meta.exit_code, 0) << meta.err;
  EXPECT_NE(meta.out.find("num_rows: 3"), std::string::npos) << meta.out;
  EXPECT_NE(meta.out.find("created_by: silt version"), std::string::npos) << meta.out;
  EXPECT_NE(meta.out.find("codec=SNAPPY"), std::string::npos) << meta.out;
}

TEST(CliTest, RewriteChangesCodecAndKeepsRows) {
  test::TempDir dir;
  std::string path = WriteSampleFile(dir);
  std::string out = dir.Child("out.parquet");
  RunResult rewrite = RunSilt("parquet rewrite --codec zstd " + path + " " + out);
  ASSERT_EQ(rewrite.exit_code, 0) << rewrite.err;
  EXPECT_EQ(rewrite.out, "wrote 3 rows in 1 row group(s) to " + out + "\n");
  EXPECT_NE(RunSilt("parquet meta " + out).out.find("codec=ZSTD"), std::string::npos);
  EXPECT_EQ(RunSilt("parquet cat --format json " + out).out,
            RunSilt("parquet cat --format json " + path).out);
  EXPECT_EQ(test::RunDuckDb({"SELECT count(*) AS n, sum(id) AS s, count(name) AS names, "
                             "sum(len(tags)) AS tags FROM read_parquet(" + test::SqlQuote(out) + ")"}),
            "n,s,names,tags\n3,6,2,3\n");
}

}  // namespace
}  // namespace silt
