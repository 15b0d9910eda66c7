#include "silt/log/transaction.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <map>

#include "silt/base/ascii.h"
#include "silt/base/check.h"
#include "silt/base/clock.h"
#include "silt/base/json_writer.h"
#include "silt/io/path.h"
#include "silt/log/checkpoint_writer.h"
#include "silt/log/file_stats.h"
#include "silt/log/log_cleanup.h"
#include "silt/log/partition_values.h"
#include "silt/log/random_uuid.h"
#include "silt/log/row_tracking.h"
#include "silt/log/table_features.h"
#include "silt/types/schema_json.h"

namespace silt::log {

namespace {

bool PropertyIsTrue(const Metadata& metadata, std::string_view key) {
  const std::string* value = FindValue(metadata.configuration, key);
  if (value == nullptr) return false;
  std::string lower;
  for (char c : *value) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return lower == "true";
}

bool ContainsTimestampNtz(const DataType& type) {
  if (type.id() == TypeId::kTimestampNtz) return true;
  for (const auto& field : type.fields()) {
    if (ContainsTimestampNtz(*field.type)) return true;
  }
  return false;
}

void AddUnique(std::vector<std::string>& names, std::string_view name) {
  if (std::find(names.begin(), names.end(), name) == names.end()) names.emplace_back(name);
}

// The union of two protocols: the higher legacy versions when both stay legacy, otherwise table
// features (writer 7) listing every feature either one implies.
Protocol MergeProtocols(const Protocol& current, const Protocol& required) {
  bool features = current.min_writer_version >= 7 || required.min_writer_version >= 7;
  if (!features) {
    return Protocol{std::max(current.min_reader_version, required.min_reader_version),
                    std::max(current.min_writer_version, required.min_writer_version),
                    std::nullopt, std::nullopt};
  }
  std::vector<std::string> writer;
  for (const auto& name : EffectiveWriterFeatures(current)) AddUnique(writer, name);
  for (const auto& name : EffectiveWriterFeatures(required)) AddUnique(writer, name);
  std::vector<std::string> reader;
  for (const auto& name : EffectiveReaderFeatures(current)) AddUnique(reader, name);
  for (const auto& name : EffectiveReaderFeatures(required)) AddUnique(reader, name);
  for (const auto& name : reader) AddUnique(writer, name);
  Protocol merged;
  merged.min_writer_version = 7;
  merged.writer_features = writer;
  bool table_reader_features = current.min_reader_version >= 3 || required.min_reader_version >= 3;
  if (table_reader_features) {
    merged.min_reader_version = 3;
    merged.reader_features = reader;
  } else {
    merged.min_reader_version = std::max(current.min_reader_version, required.min_reader_version);
  }
  return merged;
}

bool ProtocolCovers(const Protocol& current, const Protocol& required) {
  if (current.min_reader_version < required.min_reader_version) return false;
  if (current.min_writer_version < required.min_writer_version) return false;
  for (const auto& name : EffectiveWriterFeatures(required)) {
    if (!IsFeatureSupported(current, name)) return false;
  }
  for (const auto& name : EffectiveReaderFeatures(required)) {
    if (!IsFeatureSupported(current, name)) return false;
  }
  return true;
}

// Compares a literal with a partition value or a statistics bound.
std::optional<int> Compare(const std::optional<Scalar>& value, const std::optional<Scalar>& literal) {
  if (!value || !literal) return std::nullopt;
  if (value->index() != literal->index()) return std::nullopt;
  return CompareScalars(*value, *literal);
}

bool PartitionConjunctMayMatch(const ScanPredicate& conjunct, const DataType& type,
                               const std::optional<std::string>& text) {
  std::optional<Scalar> value = ParsePartitionValue(type, text, conjunct.column);
  switch (conjunct.op) {
    case ScanPredicate::Op::kIsNull: return !value.has_value();
    case ScanPredicate::Op::kIsNotNull: return value.has_value();
    default: break;
  }
  if (!value) return false;  // NULL compared with anything is not true
  std::optional<Scalar> literal =
      ParsePartitionValue(type, std::optional<std::string>(conjunct.value), conjunct.column);
  std::optional<int> order = Compare(value, literal);
  if (!order) return true;
  switch (conjunct.op) {
    case ScanPredicate::Op::kEqual: return *order == 0;
    case ScanPredicate::Op::kLess: return *order < 0;
    case ScanPredicate::Op::kLessOrEqual: return *order <= 0;
    case ScanPredicate::Op::kGreater: return *order > 0;
    case ScanPredicate::Op::kGreaterOrEqual: return *order >= 0;
    default: return true;
  }
}

bool DataConjunctMayMatch(const ScanPredicate& conjunct, const Field& field, const AddFile& file) {
  if (!file.stats) return true;
  FileStats stats = FileStats::Parse(*file.stats, file.path);
  std::vector<std::string> path{field.name};
  if (conjunct.op == ScanPredicate::Op::kIsNull) {
    auto nulls = stats.NullCount(path);
    return !nulls || *nulls > 0;
  }
  if (conjunct.op == ScanPredicate::Op::kIsNotNull) {
    auto nulls = stats.NullCount(path);
    auto records = stats.num_records();
    return !nulls || !records || *nulls < *records;
  }
  std::optional<Scalar> literal =
      ParsePartitionValue(*field.type, std::optional<std::string>(conjunct.value), conjunct.column);
  std::optional<Scalar> min = stats.Min(path, *field.type);
  std::optional<Scalar> max = stats.Max(path, *field.type);
  if (max && field.type->id() == TypeId::kTimestamp && std::holds_alternative<int64_t>(*max)) {
    // Statistics keep milliseconds; the real maximum may be up to 999 µs higher.
    max = Scalar(std::get<int64_t>(*max) + 999);
  }
  std::optional<int> min_order = Compare(min, literal);
  std::optional<int> max_order = Compare(max, literal);
  switch (conjunct.op) {
    case ScanPredicate::Op::kEqual:
      return (!min_order || *min_order <= 0) && (!max_order || *max_order >= 0);
    case ScanPredicate::Op::kLess: return !min_order || *min_order < 0;
    case ScanPredicate::Op::kLessOrEqual: return !min_order || *min_order <= 0;
    case ScanPredicate::Op::kGreater: return !max_order || *max_order > 0;
    case ScanPredicate::Op::kGreaterOrEqual: return !max_order || *max_order >= 0;
    default: return true;
  }
}

// The first match, by a case-insensitive name, in a partition value map.
const std::optional<std::string>* FindPartitionValue(const PartitionValueMap& values,
                                                     std::string_view column) {
  for (const auto& [key, value] : values) {
    if (EqualsIgnoreCase(key, column)) return &value;
  }
  return nullptr;
}

std::string ConflictingCommitText(const std::vector<Action>& winner) {
  for (const auto& action : winner) {
    if (const auto* info = std::get_if<CommitInfo>(&action)) {
      return "\nConflicting commit: " + info->raw_json;
    }
  }
  return "";
}

std::string WinnerOperation(const std::vector<Action>& winner) {
  for (const auto& action : winner) {
    if (const auto* info = std::get_if<CommitInfo>(&action)) {
      if (info->operation) return *info->operation;
    }
  }
  return "operation";
}

std::string FileKey(const std::string& path, const std::optional<DeletionVectorDescriptor>& dv) {
  return CanonicalLogPath(path) + '\x1f' + (dv ? dv->UniqueId() : std::string());
}

}  // namespace

std::string_view IsolationLevelName(IsolationLevel level) {
  switch (level) {
    case IsolationLevel::kSerializable: return "Serializable";
    case IsolationLevel::kWriteSerializable: return "WriteSerializable";
    case IsolationLevel::kSnapshotIsolation: return "SnapshotIsolation";
  }
  return "Serializable";
}

bool FileMayMatch(const ReadPredicate& predicate, const AddFile& file, const Metadata& metadata) {
  try {
    Schema schema = ParseDeltaSchema(metadata.schema_string);
    for (const auto& conjunct : predicate.conjuncts) {
      int index = schema.FieldIndex(conjunct.column, /*case_sensitive=*/false);
      if (index < 0) continue;  // unknown column: cannot rule anything out
      const Field& field = schema.field(static_cast<size_t>(index));
      bool is_partition = std::any_of(
          metadata.partition_columns.begin(), metadata.partition_columns.end(),
          [&](const std::string& column) { return EqualsIgnoreCase(column, field.name); });
      bool may_match;
      if (is_partition) {
        const std::optional<std::string>* text = FindPartitionValue(file.partition_values, field.name);
        if (text == nullptr) continue;
        may_match = PartitionConjunctMayMatch(conjunct, *field.type, *text);
      } else {
        may_match = DataConjunctMayMatch(conjunct, field, file);
      }
      if (!may_match) return false;
    }
    return true;
  } catch (const Error&) {
    // A value or statistic that does not parse proves nothing: assume the file matches.
    return true;
  }
}

Protocol RequiredProtocol(const Metadata& metadata) {
  std::vector<std::string> writer_features;
  std::vector<std::string> reader_features;
  int32_t legacy_writer = 2;
  int32_t legacy_reader = 1;
  if (PropertyIsTrue(metadata, "delta.enableChangeDataFeed")) legacy_writer = std::max(legacy_writer, 4);
  for (const auto& [key, value] : metadata.configuration) {
    if (key.rfind("delta.constraints.", 0) == 0) legacy_writer = std::max(legacy_writer, 3);
  }
  // Generated columns need writer version 4 (protocol "Generated Columns").
  if (!metadata.schema_string.empty() && IsFeatureActive("generatedColumns", metadata)) {
    legacy_writer = std::max(legacy_writer, 4);
  }
  // Identity columns need writer version 6 (protocol "Identity Columns").
  if (!metadata.schema_string.empty() && IsFeatureActive("identityColumns", metadata)) {
    legacy_writer = std::max(legacy_writer, 6);
  }
  if (GetColumnMappingMode(metadata) != ColumnMappingMode::kNone) {
    legacy_writer = std::max(legacy_writer, 5);
    legacy_reader = 2;
  }
  auto reader_writer = [&](std::string_view name) {
    AddUnique(reader_features, name);
    AddUnique(writer_features, name);
  };
  if (PropertyIsTrue(metadata, "delta.enableDeletionVectors")) reader_writer("deletionVectors");
  const std::string* policy = FindValue(metadata.configuration, "delta.checkpointPolicy");
  if (policy != nullptr && *policy == "v2") reader_writer("v2Checkpoint");
  if (!metadata.schema_string.empty() &&
      ContainsTimestampNtz(*ParseDeltaSchema(metadata.schema_string).AsStruct())) {
    reader_writer("timestampNtz");
  }
  if (PropertyIsTrue(metadata, "delta.enableInCommitTimestamps")) {
    AddUnique(writer_features, "inCommitTimestamp");
  }
  if (PropertyIsTrue(metadata, "delta.enableRowTracking")) {
    AddUnique(writer_features, "domainMetadata");
    AddUnique(writer_features, "rowTracking");
  }
  if (PropertyIsTrue(metadata, "delta.enableTypeWidening")) reader_writer("typeWidening");
  // `delta.feature.<name>` = supported (or enabled) asks for a feature by name.
  for (const auto& [key, value] : metadata.configuration) {
    constexpr std::string_view kPrefix = "delta.feature.";
    if (key.rfind(kPrefix, 0) != 0) continue;
    if (!EqualsIgnoreCase(value, "supported") && !EqualsIgnoreCase(value, "enabled")) continue;
    std::string name = key.substr(kPrefix.size());
    const TableFeatureInfo* feature = FindTableFeature(name);
    if (feature == nullptr) continue;
    if (feature->reader_writer) {
      reader_writer(name);
    } else {
      AddUnique(writer_features, name);
    }
  }
  // Clustering keeps its columns in a domain (protocol "Clustered Table").
  if (std::find(writer_features.begin(), writer_features.end(), "clustering") !=
      writer_features.end()) {
    AddUnique(writer_features, "domainMetadata");
  }
  if (writer_features.empty()) {
    return Protocol{legacy_reader, legacy_writer, std::nullopt, std::nullopt};
  }
  // Table features: list the features the legacy versions would have implied, as Spark does
  // when it upgrades (so (1, 2) becomes appendOnly + invariants).
  Protocol legacy{legacy_reader, legacy_writer, std::nullopt, std::nullopt};
  Protocol features;
  features.min_writer_version = 7;
  features.writer_features = writer_features;
  if (!reader_features.empty()) {
    features.min_reader_version = 3;
    features.reader_features = reader_features;
  } else {
    features.min_reader_version = 1;
  }
  return MergeProtocols(legacy, features);
}

int64_t CheckpointInterval(const Metadata& metadata) {
  const std::string* text = FindValue(metadata.configuration, "delta.checkpointInterval");
  if (text == nullptr) return 10;
  try {
    size_t used = 0;
    int64_t value = std::stoll(*text, &used);
    if (used == text->size() && value > 0) return value;
  } catch (const std::exception&) {
  }
  SILT_THROW(INVALID_CONFIGURATION, {{"value", *text},
                                     {"key", "delta.checkpointInterval"},
                                     {"reason", "expected a positive integer"}});
}

int64_t ParseIntervalMs(std::string_view text, std::string_view key) {
  // Spark's CalendarInterval text: "interval 30 days", "30 days", "interval 1 week", "2 hours".
  std::vector<std::string> words;
  std::string word;
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!word.empty()) words.push_back(std::move(word)), word.clear();
    } else {
      word.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  size_t index = 0;
  if (index < words.size() && words[index] == "interval") ++index;
  int64_t total = 0;
  bool any = false;
  auto fail = [&]() {
    SILT_THROW(INVALID_CONFIGURATION, {{"value", std::string(text)},
                                       {"key", std::string(key)},
                                       {"reason", "expected an interval such as 'interval 30 days'"}});
  };
  while (index < words.size()) {
    if (index + 1 >= words.size()) fail();
    int64_t amount = 0;
    try {
      size_t used = 0;
      amount = std::stoll(words[index], &used);
      if (used != words[index].size()) fail();
    } catch (const std::invalid_argument&) {
      fail();
    } catch (const std::out_of_range&) {
      fail();
    }
    std::string unit = words[index + 1];
    if (unit.size() > 1 && unit.back() == 's') unit.pop_back();
    int64_t unit_ms = 0;
    if (unit == "millisecond") unit_ms = 1;
    else if (unit == "second") unit_ms = 1000;
    else if (unit == "minute") unit_ms = 60'000;
    else if (unit == "hour") unit_ms = 3'600'000;
    else if (unit == "day") unit_ms = 86'400'000;
    else if (unit == "week") unit_ms = 7 * 86'400'000ll;
    else fail();
    total += amount * unit_ms;
    any = true;
    index += 2;
  }
  if (!any) fail();
  return total;
}

