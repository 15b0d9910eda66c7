#include "silt/stream/file_source.h"

#include <gmock/gmock.h>

#include "silt/stream/stream_testing.h"
#include "silt/types/schema_json.h"

namespace silt::stream {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class FileSourceTest : public StreamTest {
 protected:
  void SetUp() override {
    Sql("CREATE TABLE dst (id BIGINT, name STRING)");
    inbox_ = io::JoinPath(folder_.path(), "inbox");
    fs_->WriteFile(io::JoinPath(inbox_, "_ignored_marker"), "");
  }

  // Writes `text` to `name` under the inbox with modification time `time_ms`.
  void Land(const std::string& name, const std::string& text, int64_t time_ms) {
    std::string path = io::JoinPath(inbox_, name);
    fs_->WriteFile(path, text);
    fs_->SetModificationTime(path, time_ms);
  }

  std::string Stream(const std::string& format = "json") const {
    return "SELECT id, name FROM STREAM(" + format + ".`" + inbox_ + "`)";
  }

  std::vector<std::string> Rows(const std::string& table = "dst") {
    return Query("SELECT id, name FROM " + table + " ORDER BY id, name");
  }

  static std::vector<int64_t> RowsPerBatch(const std::vector<QueryProgress>& progress) {
    std::vector<int64_t> rows;
    for (const QueryProgress& batch : progress) rows.push_back(batch.num_input_rows);
    return rows;
  }

  const std::map<std::string, std::string> kSchema = {{"schema", "id BIGINT, name STRING"}};
  static constexpr int64_t kDay = 86400000;
  static constexpr int64_t kT0 = 1735689600000;  // 2025-01-01
  std::string inbox_;
};

TEST_F(FileSourceTest, ReadsEachFileOnceAndKeepsSparksFileLog) {
  Land("a.json", "{\"id\":1,\"name\":\"ann\"}\n{\"id\":2,\"name\":\"bob\"}\n", kT0);
  RunInto("dst", Stream(), kSchema);
  EXPECT_THAT(Rows(), ElementsAre("1,ann", "2,bob"));

  Land("b.json", "{\"id\":3,\"name\":\"cy\"}\n", kT0 + 1000);
  std::vector<QueryProgress> second = RunInto("dst", Stream(), kSchema);
  EXPECT_THAT(Rows(), ElementsAre("1,ann", "2,bob", "3,cy"));
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].batch_id, 1);
  EXPECT_EQ(second[0].num_input_rows, 1);
  EXPECT_EQ(second[0].sources[0].start_offset, "{\"logOffset\":0}");
  EXPECT_EQ(second[0].sources[0].end_offset, "{\"logOffset\":1}");
  // Nothing new (a file rewritten in place is not read again): no batch.
  Land("a.json", "{\"id\":9,\"name\":\"again\"}\n", kT0 + 2000);
  EXPECT_TRUE(RunInto("dst", Stream(), kSchema).empty());

  // The checkpoint holds Spark's FileStreamSourceLog and FileStreamSourceOffset.
  std::string checkpoint = CheckpointPath("checkpoint");
  EXPECT_EQ(fs_->ReadFile(io::JoinPath(checkpoint, "sources/0/1")),
            "v1\n{\"path\":\"file:" + io::JoinPath(inbox_, "b.json") +
                "\",\"timestamp\":" + std::to_string(kT0 + 1000) + ",\"batchId\":1}");
  EXPECT_THAT(fs_->ReadFile(io::JoinPath(checkpoint, "offsets/1")),
              HasSubstr("\n{\"logOffset\":1}"));
}

