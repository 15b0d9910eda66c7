#include "silt/io/storage_options.h"

#include <cctype>
#include <cstdlib>

#include "silt/base/check.h"

namespace silt::io {

void StorageOptions::Set(const std::string& key, const std::string& value) {
  std::lock_guard<std::mutex> lock(mutex_);
  settings_[key] = value;
  ++generation_;
}

void StorageOptions::Unset(const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  settings_.erase(key);
  ++generation_;
}

void StorageOptions::ReplaceAll(const std::map<std::string, std::string>& settings) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (settings_ == settings) return;
  settings_ = settings;
  ++generation_;
}

uint64_t StorageOptions::generation() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return generation_;
}

std::optional<std::string> StorageOptions::Find(
    std::initializer_list<std::string_view> names) const {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (std::string_view name : names) {
      for (const std::string& key : {std::string(name), "spark.hadoop." + std::string(name)}) {
        auto it = settings_.find(key);
        if (it != settings_.end() && !it->second.empty()) return it->second;
      }
    }
  }
  if (!read_environment_) return std::nullopt;
  for (std::string_view name : names) {
    if (name.find('.') != std::string_view::npos) continue;
    const char* value = std::getenv(std::string(name).c_str());
    if (value != nullptr && *value != '\0') return std::string(value);
  }
  return std::nullopt;
}

bool StorageOptions::FindFlag(std::initializer_list<std::string_view> names,
                              bool default_value) const {
  std::optional<std::string> value = Find(names);
  if (!value) return default_value;
  std::string lower;
  for (char c : *value)
    lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  if (lower == "true") return true;
  if (lower == "false") return false;
  SILT_THROW(INVALID_STORAGE_OPTION, {{"value", *value},
                                      {"option", std::string(*names.begin())},
                                      {"reason", "expected true or false"}});
}

}  // namespace silt::io