// ---- Transaction ----

Transaction::Transaction(std::shared_ptr<io::FileSystem> fs, std::string table_root,
                         std::shared_ptr<const Snapshot> snapshot)
    : fs_(std::move(fs)),
      table_root_(std::move(table_root)),
      log_dir_(io::JoinPath(table_root_, "_delta_log")),
      snapshot_(std::move(snapshot)),
      txn_id_(RandomUuid()) {}

Transaction::~Transaction() = default;

std::unique_ptr<Transaction> Transaction::Start(std::shared_ptr<const Snapshot> snapshot,
                                                std::vector<std::string> enforced_features) {
  SILT_CHECK(snapshot != nullptr, "Transaction::Start needs a snapshot");
  CheckWriteSupported(snapshot->protocol(), snapshot->metadata(), snapshot->table_root(),
                      enforced_features);
  auto fs = snapshot->file_system();
  std::string root = snapshot->table_root();
  auto txn = std::unique_ptr<Transaction>(
      new Transaction(std::move(fs), std::move(root), std::move(snapshot)));
  txn->enforced_features_ = std::move(enforced_features);
  return txn;
}

std::unique_ptr<Transaction> Transaction::StartCreate(std::shared_ptr<io::FileSystem> fs,
                                                      std::string table_root,
                                                      std::vector<std::string> enforced_features) {
  auto txn = std::unique_ptr<Transaction>(
      new Transaction(std::move(fs), std::move(table_root), nullptr));
  txn->enforced_features_ = std::move(enforced_features);
  return txn;
}

