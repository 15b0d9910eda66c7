#include "silt/log/data_file_writer.h"

#include <algorithm>
#include <chrono>

#include "silt/base/check.h"
#include "silt/base/clock.h"
#include "silt/io/background_sync.h"
#include "silt/io/path.h"
#include "silt/log/partition_values.h"
#include "silt/log/random_uuid.h"
#include "silt/log/table_features.h"
#include "silt/log/table_properties.h"
#include "silt/types/schema_json.h"

namespace silt::log {

namespace {

std::string_view CodecSuffix(parquet::CompressionCodec codec) {
  switch (codec) {
    case parquet::CompressionCodec::kSnappy: return ".snappy";
    case parquet::CompressionCodec::kGzip: return ".gz";
    case parquet::CompressionCodec::kZstd: return ".zstd";
    case parquet::CompressionCodec::kLz4:
    case parquet::CompressionCodec::kLz4Raw: return ".lz4";
    case parquet::CompressionCodec::kBrotli: return ".br";
    default: return "";
  }
}

bool NeedsEscape(unsigned char c) {
  if (c < 0x20 || c == 0x7F) return true;
  switch (c) {
    case '"': case '#': case '%': case '\'': case '*': case '/': case ':': case '=': case '?':
    case '\\': case '{': case '[': case ']': case '^':
      return true;
    default:
      return false;
  }
}

// The partition text of row `row` of `vector` (protocol §10), nullopt for NULL.
std::optional<std::string> PartitionText(const Vector& vector, int64_t row) {
  if (vector.IsNull(row)) return std::nullopt;
  std::string text = FormatPartitionValue(vector, row);
  // An empty string partition value reads back as NULL (protocol §10), as in Spark.
  if (text.empty()) return std::nullopt;
  return text;
}

// Makes a data file durable before it is closed: a commit must never reference a file that a
// power loss could take away. With `background` the file is handed to it on Close, synced and
// closed there, and the commit waits for it (BackgroundSync::Wait).
class SyncingOutputStream final : public io::OutputStream {
 public:
  SyncingOutputStream(std::unique_ptr<io::OutputStream> inner, io::BackgroundSync* background)
      : inner_(std::move(inner)), background_(background) {}
  void Write(const void* data, size_t length) override { inner_->Write(data, length); }
  void Sync() override { inner_->Sync(); }
  void Close() override {
    if (inner_ == nullptr) return;
    closed_position_ = inner_->position();
    if (background_ != nullptr) {
      background_->SyncAndClose(std::move(inner_));
      return;
    }
    inner_->Sync();
    inner_->Close();
  }
  uint64_t position() const override { return inner_ != nullptr ? inner_->position() : closed_position_; }

