#include "silt/log/checkpoint_writer.h"

#include <simdjson.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>

#include "silt/base/ascii.h"
#include "silt/base/check.h"
#include "silt/base/clock.h"
#include "silt/base/json_writer.h"
#include "silt/io/path.h"
#include "silt/log/file_stats.h"
#include "silt/log/log_segment.h"
#include "silt/log/stats_collector.h"
#include "silt/log/partition_values.h"
#include "silt/log/random_uuid.h"
#include "silt/log/table_features.h"
#include "silt/log/transaction.h"
#include "silt/parquet/writer.h"
#include "silt/types/schema_json.h"

namespace silt::log {

namespace {

// ---- MD5 (RFC 1321) ----

struct Md5State {
  std::array<uint32_t, 4> h{0x67452301u, 0xefcdab89u, 0x98badcfeu, 0x10325476u};
};

constexpr std::array<uint32_t, 64> kMd5Sines = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391};
constexpr std::array<int, 64> kMd5Shifts = {7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
                                           5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20,
                                           4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
                                           6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21};

void Md5Block(Md5State& state, const uint8_t* block) {
  uint32_t m[16];
  for (int i = 0; i < 16; ++i) {
    m[i] = static_cast<uint32_t>(block[i * 4]) | (static_cast<uint32_t>(block[i * 4 + 1]) << 8) |
           (static_cast<uint32_t>(block[i * 4 + 2]) << 16) | (static_cast<uint32_t>(block[i * 4 + 3]) << 24);
  }
  uint32_t a = state.h[0], b = state.h[1], c = state.h[2], d = state.h[3];
  for (int i = 0; i < 64; ++i) {
    uint32_t f;
    int g;
    if (i < 16) {
      f = (b & c) | (~b & d);
      g = i;
    } else if (i < 32) {
      f = (d & b) | (~d & c);
      g = (5 * i + 1) % 16;
    } else if (i < 48) {
      f = b ^ c ^ d;
      g = (3 * i + 5) % 16;
    } else {
      f = c ^ (b | ~d);
      g = (7 * i) % 16;
    }
    uint32_t rotated = a + f + kMd5Sines[i] + m[g];
    a = d;
    d = c;
    c = b;
    b = b + ((rotated << kMd5Shifts[i]) | (rotated >> (32 - kMd5Shifts[i])));
  }
  state.h[0] += a;
  state.h[1] += b;
  state.h[2] += c;
  state.h[3] += d;
}

// ---- the _last_checkpoint checksum canonical form ----

void PercentEncode(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    }
  }
}

void Flatten(simdjson::dom::element element, const std::string& path, bool top_level,
             std::vector<std::pair<std::string, std::string>>& pairs) {
  auto join = [&](const std::string& segment) { return path.empty() ? segment : path + "+" + segment; };
  switch (element.type()) {
    case simdjson::dom::element_type::OBJECT: {
      simdjson::dom::object object;
      if (element.get_object().get(object) != simdjson::SUCCESS) break;
      for (auto field : object) {
        if (top_level && field.key == "checksum") continue;
        std::string key = "\"";
        PercentEncode(key, field.key);
        key += "\"";
        Flatten(field.value, join(key), false, pairs);
      }
      break;
    }
    case simdjson::dom::element_type::ARRAY: {
      size_t index = 0;
      simdjson::dom::array array;
      if (element.get_array().get(array) != simdjson::SUCCESS) break;
      for (auto item : array) {
        Flatten(item, join(std::to_string(index++)), false, pairs);
      }
      break;
    }
    case simdjson::dom::element_type::STRING: {
      std::string value = "\"";
      std::string_view text;
      if (element.get_string().get(text) != simdjson::SUCCESS) break;
      PercentEncode(value, text);
      value += "\"";
      pairs.emplace_back(path, std::move(value));
      break;
    }
    default:
      pairs.emplace_back(path, simdjson::minify(element));
      break;
  }
}

// ---- checkpoint schema and rows ----

DataTypePtr StringMapType() { return MapType(StringType(), StringType(), true); }

Field Nullable(std::string name, DataTypePtr type) { return Field{std::move(name), std::move(type), true, {}}; }

