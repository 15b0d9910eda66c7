#include "silt/log/actions.h"

#include <simdjson.h>

#include "silt/base/check.h"
#include "silt/log/json_text_internal.h"

namespace silt::log {

using internal::AppendJsonString;
using internal::ObjectReader;

const std::string* FindValue(const StringMap& map, std::string_view key) {
  for (const auto& [name, value] : map) {
    if (name == key) return &value;
  }
  return nullptr;
}

std::string DeletionVectorDescriptor::UniqueId() const {
  std::string id;
  id.reserve(path_or_inline_dv.size() + 12);
  id.push_back(storage_type);
  id += path_or_inline_dv;
  if (offset) {
    id.push_back('@');
    id += std::to_string(*offset);
  }
  return id;
}

namespace {

[[noreturn]] void FailLine(std::string_view file, std::string message) {
  SILT_THROW(DELTA_INVALID_LOG_ENTRY, {{"file", std::string(file)}, {"message", std::move(message)}});
}

// A JSON object of strings. Non-string scalar values are tolerated and kept as their JSON text,
// because some writers put numbers in tags and configuration.
StringMap ReadStringMap(const ObjectReader& reader, std::string_view key) {
  StringMap result;
  auto element = reader.Find(key);
  if (!element) return result;
  simdjson::dom::object object;
  if (element->get_object().get(object) != simdjson::SUCCESS) reader.Fail(key, "is not an object");
  for (auto field : object) {
    std::string_view text;
    if (field.value.get_string().get(text) == simdjson::SUCCESS) {
      result.emplace_back(std::string(field.key), std::string(text));
    } else if (field.value.is_null()) {
      continue;
    } else {
      result.emplace_back(std::string(field.key), internal::ElementJson(field.value));
    }
  }
  return result;
}

std::optional<StringMap> ReadOptionalStringMap(const ObjectReader& reader, std::string_view key) {
  if (!reader.Find(key)) return std::nullopt;
  return ReadStringMap(reader, key);
}

PartitionValueMap ReadPartitionValues(const ObjectReader& reader, std::string_view key) {
  PartitionValueMap result;
  auto element = reader.Find(key);
  if (!element) return result;
  simdjson::dom::object object;
  if (element->get_object().get(object) != simdjson::SUCCESS) reader.Fail(key, "is not an object");
  for (auto field : object) {
    std::string_view text;
    if (field.value.is_null()) {
      result.emplace_back(std::string(field.key), std::nullopt);
    } else if (field.value.get_string().get(text) == simdjson::SUCCESS) {
      result.emplace_back(std::string(field.key), std::string(text));
    } else if (field.value.is_object() || field.value.is_array()) {
      reader.Fail(key, "holds a nested value for key " + std::string(field.key));
    } else {
      // Numbers and booleans: their JSON text is the protocol's string form.
      result.emplace_back(std::string(field.key), internal::ElementJson(field.value));
    }
  }
  return result;
}

std::vector<std::string> ReadStringArray(const ObjectReader& reader, std::string_view key) {
  std::vector<std::string> result;
  auto element = reader.Find(key);
  if (!element) return result;
  simdjson::dom::array array;
  if (element->get_array().get(array) != simdjson::SUCCESS) reader.Fail(key, "is not an array");
  for (auto item : array) {
    std::string_view text;
    if (item.get_string().get(text) != simdjson::SUCCESS) reader.Fail(key, "holds a non-string");
    result.emplace_back(text);
  }
  return result;
}

std::optional<DeletionVectorDescriptor> ReadDeletionVector(const ObjectReader& parent) {
  auto element = parent.Find("deletionVector");
  if (!element) return std::nullopt;
  simdjson::dom::object object;
  if (element->get_object().get(object) != simdjson::SUCCESS) {
    parent.Fail("deletionVector", "is not an object");
  }
  ObjectReader reader(object, parent.file(), "deletionVector");
  DeletionVectorDescriptor dv;
  std::string storage_type = reader.RequiredString("storageType");
  if (storage_type.size() != 1 ||
      (storage_type[0] != 'u' && storage_type[0] != 'i' && storage_type[0] != 'p')) {
    reader.Fail("storageType", "is not one of u, i, p: '" + storage_type + "'");
  }
  dv.storage_type = storage_type[0];
  dv.path_or_inline_dv = reader.RequiredString("pathOrInlineDv");
  if (auto offset = reader.OptionalInt64("offset")) {
    if (*offset < 0 || *offset > INT32_MAX) reader.Fail("offset", "is out of range");
    dv.offset = static_cast<int32_t>(*offset);
  }
  int64_t size = reader.RequiredInt64("sizeInBytes");
  if (size < 0 || size > INT32_MAX) reader.Fail("sizeInBytes", "is out of range");
  dv.size_in_bytes = static_cast<int32_t>(size);
  dv.cardinality = reader.RequiredInt64("cardinality");
  if (dv.cardinality < 0) reader.Fail("cardinality", "is negative");
  dv.max_row_index = reader.OptionalInt64("maxRowIndex");
  return dv;
}

Protocol ParseProtocol(const ObjectReader& reader) {
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
  if (reader.Find("readerFeatures")) protocol.reader_features = ReadStringArray(reader, "readerFeatures");
  if (reader.Find("writerFeatures")) protocol.writer_features = ReadStringArray(reader, "writerFeatures");
  return protocol;
}

Metadata ParseMetadata(const ObjectReader& reader) {
  Metadata metadata;
  metadata.id = reader.RequiredString("id");
  metadata.name = reader.OptionalString("name");
  metadata.description = reader.OptionalString("description");
  if (auto format = reader.Find("format")) {
    simdjson::dom::object object;
    if (format->get_object().get(object) != simdjson::SUCCESS) reader.Fail("format", "is not an object");
    ObjectReader format_reader(object, reader.file(), "metaData.format");
    metadata.format.provider = format_reader.OptionalString("provider").value_or("parquet");
    metadata.format.options = ReadStringMap(format_reader, "options");
  }
  metadata.schema_string = reader.RequiredString("schemaString");
  // Required: without it a partitioned table's files would read with NULL partition values.
  if (!reader.Find("partitionColumns")) reader.Fail("partitionColumns", "is missing");
  metadata.partition_columns = ReadStringArray(reader, "partitionColumns");
  metadata.created_time = reader.OptionalInt64("createdTime");
  metadata.configuration = ReadStringMap(reader, "configuration");
  return metadata;
}

AddFile ParseAdd(const ObjectReader& reader) {
  AddFile add;
  add.path = reader.RequiredString("path");
  add.partition_values = ReadPartitionValues(reader, "partitionValues");
  add.size = reader.RequiredInt64("size");
  add.modification_time = reader.OptionalInt64("modificationTime").value_or(0);
  // Required by the protocol, but readers only use it for change feeds; tolerate its absence.
  add.data_change = reader.OptionalBool("dataChange").value_or(true);
  add.stats = reader.OptionalString("stats");
  add.tags = ReadOptionalStringMap(reader, "tags");
  add.deletion_vector = ReadDeletionVector(reader);
  add.base_row_id = reader.OptionalInt64("baseRowId");
  add.default_row_commit_version = reader.OptionalInt64("defaultRowCommitVersion");
  add.clustering_provider = reader.OptionalString("clusteringProvider");
  return add;
}

RemoveFile ParseRemove(const ObjectReader& reader) {
  RemoveFile remove;
  remove.path = reader.RequiredString("path");
  remove.deletion_timestamp = reader.OptionalInt64("deletionTimestamp");
  remove.data_change = reader.OptionalBool("dataChange").value_or(true);
  remove.extended_file_metadata = reader.OptionalBool("extendedFileMetadata");
  if (reader.Find("partitionValues")) {
    remove.partition_values = ReadPartitionValues(reader, "partitionValues");
  }
  remove.size = reader.OptionalInt64("size");
  remove.stats = reader.OptionalString("stats");
  remove.tags = ReadOptionalStringMap(reader, "tags");
  remove.deletion_vector = ReadDeletionVector(reader);
  remove.base_row_id = reader.OptionalInt64("baseRowId");
  remove.default_row_commit_version = reader.OptionalInt64("defaultRowCommitVersion");
  return remove;
}

AddCdcFile ParseCdc(const ObjectReader& reader) {
  AddCdcFile cdc;
  cdc.path = reader.RequiredString("path");
  cdc.partition_values = ReadPartitionValues(reader, "partitionValues");
  cdc.size = reader.RequiredInt64("size");
  cdc.data_change = reader.OptionalBool("dataChange").value_or(false);
  cdc.tags = ReadOptionalStringMap(reader, "tags");
  return cdc;
}

SetTransaction ParseTxn(const ObjectReader& reader) {
  SetTransaction txn;
  txn.app_id = reader.RequiredString("appId");
  txn.version = reader.RequiredInt64("version");
  txn.last_updated = reader.OptionalInt64("lastUpdated");
  return txn;
}

// commitInfo is free-form: a field of an unexpected type is ignored rather than an error, so that
// no writer's provenance record can make a table unreadable.
CommitInfo ParseCommitInfo(simdjson::dom::element element) {
  CommitInfo info;
  info.raw_json = internal::ElementJson(element);
  simdjson::dom::object object;
  if (element.get_object().get(object) != simdjson::SUCCESS) return info;
  auto find = [&](std::string_view key) -> std::optional<simdjson::dom::element> {
    simdjson::dom::element value;
    if (object.at_key(key).get(value) != simdjson::SUCCESS || value.is_null()) return std::nullopt;
    return value;
  };
  auto int_field = [&](std::string_view key) -> std::optional<int64_t> {
    auto value = find(key);
    return value ? internal::ElementInt64(*value) : std::nullopt;
  };
  auto string_field = [&](std::string_view key) -> std::optional<std::string> {
    auto value = find(key);
    std::string_view text;
    if (!value || value->get_string().get(text) != simdjson::SUCCESS) return std::nullopt;
    return std::string(text);
  };
  info.timestamp = int_field("timestamp");
  info.in_commit_timestamp = int_field("inCommitTimestamp");
  info.operation = string_field("operation");
  info.engine_info = string_field("engineInfo");
  info.read_version = int_field("readVersion");
  info.isolation_level = string_field("isolationLevel");
  info.txn_id = string_field("txnId");
  if (auto blind = find("isBlindAppend")) {
    bool value = false;
    if (blind->get_bool().get(value) == simdjson::SUCCESS) info.is_blind_append = value;
  }
  simdjson::dom::object parameters;
  if (auto value = find("operationParameters");
      value && value->get_object().get(parameters) == simdjson::SUCCESS) {
    for (auto field : parameters) {
      info.operation_parameters.emplace_back(std::string(field.key),
                                             internal::ElementJson(field.value));
    }
  }
  simdjson::dom::object metrics;
  if (auto value = find("operationMetrics");
      value && value->get_object().get(metrics) == simdjson::SUCCESS) {
    for (auto field : metrics) {
      std::string_view text;
      if (field.value.get_string().get(text) == simdjson::SUCCESS) {
        info.operation_metrics.emplace_back(std::string(field.key), std::string(text));
      } else {
        info.operation_metrics.emplace_back(std::string(field.key),
                                            internal::ElementJson(field.value));
      }
    }
  }
  return info;
}

DomainMetadata ParseDomainMetadata(const ObjectReader& reader) {
  DomainMetadata domain;
  domain.domain = reader.RequiredString("domain");
  domain.configuration = reader.OptionalString("configuration").value_or("");
  domain.removed = reader.OptionalBool("removed").value_or(false);
  return domain;
}

CheckpointMetadata ParseCheckpointMetadata(const ObjectReader& reader) {
  CheckpointMetadata metadata;
  metadata.version = reader.RequiredInt64("version");
  metadata.tags = ReadOptionalStringMap(reader, "tags");
  return metadata;
}

Sidecar ParseSidecar(const ObjectReader& reader) {
  Sidecar sidecar;
  sidecar.path = reader.RequiredString("path");
  sidecar.size_in_bytes = reader.OptionalInt64("sizeInBytes").value_or(0);
  sidecar.modification_time = reader.OptionalInt64("modificationTime").value_or(0);
  sidecar.tags = ReadOptionalStringMap(reader, "tags");
  return sidecar;
}

std::optional<Action> ParseActionObject(simdjson::dom::object object, std::string_view file) {
  for (auto field : object) {
    std::string_view key = field.key;
    if (key == "commitInfo") return ParseCommitInfo(field.value);
    // Every other known action is an object; a null value means "not this action" (as in a
    // checkpoint row), and anything else is malformed.
    if (field.value.is_null()) continue;
    simdjson::dom::object body;
    bool known = key == "add" || key == "remove" || key == "metaData" || key == "protocol" ||
                 key == "txn" || key == "cdc" || key == "domainMetadata" ||
                 key == "checkpointMetadata" || key == "sidecar";
    if (!known) continue;
    if (field.value.get_object().get(body) != simdjson::SUCCESS) {
      FailLine(file, "action '" + std::string(key) + "' is not a JSON object");
    }
    ObjectReader reader(body, file, key);
    if (key == "add") return ParseAdd(reader);
    if (key == "remove") return ParseRemove(reader);
    if (key == "metaData") return ParseMetadata(reader);
    if (key == "protocol") return ParseProtocol(reader);
    if (key == "txn") return ParseTxn(reader);
    if (key == "cdc") return ParseCdc(reader);
    if (key == "domainMetadata") return ParseDomainMetadata(reader);
    if (key == "checkpointMetadata") return ParseCheckpointMetadata(reader);
    return ParseSidecar(reader);
  }
  return std::nullopt;
}

bool IsBlank(std::string_view line) {
  for (char c : line) {
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') return false;
  }
  return true;
}

// `padded` says that at least SIMDJSON_PADDING readable bytes follow the line (it lies inside a
// padded buffer), so the parser need not copy it.
std::optional<Action> ParseLineWith(simdjson::dom::parser& parser, std::string_view line,
                                    std::string_view file, bool padded = false) {
  simdjson::dom::element element;
  auto error = parser.parse(line.data(), line.size(), /*realloc_if_needed=*/!padded).get(element);
  if (error != simdjson::SUCCESS) {
    FailLine(file, std::string("malformed JSON (") + simdjson::error_message(error) + ")");
  }
  simdjson::dom::object object;
  if (element.get_object().get(object) != simdjson::SUCCESS) {
    FailLine(file, "a log line is not a JSON object");
  }
  return ParseActionObject(object, file);
}

}  // namespace

std::optional<Action> ParseActionLine(std::string_view line, std::string_view file) {
  if (IsBlank(line)) return std::nullopt;
  simdjson::dom::parser parser;
  return ParseLineWith(parser, line, file);
}

std::vector<Action> ParseActions(std::string_view text, std::string_view file) {
  std::vector<Action> actions;
  // One parser for the whole file: it reuses its buffers from line to line.
  simdjson::dom::parser parser;
  // One padded copy of the whole file lets every line be parsed in place.
  simdjson::padded_string padded(text);
  std::string_view buffer(padded.data(), padded.size());
  size_t start = 0;
  while (start < buffer.size()) {
    size_t end = buffer.find('\n', start);
    if (end == std::string_view::npos) end = buffer.size();
    std::string_view line = buffer.substr(start, end - start);
    if (!IsBlank(line)) {
      if (auto action = ParseLineWith(parser, line, file, /*padded=*/true)) {
        actions.push_back(std::move(*action));
      }
    }
    start = end + 1;
  }
  return actions;
}

// ---- serialisation ----

namespace {

class ObjectWriter {
 public:
  explicit ObjectWriter(std::string& out) : out_(out) { out_.push_back('{'); }
  void Key(std::string_view key) {
    if (!first_) out_.push_back(',');
    first_ = false;
    AppendJsonString(out_, key);
    out_.push_back(':');
  }
  void String(std::string_view key, std::string_view value) {
    Key(key);
    AppendJsonString(out_, value);
  }
  void Int(std::string_view key, int64_t value) {
    Key(key);
    out_ += std::to_string(value);
  }
  void Bool(std::string_view key, bool value) {
    Key(key);
    out_ += value ? "true" : "false";
  }
  void Raw(std::string_view key, std::string_view json) {
    Key(key);
    out_ += json;
  }
  void OptionalString(std::string_view key, const std::optional<std::string>& value) {
    if (value) String(key, *value);
  }
  void OptionalInt(std::string_view key, const std::optional<int64_t>& value) {
    if (value) Int(key, *value);
  }
  void Map(std::string_view key, const StringMap& map) {
    Key(key);
    out_.push_back('{');
    bool first = true;
    for (const auto& [name, value] : map) {
      if (!first) out_.push_back(',');
      first = false;
      AppendJsonString(out_, name);
      out_.push_back(':');
      AppendJsonString(out_, value);
    }
    out_.push_back('}');
  }
  void PartitionValues(std::string_view key, const PartitionValueMap& map) {
    Key(key);
    out_.push_back('{');
    bool first = true;
    for (const auto& [name, value] : map) {
      if (!first) out_.push_back(',');
      first = false;
      AppendJsonString(out_, name);
      out_.push_back(':');
      if (value) {
        AppendJsonString(out_, *value);
      } else {
        out_ += "null";
      }
    }
    out_.push_back('}');
  }
  void StringArray(std::string_view key, const std::vector<std::string>& values) {
    Key(key);
    out_.push_back('[');
    for (size_t i = 0; i < values.size(); ++i) {
      if (i > 0) out_.push_back(',');
      AppendJsonString(out_, values[i]);
    }
    out_.push_back(']');
  }
  void DeletionVector(const std::optional<DeletionVectorDescriptor>& dv) {
    if (!dv) return;
    Key("deletionVector");
    ObjectWriter writer(out_);
    writer.String("storageType", std::string_view(&dv->storage_type, 1));
    writer.String("pathOrInlineDv", dv->path_or_inline_dv);
    if (dv->offset) writer.Int("offset", *dv->offset);
    writer.Int("sizeInBytes", dv->size_in_bytes);
    writer.Int("cardinality", dv->cardinality);
    writer.OptionalInt("maxRowIndex", dv->max_row_index);
    writer.Close();
  }
  void Close() { out_.push_back('}'); }

