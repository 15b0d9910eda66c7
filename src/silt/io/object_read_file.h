#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "silt/io/file_system.h"
#include "silt/io/immutable_file_cache.h"
#include "silt/io/read_ahead.h"
#include "silt/io/storage_statistics.h"

namespace silt::io {

/// What the object stores of one session share: their request counts and the cache of
/// immutable files.
struct ObjectStoreSession {
  /// The cache's default bound; `silt.storage.cache.maxBytes` sets another (0 turns it off).
  static constexpr uint64_t kDefaultCacheBytes = 256ull << 20;

  RequestCounters counters;
  ImmutableFileCache cache{kDefaultCacheBytes};
};

/// Fetches `length` bytes at `offset` of one object with one request; returns them (fewer only
/// at the object's end). Throws as the store's reads do.
using RangeFetch = std::function<std::string(uint64_t offset, uint64_t length)>;

/// A file of an object store open for reading, the same for S3 and Azure: every read is a ranged
/// GET through `fetch` unless memory holds it. Two kinds of memory:
///  - the session's cache of immutable files: a read that ends at the file's end, up to
///    kMaxCachedTailBytes (a Parquet footer, or a small file read whole), and the whole of a Delta
///    checkpoint (a Parquet file below `_delta_log/`, fetched with one request on its first read,
///    when it takes at most a quarter of the cache);
///  - what WillNeed fetched ahead for the reads that follow (column chunks of a row group),
///    nearby ranges coalesced into one GET and the GETs sent in parallel.
class ObjectReadFile final : public RandomAccessFile, public ReadAhead {
 public:
  /// The longest read at a file's end that the cache keeps.
  static constexpr uint64_t kMaxCachedTailBytes = 8ull << 20;
  /// Ranges closer than this are fetched in one request (the bytes between them cost less than a
  /// request on any object store)...
  static constexpr uint64_t kMaxGapBytes = 1ull << 20;
  /// ...as long as the request spans at most this many bytes.
  static constexpr uint64_t kMaxRequestBytes = 32ull << 20;
  /// Requests of one WillNeed in flight at once.
  static constexpr size_t kMaxParallelFetches = 8;

  /// `version` names this content of the file (its ETag, else size and time), for the cache.
  ObjectReadFile(std::string path, uint64_t size, const std::string& version, RangeFetch fetch,
                 std::shared_ptr<ObjectStoreSession> session);

  uint64_t Size() const override { return size_; }
  size_t ReadAt(uint64_t offset, size_t length, void* out) override;
  const std::string& path() const override { return path_; }
  void WillNeed(const std::vector<ByteRange>& ranges) override;
  void Forget(const std::vector<ByteRange>& ranges) override;

 private:
  // Bytes fetched ahead: [offset, offset + bytes.size()), dropped once `unread` bytes of the
  // ranges asked for have been read.
  struct Block {
    uint64_t offset = 0;
    std::shared_ptr<const std::string> bytes;
    int64_t unread = 0;
  };

  bool ReadFetchedAhead(uint64_t offset, size_t length, void* out);
  // Whether the whole file goes into the cache on its first read.
  bool KeepWhole() const;

  std::string path_;
  uint64_t size_;
  std::string key_;  // the cache's name of this content
  RangeFetch fetch_;
  std::shared_ptr<ObjectStoreSession> session_;
  std::mutex mutex_;
  std::vector<Block> blocks_;
};

}  // namespace silt::io