DataTypePtr DeletionVectorType() {
  return StructType({Nullable("storageType", StringType()), Nullable("pathOrInlineDv", StringType()),
                     Nullable("offset", IntegerType()), Nullable("sizeInBytes", IntegerType()),
                     Nullable("cardinality", LongType()), Nullable("maxRowIndex", LongType())});
}

// Typed copies of partition values and statistics inside `add` (protocol §3, Spark's
// writeStatsAsStruct): readers may skip parsing the JSON.
struct ParsedColumns {
  DataTypePtr partition_values;  ///< struct of the partition columns; nullptr when unpartitioned
  DataTypePtr stats;             ///< struct{numRecords, minValues, maxValues, nullCount}; or nullptr
  std::vector<std::string> partition_columns;
};

Schema CheckpointSchema(bool v2, const ParsedColumns* parsed) {
  std::vector<Field> fields;
  if (v2) {
    fields.push_back(Nullable("checkpointMetadata",
                              StructType({Nullable("version", LongType()), Nullable("tags", StringMapType())})));
  }
  fields.push_back(Nullable("txn", StructType({Nullable("appId", StringType()), Nullable("version", LongType()),
                                               Nullable("lastUpdated", LongType())})));
  fields.push_back(Nullable(
      "add", StructType({Nullable("path", StringType()), Nullable("partitionValues", StringMapType()),
                         Nullable("size", LongType()), Nullable("modificationTime", LongType()),
                         Nullable("dataChange", BooleanType()), Nullable("stats", StringType()),
                         Nullable("tags", StringMapType()), Nullable("deletionVector", DeletionVectorType()),
                         Nullable("baseRowId", LongType()), Nullable("defaultRowCommitVersion", LongType()),
                         Nullable("clusteringProvider", StringType())})));
  if (parsed != nullptr) {
    std::vector<Field> add_fields = fields.back().type->fields();
    if (parsed->partition_values) add_fields.push_back(Nullable("partitionValues_parsed", parsed->partition_values));
    if (parsed->stats) add_fields.push_back(Nullable("stats_parsed", parsed->stats));
    fields.back() = Nullable("add", StructType(std::move(add_fields)));
  }
  fields.push_back(Nullable(
      "remove", StructType({Nullable("path", StringType()), Nullable("deletionTimestamp", LongType()),
                            Nullable("dataChange", BooleanType()), Nullable("extendedFileMetadata", BooleanType()),
                            Nullable("partitionValues", StringMapType()), Nullable("size", LongType()),
                            Nullable("deletionVector", DeletionVectorType()), Nullable("baseRowId", LongType()),
                            Nullable("defaultRowCommitVersion", LongType())})));
  fields.push_back(Nullable(
      "metaData",
      StructType({Nullable("id", StringType()), Nullable("name", StringType()), Nullable("description", StringType()),
                  Nullable("format", StructType({Nullable("provider", StringType()), Nullable("options", StringMapType())})),
                  Nullable("schemaString", StringType()), Nullable("partitionColumns", ListType(StringType(), true)),
                  Nullable("configuration", StringMapType()), Nullable("createdTime", LongType())})));
  fields.push_back(Nullable(
      "protocol", StructType({Nullable("minReaderVersion", IntegerType()), Nullable("minWriterVersion", IntegerType()),
                              Nullable("readerFeatures", ListType(StringType(), true)),
                              Nullable("writerFeatures", ListType(StringType(), true))})));
  fields.push_back(Nullable("domainMetadata",
                            StructType({Nullable("domain", StringType()), Nullable("configuration", StringType()),
                                        Nullable("removed", BooleanType())})));
  return Schema(std::move(fields));
}

