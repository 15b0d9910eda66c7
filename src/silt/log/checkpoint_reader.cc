#include "silt/log/checkpoint_reader.h"

#include <mutex>

#include <cmath>
#include <cstdint>

#include "silt/base/check.h"
#include "silt/base/thread_pool.h"
#include "silt/io/path.h"
#include "silt/log/json_text_internal.h"
#include "silt/log/partition_values.h"
#include "silt/parquet/reader.h"
#include "silt/types/date_time.h"
#include "silt/vector/value_text.h"

namespace silt::log {

namespace {

// A value of a column: the vector and the logical index to pass to its accessors. A struct's
// children are indexed at the struct's offset plus the row (Arrow's layout, see vector.h).
struct Cell {
  const Vector* vector = nullptr;
  int64_t row = 0;

  bool Present() const { return vector != nullptr && vector->IsValid(row); }
};

class RowReader {
 public:
  RowReader(Cell cell, std::string_view file, std::string_view action)
      : cell_(cell), file_(file), action_(action) {}

  // Field `name` of the struct as a shared vector and the row to read it at.
  ParsedStats SharedField(std::string_view name) const {
    int index = cell_.vector->type()->FieldIndex(name);
    if (index < 0) return {};
    return {cell_.vector->child(static_cast<size_t>(index)), cell_.vector->offset() + cell_.row};
  }

  Cell Field(std::string_view name) const {
    const DataType& type = *cell_.vector->type();
    int index = type.FieldIndex(name);
    if (index < 0) return {};
    return {cell_.vector->child(static_cast<size_t>(index)).get(),
            cell_.vector->offset() + cell_.row};
  }

  [[noreturn]] void Fail(std::string_view name, std::string_view problem) const {
    SILT_THROW(DELTA_INVALID_CHECKPOINT,
               {{"file", std::string(file_)},
                {"message", std::string(action_) + "." + std::string(name) + " " +
                                std::string(problem)}});
  }

  std::optional<std::string> OptionalString(std::string_view name) const {
    Cell cell = Field(name);
    if (!cell.Present()) return std::nullopt;
    TypeId id = cell.vector->type_id();
    if (id != TypeId::kString && id != TypeId::kBinary) Fail(name, "is not a string");
    return std::string(cell.vector->GetString(cell.row));
  }
  std::optional<int64_t> OptionalInt64(std::string_view name) const {
    Cell cell = Field(name);
    if (!cell.Present()) return std::nullopt;
    switch (cell.vector->type_id()) {
      case TypeId::kLong: return cell.vector->values<int64_t>()[cell.row];
      case TypeId::kInteger: return cell.vector->values<int32_t>()[cell.row];
      case TypeId::kShort: return cell.vector->values<int16_t>()[cell.row];
      case TypeId::kByte: return cell.vector->values<int8_t>()[cell.row];
      default: Fail(name, "is not an integer");
    }
  }
  std::optional<bool> OptionalBool(std::string_view name) const {
    Cell cell = Field(name);
    if (!cell.Present()) return std::nullopt;
    if (cell.vector->type_id() != TypeId::kBoolean) Fail(name, "is not a boolean");
    return cell.vector->GetBool(cell.row);
  }
  std::string RequiredString(std::string_view name) const {
    auto value = OptionalString(name);
    if (!value) Fail(name, "is missing");
    return std::move(*value);
  }
  int64_t RequiredInt64(std::string_view name) const {
    auto value = OptionalInt64(name);
    if (!value) Fail(name, "is missing");
    return *value;
  }

