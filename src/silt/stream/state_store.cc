#include "silt/stream/state_store.h"

#include <simdjson.h>

#include <algorithm>
#include <charconv>

#include "silt/base/check.h"
#include "silt/base/json_writer.h"
#include "silt/io/path.h"
#include "silt/log/random_uuid.h"
#include "silt/parquet/reader.h"
#include "silt/parquet/writer.h"
#include "silt/stream/fault_point.h"

namespace silt::stream {

namespace {

constexpr std::string_view kVersionSuffix = ".parquet";

std::optional<int64_t> ParseVersionName(std::string_view name) {
  if (name.size() <= kVersionSuffix.size() || !name.ends_with(kVersionSuffix)) return std::nullopt;
  name.remove_suffix(kVersionSuffix.size());
  int64_t version = 0;
  auto [end, error] = std::from_chars(name.data(), name.data() + name.size(), version);
  if (error != std::errc() || end != name.data() + name.size() || version < 0) return std::nullopt;
  return version;
}

std::string MetadataPath(const std::string& checkpoint, int operator_id) {
  return io::JoinPath(checkpoint, "state/" + std::to_string(operator_id) + "/_metadata/metadata");
}

}  // namespace

StateStore::StateStore(std::shared_ptr<io::FileSystem> fs, std::string checkpoint, int operator_id)
    : fs_(std::move(fs)), checkpoint_(std::move(checkpoint)), operator_id_(operator_id) {}

std::string StateStore::folder() const {
  return io::JoinPath(checkpoint_, "state/" + std::to_string(operator_id_) + "/0");
}

std::string StateStore::VersionPath(int64_t version) const {
  return io::JoinPath(folder(), std::to_string(version) + std::string(kVersionSuffix));
}

void StateStore::ThrowCorrupt(const std::string& path, const std::string& message) const {
  SILT_THROW(STATE_STORE_CORRUPT, {{"path", path}, {"message", message}});
}

void StateStore::CheckVersion(int64_t version) const {
  std::string path = VersionPath(version);
  if (!fs_->Stat(path)) {
    ThrowCorrupt(path, "state version " + std::to_string(version) +
                           ", which the next batch starts from, is missing");
  }
  try {
    auto reader = parquet::FileReader::Open(*fs_, path);
    reader->Read();
  } catch (const Error& error) {
    ThrowCorrupt(path, "state version " + std::to_string(version) + " cannot be read (" +
                           error.what() + ")");
  }
}

void StateStore::WriteVersion(int64_t version, const Schema& schema,
                              const std::vector<Batch>& rows) {
  std::string path = VersionPath(version);
  std::string temporary = path + ".tmp-" + log::RandomUuid();
  {
    parquet::WriterOptions options;
    auto writer = parquet::FileWriter::Open(fs_->OpenWrite(temporary), schema, options);
    auto shared = std::make_shared<const Schema>(schema);
    for (const Batch& batch : rows) {
      if (batch.num_rows() == 0) continue;
      writer->Write(Batch(shared, batch.columns(), batch.num_rows()));
    }
    writer->Close();
  }
  // The new version is written but not in place yet: a crash here leaves the previous ones.
  ReachFaultPoint(kDuringStateWrite, version - 1);
  fs_->Rename(temporary, path);
}

int64_t StateStore::VersionBytes(int64_t version) const {
  std::optional<io::FileInfo> info = fs_->Stat(VersionPath(version));
  return info ? static_cast<int64_t>(info->size) : 0;
}

void StateStore::Cleanup(int64_t latest, int64_t retained) {
  int64_t oldest_kept = latest - std::max<int64_t>(retained, 1) + 1;
  if (oldest_kept <= 0) return;
  for (const io::FileInfo& entry : fs_->List(folder())) {
    if (entry.is_directory) continue;
    std::optional<int64_t> version = ParseVersionName(io::BaseName(entry.path));
    if (version && *version < oldest_kept) fs_->Delete(entry.path);
  }
}

std::vector<StateOperatorInfo> StateStore::ReadOperators(io::FileSystem& fs,
                                                         const std::string& checkpoint) {
  std::vector<StateOperatorInfo> operators;
  for (const io::FileInfo& entry : fs.List(io::JoinPath(checkpoint, "state"))) {
    if (!entry.is_directory) continue;
    std::string_view name = io::BaseName(entry.path);
    int operator_id = 0;
    auto [end, error] = std::from_chars(name.data(), name.data() + name.size(), operator_id);
    if (error != std::errc() || end != name.data() + name.size()) continue;
    std::string path = MetadataPath(checkpoint, operator_id);
    if (!fs.Stat(path)) continue;
    std::string text = fs.ReadFile(path);
    size_t newline = text.find('\n');
    simdjson::dom::parser parser;
    simdjson::dom::element root;
    std::string_view operator_name;
    std::string_view schema;
    if (newline == std::string::npos || text.substr(0, newline) != "v1" ||
        parser.parse(simdjson::padded_string(text.substr(newline + 1))).get(root) !=
            simdjson::SUCCESS ||
        root["operatorInfo"]["operatorName"].get_string().get(operator_name) != simdjson::SUCCESS) {
      SILT_THROW(STATE_STORE_CORRUPT,
                 {{"path", path}, {"message", "the operator metadata does not parse"}});
    }
    StateOperatorInfo info;
    info.operator_id = operator_id;
    info.name = std::string(operator_name);
    if (root["stateSchema"].get_string().get(schema) == simdjson::SUCCESS) {
      info.state_schema = std::string(schema);
    }
    operators.push_back(std::move(info));
  }
  std::sort(operators.begin(), operators.end(),
            [](const StateOperatorInfo& a, const StateOperatorInfo& b) {
              return a.operator_id < b.operator_id;
            });
  return operators;
}

void StateStore::WriteOperator(const StateOperatorInfo& info, bool replace) {
  JsonWriter json;
  json.BeginObject();
  json.Key("operatorInfo");
  json.BeginObject();
  json.Key("operatorId");
  json.Int(info.operator_id);
  json.Key("operatorName");
  json.String(info.name);
  json.EndObject();
  json.Key("stateStoreInfo");
  json.BeginArray();
  json.BeginObject();
  json.Key("storeName");
  json.String("default");
  json.Key("numColsPrefixKey");
  json.Int(0);
  json.Key("numPartitions");
  json.Int(1);
  json.EndObject();
  json.EndArray();
  json.Key("stateSchema");
  json.String(info.state_schema);
  json.EndObject();
  std::string path = MetadataPath(checkpoint_, info.operator_id);
  if (replace) {
    std::string temporary = path + ".tmp-" + log::RandomUuid();
    fs_->WriteFile(temporary, "v1\n" + json.Release());
    fs_->Rename(temporary, path);
  } else {
    fs_->PutIfAbsent(path, "v1\n" + json.Release());
  }
}

void StateStore::ForgetOperator() { fs_->Delete(MetadataPath(checkpoint_, operator_id_)); }

}  // namespace silt::stream