void AppendOptionalString(VectorBuilder& builder, const std::optional<std::string>& value) {
  if (value) builder.AppendString(*value);
  else builder.AppendNull();
}
void AppendOptionalLong(VectorBuilder& builder, const std::optional<int64_t>& value) {
  if (value) builder.AppendInt(*value);
  else builder.AppendNull();
}
void AppendOptionalBool(VectorBuilder& builder, const std::optional<bool>& value) {
  if (value) builder.AppendBool(*value);
  else builder.AppendNull();
}
void AppendStringMap(VectorBuilder& builder, const std::optional<StringMap>& map) {
  if (!map) return builder.AppendNull();
  VectorBuilder& entries = builder.child(0);
  for (const auto& [key, value] : *map) {
    entries.child(0).AppendString(key);
    entries.child(1).AppendString(value);
    entries.AppendStruct();
  }
  builder.FinishList();
}
void AppendPartitionMap(VectorBuilder& builder, const std::optional<PartitionValueMap>& map) {
  if (!map) return builder.AppendNull();
  VectorBuilder& entries = builder.child(0);
  for (const auto& [key, value] : *map) {
    entries.child(0).AppendString(key);
    AppendOptionalString(entries.child(1), value);
    entries.AppendStruct();
  }
  builder.FinishList();
}
void AppendStringList(VectorBuilder& builder, const std::optional<std::vector<std::string>>& list) {
  if (!list) return builder.AppendNull();
  for (const auto& item : *list) builder.child(0).AppendString(item);
  builder.FinishList();
}
void AppendDeletionVector(VectorBuilder& builder, const std::optional<DeletionVectorDescriptor>& dv) {
  if (!dv) return builder.AppendNull();
  builder.child(0).AppendString(std::string(1, dv->storage_type));
  builder.child(1).AppendString(dv->path_or_inline_dv);
  AppendOptionalLong(builder.child(2), dv->offset ? std::optional<int64_t>(*dv->offset) : std::nullopt);
  builder.child(3).AppendInt(dv->size_in_bytes);
  builder.child(4).AppendInt(dv->cardinality);
  AppendOptionalLong(builder.child(5), dv->max_row_index);
  builder.AppendStruct();
}

// The struct of statistics for `fields`, visiting leaves in schema order as StatsCollector does
// (the first `budget` leaves); `counts` gives every leaf a long null count, otherwise only
// leaves with min/max bounds keep their type. nullptr when nothing qualifies.
DataTypePtr StatsStruct(const std::vector<Field>& fields, int& budget, bool counts) {
  std::vector<Field> out;
  for (const auto& field : fields) {
    if (budget == 0) break;
    if (field.type->id() == TypeId::kStruct) {
      if (DataTypePtr nested = StatsStruct(field.type->fields(), budget, counts)) {
        out.push_back(Field{field.name, nested, true, {}});
      }
      continue;
    }
    if (budget > 0) --budget;
    if (counts) out.push_back(Field{field.name, LongType(), true, {}});
    else if (KeepsStatsBounds(field.type->id())) out.push_back(Field{field.name, field.type, true, {}});
  }
  if (out.empty()) return nullptr;
  return StructType(std::move(out));
}

ParsedColumns MakeParsedColumns(const Metadata& metadata) {
  ParsedColumns parsed;
  Schema schema = ParseDeltaSchema(metadata.schema_string);
  std::vector<Field> partition_fields;
  std::vector<Field> data_fields;
  for (const auto& field : schema.fields()) {
    bool is_partition = std::find(metadata.partition_columns.begin(), metadata.partition_columns.end(),
                                  field.name) != metadata.partition_columns.end();
    (is_partition ? partition_fields : data_fields).push_back(Field{field.name, field.type, true, {}});
  }
  if (!partition_fields.empty()) {
    for (const auto& field : partition_fields) parsed.partition_columns.push_back(field.name);
    parsed.partition_values = StructType(std::move(partition_fields));
  }
  int indexed = 32;
  if (const std::string* text = FindValue(metadata.configuration, "delta.dataSkippingNumIndexedCols")) {
    try {
      indexed = std::stoi(*text);
    } catch (const std::exception&) {
      indexed = 32;
    }
  }
  std::vector<Field> stats_fields{Field{"numRecords", LongType(), true, {}}};
  int budget = indexed;
  if (DataTypePtr min = StatsStruct(data_fields, budget, false)) {
    stats_fields.push_back(Field{"minValues", min, true, {}});
    stats_fields.push_back(Field{"maxValues", min, true, {}});
  }
  budget = indexed;
  if (DataTypePtr counts = StatsStruct(data_fields, budget, true)) {
    stats_fields.push_back(Field{"nullCount", counts, true, {}});
  }
  stats_fields.push_back(Field{"tightBounds", BooleanType(), true, {}});
  parsed.stats = StructType(std::move(stats_fields));
  return parsed;
}

