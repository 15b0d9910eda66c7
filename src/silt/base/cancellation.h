#pragma once

#include <atomic>

namespace silt {

/// A request to stop the statement that is running: set from any thread (or a signal handler),
/// polled by the work between batches, files and before a commit. Work that sees it throws
/// OPERATION_CANCELED, so a cancelled statement unwinds like any failed one.
class Cancellation {
 public:
  /// Asks the running statement to stop. Async-signal-safe (a lock-free store).
  void Cancel() noexcept { requested_.store(true, std::memory_order_relaxed); }
  /// Clears a request (before the next statement starts).
  void Reset() noexcept { requested_.store(false, std::memory_order_relaxed); }
  bool requested() const noexcept { return requested_.load(std::memory_order_relaxed); }
  /// Throws OPERATION_CANCELED when a cancel was requested; otherwise does nothing.
  void ThrowIfRequested() const {
    if (requested()) [[unlikely]]
      ThrowCanceled();
  }

 private:
  [[noreturn]] static void ThrowCanceled();

  std::atomic<bool> requested_{false};
  static_assert(std::atomic<bool>::is_always_lock_free, "Cancel() runs in signal handlers");
};

/// Throws OPERATION_CANCELED when `cancellation` is set and requested (null: never cancelled).
inline void ThrowIfCanceled(const Cancellation* cancellation) {
  if (cancellation != nullptr) cancellation->ThrowIfRequested();
}

}  // namespace silt
