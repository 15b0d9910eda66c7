#pragma once

#include <string>
#include <string_view>

namespace silt::io {

/// Joins `base` and `name` with exactly one '/' between them; an empty base returns `name`.
std::string JoinPath(std::string_view base, std::string_view name);
/// The folder part of `path` ("a/b/c" -> "a/b", "c" -> "", "/c" -> "/").
std::string_view ParentPath(std::string_view path);
/// The last component of `path` ("a/b/c" -> "c").
std::string_view BaseName(std::string_view path);

}  // namespace silt::io