enum class StatsKind { kMin, kMax, kNullCount };

void AppendStatsStruct(VectorBuilder& builder, const DataType& type, std::vector<std::string>& path,
                       const FileStats& stats, StatsKind kind) {
  for (size_t i = 0; i < type.fields().size(); ++i) {
    const Field& field = type.fields()[i];
    path.push_back(field.name);
    VectorBuilder& child = builder.child(i);
    if (field.type->id() == TypeId::kStruct) {
      AppendStatsStruct(child, *field.type, path, stats, kind);
    } else if (kind == StatsKind::kNullCount) {
      AppendOptionalLong(child, stats.NullCount(path));
    } else {
      std::optional<Scalar> value;
      try {
        value = kind == StatsKind::kMin ? stats.Min(path, *field.type) : stats.Max(path, *field.type);
        AppendScalar(child, value);
      } catch (const std::exception&) {
        child.AppendNull();  // a bound of an unexpected JSON type is left out
      }
    }
    path.pop_back();
  }
  builder.AppendStruct();
}

void AppendParsedColumns(VectorBuilder& add_builder, size_t first_child, const ParsedColumns& parsed,
                         const AddFile& add) {
  size_t index = first_child;
  if (parsed.partition_values) {
    VectorBuilder& builder = add_builder.child(index++);
    const auto& fields = parsed.partition_values->fields();
    for (size_t i = 0; i < fields.size(); ++i) {
      std::optional<std::string> text;
      for (const auto& [key, value] : add.partition_values) {
        if (key == fields[i].name) text = value;
      }
      try {
        AppendScalar(builder.child(i), ParsePartitionValue(*fields[i].type, text, fields[i].name));
      } catch (const Error&) {
        builder.child(i).AppendNull();
      }
    }
    builder.AppendStruct();
  }
  if (parsed.stats) {
    VectorBuilder& builder = add_builder.child(index++);
    std::optional<FileStats> stats;
    if (add.stats) {
      try {
        stats = FileStats::Parse(*add.stats, add.path);
      } catch (const Error&) {
        stats.reset();
      }
    }
    if (!stats) return builder.AppendNull();
    const auto& fields = parsed.stats->fields();
    std::vector<std::string> path;
    for (size_t i = 0; i < fields.size(); ++i) {
      VectorBuilder& child = builder.child(i);
      if (fields[i].name == "numRecords") AppendOptionalLong(child, stats->num_records());
      else if (fields[i].name == "tightBounds") child.AppendBool(stats->tight_bounds());
      else if (fields[i].name == "minValues") AppendStatsStruct(child, *fields[i].type, path, *stats, StatsKind::kMin);
      else if (fields[i].name == "maxValues") AppendStatsStruct(child, *fields[i].type, path, *stats, StatsKind::kMax);
      else AppendStatsStruct(child, *fields[i].type, path, *stats, StatsKind::kNullCount);
    }
    builder.AppendStruct();
  }
}