TEST_F(FileSourceTest, LogAndOffsetTextRoundTrip) {
  std::vector<FileEntry> entries = {{"/data/in box/a%1.json", 17, 4}, {"/data/b.json", 18, 4}};
  std::string text = FileSource::LogText(entries);
  EXPECT_THAT(text, HasSubstr("\"path\":\"file:/data/in%20box/a%251.json\""));
  EXPECT_EQ(FileSource::ParseLog(text), entries);
  // Spark's own form of a local path, file:///, reads the same.
  EXPECT_EQ(
      FileSource::ParseLog("v1\n{\"path\":\"file:///x/y.json\",\"timestamp\":1,\"batchId\":0}")
          ->at(0)
          .path,
      "/x/y.json");
  EXPECT_FALSE(FileSource::ParseLog("v2\n").has_value());
  EXPECT_EQ(FileSource::ParseOffset("{\"logOffset\":12}"), 12);
  EXPECT_FALSE(FileSource::ParseOffset("{\"reservoirVersion\":1}").has_value());
}

TEST_F(FileSourceTest, MaxFilesPerTriggerTakesTheOldestFirstOrTheNewestWithLatestFirst) {
  Land("c.json", "{\"id\":3,\"name\":\"c\"}\n", kT0 + 3000);
  Land("a.json", "{\"id\":1,\"name\":\"a\"}\n", kT0 + 1000);
  Land("b.json", "{\"id\":2,\"name\":\"b\"}\n", kT0 + 2000);
  std::vector<int64_t> order;
  auto collect = [&] {
    return MakeForEachBatchSink([&](const BatchContext& batch) {
      SchemaPtr schema;
      for (const Batch& rows : batch.Run(&schema)) {
        for (int64_t r = 0; r < rows.num_rows(); ++r)
          order.push_back(rows.column(0)->values<int64_t>()[r]);
      }
    });
  };
  std::map<std::string, std::string> options = kSchema;
  options["maxFilesPerTrigger"] = "1";
  auto execution = Make(Stream(), collect(), options);
  execution->Run();
  EXPECT_THAT(order, ElementsAre(1, 2, 3));
  EXPECT_THAT(RowsPerBatch(execution->RecentProgress()), ElementsAre(1, 1, 1));

  order.clear();
  options["latestFirst"] = "true";
  execution =
      Make(Stream(), collect(), options, TriggerKind::kAvailableNow, OutputMode::kAppend, "latest");
  execution->Run();
  EXPECT_THAT(order, ElementsAre(3, 2, 1));
}

TEST_F(FileSourceTest, FiltersHiddenFilesGlobsAndSubfolders) {
  Land("a.json", "{\"id\":1,\"name\":\"a\"}\n", kT0);
  Land("notes.txt", "{\"id\":2,\"name\":\"txt\"}\n", kT0);
  Land(".hidden.json", "{\"id\":3,\"name\":\"hidden\"}\n", kT0);
  Land("day=2/b.json", "{\"id\":4,\"name\":\"sub\"}\n", kT0);
  std::map<std::string, std::string> options = kSchema;
  options["pathGlobFilter"] = "*.json";
  RunInto("dst", Stream(), options);
  EXPECT_THAT(Rows(), ElementsAre("1,a"));
  options["recursiveFileLookup"] = "true";
  RunInto("dst", Stream(), options, TriggerKind::kAvailableNow, OutputMode::kAppend, "recursive");
  EXPECT_THAT(Rows(), ElementsAre("1,a", "1,a", "4,sub"));
}

TEST_F(FileSourceTest, MaxFileAgeLeavesOutFilesMuchOlderThanTheNewestSeen) {
  Land("new.json", "{\"id\":1,\"name\":\"new\"}\n", kT0 + 10 * kDay);
  std::map<std::string, std::string> options = kSchema;
  options["maxFileAge"] = "2d";
  RunInto("dst", Stream(), options);
  Land("old.json", "{\"id\":2,\"name\":\"old\"}\n", kT0);
  Land("recent.json", "{\"id\":3,\"name\":\"recent\"}\n", kT0 + 9 * kDay);
  RunInto("dst", Stream(), options);
  EXPECT_THAT(Rows(), ElementsAre("1,new", "3,recent"));
  options["maxFileAge"] = "soon";
  EXPECT_EQ(ErrorOf([&] { RunInto("dst", Stream(), options); }), "INVALID_STREAMING_OPTION");
}

