#include "silt/log/checkpoint_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "silt/base/testing_error_class.h"
#include "silt/error.h"
#include "silt/log/snapshot.h"
#include "silt/parquet/writer.h"

namespace silt::log {
namespace {

using ::testing::ElementsAre;

DataTypePtr AddType() {
  return StructType({{"path", StringType(), true, {}},
                     {"partitionValues", MapType(StringType(), StringType()), true, {}},
                     {"size", LongType(), true, {}},
                     {"modificationTime", LongType(), true, {}},
                     {"dataChange", BooleanType(), true, {}},
                     {"stats", StringType(), true, {}}});
}
DataTypePtr ProtocolType() {
  return StructType({{"minReaderVersion", IntegerType(), true, {}},
                     {"minWriterVersion", IntegerType(), true, {}}});
}
DataTypePtr MetadataType() {
  return StructType({{"id", StringType(), true, {}},
                     {"schemaString", StringType(), true, {}},
                     {"partitionColumns", ListType(StringType()), true, {}},
                     {"configuration", MapType(StringType(), StringType()), true, {}}});
}
DataTypePtr TxnType() {
  return StructType({{"appId", StringType(), true, {}}, {"version", LongType(), true, {}}});
}

// Builds a classic checkpoint batch: protocol, metaData, txn, then one add per path.
Batch CheckpointBatch(const std::vector<std::string>& paths) {
  VectorBuilder protocol(ProtocolType());
  VectorBuilder metadata(MetadataType());
  VectorBuilder txn(TxnType());
  VectorBuilder add(AddType());
  auto null_row = [](VectorBuilder& builder) { builder.AppendNull(); };

  protocol.child(0).AppendInt(1);
  protocol.child(1).AppendInt(2);
  protocol.AppendStruct();
  null_row(metadata);
  null_row(txn);
  null_row(add);

  null_row(protocol);
  metadata.child(0).AppendString("id-1");
  metadata.child(1).AppendString(
      R"({"type":"struct","fields":[{"name":"p","type":"string","nullable":true,"metadata":{}}]})");
  metadata.child(2).child(0).AppendString("p");
  metadata.child(2).FinishList();
  metadata.child(3).child(0).child(0).AppendString("k");
  metadata.child(3).child(0).child(1).AppendString("v");
  metadata.child(3).child(0).AppendStruct();
  metadata.child(3).FinishList();
  metadata.AppendStruct();
  null_row(txn);
  null_row(add);

  null_row(protocol);
  null_row(metadata);
  txn.child(0).AppendString("app");
  txn.child(1).AppendInt(9);
  txn.AppendStruct();
  null_row(add);

  for (const auto& path : paths) {
    null_row(protocol);
    null_row(metadata);
    null_row(txn);
    add.child(0).AppendString(path);
    add.child(1).child(0).child(0).AppendString("p");
    add.child(1).child(0).child(1).AppendNull();
    add.child(1).child(0).AppendStruct();
    add.child(1).FinishList();
    add.child(2).AppendInt(10);
    add.child(3).AppendInt(20);
    add.child(4).AppendBool(false);
    add.child(5).AppendString("{\"numRecords\":1}");
    add.AppendStruct();
  }
  auto schema = std::make_shared<const Schema>(std::vector<Field>{
      {"protocol", ProtocolType(), true, {}},
      {"metaData", MetadataType(), true, {}},
      {"txn", TxnType(), true, {}},
      {"add", AddType(), true, {}}});
  int64_t rows = protocol.length();
  return Batch(schema, {protocol.Finish(), metadata.Finish(), txn.Finish(), add.Finish()}, rows);
}

TEST(CheckpointReaderTest, ConvertsRowsToActions) {
  auto actions = ActionsFromCheckpointBatch(CheckpointBatch({"a", "b"}), "cp");
  ASSERT_EQ(actions.size(), 5u);
  EXPECT_EQ(std::get<Protocol>(actions[0]).min_writer_version, 2);
  const auto& metadata = std::get<Metadata>(actions[1]);
  EXPECT_EQ(metadata.id, "id-1");
  EXPECT_THAT(metadata.partition_columns, ElementsAre("p"));
  EXPECT_EQ(*FindValue(metadata.configuration, "k"), "v");
  EXPECT_EQ(std::get<SetTransaction>(actions[2]).version, 9);
  const auto& add = std::get<AddFile>(actions[4]);
  EXPECT_EQ(add.path, "b");
  ASSERT_EQ(add.partition_values.size(), 1u);
  EXPECT_EQ(add.partition_values[0].second, std::nullopt);
  EXPECT_EQ(add.size, 10);
  EXPECT_EQ(add.stats, "{\"numRecords\":1}");
}

TEST(CheckpointReaderTest, MissingRequiredFieldIsCorruption) {
  VectorBuilder add(AddType());
  add.child(0).AppendNull();  // path
  add.child(1).AppendNull();
  add.child(2).AppendInt(1);
  add.child(3).AppendInt(1);
  add.child(4).AppendBool(true);
  add.child(5).AppendNull();
  add.AppendStruct();
  auto schema = std::make_shared<const Schema>(std::vector<Field>{{"add", AddType(), true, {}}});
  Batch batch(schema, {add.Finish()}, 1);
  try {
    ActionsFromCheckpointBatch(batch, "cp.parquet");
    FAIL();
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), "DELTA_INVALID_CHECKPOINT");
  }
}