// Appends one row to `builder` (the struct column named `column`) from `action`, or NULL when
// the action is of another type.
void AppendActionColumn(VectorBuilder& builder, std::string_view column, const Action& action,
                        bool write_stats, const ParsedColumns* parsed) {
  if (column == "checkpointMetadata") {
    const auto* value = std::get_if<CheckpointMetadata>(&action);
    if (value == nullptr) return builder.AppendNull();
    builder.child(0).AppendInt(value->version);
    AppendStringMap(builder.child(1), value->tags);
  } else if (column == "txn") {
    const auto* value = std::get_if<SetTransaction>(&action);
    if (value == nullptr) return builder.AppendNull();
    builder.child(0).AppendString(value->app_id);
    builder.child(1).AppendInt(value->version);
    AppendOptionalLong(builder.child(2), value->last_updated);
  } else if (column == "add") {
    const auto* value = std::get_if<AddFile>(&action);
    if (value == nullptr) return builder.AppendNull();
    builder.child(0).AppendString(value->path);
    AppendPartitionMap(builder.child(1), value->partition_values);
    builder.child(2).AppendInt(value->size);
    builder.child(3).AppendInt(value->modification_time);
    // Checkpoint adds describe state, not a change (Spark writes false).
    builder.child(4).AppendBool(false);
    AppendOptionalString(builder.child(5), write_stats ? value->stats : std::nullopt);
    AppendStringMap(builder.child(6), value->tags);
    AppendDeletionVector(builder.child(7), value->deletion_vector);
    AppendOptionalLong(builder.child(8), value->base_row_id);
    AppendOptionalLong(builder.child(9), value->default_row_commit_version);
    AppendOptionalString(builder.child(10), value->clustering_provider);
    if (parsed != nullptr) AppendParsedColumns(builder, 11, *parsed, *value);
  } else if (column == "remove") {
    const auto* value = std::get_if<RemoveFile>(&action);
    if (value == nullptr) return builder.AppendNull();
    builder.child(0).AppendString(value->path);
    AppendOptionalLong(builder.child(1), value->deletion_timestamp);
    builder.child(2).AppendBool(value->data_change);
    AppendOptionalBool(builder.child(3), value->extended_file_metadata);
    AppendPartitionMap(builder.child(4), value->partition_values);
    AppendOptionalLong(builder.child(5), value->size);
    AppendDeletionVector(builder.child(6), value->deletion_vector);
    AppendOptionalLong(builder.child(7), value->base_row_id);
    AppendOptionalLong(builder.child(8), value->default_row_commit_version);
  } else if (column == "metaData") {
    const auto* value = std::get_if<Metadata>(&action);
    if (value == nullptr) return builder.AppendNull();
    builder.child(0).AppendString(value->id);
    AppendOptionalString(builder.child(1), value->name);
    AppendOptionalString(builder.child(2), value->description);
    VectorBuilder& format = builder.child(3);
    format.child(0).AppendString(value->format.provider);
    AppendStringMap(format.child(1), value->format.options);
    format.AppendStruct();
    builder.child(4).AppendString(value->schema_string);
    AppendStringList(builder.child(5), value->partition_columns);
    AppendStringMap(builder.child(6), value->configuration);
    AppendOptionalLong(builder.child(7), value->created_time);
  } else if (column == "protocol") {
    const auto* value = std::get_if<Protocol>(&action);
    if (value == nullptr) return builder.AppendNull();
    builder.child(0).AppendInt(value->min_reader_version);
    builder.child(1).AppendInt(value->min_writer_version);
    AppendStringList(builder.child(2), value->reader_features);
    AppendStringList(builder.child(3), value->writer_features);
  } else if (column == "domainMetadata") {
    const auto* value = std::get_if<DomainMetadata>(&action);
    if (value == nullptr) return builder.AppendNull();
    builder.child(0).AppendString(value->domain);
    builder.child(1).AppendString(value->configuration);
    builder.child(2).AppendBool(value->removed);
  } else {
    SILT_CHECK(false, "unknown checkpoint column " + std::string(column));
  }
  builder.AppendStruct();
}

// Collects the bytes of the Parquet file in memory, so the checkpoint can be published with one
// atomic put-if-absent.
class StringOutputStream final : public io::OutputStream {
 public:
  explicit StringOutputStream(std::string* out) : out_(out) {}
  void Write(const void* data, size_t length) override {
    out_->append(static_cast<const char*>(data), length);
  }
  void Sync() override {}
  void Close() override {}
  uint64_t position() const override { return out_->size(); }

 private:
  std::string* out_;
};

bool PropertyIsFalse(const Metadata& metadata, std::string_view key) {
  const std::string* value = FindValue(metadata.configuration, key);
  return value != nullptr && (*value == "false" || *value == "FALSE" || *value == "False");
}

}  // namespace

