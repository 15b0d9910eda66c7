#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "silt/exec/operator.h"
#include "silt/expr/expression.h"

// The parallel, streaming engine under the Delta and Parquet scans.
namespace silt::exec {

/// One opened file of a scan: the row groups to read and how to read one. `read` is called
/// from several threads at once.
struct ScanFile {
  std::vector<int> row_groups;
  std::function<Batch(int row_group)> read;
  /// The file's size in bytes, counted as read in equal shares per row group (progress only;
  /// 0 = unknown).
  int64_t size_bytes = 0;
};

/// Reads files in parallel, spreading the row groups of each file over the workers, filters the
/// rows on the worker that decoded them (in slices of kTargetBatchRows, which are the batches
/// returned) and hands the batches to the consumer through a bounded queue (at most about two row groups per worker are decoded but not yet consumed). Workers
/// never block: a task that finds the queue full ends, and Next() schedules new ones as the
/// queue drains; the consumer decodes itself when no worker is running, so a busy shared pool
/// slows the scan but cannot deadlock it. Batch order is not deterministic. A consumer that has
/// workers of its own calls DecodeOnCallers() instead: its workers then decode and filter the
/// row groups themselves (morsel-style), and the stream submits nothing to the pool.
class ScanStream {
 public:
  /// `open(i)` opens file i of `num_files` (called on workers; it may throw). `filter` is
  /// optional. `open` and `filter` are used until the stream is destroyed.
  ScanStream(size_t num_files, std::function<ScanFile(size_t)> open, expr::ExpressionPtr filter);
  /// Stops the workers: waits for the row groups being decoded, drops the rest.
  ~ScanStream();
  ScanStream(const ScanStream&) = delete;
  ScanStream& operator=(const ScanStream&) = delete;

  /// Switches to decoding on the callers (before the first Next): Next may then be called from
  /// several threads at once, each with its own ExecContext; a call with no batch ready decodes
  /// the next row group itself, and no helper tasks are submitted to the pool.
  void DecodeOnCallers();

  /// The next non-empty batch, or nullopt when every file is read. Rethrows the first error of
  /// any worker (the original silt::Error); throws OPERATION_CANCELED when the context's
  /// cancellation was requested. Reports files, rows and bytes read to the context's progress. Called from one thread at a time unless
  /// DecodeOnCallers() was called.
  std::optional<Batch> Next(ExecContext& context);

  /// As Next(), with the rows the filter keeps of a slice where most pass marked rather than
  /// gathered (Operator::NextSelected). A stream is read with Next() or with NextSelected(),
  /// not both.
  std::optional<SelectedBatch> NextSelected(ExecContext& context);

  /// What the consumer and the worker tasks share (defined in the .cc); tasks still queued in
  /// the pool when the stream is destroyed keep it alive.
  struct State;

 private:
  std::optional<SelectedBatch> NextMarked(ExecContext& context, bool mark_selections);

  std::shared_ptr<State> state_;
};

}  // namespace silt::exec
