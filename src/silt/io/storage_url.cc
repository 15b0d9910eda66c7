#include "silt/io/storage_url.h"

#include <cctype>

#include "silt/base/check.h"

namespace silt::io {

std::optional<std::string> UrlScheme(std::string_view path) {
  if (path.empty() || !std::isalpha(static_cast<unsigned char>(path[0]))) return std::nullopt;
  size_t position = 1;
  while (position < path.size()) {
    char c = path[position];
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.') {
      ++position;
      continue;
    }
    break;
  }
  if (position + 1 >= path.size() || path[position] != ':' || path[position + 1] != '/') {
    return std::nullopt;
  }
  std::string scheme(path.substr(0, position));
  for (char& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return scheme;
}

std::string ObjectUrl::ToString() const {
  std::string text = scheme + "://" + authority;
  if (!key.empty()) text += "/" + key;
  return text;
}

ObjectUrl ParseObjectUrl(std::string_view url) {
  std::optional<std::string> scheme = UrlScheme(url);
  size_t separator = url.find("://");
  SILT_USER_CHECK(scheme.has_value() && separator == scheme->size(), INVALID_PARAMETER_VALUE,
                  {{"parameter", "path"},
                   {"functionName", "storage"},
                   {"message", "expected scheme://bucket/key, got '" + std::string(url) + "'"}});
  std::string_view rest = url.substr(separator + 3);
  size_t slash = rest.find('/');
  ObjectUrl parsed;
  parsed.scheme = *scheme;
  parsed.authority = std::string(rest.substr(0, slash));
  SILT_USER_CHECK(!parsed.authority.empty(), INVALID_PARAMETER_VALUE,
                  {{"parameter", "path"},
                   {"functionName", "storage"},
                   {"message", "no bucket or container in '" + std::string(url) + "'"}});
  if (slash != std::string_view::npos) {
    std::string_view key = rest.substr(slash + 1);
    // Runs of '/' and a trailing '/' do not name different objects in silt's paths.
    std::string cleaned;
    size_t start = 0;
    while (start <= key.size()) {
      size_t end = key.find('/', start);
      if (end == std::string_view::npos) end = key.size();
      std::string_view part = key.substr(start, end - start);
      if (!part.empty() && part != ".") {
        if (!cleaned.empty()) cleaned.push_back('/');
        cleaned.append(part);
      }
      start = end + 1;
    }
    parsed.key = std::move(cleaned);
  }
  return parsed;
}

std::string_view StripFileScheme(std::string_view path) {
  if (path.rfind("file://", 0) == 0) return path.substr(7);
  if (path.rfind("file:", 0) == 0) return path.substr(5);
  return path;
}

}  // namespace silt::io
