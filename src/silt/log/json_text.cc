#include "silt/log/json_text_internal.h"

#include <limits>

#include "silt/base/check.h"

namespace silt::log::internal {

std::optional<int64_t> ElementInt64(simdjson::dom::element element) {
  switch (element.type()) {
    case simdjson::dom::element_type::INT64:
      return element.get_int64().value_unsafe();
    case simdjson::dom::element_type::UINT64: {
      uint64_t value = element.get_uint64().value_unsafe();
      if (value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
      return static_cast<int64_t>(value);
    }
    default:
      return std::nullopt;
  }
}

std::string ElementJson(simdjson::dom::element element) { return simdjson::minify(element); }

std::optional<simdjson::dom::element> ObjectReader::Find(std::string_view key) const {
  simdjson::dom::element element;
  if (object_.at_key(key).get(element) != simdjson::SUCCESS) return std::nullopt;
  if (element.is_null()) return std::nullopt;
  return element;
}

void ObjectReader::Fail(std::string_view key, std::string_view problem) const {
  SILT_THROW(DELTA_INVALID_LOG_ENTRY,
             {{"file", std::string(file_)},
              {"message", std::string(action_) + "." + std::string(key) + " " +
                              std::string(problem)}});
}

std::optional<std::string> ObjectReader::OptionalString(std::string_view key) const {
  auto element = Find(key);
  if (!element) return std::nullopt;
  std::string_view value;
  if (element->get_string().get(value) != simdjson::SUCCESS) Fail(key, "is not a string");
  return std::string(value);
}

std::optional<int64_t> ObjectReader::OptionalInt64(std::string_view key) const {
  auto element = Find(key);
  if (!element) return std::nullopt;
  auto value = ElementInt64(*element);
  if (!value) Fail(key, "is not a 64-bit integer");
  return value;
}

std::optional<bool> ObjectReader::OptionalBool(std::string_view key) const {
  auto element = Find(key);
  if (!element) return std::nullopt;
  bool value = false;
  if (element->get_bool().get(value) != simdjson::SUCCESS) Fail(key, "is not a boolean");
  return value;
}

std::string ObjectReader::RequiredString(std::string_view key) const {
  auto value = OptionalString(key);
  if (!value) Fail(key, "is missing");
  return std::move(*value);
}

int64_t ObjectReader::RequiredInt64(std::string_view key) const {
  auto value = OptionalInt64(key);
  if (!value) Fail(key, "is missing");
  return *value;
}

bool ObjectReader::RequiredBool(std::string_view key) const {
  auto value = OptionalBool(key);
  if (!value) Fail(key, "is missing");
  return *value;
}

}  // namespace silt::log::internal