std::string Md5Hex(std::string_view bytes) {
  Md5State state;
  size_t full = bytes.size() / 64 * 64;
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  for (size_t i = 0; i < full; i += 64) Md5Block(state, data + i);
  uint8_t tail[128] = {};
  size_t rest = bytes.size() - full;
  std::memcpy(tail, data + full, rest);
  tail[rest] = 0x80;
  size_t tail_size = rest + 1 + 8 <= 64 ? 64 : 128;
  uint64_t bits = static_cast<uint64_t>(bytes.size()) * 8;
  for (int i = 0; i < 8; ++i) tail[tail_size - 8 + i] = static_cast<uint8_t>(bits >> (8 * i));
  for (size_t i = 0; i < tail_size; i += 64) Md5Block(state, tail + i);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (uint32_t word : state.h) {
    for (int i = 0; i < 4; ++i) {
      uint8_t byte = static_cast<uint8_t>(word >> (8 * i));
      out.push_back(kHex[byte >> 4]);
      out.push_back(kHex[byte & 0xF]);
    }
  }
  return out;
}

std::string LastCheckpointChecksum(std::string_view json) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(json.data(), json.size()).get(root) != simdjson::SUCCESS ||
      root.type() != simdjson::dom::element_type::OBJECT) {
    SILT_THROW(INVALID_ARGUMENT, {{"message", "_last_checkpoint content is not a JSON object"}});
  }
  std::vector<std::pair<std::string, std::string>> pairs;
  Flatten(root, "", true, pairs);
  std::sort(pairs.begin(), pairs.end());
  std::string canonical;
  for (const auto& [path, value] : pairs) {
    if (!canonical.empty()) canonical.push_back(',');
    canonical += path;
    canonical.push_back('=');
    canonical += value;
  }
  return Md5Hex(canonical);
}