TEST(CheckpointReaderTest, StatsParsedStandsInForMissingStats) {
  auto values = StructType({{"a", IntegerType(), true, {}}, {"s", StringType(), true, {}},
                            {"d", DateType(), true, {}}});
  auto counts = StructType({{"a", LongType(), true, {}}});
  auto stats_type = StructType({{"numRecords", LongType(), true, {}},
                                {"minValues", values, true, {}},
                                {"nullCount", counts, true, {}}});
  auto add_type = StructType({{"path", StringType(), true, {}},
                              {"size", LongType(), true, {}},
                              {"stats", StringType(), true, {}},
                              {"stats_parsed", stats_type, true, {}}});
  VectorBuilder add(add_type);
  add.child(0).AppendString("f");
  add.child(1).AppendInt(5);
  add.child(2).AppendNull();
  VectorBuilder& stats = add.child(3);
  stats.child(0).AppendInt(7);
  stats.child(1).child(0).AppendInt(-3);
  stats.child(1).child(1).AppendString("a\"b");
  stats.child(1).child(2).AppendInt(10957);
  stats.child(1).AppendStruct();
  stats.child(2).child(0).AppendNull();
  stats.child(2).AppendStruct();
  stats.AppendStruct();
  add.AppendStruct();
  auto schema = std::make_shared<const Schema>(std::vector<Field>{{"add", add_type, true, {}}});
  auto actions = ActionsFromCheckpointBatch(Batch(schema, {add.Finish()}, 1), "cp");
  ASSERT_EQ(actions.size(), 1u);
  EXPECT_EQ(std::get<AddFile>(actions[0]).stats,
            R"({"numRecords":7,"minValues":{"a":-3,"s":"a\"b","d":"2000-01-01"},"nullCount":{}})");
}

TEST(CheckpointReaderTest, SnapshotFromParquetCheckpoint) {
  auto fs = io::MakeMemoryFileSystem();
  Batch batch = CheckpointBatch({"from-checkpoint"});
  parquet::WriterOptions options;
  options.max_parallelism = 1;
  auto writer = parquet::FileWriter::Open(
      fs->OpenWrite("t/_delta_log/" + FormatVersion(3) + ".checkpoint.parquet"), *batch.schema(),
      options);
  writer->Write(batch);
  writer->Close();
  fs->WriteFile("t/_delta_log/" + FormatVersion(4) + ".json",
                R"({"add":{"path":"later","partitionValues":{"p":"x"},"size":1,"modificationTime":1,"dataChange":true}})"
                "\n");
  fs->WriteFile("t/_delta_log/_last_checkpoint", R"({"version":3,"size":4})");
  auto snapshot = Snapshot::Load(fs, "t");
  EXPECT_EQ(snapshot->version(), 4);
  std::vector<std::string> paths;
  for (const auto& add : snapshot->files()) paths.push_back(add.path);
  std::sort(paths.begin(), paths.end());
  EXPECT_THAT(paths, ElementsAre("from-checkpoint", "later"));
  EXPECT_EQ(snapshot->TransactionVersion("app"), 9);
  // Versions before the checkpoint cannot be rebuilt: their commits are gone.
  SnapshotOptions old;
  old.version = 2;
  EXPECT_THROW(Snapshot::Load(fs, "t", old), Error);
}