 private:
  std::string& out_;
  bool first_ = true;
};

struct Serializer {
  std::string& out;

  void operator()(const Protocol& protocol) {
    out += "{\"protocol\":";
    ObjectWriter writer(out);
    writer.Int("minReaderVersion", protocol.min_reader_version);
    writer.Int("minWriterVersion", protocol.min_writer_version);
    if (protocol.reader_features) writer.StringArray("readerFeatures", *protocol.reader_features);
    if (protocol.writer_features) writer.StringArray("writerFeatures", *protocol.writer_features);
    writer.Close();
    out += "}";
  }
  void operator()(const Metadata& metadata) {
    out += "{\"metaData\":";
    ObjectWriter writer(out);
    writer.String("id", metadata.id);
    writer.OptionalString("name", metadata.name);
    writer.OptionalString("description", metadata.description);
    writer.Key("format");
    {
      ObjectWriter format(out);
      format.String("provider", metadata.format.provider);
      format.Map("options", metadata.format.options);
      format.Close();
    }
    writer.String("schemaString", metadata.schema_string);
    writer.StringArray("partitionColumns", metadata.partition_columns);
    writer.Map("configuration", metadata.configuration);
    writer.OptionalInt("createdTime", metadata.created_time);
    writer.Close();
    out += "}";
  }
  void operator()(const AddFile& add) {
    out += "{\"add\":";
    ObjectWriter writer(out);
    writer.String("path", add.path);
    writer.PartitionValues("partitionValues", add.partition_values);
    writer.Int("size", add.size);
    writer.Int("modificationTime", add.modification_time);
    writer.Bool("dataChange", add.data_change);
    writer.OptionalString("stats", add.stats);
    if (add.tags) writer.Map("tags", *add.tags);
    writer.DeletionVector(add.deletion_vector);
    writer.OptionalInt("baseRowId", add.base_row_id);
    writer.OptionalInt("defaultRowCommitVersion", add.default_row_commit_version);
    writer.OptionalString("clusteringProvider", add.clustering_provider);
    writer.Close();
    out += "}";
  }
  void operator()(const RemoveFile& remove) {
    out += "{\"remove\":";
    ObjectWriter writer(out);
    writer.String("path", remove.path);
    writer.OptionalInt("deletionTimestamp", remove.deletion_timestamp);
    writer.Bool("dataChange", remove.data_change);
    if (remove.extended_file_metadata) {
      writer.Bool("extendedFileMetadata", *remove.extended_file_metadata);
    }
    if (remove.partition_values) writer.PartitionValues("partitionValues", *remove.partition_values);
    writer.OptionalInt("size", remove.size);
    writer.OptionalString("stats", remove.stats);
    if (remove.tags) writer.Map("tags", *remove.tags);
    writer.DeletionVector(remove.deletion_vector);
    writer.OptionalInt("baseRowId", remove.base_row_id);
    writer.OptionalInt("defaultRowCommitVersion", remove.default_row_commit_version);
    writer.Close();
    out += "}";
  }
  void operator()(const AddCdcFile& cdc) {
    out += "{\"cdc\":";
    ObjectWriter writer(out);
    writer.String("path", cdc.path);
    writer.PartitionValues("partitionValues", cdc.partition_values);
    writer.Int("size", cdc.size);
    if (cdc.tags) writer.Map("tags", *cdc.tags);
    writer.Bool("dataChange", cdc.data_change);
    writer.Close();
    out += "}";
  }
  void operator()(const SetTransaction& txn) {
    out += "{\"txn\":";
    ObjectWriter writer(out);
    writer.String("appId", txn.app_id);
    writer.Int("version", txn.version);
    writer.OptionalInt("lastUpdated", txn.last_updated);
    writer.Close();
    out += "}";
  }
  void operator()(const CommitInfo& info) {
    // The raw object is authoritative: it holds every field, known or not.
    out += "{\"commitInfo\":";
    out += info.raw_json.empty() ? std::string("{}") : info.raw_json;
    out += "}";
  }
  void operator()(const DomainMetadata& domain) {
    out += "{\"domainMetadata\":";
    ObjectWriter writer(out);
    writer.String("domain", domain.domain);
    writer.String("configuration", domain.configuration);
    writer.Bool("removed", domain.removed);
    writer.Close();
    out += "}";
  }
  void operator()(const CheckpointMetadata& metadata) {
    out += "{\"checkpointMetadata\":";
    ObjectWriter writer(out);
    writer.Int("version", metadata.version);
    if (metadata.tags) writer.Map("tags", *metadata.tags);
    writer.Close();
    out += "}";
  }
  void operator()(const Sidecar& sidecar) {
    out += "{\"sidecar\":";
    ObjectWriter writer(out);
    writer.String("path", sidecar.path);
    writer.Int("sizeInBytes", sidecar.size_in_bytes);
    writer.Int("modificationTime", sidecar.modification_time);
    if (sidecar.tags) writer.Map("tags", *sidecar.tags);
    writer.Close();
    out += "}";
  }
};

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string SerializeAction(const Action& action) {
  std::string out;
  std::visit(Serializer{out}, action);
  return out;
}

std::string SerializeActions(const std::vector<Action>& actions) {
  std::string out;
  for (const auto& action : actions) {
    std::visit(Serializer{out}, action);
    out.push_back('\n');
  }
  return out;
}

std::string DecodeLogPath(std::string_view path) {
  std::string decoded;
  decoded.reserve(path.size());
  for (size_t i = 0; i < path.size(); ++i) {
    if (path[i] != '%') {
      decoded.push_back(path[i]);
      continue;
    }
    int high = i + 2 < path.size() ? HexValue(path[i + 1]) : -1;
    int low = i + 2 < path.size() ? HexValue(path[i + 2]) : -1;
    if (high < 0 || low < 0) {
      SILT_THROW(DELTA_INVALID_LOG_ENTRY,
                 {{"file", std::string(path)}, {"message", "malformed %-escape in a file path"}});
    }
    decoded.push_back(static_cast<char>(high * 16 + low));
    i += 2;
  }
  return decoded;
}

std::string EncodeLogPath(std::string_view path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string encoded;
  encoded.reserve(path.size());
  for (char c : path) {
    auto byte = static_cast<unsigned char>(c);
    // Hadoop's Path.toUri escapes these; everything else (including '+', '=' and UTF-8 bytes)
    // is written literally, as Spark does.
    bool escape = byte < 0x20 || byte == 0x7f || c == ' ' || c == '%' || c == '"' || c == '<' ||
                  c == '>' || c == '\\' || c == '^' || c == '`' || c == '{' || c == '|' ||
                  c == '}' || c == '#' || c == '?' || c == '[' || c == ']';
    if (escape) {
      encoded.push_back('%');
      encoded.push_back(kHex[byte >> 4]);
      encoded.push_back(kHex[byte & 15]);
    } else {
      encoded.push_back(c);
    }
  }
  return encoded;
}

}  // namespace silt::log