  // A MAP<string, string> column; null values are kept as nullopt.
  std::optional<PartitionValueMap> OptionalMap(std::string_view name) const {
    Cell cell = Field(name);
    if (!cell.Present()) return std::nullopt;
    if (cell.vector->type_id() != TypeId::kMap) Fail(name, "is not a map");
    const Vector& entries = *cell.vector->child(0);
    const Vector& keys = *entries.child(0);
    const Vector& values = *entries.child(1);
    if (keys.type_id() != TypeId::kString || values.type_id() != TypeId::kString) {
      Fail(name, "is not a map of strings");
    }
    PartitionValueMap map;
    int32_t start = cell.vector->ListStart(cell.row);
    int32_t length = cell.vector->ListLength(cell.row);
    for (int32_t i = start; i < start + length; ++i) {
      int64_t index = entries.offset() + i;
      if (keys.IsNull(index)) Fail(name, "has a null key");
      std::optional<std::string> value;
      if (values.IsValid(index)) value = std::string(values.GetString(index));
      map.emplace_back(std::string(keys.GetString(index)), std::move(value));
    }
    return map;
  }
  std::optional<StringMap> OptionalStringMap(std::string_view name) const {
    auto map = OptionalMap(name);
    if (!map) return std::nullopt;
    StringMap result;
    for (auto& [key, value] : *map) {
      if (value) result.emplace_back(std::move(key), std::move(*value));
    }
    return result;
  }
  std::optional<std::vector<std::string>> OptionalStringList(std::string_view name) const {
    Cell cell = Field(name);
    if (!cell.Present()) return std::nullopt;
    if (cell.vector->type_id() != TypeId::kList) Fail(name, "is not a list");
    const Vector& elements = *cell.vector->child(0);
    if (elements.type_id() != TypeId::kString) Fail(name, "is not a list of strings");
    std::vector<std::string> result;
    int32_t start = cell.vector->ListStart(cell.row);
    for (int32_t i = start; i < start + cell.vector->ListLength(cell.row); ++i) {
      if (elements.IsNull(i)) Fail(name, "has a null element");
      result.emplace_back(elements.GetString(i));
    }
    return result;
  }
  std::optional<RowReader> Struct(std::string_view name) const {
    Cell cell = Field(name);
    if (!cell.Present()) return std::nullopt;
    if (cell.vector->type_id() != TypeId::kStruct) Fail(name, "is not a struct");
    return RowReader(cell, file_, name);
  }

