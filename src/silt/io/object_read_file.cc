#include "silt/io/object_read_file.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>
#include <string_view>
#include <thread>
#include <utility>

namespace silt::io {
namespace {

bool EndsWith(const std::string& text, std::string_view suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

ObjectReadFile::ObjectReadFile(std::string path, uint64_t size, const std::string& version,
                               RangeFetch fetch, std::shared_ptr<ObjectStoreSession> session)
    : path_(std::move(path)),
      size_(size),
      key_(path_ + '\n' + std::to_string(size) + '\n' + version),
      fetch_(std::move(fetch)),
      session_(std::move(session)) {}

size_t ObjectReadFile::ReadAt(uint64_t offset, size_t length, void* out) {
  if (length == 0 || offset >= size_) return 0;
  length = static_cast<size_t>(std::min<uint64_t>(length, size_ - offset));
  if (session_->cache.Read(key_, offset, length, out)) {
    session_->counters.CountCacheHit(length);
    return length;
  }
  if (ReadFetchedAhead(offset, length, out)) return length;
  if (KeepWhole()) {
    std::string whole = fetch_(0, size_);
    if (whole.size() == size_) {
      std::memcpy(out, whole.data() + offset, length);
      session_->cache.Insert(key_, 0, std::move(whole));
      return length;
    }
  }
  std::string bytes = fetch_(offset, length);
  size_t got = std::min(bytes.size(), length);
  std::memcpy(out, bytes.data(), got);
  if (got == length && offset + got == size_ && got <= kMaxCachedTailBytes) {
    session_->cache.Insert(key_, offset, std::move(bytes));
  }
  return got;
}

bool ObjectReadFile::ReadFetchedAhead(uint64_t offset, size_t length, void* out) {
  std::shared_ptr<const std::string> bytes;
  uint64_t start = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto block = std::find_if(blocks_.begin(), blocks_.end(), [&](const Block& candidate) {
      return offset >= candidate.offset &&
             offset + length <= candidate.offset + candidate.bytes->size();
    });
    if (block == blocks_.end()) return false;
    bytes = block->bytes;
    start = block->offset;
    block->unread -= static_cast<int64_t>(length);
    if (block->unread <= 0) blocks_.erase(block);
  }
  std::memcpy(out, bytes->data() + (offset - start), length);
  return true;
}

void ObjectReadFile::WillNeed(const std::vector<ByteRange>& ranges) {
  std::vector<ByteRange> wanted;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (ByteRange range : ranges) {
      if (range.offset >= size_) continue;
      range.length = std::min(range.length, size_ - range.offset);
      if (range.length == 0) continue;
      bool held = std::any_of(blocks_.begin(), blocks_.end(), [&](const Block& block) {
        return range.offset >= block.offset && range.end() <= block.offset + block.bytes->size();
      });
      if (!held && !session_->cache.Holds(key_, range.offset, range.length)) {
        wanted.push_back(range);
      }
    }
  }
  if (wanted.empty()) return;
  std::vector<ByteRange> groups = CoalesceRanges(wanted, kMaxGapBytes, kMaxRequestBytes);
  std::vector<std::string> fetched(groups.size());
  if (groups.size() == 1) {
    fetched[0] = fetch_(groups[0].offset, groups[0].length);
  } else {
    // Threads of their own: they wait on the network, not on the compute pool's cores.
    std::atomic<size_t> next{0};
    std::exception_ptr failure;
    std::mutex failure_mutex;
    auto work = [&] {
      for (size_t g = next++; g < groups.size(); g = next++) {
        try {
          fetched[g] = fetch_(groups[g].offset, groups[g].length);
        } catch (...) {
          std::lock_guard<std::mutex> lock(failure_mutex);
          if (!failure) failure = std::current_exception();
          next = groups.size();
        }
      }
    };
    std::vector<std::thread> threads;
    size_t workers = std::min(groups.size(), kMaxParallelFetches);
    for (size_t t = 1; t < workers; ++t) threads.emplace_back(work);
    work();
    for (std::thread& thread : threads) thread.join();
    if (failure) std::rethrow_exception(failure);
  }
  std::lock_guard<std::mutex> lock(mutex_);
  size_t first_block = blocks_.size();
  for (size_t g = 0; g < groups.size(); ++g) {
    blocks_.push_back(
        Block{groups[g].offset, std::make_shared<const std::string>(std::move(fetched[g])), 0});
  }
  // Each range is read from the first group that holds it.
  for (const ByteRange& range : wanted) {
    for (size_t b = first_block; b < blocks_.size(); ++b) {
      Block& block = blocks_[b];
      if (range.offset >= block.offset && range.end() <= block.offset + block.bytes->size()) {
        block.unread += static_cast<int64_t>(range.length);
        break;
      }
    }
  }
  // A group the store answered short holds no whole range: nothing would ever release it.
  blocks_.erase(std::remove_if(blocks_.begin() + static_cast<std::ptrdiff_t>(first_block),
                               blocks_.end(), [](const Block& block) { return block.unread == 0; }),
                blocks_.end());
}

void ObjectReadFile::Forget(const std::vector<ByteRange>& ranges) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::erase_if(blocks_, [&](const Block& block) {
    return std::any_of(ranges.begin(), ranges.end(), [&](const ByteRange& range) {
      return range.length > 0 && range.offset >= block.offset &&
             range.end() <= block.offset + block.bytes->size();
    });
  });
}

bool ObjectReadFile::KeepWhole() const {
  // Delta never rewrites a checkpoint (nor a sidecar of one): the whole file is worth keeping.
  return path_.find("/_delta_log/") != std::string::npos && EndsWith(path_, ".parquet") &&
         size_ <= session_->cache.capacity() / 4;
}

}  // namespace silt::io
