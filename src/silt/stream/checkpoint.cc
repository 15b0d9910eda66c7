#include "silt/stream/checkpoint.h"

#include <simdjson.h>

#include <charconv>

#include "silt/base/check.h"
#include "silt/base/json_writer.h"
#include "silt/io/path.h"
#include "silt/log/random_uuid.h"

namespace silt::stream {

namespace {

constexpr std::string_view kLogVersion = "v1";

std::optional<int64_t> ParseBatchName(std::string_view name) {
  int64_t batch = 0;
  auto [end, error] = std::from_chars(name.data(), name.data() + name.size(), batch);
  if (error != std::errc() || end != name.data() + name.size() || batch < 0) return std::nullopt;
  return batch;
}

// Splits `text` into lines (the last may lack its '\n').
std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    size_t end = text.find('\n');
    lines.push_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

}  // namespace

std::unique_ptr<Checkpoint> Checkpoint::Open(std::shared_ptr<io::FileSystem> fs,
                                             std::string location) {
  std::unique_ptr<Checkpoint> checkpoint(
      new Checkpoint(std::move(fs), std::string(io::TrimTrailingSeparators(location))));
  std::string path = io::JoinPath(checkpoint->location_, "metadata");
  if (!checkpoint->fs_->Stat(path)) {
    JsonWriter json;
    json.BeginObject();
    json.Key("id");
    json.String(log::RandomUuid());
    json.EndObject();
    // A racing first run may win; the id is then the one it wrote.
    checkpoint->fs_->PutIfAbsent(path, json.Release() + "\n");
  }
  std::string text = checkpoint->fs_->ReadFile(path);
  simdjson::dom::parser parser;
  simdjson::padded_string padded(text);
  simdjson::dom::element root;
  std::string_view id;
  if (parser.parse(padded).get(root) != simdjson::SUCCESS ||
      root["id"].get_string().get(id) != simdjson::SUCCESS || id.empty()) {
    checkpoint->ThrowCorrupt("its metadata file holds no query id");
  }
  checkpoint->query_id_ = std::string(id);
  return checkpoint;
}

void Checkpoint::ThrowCorrupt(const std::string& message) const {
  SILT_THROW(STREAMING_CHECKPOINT_CORRUPT, {{"checkpoint", location_}, {"message", message}});
}

std::string Checkpoint::PathOf(const std::string& folder, int64_t batch) const {
  return io::JoinPath(io::JoinPath(location_, folder), std::to_string(batch));
}

std::optional<int64_t> Checkpoint::LatestBatchIn(const std::string& folder) const {
  std::optional<int64_t> latest;
  for (const io::FileInfo& entry : fs_->List(io::JoinPath(location_, folder))) {
    if (entry.is_directory) continue;
    // Names are decimal numbers, so the listing's byte order is not numeric order.
    if (std::optional<int64_t> batch = ParseBatchName(io::BaseName(entry.path))) {
      if (!latest || *batch > *latest) latest = batch;
    }
  }
  return latest;
}

std::optional<int64_t> Checkpoint::LatestPlannedBatch() const { return LatestBatchIn("offsets"); }

std::optional<int64_t> Checkpoint::LatestCommittedBatch() const {
  return LatestBatchIn("commits");
}

OffsetSeq Checkpoint::ReadOffsets(int64_t batch) const {
  std::string path = PathOf("offsets", batch);
  if (!fs_->Stat(path)) ThrowCorrupt("offsets/" + std::to_string(batch) + " is missing");
  std::string text = fs_->ReadFile(path);
  std::vector<std::string_view> lines = Lines(text);
  if (lines.size() < 2 || lines[0] != kLogVersion) {
    ThrowCorrupt("offsets/" + std::to_string(batch) + " does not start with " +
                 std::string(kLogVersion) + " and a metadata line");
  }
  OffsetSeq seq;
  simdjson::dom::parser parser;
  simdjson::padded_string padded(lines[1]);
  simdjson::dom::element metadata;
  if (parser.parse(padded).get(metadata) != simdjson::SUCCESS || !metadata.is_object()) {
    ThrowCorrupt("the metadata line of offsets/" + std::to_string(batch) + " is not JSON");
  }
  int64_t value = 0;
  if (metadata["batchWatermarkMs"].get_int64().get(value) == simdjson::SUCCESS) {
    seq.batch_watermark_ms = value;
  }
  if (metadata["batchTimestampMs"].get_int64().get(value) == simdjson::SUCCESS) {
    seq.batch_timestamp_ms = value;
  }
  simdjson::dom::object conf;
  if (metadata["conf"].get_object().get(conf) == simdjson::SUCCESS) {
    for (auto [key, entry] : conf) {
      std::string_view entry_text;
      if (entry.get_string().get(entry_text) == simdjson::SUCCESS) {
        seq.conf.emplace(std::string(key), std::string(entry_text));
      }
    }
  }
  for (size_t i = 2; i < lines.size(); ++i) {
    if (lines[i] == "-") {
      seq.offsets.push_back(std::nullopt);
    } else {
      seq.offsets.push_back(std::string(lines[i]));
    }
  }
  return seq;
}

void Checkpoint::WriteOffsets(int64_t batch, const OffsetSeq& offsets) {
  JsonWriter metadata;
  metadata.BeginObject();
  metadata.Key("batchWatermarkMs");
  metadata.Int(offsets.batch_watermark_ms);
  metadata.Key("batchTimestampMs");
  metadata.Int(offsets.batch_timestamp_ms);
  metadata.Key("conf");
  metadata.BeginObject();
  for (const auto& [key, value] : offsets.conf) {
    metadata.Key(key);
    metadata.String(value);
  }
  metadata.EndObject();
  metadata.EndObject();
  std::string text = std::string(kLogVersion) + "\n" + metadata.Release();
  for (const std::optional<std::string>& offset : offsets.offsets) {
    text += "\n";
    text += offset ? *offset : "-";
  }
  if (fs_->PutIfAbsent(PathOf("offsets", batch), text) == io::PutOutcome::kAlreadyExists) {
    SILT_THROW(STREAMING_CHECKPOINT_MISMATCH,
               {{"checkpoint", location_},
                {"what", "another run of query " + query_id_ + ", which already planned batch " +
                             std::to_string(batch)},
                {"expected", "a second run of it at the same time"}});
  }
}

void Checkpoint::WriteCommit(int64_t batch, int64_t next_batch_watermark_ms) {
  fs_->PutIfAbsent(PathOf("commits", batch),
                   std::string(kLogVersion) + "\n{\"nextBatchWatermarkMs\":" +
                       std::to_string(next_batch_watermark_ms) + "}");
}

int64_t Checkpoint::ReadCommitWatermark(int64_t batch) const {
  std::string path = PathOf("commits", batch);
  if (!fs_->Stat(path)) ThrowCorrupt("commits/" + std::to_string(batch) + " is missing");
  std::string text = fs_->ReadFile(path);
  std::vector<std::string_view> lines = Lines(text);
  simdjson::dom::parser parser;
  simdjson::dom::element metadata;
  int64_t watermark = 0;
  if (lines.size() < 2 || lines[0] != kLogVersion ||
      parser.parse(simdjson::padded_string(lines[1])).get(metadata) != simdjson::SUCCESS ||
      !metadata.is_object()) {
    ThrowCorrupt("commits/" + std::to_string(batch) + " is not " + std::string(kLogVersion) +
                 " and a JSON line");
  }
  if (metadata["nextBatchWatermarkMs"].get_int64().get(watermark) != simdjson::SUCCESS) {
    watermark = 0;
  }
  return watermark;
}

std::optional<std::string> Checkpoint::ReadSourceStart(int source) const {
  std::string path = io::JoinPath(location_, "sources/" + std::to_string(source) + "/0");
  if (!fs_->Stat(path)) return std::nullopt;
  std::string text = fs_->ReadFile(path);
  std::vector<std::string_view> lines = Lines(text);
  if (lines.size() != 2 || lines[0] != kLogVersion) {
    ThrowCorrupt("sources/" + std::to_string(source) + "/0 is not " + std::string(kLogVersion) +
                 " and an offset");
  }
  return std::string(lines[1]);
}

std::string Checkpoint::WriteSourceStart(int source, const std::string& offset) {
  std::string path = io::JoinPath(location_, "sources/" + std::to_string(source) + "/0");
  fs_->PutIfAbsent(path, std::string(kLogVersion) + "\n" + offset);
  return *ReadSourceStart(source);
}

}  // namespace silt::stream
