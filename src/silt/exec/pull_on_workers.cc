#include "silt/exec/pull_on_workers_internal.h"

#include <atomic>
#include <mutex>
#include <optional>
#include <vector>

#include "silt/base/thread_pool.h"

namespace silt::exec {

namespace {

// The loop of PullOnWorkers and PullSelectedOnWorkers: `pull(context)` is the child's Next or
// NextSelected, `consume` takes what it returns.
template <typename Pull, typename Consume>
void PullLoop(ExecContext& context, size_t parallelism, bool parallel_child, const Pull& pull,
              const Consume& consume) {
  if (parallelism <= 1) {
    uint64_t sequence = 0;
    while (auto batch = pull(context)) consume(0, *batch, sequence++, context);
    return;
  }
  std::vector<ExecContext> contexts(parallelism, context);
  std::mutex child_mutex;
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> sequence{0};
  context.Pool().ParallelFor(
      parallelism,
      [&](size_t worker) {
        try {
          while (!stop.load(std::memory_order_relaxed)) {
            decltype(pull(context)) batch;
            uint64_t batch_sequence = 0;
            if (parallel_child) {
              batch = pull(contexts[worker]);
              batch_sequence = sequence++;
            } else {
              std::lock_guard<std::mutex> lock(child_mutex);
              if (stop.load(std::memory_order_relaxed)) return;
              batch = pull(context);
              batch_sequence = sequence++;
            }
            if (!batch) {
              // A parallel child returns the end only once every row is handed out.
              stop = true;
              return;
            }
            consume(worker, *batch, batch_sequence, contexts[worker]);
          }
        } catch (...) {
          stop = true;
          throw;
        }
      },
      parallelism);
}

}  // namespace

void PullOnWorkers(Operator& child, ExecContext& context, size_t parallelism, bool parallel_child,
                   const std::function<void(size_t worker, Batch& batch, uint64_t sequence,
                                            ExecContext& worker_context)>& consume) {
  PullLoop(
      context, parallelism, parallel_child,
      [&](ExecContext& pull_context) { return child.Next(pull_context); }, consume);
}

void PullSelectedOnWorkers(
    Operator& child, ExecContext& context, size_t parallelism, bool parallel_child,
    const std::function<void(size_t worker, SelectedBatch& batch, uint64_t sequence,
                             ExecContext& worker_context)>& consume) {
  PullLoop(
      context, parallelism, parallel_child,
      [&](ExecContext& pull_context) { return child.NextSelected(pull_context); }, consume);
}

}  // namespace silt::exec
