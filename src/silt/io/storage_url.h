#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace silt::io {

/// The scheme of a URL-shaped path, lower-cased ("s3" for "s3://bucket/t", "file" for
/// "file:/tmp/t"), or nullopt for a plain local path. A scheme is a letter followed by letters,
/// digits, '+', '-' or '.', then ":/" (Hadoop's form "hdfs:/a" counts as well as "hdfs://a").
std::optional<std::string> UrlScheme(std::string_view path);

/// The parts of an object-store URL "scheme://authority/key" (key without a leading '/').
struct ObjectUrl {
  std::string scheme;     ///< lower-cased, e.g. "s3"
  std::string authority;  ///< bucket (S3) or container@account host (Azure)
  std::string key;        ///< object key or prefix, "" for the root; no leading or trailing '/'

  /// "scheme://authority" followed by "/key" when the key is not empty.
  std::string ToString() const;
};

/// Splits "scheme://authority/key". Throws INVALID_PARAMETER_VALUE naming the path when it has no
/// scheme or no authority.
ObjectUrl ParseObjectUrl(std::string_view url);

/// The local path a "file:" URL names ("file:///a/b" and "file:/a/b" -> "/a/b"); other paths are
/// returned unchanged.
std::string_view StripFileScheme(std::string_view path);

}  // namespace silt::io
