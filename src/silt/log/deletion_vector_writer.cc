#include "silt/log/deletion_vector_writer.h"

#include <cctype>
#include <chrono>
#include <random>
#include <utility>

#include "silt/base/check.h"
#include "silt/base/clock.h"
#include "silt/io/path.h"
#include "silt/log/deletion_vector.h"
#include "silt/log/file_stats.h"
#include "silt/log/random_uuid.h"
#include "silt/log/table_features.h"

namespace silt::log {

namespace {

// Delta's default `delta.randomPrefixLength`.
constexpr int kDefaultRandomPrefixLength = 2;

bool PropertyTrue(const Metadata& metadata, std::string_view key) {
  const std::string* value = FindValue(metadata.configuration, key);
  if (value == nullptr || value->size() != 4) return false;
  std::string lower;
  for (char c : *value)
    lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return lower == "true";
}

int RandomPrefixLength(const Metadata& metadata) {
  if (!PropertyTrue(metadata, "delta.randomizeFilePrefixes")) return 0;
  const std::string* text = FindValue(metadata.configuration, "delta.randomPrefixLength");
  if (text == nullptr) return kDefaultRandomPrefixLength;
  int length = 0;
  for (char c : *text) {
    if (c < '0' || c > '9' || length > 100) {
      SILT_THROW(INVALID_CONFIGURATION, {{"value", *text},
                                         {"key", "delta.randomPrefixLength"},
                                         {"reason", "expected a small non-negative integer"}});
    }
    length = length * 10 + (c - '0');
  }
  if (text->empty()) {
    SILT_THROW(INVALID_CONFIGURATION, {{"value", *text},
                                       {"key", "delta.randomPrefixLength"},
                                       {"reason", "expected a small non-negative integer"}});
  }
  return length;
}

// Letters and digits, as Delta's random prefixes use.
std::string RandomPrefix(int length) {
  static constexpr char kAlphanumeric[] =
      "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  thread_local std::mt19937 engine{std::random_device{}()};
  std::uniform_int_distribution<int> pick(0, sizeof(kAlphanumeric) - 2);
  std::string prefix;
  for (int i = 0; i < length; ++i) prefix.push_back(kAlphanumeric[pick(engine)]);
  return prefix;
}

// The 16 bytes of a canonical 8-4-4-4-12 UUID, most significant first.
std::string UuidBytes(std::string_view uuid) {
  std::string bytes;
  int high = -1;
  for (char c : uuid) {
    if (c == '-') continue;
    int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    SILT_CHECK(digit >= 0, "RandomUuid returns lower-case hex digits");
    if (high < 0) {
      high = digit;
    } else {
      bytes.push_back(static_cast<char>(high * 16 + digit));
      high = -1;
    }
  }
  SILT_CHECK(bytes.size() == 16, "a UUID has 16 bytes");
  return bytes;
}

[[noreturn]] void FailStats(std::string_view path, const std::string& message) {
  SILT_THROW(DELTA_INVALID_STATS, {{"path", std::string(path)}, {"message", message}});
}

std::optional<int64_t> NumRecords(const AddFile& file) {
  if (!file.stats.has_value()) return std::nullopt;
  return FileStats::Parse(*file.stats, file.path).num_records();
}

}  // namespace

bool DeletionVectorsWritable(const Protocol& protocol, const Metadata& metadata) {
  return IsFeatureSupported(protocol, "deletionVectors") &&
         PropertyTrue(metadata, "delta.enableDeletionVectors");
}

void CheckDeletionVectorsWritable(const Protocol& protocol, const Metadata& metadata) {
  if (!DeletionVectorsWritable(protocol, metadata)) {
    SILT_THROW(DELTA_ADDING_DELETION_VECTORS_DISALLOWED, {});
  }
}

bool CanHaveDeletionVector(const AddFile& file) { return NumRecords(file).has_value(); }

std::string StatsWithoutTightBounds(std::string_view stats, std::string_view path) {
  // Validates the whole text first, so the scan below only meets well-formed JSON.
  FileStats::Parse(stats, path);
  // Find the top-level "tightBounds" key: a string at depth 1 right after '{' or ','.
  int depth = 0;
  char previous = 0;  // The last structural character outside strings.
  size_t i = 0;
  size_t object_end = std::string_view::npos;
  while (i < stats.size()) {
    char c = stats[i];
    if (c == '"') {
      size_t start = i++;
      while (i < stats.size() && stats[i] != '"') i += stats[i] == '\\' ? 2 : 1;
      ++i;  // Past the closing quote.
      std::string_view token = stats.substr(start, i - start);
      if (depth == 1 && (previous == '{' || previous == ',') && token == "\"tightBounds\"") {
        size_t value = i;
        while (value < stats.size() &&
               (stats[value] == ':' || std::isspace(static_cast<unsigned char>(stats[value])))) {
          ++value;
        }
        size_t value_end = value;
        while (value_end < stats.size() &&
               std::isalpha(static_cast<unsigned char>(stats[value_end]))) {
          ++value_end;
        }
        return std::string(stats.substr(0, value)) + "false" + std::string(stats.substr(value_end));
      }
      previous = '"';
      continue;
    }
    if (c == '{' || c == '[') ++depth;
    if (c == '}' || c == ']') {
      --depth;
      if (depth == 0) object_end = i;
    }
    if (!std::isspace(static_cast<unsigned char>(c))) previous = c;
    ++i;
  }
  if (object_end == std::string_view::npos) FailStats(path, "statistics are not a JSON object");
  // No such field: append it. An empty object takes it without a separating comma.
  size_t last = object_end;
  while (last > 0 && std::isspace(static_cast<unsigned char>(stats[last - 1]))) --last;
  bool empty_object = last > 0 && stats[last - 1] == '{';
  return std::string(stats.substr(0, last)) + (empty_object ? "" : ",") + "\"tightBounds\":false" +
         std::string(stats.substr(last));
}

// ---- DeletionVectorWriter ----

DeletionVectorWriter::DeletionVectorWriter(std::shared_ptr<io::FileSystem> fs,
                                           std::string table_root,
                                           DeletionVectorWriterOptions options,
                                           int random_prefix_length)
    : fs_(std::move(fs)),
      table_root_(std::move(table_root)),
      options_(options),
      random_prefix_length_(random_prefix_length) {}

DeletionVectorWriter::~DeletionVectorWriter() = default;

std::unique_ptr<DeletionVectorWriter> DeletionVectorWriter::Open(
    std::shared_ptr<io::FileSystem> fs, std::string table_root, const Protocol& protocol,
    const Metadata& metadata, DeletionVectorWriterOptions options) {
  CheckDeletionVectorsWritable(protocol, metadata);
  SILT_USER_CHECK(options.max_file_bytes > 0 && options.max_file_bytes < (int64_t{1} << 31),
                  INVALID_ARGUMENT,
                  {{"message", "the deletion vector file size limit must be in (0, 2^31)"}});
  return std::unique_ptr<DeletionVectorWriter>(new DeletionVectorWriter(
      std::move(fs), std::move(table_root), options, RandomPrefixLength(metadata)));
}

std::optional<DeletionVectorUpdate> DeletionVectorWriter::DeleteRows(
    const AddFile& file, const std::vector<uint64_t>& positions) {
  std::optional<int64_t> num_records = NumRecords(file);
  if (!num_records.has_value()) SILT_THROW(DELTA_DELETION_VECTOR_MISSING_NUM_RECORDS, {});
  if (*num_records < 0) FailStats(file.path, "numRecords is negative");
  for (uint64_t position : positions) {
    if (position >= static_cast<uint64_t>(*num_records)) {
      SILT_THROW(DELTA_DELETION_VECTOR_INVALID_ROW_INDEX, {});
    }
  }
  DeletedRows old_rows;
  if (file.deletion_vector.has_value()) {
    old_rows = LoadDeletionVector(*fs_, table_root_, *file.deletion_vector);
    // Rows past the end would make the live-row count (and "every row deleted") wrong.
    std::optional<uint64_t> maximum = old_rows.Maximum();
    if (maximum.has_value() && *maximum >= static_cast<uint64_t>(*num_records)) {
      SILT_THROW(DELTA_DELETION_VECTOR_INVALID_ROW_INDEX, {});
    }
  }
  DeletedRows rows = old_rows.WithIndexes(positions);
  uint64_t old_cardinality = old_rows.Cardinality();
  uint64_t cardinality = rows.Cardinality();
  if (cardinality == old_cardinality) return std::nullopt;

  DeletionVectorUpdate update;
  update.num_deleted_rows = cardinality - old_cardinality;
  update.num_live_rows = static_cast<uint64_t>(*num_records) - cardinality;
  update.had_deletion_vector = file.deletion_vector.has_value();

  RemoveFile& remove = update.remove;
  remove.path = file.path;
  remove.deletion_timestamp = options_.now_ms.value_or(SystemNowMs());
  remove.data_change = true;
  remove.extended_file_metadata = true;
  remove.partition_values = file.partition_values;
  remove.size = file.size;
  remove.stats = "{\"numRecords\":" + std::to_string(*num_records) + "}";
  remove.tags = file.tags;
  remove.deletion_vector = file.deletion_vector;
  remove.base_row_id = file.base_row_id;
  remove.default_row_commit_version = file.default_row_commit_version;

  if (update.num_live_rows > 0) {
    AddFile add = file;
    add.data_change = true;
    add.stats = StatsWithoutTightBounds(*file.stats, file.path);
    DeletionVectorDescriptor descriptor = Store(rows.Serialize());
    descriptor.cardinality = static_cast<int64_t>(cardinality);
    add.deletion_vector = std::move(descriptor);
    update.add = std::move(add);
  }
  return update;
}

DeletionVectorDescriptor DeletionVectorWriter::Store(const std::string& bitmap) {
  SILT_CHECK(bitmap.size() < (size_t{1} << 31), "a deletion vector bitmap fits in 2^31 bytes");
  DeletionVectorDescriptor descriptor;
  descriptor.size_in_bytes = static_cast<int32_t>(bitmap.size());
  if (static_cast<int64_t>(bitmap.size()) <= options_.max_inline_bytes) {
    descriptor.storage_type = 'i';
    descriptor.path_or_inline_dv = Z85Encode(bitmap);
    return descriptor;
  }
  std::string record = MakeDeletionVectorRecord(bitmap);
  if (!pending_bytes_.empty() &&
      static_cast<int64_t>(pending_bytes_.size() + record.size()) > options_.max_file_bytes) {
    Finish();
  }
  if (pending_bytes_.empty()) {
    std::string uuid = RandomUuid();
    std::string prefix = RandomPrefix(random_prefix_length_);
    pending_descriptor_path_ = prefix + Z85Encode(UuidBytes(uuid));
    std::string name = "deletion_vector_" + uuid + ".bin";
    pending_file_path_ = prefix.empty() ? io::JoinPath(table_root_, name)
                                        : io::JoinPath(io::JoinPath(table_root_, prefix), name);
    pending_bytes_.push_back('\x01');  // The DV file format version.
  }
  descriptor.storage_type = 'u';
  descriptor.path_or_inline_dv = pending_descriptor_path_;
  descriptor.offset = static_cast<int32_t>(pending_bytes_.size());
  pending_bytes_ += record;
  return descriptor;
}

void DeletionVectorWriter::Finish() {
  if (pending_bytes_.empty()) return;
  auto stream = fs_->OpenWrite(pending_file_path_);
  stream->Write(pending_bytes_);
  // A commit must never reference a DV that a power loss could take away.
  stream->Sync();
  stream->Close();
  written_files_.push_back(pending_file_path_);
  pending_bytes_.clear();
  pending_descriptor_path_.clear();
  pending_file_path_.clear();
}

}  // namespace silt::log