 private:
  Cell cell_;
  std::string_view file_;
  std::string_view action_;
};

std::optional<DeletionVectorDescriptor> ReadDeletionVector(const RowReader& parent) {
  auto reader = parent.Struct("deletionVector");
  if (!reader) return std::nullopt;
  DeletionVectorDescriptor dv;
  std::string storage_type = reader->RequiredString("storageType");
  if (storage_type.size() != 1 ||
      (storage_type[0] != 'u' && storage_type[0] != 'i' && storage_type[0] != 'p')) {
    reader->Fail("storageType", "is not one of u, i, p");
  }
  dv.storage_type = storage_type[0];
  dv.path_or_inline_dv = reader->RequiredString("pathOrInlineDv");
  // Range-checked as in the JSON log: the reader computes byte ranges from these.
  if (auto offset = reader->OptionalInt64("offset")) {
    if (*offset < 0 || *offset > INT32_MAX) reader->Fail("offset", "is out of range");
    dv.offset = static_cast<int32_t>(*offset);
  }
  int64_t size = reader->RequiredInt64("sizeInBytes");
  if (size < 0 || size > INT32_MAX) reader->Fail("sizeInBytes", "is out of range");
  dv.size_in_bytes = static_cast<int32_t>(size);
  dv.cardinality = reader->RequiredInt64("cardinality");
  if (dv.cardinality < 0) reader->Fail("cardinality", "is negative");
  dv.max_row_index = reader->OptionalInt64("maxRowIndex");
  return dv;
}

// Appends the JSON form of one statistics value as Spark writes it in `stats` (protocol §8);
// returns false for a value that has no JSON form (NULL, NaN, nested lists and maps).
bool AppendStatsValue(std::string& out, const Vector& vector, int64_t row) {
  if (vector.IsNull(row)) return false;
  const DataType& type = *vector.type();
  switch (type.id()) {
    case TypeId::kBoolean: out += vector.GetBool(row) ? "true" : "false"; return true;
    case TypeId::kByte: out += std::to_string(vector.values<int8_t>()[row]); return true;
    case TypeId::kShort: out += std::to_string(vector.values<int16_t>()[row]); return true;
    case TypeId::kInteger: out += std::to_string(vector.values<int32_t>()[row]); return true;
    case TypeId::kLong: out += std::to_string(vector.values<int64_t>()[row]); return true;
    case TypeId::kFloat:
    case TypeId::kDouble: {
      double value = type.id() == TypeId::kFloat ? vector.values<float>()[row]
                                                 : vector.values<double>()[row];
      if (!std::isfinite(value)) return false;
      out += FormatJavaDouble(value);
      return true;
    }
    case TypeId::kDecimal: out += FormatDecimal(vector.values<Decimal128>()[row], type.scale()); return true;
    case TypeId::kString: internal::AppendJsonString(out, vector.GetString(row)); return true;
    case TypeId::kDate: internal::AppendJsonString(out, FormatDate(vector.values<int32_t>()[row])); return true;
    case TypeId::kTimestamp:
      internal::AppendJsonString(out, FormatPartitionValue(type, Scalar(vector.values<int64_t>()[row])));
      return true;
    case TypeId::kTimestampNtz: {
      std::string text = FormatTimestamp(vector.values<int64_t>()[row]);
      text[10] = 'T';
      internal::AppendJsonString(out, text);
      return true;
    }
    case TypeId::kStruct: {
      out.push_back('{');
      bool first = true;
      for (size_t i = 0; i < type.fields().size(); ++i) {
        std::string value;
        if (!AppendStatsValue(value, *vector.child(i), vector.offset() + row)) continue;
        if (!first) out.push_back(',');
        first = false;
        internal::AppendJsonString(out, type.fields()[i].name);
        out.push_back(':');
        out += value;
      }
      out.push_back('}');
      return true;
    }
    default:
      return false;
  }
}

// Checkpoints written with delta.checkpoint.writeStatsAsJson=false carry only `stats_parsed`;
// it is turned back into the JSON text so that pruning works the same way for every file.
std::optional<std::string> StatsFromParsed(const RowReader& reader) {
  auto parsed = reader.Struct("stats_parsed");
  if (!parsed) return std::nullopt;
  Cell cell = reader.Field("stats_parsed");
  std::string json;
  if (!AppendStatsValue(json, *cell.vector, cell.row) || json == "{}") return std::nullopt;
  return json;
}

AddFile ReadAdd(const RowReader& reader) {
  AddFile add;
  add.path = reader.RequiredString("path");
  add.partition_values = reader.OptionalMap("partitionValues").value_or(PartitionValueMap{});
  add.size = reader.RequiredInt64("size");
  add.modification_time = reader.OptionalInt64("modificationTime").value_or(0);
  add.data_change = reader.OptionalBool("dataChange").value_or(false);
  add.stats = reader.OptionalString("stats");
  if (!add.stats) add.stats = StatsFromParsed(reader);
  if (reader.Struct("stats_parsed")) add.parsed_stats = reader.SharedField("stats_parsed");
  add.tags = reader.OptionalStringMap("tags");
  add.deletion_vector = ReadDeletionVector(reader);
  add.base_row_id = reader.OptionalInt64("baseRowId");
  add.default_row_commit_version = reader.OptionalInt64("defaultRowCommitVersion");
  add.clustering_provider = reader.OptionalString("clusteringProvider");
  return add;
}

RemoveFile ReadRemove(const RowReader& reader) {
  RemoveFile remove;
  remove.path = reader.RequiredString("path");
  remove.deletion_timestamp = reader.OptionalInt64("deletionTimestamp");
  remove.data_change = reader.OptionalBool("dataChange").value_or(false);
  remove.extended_file_metadata = reader.OptionalBool("extendedFileMetadata");
  remove.partition_values = reader.OptionalMap("partitionValues");
  remove.size = reader.OptionalInt64("size");
  remove.tags = reader.OptionalStringMap("tags");
  remove.deletion_vector = ReadDeletionVector(reader);
  remove.base_row_id = reader.OptionalInt64("baseRowId");
  remove.default_row_commit_version = reader.OptionalInt64("defaultRowCommitVersion");
  return remove;
}

Metadata ReadMetadata(const RowReader& reader) {
  Metadata metadata;
  metadata.id = reader.RequiredString("id");
  metadata.name = reader.OptionalString("name");
  metadata.description = reader.OptionalString("description");
  if (auto format = reader.Struct("format")) {
    metadata.format.provider = format->OptionalString("provider").value_or("parquet");
    metadata.format.options = format->OptionalStringMap("options").value_or(StringMap{});
  }
  metadata.schema_string = reader.RequiredString("schemaString");
  // Required: without it a partitioned table's files would read with NULL partition values.
  std::optional<std::vector<std::string>> partition_columns =
      reader.OptionalStringList("partitionColumns");
  if (!partition_columns) reader.Fail("partitionColumns", "is missing");
  metadata.partition_columns = std::move(*partition_columns);
  metadata.created_time = reader.OptionalInt64("createdTime");
  metadata.configuration = reader.OptionalStringMap("configuration").value_or(StringMap{});
  return metadata;
}

Protocol ReadProtocol(const RowReader& reader) {
  Protocol protocol;
  int64_t reader_version = reader.RequiredInt64("minReaderVersion");
  int64_t writer_version = reader.RequiredInt64("minWriterVersion");
  if (reader_version < 0 || reader_version > INT32_MAX) {
    reader.Fail("minReaderVersion", "is out of range");
  }
  if (writer_version < 0 || writer_version > INT32_MAX) {
    reader.Fail("minWriterVersion", "is out of range");
  }
  protocol.min_reader_version = static_cast<int32_t>(reader_version);
  protocol.min_writer_version = static_cast<int32_t>(writer_version);
  protocol.reader_features = reader.OptionalStringList("readerFeatures");
  protocol.writer_features = reader.OptionalStringList("writerFeatures");
  return protocol;
}

}  // namespace

std::vector<Action> ActionsFromCheckpointBatch(const Batch& batch, std::string_view file) {
  std::vector<Action> actions;
  const Schema& schema = *batch.schema();
  auto column = [&](std::string_view name) -> const Vector* {
    int index = schema.FieldIndex(name);
    if (index < 0) return nullptr;
    const Vector* vector = batch.column(static_cast<size_t>(index)).get();
    return vector->type_id() == TypeId::kStruct ? vector : nullptr;
  };
  const Vector* add = column("add");
  const Vector* remove = column("remove");
  const Vector* metadata = column("metaData");
  const Vector* protocol = column("protocol");
  const Vector* txn = column("txn");
  const Vector* domain = column("domainMetadata");
  const Vector* checkpoint_metadata = column("checkpointMetadata");
  const Vector* sidecar = column("sidecar");
  for (int64_t row = 0; row < batch.num_rows(); ++row) {
    auto present = [&](const Vector* vector) { return vector != nullptr && vector->IsValid(row); };
    if (present(add)) {
      actions.emplace_back(ReadAdd(RowReader({add, row}, file, "add")));
    } else if (present(remove)) {
      actions.emplace_back(ReadRemove(RowReader({remove, row}, file, "remove")));
    } else if (present(metadata)) {
      actions.emplace_back(ReadMetadata(RowReader({metadata, row}, file, "metaData")));
    } else if (present(protocol)) {
      actions.emplace_back(ReadProtocol(RowReader({protocol, row}, file, "protocol")));
    } else if (present(txn)) {
      RowReader reader({txn, row}, file, "txn");
      actions.emplace_back(SetTransaction{reader.RequiredString("appId"),
                                          reader.RequiredInt64("version"),
                                          reader.OptionalInt64("lastUpdated")});
    } else if (present(domain)) {
      RowReader reader({domain, row}, file, "domainMetadata");
      actions.emplace_back(DomainMetadata{reader.RequiredString("domain"),
                                          reader.OptionalString("configuration").value_or(""),
                                          reader.OptionalBool("removed").value_or(false)});
    } else if (present(checkpoint_metadata)) {
      RowReader reader({checkpoint_metadata, row}, file, "checkpointMetadata");
      actions.emplace_back(
          CheckpointMetadata{reader.RequiredInt64("version"), reader.OptionalStringMap("tags")});
    } else if (present(sidecar)) {
      RowReader reader({sidecar, row}, file, "sidecar");
      actions.emplace_back(Sidecar{reader.RequiredString("path"),
                                   reader.OptionalInt64("sizeInBytes").value_or(0),
                                   reader.OptionalInt64("modificationTime").value_or(0),
                                   reader.OptionalStringMap("tags")});
    }
  }
  return actions;
}

namespace {

[[noreturn]] void FailCheckpoint(const std::string& path, std::string message) {
  SILT_THROW(DELTA_INVALID_CHECKPOINT, {{"file", path}, {"message", std::move(message)}});
}

// A checkpoint (or sidecar) file must have the columns that carry the table's state: without
// `add` every file of the table would be missing, without `add.partitionValues` or
// `metaData.partitionColumns` the partition values would read as NULL. A V2 checkpoint whose
// file actions live in sidecars may leave `add` out.
void CheckActionColumns(const Schema& schema, const std::string& path) {
  auto struct_type = [&](std::string_view name) -> const DataType* {
    int index = schema.FieldIndex(name);
    if (index < 0) return nullptr;
    const DataType* type = schema.field(static_cast<size_t>(index)).type.get();
    if (type->id() != TypeId::kStruct) FailCheckpoint(path, std::string(name) + " is not a struct");
    return type;
  };
  auto require = [&](const DataType* type, std::string_view action,
                     std::initializer_list<std::string_view> fields) {
    for (std::string_view field : fields) {
      if (type->FieldIndex(field) < 0) {
        FailCheckpoint(path, "the " + std::string(action) + " column has no " + std::string(field) +
                                 " field");
      }
    }
  };
  bool v2_manifest = schema.FieldIndex("sidecar") >= 0 || schema.FieldIndex("checkpointMetadata") >= 0;
  if (const DataType* add = struct_type("add")) {
    require(add, "add", {"path", "partitionValues", "size"});
  } else if (!v2_manifest) {
    FailCheckpoint(path, "the file has no add column");
  }
  if (const DataType* remove = struct_type("remove")) require(remove, "remove", {"path"});
  if (const DataType* metadata = struct_type("metaData")) {
    require(metadata, "metaData", {"id", "schemaString", "partitionColumns"});
  }
  if (const DataType* protocol = struct_type("protocol")) {
    require(protocol, "protocol", {"minReaderVersion", "minWriterVersion"});
  }
}

// Only the action columns are read: a checkpoint may also hold wide stats_parsed structs.
std::vector<Action> ReadParquetActions(io::FileSystem& fs, const std::string& path, ThreadPool* pool) {
  auto reader = parquet::FileReader::Open(fs, path);
  CheckActionColumns(reader->schema(), path);
  parquet::ReadOptions options;
  options.pool = pool;
  for (const char* name : {"add", "remove", "metaData", "protocol", "txn", "domainMetadata",
                           "checkpointMetadata", "sidecar"}) {
    if (reader->schema().FieldIndex(name) >= 0) options.columns.emplace_back(name);
  }
  std::vector<Action> actions;
  if (options.columns.empty()) return actions;
  for (const Batch& batch : reader->Read(options)) {
    auto part = ActionsFromCheckpointBatch(batch, path);
    actions.insert(actions.end(), std::make_move_iterator(part.begin()),
                   std::make_move_iterator(part.end()));
  }
  return actions;
}

std::vector<Action> ReadCheckpointFile(io::FileSystem& fs, const std::string& path, bool json,
                                       ThreadPool* pool) {
  if (json) return ParseActions(fs.ReadFile(path), path);
  return ReadParquetActions(fs, path, pool);
}

}  // namespace

std::vector<Action> ReadCheckpoint(io::FileSystem& fs, std::string_view log_dir,
                                   const Checkpoint& checkpoint, ThreadPool* pool) {
  ThreadPool& workers = pool != nullptr ? *pool : ThreadPool::Default();
  std::vector<std::vector<Action>> parts(checkpoint.files.size());
  workers.ParallelFor(parts.size(), [&](size_t i) {
    const std::string& path = checkpoint.files[i].path;
    bool json = path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0;
    parts[i] = ReadCheckpointFile(fs, path, json, &workers);
  });
  std::vector<Action> actions;
  for (auto& part : parts) {
    actions.insert(actions.end(), std::make_move_iterator(part.begin()),
                   std::make_move_iterator(part.end()));
  }
  // V2: the file actions live in the sidecars that the checkpoint lists.
  std::vector<std::string> sidecars;
  for (const auto& action : actions) {
    if (const auto* sidecar = std::get_if<Sidecar>(&action)) {
      std::string path = DecodeLogPath(sidecar->path);
      bool absolute = path.find(':') != std::string::npos || (!path.empty() && path[0] == '/');
      sidecars.push_back(absolute ? path : io::JoinPath(io::JoinPath(log_dir, "_sidecars"), path));
    }
  }
  if (sidecars.empty()) return actions;
  std::vector<std::vector<Action>> sidecar_actions(sidecars.size());
  workers.ParallelFor(sidecars.size(), [&](size_t i) {
    sidecar_actions[i] = ReadParquetActions(fs, sidecars[i], &workers);
  });
  for (auto& part : sidecar_actions) {
    actions.insert(actions.end(), std::make_move_iterator(part.begin()),
                   std::make_move_iterator(part.end()));
  }
  return actions;
}

}  // namespace silt::log
