#include "silt/io/path.h"

#include "silt/io/storage_url.h"

namespace silt::io {

std::string_view TrimTrailingSeparators(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') {
    path.remove_suffix(1);
  }
  return path;
}

std::string JoinPath(std::string_view base, std::string_view name) {
  if (base.empty()) {
    return std::string(name);
  }
  while (!name.empty() && name.front() == '/') {
    name.remove_prefix(1);
  }
  if (name.empty()) {
    return std::string(base);
  }
  base = TrimTrailingSeparators(base);
  std::string joined;
  joined.reserve(base.size() + 1 + name.size());
  joined.append(base);
  // After trimming, only the root "/" still ends in a separator.
  if (joined.back() != '/') {
    joined.push_back('/');
  }
  joined.append(name);
  return joined;
}

std::string_view ParentPath(std::string_view path) {
  path = TrimTrailingSeparators(path);
  if (path == "/") {
    return {};
  }
  size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) {
    return {};
  }
  // Skip a run of separators so that "a//b" has parent "a".
  size_t end = slash;
  while (end > 0 && path[end - 1] == '/') {
    --end;
  }
  if (end == 0) {
    return path.substr(0, 1);  // The parent of "/c" is the root.
  }
  return path.substr(0, end);
}

std::string_view BaseName(std::string_view path) {
  path = TrimTrailingSeparators(path);
  if (path == "/") {
    return {};
  }
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::string NormalizePath(std::string_view path) {
  // A URL keeps its "scheme:" and "//" as written ("s3://b//t/" -> "s3://b/t"); the rest is
  // normalized as a path.
  if (std::optional<std::string> scheme = UrlScheme(path)) {
    size_t rest = scheme->size() + 1;
    if (path.substr(rest, 2) == "//") rest += 2;
    return std::string(path.substr(0, rest)) + NormalizePath(path.substr(rest));
  }
  std::string normalized;
  normalized.reserve(path.size());
  bool absolute = !path.empty() && path.front() == '/';
  if (absolute) {
    normalized.push_back('/');
  }
  size_t position = 0;
  while (position < path.size()) {
    size_t next = path.find('/', position);
    if (next == std::string_view::npos) {
      next = path.size();
    }
    std::string_view component = path.substr(position, next - position);
    position = next + 1;
    if (component.empty() || component == ".") {
      continue;
    }
    if (!normalized.empty() && normalized.back() != '/') {
      normalized.push_back('/');
    }
    normalized.append(component);
  }
  return normalized;
}

}  // namespace silt::io
