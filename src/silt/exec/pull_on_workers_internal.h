#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "silt/exec/operator.h"

namespace silt::exec {

/// Pulls `child` to the end on `parallelism` workers (the calling thread and the context's
/// pool), handing each batch to `consume(worker, batch, sequence, worker_context)` on the worker
/// that pulled it. With `parallel_child` (the child's EnableParallelNext() said yes) the workers
/// pull at once, each with its own ExecContext copy, and the child decodes on them; otherwise
/// they pull one at a time under a lock. `sequence` numbers the batches in the order their pulls
/// returned (the child's order when it is pulled under the lock). `worker_context` is the
/// worker's own copy of `context`. The first error stops every worker and is rethrown.
/// With `parallelism` 1 everything runs on the calling thread, with `context` itself.
void PullOnWorkers(Operator& child, ExecContext& context, size_t parallelism, bool parallel_child,
                   const std::function<void(size_t worker, Batch& batch, uint64_t sequence,
                                            ExecContext& worker_context)>& consume);

/// As PullOnWorkers, through the child's NextSelected(): each batch comes with the rows a filter
/// kept marked (see SelectedBatch).
void PullSelectedOnWorkers(
    Operator& child, ExecContext& context, size_t parallelism, bool parallel_child,
    const std::function<void(size_t worker, SelectedBatch& batch, uint64_t sequence,
                             ExecContext& worker_context)>& consume);

}  // namespace silt::exec