std::unique_ptr<Transaction> Transaction::StartLatest(std::shared_ptr<io::FileSystem> fs,
                                                      std::string table_root,
                                                      std::vector<std::string> enforced_features) {
  std::string log_dir = io::JoinPath(table_root, "_delta_log");
  bool has_log = false;
  for (const auto& entry : fs->List(log_dir)) {
    if (ParseLogFileName(io::BaseName(entry.path))) {
      has_log = true;
      break;
    }
  }
  if (!has_log) {
    return StartCreate(std::move(fs), std::move(table_root), std::move(enforced_features));
  }
  return Start(Snapshot::Load(std::move(fs), std::move(table_root)), std::move(enforced_features));
}

const Metadata& Transaction::metadata() const {
  if (new_metadata_) return *new_metadata_;
  SILT_CHECK(snapshot_ != nullptr, "a transaction creating a table has no metadata yet");
  return snapshot_->metadata();
}

Protocol Transaction::protocol() const {
  if (new_protocol_) return *new_protocol_;
  if (!snapshot_) {
    return new_metadata_ ? RequiredProtocol(*new_metadata_) : Protocol{};
  }
  if (new_metadata_) {
    Protocol required = RequiredProtocol(*new_metadata_);
    if (!ProtocolCovers(snapshot_->protocol(), required)) {
      return MergeProtocols(snapshot_->protocol(), required);
    }
  }
  return snapshot_->protocol();
}

