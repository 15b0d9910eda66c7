#include "silt/io/storage_statistics.h"

namespace silt::io {

void RequestCounters::Count(RequestKind kind, uint64_t bytes_read) {
  switch (kind) {
    case RequestKind::kGet:
      gets_.fetch_add(1, std::memory_order_relaxed);
      break;
    case RequestKind::kPut:
      puts_.fetch_add(1, std::memory_order_relaxed);
      break;
    case RequestKind::kList:
      lists_.fetch_add(1, std::memory_order_relaxed);
      break;
    case RequestKind::kHead:
      heads_.fetch_add(1, std::memory_order_relaxed);
      break;
    case RequestKind::kDelete:
      deletes_.fetch_add(1, std::memory_order_relaxed);
      break;
  }
  bytes_read_.fetch_add(bytes_read, std::memory_order_relaxed);
}

void RequestCounters::CountCacheHit(uint64_t bytes) {
  cache_hits_.fetch_add(1, std::memory_order_relaxed);
  cache_bytes_read_.fetch_add(bytes, std::memory_order_relaxed);
}

StorageStatistics RequestCounters::Snapshot() const {
  StorageStatistics statistics;
  statistics.gets = gets_.load(std::memory_order_relaxed);
  statistics.puts = puts_.load(std::memory_order_relaxed);
  statistics.lists = lists_.load(std::memory_order_relaxed);
  statistics.heads = heads_.load(std::memory_order_relaxed);
  statistics.deletes = deletes_.load(std::memory_order_relaxed);
  statistics.bytes_read = bytes_read_.load(std::memory_order_relaxed);
  statistics.cache_hits = cache_hits_.load(std::memory_order_relaxed);
  statistics.cache_bytes_read = cache_bytes_read_.load(std::memory_order_relaxed);
  return statistics;
}

void RequestCounters::Reset() {
  for (std::atomic<uint64_t>* counter : {&gets_, &puts_, &lists_, &heads_, &deletes_, &bytes_read_,
                                         &cache_hits_, &cache_bytes_read_}) {
    counter->store(0, std::memory_order_relaxed);
  }
}

StorageStatistics StorageStatisticsOf(const FileSystem& fs) {
  if (const auto* source = dynamic_cast<const StorageStatisticsSource*>(&fs)) {
    return source->storage_statistics();
  }
  return {};
}

void ResetStorageStatistics(FileSystem& fs) {
  if (auto* source = dynamic_cast<StorageStatisticsSource*>(&fs)) source->ResetStorageStatistics();
}

}  // namespace silt::io
