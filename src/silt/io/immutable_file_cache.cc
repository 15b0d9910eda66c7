#include "silt/io/immutable_file_cache.h"

#include <cstring>
#include <utility>

namespace silt::io {

bool ImmutableFileCache::Read(const std::string& key, uint64_t offset, uint64_t length, void* out) {
  std::shared_ptr<const std::string> bytes;
  uint64_t start = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = entries_.find(key);
    if (found == entries_.end()) return false;
    const Entry& entry = found->second;
    if (offset < entry.offset || offset + length > entry.offset + entry.bytes->size()) return false;
    recency_.splice(recency_.begin(), recency_, entry.recency);
    bytes = entry.bytes;
    start = entry.offset;
  }
  std::memcpy(out, bytes->data() + (offset - start), static_cast<size_t>(length));
  return true;
}

bool ImmutableFileCache::Holds(const std::string& key, uint64_t offset, uint64_t length) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = entries_.find(key);
  return found != entries_.end() && offset >= found->second.offset &&
         offset + length <= found->second.offset + found->second.bytes->size();
}

void ImmutableFileCache::Insert(const std::string& key, uint64_t offset, std::string bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (bytes.size() > capacity_) return;
  auto found = entries_.find(key);
  if (found != entries_.end()) {
    if (found->second.offset <= offset) return;
    held_ -= found->second.bytes->size();
    recency_.erase(found->second.recency);
    entries_.erase(found);
  }
  held_ += bytes.size();
  recency_.push_front(key);
  entries_[key] =
      Entry{offset, std::make_shared<const std::string>(std::move(bytes)), recency_.begin()};
  EvictLocked();
}

void ImmutableFileCache::SetCapacity(uint64_t capacity_bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  capacity_ = capacity_bytes;
  EvictLocked();
}

uint64_t ImmutableFileCache::capacity() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return capacity_;
}

uint64_t ImmutableFileCache::bytes_held() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return held_;
}

void ImmutableFileCache::EvictLocked() {
  while (held_ > capacity_ && !recency_.empty()) {
    auto victim = entries_.find(recency_.back());
    held_ -= victim->second.bytes->size();
    entries_.erase(victim);
    recency_.pop_back();
  }
}

}  // namespace silt::io