std::vector<AddFile> Transaction::FilterFiles(const ReadPredicate& predicate) {
  std::vector<log::AddFile> result;
  if (snapshot_) {
    for (const auto& file : snapshot_->files()) {
      if (FileMayMatch(predicate, file, snapshot_->metadata())) {
        RecordReadFile(file);
        result.push_back(file);
      }
    }
  }
  RecordReadPredicate(predicate);
  return result;
}

void Transaction::RecordReadPredicate(ReadPredicate predicate) {
  if (predicate.conjuncts.empty()) {
    read_whole_table_ = true;
    return;
  }
  read_predicates_.push_back(std::move(predicate));
}

void Transaction::RecordReadWholeTable() { read_whole_table_ = true; }

void Transaction::RecordReadFile(const log::AddFile& file) {
  read_file_paths_.insert(CanonicalLogPath(file.path));
}

std::optional<int64_t> Transaction::ReadTransactionVersion(const std::string& app_id) {
  read_app_ids_.insert(app_id);
  if (!snapshot_) return std::nullopt;
  return snapshot_->TransactionVersion(app_id);
}

void Transaction::UpdateMetadata(Metadata metadata) {
  AssignMaterializedColumnNames(metadata);
  new_metadata_ = std::move(metadata);
}
void Transaction::UpdateProtocol(Protocol protocol) { new_protocol_ = std::move(protocol); }
void Transaction::Add(log::AddFile file) { adds_.push_back(std::move(file)); }
void Transaction::Remove(log::RemoveFile file) { removes_.push_back(std::move(file)); }

void Transaction::RemoveLiveFile(const log::AddFile& file, bool data_change) {
  log::RemoveFile remove;
  remove.path = file.path;
  remove.deletion_timestamp = SystemNowMs();
  remove.data_change = data_change;
  remove.extended_file_metadata = true;
  remove.partition_values = file.partition_values;
  remove.size = file.size;
  remove.stats = file.stats;
  remove.deletion_vector = file.deletion_vector;
  remove.base_row_id = file.base_row_id;
  remove.default_row_commit_version = file.default_row_commit_version;
  removes_.push_back(std::move(remove));
}

