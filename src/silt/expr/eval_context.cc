#include "silt/expr/eval_context.h"

#include <cctype>

namespace silt::expr {
namespace {

// Parses "+h", "+hh", "+hh:mm", "+hhmm" (also with '-') into seconds; nullopt when malformed.
std::optional<int64_t> ParseOffsetSeconds(std::string_view text) {
  if (text.empty() || (text[0] != '+' && text[0] != '-')) return std::nullopt;
  int sign = text[0] == '-' ? -1 : 1;
  std::string digits;
  for (size_t i = 1; i < text.size(); ++i) {
    if (text[i] == ':') continue;
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) return std::nullopt;
    digits += text[i];
  }
  int64_t hours = 0, minutes = 0;
  if (digits.size() == 1 || digits.size() == 2) {
    hours = std::stoll(digits);
  } else if (digits.size() == 3 || digits.size() == 4) {
    hours = std::stoll(digits.substr(0, digits.size() - 2));
    minutes = std::stoll(digits.substr(digits.size() - 2));
  } else {
    return std::nullopt;
  }
  if (hours > 18 || minutes > 59) return std::nullopt;
  return sign * (hours * 3600 + minutes * 60);
}

}  // namespace

int64_t EvalContext::ZoneOffsetMicros() const {
  std::string_view zone = time_zone;
  for (std::string_view utc : {"UTC", "GMT", "Z", "Etc/UTC", "Etc/GMT", "UT"}) {
    if (zone == utc) return 0;
    if (zone.size() > utc.size() && zone.substr(0, utc.size()) == utc && utc.size() > 1 &&
        (zone[utc.size()] == '+' || zone[utc.size()] == '-')) {
      zone.remove_prefix(utc.size());
      break;
    }
  }
  if (auto seconds = ParseOffsetSeconds(zone)) return *seconds * 1'000'000;
  if (zone.find('/') != std::string_view::npos) {
    SILT_THROW(NOT_IMPLEMENTED, {{"feature", "The region time zone '" + time_zone + "'"}});
  }
  SILT_THROW(INVALID_CONFIGURATION,
             {{"value", time_zone}, {"key", "spark.sql.session.timeZone"}, {"reason", "not a time zone or offset"}});
}

}  // namespace silt::expr
