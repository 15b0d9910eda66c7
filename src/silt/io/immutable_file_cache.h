#pragma once

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace silt::io {

/// A session's cache of bytes from files that never change once written: Delta checkpoints and
/// the footers of data files, as read from an object store, so that the next statement of the
/// session does not fetch them again. A file is named by a key that includes its version (the
/// store's ETag, or size and time), so a rewritten file is a new key and never served stale.
/// What is kept of a file is one suffix of it (offset to end): the whole file, or its tail
/// (where Parquet keeps its footer). Bounded in bytes; the least recently used go first.
/// Thread-safe.
class ImmutableFileCache {
 public:
  explicit ImmutableFileCache(uint64_t capacity_bytes) : capacity_(capacity_bytes) {}
  ImmutableFileCache(const ImmutableFileCache&) = delete;
  ImmutableFileCache& operator=(const ImmutableFileCache&) = delete;

  /// Copies `length` bytes at `offset` of file `key` into `out` when the cached suffix holds them;
  /// false (nothing copied) otherwise.
  bool Read(const std::string& key, uint64_t offset, uint64_t length, void* out);
  /// Whether the cached suffix of `key` holds [offset, offset + length).
  bool Holds(const std::string& key, uint64_t offset, uint64_t length);
  /// Keeps `bytes`, file `key`'s content from `offset` to its end, unless a suffix starting no
  /// later is kept already. Bytes beyond the capacity are not kept; older entries make room.
  void Insert(const std::string& key, uint64_t offset, std::string bytes);

  /// Changes the bound, dropping entries until they fit.
  void SetCapacity(uint64_t capacity_bytes);
  uint64_t capacity() const;
  uint64_t bytes_held() const;

 private:
  struct Entry {
    uint64_t offset = 0;
    std::shared_ptr<const std::string> bytes;
    std::list<std::string>::iterator recency;
  };

  void EvictLocked();

  mutable std::mutex mutex_;
  uint64_t capacity_;
  uint64_t held_ = 0;
  std::map<std::string, Entry> entries_;
  std::list<std::string> recency_;  // most recently used first
};

}  // namespace silt::io
