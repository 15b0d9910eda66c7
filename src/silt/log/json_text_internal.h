#pragma once

// JSON helpers shared by the log layer's .cc files: reading fields out of simdjson DOM objects with
// corruption errors that name the file and field. Private to src/silt/log. JSON text is written
// with base/json_writer.h.

#include <simdjson.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "silt/base/json_writer.h"

namespace silt::log::internal {

/// Jackson-compatible string escaping (base/json_writer.h), under the name the log code uses.
using ::silt::AppendJsonString;

/// Reads typed fields of one JSON object; every failure throws DELTA_INVALID_LOG_ENTRY naming
/// `file` and the field. A field that is absent or JSON null counts as missing.
class ObjectReader {
 public:
  ObjectReader(simdjson::dom::object object, std::string_view file, std::string_view action)
      : object_(object), file_(file), action_(action) {}

  /// The field's element when present and not null.
  std::optional<simdjson::dom::element> Find(std::string_view key) const;

  std::optional<std::string> OptionalString(std::string_view key) const;
  std::optional<int64_t> OptionalInt64(std::string_view key) const;
  std::optional<bool> OptionalBool(std::string_view key) const;
  std::string RequiredString(std::string_view key) const;
  int64_t RequiredInt64(std::string_view key) const;
  bool RequiredBool(std::string_view key) const;

  [[noreturn]] void Fail(std::string_view key, std::string_view problem) const;

  std::string_view file() const { return file_; }
  simdjson::dom::object object() const { return object_; }

 private:
  simdjson::dom::object object_;
  std::string_view file_;
  std::string_view action_;
};

/// Reads an integer element, accepting JSON integers (and unsigned ones within int64 range);
/// nullopt for any other type.
std::optional<int64_t> ElementInt64(simdjson::dom::element element);

/// The element as compact JSON text.
std::string ElementJson(simdjson::dom::element element);

}  // namespace silt::log::internal
