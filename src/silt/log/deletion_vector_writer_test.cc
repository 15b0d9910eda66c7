#include "silt/log/deletion_vector_writer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <numeric>

#include "silt/error.h"
#include "silt/log/deletion_vector.h"
#include "silt/log/file_stats.h"
#include "silt/log/snapshot.h"
#include "silt/log/table_features.h"
#include "silt/log/table_scan.h"
#include "silt/log/table_writer.h"
#include "silt/log/transaction.h"

namespace silt::log {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

constexpr char kRoot[] = "table";

Protocol DvProtocol() {
  Protocol protocol;
  protocol.min_reader_version = 3;
  protocol.min_writer_version = 7;
  protocol.reader_features = std::vector<std::string>{"deletionVectors"};
  protocol.writer_features = std::vector<std::string>{"deletionVectors"};
  return protocol;
}

Metadata DvMetadata() {
  Metadata metadata;
  metadata.id = "id";
  metadata.configuration = {{"delta.enableDeletionVectors", "true"}};
  return metadata;
}

AddFile DataFile(int64_t num_records) {
  AddFile file;
  file.path = "part-00000.parquet";
  file.partition_values = {{"p", "1"}};
  file.size = 635;
  file.modification_time = 1677811178336;
  file.data_change = false;
  file.stats =
      "{\"numRecords\":" + std::to_string(num_records) +
      ",\"minValues\":{\"value\":0},\"maxValues\":{\"value\":9},\"nullCount\":{\"value\":0}"
      ",\"tightBounds\":true}";
  file.tags = StringMap{{"INSERTION_TIME", "1677811178336000"}};
  return file;
}

template <typename F>
std::string ErrorClassOf(F&& body) {
  try {
    body();
  } catch (const Error& error) {
    return std::string(error.error_class());
  }
  return "no error";
}

class DeletionVectorWriterTest : public ::testing::Test {
 protected:
  std::unique_ptr<DeletionVectorWriter> Open(DeletionVectorWriterOptions options = {}) {
    options.now_ms = 1234;
    return DeletionVectorWriter::Open(fs_, kRoot, DvProtocol(), DvMetadata(), options);
  }
  std::vector<uint64_t> Load(const AddFile& file) {
    return LoadDeletionVector(*fs_, kRoot, *file.deletion_vector).ToVector();
  }

