#include "silt/log/convert_to_delta.h"

#include <algorithm>
#include <chrono>

#include "silt/base/ascii.h"
#include "silt/base/check.h"
#include "silt/base/clock.h"
#include "silt/base/json_writer.h"
#include "silt/base/thread_pool.h"
#include "silt/io/path.h"
#include "silt/log/partition_values.h"
#include "silt/log/random_uuid.h"
#include "silt/log/stats_collector.h"
#include "silt/parquet/reader.h"
#include "silt/types/schema_json.h"

namespace silt::log {
namespace {

// The same type with every field, element and value nullable and without Parquet field ids:
// Spark reads files as nullable, and a converted table gets no constraints from its files.
DataTypePtr AsNullable(const DataTypePtr& type) {
  switch (type->id()) {
    case TypeId::kStruct: {
      std::vector<Field> fields;
      for (const Field& field : type->fields()) {
        fields.push_back(Field{field.name, AsNullable(field.type), true, {}});
      }
      return StructType(std::move(fields));
    }
    case TypeId::kList:
      return ListType(AsNullable(type->element_type()), true);
    case TypeId::kMap:
      return MapType(AsNullable(type->key_type()), AsNullable(type->value_type()), true);
    default:
      return type;
  }
}

std::optional<DataTypePtr> MergeTypes(const DataTypePtr& current, const DataTypePtr& update) {
  if (current->Equals(*update)) return current;
  if (current->id() == TypeId::kStruct && update->id() == TypeId::kStruct) {
    std::vector<Field> fields = current->fields();
    if (!MergeParquetSchema(fields, Schema(update->fields()))) return std::nullopt;
    return StructType(std::move(fields));
  }
  if (current->id() == TypeId::kList && update->id() == TypeId::kList) {
    std::optional<DataTypePtr> element =
        MergeTypes(current->element_type(), update->element_type());
    if (!element) return std::nullopt;
    return ListType(*element, true);
  }
  if (current->id() == TypeId::kMap && update->id() == TypeId::kMap) {
    std::optional<DataTypePtr> key = MergeTypes(current->key_type(), update->key_type());
    std::optional<DataTypePtr> value = MergeTypes(current->value_type(), update->value_type());
    if (!key || !value) return std::nullopt;
    return MapType(*key, *value, true);
  }
  return std::nullopt;
}

// `name` with Hive's %XX escapes decoded (as Spark's unescapePathName).
std::string UnescapePathName(std::string_view name) {
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '%' && i + 2 < name.size()) {
      auto hex = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
      };
      int high = hex(name[i + 1]);
      int low = hex(name[i + 2]);
      if (high >= 0 && low >= 0) {
        out.push_back(static_cast<char>(high * 16 + low));
        i += 2;
        continue;
      }
    }
    out.push_back(name[i]);
  }
  return out;
}

