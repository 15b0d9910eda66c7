#include "silt/base/progress.h"

#include <chrono>

namespace silt {
namespace {

int64_t SteadyNowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

void Progress::Start() noexcept {
  for (std::atomic<int64_t>* counter :
       {&files_read_, &files_to_read_, &rows_read_, &rows_to_read_, &bytes_read_, &bytes_to_read_,
        &files_written_, &rows_written_, &bytes_written_}) {
    counter->store(0, std::memory_order_relaxed);
  }
  // 0 means "not running", so a clock reading of 0 counts as 1.
  int64_t now = SteadyNowMs();
  started_ms_.store(now == 0 ? 1 : now, std::memory_order_release);
}

void Progress::Finish() noexcept { started_ms_.store(0, std::memory_order_release); }

ProgressSnapshot Progress::Read() const noexcept {
  ProgressSnapshot snapshot;
  int64_t started = started_ms_.load(std::memory_order_acquire);
  snapshot.running = started != 0;
  snapshot.elapsed_ms = snapshot.running ? SteadyNowMs() - started : 0;
  snapshot.files_read = files_read_.load(std::memory_order_relaxed);
  snapshot.files_to_read = files_to_read_.load(std::memory_order_relaxed);
  snapshot.rows_read = rows_read_.load(std::memory_order_relaxed);
  snapshot.rows_to_read = rows_to_read_.load(std::memory_order_relaxed);
  snapshot.bytes_read = bytes_read_.load(std::memory_order_relaxed);
  snapshot.bytes_to_read = bytes_to_read_.load(std::memory_order_relaxed);
  snapshot.files_written = files_written_.load(std::memory_order_relaxed);
  snapshot.rows_written = rows_written_.load(std::memory_order_relaxed);
  snapshot.bytes_written = bytes_written_.load(std::memory_order_relaxed);
  return snapshot;
}

}  // namespace silt
