#include "silt/stream/delta_sink.h"

#include "silt/base/ascii.h"
#include "silt/base/check.h"
#include "silt/base/json_writer.h"
#include "silt/io/path.h"
#include "silt/log/data_file_writer.h"
#include "silt/log/transaction.h"
#include "silt/stream/fault_point.h"
#include "silt/types/schema_json.h"
#include "silt/vector/vector.h"

namespace silt::stream {

namespace {

std::string Quoted(std::string_view text) {
  std::string out;
  AppendJsonString(out, text);
  return out;
}

[[noreturn]] void ThrowMismatch(const std::string& details) {
  SILT_THROW(DELTA_METADATA_MISMATCH, {{"details", details}});
}

class DeltaSink final : public Sink {
 public:
  DeltaSink(std::shared_ptr<io::FileSystem> fs, std::string table_root, DeltaSinkOptions options)
      : fs_(std::move(fs)),
        table_root_(io::TrimTrailingSeparators(table_root)),
        options_(std::move(options)) {
    if (options_.output_mode == OutputMode::kUpdate) {
      SILT_THROW(DELTA_UNSUPPORTED_OUTPUT_MODE, {{"dataSource", "Delta"}, {"mode", "Update"}});
    }
  }

  std::string Describe() const override { return "DeltaSink[" + table_root_ + "]"; }

  std::optional<int64_t> AddBatch(const BatchContext& batch) override {
    auto snapshot = log::Snapshot::Load(fs_, table_root_);
    // A batch that committed before a crash, whose commit marker was not written yet.
    std::optional<int64_t> done = snapshot->TransactionVersion(batch.query_id);
    if (done && *done >= batch.batch_id) return 0;

    SchemaPtr data_schema;
    std::vector<Batch> rows = batch.Run(&data_schema);
    // Appends and whole-table replacements need nothing of the change data feed: readers
    // derive their changes from the adds and removes.
    auto txn = log::Transaction::Start(snapshot, {"changeDataFeed"});
    txn->ReadTransactionVersion(batch.query_id);
    log::Metadata metadata = txn->metadata();
    Schema table_schema = snapshot->schema();
    CheckPartitioning(metadata);

    // Match the batch's columns to the table's by name; add new ones with mergeSchema.
    std::vector<Field> fields = table_schema.fields();
    std::vector<int> source_of(fields.size(), -1);
    bool evolved = false;
    for (size_t i = 0; i < data_schema->num_fields(); ++i) {
      const Field& column = data_schema->field(i);
      int index = table_schema.FieldIndex(column.name, /*case_sensitive=*/false);
      if (index < 0) {
        if (!options_.merge_schema) {
          ThrowMismatch("A schema mismatch detected when writing to the Delta table: the data has "
                        "column " + column.name + " (" + column.type->ToString() +
                        "), which the table does not. To enable schema migration, set the "
                        "option mergeSchema to true.");
        }
        fields.push_back(Field{column.name, column.type, true, {}});
        source_of.push_back(static_cast<int>(i));
        evolved = true;
        continue;
      }
      if (!column.type->Equals(*fields[index].type)) {
        ThrowMismatch("A schema mismatch detected when writing to the Delta table: column " +
                      fields[index].name + " is " + fields[index].type->ToString() +
                      " in the table and " + column.type->ToString() + " in the data.");
      }
      source_of[index] = static_cast<int>(i);
    }
    auto schema = std::make_shared<const Schema>(fields);
    if (evolved) {
      metadata.schema_string = ToDeltaSchemaJson(*schema);
      txn->UpdateMetadata(metadata);
    }

    log::DataFileWriterOptions writer_options;
    writer_options.max_rows_per_file = options_.max_rows_per_file;
    auto writer = log::DataFileWriter::Make(fs_, table_root_, metadata, writer_options);
    int64_t output_rows = 0;
    for (const Batch& input : rows) {
      if (input.num_rows() == 0) continue;
      std::vector<VectorPtr> columns;
      for (size_t i = 0; i < fields.size(); ++i) {
        columns.push_back(source_of[i] >= 0
                              ? input.column(static_cast<size_t>(source_of[i]))
                              : Vector::MakeAllNull(fields[i].type, input.num_rows()));
      }
      writer->Write(Batch(schema, std::move(columns), input.num_rows()));
      output_rows += input.num_rows();
    }
    std::vector<log::AddFile> adds = writer->Finish();
    ReachFaultPoint(kAfterDataFilesWritten, batch.batch_id);

    int64_t removed_files = 0;
    if (options_.output_mode == OutputMode::kComplete) {
      txn->RecordReadWholeTable();
      for (const log::AddFile& file : snapshot->files()) {
        txn->RecordReadFile(file);
        txn->RemoveLiveFile(file);
        ++removed_files;
      }
    }
    int64_t output_bytes = 0;
    int64_t added_files = static_cast<int64_t>(adds.size());
    for (log::AddFile& add : adds) {
      output_bytes += add.size;
      txn->Add(std::move(add));
    }
    txn->SetApplicationTransaction(batch.query_id, batch.batch_id);
    txn->SetOperation("STREAMING UPDATE",
                      {{"outputMode", Quoted(OutputModeName(options_.output_mode))},
                       {"queryId", Quoted(batch.query_id)},
                       {"epochId", Quoted(std::to_string(batch.batch_id))}},
                      {{"numRemovedFiles", std::to_string(removed_files)},
                       {"numOutputRows", std::to_string(output_rows)},
                       {"numOutputBytes", std::to_string(output_bytes)},
                       {"numAddedFiles", std::to_string(added_files)}});
    log::CommitOptions commit;
    commit.cancellation = &batch.session->cancellation();
    txn->Commit(commit);
    return output_rows;
  }

 private:
  void CheckPartitioning(const log::Metadata& metadata) const {
    if (options_.partition_by.empty()) return;
    bool same = options_.partition_by.size() == metadata.partition_columns.size();
    for (size_t i = 0; same && i < options_.partition_by.size(); ++i) {
      same = AsciiLower(options_.partition_by[i]) == AsciiLower(metadata.partition_columns[i]);
    }
    if (!same) {
      std::string table;
      for (const auto& column : metadata.partition_columns) table += (table.empty() ? "" : ", ") + column;
      std::string wanted;
      for (const auto& column : options_.partition_by) wanted += (wanted.empty() ? "" : ", ") + column;
      ThrowMismatch("Partition columns do not match the partition columns of the table. Given: [" +
                    wanted + "], table: [" + table + "]");
    }
  }

  std::shared_ptr<io::FileSystem> fs_;
  std::string table_root_;
  DeltaSinkOptions options_;
};

}  // namespace

std::unique_ptr<Sink> MakeDeltaSink(std::shared_ptr<io::FileSystem> fs, std::string table_root,
                                    DeltaSinkOptions options) {
  return std::make_unique<DeltaSink>(std::move(fs), std::move(table_root), std::move(options));
}

}  // namespace silt::stream
