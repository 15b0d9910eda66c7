#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace silt::io {

/// The settings object stores read: the session's settings (SET key = value), looked up before
/// the process environment. Thread-safe; a store built from them is rebuilt when they change
/// (see generation()).
///
/// A setting can be named as the environment variable is (AWS_ACCESS_KEY_ID, delta-rs's names)
/// or as Spark users set Hadoop's (spark.hadoop.fs.s3a.access.key; the "spark.hadoop." prefix is
/// optional): each store lists the names of each of its settings, first match wins.
class StorageOptions {
 public:
  /// `read_environment` false: only the settings count (for tests).
  explicit StorageOptions(bool read_environment = true) : read_environment_(read_environment) {}

  void Set(const std::string& key, const std::string& value);
  void Unset(const std::string& key);
  /// Makes `settings` the whole set (a session's settings at the start of a statement); the
  /// generation moves only when something changed.
  void ReplaceAll(const std::map<std::string, std::string>& settings);

  /// The first of `names` that is set: session settings first (each name as given and with a
  /// "spark.hadoop." prefix), then the environment variables among `names` (names without a
  /// '.'). An empty value counts as unset.
  std::optional<std::string> Find(std::initializer_list<std::string_view> names) const;

  /// A boolean setting: "true"/"false" (any case); another value throws INVALID_STORAGE_OPTION.
  bool FindFlag(std::initializer_list<std::string_view> names, bool default_value) const;

  /// Bumped by every Set and Unset.
  uint64_t generation() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, std::string> settings_;
  uint64_t generation_ = 0;
  bool read_environment_ = true;
};

}  // namespace silt::io