// ---- damaged checkpoints: corruption errors, never a table with rows or partition values
// missing ----

struct Damage {
  bool without_add = false;                       // no add column at all
  bool without_partition_values = false;          // add without partitionValues
  bool without_partition_columns = false;         // metaData without partitionColumns
  std::optional<int64_t> dv_offset;               // the add carries a deletion vector
  int64_t dv_size = 10;
};

DataTypePtr Without(const DataTypePtr& type, std::string_view name) {
  std::vector<Field> fields;
  for (const Field& field : type->fields()) {
    if (field.name != name) fields.push_back(field);
  }
  return StructType(std::move(fields));
}

DataTypePtr DeletionVectorType() {
  return StructType({{"storageType", StringType(), true, {}},
                     {"pathOrInlineDv", StringType(), true, {}},
                     {"offset", LongType(), true, {}},
                     {"sizeInBytes", LongType(), true, {}},
                     {"cardinality", LongType(), true, {}}});
}

// A checkpoint of a table partitioned by p with one file in partition p=x, damaged as asked,
// written with silt's Parquet writer at version 3 of table "t".
std::shared_ptr<io::FileSystem> DamagedCheckpointTable(const Damage& damage) {
  DataTypePtr add_type = AddType();
  if (damage.without_partition_values) add_type = Without(add_type, "partitionValues");
  if (damage.dv_offset) {
    std::vector<Field> fields = add_type->fields();
    fields.push_back({"deletionVector", DeletionVectorType(), true, {}});
    add_type = StructType(std::move(fields));
  }
  DataTypePtr metadata_type = MetadataType();
  if (damage.without_partition_columns) metadata_type = Without(metadata_type, "partitionColumns");
  VectorBuilder protocol(ProtocolType()), metadata(metadata_type), add(add_type);
  auto child = [](VectorBuilder& builder, const DataTypePtr& type, std::string_view name) -> VectorBuilder& {
    return builder.child(static_cast<size_t>(type->FieldIndex(name)));
  };

  protocol.child(0).AppendInt(1);
  protocol.child(1).AppendInt(2);
  protocol.AppendStruct();
  metadata.AppendNull();
  add.AppendNull();

  protocol.AppendNull();
  child(metadata, metadata_type, "id").AppendString("id-1");
  child(metadata, metadata_type, "schemaString")
      .AppendString(R"({"type":"struct","fields":[{"name":"v","type":"long","nullable":true,"metadata":{}},)"
                    R"({"name":"p","type":"string","nullable":true,"metadata":{}}]})");
  if (!damage.without_partition_columns) {
    child(metadata, metadata_type, "partitionColumns").child(0).AppendString("p");
    child(metadata, metadata_type, "partitionColumns").FinishList();
  }
  child(metadata, metadata_type, "configuration").FinishList();
  metadata.AppendStruct();
  add.AppendNull();

  protocol.AppendNull();
  metadata.AppendNull();
  child(add, add_type, "path").AppendString("p=x/f.parquet");
  if (!damage.without_partition_values) {
    VectorBuilder& values = child(add, add_type, "partitionValues");
    values.child(0).child(0).AppendString("p");
    values.child(0).child(1).AppendString("x");
    values.child(0).AppendStruct();
    values.FinishList();
  }
  child(add, add_type, "size").AppendInt(10);
  child(add, add_type, "modificationTime").AppendInt(20);
  child(add, add_type, "dataChange").AppendBool(false);
  child(add, add_type, "stats").AppendString("{\"numRecords\":1}");
  if (damage.dv_offset) {
    VectorBuilder& dv = child(add, add_type, "deletionVector");
    dv.child(0).AppendString("u");
    dv.child(1).AppendString("ab^-aqEH.-t@S}K{vb[*k^");
    dv.child(2).AppendInt(*damage.dv_offset);
    dv.child(3).AppendInt(damage.dv_size);
    dv.child(4).AppendInt(1);
    dv.AppendStruct();
  }
  add.AppendStruct();

  std::vector<Field> fields = {{"protocol", ProtocolType(), true, {}},
                               {"metaData", metadata_type, true, {}}};
  std::vector<VectorPtr> columns = {protocol.Finish(), metadata.Finish()};
  if (!damage.without_add) {
    fields.push_back({"add", add_type, true, {}});
    columns.push_back(add.Finish());
  }
  Batch batch(std::make_shared<const Schema>(std::move(fields)), std::move(columns), 3);
  auto fs = io::MakeMemoryFileSystem();
  parquet::WriterOptions options;
  options.max_parallelism = 1;
  auto writer = parquet::FileWriter::Open(
      fs->OpenWrite("t/_delta_log/" + FormatVersion(3) + ".checkpoint.parquet"), *batch.schema(),
      options);
  writer->Write(batch);
  writer->Close();
  fs->WriteFile("t/_delta_log/_last_checkpoint", R"({"version":3,"size":3})");
  return fs;
}