TEST_F(FileSourceTest, WithoutASchemaInferenceNeedsTheSessionOption) {
  Land("a.json", "{\"id\":1,\"name\":\"a\"}\n", kT0);
  EXPECT_EQ(ErrorOf([&] { RunInto("dst", Stream()); }), "UNABLE_TO_INFER_SCHEMA");
  state_->SetConf("spark.sql.streaming.schemaInference", "true");
  RunInto("dst", Stream());
  EXPECT_THAT(Rows(), ElementsAre("1,a"));
  // The inferred schema is kept: a file with another column later does not change the rows'.
  std::string kept = fs_->ReadFile(io::JoinPath(CheckpointPath("checkpoint"), "sources/0/schema"));
  EXPECT_THAT(kept, HasSubstr("\"name\":\"id\",\"type\":\"long\""));
  Land("b.json", "{\"id\":2,\"name\":\"b\",\"extra\":true}\n", kT0 + 1000);
  RunInto("dst", Stream());
  EXPECT_THAT(Rows(), ElementsAre("1,a", "2,b"));
  EXPECT_EQ(fs_->ReadFile(io::JoinPath(CheckpointPath("checkpoint"), "sources/0/schema")), kept);
}

TEST_F(FileSourceTest, InferenceWidensTheTypesOfEveryFile) {
  Land("a.json", "{\"id\":1,\"name\":\"a\",\"user\":{\"age\":3},\"score\":1}\n", kT0);
  Land("b.json", "{\"id\":2,\"user\":{\"city\":\"x\"},\"score\":1.5,\"tags\":[1]}\n", kT0 + 1000);
  state_->SetConf("spark.sql.streaming.schemaInference", "true");
  auto execution = Make("SELECT * FROM STREAM(json.`" + inbox_ + "`)",
                        MakeForEachBatchSink([](const BatchContext&) {}));
  EXPECT_EQ(ToDeltaSchemaJson(*execution->schema()),
            ToDeltaSchemaJson(Schema(
                {{"id", LongType(), true, {}},
                 {"name", StringType(), true, {}},
                 {"score", DoubleType(), true, {}},
                 {"tags", ListType(LongType()), true, {}},
                 {"user",
                  StructType({{"age", LongType(), true, {}}, {"city", StringType(), true, {}}}),
                  true,
                  {}}})));
}

TEST_F(FileSourceTest, AFileThatDoesNotParseFailsTheBatchNamingIt) {
  Land("good.json", "{\"id\":1,\"name\":\"a\"}\n", kT0);
  Land("bad.json", "{\"id\":\"two\",\"name\":\"b\"}\n", kT0 + 1000);
  try {
    RunInto("dst", Stream(), kSchema);
    FAIL() << "expected FAILED_READ_FILE";
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), "FAILED_READ_FILE");
    EXPECT_THAT(error.message(), HasSubstr("bad.json"));
  }
  EXPECT_TRUE(Rows().empty());
}

TEST_F(FileSourceTest, PermissiveModeReadsWhatDoesNotParseAsNull) {
  Land("a.json", "{\"id\":1,\"name\":\"a\"}\n{\"id\":\"two\",\"name\":\"b\"}\nnot json\n", kT0);
  Land("b.csv", "3,c\nx,d\n", kT0);
  std::map<std::string, std::string> options = kSchema;
  options["mode"] = "PERMISSIVE";
  options["pathGlobFilter"] = "*.json";
  RunInto("dst", Stream(), options);
  options["pathGlobFilter"] = "*.csv";
  RunInto("dst", Stream("csv"), options, TriggerKind::kAvailableNow, OutputMode::kAppend, "csv");
  EXPECT_THAT(Query("SELECT id, name FROM dst ORDER BY id NULLS LAST, name NULLS LAST"),
              ElementsAre("1,a", "3,c", ",b", ",d", ","));
  options["mode"] = "DROPMALFORMED";
  EXPECT_EQ(ErrorOf([&] {
              RunInto("dst", Stream(), options, TriggerKind::kAvailableNow, OutputMode::kAppend,
                      "drop");
            }),
            "INVALID_STREAMING_OPTION");
}

