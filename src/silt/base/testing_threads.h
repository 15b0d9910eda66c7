#pragma once

// Test-only: how many threads this process has, for tests that assert a component leaves none
// behind.

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

namespace silt {

/// The threads of this process now, or -1 when /proc cannot tell.
inline int ThreadCount() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.starts_with("Threads:")) return std::stoi(line.substr(8));
  }
  return -1;
}

/// The thread count once it is at most `expected`, or the count still above it after `timeout`.
///
/// A joined thread can still be counted for a moment: pthread_join returns when the kernel clears
/// the thread's id, which happens before the exiting thread leaves the process's thread list. On a
/// loaded machine the exiting thread can be descheduled in between, so a count taken right after
/// a join may include it. A thread that was never joined stays, and the count stays above.
inline int WaitForThreadCount(int expected,
                              std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  int count = ThreadCount();
  while (count > expected && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    count = ThreadCount();
  }
  return count;
}

}  // namespace silt