void Transaction::SetApplicationTransaction(std::string app_id, int64_t version) {
  set_transactions_.push_back(log::SetTransaction{std::move(app_id), version, SystemNowMs()});
}

void Transaction::AddDomainMetadata(DomainMetadata domain) { domains_.push_back(std::move(domain)); }
void Transaction::AddChangeDataFile(log::AddCdcFile file) { cdc_files_.push_back(std::move(file)); }

void Transaction::SetOperation(std::string operation,
                               std::vector<std::pair<std::string, std::string>> parameters,
                               StringMap metrics) {
  operation_ = std::move(operation);
  operation_parameters_ = std::move(parameters);
  operation_metrics_ = std::move(metrics);
}

bool Transaction::IsBlindAppend() const {
  // Spark: only AddFile among the file actions, and nothing read.
  return removes_.empty() && read_predicates_.empty() && read_file_paths_.empty() &&
         !read_whole_table_;
}

IsolationLevel Transaction::ChooseIsolationLevel() const {
  if (isolation_level_) return *isolation_level_;
  IsolationLevel table_level = IsolationLevel::kSerializable;
  const Metadata* metadata = new_metadata_ ? &*new_metadata_ : (snapshot_ ? &snapshot_->metadata() : nullptr);
  if (metadata != nullptr) {
    const std::string* level = FindValue(metadata->configuration, "delta.isolationLevel");
    if (level != nullptr && *level == "WriteSerializable") table_level = IsolationLevel::kWriteSerializable;
  }
  // Rearrangement-only commits (OPTIMIZE and the like) need only snapshot isolation.
  bool has_file_actions = !adds_.empty() || !removes_.empty();
  bool only_rearrangement =
      has_file_actions && !new_metadata_ && !new_protocol_ && set_transactions_.empty() &&
      domains_.empty() && cdc_files_.empty() &&
      std::all_of(adds_.begin(), adds_.end(), [](const auto& a) { return !a.data_change; }) &&
      std::all_of(removes_.begin(), removes_.end(), [](const auto& r) { return !r.data_change; });
  if (only_rearrangement) return IsolationLevel::kSnapshotIsolation;
  return table_level;
}

void Transaction::Validate() const {
  if (!snapshot_ && !new_metadata_) {
    SILT_THROW(DELTA_METADATA_ABSENT, {});
  }
  const Metadata& effective = metadata();
  Schema schema = ParseDeltaSchema(effective.schema_string);
  for (const auto& column : effective.partition_columns) {
    if (schema.FieldIndex(column) < 0) {
      SILT_THROW(DELTA_PARTITION_COLUMN_NOT_FOUND,
                 {{"columnName", column}, {"schemaMap", effective.schema_string}});
    }
  }
  CheckWriteSupported(protocol(), effective, table_root_, enforced_features_);
  if (!domains_.empty() && !IsFeatureSupported(protocol(), "domainMetadata")) {
    std::string names;
    for (const auto& domain : domains_) names += (names.empty() ? "" : ", ") + domain.domain;
    SILT_THROW(DELTA_DOMAIN_METADATA_NOT_SUPPORTED, {{"domainNames", "[" + names + "]"}});
  }
  if (PropertyIsTrue(effective, "delta.appendOnly")) {
    for (const auto& remove : removes_) {
      if (remove.data_change) {
        SILT_THROW(DELTA_CANNOT_MODIFY_APPEND_ONLY,
                   {{"table_name", table_root_}, {"config", "delta.appendOnly"}});
      }
    }
  }
  auto check_unique = [](const auto& actions, std::string_view type) {
    std::map<std::string, std::string> seen;
    for (const auto& action : actions) {
      std::string key = FileKey(action.path, action.deletion_vector);
      auto [it, inserted] = seen.emplace(key, action.path);
      if (!inserted) {
        SILT_THROW(DELTA_DUPLICATE_ACTIONS_FOUND,
                   {{"actionType", std::string(type)}, {"path", action.path}, {"conflictingPath", it->second}});
      }
    }
  };
  check_unique(adds_, "add");
  check_unique(removes_, "remove");
  std::map<std::string, int> app_ids;
  for (const auto& txn : set_transactions_) {
    if (++app_ids[txn.app_id] > 1) {
      SILT_THROW(DELTA_DUPLICATE_ACTIONS_FOUND,
                 {{"actionType", "txn"}, {"path", txn.app_id}, {"conflictingPath", txn.app_id}});
    }
  }
}

int64_t Transaction::RowIdHighWaterMarkBefore() const {
  int64_t mark = -1;
  if (snapshot_ && IsRowTrackingSupported(snapshot_->protocol())) {
    auto it = snapshot_->domain_metadata().find(std::string(kRowTrackingDomain));
    if (it != snapshot_->domain_metadata().end()) mark = *RowIdHighWaterMark(it->second);
  }
  if (winner_row_id_high_water_mark_) mark = std::max(mark, *winner_row_id_high_water_mark_);
  return mark;
}

