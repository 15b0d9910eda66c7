#pragma once

#include <atomic>
#include <cstdint>

#include "silt/io/file_system.h"

namespace silt::io {

/// What a session's object stores have been asked, by kind of request. A LIST is one listing
/// page; a multipart upload's start, parts and completion are PUTs, as a copy is; a batch delete
/// is one DELETE. Retries of a request are not counted again (HttpCounters has them).
struct StorageStatistics {
  uint64_t gets = 0;
  uint64_t puts = 0;
  uint64_t lists = 0;
  uint64_t heads = 0;
  uint64_t deletes = 0;
  uint64_t bytes_read = 0;        ///< bodies of GETs
  uint64_t cache_hits = 0;        ///< reads served by the cache of immutable files, no request
  uint64_t cache_bytes_read = 0;  ///< bytes those reads returned

  uint64_t requests() const { return gets + puts + lists + heads + deletes; }
};

/// The kinds of request StorageStatistics counts.
enum class RequestKind { kGet, kPut, kList, kHead, kDelete };

/// The counters behind StorageStatistics. Thread-safe.
class RequestCounters {
 public:
  void Count(RequestKind kind, uint64_t bytes_read = 0);
  void CountCacheHit(uint64_t bytes);
  StorageStatistics Snapshot() const;
  void Reset();

 private:
  std::atomic<uint64_t> gets_{0};
  std::atomic<uint64_t> puts_{0};
  std::atomic<uint64_t> lists_{0};
  std::atomic<uint64_t> heads_{0};
  std::atomic<uint64_t> deletes_{0};
  std::atomic<uint64_t> bytes_read_{0};
  std::atomic<uint64_t> cache_hits_{0};
  std::atomic<uint64_t> cache_bytes_read_{0};
};

/// A file system that counts its requests (the storage router of a session, and wrappers of it,
/// which forward).
class StorageStatisticsSource {
 public:
  virtual ~StorageStatisticsSource() = default;
  virtual StorageStatistics storage_statistics() const = 0;
  virtual void ResetStorageStatistics() = 0;
};

/// What `fs` has counted; all zero for a file system that counts nothing (the local disk).
StorageStatistics StorageStatisticsOf(const FileSystem& fs);
/// Starts `fs`'s counts again from zero (benchmarks measure one statement at a time).
void ResetStorageStatistics(FileSystem& fs);

}  // namespace silt::io