 private:
  std::unique_ptr<io::OutputStream> inner_;
  io::BackgroundSync* background_;
  uint64_t closed_position_ = 0;
};

}  // namespace

std::string EscapePartitionPathValue(const std::optional<std::string>& value) {
  if (!value || value->empty()) return "__HIVE_DEFAULT_PARTITION__";
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : *value) {
    if (NeedsEscape(c)) {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out;
}

namespace {

DataTypePtr PhysicalType(const DataTypePtr& type);

// The field a data file stores for table field `logical` under column mapping (protocol "Column
// Mapping"): its physical name, and its column id as the Parquet field id, at every level of
// nesting.
Field PhysicalField(const Field& logical) {
  const std::string* name = logical.FindMetadata("delta.columnMapping.physicalName");
  const std::string* id = logical.FindMetadata("delta.columnMapping.id");
  // A column outside the table's schema (`_change_type` of change data files) keeps its name.
  if (name == nullptr && id == nullptr) {
    return Field{logical.name, PhysicalType(logical.type), logical.nullable, {}};
  }
  if (id == nullptr) SILT_THROW(DELTA_COLUMN_MAPPING_MISSING_FIELD_ID, {{"column", logical.name}});
  // The physical name is a JSON string; Delta's are `col-<uuid>` or the logical name of a column
  // that existed before mapping was enabled, neither of which needs escapes.
  if (name == nullptr || name->size() < 2 || name->front() != '"' || name->back() != '"' ||
      name->find('\\') != std::string::npos) {
    SILT_THROW(INVALID_SCHEMA_JSON,
               {{"message", "column " + logical.name + " has no usable delta.columnMapping.physicalName"}});
  }
  return Field{name->substr(1, name->size() - 2),
               PhysicalType(logical.type),
               logical.nullable,
               {{"parquet.field.id", *id}}};
}

// `type` with the struct fields inside it (through arrays and maps) renamed to their physical
// names.
DataTypePtr PhysicalType(const DataTypePtr& type) {
  switch (type->id()) {
    case TypeId::kStruct: {
      std::vector<Field> fields;
      for (const Field& field : type->fields()) fields.push_back(PhysicalField(field));
      return StructType(std::move(fields));
    }
    case TypeId::kList:
      return ListType(PhysicalType(type->element_type()), type->contains_null());
    case TypeId::kMap:
      return MapType(PhysicalType(type->key_type()), PhysicalType(type->value_type()),
                     type->value_contains_null());
    default:
      return type;
  }
}

// `vector` (of a table column's logical type) as a vector of the column's `physical` type: the
// same buffers, nested children relabelled.
VectorPtr WithPhysicalType(const VectorPtr& vector, const DataTypePtr& physical) {
  if (!physical->is_nested() || vector->type()->Equals(*physical)) return vector;
  std::vector<VectorPtr> children;
  const std::vector<Field>& fields = physical->fields();
  for (size_t i = 0; i < vector->children().size(); ++i) {
    DataTypePtr child_type = i < fields.size() ? fields[i].type : vector->child(i)->type();
    if (physical->id() == TypeId::kMap) {
      // A map's one child is its struct of entries.
      child_type = StructType({fields[0], fields[1]});
    }
    children.push_back(WithPhysicalType(vector->child(i), child_type));
  }
  return Vector::Make(physical, vector->length(), vector->buffers(), std::move(children),
                      vector->null_count(), vector->offset());
}

}  // namespace

struct DataFileWriter::OpenFile {
  std::string relative_path;
  PartitionValueMap partition_values;
  std::unique_ptr<parquet::FileWriter> writer;
  std::unique_ptr<StatsCollector> stats;
  int64_t rows = 0;
};

DataFileWriter::~DataFileWriter() = default;

std::unique_ptr<DataFileWriter> DataFileWriter::Make(std::shared_ptr<io::FileSystem> fs, std::string table_root,
                                                     const Metadata& metadata, DataFileWriterOptions options) {
  const bool mapped = GetColumnMappingMode(metadata) != ColumnMappingMode::kNone;
  std::unique_ptr<DataFileWriter> writer(new DataFileWriter());
  writer->fs_ = std::move(fs);
  writer->table_root_ = std::move(table_root);
  writer->options_ = std::move(options);
  // Under column mapping files name their columns by physical name and carry the column ids as
  // Parquet field ids, and statistics and partition values use the physical names.
  if (mapped) writer->options_.parquet.write_field_ids = true;
  Schema schema = ParseDeltaSchema(metadata.schema_string);
  writer->table_schema_ = std::make_shared<const Schema>(schema);
  for (const Field& field : schema.fields()) {
    writer->stored_names_.push_back(mapped ? PhysicalField(field).name : field.name);
  }
  std::vector<Field> data_fields;
  for (const auto& column : metadata.partition_columns) {
    int index = schema.FieldIndex(column);
    if (index < 0) {
      SILT_THROW(DELTA_PARTITION_COLUMN_NOT_FOUND, {{"columnName", column}, {"schemaMap", metadata.schema_string}});
    }
    writer->partition_indexes_.push_back(static_cast<size_t>(index));
  }
  for (size_t i = 0; i < schema.num_fields(); ++i) {
    if (std::find(writer->partition_indexes_.begin(), writer->partition_indexes_.end(), i) ==
        writer->partition_indexes_.end()) {
      writer->data_indexes_.push_back(i);
      data_fields.push_back(mapped ? PhysicalField(schema.field(i)) : schema.field(i));
    }
  }
  writer->stats_schema_ = std::make_shared<const Schema>(data_fields);
  for (size_t i = 0; i < writer->options_.hidden_columns.size(); ++i) {
    writer->data_indexes_.push_back(schema.num_fields() + i);
    data_fields.push_back(writer->options_.hidden_columns[i]);
  }
  writer->data_schema_ = std::make_shared<const Schema>(std::move(data_fields));
  writer->stats_options_.num_indexed_columns = static_cast<int>(NumIndexedColumns(metadata));
  const std::string* dvs = FindValue(metadata.configuration, "delta.enableDeletionVectors");
  writer->stats_options_.write_tight_bounds = dvs != nullptr && *dvs == "true";
  return writer;
}

DataFileWriter::OpenFile& DataFileWriter::FileFor(const PartitionValueMap& values, const std::string& key) {
  auto it = open_files_.find(key);
  if (it != open_files_.end()) return *it->second;
  auto file = std::make_unique<OpenFile>();
  file->partition_values = values;
  std::string folder;
  for (const auto& [column, value] : values) {
    folder = io::JoinPath(folder, column + "=" + EscapePartitionPathValue(value));
  }
  std::string name = "part-00000-" + RandomUuid() + ".c000" +
                     std::string(CodecSuffix(options_.parquet.codec)) + ".parquet";
  file->relative_path = io::JoinPath(folder, name);
  file->writer = parquet::FileWriter::Open(
      std::make_unique<SyncingOutputStream>(fs_->OpenWrite(io::JoinPath(table_root_, file->relative_path)),
                                           options_.background_sync),
      *data_schema_, options_.parquet);
  file->stats = std::make_unique<StatsCollector>(*stats_schema_, stats_options_);
  OpenFile& result = *file;
  open_files_.emplace(key, std::move(file));
  return result;
}

void DataFileWriter::CloseFile(OpenFile& file) {
  file.writer->Close();
  AddFile add;
  add.path = EncodeLogPath(file.relative_path);
  add.partition_values = file.partition_values;
  add.size = static_cast<int64_t>(file.writer->bytes_written());
  add.modification_time = SystemNowMs();
  add.data_change = options_.data_change;
  add.stats = file.stats->ToJson();
  finished_.push_back(std::move(add));
}

namespace {

// True when a struct `type` has a NOT NULL field at some depth (through structs only).
bool HasNotNullField(const DataType& type) {
  for (const Field& field : type.fields()) {
    if (!field.nullable) return true;
    if (field.type->id() == TypeId::kStruct && HasNotNullField(*field.type)) return true;
  }
  return false;
}

// The path (`s.x`) of a NOT NULL field nested in struct `vector` that holds a NULL in a row whose
// parents are not NULL, or nullopt; `live` marks the rows whose ancestors are not NULL (nullptr:
// all). A NULL struct leaves its fields unchecked: Delta's NOT NULL on a nested field holds where
// the field exists.
std::optional<std::string> NullInNotNullField(const Vector& vector, const DataType& type,
                                              const std::string& path,
                                              const std::vector<uint8_t>* live = nullptr) {
  const int64_t rows = vector.length();
  auto present = [&](int64_t row) {
    return (live == nullptr || (*live)[static_cast<size_t>(row)] != 0) && vector.IsValid(row);
  };
  const std::vector<Field>& fields = type.fields();
  for (size_t f = 0; f < fields.size(); ++f) {
    const Field& field = fields[f];
    const bool nested = field.type->id() == TypeId::kStruct;
    if (field.nullable && (!nested || !HasNotNullField(*field.type))) continue;
    VectorPtr child = vector.StructField(f);
    const std::string child_path = path + "." + field.name;
    if (!field.nullable && child->null_count() > 0) {
      for (int64_t row = 0; row < rows; ++row) {
        if (present(row) && child->IsNull(row)) return child_path;
      }
    }
    if (nested) {
      std::vector<uint8_t> child_live(static_cast<size_t>(rows));
      for (int64_t row = 0; row < rows; ++row) child_live[static_cast<size_t>(row)] = present(row);
      if (auto found = NullInNotNullField(*child, *field.type, child_path, &child_live)) return found;
    }
  }
  return std::nullopt;
}

}  // namespace

void DataFileWriter::Write(const Batch& batch) {
  const Schema& table = *table_schema_;
  const std::vector<Field>& hidden = options_.hidden_columns;
  bool same = batch.num_columns() == table.num_fields() + hidden.size();
  for (size_t i = 0; same && i < batch.num_columns(); ++i) {
    const Field& given = batch.schema()->field(i);
    const Field& expected = i < table.num_fields() ? table.field(i) : hidden[i - table.num_fields()];
    same = given.name == expected.name && given.type->Equals(*expected.type);
  }
  if (!same) {
    SILT_THROW(DELTA_METADATA_MISMATCH,
               {{"details", "A schema mismatch detected when writing to the Delta table. Table schema: " +
                                table.AsStruct()->ToString() + " Data schema: " + batch.schema()->AsStruct()->ToString()}});
  }
  for (size_t i = 0; i < table.num_fields(); ++i) {
    if (!table.field(i).nullable && batch.column(i)->null_count() > 0) {
      SILT_THROW(DELTA_NOT_NULL_CONSTRAINT_VIOLATED, {{"columnName", table.field(i).name}});
    }
    if (table.field(i).type->id() == TypeId::kStruct && HasNotNullField(*table.field(i).type)) {
      if (std::optional<std::string> field =
              NullInNotNullField(*batch.column(i), *table.field(i).type, table.field(i).name)) {
        SILT_THROW(DELTA_NOT_NULL_CONSTRAINT_VIOLATED, {{"columnName", *field}});
      }
    }
  }
  if (batch.num_rows() == 0) return;

  // Writes `part` (data columns) to the open file(s) of partition `key`.
  std::map<std::string, PartitionValueMap> values_by_key;
  auto write_part = [&](const std::string& key, const Batch& part) {
    int64_t offset = 0;
    while (offset < part.num_rows()) {
      OpenFile& file = FileFor(values_by_key[key], key);
      int64_t take = part.num_rows() - offset;
      if (options_.max_rows_per_file > 0) take = std::min(take, options_.max_rows_per_file - file.rows);
      Batch piece = part.Slice(offset, take);
      file.writer->Write(piece);
      if (hidden.empty()) {
        file.stats->Update(piece);
      } else {
        std::vector<VectorPtr> data_columns(piece.columns().begin(),
                                            piece.columns().begin() +
                                                static_cast<long>(stats_schema_->num_fields()));
        file.stats->Update(Batch(stats_schema_, std::move(data_columns), piece.num_rows()));
      }
      file.rows += take;
      offset += take;
      if (options_.max_rows_per_file > 0 && file.rows >= options_.max_rows_per_file) {
        CloseFile(file);
        open_files_.erase(key);
      }
    }
  };
  if (partition_indexes_.empty()) {
    std::vector<VectorPtr> columns;
    for (size_t index : data_indexes_) {
      columns.push_back(
          WithPhysicalType(batch.column(index), data_schema_->field(columns.size()).type));
    }
    values_by_key.emplace("", PartitionValueMap{});
    write_part("", Batch(data_schema_, std::move(columns), batch.num_rows()));
    return;
  }
  // Group rows by partition; runs of equal keys are written as zero-copy slices.
  std::vector<std::string> keys(static_cast<size_t>(batch.num_rows()));
  for (int64_t row = 0; row < batch.num_rows(); ++row) {
    PartitionValueMap values;
    std::string key;
    for (size_t index : partition_indexes_) {
      std::optional<std::string> text = PartitionText(*batch.column(index), row);
      key += text ? "v" + *text : "n";
      key.push_back('\0');
      values.emplace_back(stored_names_[index], std::move(text));
    }
    values_by_key.emplace(key, std::move(values));
    keys[static_cast<size_t>(row)] = std::move(key);
  }
  auto write_rows = [&](const std::string& key, const std::vector<int64_t>& rows) {
    std::vector<VectorPtr> columns;
    for (size_t index : data_indexes_) {
      const VectorPtr& source = batch.column(index);
      bool contiguous = rows.back() - rows.front() + 1 == static_cast<int64_t>(rows.size());
      if (contiguous) {
        columns.push_back(source->Slice(rows.front(), static_cast<int64_t>(rows.size())));
      } else {
        VectorBuilder builder(source->type(), static_cast<int64_t>(rows.size()));
        for (int64_t row : rows) builder.AppendFrom(*source, row);
        columns.push_back(builder.Finish());
      }
      columns.back() =
          WithPhysicalType(columns.back(), data_schema_->field(columns.size() - 1).type);
    }
    write_part(key, Batch(data_schema_, std::move(columns), static_cast<int64_t>(rows.size())));
  };
  std::map<std::string, std::vector<int64_t>> rows_by_key;
  for (int64_t row = 0; row < batch.num_rows(); ++row) rows_by_key[keys[static_cast<size_t>(row)]].push_back(row);
  for (const auto& [key, rows] : rows_by_key) write_rows(key, rows);
}

std::vector<AddFile> DataFileWriter::Finish() {
  for (auto& [key, file] : open_files_) CloseFile(*file);
  open_files_.clear();
  return std::move(finished_);
}

}  // namespace silt::log