  std::shared_ptr<io::FileSystem> fs_ = io::MakeMemoryFileSystem();
};

TEST_F(DeletionVectorWriterTest, WritesAFileDeletionVectorTheReaderLoads) {
  auto writer = Open();
  AddFile file = DataFile(100);
  auto update = writer->DeleteRows(file, {50, 3, 1, 3});
  ASSERT_TRUE(update.has_value());
  ASSERT_TRUE(update->add.has_value());
  const AddFile& add = *update->add;
  const DeletionVectorDescriptor& dv = *add.deletion_vector;
  EXPECT_EQ(dv.storage_type, 'u');
  EXPECT_EQ(dv.path_or_inline_dv.size(), 20u);  // No random prefix by default.
  EXPECT_EQ(dv.offset, 1);
  EXPECT_EQ(dv.cardinality, 3);
  EXPECT_EQ(dv.size_in_bytes,
            static_cast<int32_t>(DeletedRows::FromIndexes({1, 3, 50}).Serialize().size()));
  EXPECT_EQ(dv.UniqueId(), "u" + dv.path_or_inline_dv + "@1");
  EXPECT_FALSE(dv.max_row_index.has_value());

  // The file only exists once Finish has run.
  EXPECT_EQ(ErrorClassOf([&] { Load(add); }), "PATH_NOT_FOUND");
  writer->Finish();
  EXPECT_THAT(Load(add), ElementsAre(1, 3, 50));
  std::string path = DeletionVectorPath(dv, kRoot);
  EXPECT_THAT(writer->written_files(), ElementsAre(path));
  EXPECT_THAT(path, ::testing::MatchesRegex(
                        "table/deletion_vector_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-"
                        "[0-9a-f]{12}\\.bin"));
  EXPECT_EQ(fs_->ReadFile(path), MakeDeletionVectorFile(DeletedRows::FromIndexes({1, 3, 50})));

  // The add keeps the file and its statistics (as bounds); the remove is the old add.
  EXPECT_EQ(add.path, file.path);
  EXPECT_EQ(add.size, file.size);
  EXPECT_EQ(add.modification_time, file.modification_time);
  EXPECT_EQ(add.partition_values, file.partition_values);
  EXPECT_EQ(add.tags, file.tags);
  EXPECT_TRUE(add.data_change);
  EXPECT_EQ(*add.stats,
            "{\"numRecords\":100,\"minValues\":{\"value\":0},\"maxValues\":{\"value\":9},"
            "\"nullCount\":{\"value\":0},\"tightBounds\":false}");
  const RemoveFile& remove = update->remove;
  EXPECT_EQ(remove.path, file.path);
  EXPECT_EQ(remove.deletion_timestamp, 1234);
  EXPECT_TRUE(remove.data_change);
  EXPECT_EQ(remove.extended_file_metadata, true);
  EXPECT_EQ(remove.partition_values, file.partition_values);
  EXPECT_EQ(remove.size, file.size);
  EXPECT_EQ(remove.stats, "{\"numRecords\":100}");
  EXPECT_FALSE(remove.deletion_vector.has_value());
  EXPECT_EQ(update->num_deleted_rows, 3u);
  EXPECT_EQ(update->num_live_rows, 97u);
  EXPECT_FALSE(update->had_deletion_vector);
}

TEST_F(DeletionVectorWriterTest, UnitesWithTheExistingDeletionVector) {
  auto first = Open();
  auto before = first->DeleteRows(DataFile(20), {2, 4});
  first->Finish();
  ASSERT_TRUE(before && before->add);

  auto second = Open();
  auto after = second->DeleteRows(*before->add, {4, 7, 19});
  second->Finish();
  ASSERT_TRUE(after && after->add);
  EXPECT_THAT(Load(*after->add), ElementsAre(2, 4, 7, 19));
  EXPECT_EQ(after->add->deletion_vector->cardinality, 4);
  EXPECT_EQ(after->num_deleted_rows, 2u);
  EXPECT_EQ(after->num_live_rows, 16u);
  EXPECT_TRUE(after->had_deletion_vector);
  // The remove names the file with its old DV, so log replay retires exactly that add.
  EXPECT_EQ(after->remove.deletion_vector, before->add->deletion_vector);
  EXPECT_NE(after->add->deletion_vector->UniqueId(), before->add->deletion_vector->UniqueId());
  EXPECT_EQ(*after->add->stats, *before->add->stats);  // Already bounds only.

  // Rows that are all deleted already change nothing.
  auto third = Open();
  EXPECT_FALSE(third->DeleteRows(*after->add, {2, 19}).has_value());
  EXPECT_FALSE(third->DeleteRows(*after->add, {}).has_value());
  third->Finish();
  EXPECT_TRUE(third->written_files().empty());
}

TEST_F(DeletionVectorWriterTest, PositionsBeyondThirtyTwoBits) {
  const uint64_t big = uint64_t{1} << 32;
  auto writer = Open();
  auto update = writer->DeleteRows(DataFile(int64_t(3 * big)),
                                   {2 * big + 3, 5, big + 1, big - 1, 2 * big + 3});
  writer->Finish();
  ASSERT_TRUE(update && update->add);
  EXPECT_THAT(Load(*update->add), ElementsAre(5, big - 1, big + 1, 2 * big + 3));
  EXPECT_EQ(update->add->deletion_vector->cardinality, 4);
  EXPECT_EQ(update->num_live_rows, 3 * big - 4);
  EXPECT_EQ(DeletedRows::FromIndexes({5, 2 * big + 3, big}).Maximum(), 2 * big + 3);
  EXPECT_FALSE(DeletedRows().Maximum().has_value());
}

TEST_F(DeletionVectorWriterTest, DeletingEveryRowRemovesTheFileWithoutADeletionVector) {
  auto writer = Open();
  auto partly = writer->DeleteRows(DataFile(6), {0, 1});
  writer->Finish();
  ASSERT_TRUE(partly && partly->add);

  auto again = Open();
  auto update = again->DeleteRows(*partly->add, {2, 3, 4, 5});
  again->Finish();
  ASSERT_TRUE(update.has_value());
  EXPECT_FALSE(update->add.has_value());
  EXPECT_EQ(update->remove.deletion_vector, partly->add->deletion_vector);
  EXPECT_EQ(update->num_deleted_rows, 4u);
  EXPECT_EQ(update->num_live_rows, 0u);
  EXPECT_TRUE(again->written_files().empty());
}

TEST_F(DeletionVectorWriterTest, PacksSeveralDeletionVectorsInOneFile) {
  auto writer = Open();
  AddFile a = DataFile(10);
  AddFile b = DataFile(10);
  b.path = "part-00001.parquet";
  auto first = writer->DeleteRows(a, {1});
  auto second = writer->DeleteRows(b, {2, 3});
  writer->Finish();
  ASSERT_TRUE(first && first->add && second && second->add);
  const auto& dv_a = *first->add->deletion_vector;
  const auto& dv_b = *second->add->deletion_vector;
  EXPECT_EQ(dv_a.path_or_inline_dv, dv_b.path_or_inline_dv);
  EXPECT_EQ(dv_a.offset, 1);
  EXPECT_EQ(dv_b.offset, 1 + 4 + dv_a.size_in_bytes + 4);
  EXPECT_THAT(Load(*first->add), ElementsAre(1));
  EXPECT_THAT(Load(*second->add), ElementsAre(2, 3));
  EXPECT_EQ(writer->written_files().size(), 1u);

  // A size limit starts a new file instead.
  DeletionVectorWriterOptions small;
  small.max_file_bytes = 50;
  auto limited = Open(small);
  auto c = limited->DeleteRows(a, {1});
  auto d = limited->DeleteRows(b, {2});
  limited->Finish();
  EXPECT_NE(c->add->deletion_vector->path_or_inline_dv, d->add->deletion_vector->path_or_inline_dv);
  EXPECT_EQ(d->add->deletion_vector->offset, 1);
  EXPECT_EQ(limited->written_files().size(), 2u);
  EXPECT_THAT(Load(*d->add), ElementsAre(2));
}

TEST_F(DeletionVectorWriterTest, SmallDeletionVectorsCanBeInline) {
  DeletionVectorWriterOptions options;
  options.max_inline_bytes = 64;
  auto writer = Open(options);
  auto update = writer->DeleteRows(DataFile(40), {3, 4, 7, 11, 18, 29});
  writer->Finish();
  ASSERT_TRUE(update && update->add);
  const auto& dv = *update->add->deletion_vector;
  EXPECT_EQ(dv.storage_type, 'i');
  EXPECT_FALSE(dv.offset.has_value());
  EXPECT_EQ(dv.UniqueId(), "i" + dv.path_or_inline_dv);
  EXPECT_EQ(Z85Decode(dv.path_or_inline_dv).substr(0, dv.size_in_bytes),
            DeletedRows::FromIndexes({3, 4, 7, 11, 18, 29}).Serialize());
  EXPECT_THAT(Load(*update->add), ElementsAre(3, 4, 7, 11, 18, 29));
  EXPECT_TRUE(writer->written_files().empty());
}

TEST_F(DeletionVectorWriterTest, RandomPrefixFolderWhenTheTableAsksForIt) {
  Metadata metadata = DvMetadata();
  metadata.configuration.emplace_back("delta.randomizeFilePrefixes", "true");
  metadata.configuration.emplace_back("delta.randomPrefixLength", "3");
  auto writer = DeletionVectorWriter::Open(fs_, kRoot, DvProtocol(), metadata);
  auto update = writer->DeleteRows(DataFile(5), {0});
  writer->Finish();
  const auto& dv = *update->add->deletion_vector;
  ASSERT_EQ(dv.path_or_inline_dv.size(), 23u);
  std::string prefix = dv.path_or_inline_dv.substr(0, 3);
  EXPECT_THAT(DeletionVectorPath(dv, kRoot), HasSubstr("table/" + prefix + "/deletion_vector_"));
  EXPECT_THAT(Load(*update->add), ElementsAre(0));

  metadata.configuration.back().second = "two";
  EXPECT_EQ(ErrorClassOf([&] { DeletionVectorWriter::Open(fs_, kRoot, DvProtocol(), metadata); }),
            "INVALID_CONFIGURATION");
}

TEST_F(DeletionVectorWriterTest, RefusesBadInput) {
  auto writer = Open();
  AddFile no_stats = DataFile(10);
  no_stats.stats.reset();
  EXPECT_FALSE(CanHaveDeletionVector(no_stats));
  EXPECT_EQ(ErrorClassOf([&] { writer->DeleteRows(no_stats, {1}); }),
            "DELTA_DELETION_VECTOR_MISSING_NUM_RECORDS");
  AddFile no_count = DataFile(10);
  no_count.stats = "{\"minValues\":{}}";
  EXPECT_FALSE(CanHaveDeletionVector(no_count));
  EXPECT_EQ(ErrorClassOf([&] { writer->DeleteRows(no_count, {1}); }),
            "DELTA_DELETION_VECTOR_MISSING_NUM_RECORDS");
  EXPECT_TRUE(CanHaveDeletionVector(DataFile(10)));
  EXPECT_EQ(ErrorClassOf([&] {
              writer->DeleteRows(DataFile(10), {3, 10});
            }),
            "DELTA_DELETION_VECTOR_INVALID_ROW_INDEX");
  AddFile corrupt = DataFile(10);
  corrupt.deletion_vector = DeletionVectorDescriptor{'i', "0000", std::nullopt, 4, 1, {}};
  EXPECT_EQ(ErrorClassOf([&] { writer->DeleteRows(corrupt, {1}); }),
            "DELTA_INVALID_DELETION_VECTOR");
  AddFile negative = DataFile(-1);
  EXPECT_EQ(ErrorClassOf([&] { writer->DeleteRows(negative, {}); }), "DELTA_INVALID_STATS");
  // An existing DV naming rows past the end of the file (statistics that undercount).
  auto tail = writer->DeleteRows(DataFile(10), {5, 6, 7, 8, 9});
  writer->Finish();
  AddFile undercounted = *tail->add;
  undercounted.stats = "{\"numRecords\":6}";
  EXPECT_EQ(ErrorClassOf([&] { writer->DeleteRows(undercounted, {0}); }),
            "DELTA_DELETION_VECTOR_INVALID_ROW_INDEX");
  EXPECT_EQ(writer->written_files().size(), 1u);
}

TEST_F(DeletionVectorWriterTest, OnlyTablesThatEnableDeletionVectorsGetThem) {
  EXPECT_TRUE(DeletionVectorsWritable(DvProtocol(), DvMetadata()));
  Metadata disabled = DvMetadata();
  disabled.configuration = {{"delta.enableDeletionVectors", "false"}};
  EXPECT_FALSE(DeletionVectorsWritable(DvProtocol(), disabled));
  EXPECT_EQ(ErrorClassOf([&] { DeletionVectorWriter::Open(fs_, kRoot, DvProtocol(), disabled); }),
            "DELTA_ADDING_DELETION_VECTORS_DISALLOWED");
  Protocol legacy;  // (1, 2): no deletionVectors feature even with the property set.
  EXPECT_FALSE(DeletionVectorsWritable(legacy, DvMetadata()));
  EXPECT_EQ(ErrorClassOf([&] { CheckDeletionVectorsWritable(legacy, DvMetadata()); }),
            "DELTA_ADDING_DELETION_VECTORS_DISALLOWED");
  Metadata upper = DvMetadata();
  upper.configuration = {{"delta.enableDeletionVectors", "TRUE"}};
  EXPECT_TRUE(DeletionVectorsWritable(DvProtocol(), upper));
  // silt's commit path may write to a table that has DVs enabled.
  EXPECT_NO_THROW(CheckWriteSupported(DvProtocol(), DvMetadata(), "t"));
}

TEST(StatsWithoutTightBoundsTest, MarksStatisticsAsBounds) {
  EXPECT_EQ(StatsWithoutTightBounds("{\"numRecords\":3,\"tightBounds\":true}", "f"),
            "{\"numRecords\":3,\"tightBounds\":false}");
  EXPECT_EQ(StatsWithoutTightBounds("{\"numRecords\":3, \"tightBounds\" : true }", "f"),
            "{\"numRecords\":3, \"tightBounds\" : false }");
  EXPECT_EQ(StatsWithoutTightBounds("{\"numRecords\":3,\"minValues\":{\"d\":-3.1661E-8}}", "f"),
            "{\"numRecords\":3,\"minValues\":{\"d\":-3.1661E-8},\"tightBounds\":false}");
  EXPECT_EQ(StatsWithoutTightBounds("{}", "f"), "{\"tightBounds\":false}");
  // A column named tightBounds is data, not the flag; a string value that mentions it neither.
  EXPECT_EQ(StatsWithoutTightBounds(
                "{\"numRecords\":1,\"minValues\":{\"tightBounds\":\"tightBounds\\\"\"}}", "f"),
            "{\"numRecords\":1,\"minValues\":{\"tightBounds\":\"tightBounds\\\"\"},"
            "\"tightBounds\":false}");
  EXPECT_EQ(ErrorClassOf([] { StatsWithoutTightBounds("[1]", "f"); }), "DELTA_INVALID_STATS");
  EXPECT_EQ(ErrorClassOf([] { StatsWithoutTightBounds("{\"numRecords\":", "f"); }),
            "DELTA_INVALID_STATS");
}

std::string GoldenTable(const std::string& name) {
  const char* data = std::getenv("SILT_TEST_DATA_DIR");
  return data == nullptr ? std::string() : std::string(data) + "/golden/" + name + "/delta";
}

// Re-encodes every DV of Spark- and Databricks-written tables from its row positions and
// compares the record (size, bitmap, CRC) byte for byte with the one in the golden file.
TEST(DeletionVectorWriterGoldenTest, EncodesLikeDelta) {
  auto local = io::MakeLocalFileSystem();
  int compared = 0;
  for (const char* name :
       {"delta-golden/log-replay-dv-key-cases", "delta-rs/table-with-dv-small",
        "delta-kernel-java/basic-dv-with-checkpoint", "delta-golden/dv-partitioned-with-checkpoint",
        "delta-kernel-rs/cdf-table-with-cdc-and-dvs"}) {
    std::string root = GoldenTable(name);
    if (root.empty() || !local->Stat(root + "/_delta_log").has_value()) continue;
    auto snapshot = Snapshot::Load(local, root);
    for (const AddFile& file : snapshot->files()) {
      if (!file.deletion_vector.has_value() || file.deletion_vector->storage_type != 'u') continue;
      const DeletionVectorDescriptor& golden = *file.deletion_vector;
      std::vector<uint64_t> rows = LoadDeletionVector(*local, root, golden).ToVector();

      auto memory = io::MakeMemoryFileSystem();
      auto writer =
          DeletionVectorWriter::Open(memory, "t", snapshot->protocol(), snapshot->metadata());
      AddFile fresh = file;
      fresh.deletion_vector.reset();
      auto update = writer->DeleteRows(fresh, rows);
      writer->Finish();
      ASSERT_TRUE(update && update->add) << name << " " << file.path;
      const DeletionVectorDescriptor& ours = *update->add->deletion_vector;
      EXPECT_EQ(ours.size_in_bytes, golden.size_in_bytes) << name << " " << file.path;
      EXPECT_EQ(ours.cardinality, golden.cardinality);

      std::string golden_file = local->ReadFile(DeletionVectorPath(golden, root));
      size_t offset = static_cast<size_t>(golden.offset.value_or(1));
      std::string golden_record = golden_file.substr(offset, golden.size_in_bytes + 8);
      std::string our_file = memory->ReadFile(writer->written_files().at(0));
      EXPECT_EQ(our_file[0], golden_file[0]);
      EXPECT_EQ(our_file.substr(1), golden_record) << name << " " << file.path;
      ++compared;
    }
  }
  if (compared == 0) GTEST_SKIP() << "golden tables not found under SILT_TEST_DATA_DIR";
  EXPECT_GE(compared, 5);
}

// Replays Delta's first DV DELETE of a golden table (version 0 -> 1) and compares the actions.
TEST(DeletionVectorWriterGoldenTest, ProducesDeltaActions) {
  auto local = io::MakeLocalFileSystem();
  std::string root = GoldenTable("delta-golden/log-replay-dv-key-cases");
  if (root.empty() || !local->Stat(root + "/_delta_log").has_value()) {
    GTEST_SKIP() << "golden tables not found under SILT_TEST_DATA_DIR";
  }
  SnapshotOptions at;
  at.version = 0;
  auto before = Snapshot::Load(local, root, at);
  at.version = 1;
  auto after = Snapshot::Load(local, root, at);
  ASSERT_EQ(before->files().size(), 1u);
  ASSERT_EQ(after->files().size(), 1u);
  ASSERT_EQ(after->tombstones().size(), 1u);
  const AddFile& delta_add = after->files()[0];
  const RemoveFile& delta_remove = after->tombstones()[0];
  std::vector<uint64_t> rows =
      LoadDeletionVector(*local, root, *delta_add.deletion_vector).ToVector();

  auto memory = io::MakeMemoryFileSystem();
  DeletionVectorWriterOptions options;
  options.now_ms = *delta_remove.deletion_timestamp;
  auto writer =
      DeletionVectorWriter::Open(memory, "t", before->protocol(), before->metadata(), options);
  auto update = writer->DeleteRows(before->files()[0], rows);
  writer->Finish();
  ASSERT_TRUE(update && update->add);
  AddFile ours = *update->add;
  // Only the random file name differs.
  ours.deletion_vector->path_or_inline_dv = delta_add.deletion_vector->path_or_inline_dv;
  EXPECT_EQ(ours, delta_add);
  const RemoveFile& remove = update->remove;
  EXPECT_EQ(remove.path, delta_remove.path);
  EXPECT_EQ(remove.deletion_timestamp, delta_remove.deletion_timestamp);
  EXPECT_EQ(remove.data_change, delta_remove.data_change);
  EXPECT_EQ(remove.extended_file_metadata, delta_remove.extended_file_metadata);
  EXPECT_EQ(remove.partition_values, delta_remove.partition_values);
  EXPECT_EQ(remove.size, delta_remove.size);
  // Snapshots drop tombstone statistics, so compare with the commit's text.
  std::string commit = local->ReadFile(root + "/_delta_log/00000000000000000001.json");
  EXPECT_THAT(commit, HasSubstr(R"("size":765,"stats":"{\"numRecords\":50}"}})"));
  EXPECT_EQ(remove.stats, "{\"numRecords\":50}");
  EXPECT_EQ(remove.tags, delta_remove.tags);
  EXPECT_EQ(remove.deletion_vector, delta_remove.deletion_vector);
  EXPECT_EQ(remove.base_row_id, delta_remove.base_row_id);
  EXPECT_EQ(remove.default_row_commit_version, delta_remove.default_row_commit_version);
}

// The whole path a DML command takes: write a table, delete rows through a DV in a commit, and
// scan the new snapshot.
TEST(DeletionVectorWriterTableTest, TableScanHonoursTheNewDeletionVectors) {
  auto fs = io::MakeMemoryFileSystem();
  CreateTableOptions create;
  create.schema = Schema({Field{"id", LongType(), true, {}}});
  create.configuration = {{"delta.enableDeletionVectors", "true"}};
  VectorBuilder ids(LongType());
  for (int64_t i = 0; i < 10; ++i) ids.AppendInt(i);
  auto schema = std::make_shared<const Schema>(create.schema);
  CreateTable(fs, kRoot, create, {Batch(schema, {ids.Finish()}, 10)});

  auto delete_rows = [&](const std::vector<uint64_t>& positions) {
    auto snapshot = Snapshot::Load(fs, kRoot);
    EXPECT_EQ(snapshot->files().size(), 1u);
    auto writer = DeletionVectorWriter::Open(fs, kRoot, snapshot->protocol(), snapshot->metadata());
    auto update = writer->DeleteRows(snapshot->files().at(0), positions);
    writer->Finish();
    auto transaction = Transaction::Start(snapshot);
    transaction->RecordReadFile(snapshot->files().at(0));
    transaction->Remove(update->remove);
    if (update->add) transaction->Add(*update->add);
    transaction->SetOperation("DELETE", {{"predicate", "[]"}});
    transaction->Commit();
  };
  auto scan_ids = [&] {
    std::vector<int64_t> values;
    for (const Batch& batch : TableScan::Make(Snapshot::Load(fs, kRoot))->Read()) {
      for (int64_t r = 0; r < batch.num_rows(); ++r) {
        values.push_back(std::stoll(batch.column(0)->ValueToString(r)));
      }
    }
    return values;
  };

  delete_rows({0, 9});
  EXPECT_THAT(scan_ids(), ElementsAre(1, 2, 3, 4, 5, 6, 7, 8));
  delete_rows({4, 0});
  EXPECT_THAT(scan_ids(), ElementsAre(1, 2, 3, 5, 6, 7, 8));
  auto snapshot = Snapshot::Load(fs, kRoot);
  EXPECT_EQ(snapshot->files().at(0).deletion_vector->cardinality, 3);
  EXPECT_FALSE(FileStats::Parse(*snapshot->files().at(0).stats, "f").tight_bounds());
  delete_rows({1, 2, 3, 5, 6, 7, 8});
  EXPECT_TRUE(scan_ids().empty());
  EXPECT_TRUE(Snapshot::Load(fs, kRoot)->files().empty());
}

}  // namespace
}  // namespace silt::log