CheckpointWriteResult WriteCheckpoint(const Snapshot& snapshot, const CheckpointWriteOptions& options) {
  const Metadata& metadata = snapshot.metadata();
  io::FileSystem& fs = *snapshot.file_system();
  std::string log_dir = io::JoinPath(snapshot.table_root(), "_delta_log");
  const std::string* policy = FindValue(metadata.configuration, "delta.checkpointPolicy");
  bool v2 = IsFeatureSupported(snapshot.protocol(), "v2Checkpoint") && policy != nullptr &&
            EqualsIgnoreCase(*policy, "v2");
  bool write_stats = !PropertyIsFalse(metadata, "delta.checkpoint.writeStatsAsJson");
  int64_t now = options.now_ms.value_or(SystemNowMs());
  const std::string* retention_text = FindValue(metadata.configuration, "delta.deletedFileRetentionDuration");
  int64_t retention_ms = retention_text ? ParseIntervalMs(*retention_text, "delta.deletedFileRetentionDuration")
                                        : 7 * 86'400'000ll;

  // The actions in Spark's order: protocol and metadata first, then the rest, adds last.
  std::vector<Action> actions;
  actions.reserve(snapshot.files().size() + snapshot.tombstones().size() + 8);
  if (v2) actions.emplace_back(CheckpointMetadata{snapshot.version(), std::nullopt});
  actions.emplace_back(snapshot.protocol());
  actions.emplace_back(metadata);
  for (const auto& [app_id, txn] : snapshot.transactions()) actions.emplace_back(txn);
  for (const auto& [domain, value] : snapshot.domain_metadata()) actions.emplace_back(value);
  for (const auto& tombstone : snapshot.tombstones()) {
    // A tombstone without a timestamp cannot be aged; keep it (VACUUM treats it as fresh).
    if (tombstone.deletion_timestamp && *tombstone.deletion_timestamp < now - retention_ms) continue;
    RemoveFile copy = tombstone;
    copy.stats.reset();  // checkpoint removes carry no stats or tags
    copy.tags.reset();
    actions.emplace_back(std::move(copy));
  }
  for (const auto& file : snapshot.files()) actions.emplace_back(file);

  // Spark's default (`delta.checkpoint.writeStatsAsStruct` true): typed partition values and stats.
  std::optional<ParsedColumns> parsed;
  if (!PropertyIsFalse(metadata, "delta.checkpoint.writeStatsAsStruct")) parsed = MakeParsedColumns(metadata);
  Schema schema = CheckpointSchema(v2, parsed ? &*parsed : nullptr);
  auto schema_ptr = std::make_shared<const Schema>(schema);
  std::string bytes;
  auto writer = parquet::FileWriter::Open(std::make_unique<StringOutputStream>(&bytes), schema);
  int64_t num_adds = 0;
  for (size_t start = 0; start < actions.size(); start += static_cast<size_t>(options.rows_per_batch)) {
    size_t end = std::min(actions.size(), start + static_cast<size_t>(options.rows_per_batch));
    std::vector<std::unique_ptr<VectorBuilder>> builders;
    for (const auto& field : schema.fields()) {
      builders.push_back(std::make_unique<VectorBuilder>(field.type, static_cast<int64_t>(end - start)));
    }
    for (size_t row = start; row < end; ++row) {
      if (std::holds_alternative<AddFile>(actions[row])) ++num_adds;
      for (size_t column = 0; column < builders.size(); ++column) {
        AppendActionColumn(*builders[column], schema.field(column).name, actions[row], write_stats,
                           parsed ? &*parsed : nullptr);
      }
    }
    std::vector<VectorPtr> columns;
    for (auto& builder : builders) columns.push_back(builder->Finish());
    writer->Write(Batch(schema_ptr, std::move(columns), static_cast<int64_t>(end - start)));
  }
  writer->Close();

  CheckpointWriteResult result;
  result.version = snapshot.version();
  // V2 tables get a UUID-named checkpoint (protocol §3.1): unique, so racing writers never
  // collide, and recognisable as V2 without opening it.
  std::string file_name = v2 ? FormatVersion(snapshot.version()) + ".checkpoint." + RandomUuid() + ".parquet"
                             : FormatVersion(snapshot.version()) + ".checkpoint.parquet";
  result.path = io::JoinPath(log_dir, file_name);
  result.num_actions = static_cast<int64_t>(actions.size());
  result.num_add_files = num_adds;
  result.size_in_bytes = static_cast<int64_t>(bytes.size());
  result.v2 = v2;
  result.already_existed = fs.PutIfAbsent(result.path, bytes) == io::PutOutcome::kAlreadyExists;
  if (result.already_existed) {
    if (auto info = fs.Stat(result.path)) result.size_in_bytes = static_cast<int64_t>(info->size);
  }

  // Never move the hint backwards: a slow writer finishing an older checkpoint must not hide a
  // newer one from readers.
  std::optional<LastCheckpointHint> current = ReadLastCheckpoint(fs, log_dir);
  if (current && current->version > snapshot.version()) return result;

  JsonWriter json;
  json.BeginObject();
  json.Key("version");
  json.Int(result.version);
  json.Key("size");
  json.Int(result.num_actions);
  json.Key("sizeInBytes");
  json.Int(result.size_in_bytes);
  json.Key("numOfAddFiles");
  json.Int(result.num_add_files);
  if (v2 && !result.already_existed) {
    // Spark's hint for UUID-named V2 checkpoints: lets readers find the file without listing.
    std::optional<io::FileInfo> info = fs.Stat(result.path);
    json.Key("v2Checkpoint");
    json.BeginObject();
    json.Key("path");
    json.String(file_name);
    json.Key("sizeInBytes");
    json.Int(result.size_in_bytes);
    json.Key("modificationTime");
    json.Int(info ? info->modification_time_ms : now);
    json.EndObject();
  }
  json.EndObject();
  std::string without_checksum = json.Release();
  std::string checksum = LastCheckpointChecksum(without_checksum);
  std::string hint = without_checksum.substr(0, without_checksum.size() - 1) + ",\"checksum\":\"" + checksum + "\"}";
  // Replace the hint atomically: a torn `_last_checkpoint` would only be ignored, but a complete
  // one costs nothing more.
  std::string temporary = io::JoinPath(log_dir, "._last_checkpoint." + RandomUuid() + ".tmp");
  fs.WriteFile(temporary, hint);
  fs.Rename(temporary, io::JoinPath(log_dir, "_last_checkpoint"));
  return result;
}

CheckpointWriteResult WriteCheckpoint(std::shared_ptr<io::FileSystem> fs, const std::string& table_root,
                                      int64_t version, const CheckpointWriteOptions& options) {
  SnapshotOptions snapshot_options;
  snapshot_options.version = version;
  auto snapshot = Snapshot::Load(std::move(fs), table_root, snapshot_options);
  return WriteCheckpoint(*snapshot, options);
}

}  // namespace silt::log