std::vector<Action> Transaction::BuildActions(int64_t attempt_version, int64_t timestamp_ms,
                                              std::optional<int64_t> in_commit_timestamp) const {
  JsonWriter json;
  json.BeginObject();
  if (in_commit_timestamp) {
    json.Key("inCommitTimestamp");
    json.Int(*in_commit_timestamp);
  }
  json.Key("timestamp");
  json.Int(timestamp_ms);
  json.Key("operation");
  json.String(operation_);
  json.Key("operationParameters");
  json.BeginObject();
  for (const auto& [name, value] : operation_parameters_) {
    json.Key(name);
    json.Raw(value);
  }
  json.EndObject();
  if (snapshot_) {
    json.Key("readVersion");
    json.Int(snapshot_->version());
  }
  json.Key("isolationLevel");
  json.String(IsolationLevelName(ChooseIsolationLevel()));
  json.Key("isBlindAppend");
  json.Bool(IsBlindAppend());
  json.Key("operationMetrics");
  json.BeginObject();
  for (const auto& [name, value] : operation_metrics_) {
    json.Key(name);
    json.String(value);
  }
  json.EndObject();
  json.Key("engineInfo");
  json.String(std::string("silt/") + SILT_VERSION);
  json.Key("txnId");
  json.String(txn_id_);
  json.EndObject();

  CommitInfo info;
  info.raw_json = json.Release();
  info.timestamp = timestamp_ms;
  info.in_commit_timestamp = in_commit_timestamp;
  info.operation = operation_;
  info.txn_id = txn_id_;

  std::vector<Action> actions;
  actions.reserve(adds_.size() + removes_.size() + 8);
  actions.emplace_back(std::move(info));
  Protocol effective_protocol = protocol();
  if (!snapshot_ || !(effective_protocol == snapshot_->protocol())) actions.emplace_back(effective_protocol);
  if (new_metadata_) actions.emplace_back(*new_metadata_);
  for (const auto& txn : set_transactions_) actions.emplace_back(txn);
  for (const auto& domain : domains_) actions.emplace_back(domain);
  for (const auto& remove : removes_) actions.emplace_back(remove);
  // Row tracking: each added file without row ids gets the next ids above the high water mark,
  // and new files get this commit's version as their default row commit version; files
  // recommitted with their ids (a new deletion vector, a backfill) keep them.
  bool assign_row_ids = IsRowTrackingSupported(effective_protocol) &&
                        !IsRowTrackingSuspended(metadata());
  int64_t high_water_mark = assign_row_ids ? RowIdHighWaterMarkBefore() : -1;
  const int64_t read_high_water_mark = high_water_mark;
  for (const auto& add : adds_) {
    if (!assign_row_ids) {
      actions.emplace_back(add);
      continue;
    }
    AddFile tracked = add;
    if (!tracked.base_row_id) {
      std::optional<int64_t> records;
      if (tracked.stats) records = FileStats::Parse(*tracked.stats, tracked.path).num_records();
      if (!records) {
        SILT_THROW(UNSUPPORTED_FEATURE,
                   {{"message", "Assigning row ids to a file without numRecords statistics (" +
                                    tracked.path + ")"}});
      }
      tracked.base_row_id = high_water_mark + 1;
      high_water_mark += *records;
    }
    if (!tracked.default_row_commit_version) tracked.default_row_commit_version = attempt_version;
    actions.emplace_back(std::move(tracked));
  }
  if (high_water_mark != read_high_water_mark) {
    actions.emplace_back(RowTrackingDomain(high_water_mark));
  }
  for (const auto& cdc : cdc_files_) actions.emplace_back(cdc);
  return actions;
}