TEST(CheckpointReaderTest, UndamagedCheckpointReadsItsFileAndPartitionValue) {
  auto snapshot = Snapshot::Load(DamagedCheckpointTable(Damage()), "t");
  ASSERT_EQ(snapshot->files().size(), 1u);
  EXPECT_EQ(snapshot->files()[0].partition_values,
            (PartitionValueMap{{"p", std::optional<std::string>("x")}}));
  EXPECT_THAT(snapshot->metadata().partition_columns, ElementsAre("p"));
}

TEST(CheckpointReaderTest, CheckpointWithoutAddColumnIsCorruption) {
  Damage damage;
  damage.without_add = true;
  EXPECT_EQ(ErrorClassOf([&] { Snapshot::Load(DamagedCheckpointTable(damage), "t"); }),
            "DELTA_INVALID_CHECKPOINT");
}

TEST(CheckpointReaderTest, CheckpointWithoutAddPartitionValuesIsCorruption) {
  Damage damage;
  damage.without_partition_values = true;
  EXPECT_EQ(ErrorClassOf([&] { Snapshot::Load(DamagedCheckpointTable(damage), "t"); }),
            "DELTA_INVALID_CHECKPOINT");
}

TEST(CheckpointReaderTest, CheckpointWithoutMetadataPartitionColumnsIsCorruption) {
  Damage damage;
  damage.without_partition_columns = true;
  EXPECT_EQ(ErrorClassOf([&] { Snapshot::Load(DamagedCheckpointTable(damage), "t"); }),
            "DELTA_INVALID_CHECKPOINT");
}

// Offsets and sizes beyond 32 bits would wrap when cast; they are refused as in the JSON log.
TEST(CheckpointReaderTest, DeletionVectorOutOfRangeIsCorruption) {
  Damage valid;
  valid.dv_offset = 1;
  auto snapshot = Snapshot::Load(DamagedCheckpointTable(valid), "t");
  ASSERT_TRUE(snapshot->files()[0].deletion_vector.has_value());
  EXPECT_EQ(snapshot->files()[0].deletion_vector->offset, 1);
  for (auto [offset, size] : std::vector<std::pair<int64_t, int64_t>>{
           {(int64_t{1} << 32) + 1, 10}, {-1, 10}, {1, (int64_t{1} << 32) - 1}, {1, -4}}) {
    Damage damage;
    damage.dv_offset = offset;
    damage.dv_size = size;
    EXPECT_EQ(ErrorClassOf([&] { Snapshot::Load(DamagedCheckpointTable(damage), "t"); }),
              "DELTA_INVALID_CHECKPOINT")
        << offset << " " << size;
  }
}

TEST(CheckpointReaderTest, MetadataNamingAPartitionColumnTheSchemaLacksIsCorruption) {
  auto fs = io::MakeMemoryFileSystem();
  fs->WriteFile("t/_delta_log/" + FormatVersion(0) + ".json",
                R"({"protocol":{"minReaderVersion":1,"minWriterVersion":2}})"
                "\n"
                R"({"metaData":{"id":"x","format":{"provider":"parquet","options":{}},)"
                R"("schemaString":"{\"type\":\"struct\",\"fields\":[{\"name\":\"v\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}}]}",)"
                R"("partitionColumns":["p"],"configuration":{}}})"
                "\n");
  EXPECT_EQ(ErrorClassOf([&] { Snapshot::Load(fs, "t"); }), "DELTA_INVALID_LOG_ENTRY");
}

}  // namespace
}  // namespace silt::log