TEST_F(FileSourceTest, RescuedDataColumnKeepsWhatDoesNotFit) {
  Sql("CREATE TABLE rescued (id BIGINT, name STRING, _rescued_data STRING)");
  Land("a.json",
       "{\"id\":1,\"name\":\"a\"}\n{\"id\":\"two\",\"name\":\"b\",\"color\":\"red\"}\nnot json\n",
       kT0);
  std::map<std::string, std::string> options = kSchema;
  options["rescuedDataColumn"] = "_rescued_data";
  RunInto("rescued", "SELECT * FROM STREAM(json.`" + inbox_ + "`)", options);
  std::string path = io::JoinPath(inbox_, "a.json");
  EXPECT_THAT(
      Query("SELECT id, name, _rescued_data FROM rescued ORDER BY id NULLS LAST, name NULLS LAST"),
      ElementsAre("1,a,",
                  ",b,\"{\"\"id\"\":\"\"two\"\",\"\"color\"\":\"\"red\"\",\"\"_file_path\"\":\"\"" +
                      path + "\"\"}\"",
                  ",,\"{\"\"_corrupt_record\"\":\"\"not json\"\",\"\"_file_path\"\":\"\"" + path +
                      "\"\"}\""));
}

TEST_F(FileSourceTest, CsvColumnsArePositionalWithAnOptionalHeader) {
  Land("a.csv", "id,name\n1,ann\n2,\"b,b\"\n", kT0);
  std::map<std::string, std::string> options = kSchema;
  options["header"] = "true";
  RunInto("dst", Stream("csv"), options);
  EXPECT_THAT(Rows(), ElementsAre("1,ann", "2,\"b,b\""));
  Land("b.csv", "3,cy\nx,bad\n", kT0 + 1000);
  options["header"] = "false";
  EXPECT_EQ(ErrorOf([&] {
              RunInto("dst", Stream("csv"), options, TriggerKind::kAvailableNow,
                      OutputMode::kAppend, "noheader");
            }),
            "FAILED_READ_FILE");
}

TEST_F(FileSourceTest, ParquetFilesAreReadByColumnName) {
  Sql("CREATE TABLE src (name STRING, id INT)");
  Sql("INSERT INTO src VALUES ('p', 7)");
  // A Delta table's folder holds Parquet files (its _delta_log is hidden from the file source).
  RunInto("dst", "SELECT id, name FROM STREAM(parquet.`" + Location("src") + "`)", kSchema);
  EXPECT_THAT(Rows(), ElementsAre("7,p"));
}

TEST_F(FileSourceTest, StatefulOperatorsAreRefusedInAppendMode) {
  Land("a.json", "{\"id\":1,\"name\":\"a\"}\n", kT0);
  Sql("CREATE TABLE counts (n BIGINT)");
  EXPECT_EQ(ErrorOf([&] {
              RunInto("counts", "SELECT count(*) AS n FROM STREAM(json.`" + inbox_ + "`)", kSchema);
            }),
            "STREAMING_OUTPUT_MODE_UNSUPPORTED");
  RunInto("counts", "SELECT count(*) AS n FROM STREAM(json.`" + inbox_ + "`)", kSchema,
          TriggerKind::kAvailableNow, OutputMode::kComplete, "complete");
  EXPECT_THAT(Query("SELECT n FROM counts"), ElementsAre("1"));
}

TEST_F(FileSourceTest, ALogBatchWrittenBeforeACrashIsReadByTheNextRun) {
  Land("a.json", "{\"id\":1,\"name\":\"a\"}\n", kT0);
  // A run that died after logging its files, before writing offsets/0.
  std::string log = io::JoinPath(CheckpointPath("checkpoint"), "sources/0/0");
  fs_->WriteFile(log, FileSource::LogText({{io::JoinPath(inbox_, "a.json"), kT0, 0}}));
  Land("b.json", "{\"id\":2,\"name\":\"b\"}\n", kT0 + 1000);
  RunInto("dst", Stream(), kSchema);
  EXPECT_THAT(Rows(), ElementsAre("1,a", "2,b"));
}