void Transaction::CheckConflicts(int64_t version, const std::vector<Action>& winner) {
  const std::string conflicting = ConflictingCommitText(winner);
  const std::string operation = WinnerOperation(winner);
  const std::string version_text = std::to_string(version);
  const CommitInfo* winner_info = nullptr;
  const Protocol* winner_protocol = nullptr;
  const Metadata* winner_metadata = nullptr;
  for (const auto& action : winner) {
    if (const auto* info = std::get_if<CommitInfo>(&action)) winner_info = info;
    if (const auto* p = std::get_if<Protocol>(&action)) winner_protocol = p;
    if (const auto* m = std::get_if<Metadata>(&action)) winner_metadata = m;
  }

  // 1. Protocol.
  if (winner_protocol != nullptr) {
    if (!snapshot_) {
      SILT_THROW(DELTA_PROTOCOL_CHANGED,
                 {{"additionalInfo",
                   "This happens when multiple writers are writing to an empty directory. Creating "
                   "the table ahead of time will avoid this conflict. "},
                  {"conflictingCommit", conflicting}});
    }
    bool drops_feature = false;
    for (const auto& name : EffectiveWriterFeatures(snapshot_->protocol())) {
      if (!IsFeatureSupported(*winner_protocol, name)) drops_feature = true;
    }
    if (new_protocol_ || drops_feature) {
      SILT_THROW(DELTA_PROTOCOL_CHANGED, {{"additionalInfo", ""}, {"conflictingCommit", conflicting}});
    }
    // Otherwise this transaction may continue under the new protocol if silt can write it.
    CheckWriteSupported(*winner_protocol, winner_metadata ? *winner_metadata : metadata(), table_root_,
                        enforced_features_);
  }
  // 2. Metadata (Delta's default "legacy" rule: any concurrent metadata change conflicts).
  if (winner_metadata != nullptr) {
    SILT_THROW(DELTA_METADATA_CHANGED, {{"tableName", table_root_}, {"conflictingCommit", conflicting}});
  }
  // 3. Domain metadata written by both.
  for (const auto& action : winner) {
    if (const auto* domain = std::get_if<DomainMetadata>(&action)) {
      // Row ids are assigned at each attempt, above the highest mark any winner committed.
      if (domain->domain == kRowTrackingDomain && !domain->removed) {
        int64_t mark = *RowIdHighWaterMark(*domain);
        winner_row_id_high_water_mark_ = std::max(winner_row_id_high_water_mark_.value_or(-1), mark);
      }
      for (const auto& mine : domains_) {
        if (mine.domain == domain->domain) {
          SILT_THROW(DELTA_CONCURRENT_TRANSACTION,
                     {{"conflictingCommit",
                       "\nA conflicting metadata domain " + domain->domain + " is added." + conflicting}});
        }
      }
    }
  }
  // 4. Application transaction ids read (or written) by this transaction.
  for (const auto& action : winner) {
    if (const auto* txn = std::get_if<log::SetTransaction>(&action)) {
      bool mine = read_app_ids_.count(txn->app_id) > 0 ||
                  std::any_of(set_transactions_.begin(), set_transactions_.end(),
                              [&](const auto& t) { return t.app_id == txn->app_id; });
      if (mine) {
        SILT_THROW(DELTA_CONCURRENT_TRANSACTION, {{"conflictingCommit", conflicting}});
      }
    }
  }
  // 7. Concurrent appends into what this transaction read.
  IsolationLevel level = ChooseIsolationLevel();
  bool winner_blind = winner_info != nullptr && winner_info->is_blind_append.value_or(false);
  bool check_adds = level == IsolationLevel::kSerializable ||
                    (level == IsolationLevel::kWriteSerializable && (new_metadata_ || !winner_blind));
  if (check_adds && !IsBlindAppend()) {
    const Metadata& read_metadata = snapshot_ ? snapshot_->metadata() : metadata();
    for (const auto& action : winner) {
      const auto* add = std::get_if<log::AddFile>(&action);
      if (add == nullptr || !add->data_change) continue;
      bool conflict = read_whole_table_;
      for (size_t i = 0; !conflict && i < read_predicates_.size(); ++i) {
        conflict = FileMayMatch(read_predicates_[i], *add, read_metadata);
      }
      if (conflict) {
        SILT_THROW(DELTA_CONCURRENT_APPEND,
                   {{"operation", operation}, {"tableName", table_root_}, {"version", version_text}});
      }
    }
  }
  // 8. Deletes of files this transaction read; 9. deletes of files it deletes too.
  std::set<std::string> my_removes;
  for (const auto& remove : removes_) my_removes.insert(CanonicalLogPath(remove.path));
  for (const auto& action : winner) {
    const auto* remove = std::get_if<log::RemoveFile>(&action);
    if (remove == nullptr) continue;
    std::string path = CanonicalLogPath(remove->path);
    if (remove->data_change && (read_file_paths_.count(path) > 0 || read_whole_table_)) {
      SILT_THROW(DELTA_CONCURRENT_DELETE_READ,
                 {{"operation", operation}, {"tableName", table_root_}, {"version", version_text}});
    }
    if (my_removes.count(path) > 0) {
      SILT_THROW(DELTA_CONCURRENT_DELETE_DELETE,
                 {{"operation", operation}, {"tableName", table_root_}, {"version", version_text}});
    }
  }
  // 10. In-commit timestamps: ours must come after the winner's.
  if (winner_info != nullptr && winner_info->in_commit_timestamp) {
    winner_in_commit_timestamp_ =
        std::max(winner_in_commit_timestamp_.value_or(INT64_MIN), *winner_info->in_commit_timestamp);
  }
}

namespace {

// Whether the commitInfo of `actions` carries `txn_id`.
bool HoldsTxnId(const std::vector<Action>& actions, const std::string& txn_id) {
  for (const auto& action : actions) {
    if (const auto* commit_info = std::get_if<CommitInfo>(&action)) {
      return commit_info->txn_id && *commit_info->txn_id == txn_id;
    }
  }
  return false;
}

}  // namespace

bool Transaction::CommitLanded(const std::string& path) const {
  std::optional<io::FileInfo> info = fs_->Stat(path);
  if (!info) return false;
  std::string content = fs_->ReadFile(path);
  return HoldsTxnId(ParseActions(content, path), txn_id_);
}

