#include "silt/log/table_scan.h"

#include <simdjson.h>

#include <algorithm>
#include <queue>
#include <cctype>
#include <set>

#include "silt/base/ascii.h"
#include "silt/base/check.h"
#include "silt/base/thread_pool.h"
#include "silt/io/path.h"
#include "silt/log/deletion_vector.h"
#include "silt/log/file_stats.h"
#include "silt/log/partition_values.h"
#include "silt/log/row_tracking.h"
#include "silt/parquet/reader.h"
#include "silt/types/schema_json.h"

namespace silt::log {

namespace {

// The literal of a comparison predicate, from its partition-value text; for a string or binary
// column the empty text is the empty string (the empty text of a partition value is NULL,
// which no comparison predicate carries).
std::optional<Scalar> PredicateLiteral(const Field& field, const std::string& text) {
  TypeId type = field.type->id();
  if (text.empty() && (type == TypeId::kString || type == TypeId::kBinary)) {
    return Scalar(std::string());
  }
  return ParsePartitionValue(*field.type, text, field.name);
}

// A file's typed statistics from a checkpoint (AddFile::parsed_stats), read as FileStats reads
// the JSON text, without parsing it.
class TypedStats {
 public:
  explicit TypedStats(const ParsedStats& stats) : root_{stats.values.get(), stats.row} {}

  // The numbers data skipping needs of column `physical` of type `type`: false when a bound is
  // recorded with another type (a widened column), which the JSON text must then decide.
  bool Read(const std::string& physical, const DataType& type, std::optional<int64_t>& num_records,
            std::optional<int64_t>& null_count, std::optional<Scalar>& min,
            std::optional<Scalar>& max) const {
    Value min_value = Child(Child(root_, "minValues"), physical);
    Value max_value = Child(Child(root_, "maxValues"), physical);
    for (const Value& bound : {min_value, max_value}) {
      if (bound.vector != nullptr && !bound.vector->type()->Equals(type)) return false;
    }
    num_records = Integer(Child(root_, "numRecords"));
    null_count = Integer(Child(Child(root_, "nullCount"), physical));
    min = ToScalar(min_value);
    max = ToScalar(max_value);
    // A minimum above the maximum bounds nothing (as FileStats::Bounds decides).
    if (min && max && CompareScalars(*min, *max) > 0) min.reset(), max.reset();
    return true;
  }

 private:
  struct Value {
    const Vector* vector = nullptr;
    int64_t row = 0;
    bool Present() const { return vector != nullptr && vector->IsValid(row); }
  };

  static Value Child(const Value& parent, std::string_view name) {
    if (!parent.Present() || parent.vector->type_id() != TypeId::kStruct) return {};
    int index = parent.vector->type()->FieldIndex(name);
    if (index < 0) return {};
    return {parent.vector->child(static_cast<size_t>(index)).get(),
            parent.vector->offset() + parent.row};
  }
  static std::optional<int64_t> Integer(const Value& value) {
    if (!value.Present()) return std::nullopt;
    switch (value.vector->type_id()) {
      case TypeId::kLong:
        return value.vector->values<int64_t>()[value.row];
      case TypeId::kInteger:
        return value.vector->values<int32_t>()[value.row];
      default:
        return std::nullopt;
    }
  }
  static std::optional<Scalar> ToScalar(const Value& value) {
    if (!value.Present()) return std::nullopt;
    const Vector& vector = *value.vector;
    const int64_t row = value.row;
    switch (vector.type_id()) {
      case TypeId::kByte:
        return Scalar(int64_t{vector.values<int8_t>()[row]});
      case TypeId::kShort:
        return Scalar(int64_t{vector.values<int16_t>()[row]});
      case TypeId::kInteger:
      case TypeId::kDate:
        return Scalar(int64_t{vector.values<int32_t>()[row]});
      case TypeId::kLong:
      case TypeId::kTimestamp:
      case TypeId::kTimestampNtz:
        return Scalar(vector.values<int64_t>()[row]);
      case TypeId::kFloat:
        return Scalar(static_cast<double>(vector.values<float>()[row]));
      case TypeId::kDouble:
        return Scalar(vector.values<double>()[row]);
      case TypeId::kDecimal:
        return Scalar(vector.values<Decimal128>()[row]);
      case TypeId::kString:
        return Scalar(std::string(vector.GetString(row)));
      default:
        return std::nullopt;  // no min/max for booleans, binary and nested types
    }
  }

