#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "silt/vector/batch.h"

namespace silt::io {
class ScratchFolder;
}

/// Bounded memory: a query's operators reserve the memory of the buffers they hold (hash
/// tables, sort runs, window partitions) from one budget, and move data to spill files in a
/// scratch folder of the query when the budget says no.
namespace silt::exec {

/// The memory budget and the spill folder of one query, shared by its operators (and by the
/// copies of its ExecContext on worker threads). Thread-safe.
class QueryMemory {
 public:
  /// No limit; spill files (never needed then) would go to the system's temporary folder.
  QueryMemory();
  /// At most `limit` bytes reserved at once; spill files in a fresh folder under `spill_parent`,
  /// created on first use and removed with its files when this object is destroyed (when the
  /// query ends: success, error or cancellation).
  QueryMemory(int64_t limit, std::string spill_parent);
  ~QueryMemory();
  QueryMemory(const QueryMemory&) = delete;
  QueryMemory& operator=(const QueryMemory&) = delete;

  int64_t limit() const { return limit_; }
  /// Bytes reserved now, and the most reserved at any time.
  int64_t reserved() const { return reserved_.load(std::memory_order_relaxed); }
  int64_t peak() const { return peak_.load(std::memory_order_relaxed); }

  /// Reserves `bytes` when that keeps the total within the limit; false (nothing reserved)
  /// otherwise.
  bool TryReserve(int64_t bytes);
  void Release(int64_t bytes);

  /// A new file path in the query's spill folder (created by the first call). Throws IO_ERROR
  /// when the folder cannot be created.
  std::string NewSpillFilePath();
  /// The spill folder's path, or "" while nothing has spilled.
  std::string spill_folder() const;

 private:
  const int64_t limit_;
  const std::string spill_parent_;
  std::atomic<int64_t> reserved_{0};
  std::atomic<int64_t> peak_{0};
  mutable std::mutex mutex_;
  std::unique_ptr<io::ScratchFolder> folder_;  // guarded by mutex_
};

/// The memory one operator (or one worker of it) holds, reserved from a QueryMemory in large
/// chunks so that most calls touch no shared counter. Released when destroyed. Not thread-safe:
/// each worker keeps its own.
class MemoryReservation {
 public:
  /// `operator_name` names the operator in EXEC_MEMORY_LIMIT_EXCEEDED ("Sort", "HashAggregate").
  MemoryReservation(std::shared_ptr<QueryMemory> memory, std::string operator_name);
  ~MemoryReservation();
  MemoryReservation(const MemoryReservation&) = delete;
  MemoryReservation& operator=(const MemoryReservation&) = delete;

  /// Counts `bytes` more as held when the query's budget allows; false (nothing counted)
  /// otherwise, and the caller spills.
  bool TryGrow(int64_t bytes);
  /// TryGrow for memory the operator cannot do without: throws EXEC_MEMORY_LIMIT_EXCEEDED
  /// naming the operator and the limit when the budget does not allow it.
  void Grow(int64_t bytes);
  /// Counts `bytes` fewer as held (at most what is held), returning spare chunks to the query.
  void Shrink(int64_t bytes);
  /// Counts nothing as held and returns everything to the query.
  void Clear();

  int64_t used() const { return used_; }
  const std::shared_ptr<QueryMemory>& memory() const { return memory_; }

 private:
  std::shared_ptr<QueryMemory> memory_;
  std::string operator_name_;
  int64_t chunk_;
  int64_t used_ = 0;      // what the operator holds
  int64_t reserved_ = 0;  // what is reserved from the query: used_ plus spare
};

/// The bytes of memory `batch`'s buffers take (each buffer's size, nested vectors included;
/// buffers shared between columns counted once per column).
int64_t MemoryBytes(const Batch& batch);
int64_t MemoryBytes(const Vector& vector);

/// Throws EXEC_MEMORY_LIMIT_EXCEEDED naming `operator_name` and `memory`'s limit.
[[noreturn]] void ThrowMemoryLimitExceeded(const QueryMemory& memory, const std::string& operator_name);

}  // namespace silt::exec
