#pragma once

#include <string>
#include <string_view>

namespace silt::io {

// Paths are plain strings with '/' separators. These helpers are purely lexical: they never touch
// storage, never resolve "..", and treat a run of '/' like a single one.

/// Joins `base` and `name` with exactly one '/' between them ("a/" + "/b" -> "a/b"). An empty
/// `base` returns `name`; an empty `name` returns `base`.
std::string JoinPath(std::string_view base, std::string_view name);

/// The folder part of `path` ("a/b/c" -> "a/b", "c" -> "", "/c" -> "/", "/" -> ""). Trailing
/// separators are ignored ("a/b/" -> "a").
std::string_view ParentPath(std::string_view path);

/// The last component of `path` ("a/b/c" -> "c", "a/b/" -> "b", "/" -> "").
std::string_view BaseName(std::string_view path);

/// Returns `path` with runs of '/' collapsed, "." components removed and trailing '/' dropped; a
/// leading '/' is kept ("/a//./b/" -> "/a/b", "./" -> "", "/" -> "/"). ".." is kept as written.
std::string NormalizePath(std::string_view path);

/// Returns `path` without trailing '/' characters, except that "/" stays "/".
std::string_view TrimTrailingSeparators(std::string_view path);

}  // namespace silt::io