  Value root_;
};

constexpr const char* kPhysicalNameKey = "delta.columnMapping.physicalName";
constexpr const char* kColumnIdKey = "delta.columnMapping.id";
constexpr const char* kParquetFieldIdKey = "parquet.field.id";

// Field metadata values are raw JSON; a physical name is a JSON string.
std::optional<std::string> MetadataString(const Field& field, std::string_view key) {
  const std::string* raw = field.FindMetadata(key);
  if (raw == nullptr) return std::nullopt;
  simdjson::dom::parser parser;
  std::string_view text;
  if (parser.parse(*raw).get_string().get(text) == simdjson::SUCCESS) return std::string(text);
  return *raw;
}

std::optional<int64_t> MetadataInt(const Field& field, std::string_view key) {
  const std::string* raw = field.FindMetadata(key);
  if (raw == nullptr) return std::nullopt;
  try {
    return std::stoll(*raw);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// How a logical field finds its stored counterpart.
struct FieldLocator {
  ColumnMappingMode mode;

  std::string PhysicalName(const Field& logical) const {
    if (mode == ColumnMappingMode::kNone) return logical.name;
    return MetadataString(logical, kPhysicalNameKey).value_or(logical.name);
  }

  // Index of `logical` among `stored` fields, or -1.
  int Find(const Field& logical, const std::vector<Field>& stored) const {
    if (mode == ColumnMappingMode::kId) {
      auto id = MetadataInt(logical, kColumnIdKey);
      if (id) {
        for (size_t i = 0; i < stored.size(); ++i) {
          if (MetadataInt(stored[i], kParquetFieldIdKey) == id) return static_cast<int>(i);
        }
        return -1;
      }
    }
    std::string name = PhysicalName(logical);
    for (size_t i = 0; i < stored.size(); ++i) {
      if (stored[i].name == name) return static_cast<int>(i);
    }
    for (size_t i = 0; i < stored.size(); ++i) {
      if (EqualsIgnoreCase(stored[i].name, name)) return static_cast<int>(i);
    }
    return -1;
  }
};

bool IsInteger(TypeId id) {
  return id == TypeId::kByte || id == TypeId::kShort || id == TypeId::kInteger || id == TypeId::kLong;
}

int64_t IntegerAt(const Vector& vector, int64_t row) {
  switch (vector.type_id()) {
    case TypeId::kByte: return vector.values<int8_t>()[row];
    case TypeId::kShort: return vector.values<int16_t>()[row];
    case TypeId::kInteger:
    case TypeId::kDate: return vector.values<int32_t>()[row];
    default: return vector.values<int64_t>()[row];
  }
}

Decimal128 PowerOfTen(int exponent) {
  Decimal128 value = 1;
  for (int i = 0; i < exponent; ++i) value *= 10;
  return value;
}

// Widens a stored primitive vector to the table's type (type widening, protocol §13.16, and
// writers that stored a narrower physical type).
VectorPtr CastPrimitive(const VectorPtr& source, const DataTypePtr& target, std::string_view column) {
  TypeId from = source->type_id();
  TypeId to = target->id();
  auto unsupported = [&]() -> VectorPtr {
    SILT_THROW(PARQUET_SCHEMA_MISMATCH, {{"column", std::string(column)},
                                         {"path", "data file"},
                                         {"actual", source->type()->ToString()},
                                         {"expected", target->ToString()}});
  };
  bool supported = (IsInteger(from) && (IsInteger(to) || to == TypeId::kDouble || to == TypeId::kDecimal)) ||
                   (from == TypeId::kFloat && to == TypeId::kDouble) ||
                   (from == TypeId::kDecimal && to == TypeId::kDecimal) ||
                   (from == TypeId::kDate && to == TypeId::kTimestampNtz) ||
                   (from == TypeId::kTimestamp && to == TypeId::kTimestampNtz) ||
                   (from == TypeId::kTimestampNtz && to == TypeId::kTimestamp) ||
                   (from == TypeId::kString && to == TypeId::kBinary) ||
                   (from == TypeId::kBinary && to == TypeId::kString);
  if (!supported) return unsupported();
  VectorBuilder builder(target, source->length());
  for (int64_t row = 0; row < source->length(); ++row) {
    if (source->IsNull(row)) {
      builder.AppendNull();
      continue;
    }
    if (IsInteger(from)) {
      int64_t value = IntegerAt(*source, row);
      if (to == TypeId::kDouble) {
        builder.AppendDouble(static_cast<double>(value));
      } else if (to == TypeId::kDecimal) {
        builder.AppendDecimal(Decimal128(value) * PowerOfTen(target->scale()));
      } else {
        builder.AppendInt(value);
      }
    } else if (from == TypeId::kFloat) {
      builder.AppendDouble(static_cast<double>(source->values<float>()[row]));
    } else if (from == TypeId::kDecimal) {
      int shift = target->scale() - source->type()->scale();
      if (shift < 0) return unsupported();
      builder.AppendDecimal(source->values<Decimal128>()[row] * PowerOfTen(shift));
    } else if (from == TypeId::kDate) {
      builder.AppendInt(int64_t(source->values<int32_t>()[row]) * 86'400'000'000LL);
    } else if (from == TypeId::kTimestamp || from == TypeId::kTimestampNtz) {
      builder.AppendInt(source->values<int64_t>()[row]);
    } else {
      builder.AppendString(source->GetString(row));
    }
  }
  return builder.Finish();
}

// Maps a stored vector onto the logical type: nested fields by physical name or field id,
// missing ones as NULL, primitives widened where needed.
VectorPtr Adapt(const VectorPtr& stored, const DataTypePtr& logical, const FieldLocator& locator,
                std::string_view column) {
  if (logical->id() == TypeId::kNull) return Vector::MakeAllNull(logical, stored->length());
  if (!logical->is_nested()) {
    if (stored->type()->Equals(*logical)) {
      VectorPtr adapted = Vector::Make(logical, stored->length(), stored->buffers(),
                                       stored->children(), stored->null_count(), stored->offset());
      if (const DictionaryCodes* codes = stored->dictionary_codes()) {
        adapted = Vector::WithDictionaryCodes(adapted, std::make_shared<DictionaryCodes>(*codes));
      }
      return adapted;
    }
    if (stored->type()->is_nested()) {
      SILT_THROW(PARQUET_SCHEMA_MISMATCH, {{"column", std::string(column)},
                                           {"path", "data file"},
                                           {"actual", stored->type()->ToString()},
                                           {"expected", logical->ToString()}});
    }
    return CastPrimitive(stored, logical, column);
  }
  if (stored->type_id() != logical->id()) {
    SILT_THROW(PARQUET_SCHEMA_MISMATCH, {{"column", std::string(column)},
                                         {"path", "data file"},
                                         {"actual", stored->type()->ToString()},
                                         {"expected", logical->ToString()}});
  }
  std::vector<VectorPtr> children;
  if (logical->id() == TypeId::kStruct) {
    // Children are indexed at the struct's offset + row, so missing ones must cover that range.
    int64_t child_length = stored->offset() + stored->length();
    for (const Field& field : logical->fields()) {
      int index = locator.Find(field, stored->type()->fields());
      if (index < 0) {
        children.push_back(Vector::MakeAllNull(field.type, child_length));
      } else {
        children.push_back(Adapt(stored->child(static_cast<size_t>(index)), field.type, locator,
                                 field.name));
      }
    }
  } else {
    // List element or map entries: positions match one to one.
    const Field& element = logical->fields()[0];
    if (logical->id() == TypeId::kList) {
      children.push_back(Adapt(stored->child(0), element.type, locator, column));
    } else {
      auto entries = StructType({logical->fields()[0], logical->fields()[1]});
      children.push_back(Adapt(stored->child(0), entries, locator, column));
    }
  }
  return Vector::Make(logical, stored->length(), stored->buffers(), children, stored->null_count(),
                      stored->offset());
}

// Keeps the rows whose mask bit is set.
VectorPtr FilterRows(const VectorPtr& vector, const std::vector<bool>& keep, int64_t kept) {
  VectorBuilder builder(vector->type(), kept);
  int64_t row = 0;
  int64_t length = vector->length();
  while (row < length) {
    if (!keep[static_cast<size_t>(row)]) {
      ++row;
      continue;
    }
    int64_t start = row;
    while (row < length && keep[static_cast<size_t>(row)]) ++row;
    builder.AppendRange(*vector, start, row - start);
  }
  return builder.Finish();
}

}  // namespace

struct TableScan::Column {
  Field field;                    // logical
  bool partition = false;
  std::string physical_name;      // key of partitionValues and of stats
  bool file_metadata = false;     // the hidden _metadata column, computed per row
};

DataTypePtr FileMetadataType(bool row_tracking) {
  std::vector<Field> fields = {
      Field{"file_path", StringType(), false, {}},
      Field{"file_name", StringType(), false, {}},
      Field{"file_size", LongType(), false, {}},
      Field{"file_block_start", LongType(), false, {}},
      Field{"file_block_length", LongType(), false, {}},
      Field{"file_modification_time", TimestampType(), false, {}},
      Field{"row_index", LongType(), false, {}}};
  if (row_tracking) {
    fields.push_back(Field{"row_id", LongType(), false, {}});
    fields.push_back(Field{"row_commit_version", LongType(), false, {}});
  }
  return StructType(std::move(fields));
}

std::unique_ptr<TableScan> TableScan::Make(std::shared_ptr<const Snapshot> snapshot,
                                           ScanOptions options) {
  auto schema = std::make_shared<const Schema>(snapshot->schema());
  std::shared_ptr<io::FileSystem> fs = snapshot->file_system();
  std::string root = snapshot->table_root();
  const Metadata& metadata = snapshot->metadata();
  return MakeScan(std::move(snapshot), std::move(fs), std::move(root), metadata, std::move(schema),
                  std::move(options));
}

std::unique_ptr<TableScan> TableScan::MakeForMetadata(std::shared_ptr<io::FileSystem> fs,
                                                      std::string table_root,
                                                      const Metadata& metadata,
                                                      ScanOptions options) {
  auto schema = std::make_shared<const Schema>(ParseDeltaSchema(metadata.schema_string));
  return MakeScan(nullptr, std::move(fs), std::move(table_root), metadata, std::move(schema),
                  std::move(options));
}

std::string TableScan::ResolvePath(std::string_view log_path) const {
  std::string path = CanonicalLogPath(log_path);
  bool absolute = (!path.empty() && path[0] == '/') || path.find("://") != std::string::npos;
  return absolute ? path : io::JoinPath(table_root_, path);
}

std::unique_ptr<TableScan> TableScan::MakeScan(std::shared_ptr<const Snapshot> snapshot,
                                               std::shared_ptr<io::FileSystem> fs,
                                               std::string table_root, const Metadata& metadata,
                                               SchemaPtr table_schema, ScanOptions options) {
  std::unique_ptr<TableScan> scan(new TableScan());
  scan->fs_ = std::move(fs);
  scan->table_root_ = std::move(table_root);
  scan->table_schema_ = std::move(table_schema);
  scan->mapping_mode_ = GetColumnMappingMode(metadata);
  scan->partition_columns_ = metadata.partition_columns;
  const Schema& schema = *scan->table_schema_;
  FieldLocator locator{scan->mapping_mode_};
  const auto& partition_columns = scan->partition_columns_;
  auto make_column = [&](const Field& field) {
    auto column = std::make_shared<Column>();
    column->field = field;
    column->physical_name = locator.PhysicalName(field);
    column->partition = std::any_of(partition_columns.begin(), partition_columns.end(),
                                    [&](const std::string& name) { return EqualsIgnoreCase(name, field.name); });
    return column;
  };
  std::vector<Field> output_fields;
  if (options.columns.empty()) {
    for (const Field& field : schema.fields()) {
      scan->columns_.push_back(make_column(field));
      output_fields.push_back(field);
    }
  } else {
    for (const auto& name : options.columns) {
      int index = schema.FieldIndex(name, /*case_sensitive=*/false);
      SILT_USER_CHECK(index >= 0, INVALID_ARGUMENT,
                      {{"message", "column " + name + " is not in the table schema"}});
      scan->columns_.push_back(make_column(schema.field(static_cast<size_t>(index))));
      output_fields.push_back(schema.field(static_cast<size_t>(index)));
    }
  }
  for (const Field& extra : options.extra_columns) {
    // Read by the stored name: no column-mapping metadata, never a partition column.
    auto column = std::make_shared<Column>();
    column->field.name = extra.name;
    column->field.type = extra.type;
    column->physical_name = extra.name;
    scan->columns_.push_back(column);
    output_fields.push_back(column->field);
  }
  if (options.file_metadata) {
    // Without a snapshot (files of several versions) the protocol is unknown: the property
    // alone says whether the files carry row ids.
    const std::string* enabled = FindValue(metadata.configuration, "delta.enableRowTracking");
    scan->row_tracking_ = snapshot ? IsRowTrackingEnabled(snapshot->protocol(), metadata)
                                   : enabled != nullptr && EqualsIgnoreCase(*enabled, "true");
    if (const std::string* name = FindValue(metadata.configuration, kMaterializedRowIdColumnKey)) {
      scan->materialized_row_id_column_ = *name;
    }
    if (const std::string* name =
            FindValue(metadata.configuration, kMaterializedRowCommitVersionColumnKey)) {
      scan->materialized_row_commit_version_column_ = *name;
    }
    auto column = std::make_shared<Column>();
    column->field = Field{std::string(kFileMetadataColumn), FileMetadataType(scan->row_tracking_),
                          false, {}};
    column->file_metadata = true;
    scan->columns_.push_back(column);
    output_fields.push_back(column->field);
  }
  for (const auto& predicate : options.predicates) {
    int index = schema.FieldIndex(predicate.column, /*case_sensitive=*/false);
    SILT_USER_CHECK(index >= 0, INVALID_ARGUMENT,
                    {{"message", "predicate column " + predicate.column + " is not in the table"}});
    if (predicate.op != ScanPredicate::Op::kIsNull && predicate.op != ScanPredicate::Op::kIsNotNull) {
      // Validate the literal up front, so a bad one fails the scan rather than a file.
      const Field& field = schema.field(static_cast<size_t>(index));
      SILT_USER_CHECK(PredicateLiteral(field, predicate.value).has_value(),
                      INVALID_ARGUMENT,
                      {{"message", "a comparison with NULL matches no rows; use kIsNull"}});
    }
  }
  scan->output_schema_ = std::make_shared<const Schema>(std::move(output_fields));
  scan->snapshot_ = std::move(snapshot);
  scan->options_ = std::move(options);
  if (scan->snapshot_) {
    for (const AddFile& file : scan->snapshot_->files()) {
      if (scan->MayMatch(file)) scan->files_.push_back(&file);
    }
    if (scan->options_.bound) scan->OrderFilesForBound();
  }
  return scan;
}

namespace {

// The statistics of column `physical` of `file`: its typed checkpoint statistics where it has
// them, else its JSON statistics (parsed into `json` at the first call for the file, which
// `json_parsed` records). False when the file has no usable statistics.
bool ReadColumnStats(const AddFile& file, const std::string& physical, const DataType& type,
                     std::optional<FileStats>& json, bool& json_parsed, std::optional<int64_t>& num_records,
                     std::optional<int64_t>& null_count, std::optional<Scalar>& min, std::optional<Scalar>& max) {
  if (file.parsed_stats.values != nullptr &&
      TypedStats(file.parsed_stats).Read(physical, type, num_records, null_count, min, max)) {
    return true;
  }
  if (!json_parsed) {
    json_parsed = true;
    if (file.stats) {
      try {
        json = FileStats::Parse(*file.stats, file.path);
      } catch (const Error&) {
        // Unusable statistics only mean the file cannot be skipped.
      }
    }
  }
  if (!json) return false;
  std::vector<std::string> path = {physical};
  num_records = json->num_records();
  null_count = json->NullCount(path);
  min = json->Min(path, type);
  max = json->Max(path, type);
  return true;
}

}  // namespace

void TableScan::OrderFilesForBound() {
  // The files likeliest to hold the best rows first (by their maximum for a `>=` bound, their
  // minimum for `<=`; files without one last), so that the bound is tight after the first
  // files and the others are skipped by their statistics.
  const Schema& schema = *table_schema_;
  int index = schema.FieldIndex(options_.bound->column(), false);
  if (index < 0) return;
  const Field& field = schema.field(static_cast<size_t>(index));
  if (std::any_of(partition_columns_.begin(), partition_columns_.end(),
                  [&](const std::string& name) { return EqualsIgnoreCase(name, field.name); })) {
    return;
  }
  const bool greater = options_.bound->op() == ScanPredicate::Op::kGreaterOrEqual;
  std::string physical = FieldLocator{mapping_mode_}.PhysicalName(field);
  std::vector<std::pair<std::optional<Scalar>, const AddFile*>> keyed;
  keyed.reserve(files_.size());
  for (const AddFile* file : files_) {
    std::optional<FileStats> json;
    bool json_parsed = false;
    std::optional<int64_t> num_records, null_count;
    std::optional<Scalar> min, max;
    ReadColumnStats(*file, physical, *field.type, json, json_parsed, num_records, null_count, min, max);
    keyed.emplace_back(greater ? max : min, file);
  }
  std::stable_sort(keyed.begin(), keyed.end(), [&](const auto& a, const auto& b) {
    if (!a.first || !b.first) return a.first.has_value() && !b.first.has_value();
    int order = CompareScalars(*a.first, *b.first);
    return greater ? order > 0 : order < 0;
  });
  for (size_t i = 0; i < keyed.size(); ++i) files_[i] = keyed[i].second;
}

bool TableScan::MayMatch(const AddFile& file) const {
  if (options_.predicates.empty()) return true;
  const Schema& schema = *table_schema_;
  FieldLocator locator{mapping_mode_};
  const auto& partition_columns = partition_columns_;
  std::optional<FileStats> stats;
  bool stats_parsed = false;
  for (const auto& predicate : options_.predicates) {
    const Field& field = schema.field(static_cast<size_t>(schema.FieldIndex(predicate.column, false)));
    std::string physical = locator.PhysicalName(field);
    bool partition = std::any_of(partition_columns.begin(), partition_columns.end(),
                                 [&](const std::string& name) { return EqualsIgnoreCase(name, field.name); });
    bool null_test = predicate.op == ScanPredicate::Op::kIsNull ||
                     predicate.op == ScanPredicate::Op::kIsNotNull;
    std::optional<Scalar> literal;
    if (!null_test) literal = PredicateLiteral(field, predicate.value);
    if (partition) {
      std::optional<std::string> text;
      for (const auto& [key, value] : file.partition_values) {
        if (key == physical) text = value;
      }
      std::optional<Scalar> value = ParsePartitionValue(*field.type, text, field.name);
      bool matches = false;
      switch (predicate.op) {
        case ScanPredicate::Op::kIsNull: matches = !value; break;
        case ScanPredicate::Op::kIsNotNull: matches = value.has_value(); break;
        default: {
          if (!value) break;
          int order = CompareScalars(*value, *literal);
          matches = predicate.op == ScanPredicate::Op::kEqual ? order == 0
                    : predicate.op == ScanPredicate::Op::kLess ? order < 0
                    : predicate.op == ScanPredicate::Op::kLessOrEqual ? order <= 0
                    : predicate.op == ScanPredicate::Op::kGreater ? order > 0
                                                                  : order >= 0;
        }
      }
      if (!matches) return false;
      continue;
    }
    std::optional<int64_t> num_records, null_count;
    std::optional<Scalar> min, max;
    if (!ReadColumnStats(file, physical, *field.type, stats, stats_parsed, num_records, null_count, min, max)) {
      continue;
    }
    if (predicate.op == ScanPredicate::Op::kIsNull) {
      if (null_count == 0) return false;
      continue;
    }
    if (predicate.op == ScanPredicate::Op::kIsNotNull) {
      if (null_count && num_records && *null_count == *num_records) return false;
      continue;
    }
    if (max && (field.type->id() == TypeId::kTimestamp || field.type->id() == TypeId::kTimestampNtz)) {
      // Stats are truncated to milliseconds: the real maximum may be up to 999 µs higher.
      max = Scalar(std::get<int64_t>(*max) + 999);
    }
    switch (predicate.op) {
      case ScanPredicate::Op::kEqual:
        if ((min && CompareScalars(*min, *literal) > 0) || (max && CompareScalars(*max, *literal) < 0)) {
          return false;
        }
        break;
      case ScanPredicate::Op::kLess:
        if (min && CompareScalars(*min, *literal) >= 0) return false;
        break;
      case ScanPredicate::Op::kLessOrEqual:
        if (min && CompareScalars(*min, *literal) > 0) return false;
        break;
      case ScanPredicate::Op::kGreater:
        if (max && CompareScalars(*max, *literal) <= 0) return false;
        break;
      case ScanPredicate::Op::kGreaterOrEqual:
        if (max && CompareScalars(*max, *literal) < 0) return false;
        break;
      default:
        break;
    }
  }
  return true;
}

ScanSummary TableScan::Summarize() const {
  ScanSummary summary;
  summary.columns.resize(columns_.size());
  // Per column: whether every file so far recorded a minimum/maximum and a null count.
  std::vector<bool> bounded(columns_.size(), true), counted(columns_.size(), true);
  std::vector<std::set<std::optional<std::string>>> partition_values(columns_.size());
  for (const AddFile* file : files_) {
    std::optional<FileStats> stats;
    bool stats_parsed = false;
    auto json_stats = [&]() -> const FileStats* {
      if (!stats_parsed) {
        stats_parsed = true;
        if (file->stats) {
          try {
            stats = FileStats::Parse(*file->stats, file->path);
          } catch (const Error&) {
            // Unusable statistics only make the estimate rougher.
          }
        }
      }
      return stats ? &*stats : nullptr;
    };
    std::optional<int64_t> records;
    for (size_t c = 0; c < columns_.size(); ++c) {
      const Column& column = *columns_[c];
      ColumnSummary& out = summary.columns[c];
      if (column.file_metadata) continue;
      if (column.partition) {
        std::optional<std::string> text;
        for (const auto& [key, value] : file->partition_values) {
          if (key == column.physical_name) text = value;
        }
        if (text && text->empty()) text.reset();
        partition_values[c].insert(text);
        std::optional<Scalar> value;
        try {
          value = ParsePartitionValue(*column.field.type, text, column.field.name);
        } catch (const Error&) {
          bounded[c] = false;
        }
        if (value) {
          if (!out.min || CompareScalars(*value, *out.min) < 0) out.min = value;
          if (!out.max || CompareScalars(*value, *out.max) > 0) out.max = value;
        }
        continue;
      }
      std::optional<int64_t> num_records, null_count;
      std::optional<Scalar> min, max;
      bool typed =
          file->parsed_stats.values != nullptr &&
          TypedStats(file->parsed_stats)
              .Read(column.physical_name, *column.field.type, num_records, null_count, min, max);
      if (!typed) {
        if (const FileStats* parsed = json_stats()) {
          std::vector<std::string> path = {column.physical_name};
          num_records = parsed->num_records();
          null_count = parsed->NullCount(path);
          min = parsed->Min(path, *column.field.type);
          max = parsed->Max(path, *column.field.type);
        }
      }
      if (num_records) records = num_records;
      if (min && max && bounded[c]) {
        if (!out.min || CompareScalars(*min, *out.min) < 0) out.min = std::move(min);
        if (!out.max || CompareScalars(*max, *out.max) > 0) out.max = std::move(max);
      } else {
        bounded[c] = false;
      }
      if (null_count && counted[c]) {
        out.null_count = out.null_count.value_or(0) + *null_count;
      } else {
        counted[c] = false;
      }
    }
    if (!records) {
      if (const FileStats* parsed = json_stats()) records = parsed->num_records();
    }
    int64_t rows = records ? *records : file->size / 100;
    if (file->deletion_vector) rows -= file->deletion_vector->cardinality;
    summary.num_rows += std::max<int64_t>(rows, 0);
  }
  for (size_t c = 0; c < columns_.size(); ++c) {
    ColumnSummary& out = summary.columns[c];
    if (columns_[c]->file_metadata) continue;
    if (!bounded[c]) out.min.reset(), out.max.reset();
    if (!counted[c]) out.null_count.reset();
    if (columns_[c]->partition) {
      out.distinct_values = static_cast<int64_t>(partition_values[c].size());
      out.null_count.reset();
    }
  }
  return summary;
}

std::vector<Batch> TableScan::ReadFile(const AddFile& file) const {
  if (options_.file_metadata) {
    // The metadata column needs each row's physical index, which the row-group reader tracks.
    auto opened = OpenFile(file);
    std::vector<Batch> batches;
    for (int group = 0; group < opened->num_row_groups(); ++group) {
      batches.push_back(opened->ReadRowGroup(group));
    }
    return batches;
  }
  io::FileSystem& fs = *fs_;
  std::string path = ResolvePath(file.path);
  FieldLocator locator{mapping_mode_};
  auto reader = parquet::FileReader::Open(fs, path);
  const Schema& file_schema = reader->schema();

  // Where each output column comes from: a file column, the partition values, or nowhere.
  std::vector<int> file_index(columns_.size(), -1);
  parquet::ReadOptions read_options;
  read_options.pool = options_.pool;
  std::vector<int> projected_position(columns_.size(), -1);
  for (size_t i = 0; i < columns_.size(); ++i) {
    const Column& column = *columns_[i];
    if (column.partition || column.field.type->id() == TypeId::kNull) continue;
    int index = locator.Find(column.field, file_schema.fields());
    if (index < 0) continue;
    const std::string& name = file_schema.field(static_cast<size_t>(index)).name;
    auto existing = std::find(read_options.columns.begin(), read_options.columns.end(), name);
    if (existing == read_options.columns.end()) {
      projected_position[i] = static_cast<int>(read_options.columns.size());
      read_options.columns.push_back(name);
    } else {
      projected_position[i] = static_cast<int>(existing - read_options.columns.begin());
    }
  }
  std::vector<Batch> stored_batches;
  if (read_options.columns.empty()) {
    // Only partition or missing columns: row counts still come from the file's row groups.
    for (int group = 0; group < reader->num_row_groups(); ++group) {
      int64_t rows = reader->metadata().row_groups[static_cast<size_t>(group)].num_rows;
      stored_batches.emplace_back(std::make_shared<const Schema>(), std::vector<VectorPtr>{}, rows);
    }
  } else {
    stored_batches = reader->Read(read_options);
  }

  std::optional<DeletedRows> deleted;
  if (file.deletion_vector) {
    deleted = LoadDeletionVector(fs, table_root_, *file.deletion_vector);
  }
  std::vector<std::optional<Scalar>> partition_values(columns_.size());
  for (size_t i = 0; i < columns_.size(); ++i) {
    const Column& column = *columns_[i];
    if (!column.partition) continue;
    std::optional<std::string> text;
    for (const auto& [key, value] : file.partition_values) {
      if (key == column.physical_name || (!text && EqualsIgnoreCase(key, column.physical_name))) {
        text = value;
      }
    }
    partition_values[i] = ParsePartitionValue(*column.field.type, text, column.field.name);
  }

  std::vector<Batch> result;
  uint64_t first_row = 0;
  for (const Batch& stored : stored_batches) {
    int64_t rows = stored.num_rows();
    std::vector<VectorPtr> columns;
    for (size_t i = 0; i < columns_.size(); ++i) {
      const Column& column = *columns_[i];
      if (column.partition) {
        columns.push_back(MakeConstantVector(column.field.type, partition_values[i], rows));
      } else if (projected_position[i] < 0) {
        columns.push_back(Vector::MakeAllNull(column.field.type, rows));
      } else {
        columns.push_back(Adapt(stored.column(static_cast<size_t>(projected_position[i])),
                                column.field.type, locator, column.field.name));
      }
    }
    if (deleted) {
      std::vector<bool> keep;
      deleted->FillKeepMask(first_row, static_cast<uint64_t>(rows), keep);
      int64_t kept = std::count(keep.begin(), keep.end(), true);
      if (kept != rows) {
        for (auto& vector : columns) vector = FilterRows(vector, keep, kept);
      }
      first_row += static_cast<uint64_t>(rows);
      rows = kept;
    }
    result.emplace_back(output_schema_, std::move(columns), rows);
  }
  return result;
}

std::vector<Batch> TableScan::Read() const {
  ThreadPool& pool = options_.pool != nullptr ? *options_.pool : ThreadPool::Default();
  std::vector<std::vector<Batch>> per_file(files_.size());
  pool.ParallelFor(files_.size(), [&](size_t i) { per_file[i] = ReadFile(*files_[i]); });
  std::vector<Batch> batches;
  for (auto& file_batches : per_file) {
    for (auto& batch : file_batches) batches.push_back(std::move(batch));
  }
  return batches;
}

namespace {

// A scan predicate as a Parquet row-group predicate on the stored column, when the stored type
// is the logical one (so that the statistics compare in the literal's terms); nullopt when the
// statistics cannot be used for it.
std::optional<parquet::ColumnPredicate> RowGroupPredicate(const ScanPredicate& predicate,
                                                          const Field& logical,
                                                          const Field& stored) {
  if (logical.type->is_nested() || !stored.type->Equals(*logical.type)) return std::nullopt;
  TypeId type = logical.type->id();
  if (type == TypeId::kBoolean || type == TypeId::kNull) return std::nullopt;
  parquet::ColumnPredicate result;
  result.column = stored.name;
  switch (predicate.op) {
    case ScanPredicate::Op::kEqual: result.op = parquet::ColumnPredicate::Op::kEqual; break;
    case ScanPredicate::Op::kLess: result.op = parquet::ColumnPredicate::Op::kLess; break;
    case ScanPredicate::Op::kLessOrEqual:
      result.op = parquet::ColumnPredicate::Op::kLessOrEqual;
      break;
    case ScanPredicate::Op::kGreater: result.op = parquet::ColumnPredicate::Op::kGreater; break;
    case ScanPredicate::Op::kGreaterOrEqual:
      result.op = parquet::ColumnPredicate::Op::kGreaterOrEqual;
      break;
    case ScanPredicate::Op::kIsNull: result.op = parquet::ColumnPredicate::Op::kIsNull; return result;
    case ScanPredicate::Op::kIsNotNull:
      result.op = parquet::ColumnPredicate::Op::kIsNotNull;
      return result;
  }
  std::optional<Scalar> literal = PredicateLiteral(logical, predicate.value);
  if (!literal) return std::nullopt;
  if (const auto* integer = std::get_if<int64_t>(&*literal)) {
    result.literal.int_value = *integer;
  } else if (const auto* real = std::get_if<double>(&*literal)) {
    result.literal.double_value = *real;
  } else if (const auto* decimal = std::get_if<Decimal128>(&*literal)) {
    result.literal.decimal_value = *decimal;
  } else if (const auto* text = std::get_if<std::string>(&*literal)) {
    result.literal.string_value = *text;
  } else {
    return std::nullopt;
  }
  return result;
}

}  // namespace

class TableScan::OpenedFileImpl final : public TableScan::OpenedFile {
 public:
  OpenedFileImpl(const TableScan& scan, const AddFile& file,
                 std::shared_ptr<const std::vector<uint64_t>> selected_rows)
      : scan_(scan), locator_mode_(scan.mapping_mode_), selected_rows_(std::move(selected_rows)) {
    io::FileSystem& fs = *scan.fs_;
    FieldLocator locator{locator_mode_};
    file_path_ = scan.ResolvePath(file.path);
    file_size_ = file.size;
    file_modification_time_ms_ = file.modification_time;
    base_row_id_ = file.base_row_id;
    default_row_commit_version_ = file.default_row_commit_version;
    reader_ = parquet::FileReader::Open(fs, file_path_);
    const Schema& file_schema = reader_->schema();
    const auto& columns = scan.columns_;
    projected_position_.assign(columns.size(), -1);
    read_options_.max_parallelism = 1;
    read_options_.pool = scan.options_.pool;
    auto project = [&](const std::string& name) {
      auto existing = std::find(read_options_.columns.begin(), read_options_.columns.end(), name);
      int position = static_cast<int>(existing - read_options_.columns.begin());
      if (existing == read_options_.columns.end()) read_options_.columns.push_back(name);
      return position;
    };
    for (size_t i = 0; i < columns.size(); ++i) {
      const Column& column = *columns[i];
      if (column.file_metadata) {
        file_metadata_column_ = static_cast<int>(i);
        // Materialized row ids and commit versions, stored under their hidden names.
        if (scan.row_tracking_) {
          if (!scan.materialized_row_id_column_.empty() &&
              file_schema.FieldIndex(scan.materialized_row_id_column_) >= 0) {
            materialized_row_id_position_ = project(scan.materialized_row_id_column_);
          }
          if (!scan.materialized_row_commit_version_column_.empty() &&
              file_schema.FieldIndex(scan.materialized_row_commit_version_column_) >= 0) {
            materialized_commit_version_position_ =
                project(scan.materialized_row_commit_version_column_);
          }
        }
        continue;
      }
      if (column.partition || column.field.type->id() == TypeId::kNull) continue;
      int index = locator.Find(column.field, file_schema.fields());
      if (index < 0) continue;
      const std::string& name = file_schema.field(static_cast<size_t>(index)).name;
      auto existing = std::find(read_options_.columns.begin(), read_options_.columns.end(), name);
      projected_position_[i] = static_cast<int>(existing - read_options_.columns.begin());
      if (existing == read_options_.columns.end()) read_options_.columns.push_back(name);
    }

    // Row-group skipping on data columns; partition columns were already decided per file.
    parquet::ReadOptions selection;
    const Schema& table_schema = *scan.table_schema_;
    const auto& partition_columns = scan.partition_columns_;
    for (const ScanPredicate& predicate : scan.options_.predicates) {
      const Field& logical =
          table_schema.field(static_cast<size_t>(table_schema.FieldIndex(predicate.column, false)));
      bool partition = std::any_of(partition_columns.begin(), partition_columns.end(),
                                   [&](const std::string& name) {
                                     return EqualsIgnoreCase(name, logical.name);
                                   });
      if (partition) continue;
      int stored = locator.Find(logical, file_schema.fields());
      if (stored < 0) continue;
      auto row_group_predicate =
          RowGroupPredicate(predicate, logical, file_schema.field(static_cast<size_t>(stored)));
      if (!row_group_predicate) continue;
      // The predicate is exact for the stored column (same type, literal parsed in it), so the
      // reader may drop the rows it rules out.
      if (scan.options_.filter_rows) read_options_.row_filters.push_back(*row_group_predicate);
      selection.predicates.push_back(std::move(*row_group_predicate));
    }
    if (scan.options_.bound) {
      // A bound on a data column of this file (partition columns are decided per file).
      int logical = table_schema.FieldIndex(scan.options_.bound->column(), false);
      if (logical >= 0) {
        const Field& field = table_schema.field(static_cast<size_t>(logical));
        int stored = locator.Find(field, file_schema.fields());
        bool partition = std::any_of(partition_columns.begin(), partition_columns.end(),
                                     [&](const std::string& name) { return EqualsIgnoreCase(name, field.name); });
        if (stored >= 0 && !partition) {
          bound_fields_.emplace(field, file_schema.field(static_cast<size_t>(stored)));
        }
      }
    }
    for (const std::shared_ptr<const JoinKeyFilter>& filter : scan.options_.join_filters) {
      int logical = table_schema.FieldIndex(filter->column(), false);
      if (logical < 0) continue;
      const Field& field = table_schema.field(static_cast<size_t>(logical));
      KeyFilterColumn column;
      column.filter = filter.get();
      column.partition = std::any_of(partition_columns.begin(), partition_columns.end(),
                                     [&](const std::string& name) { return EqualsIgnoreCase(name, field.name); });
      if (column.partition) {
        std::string physical = locator.PhysicalName(field);
        std::optional<std::string> text;
        for (const auto& [key, value] : file.partition_values) {
          if (key == physical || (!text && EqualsIgnoreCase(key, physical))) text = value;
        }
        column.partition_value = ParsePartitionValue(*field.type, text, field.name);
      } else {
        // A column the file lacks reads as NULL, and a narrower stored type is widened after
        // decoding: neither is filtered.
        int stored = locator.Find(field, file_schema.fields());
        if (stored < 0) continue;
        const Field& stored_field = file_schema.field(static_cast<size_t>(stored));
        if (!stored_field.type->Equals(*field.type)) continue;
        column.stored_name = stored_field.name;
      }
      key_filters_.push_back(std::move(column));
    }
    row_groups_ = reader_->SelectRowGroups(selection);
    if (!key_filters_.empty()) {
      std::vector<int> kept;
      for (int group : row_groups_) {
        if (!KeyFiltersRuleOut(group)) kept.push_back(group);
      }
      row_groups_ = std::move(kept);
    }
    if (!row_groups_.empty() && !CurrentBound().empty()) {
      std::vector<int> within;
      for (int group : row_groups_) {
        if (!RowGroupOutsideBound(group)) within.push_back(group);
      }
      row_groups_ = std::move(within);
    }

    uint64_t first_row = 0;
    for (const auto& group : reader_->metadata().row_groups) {
      first_rows_.push_back(first_row);
      first_row += static_cast<uint64_t>(group.num_rows);
    }
    if (selected_rows_) {
      // Only row groups holding a selected row are read.
      std::vector<int> kept;
      for (int group : row_groups_) {
        uint64_t first = first_rows_[static_cast<size_t>(group)];
        uint64_t end = first + static_cast<uint64_t>(
                                   reader_->metadata().row_groups[static_cast<size_t>(group)].num_rows);
        auto it = std::lower_bound(selected_rows_->begin(), selected_rows_->end(), first);
        if (it != selected_rows_->end() && *it < end) kept.push_back(group);
      }
      row_groups_ = std::move(kept);
    } else if (file.deletion_vector) {
      deleted_ = LoadDeletionVector(fs, scan.table_root_, *file.deletion_vector);
    }
    if (!selected_rows_) SetFileBound();
    partition_values_.resize(columns.size());
    for (size_t i = 0; i < columns.size(); ++i) {
      const Column& column = *columns[i];
      if (!column.partition) continue;
      std::optional<std::string> text;
      for (const auto& [key, value] : file.partition_values) {
        if (key == column.physical_name || (!text && EqualsIgnoreCase(key, column.physical_name))) {
          text = value;
        }
      }
      partition_values_[i] = ParsePartitionValue(*column.field.type, text, column.field.name);
    }
  }

  const std::vector<int>& row_groups() const override { return row_groups_; }
  int num_row_groups() const override { return reader_->num_row_groups(); }

  Batch ReadRowGroup(int index, std::vector<uint64_t>* positions) const override {
    SILT_USER_CHECK(index >= 0 && index < reader_->num_row_groups(), INVALID_ARGUMENT,
                    {{"message", "row group " + std::to_string(index) + " out of range"}});
    std::vector<uint64_t> metadata_positions;
    if (positions == nullptr && file_metadata_column_ >= 0) positions = &metadata_positions;
    FieldLocator locator{locator_mode_};
    int64_t rows = reader_->metadata().row_groups[static_cast<size_t>(index)].num_rows;
    // The rows a deletion vector (or a change feed's selection) keeps.
    std::vector<bool> keep;
    if (selected_rows_) {
      uint64_t first = first_rows_[static_cast<size_t>(index)];
      keep.assign(static_cast<size_t>(rows), false);
      for (auto it = std::lower_bound(selected_rows_->begin(), selected_rows_->end(), first);
           it != selected_rows_->end() && *it < first + static_cast<uint64_t>(rows); ++it) {
        keep[static_cast<size_t>(*it - first)] = true;
      }
    } else if (deleted_) {
      deleted_->FillKeepMask(first_rows_[static_cast<size_t>(index)], static_cast<uint64_t>(rows),
                             keep);
    }
    const uint64_t first = first_rows_[static_cast<size_t>(index)];
    // The join filters published by now: a row group (or a file's partition value) they rule
    // out keeps no row.
    const bool ruled_out = !key_filters_.empty() && KeyFiltersRuleOut(index);
    if (ruled_out) keep.assign(static_cast<size_t>(rows), false);
    Batch stored;
    if (!read_options_.columns.empty()) {
      // The bound as it is now: no row of a row group its statistics rule out is kept, and the
      // reader filters the rows of the others (by the join filters' keys too).
      std::vector<parquet::ColumnPredicate> row_filters;
      if (std::vector<parquet::ColumnPredicate> bounds = CurrentBound(); !bounds.empty() && !MayHoldKeptNulls(index)) {
        if (RowGroupOutsideBound(index)) keep.assign(static_cast<size_t>(rows), false);
        row_filters = std::move(bounds);
      }
      if (!ruled_out) AddKeyRowFilters(row_filters);
      const parquet::ReadOptions* options = &read_options_;
      parquet::ReadOptions bounded;
      if (!row_filters.empty()) {
        bounded = read_options_;
        for (parquet::ColumnPredicate& filter : row_filters) bounded.row_filters.push_back(std::move(filter));
        options = &bounded;
      }
      // The reader applies the mask (and the row filters) while decoding, converting only the
      // rows it keeps.
      std::vector<int64_t> in_group;
      stored = reader_->ReadRowGroup(index, *options, keep.empty() ? nullptr : &keep,
                                     positions != nullptr ? &in_group : nullptr);
      rows = stored.num_rows();
      keep.clear();
      if (positions != nullptr) {
        positions->resize(in_group.size());
        for (size_t i = 0; i < in_group.size(); ++i) {
          (*positions)[i] = first + static_cast<uint64_t>(in_group[i]);
        }
      }
    } else if (positions != nullptr) {
      positions->clear();
      for (int64_t i = 0; i < rows; ++i) {
        if (keep.empty() || keep[static_cast<size_t>(i)]) positions->push_back(first + static_cast<uint64_t>(i));
      }
    }
    const auto& columns = scan_.columns_;
    std::vector<VectorPtr> vectors;
    vectors.reserve(columns.size());
    for (size_t i = 0; i < columns.size(); ++i) {
      const Column& column = *columns[i];
      if (column.file_metadata) {
        vectors.push_back(nullptr);  // built below, once the rows are final
      } else if (column.partition) {
        vectors.push_back(MakeConstantVector(column.field.type, partition_values_[i], rows));
      } else if (projected_position_[i] < 0) {
        vectors.push_back(Vector::MakeAllNull(column.field.type, rows));
      } else {
        vectors.push_back(Adapt(stored.column(static_cast<size_t>(projected_position_[i])),
                                column.field.type, locator, column.field.name));
      }
    }
    if (!keep.empty()) {  // no column was read: the mask drops rows of the constant columns
      int64_t kept = std::count(keep.begin(), keep.end(), true);
      if (kept != rows) {
        for (auto& vector : vectors) {
          if (vector) vector = FilterRows(vector, keep, kept);
        }
        rows = kept;
      }
    }
    if (file_metadata_column_ >= 0) {
      vectors[static_cast<size_t>(file_metadata_column_)] = FileMetadata(stored, *positions, rows);
    }
    return Batch(scan_.output_schema_, std::move(vectors), rows);
  }

 private:
  // The `_metadata` values of the rows at `positions` (physical indexes in the file); `stored`
  // holds the materialized row tracking columns when the file has them.
  VectorPtr FileMetadata(const Batch& stored, const std::vector<uint64_t>& positions,
                         int64_t rows) const {
    SILT_CHECK(static_cast<int64_t>(positions.size()) == rows, "a position for every row");
    const Column& column = *scan_.columns_[static_cast<size_t>(file_metadata_column_)];
    auto constant_string = [&](const std::string& value) {
      VectorBuilder builder(StringType(), rows);
      for (int64_t i = 0; i < rows; ++i) builder.AppendString(value);
      return builder.Finish();
    };
    auto constant_long = [&](int64_t value, const DataTypePtr& type) {
      VectorBuilder builder(type, rows);
      for (int64_t i = 0; i < rows; ++i) builder.AppendInt(value);
      return builder.Finish();
    };
    std::vector<VectorPtr> children;
    children.push_back(constant_string(file_path_));
    children.push_back(constant_string(std::string(io::BaseName(file_path_))));
    children.push_back(constant_long(file_size_, LongType()));
    children.push_back(constant_long(0, LongType()));
    children.push_back(constant_long(file_size_, LongType()));
    children.push_back(constant_long(file_modification_time_ms_ * 1000, TimestampType()));
    VectorBuilder row_index(LongType(), rows);
    for (uint64_t position : positions) row_index.AppendInt(static_cast<int64_t>(position));
    children.push_back(row_index.Finish());
    if (scan_.row_tracking_) {
      if (!base_row_id_ || !default_row_commit_version_) {
        SILT_THROW(DELTA_INVALID_LOG_ENTRY,
                   {{"file", file_path_},
                    {"message", "row tracking is enabled but the file's add action has no "
                                "baseRowId or defaultRowCommitVersion"}});
      }
      // A materialized value, where present and not NULL, is the row's stable value.
      auto tracked = [&](int stored_position, int64_t fallback_base, bool add_position) {
        VectorPtr materialized;
        if (stored_position >= 0) {
          materialized = stored.column(static_cast<size_t>(stored_position));
          SILT_USER_CHECK(materialized->type_id() == TypeId::kLong, DELTA_INVALID_LOG_ENTRY,
                          {{"file", file_path_},
                           {"message", "a materialized row tracking column is not a bigint"}});
        }
        VectorBuilder builder(LongType(), rows);
        for (int64_t i = 0; i < rows; ++i) {
          if (materialized && !materialized->IsNull(i)) {
            builder.AppendInt(materialized->values<int64_t>()[i]);
          } else {
            int64_t offset = add_position ? static_cast<int64_t>(positions[static_cast<size_t>(i)]) : 0;
            builder.AppendInt(fallback_base + offset);
          }
        }
        return builder.Finish();
      };
      children.push_back(tracked(materialized_row_id_position_, *base_row_id_, true));
      children.push_back(
          tracked(materialized_commit_version_position_, *default_row_commit_version_, false));
    }
    return Vector::Make(column.field.type, rows, {nullptr}, std::move(children));
  }

  // The scan's bound as predicates on this file's stored column: the file's own (SetFileBound)
  // and the scan's current one, those that have a value.
  std::vector<parquet::ColumnPredicate> CurrentBound() const {
    std::vector<parquet::ColumnPredicate> bounds;
    if (!bound_fields_) return bounds;
    for (std::optional<ScanPredicate> current : {file_bound_, scan_.options_.bound->Current()}) {
      if (!current) continue;
      if (auto predicate = RowGroupPredicate(*current, bound_fields_->first, bound_fields_->second)) {
        bounds.push_back(std::move(*predicate));
      }
    }
    return bounds;
  }

  // Projections at least this wide make a file of several row groups read the bound's column
  // alone first (SetFileBound): decoding one column twice costs less than decoding the others
  // for row groups whose rows cannot be kept.
  static constexpr size_t kFileBoundColumns = 8;

  // With a bound that keeps `keep` rows, a projection of many columns and several row groups:
  // reads the bound's column of every live row of the file and makes its keep-th best value the
  // file's own bound, so that row groups holding none of the file's best rows are never decoded.
  void SetFileBound() {
    const ScanBound* bound = scan_.options_.bound.get();
    if (!bound_fields_ || bound->keep() <= 0 || row_groups_.size() < 2 ||
        read_options_.columns.size() < kFileBoundColumns) {
      return;
    }
    parquet::ReadOptions key_only;
    key_only.columns = {bound_fields_->second.name};
    key_only.max_parallelism = 1;
    key_only.pool = read_options_.pool;
    // The best `keep` values so far in a heap whose top is the worst of them, so that memory
    // stays at `keep` values however large the file; one row group's column at a time.
    const bool descending = bound->op() == ScanPredicate::Op::kGreaterOrEqual;
    auto better = [descending](const Scalar& a, const Scalar& b) {
      int order = CompareScalars(a, b);
      return descending ? order > 0 : order < 0;
    };
    std::priority_queue<Scalar, std::vector<Scalar>, decltype(better)> best(better);
    const size_t keep = static_cast<size_t>(bound->keep());
    for (int group : row_groups_) {
      if (bound->keeps_nulls() && MayHoldKeptNulls(group)) return;  // a NULL beats any bound
      std::vector<bool> live;
      if (deleted_) {
        deleted_->FillKeepMask(first_rows_[static_cast<size_t>(group)],
                               static_cast<uint64_t>(reader_->metadata().row_groups[static_cast<size_t>(group)].num_rows),
                               live);
      }
      Batch batch = reader_->ReadRowGroup(group, key_only, live.empty() ? nullptr : &live, nullptr);
      const Vector& key = *batch.column(0);
      for (int64_t row = 0; row < key.length(); ++row) {
        if (key.IsNull(row)) continue;
        std::optional<Scalar> value = BoundValue(key, row);
        if (!value) return;  // a type without an exact order here
        if (best.size() < keep) {
          best.push(std::move(*value));
        } else if (better(*value, best.top())) {
          best.pop();
          best.push(std::move(*value));
        }
      }
    }
    if (best.size() < keep) return;
    file_bound_ = ScanPredicate{bound->column(), bound->op(), FormatPartitionValue(*bound_fields_->second.type, best.top())};
  }

  // Row `row` (not NULL) of an integer-like, date, timestamp, decimal or string vector, as the
  // value the bound's text is made of; nullopt for other types.
  static std::optional<Scalar> BoundValue(const Vector& vector, int64_t row) {
    switch (vector.type()->id()) {
      case TypeId::kByte: return Scalar(int64_t{vector.values<int8_t>()[row]});
      case TypeId::kShort: return Scalar(int64_t{vector.values<int16_t>()[row]});
      case TypeId::kInteger:
      case TypeId::kDate: return Scalar(int64_t{vector.values<int32_t>()[row]});
      case TypeId::kLong:
      case TypeId::kTimestamp:
      case TypeId::kTimestampNtz: return Scalar(vector.values<int64_t>()[row]);
      case TypeId::kDecimal: return Scalar(vector.values<Decimal128>()[row]);
      case TypeId::kString: return Scalar(std::string(vector.GetString(row)));
      default: return std::nullopt;
    }
  }

  // Whether row group `index` may hold a NULL in the bound's column that the bound's consumer
  // keeps (NULLs first): the bound must not drop its rows.
  bool MayHoldKeptNulls(int index) const {
    if (!scan_.options_.bound->keeps_nulls()) return false;
    parquet::ReadOptions selection;
    selection.row_groups = {index};
    selection.predicates = {parquet::ColumnPredicate{bound_fields_->second.name,
                                                     parquet::ColumnPredicate::Op::kIsNull, {}}};
    return !reader_->SelectRowGroups(selection).empty();
  }

  // Whether the statistics of row group `index` prove that none of its rows is within the
  // current bound (and that it holds no NULL the consumer keeps).
  bool RowGroupOutsideBound(int index) const {
    std::vector<parquet::ColumnPredicate> bounds = CurrentBound();
    if (bounds.empty() || MayHoldKeptNulls(index)) return false;
    parquet::ReadOptions selection;
    selection.row_groups = {index};
    selection.predicates = std::move(bounds);
    return reader_->SelectRowGroups(selection).empty();
  }

  // A join filter (ScanOptions::join_filters) on a column of this file.
  struct KeyFilterColumn {
    const JoinKeyFilter* filter = nullptr;
    bool partition = false;
    std::optional<Scalar> partition_value;  // partition columns: the file's value
    std::string stored_name;                // data columns: the column in the file
  };

  // Whether the join filters published by now prove that row group `index` holds no row they
  // keep: the file's partition value is not a key, or the row group's statistics lie outside
  // the keys' range (or the build side had no key).
  bool KeyFiltersRuleOut(int index) const {
    parquet::ReadOptions selection;
    for (const KeyFilterColumn& column : key_filters_) {
      std::shared_ptr<const JoinKeySet> keys = column.filter->Current();
      if (!keys) continue;
      if (keys->num_keys() == 0) return true;
      if (column.partition) {
        if (!column.partition_value || !keys->Contains(*column.partition_value)) return true;
        continue;
      }
      for (auto [op, bound] : {std::pair{parquet::ColumnPredicate::Op::kGreaterOrEqual, &keys->min()},
                               std::pair{parquet::ColumnPredicate::Op::kLessOrEqual, &keys->max()}}) {
        parquet::ColumnPredicate predicate;
        predicate.column = column.stored_name;
        predicate.op = op;
        if (const auto* integer = std::get_if<int64_t>(&**bound)) {
          predicate.literal.int_value = *integer;
        } else {
          predicate.literal.string_value = std::get<std::string>(**bound);
        }
        selection.predicates.push_back(std::move(predicate));
      }
    }
    if (selection.predicates.empty()) return false;
    selection.row_groups = {index};
    return reader_->SelectRowGroups(selection).empty();
  }

  // Appends to `row_filters` the membership tests of the join filters on data columns that are
  // published and still drop enough rows to pay.
  void AddKeyRowFilters(std::vector<parquet::ColumnPredicate>& row_filters) const {
    for (const KeyFilterColumn& column : key_filters_) {
      if (column.partition) continue;
      std::shared_ptr<const JoinKeySet> keys = column.filter->Current();
      if (!keys || !keys->Selective()) continue;
      parquet::ColumnPredicate predicate;
      predicate.column = column.stored_name;
      predicate.op = parquet::ColumnPredicate::Op::kIn;
      predicate.values = std::move(keys);
      row_filters.push_back(std::move(predicate));
    }
  }

  const TableScan& scan_;
  ColumnMappingMode locator_mode_;
  std::unique_ptr<parquet::FileReader> reader_;
  parquet::ReadOptions read_options_;
  std::vector<int> projected_position_;  // per output column: index among read columns, or -1
  std::vector<int> row_groups_;
  // The logical and stored field of the scan's bound, when it is on a data column of the file.
  std::optional<std::pair<Field, Field>> bound_fields_;
  // The file's own bound (SetFileBound): the keep-th best value of the bound's column in it.
  std::optional<ScanPredicate> file_bound_;
  std::vector<KeyFilterColumn> key_filters_;
  std::vector<uint64_t> first_rows_;     // per row group: index of its first row in the file
  std::shared_ptr<const std::vector<uint64_t>> selected_rows_;
  std::optional<DeletedRows> deleted_;
  std::vector<std::optional<Scalar>> partition_values_;
  // For the _metadata column.
  int file_metadata_column_ = -1;
  int materialized_row_id_position_ = -1;         // among the read columns
  int materialized_commit_version_position_ = -1;
  std::string file_path_;
  int64_t file_size_ = 0;
  int64_t file_modification_time_ms_ = 0;
  std::optional<int64_t> base_row_id_;
  std::optional<int64_t> default_row_commit_version_;
};

std::unique_ptr<TableScan::OpenedFile> TableScan::OpenFile(const AddFile& file) const {
  return std::make_unique<OpenedFileImpl>(*this, file, nullptr);
}

std::unique_ptr<TableScan::OpenedFile> TableScan::OpenFile(
    const AddFile& file, std::shared_ptr<const std::vector<uint64_t>> selected_rows) const {
  return std::make_unique<OpenedFileImpl>(*this, file, std::move(selected_rows));
}

}  // namespace silt::log
