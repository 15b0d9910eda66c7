#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

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

}  // namespace

std::shared_ptr<Buffer> Buffer::Allocate(size_t size, bool zero, size_t capacity) {
  // The constructor is private, so make_shared cannot be used.
  std::shared_ptr<Buffer> buffer(new Buffer());
  // At least one aligned block so that data() is never null, even for empty buffers.
  size_t rounded = RoundUpToAlignment(std::max({size, capacity, kAlignment}));
  buffer->data_ = AllocateAligned(rounded);
  buffer->capacity_ = rounded;
  buffer->size_ = size;
  if (zero) std::memset(buffer->data_, 0, size);
  return buffer;
}

Buffer::~Buffer() { std::free(data_); }

void Buffer::Reserve(size_t capacity) {
  if (capacity <= capacity_) return;
  size_t rounded = RoundUpToAlignment(capacity);
  uint8_t* grown = AllocateAligned(rounded);
  if (size_ > 0) std::memcpy(grown, data_, size_);
  std::free(data_);
  data_ = grown;
  capacity_ = rounded;
}

void Buffer::Resize(size_t size, bool zero) {
  if (size > capacity_) Reserve(GrowTo(size));
  if (zero && size > size_) std::memset(data_ + size_, 0, size - size_);
  size_ = size;
}

}  // namespace silt
