#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "silt/api/session_internal.h"
#include "silt/session.h"

namespace silt::cli {

/// The one-line progress report of a running statement, e.g.
/// ` 37% [#######-------------] files 12/40, rows 1.20M, 340.0 MiB/920.0 MiB | wrote 3 files,
/// 120.0 MiB | 3.2s`, cut to `width` - 1 characters. The percentage and bar follow the bytes read
/// when their total is known, else the rows, else the files; without any total they are left out.
std::string FormatProgressLine(const ProgressSnapshot& progress, size_t width);

/// Draws the session's progress on one line of a file descriptor (stderr) while statements
/// run: from a timer thread, redrawn in place with '\r' every 100 ms once a statement has run
/// `delay_ms`, and erased when it ends. Output of the statements goes through Print, so that a
/// result never lands on a half-drawn line.
class ProgressDisplay {
 public:
  /// Starts the timer thread when `enabled`; otherwise Print just prints.
  ProgressDisplay(const Session& session, bool enabled, int fd, int delay_ms);
  /// Stops the thread and erases the line.
  ~ProgressDisplay();
  ProgressDisplay(const ProgressDisplay&) = delete;
  ProgressDisplay& operator=(const ProgressDisplay&) = delete;

  /// Erases the progress line, then runs `print` with no progress drawn meanwhile.
  void Print(const std::function<void()>& print);

 private:
  void Loop();
  void Draw(const std::string& line);  // mutex_ held
  void Erase();                        // mutex_ held

  const Session& session_;
  int fd_;
  int delay_ms_;
  std::mutex mutex_;
  std::condition_variable stop_requested_;
  bool stopping_ = false;
  size_t drawn_width_ = 0;  // characters of the line on screen; 0 = none
  std::thread thread_;
};

}  // namespace silt::cli
