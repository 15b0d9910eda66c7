#pragma once

#include <atomic>
#include <cstdint>

namespace silt {

/// What a running statement has done so far, as Progress::Read returns it. A total of 0 means
/// "not known" (nothing announced it).
struct ProgressSnapshot {
  int64_t files_read = 0;  ///< input files whose rows were all read
  int64_t files_to_read = 0;
  int64_t rows_read = 0;  ///< rows produced by scans and generators (before filters)
  int64_t rows_to_read = 0;
  int64_t bytes_read = 0;  ///< input file bytes read
  int64_t bytes_to_read = 0;
  int64_t files_written = 0;  ///< data files written (created) so far
  int64_t rows_written = 0;
  int64_t bytes_written = 0;
  int64_t elapsed_ms = 0;  ///< since the statement started; 0 when none is running
  bool running = false;
};

/// Counters of the running statement, updated by scans, generators and writers once per batch
/// or file (relaxed atomics: costless when nobody reads them) and read by any thread, e.g. a
/// progress bar's timer. Totals are announced by the operators that know them (a scan knows its
/// files and their sizes after pruning). Thread-safe.
class Progress {
 public:
  /// Zeroes every counter and marks a statement as running since now.
  void Start() noexcept;
  /// Marks the statement as ended; Read() then reports running = false.
  void Finish() noexcept;
  /// The counters as they are now.
  ProgressSnapshot Read() const noexcept;

  /// Adds to the totals to read: files and their bytes (a scan after pruning), rows (a range).
  void AddInputTotals(int64_t files, int64_t bytes, int64_t rows = 0) noexcept {
    files_to_read_.fetch_add(files, std::memory_order_relaxed);
    bytes_to_read_.fetch_add(bytes, std::memory_order_relaxed);
    rows_to_read_.fetch_add(rows, std::memory_order_relaxed);
  }
  /// Counts input read: files finished, rows produced and bytes of input files.
  void AddRead(int64_t files, int64_t rows, int64_t bytes) noexcept {
    files_read_.fetch_add(files, std::memory_order_relaxed);
    rows_read_.fetch_add(rows, std::memory_order_relaxed);
    bytes_read_.fetch_add(bytes, std::memory_order_relaxed);
  }
  /// Counts output written: files created, rows handed to writers and bytes written.
  void AddWritten(int64_t files, int64_t rows, int64_t bytes) noexcept {
    files_written_.fetch_add(files, std::memory_order_relaxed);
    rows_written_.fetch_add(rows, std::memory_order_relaxed);
    bytes_written_.fetch_add(bytes, std::memory_order_relaxed);
  }

 private:
  std::atomic<int64_t> started_ms_{0};  // steady clock; 0: no statement running
  std::atomic<int64_t> files_read_{0};
  std::atomic<int64_t> files_to_read_{0};
  std::atomic<int64_t> rows_read_{0};
  std::atomic<int64_t> rows_to_read_{0};
  std::atomic<int64_t> bytes_read_{0};
  std::atomic<int64_t> bytes_to_read_{0};
  std::atomic<int64_t> files_written_{0};
  std::atomic<int64_t> rows_written_{0};
  std::atomic<int64_t> bytes_written_{0};
};

}  // namespace silt