TEST_F(FileSourceTest, ReadFilesInfersTheSchemaWithARescuedDataColumn) {
  Land("a.json", "{\"id\":1,\"name\":\"a\"}\n", kT0);
  const std::string create = "CREATE STREAMING TABLE bronze AS SELECT * FROM STREAM read_files('" +
                             inbox_ + "', format => 'json')";
  ExecuteStreamingStatement(*state_, sql::ParseStatement(create));
  EXPECT_THAT(Query("SELECT id, name, _rescued_data FROM bronze"), ElementsAre("1,a,"));
  // The schema stays the first run's: a new field and a wrong type are rescued.
  Land("b.json", "{\"id\":\"x\",\"name\":\"b\",\"more\":1}\n", kT0 + 1000);
  ExecuteStreamingStatement(*state_, sql::ParseStatement("REFRESH STREAMING TABLE bronze"));
  EXPECT_THAT(
      Query("SELECT id, name, _rescued_data FROM bronze ORDER BY name"),
      ElementsAre("1,a,", ",b,\"{\"\"id\"\":\"\"x\"\",\"\"more\"\":1,\"\"_file_path\"\":\"\"" +
                              io::JoinPath(inbox_, "b.json") + "\"\"}\""));
  EXPECT_EQ(ErrorOf([&] {
              Make("SELECT * FROM STREAM read_files('" + inbox_ + "', format => 'avro')",
                   MakeForEachBatchSink([](const BatchContext&) {}));
            }),
            "INVALID_STREAMING_OPTION");
  EXPECT_EQ(ErrorOf([&] {
              Make("SELECT * FROM STREAM read_files('" + inbox_ + "/none', format => 'json')",
                   MakeForEachBatchSink([](const BatchContext&) {}));
            }),
            "PATH_NOT_FOUND");
}

TEST_F(FileSourceTest, CleanSourceDeletesOrArchivesTheFilesOfCommittedBatches) {
  Land("a.json", "{\"id\":1,\"name\":\"a\"}\n", kT0);
  Land("b.json", "{\"id\":2,\"name\":\"b\"}\n", kT0 + 1000);
  std::map<std::string, std::string> options = kSchema;
  options["cleanSource"] = "archive";
  EXPECT_EQ(ErrorOf([&] { RunInto("dst", Stream(), options); }), "INVALID_STREAMING_OPTION");
  options["sourceArchiveDir"] = io::JoinPath(inbox_, "archive");
  EXPECT_EQ(ErrorOf([&] { RunInto("dst", Stream(), options); }), "INVALID_STREAMING_OPTION");
  std::string archive = io::JoinPath(folder_.path(), "archive");
  options["sourceArchiveDir"] = archive;
  options["maxFilesPerTrigger"] = "1";
  RunInto("dst", Stream(), options);
  EXPECT_THAT(Rows(), ElementsAre("1,a", "2,b"));
  EXPECT_FALSE(fs_->Stat(io::JoinPath(inbox_, "a.json")).has_value());
  EXPECT_EQ(fs_->ReadFile(io::JoinPath(archive, io::JoinPath(inbox_, "b.json"))),
            "{\"id\":2,\"name\":\"b\"}\n");

  Land("c.json", "{\"id\":3,\"name\":\"c\"}\n", kT0 + 2000);
  options = kSchema;
  options["cleanSource"] = "delete";
  RunInto("dst", Stream(), options);
  EXPECT_THAT(Rows(), ElementsAre("1,a", "2,b", "3,c"));
  EXPECT_FALSE(fs_->Stat(io::JoinPath(inbox_, "c.json")).has_value());
  options["cleanSource"] = "sometimes";
  EXPECT_EQ(ErrorOf([&] { RunInto("dst", Stream(), options); }), "INVALID_STREAMING_OPTION");
}

TEST_F(FileSourceTest, OtherCsvSeparatorsAreNotImplemented) {
  Land("a.csv", "1;a\n", kT0);
  std::map<std::string, std::string> options = kSchema;
  options["sep"] = ";";
  EXPECT_EQ(ErrorOf([&] { RunInto("dst", Stream("csv"), options); }), "NOT_IMPLEMENTED");
}

}  // namespace
}  // namespace silt::stream