std::vector<std::string> SplitPath(std::string_view path) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    if (end > start) parts.emplace_back(path.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

// Hidden as Delta's file listing hides them: anything starting with '.', and with '_' unless a
// folder is a partition folder (`_col=value`); data file names starting with '_' always.
bool IsHidden(const std::vector<std::string>& parts) {
  for (size_t i = 0; i < parts.size(); ++i) {
    const std::string& part = parts[i];
    bool is_file = i + 1 == parts.size();
    if (part.empty() || part[0] == '.') return true;
    if (part[0] == '_' && (is_file || part.find('=') == std::string::npos)) return true;
  }
  return false;
}

std::string QuotedList(const std::vector<std::string>& names) {
  std::string out = "[";
  for (size_t i = 0; i < names.size(); ++i) out += (i ? ", `" : "`") + names[i] + "`";
  return out + "]";
}

// The partition values of a file from its folders, as Spark parses them: `col=value` folders
// from the file's own folder upwards, stopping at the first other folder once one was found.
PartitionValueMap ParsePartitionFolders(const std::vector<std::string>& parts,
                                        const std::string& path,
                                        const std::vector<Field>& partition_columns) {
  std::vector<std::pair<std::string, std::string>> parsed;
  for (size_t i = parts.size() - 1; i-- > 0;) {
    size_t equals = parts[i].find('=');
    if (equals == std::string::npos || equals == 0) {
      if (!parsed.empty()) break;
      continue;
    }
    parsed.emplace_back(UnescapePathName(parts[i].substr(0, equals)),
                        UnescapePathName(parts[i].substr(equals + 1)));
  }
  std::reverse(parsed.begin(), parsed.end());
  std::vector<std::string> expected;
  for (const Field& field : partition_columns) expected.push_back(field.name);
  if (parsed.size() != partition_columns.size()) {
    std::vector<std::string> parsed_names;
    for (const auto& [name, value] : parsed) parsed_names.push_back(name);
    SILT_THROW(DELTA_UNEXPECTED_NUM_PARTITION_COLUMNS_FROM_FILE_NAME,
               {{"expectedColsSize", std::to_string(expected.size())},
                {"expectedCols", QuotedList(expected)},
                {"parsedColsSize", std::to_string(parsed.size())},
                {"parsedCols", QuotedList(parsed_names)},
                {"path", path}});
  }
  PartitionValueMap values;
  for (size_t i = 0; i < parsed.size(); ++i) {
    const Field& column = partition_columns[i];
    const auto& [name, text] = parsed[i];
    if (AsciiLower(name) != AsciiLower(column.name)) {
      SILT_THROW(DELTA_UNEXPECTED_PARTITION_COLUMN_FROM_FILE_NAME,
                 {{"expectedCol", "`" + column.name + "`"},
                  {"parsedCol", "`" + name + "`"},
                  {"path", path}});
    }
    std::optional<std::string> value;
    if (text != "__HIVE_DEFAULT_PARTITION__") value = text;
    try {
      ParsePartitionValue(*column.type, value, column.name);
    } catch (const Error& error) {
      if (error.error_class() != "DELTA_PARTITION_COLUMN_CAST_FAILED") throw;
      SILT_THROW(DELTA_FAILED_CAST_PARTITION_VALUE,
                 {{"value", text}, {"dataType", column.type->ToString()}});
    }
    values.emplace_back(column.name, std::move(value));
  }
  return values;
}

struct SourceFile {
  io::FileInfo info;
  std::string relative_path;
  PartitionValueMap partition_values;
  /// From the footer; readers are not kept open, as a folder may hold many files.
  Schema schema;
};

// The statistics of one file over the table's data columns, or nullopt when a column's type in
// the file differs from the table's (a narrower struct): statistics over it would claim NULLs.
std::optional<std::string> CollectStats(io::FileSystem& fs, const SourceFile& file,
                                        const Schema& data_schema,
                                        const StatsOptions& stats_options, ThreadPool* pool) {
  const Schema& file_schema = file.schema;
  std::vector<int> source_index;
  for (const Field& field : data_schema.fields()) {
    int index = file_schema.FieldIndex(field.name, /*case_sensitive=*/false);
    if (index >= 0 &&
        !AsNullable(file_schema.field(static_cast<size_t>(index)).type)->Equals(*field.type)) {
      return std::nullopt;
    }
    source_index.push_back(index);
  }
  std::unique_ptr<parquet::FileReader> reader = parquet::FileReader::Open(fs, file.info.path);
  StatsCollector stats(data_schema, stats_options);
  parquet::ReadOptions read_options;
  read_options.pool = pool;
  // Files are spread over the threads already: each decodes on its own thread.
  read_options.max_parallelism = 1;
  auto schema = std::make_shared<Schema>(data_schema);
  for (int row_group = 0; row_group < reader->num_row_groups(); ++row_group) {
    Batch batch = reader->ReadRowGroup(row_group, read_options);
    std::vector<VectorPtr> columns;
    for (size_t i = 0; i < source_index.size(); ++i) {
      columns.push_back(source_index[i] >= 0
                            ? batch.column(static_cast<size_t>(source_index[i]))
                            : Vector::MakeAllNull(data_schema.field(i).type, batch.num_rows()));
    }
    stats.Update(Batch(schema, std::move(columns), batch.num_rows()));
  }
  return stats.ToJson();
}

std::string ConvertParameterJson(const std::vector<Field>& partition_columns) {
  JsonWriter array;
  array.BeginArray();
  for (const Field& field : partition_columns) array.String(field.name);
  array.EndArray();
  JsonWriter quoted;
  quoted.String(array.Release());
  return quoted.Release();
}

}  // namespace

bool MergeParquetSchema(std::vector<Field>& merged, const Schema& file_schema) {
  for (const Field& field : file_schema.fields()) {
    DataTypePtr type = AsNullable(field.type);
    auto existing = std::find_if(merged.begin(), merged.end(), [&](const Field& f) {
      return AsciiLower(f.name) == AsciiLower(field.name);
    });
    if (existing == merged.end()) {
      merged.push_back(Field{field.name, type, true, {}});
      continue;
    }
    std::optional<DataTypePtr> combined = MergeTypes(existing->type, type);
    if (!combined) return false;
    existing->type = *combined;
  }
  return true;
}

