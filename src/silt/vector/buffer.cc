#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <vector>

#include "silt/base/check.h"
#include "silt/vector/vector.h"

namespace silt {
namespace {

// Arrow's alignment: lets SIMD loops load whole cache lines and matches what the Arrow C Data
// Interface consumers expect.
constexpr size_t kAlignment = 64;

size_t RoundUpToAlignment(size_t bytes) {
  return (bytes + kAlignment - 1) / kAlignment * kAlignment;
}

uint8_t* AllocateAligned(size_t capacity) {
  // std::aligned_alloc needs a size that is a multiple of the alignment; every capacity is.
  void* memory = std::aligned_alloc(kAlignment, capacity);
  if (memory == nullptr) throw std::bad_alloc();
  return static_cast<uint8_t*>(memory);
}

// Freed blocks of 1 to 16 MiB (a decoded row group's columns, a batch's vectors) are kept for
// the next allocations of about their size, up to 128 MiB in all. The allocator maps blocks of
// that size on their own (exec's QueryMemory fixes its threshold at 1 MiB so that freed batches
// leave the resident set): without reuse each one is mapped, faulted in page by page, zeroed by
// the kernel and unmapped again, which costs a streaming scan more than its decoding. 128 MiB
// covers the blocks a MERGE's two threads free and take again between a file's reading and its
// writing (64 MiB left a third of its page faults); it is part of the fixed margin over the
// memory limit that the resident set may take.
class LargeBlockCache {
 public:
  static constexpr size_t kSmallestBlock = size_t{1} << 20;
  static constexpr size_t kLargestBlock = size_t{16} << 20;
  static constexpr size_t kMostHeld = size_t{128} << 20;

  static LargeBlockCache& Instance() {
    // Never destroyed: buffers may be freed while static objects are being destroyed.
    static auto* cache = new LargeBlockCache();
    return *cache;
  }

  static bool Eligible(size_t capacity) { return capacity >= kSmallestBlock && capacity <= kLargestBlock; }

  // A kept block of at least `capacity` bytes and at most an eighth more (its size in
  // `*capacity`), or null.
  uint8_t* Take(size_t* capacity) {
    std::lock_guard<std::mutex> lock(mutex_);
    size_t best = blocks_.size();
    for (size_t i = 0; i < blocks_.size(); ++i) {
      const size_t size = blocks_[i].capacity;
      if (size >= *capacity && size <= *capacity + *capacity / 8 &&
          (best == blocks_.size() || size < blocks_[best].capacity)) {
        best = i;
      }
    }
    if (best == blocks_.size()) return nullptr;
    Block block = blocks_[best];
    blocks_[best] = blocks_.back();
    blocks_.pop_back();
    held_ -= block.capacity;
    *capacity = block.capacity;
    return block.data;
  }

  // Keeps a freed block; false when the cache is full (the caller frees it).
  bool Keep(uint8_t* data, size_t capacity) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (held_ + capacity > kMostHeld) return false;
    blocks_.push_back({data, capacity});
    held_ += capacity;
    return true;
  }

 private:
  struct Block {
    uint8_t* data;
    size_t capacity;
  };
  std::mutex mutex_;
  std::vector<Block> blocks_;
  size_t held_ = 0;
};

// A block of `*capacity` bytes or a little more (the block's size in `*capacity`).
uint8_t* AllocateBlock(size_t* capacity) {
  if (LargeBlockCache::Eligible(*capacity)) {
    if (uint8_t* kept = LargeBlockCache::Instance().Take(capacity)) return kept;
  }
  return AllocateAligned(*capacity);
}

void FreeBlock(uint8_t* data, size_t capacity) {
  if (data != nullptr && LargeBlockCache::Eligible(capacity) && LargeBlockCache::Instance().Keep(data, capacity)) {
    return;
  }
  std::free(data);
}

}  // namespace

std::shared_ptr<Buffer> Buffer::Allocate(size_t size, bool zero, size_t capacity) {
  // The constructor is private, so make_shared cannot be used.
  std::shared_ptr<Buffer> buffer(new Buffer());
  // At least one aligned block so that data() is never null, even for empty buffers.
  size_t rounded = RoundUpToAlignment(std::max({size, capacity, kAlignment}));
  buffer->data_ = AllocateBlock(&rounded);
  buffer->capacity_ = rounded;
  buffer->size_ = size;
  if (zero) std::memset(buffer->data_, 0, size);
  return buffer;
}

Buffer::~Buffer() { FreeBlock(data_, capacity_); }

void Buffer::Reserve(size_t capacity) {
  if (capacity <= capacity_) return;
  size_t rounded = RoundUpToAlignment(capacity);
  uint8_t* grown = AllocateBlock(&rounded);
  if (size_ > 0) std::memcpy(grown, data_, size_);
  FreeBlock(data_, capacity_);
  data_ = grown;
  capacity_ = rounded;
}

void Buffer::Resize(size_t size, bool zero) {
  if (size > capacity_) Reserve(GrowTo(size));
  if (zero && size > size_) std::memset(data_ + size_, 0, size - size_);
  size_ = size;
}

}  // namespace silt
