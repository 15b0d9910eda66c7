#include "progress_display.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iterator>
#include <optional>

namespace silt::cli {
namespace {

constexpr auto kRedrawInterval = std::chrono::milliseconds(100);
constexpr size_t kBarWidth = 20;

std::string Fixed(double value, int decimals) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.*f", decimals, value);
  return text;
}

// 987, 12.3K, 1.20M, 3.40B.
std::string Count(int64_t value) {
  if (value < 10'000) return std::to_string(value);
  if (value < 1'000'000) return Fixed(static_cast<double>(value) / 1e3, 1) + "K";
  if (value < 1'000'000'000) return Fixed(static_cast<double>(value) / 1e6, 2) + "M";
  return Fixed(static_cast<double>(value) / 1e9, 2) + "B";
}

std::string Bytes(int64_t value) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double scaled = static_cast<double>(value);
  size_t unit = 0;
  while (scaled >= 1024 && unit + 1 < std::size(kUnits)) {
    scaled /= 1024;
    ++unit;
  }
  return unit == 0 ? std::to_string(value) + " B" : Fixed(scaled, 1) + " " + kUnits[unit];
}

std::string OfTotal(const std::string& done, int64_t total, std::string (*format)(int64_t)) {
  return total > 0 ? done + "/" + format(total) : done;
}

int TerminalWidth(int fd) {
  winsize size{};
  if (ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  return 0;  // a file: lines are not cut
}

void WriteAll(int fd, const std::string& text) {
  size_t written = 0;
  while (written < text.size()) {
    ssize_t n = write(fd, text.data() + written, text.size() - written);
    if (n <= 0) return;  // a progress line is not worth an error
    written += static_cast<size_t>(n);
  }
}

}  // namespace

std::string FormatProgressLine(const ProgressSnapshot& progress, size_t width) {
  std::optional<double> fraction;
  if (progress.bytes_to_read > 0) {
    fraction =
        static_cast<double>(progress.bytes_read) / static_cast<double>(progress.bytes_to_read);
  } else if (progress.rows_to_read > 0) {
    fraction = static_cast<double>(progress.rows_read) / static_cast<double>(progress.rows_to_read);
  } else if (progress.files_to_read > 0) {
    fraction =
        static_cast<double>(progress.files_read) / static_cast<double>(progress.files_to_read);
  }
  std::string line;
  if (fraction) {
    double clamped = std::min(1.0, std::max(0.0, *fraction));
    auto filled = static_cast<size_t>(clamped * kBarWidth);
    std::string percent = std::to_string(static_cast<int>(clamped * 100)) + "%";
    line += std::string(4 - std::min<size_t>(4, percent.size()), ' ') + percent + " [" +
            std::string(filled, '#') + std::string(kBarWidth - filled, '-') + "] ";
  }
  std::string read;
  auto add = [](std::string& list, const std::string& item) {
    list += (list.empty() ? "" : ", ") + item;
  };
  if (progress.files_to_read > 0 || progress.files_read > 0) {
    add(read, "files " + OfTotal(std::to_string(progress.files_read), progress.files_to_read,
                                 [](int64_t v) { return std::to_string(v); }));
  }
  if (progress.rows_to_read > 0 || progress.rows_read > 0) {
    add(read, "rows " + OfTotal(Count(progress.rows_read), progress.rows_to_read, Count));
  }
  if (progress.bytes_to_read > 0 || progress.bytes_read > 0) {
    add(read, OfTotal(Bytes(progress.bytes_read), progress.bytes_to_read, Bytes));
  }
  std::string wrote;
  if (progress.rows_written > 0) add(wrote, "rows " + Count(progress.rows_written));
  if (progress.files_written > 0) add(wrote, "files " + std::to_string(progress.files_written));
  if (progress.bytes_written > 0) add(wrote, Bytes(progress.bytes_written));
  if (!read.empty()) line += "read " + read + " | ";
  if (!wrote.empty()) line += "wrote " + wrote + " | ";
  line += Fixed(static_cast<double>(progress.elapsed_ms) / 1000.0, 1) + "s";
  if (width > 0 && line.size() > width - 1) line.resize(width - 1);
  return line;
}

ProgressDisplay::ProgressDisplay(const Session& session, bool enabled, int fd, int delay_ms)
    : session_(session), fd_(fd), delay_ms_(delay_ms) {
  if (enabled) thread_ = std::thread([this] { Loop(); });
}

ProgressDisplay::~ProgressDisplay() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    Erase();
  }
  stop_requested_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ProgressDisplay::Print(const std::function<void()>& print) {
  std::lock_guard<std::mutex> lock(mutex_);
  Erase();
  print();
}

void ProgressDisplay::Loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    // Read under the lock: a statement's output is printed (under the lock) only after it
    // ended, so a line drawn here can never be stale by then.
    ProgressSnapshot progress = api::StatementProgress(session_);
    if (progress.running && progress.elapsed_ms >= delay_ms_) {
      Draw(FormatProgressLine(progress, static_cast<size_t>(TerminalWidth(fd_))));
    } else {
      Erase();
    }
    stop_requested_.wait_for(lock, kRedrawInterval, [this] { return stopping_; });
  }
}

void ProgressDisplay::Draw(const std::string& line) {
  // Pad over the rest of a longer previous line instead of using terminal escapes.
  std::string text = "\r" + line;
  if (line.size() < drawn_width_) text += std::string(drawn_width_ - line.size(), ' ');
  WriteAll(fd_, text);
  drawn_width_ = std::max(drawn_width_, line.size());
  if (drawn_width_ == 0) drawn_width_ = 1;
}

void ProgressDisplay::Erase() {
  if (drawn_width_ == 0) return;
  WriteAll(fd_, "\r" + std::string(drawn_width_, ' ') + "\r");
  drawn_width_ = 0;
}

}  // namespace silt::cli
