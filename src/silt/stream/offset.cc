#include "silt/stream/offset.h"

#include <simdjson.h>

#include "silt/base/check.h"
#include "silt/base/json_writer.h"

namespace silt::stream {

std::string DeltaSourceOffset::ToJson() const {
  JsonWriter json;
  json.BeginObject();
  json.Key("sourceVersion");
  json.Int(kSourceVersion);
  json.Key("reservoirId");
  json.String(reservoir_id);
  json.Key("reservoirVersion");
  json.Int(reservoir_version);
  json.Key("index");
  json.Int(index);
  json.Key("isStartingVersion");
  json.Bool(is_starting_version);
  json.EndObject();
  return json.Release();
}

DeltaSourceOffset DeltaSourceOffset::Parse(std::string_view json) {
  auto invalid = [&](std::string_view why) {
    return MakeError(ErrorClass::DELTA_INVALID_SOURCE_OFFSET_FORMAT,
                     {{"message", std::string(json) + " (" + std::string(why) + ")"}});
  };
  simdjson::dom::parser parser;
  simdjson::padded_string padded(json);
  simdjson::dom::element root;
  if (parser.parse(padded).get(root) != simdjson::SUCCESS) throw invalid("not JSON");
  simdjson::dom::object object;
  if (root.get_object().get(object) != simdjson::SUCCESS) throw invalid("not an object");
  int64_t source_version = 0;
  if (object["sourceVersion"].get_int64().get(source_version) != simdjson::SUCCESS) {
    throw invalid("sourceVersion is missing");
  }
  // Delta writes version 1, and 3 only for the indexes of a metadata change; 2 is reserved.
  if (source_version != kSourceVersion && source_version != kMetadataChangeSourceVersion) {
    SILT_THROW(DELTA_INVALID_SOURCE_VERSION, {{"version", std::to_string(source_version)}});
  }
  DeltaSourceOffset offset;
  std::string_view id;
  if (object["reservoirId"].get_string().get(id) != simdjson::SUCCESS) {
    throw invalid("reservoirId is missing");
  }
  offset.reservoir_id = std::string(id);
  if (object["reservoirVersion"].get_int64().get(offset.reservoir_version) != simdjson::SUCCESS ||
      offset.reservoir_version < 0) {
    throw invalid("reservoirVersion is missing or negative");
  }
  if (object["index"].get_int64().get(offset.index) != simdjson::SUCCESS) {
    throw invalid("index is missing");
  }
  if (offset.index == kMetadataChangeIndex || offset.index == kPostMetadataChangeIndex ||
      offset.index == kBaseIndexV3) {
    // Positions before the version's first file: none of its files has been read.
    offset.index = kBaseIndex;
  }
  if (offset.index < kBaseIndex) throw invalid("index is below -1");
  if (object["isStartingVersion"].get_bool().get(offset.is_starting_version) !=
      simdjson::SUCCESS) {
    throw invalid("isStartingVersion is missing");
  }
  return offset;
}

}  // namespace silt::stream