CommitResult Transaction::Commit(const CommitOptions& options) {
  SILT_CHECK(!committed_, "a transaction commits at most once");
  if (!fs_->capabilities().atomic_put_if_absent) {
    SILT_THROW(DELTA_COMMIT_BACKEND_NOT_ATOMIC, {{"path", table_root_}});
  }
  if (options.application_transaction) {
    const SetTransaction& txn = *options.application_transaction;
    if (snapshot_) ReadTransactionVersion(txn.app_id);
    SetApplicationTransaction(txn.app_id, txn.version);
  }
  Validate();
  if (!snapshot_) {
    // A creating transaction must not silently append to an existing table.
    for (const auto& entry : fs_->List(log_dir_)) {
      if (ParseLogFileName(io::BaseName(entry.path))) {
        SILT_THROW(DELTA_TABLE_ALREADY_EXISTS, {{"tableName", table_root_}});
      }
    }
    if (new_metadata_->id.empty()) new_metadata_->id = RandomUuid();
    if (!new_metadata_->created_time) new_metadata_->created_time = options.now_ms.value_or(SystemNowMs());
  }
  const Metadata& effective = metadata();
  bool in_commit_timestamps = PropertyIsTrue(effective, "delta.enableInCommitTimestamps");

  CommitResult result;
  int64_t version = read_version() + 1;
  for (int attempt = 1;; ++attempt) {
    ThrowIfCanceled(options.cancellation);
    if (attempt > options.max_attempts) {
      SILT_THROW(DELTA_CONCURRENT_WRITE,
                 {{"conflictingCommit", "\nGave up after " + std::to_string(options.max_attempts) +
                                            " commit attempts at version " + std::to_string(version)}});
    }
    int64_t now = options.now_ms.value_or(SystemNowMs());
    std::optional<int64_t> ict;
    if (in_commit_timestamps) {
      int64_t previous = INT64_MIN;
      if (snapshot_ && snapshot_->timestamp_ms() >= 0) previous = snapshot_->timestamp_ms();
      if (winner_in_commit_timestamp_) previous = std::max(previous, *winner_in_commit_timestamp_);
      ict = previous == INT64_MIN ? now : std::max(now, previous + 1);
    }
    std::string bytes = SerializeActions(BuildActions(version, now, ict));
    std::string path = io::JoinPath(log_dir_, FormatVersion(version) + ".json");
    io::PutOutcome outcome;
    try {
      outcome = fs_->PutIfAbsent(path, bytes);
    } catch (const Error& error) {
      // The request may have taken effect before the failure was reported: the commit file is
      // the truth. If it holds our txnId the commit landed; if it holds another writer's, we lost
      // the race; if it is absent, put-if-absent is atomic, so nothing landed.
      bool landed = false;
      bool exists = false;
      try {
        exists = fs_->Stat(path).has_value();
        landed = exists && CommitLanded(path);
      } catch (const Error&) {
        throw error;  // cannot tell: report the original failure
      }
      if (landed) {
        outcome = io::PutOutcome::kCreated;
      } else if (exists) {
        outcome = io::PutOutcome::kAlreadyExists;
      } else {
        throw;
      }
    }
    if (outcome == io::PutOutcome::kCreated) {
      result.version = version;
      result.attempts = attempt;
      break;
    }
    std::vector<Action> winner;
    try {
      winner = ParseActions(fs_->ReadFile(path), path);
    } catch (const Error& error) {
      SILT_THROW(DELTA_CONCURRENT_WRITE,
                 {{"conflictingCommit", "\nCannot read the winning commit " + path + ": " + error.what()}});
    }
    // An object store's client may resend a create whose first attempt landed but whose answer
    // was lost; the resent request then finds the file there. If it holds our txnId, the
    // "winner" is this very commit.
    if (HoldsTxnId(winner, txn_id_)) {
      result.version = version;
      result.attempts = attempt;
      break;
    }
    CheckConflicts(version, winner);
    ++version;
  }
  committed_ = true;

  // The commit is durable from here on: whatever fails after it (a table property another tool
  // wrote that silt cannot parse, the checkpoint, the log cleanup) must not make the caller
  // believe the commit failed and retry it, so it becomes a warning. A missing checkpoint only
  // costs readers time.
  if (options.post_commit_checkpoint && result.version > 0) {
    try {
      if (result.version % CheckpointInterval(effective) == 0) {
        WriteCheckpoint(fs_, table_root_, result.version);
        result.checkpoint_written = true;
        CleanUpExpiredLogs(*fs_, table_root_, effective, options.now_ms.value_or(SystemNowMs()));
      }
    } catch (const std::exception& error) {
      result.post_commit_error = error.what();
      std::fprintf(stderr, "[WARN] version %lld of %s was committed; a post-commit step failed: %s\n",
                   static_cast<long long>(result.version), table_root_.c_str(), error.what());
    }
  }
  return result;
}

}  // namespace silt::log
