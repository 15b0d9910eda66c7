#include "silt/exec/parquet_scan_stream.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>

#include "silt/base/check.h"
#include "silt/base/thread_pool.h"
#include "silt/exec/filter_internal.h"
#include "silt/expr/evaluator.h"

namespace silt::exec {

namespace {

// A file still to open, or one row group of an opened file.
struct WorkItem {
  size_t file_index = 0;
  std::shared_ptr<const ScanFile> file;  // null: open file `file_index`
  int row_group = -1;
};

// How long the consumer waits for queued worker tasks to start before it concludes that the
// pool is busy elsewhere and decodes a row group itself.
constexpr auto kStarvedPoolWait = std::chrono::milliseconds(10);

}  // namespace

struct ScanStream::State {
  size_t num_files = 0;
  std::function<ScanFile(size_t)> open;
  expr::ExpressionPtr filter;

  // Set by DecodeOnCallers() before the first Next(): callers decode, no worker tasks.
  bool callers_decode = false;
  // Set by the first NextSelected(): the filter marks the rows it keeps of a slice where most
  // pass instead of gathering them.
  bool mark_selections = false;
  // Set by the first Next(); read-only afterwards.
  bool started = false;
  expr::EvalContext worker_eval;  // copied by every worker task
  expr::EvalContext consumer_eval;
  std::shared_ptr<ExecCounters> counters;
  Progress* progress = nullptr;
  ThreadPool* pool = nullptr;
  size_t parallelism = 1;
  size_t capacity = 2;  // row groups decoded or being decoded but not yet consumed

  std::mutex mutex;
  std::condition_variable changed;
  size_t next_file = 0;
  std::deque<WorkItem> pending;  // row groups of opened files, read before opening more files
  // Filtered slices waiting for the consumer; the flag marks the last slice of a row group.
  std::deque<std::pair<SelectedBatch, bool>> ready;
  size_t ready_groups = 0;  // row groups with slices in `ready`
  size_t running = 0;   // work items being processed (by workers or the consumer)
  size_t scheduled = 0; // worker tasks submitted and not finished
  size_t queued = 0;    // worker tasks submitted and not yet started
  uint64_t completed = 0;
  bool cancelled = false;
  std::exception_ptr error;

