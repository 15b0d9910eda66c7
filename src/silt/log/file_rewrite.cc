#include "silt/log/file_rewrite.h"

#include <simdjson.h>

#include "silt/base/ascii.h"
#include "silt/base/thread_pool.h"
#include "silt/log/data_file_writer.h"
#include "silt/log/row_tracking.h"
#include "silt/log/table_features.h"
#include "silt/log/table_scan.h"
#include "silt/parquet/reader.h"
#include "silt/vector/batch.h"

namespace silt::log {

namespace {

// The name a data file stores table field `field` under: its physical name under column mapping.
std::string StoredName(const Field& field, bool mapped) {
  const std::string* raw =
      mapped ? field.FindMetadata("delta.columnMapping.physicalName") : nullptr;
  if (raw == nullptr) return field.name;
  simdjson::dom::parser parser;
  std::string_view text;
  if (parser.parse(*raw).get_string().get(text) == simdjson::SUCCESS) return std::string(text);
  return *raw;
}

bool TypesDiffer(const DataType& table, const DataType& stored, bool mapped);

bool FieldsDiffer(const std::vector<Field>& table, const std::vector<Field>& stored, bool mapped) {
  for (const Field& field : table) {
    std::string name = StoredName(field, mapped);
    for (const Field& candidate : stored) {
      if (!EqualsIgnoreCase(candidate.name, name)) continue;
      if (TypesDiffer(*field.type, *candidate.type, mapped)) return true;
      break;
    }
  }
  return false;
}

bool TypesDiffer(const DataType& table, const DataType& stored, bool mapped) {
  if (table.id() != stored.id()) return true;
  switch (table.id()) {
    case TypeId::kStruct:
      return FieldsDiffer(table.fields(), stored.fields(), mapped);
    case TypeId::kList:
      return TypesDiffer(*table.element_type(), *stored.element_type(), mapped);
    case TypeId::kMap:
      return TypesDiffer(*table.key_type(), *stored.key_type(), mapped) ||
             TypesDiffer(*table.value_type(), *stored.value_type(), mapped);
    default:
      return !table.Equals(stored);
  }
}

// True when `stored` (a file's fields) holds a field `table` (the schema's) does not have, in
// a field or nested struct; `ignored` are top-level names that are not table columns.
bool HoldsDroppedFields(const std::vector<Field>& table, const std::vector<Field>& stored,
                        const std::vector<std::string>& ignored) {
  for (const Field& candidate : stored) {
    bool skip = false;
    for (const std::string& name : ignored) skip = skip || EqualsIgnoreCase(name, candidate.name);
    if (skip) continue;
    const Field* match = nullptr;
    for (const Field& field : table) {
      if (EqualsIgnoreCase(StoredName(field, /*mapped=*/true), candidate.name)) match = &field;
    }
    if (match == nullptr) return true;
    if (match->type->id() == TypeId::kStruct && candidate.type->id() == TypeId::kStruct &&
        HoldsDroppedFields(match->type->fields(), candidate.type->fields(), {})) {
      return true;
    }
  }
  return false;
}

}  // namespace

std::vector<AddFile> FilesWithDroppedColumns(const std::shared_ptr<const Snapshot>& snapshot,
                                             const std::function<bool(const AddFile&)>& among) {
  const Metadata& metadata = snapshot->metadata();
  if (GetColumnMappingMode(metadata) == ColumnMappingMode::kNone) return {};
  std::vector<std::string> ignored;
  for (std::string_view key : {kMaterializedRowIdColumnKey, kMaterializedRowCommitVersionColumnKey}) {
    if (const std::string* name = FindValue(metadata.configuration, key)) ignored.push_back(*name);
  }
  const Schema& schema = snapshot->schema();
  std::vector<AddFile> result;
  for (const AddFile& file : snapshot->files()) {
    if (among && !among(file)) continue;
    auto reader = parquet::FileReader::Open(*snapshot->file_system(), snapshot->ResolvePath(file.path));
    if (HoldsDroppedFields(schema.fields(), reader->schema().fields(), ignored)) result.push_back(file);
  }
  return result;
}

std::vector<AddFile> FilesWithOtherTypes(const std::shared_ptr<const Snapshot>& snapshot) {
  const bool mapped = GetColumnMappingMode(snapshot->metadata()) != ColumnMappingMode::kNone;
  const Schema& schema = snapshot->schema();
  std::vector<AddFile> result;
  for (const AddFile& file : snapshot->files()) {
    auto reader = parquet::FileReader::Open(*snapshot->file_system(), snapshot->ResolvePath(file.path));
    if (FieldsDiffer(schema.fields(), reader->schema().fields(), mapped)) result.push_back(file);
  }
  return result;
}

std::vector<AddFile> RewriteFiles(const std::shared_ptr<const Snapshot>& snapshot,
                                  const std::vector<AddFile>& files,
                                  const FileRewriteOptions& options) {
  if (files.empty()) return {};
  const Metadata& metadata =
      options.written_metadata ? *options.written_metadata : snapshot->metadata();
  ScanOptions scan_options;
  scan_options.pool = options.pool;
  auto schema = std::make_shared<Schema>(snapshot->schema());
  // Under row tracking each row's stable id and commit version come from the scan's `_metadata`
  // (its last two fields) and go to the materialized columns of the new file.
  std::vector<Field> hidden_columns;
  const std::string* row_id = FindValue(metadata.configuration, kMaterializedRowIdColumnKey);
  const std::string* commit_version =
      FindValue(metadata.configuration, kMaterializedRowCommitVersionColumnKey);
  if (IsRowTrackingEnabled(snapshot->protocol(), snapshot->metadata()) && row_id != nullptr &&
      commit_version != nullptr) {
    scan_options.file_metadata = true;
    hidden_columns = {Field{*row_id, LongType(), true, {}},
                      Field{*commit_version, LongType(), true, {}}};
  }
  SchemaPtr writer_schema = schema;
  if (!hidden_columns.empty()) {
    std::vector<Field> fields = schema->fields();
    fields.insert(fields.end(), hidden_columns.begin(), hidden_columns.end());
    writer_schema = std::make_shared<Schema>(std::move(fields));
  }
  std::unique_ptr<TableScan> scan = TableScan::Make(snapshot, scan_options);

  auto rewrite = [&](const AddFile& file) {
    DataFileWriterOptions writer_options;
    writer_options.data_change = false;
    writer_options.parquet.pool = options.pool;
    writer_options.hidden_columns = hidden_columns;
    auto writer = DataFileWriter::Make(snapshot->file_system(), snapshot->table_root(), metadata,
                                       std::move(writer_options));
    std::unique_ptr<TableScan::OpenedFile> opened = scan->OpenFile(file);
    for (int row_group : opened->row_groups()) {
      ThrowIfCanceled(options.cancellation);
      Batch batch = opened->ReadRowGroup(row_group);
      if (batch.num_rows() == 0) continue;
      if (hidden_columns.empty()) {
        writer->Write(Batch(writer_schema, batch.columns(), batch.num_rows()));
        continue;
      }
      std::vector<VectorPtr> columns(
          batch.columns().begin(),
          batch.columns().begin() + static_cast<long>(schema->num_fields()));
      const VectorPtr& file_metadata = batch.columns().back();
      size_t children = file_metadata->type()->fields().size();
      columns.push_back(file_metadata->child(children - 2));
      columns.push_back(file_metadata->child(children - 1));
      writer->Write(Batch(writer_schema, std::move(columns), batch.num_rows()));
    }
    return writer->Finish();
  };

  ThreadPool& pool = options.pool != nullptr ? *options.pool : ThreadPool::Default();
  std::vector<std::vector<AddFile>> written(files.size());
  pool.ParallelFor(files.size(), [&](size_t i) {
    ThrowIfCanceled(options.cancellation);
    written[i] = rewrite(files[i]);
  });
  std::vector<AddFile> adds;
  for (auto& one : written) {
    for (AddFile& add : one) adds.push_back(std::move(add));
  }
  return adds;
}

}  // namespace silt::log
