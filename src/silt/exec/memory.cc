#include "silt/exec/memory.h"

#include <algorithm>
#include <limits>
#include <mutex>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "silt/base/check.h"
#include "silt/io/local_machine.h"

namespace silt::exec {

QueryMemory::QueryMemory() : QueryMemory(std::numeric_limits<int64_t>::max(), io::SystemTemporaryFolder()) {}

namespace {

// glibc's malloc raises its mmap threshold each time a large block is freed (up to 32 MiB), after
// which batch buffers come from the heap and, once freed, stay resident though nothing holds
// them: under a memory limit the resident set then grows well past what the operators count.
// Fixed thresholds give blocks of 1 MiB and more back to the system when they are freed, and trim
// the heap past 4 MiB of free space at its top. Set once per process, by the first query with a
// limit.
void BoundAllocatorRetention() {
#if defined(__GLIBC__)
  static std::once_flag once;
  std::call_once(once, [] {
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
    mallopt(M_TRIM_THRESHOLD, 4 << 20);
  });
#endif
}

}  // namespace

QueryMemory::QueryMemory(int64_t limit, std::string spill_parent)
    : limit_(limit), spill_parent_(std::move(spill_parent)) {
  BoundAllocatorRetention();
}

QueryMemory::~QueryMemory() = default;

bool QueryMemory::TryReserve(int64_t bytes) {
  int64_t current = reserved_.load(std::memory_order_relaxed);
  do {
    if (bytes > limit_ - current) return false;
  } while (!reserved_.compare_exchange_weak(current, current + bytes, std::memory_order_relaxed));
  int64_t now = current + bytes;
  int64_t peak = peak_.load(std::memory_order_relaxed);
  while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
  return true;
}

void QueryMemory::Release(int64_t bytes) { reserved_.fetch_sub(bytes, std::memory_order_relaxed); }

std::string QueryMemory::NewSpillFilePath() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!folder_) folder_ = io::ScratchFolder::Create(spill_parent_);
  return folder_->NewFilePath(".spill");
}

std::string QueryMemory::spill_folder() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return folder_ ? folder_->path() : std::string();
}

namespace {

// Chunks of a 32nd of the limit, between 64 KiB and 64 MiB: few shared updates, and little
// memory reserved but unused by operators that hold less than a chunk.
int64_t ChunkFor(const QueryMemory& memory) {
  constexpr int64_t kMinChunk = int64_t{64} << 10;
  constexpr int64_t kMaxChunk = int64_t{64} << 20;
  return std::clamp(memory.limit() / 32, kMinChunk, kMaxChunk);
}

}  // namespace

MemoryReservation::MemoryReservation(std::shared_ptr<QueryMemory> memory, std::string operator_name)
    : memory_(std::move(memory)), operator_name_(std::move(operator_name)), chunk_(ChunkFor(*memory_)) {}

MemoryReservation::~MemoryReservation() { Clear(); }

bool MemoryReservation::TryGrow(int64_t bytes) {
  if (bytes <= 0) return true;
  if (bytes <= reserved_ - used_) {
    used_ += bytes;
    return true;
  }
  int64_t needed = used_ + bytes - reserved_;
  int64_t rounded = (needed + chunk_ - 1) / chunk_ * chunk_;
  if (memory_->TryReserve(rounded)) {
    reserved_ += rounded;
  } else if (rounded != needed && memory_->TryReserve(needed)) {
    reserved_ += needed;
  } else {
    return false;
  }
  used_ += bytes;
  return true;
}

void MemoryReservation::Grow(int64_t bytes) {
  if (!TryGrow(bytes)) ThrowMemoryLimitExceeded(*memory_, operator_name_);
}

void MemoryReservation::Shrink(int64_t bytes) {
  used_ -= std::min(std::max<int64_t>(bytes, 0), used_);
  int64_t spare = reserved_ - used_;
  if (spare > chunk_) {
    memory_->Release(spare - chunk_);
    reserved_ -= spare - chunk_;
  }
}

void MemoryReservation::Clear() {
  memory_->Release(reserved_);
  reserved_ = 0;
  used_ = 0;
}

int64_t MemoryBytes(const Vector& vector) {
  int64_t bytes = 0;
  for (const BufferPtr& buffer : vector.buffers()) {
    if (buffer) bytes += static_cast<int64_t>(buffer->size());
  }
  for (const VectorPtr& child : vector.children()) bytes += MemoryBytes(*child);
  return bytes;
}

int64_t MemoryBytes(const Batch& batch) {
  int64_t bytes = 0;
  for (const VectorPtr& column : batch.columns()) bytes += MemoryBytes(*column);
  return bytes;
}

void ThrowMemoryLimitExceeded(const QueryMemory& memory, const std::string& operator_name) {
  SILT_THROW(EXEC_MEMORY_LIMIT_EXCEEDED, {{"operator", operator_name}, {"limit", std::to_string(memory.limit())}});
}

}  // namespace silt::exec