  bool HasWork() const { return !pending.empty() || next_file < num_files; }
  bool CanClaim() const {
    return !cancelled && !error && HasWork() && ready_groups + running < capacity;
  }
  // Rethrows the first worker error, cancelling what is left; lock held.
  void RethrowIfFailed() {
    if (!error) return;
    cancelled = true;
    std::rethrow_exception(error);
  }
  // The next filtered slice waiting for a consumer, if any; lock held.
  std::optional<SelectedBatch> TakeReady() {
    if (ready.empty()) return std::nullopt;
    SelectedBatch batch = std::move(ready.front().first);
    if (ready.front().second) --ready_groups;
    ready.pop_front();
    return batch;
  }
  WorkItem Claim() {
    WorkItem item;
    if (!pending.empty()) {
      item = std::move(pending.front());
      pending.pop_front();
    } else {
      item.file_index = next_file++;
    }
    ++running;
    return item;
  }
};

namespace {

using StatePtr = std::shared_ptr<ScanStream::State>;

// Processes one claimed item; called without the lock, returns with it released.
void Run(ScanStream::State& state, WorkItem item, expr::EvalContext& eval) {
  std::vector<SelectedBatch> output;
  std::shared_ptr<const ScanFile> opened;
  std::exception_ptr failure;
  try {
    if (!item.file) {
      opened = std::make_shared<const ScanFile>(state.open(item.file_index));
      state.counters->files_scanned.fetch_add(1, std::memory_order_relaxed);
      if (state.progress != nullptr && opened->row_groups.empty()) {
        state.progress->AddRead(1, 0, opened->size_bytes);
      }
    } else {
      Batch batch = item.file->read(item.row_group);
      state.counters->rows_scanned.fetch_add(batch.num_rows(), std::memory_order_relaxed);
      if (state.progress != nullptr) {
        // Each row group counts an equal share of the file's bytes; the last one ends the file.
        const ScanFile& file = *item.file;
        auto groups = static_cast<int64_t>(file.row_groups.size());
        bool last = item.row_group == file.row_groups.back();
        int64_t bytes = file.size_bytes / groups + (last ? file.size_bytes % groups : 0);
        state.progress->AddRead(last ? 1 : 0, batch.num_rows(), bytes);
      }
      // Target-sized slices: the filter's intermediate vectors stay in cache, and consumers
      // get batches of the usual size.
      for (int64_t start = 0; start < batch.num_rows(); start += kTargetBatchRows) {
        int64_t rows = std::min(kTargetBatchRows, batch.num_rows() - start);
        SelectedBatch slice{rows == batch.num_rows() ? batch : batch.Slice(start, rows), {}};
        if (state.filter) {
          slice.batch = FilterBatch(*state.filter, slice.batch, eval,
                                    state.mark_selections ? &slice.selection : nullptr);
        }
        if (slice.batch.num_rows() > 0) output.push_back(std::move(slice));
      }
    }
  } catch (...) {
    failure = std::current_exception();
  }
  // Free the file's reader outside the lock when this was its last row group.
  item.file.reset();
  std::lock_guard<std::mutex> lock(state.mutex);
  if (failure) {
    if (!state.error) state.error = failure;
  } else if (opened && !state.cancelled) {
    // Its row groups go first, so that few files are open at a time.
    for (auto group = opened->row_groups.rbegin(); group != opened->row_groups.rend(); ++group) {
      state.pending.push_front(WorkItem{item.file_index, opened, *group});
    }
  } else if (!output.empty() && !state.cancelled) {
    for (size_t i = 0; i < output.size(); ++i) {
      state.ready.emplace_back(std::move(output[i]), i + 1 == output.size());
    }
    ++state.ready_groups;
  }
  // Release the file before the item counts as done: once no item runs, the stream's owner may
  // destroy what the file reads through.
  opened.reset();
  --state.running;
  ++state.completed;
  state.changed.notify_all();
}

void WorkerTask(const StatePtr& state) {
  expr::EvalContext eval = state->worker_eval;
  std::unique_lock<std::mutex> lock(state->mutex);
  --state->queued;
  while (state->CanClaim()) {
    WorkItem item = state->Claim();
    lock.unlock();
    Run(*state, std::move(item), eval);
    lock.lock();
  }
  --state->scheduled;
  state->changed.notify_all();
}

// Submits worker tasks up to the parallelism while there is work and room; lock held.
void TopUp(const StatePtr& state) {
  while (state->scheduled < state->parallelism && state->CanClaim() &&
         state->queued + state->running < state->capacity) {
    ++state->scheduled;
    ++state->queued;
    state->pool->Submit([state] { WorkerTask(state); });
  }
}

}  // namespace

ScanStream::ScanStream(size_t num_files, std::function<ScanFile(size_t)> open,
                       expr::ExpressionPtr filter)
    : state_(std::make_shared<State>()) {
  state_->num_files = num_files;
  state_->open = std::move(open);
  state_->filter = std::move(filter);
}

ScanStream::~ScanStream() {
  std::unique_lock<std::mutex> lock(state_->mutex);
  state_->cancelled = true;
  // Tasks still queued in the pool find the stream cancelled and end at once; only the items
  // being processed use `open` and the files, so waiting for them is enough.
  state_->changed.wait(lock, [&] { return state_->running == 0; });
  state_->pending.clear();
  state_->ready.clear();
}

void ScanStream::DecodeOnCallers() {
  std::lock_guard<std::mutex> lock(state_->mutex);
  SILT_CHECK(!state_->started, "DecodeOnCallers after the first Next");
  state_->callers_decode = true;
}

namespace {

// Next() when the callers decode: whoever finds nothing ready claims the next item and runs it
// on its own thread; a caller waits only while the last items are being processed elsewhere.
std::optional<SelectedBatch> NextDecodedHere(const StatePtr& state, std::unique_lock<std::mutex>& lock,
                                             expr::EvalContext& eval) {
  for (;;) {
    state->RethrowIfFailed();
    if (std::optional<SelectedBatch> batch = state->TakeReady()) return batch;
    if (!state->HasWork() || state->cancelled) {
      if (state->running == 0) return std::nullopt;
    } else {
      WorkItem item = state->Claim();
      lock.unlock();
      Run(*state, std::move(item), eval);
      lock.lock();
      continue;
    }
    uint64_t completed = state->completed;
    state->changed.wait(lock, [&] {
      return state->completed != completed || !state->ready.empty() || state->error;
    });
  }
}

}  // namespace

std::optional<Batch> ScanStream::Next(ExecContext& context) {
  std::optional<SelectedBatch> batch = NextMarked(context, /*mark_selections=*/false);
  if (!batch) return std::nullopt;
  if (!batch->selection.empty()) return SelectRows(batch->batch, batch->selection);
  return std::move(batch->batch);
}

std::optional<SelectedBatch> ScanStream::NextSelected(ExecContext& context) {
  return NextMarked(context, /*mark_selections=*/true);
}

std::optional<SelectedBatch> ScanStream::NextMarked(ExecContext& context, bool mark_selections) {
  ThrowIfCanceled(context.cancellation);
  const StatePtr& state = state_;
  std::unique_lock<std::mutex> lock(state->mutex);
  if (!state->started) {
    state->mark_selections = mark_selections;
    state->started = true;
    state->worker_eval = context.eval;
    state->consumer_eval = context.eval;
    state->counters = context.counters;
    state->progress = context.progress;
    state->pool = &context.Pool();
    state->parallelism = std::max<size_t>(1, context.Parallelism());
    state->capacity = 2 * state->parallelism + 1;
  }
  if (state->callers_decode) return NextDecodedHere(state, lock, context.eval);
  for (;;) {
    state->RethrowIfFailed();
    if (std::optional<SelectedBatch> batch = state->TakeReady()) {
      TopUp(state);
      return batch;
    }
    if (!state->HasWork() && state->running == 0) return std::nullopt;
    TopUp(state);
    bool slot_free = state->running < state->parallelism;
    if (state->CanClaim() && slot_free && state->queued == 0) {
      WorkItem item = state->Claim();
      lock.unlock();
      Run(*state, std::move(item), state->consumer_eval);
      lock.lock();
      continue;
    }
    uint64_t completed = state->completed;
    bool changed = state->changed.wait_for(lock, kStarvedPoolWait, [&] {
      return state->completed != completed || !state->ready.empty() || state->error;
    });
    if (!changed && state->queued > 0 && state->CanClaim() &&
        state->running < state->parallelism) {
      // Queued tasks have not started: the pool is busy with other work. Decode here.
      WorkItem item = state->Claim();
      lock.unlock();
      Run(*state, std::move(item), state->consumer_eval);
      lock.lock();
    }
  }
}

}  // namespace silt::exec
