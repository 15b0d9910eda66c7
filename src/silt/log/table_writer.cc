#include "silt/log/table_writer.h"

#include "silt/base/json_writer.h"
#include "silt/types/schema_json.h"

namespace silt::log {

namespace {

std::string JsonArrayText(const std::vector<std::string>& values) {
  JsonWriter json;
  json.BeginArray();
  for (const auto& value : values) json.String(value);
  json.EndArray();
  return json.Release();
}

// A string parameter as Spark stores it: a JSON string value.
std::string Quoted(std::string_view text) {
  std::string out;
  AppendJsonString(out, text);
  return out;
}

struct WrittenFiles {
  std::vector<AddFile> adds;
  int64_t rows = 0;
  int64_t bytes = 0;
};

WrittenFiles WriteRows(const std::shared_ptr<io::FileSystem>& fs, const std::string& table_root,
                       const Metadata& metadata, const std::vector<Batch>& rows,
                       const DataFileWriterOptions& options) {
  WrittenFiles written;
  if (rows.empty()) return written;
  auto writer = DataFileWriter::Make(fs, table_root, metadata, options);
  for (const auto& batch : rows) {
    writer->Write(batch);
    written.rows += batch.num_rows();
  }
  written.adds = writer->Finish();
  for (const auto& add : written.adds) written.bytes += add.size;
  return written;
}

StringMap WriteMetrics(const WrittenFiles& written) {
  return {{"numFiles", std::to_string(written.adds.size())},
          {"numOutputRows", std::to_string(written.rows)},
          {"numOutputBytes", std::to_string(written.bytes)}};
}

}  // namespace

CommitResult CreateTable(std::shared_ptr<io::FileSystem> fs, const std::string& table_root,
                         const CreateTableOptions& options, const std::vector<Batch>& rows) {
  Metadata metadata;
  metadata.name = options.name;
  metadata.description = options.description;
  metadata.schema_string = ToDeltaSchemaJson(options.schema);
  metadata.partition_columns = options.partition_columns;
  metadata.configuration = options.configuration;
  auto txn = Transaction::StartCreate(fs, table_root);
  txn->UpdateMetadata(metadata);
  // Validate the table before writing any data file.
  RequiredProtocol(metadata);
  WrittenFiles written = WriteRows(fs, table_root, metadata, rows, options.writer);
  for (auto& add : written.adds) txn->Add(std::move(add));
  std::vector<std::pair<std::string, std::string>> parameters = {
      {"partitionBy", Quoted(JsonArrayText(options.partition_columns))},
      {"description", options.description ? Quoted(*options.description) : "null"},
      {"isManaged", Quoted("false")},
      {"properties", Quoted([&] {
         JsonWriter json;
         json.BeginObject();
         for (const auto& [key, value] : options.configuration) {
           json.Key(key);
           json.String(value);
         }
         json.EndObject();
         return json.Release();
       }())}};
  txn->SetOperation(rows.empty() ? "CREATE TABLE" : "CREATE TABLE AS SELECT", std::move(parameters),
                    rows.empty() ? StringMap{} : WriteMetrics(written));
  return txn->Commit(options.commit);
}

WriteResult AppendToTable(std::shared_ptr<io::FileSystem> fs, const std::string& table_root,
                          const std::vector<Batch>& rows, const WriteOptions& options) {
  auto txn = Transaction::Start(Snapshot::Load(fs, table_root));
  WriteResult result;
  if (options.txn_app_id && options.txn_version) {
    std::optional<int64_t> done = txn->ReadTransactionVersion(*options.txn_app_id);
    if (done && *done >= *options.txn_version) return result;
    txn->SetApplicationTransaction(*options.txn_app_id, *options.txn_version);
  }
  WrittenFiles written = WriteRows(fs, table_root, txn->metadata(), rows, options.writer);
  result.added = written.adds;
  for (auto& add : written.adds) txn->Add(std::move(add));
  txn->SetOperation("WRITE",
                    {{"mode", Quoted("Append")}, {"partitionBy", Quoted(JsonArrayText(txn->metadata().partition_columns))}},
                    WriteMetrics(written));
  result.commit = txn->Commit(options.commit);
  return result;
}

WriteResult OverwriteTable(std::shared_ptr<io::FileSystem> fs, const std::string& table_root,
                           const std::vector<Batch>& rows, const WriteOptions& options) {
  auto txn = Transaction::Start(Snapshot::Load(fs, table_root));
  WriteResult result;
  if (options.txn_app_id && options.txn_version) {
    std::optional<int64_t> done = txn->ReadTransactionVersion(*options.txn_app_id);
    if (done && *done >= *options.txn_version) return result;
    txn->SetApplicationTransaction(*options.txn_app_id, *options.txn_version);
  }
  txn->RecordReadWholeTable();
  int64_t removed_bytes = 0;
  for (const auto& file : txn->snapshot()->files()) {
    txn->RecordReadFile(file);
    txn->RemoveLiveFile(file);
    removed_bytes += file.size;
    ++result.removed_files;
  }
  WrittenFiles written = WriteRows(fs, table_root, txn->metadata(), rows, options.writer);
  result.added = written.adds;
  for (auto& add : written.adds) txn->Add(std::move(add));
  StringMap metrics = WriteMetrics(written);
  metrics.emplace_back("numRemovedFiles", std::to_string(result.removed_files));
  metrics.emplace_back("numRemovedBytes", std::to_string(removed_bytes));
  txn->SetOperation("WRITE",
                    {{"mode", Quoted("Overwrite")},
                     {"partitionBy", Quoted(JsonArrayText(txn->metadata().partition_columns))}},
                    std::move(metrics));
  result.commit = txn->Commit(options.commit);
  return result;
}

}  // namespace silt::log