ConvertResult ConvertToDelta(std::shared_ptr<io::FileSystem> fs, const std::string& table_root,
                             const ConvertOptions& options) {
  SILT_CHECK(fs != nullptr, "CONVERT TO DELTA without a file system");
  ConvertResult result;
  std::string root(io::TrimTrailingSeparators(table_root));
  if (root.empty()) root = table_root;
  std::vector<io::FileInfo> listing = fs->List(root, "", /*recursive=*/true);
  if (listing.empty() && !fs->Stat(root)) {
    SILT_THROW(DELTA_PATH_DOES_NOT_EXIST, {{"path", table_root}});
  }
  std::string log_prefix = io::JoinPath(root, "_delta_log") + "/";
  for (const io::FileInfo& info : listing) {
    if (info.path.compare(0, log_prefix.size(), log_prefix) != 0) continue;
    std::string_view name = io::BaseName(info.path);
    if (name.ends_with(".json") || name.find(".checkpoint") != std::string_view::npos) {
      result.already_delta = true;
      return result;
    }
  }

  std::vector<SourceFile> files;
  for (io::FileInfo& info : listing) {
    if (info.is_directory || info.path.size() <= root.size() + 1) continue;
    std::string relative = info.path.substr(root.size() + 1);
    std::vector<std::string> parts = SplitPath(relative);
    if (parts.empty() || IsHidden(parts)) continue;
    SourceFile file;
    file.partition_values = ParsePartitionFolders(parts, info.path, options.partition_columns);
    file.relative_path = std::move(relative);
    file.info = std::move(info);
    files.push_back(std::move(file));
  }
  if (files.empty()) SILT_THROW(DELTA_EMPTY_DIRECTORY, {{"directory", table_root}});

  ThreadPool& pool = options.pool != nullptr ? *options.pool : ThreadPool::Default();
  pool.ParallelFor(files.size(), [&](size_t i) {
    try {
      files[i].schema = parquet::FileReader::Open(*fs, files[i].info.path)->schema();
    } catch (const Error& error) {
      if (error.category() == ErrorCategory::kIo) throw;
      SILT_THROW(DELTA_FAILED_READ_FILE_FOOTER, {{"currentFile", files[i].info.path}});
    }
  });

  // Schema: the files' columns merged in listing order, then the partition columns (a column
  // both in the files and partitioned keeps its file position and takes the partition type).
  std::vector<Field> data_fields;
  for (const SourceFile& file : files) {
    if (!MergeParquetSchema(data_fields, file.schema)) {
      SILT_THROW(DELTA_FAILED_MERGE_SCHEMA_FILE,
                 {{"file", file.info.path}, {"schema", file.schema.AsStruct()->ToString()}});
    }
  }
  std::vector<Field> table_fields;
  std::vector<Field> stats_fields;
  for (const Field& field : data_fields) {
    auto partition =
        std::find_if(options.partition_columns.begin(), options.partition_columns.end(),
                     [&](const Field& p) { return AsciiLower(p.name) == AsciiLower(field.name); });
    if (partition == options.partition_columns.end()) {
      table_fields.push_back(field);
      stats_fields.push_back(field);
    } else {
      table_fields.push_back(Field{partition->name, partition->type, true, {}});
    }
  }
  for (const Field& partition : options.partition_columns) {
    bool present = std::any_of(table_fields.begin(), table_fields.end(), [&](const Field& f) {
      return AsciiLower(f.name) == AsciiLower(partition.name);
    });
    if (!present) table_fields.push_back(Field{partition.name, partition.type, true, {}});
  }
  Schema table_schema(table_fields);
  table_schema.CheckNoDuplicateNames();

  Metadata metadata;
  metadata.id = RandomUuid();
  metadata.schema_string = ToDeltaSchemaJson(table_schema);
  for (const Field& partition : options.partition_columns) {
    metadata.partition_columns.push_back(partition.name);
  }
  metadata.created_time = SystemNowMs();
  metadata.configuration = options.properties;

  std::vector<std::optional<std::string>> stats(files.size());
  if (options.collect_stats) {
    StatsOptions stats_options;
    if (const std::string* indexed =
            FindValue(metadata.configuration, "delta.dataSkippingNumIndexedCols")) {
      try {
        stats_options.num_indexed_columns = std::stoi(*indexed);
      } catch (const std::exception&) {
        SILT_THROW(INVALID_CONFIGURATION, {{"value", *indexed},
                                           {"key", "delta.dataSkippingNumIndexedCols"},
                                           {"reason", "expected an integer"}});
      }
    }
    Schema data_schema(stats_fields);
    pool.ParallelFor(files.size(), [&](size_t i) {
      stats[i] = CollectStats(*fs, files[i], data_schema, stats_options, nullptr);
    });
  }

  std::unique_ptr<Transaction> txn = Transaction::StartCreate(fs, root);
  txn->UpdateMetadata(metadata);
  for (size_t i = 0; i < files.size(); ++i) {
    AddFile add;
    add.path = EncodeLogPath(files[i].relative_path);
    add.partition_values = files[i].partition_values;
    add.size = static_cast<int64_t>(files[i].info.size);
    add.modification_time = files[i].info.modification_time_ms;
    add.data_change = true;
    add.stats = stats[i];
    txn->Add(std::move(add));
  }
  std::vector<std::pair<std::string, std::string>> parameters = {
      {"numFiles", std::to_string(files.size())},
      {"partitionedBy", ConvertParameterJson(options.partition_columns)},
      {"collectStats", options.collect_stats ? "true" : "false"},
  };
  if (options.catalog_table) {
    JsonWriter name;
    name.String(*options.catalog_table);
    parameters.emplace_back("catalogTable", name.Release());
  }
  parameters.emplace_back("sourceFormat", "\"parquet\"");
  txn->SetOperation("CONVERT", std::move(parameters),
                    {{"numConvertedFiles", std::to_string(files.size())}});
  result.commit = txn->Commit(options.commit);
  result.num_files = static_cast<int64_t>(files.size());
  return result;
}

}  // namespace silt::log
