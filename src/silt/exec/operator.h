#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "silt/base/cancellation.h"
#include "silt/base/progress.h"
#include "silt/exec/memory.h"
#include "silt/expr/eval_context.h"
#include "silt/vector/batch.h"

namespace silt {
class ThreadPool;
}
namespace silt::io {
class FileSystem;
}

/// Physical operators: the vectorised executor. A plan is a tree of Operators; the root is
/// pulled batch by batch. Operators own their children. Expressions given to an operator are
/// bound (expr::Expression) against its input's columns by index.
namespace silt::exec {

/// Counters a query's operators update; tests and benchmarks read them (e.g. to prove pruning).
struct ExecCounters {
  std::atomic<int64_t> files_scanned{0};  ///< data files opened by scans
  std::atomic<int64_t> files_pruned{0};   ///< data files skipped by partition values / stats
  std::atomic<int64_t> rows_scanned{0};   ///< rows produced by scans before their filters
  std::atomic<int64_t> spill_files{0};    ///< spill files operators wrote (memory limit reached)
  std::atomic<int64_t> spill_bytes{0};    ///< bytes written to them
};

/// Per-query state shared by the operators of one plan.
struct ExecContext {
  /// Session settings (ANSI mode, time zone, statement time). Operators that evaluate on several
  /// threads copy it once per thread (an EvalContext collects errors and is not thread-safe).
  expr::EvalContext eval;
  /// Worker threads for parallel scans, hash builds and aggregation; nullptr = the default pool.
  ThreadPool* pool = nullptr;
  /// Upper bound on threads one operator uses; 0 = the pool's size.
  size_t parallelism = 0;
  std::shared_ptr<ExecCounters> counters = std::make_shared<ExecCounters>();
  /// The query's memory budget and spill folder (silt.memory.limit, silt.tmp.dir); the default
  /// has no limit. Copies of the context share it.
  std::shared_ptr<QueryMemory> memory = std::make_shared<QueryMemory>();
  /// The statement's cancel request, polled by the leaf operators before each batch (every
  /// pipeline starts at one) and by Collect; nullptr = not cancellable. Not owned.
  const Cancellation* cancellation = nullptr;
  /// The statement's progress counters, updated by scans and generators once per batch or
  /// file; nullptr = nobody listens. Not owned.
  Progress* progress = nullptr;

  ThreadPool& Pool() const;
  size_t Parallelism() const;
};

/// Rows per batch operators aim for when they build batches themselves.
constexpr int64_t kTargetBatchRows = 64 * 1024;

/// A batch whose rows a filter marked instead of removing them: `selection` holds one byte per
/// row of `batch` (non-zero: the row is kept), or is empty when every row is kept.
struct SelectedBatch {
  Batch batch;
  std::vector<uint8_t> selection;
};

/// A physical operator: produces its output as a stream of batches of schema().
class Operator {
 public:
  explicit Operator(SchemaPtr schema) : schema_(std::move(schema)) {}
  virtual ~Operator() = default;
  Operator(const Operator&) = delete;
  Operator& operator=(const Operator&) = delete;

  /// The output schema: names are for display only (binding is by position).
  const SchemaPtr& schema() const { return schema_; }

  /// The next batch of output (never zero rows), or nullopt once the operator is exhausted
  /// (and on every call after that). Called from one thread at a time; an operator may use
  /// worker threads internally. Errors are thrown as silt::Error.
  virtual std::optional<Batch> Next(ExecContext& context) = 0;

  /// Morsel-style pulls for consumers that run workers of their own (hash aggregation, join
  /// probes): called once, before the first Next(). When it returns true, Next may be called
  /// from several threads at once, each thread with its own ExecContext copy, and each call
  /// decodes and filters its share on the calling thread. The consumer's workers then do the
  /// scan's work themselves instead of waiting, under a lock, for helper tasks that the same
  /// busy pool cannot start. Default: false (the consumer serialises its calls).
  virtual bool EnableParallelNext() { return false; }

  /// Next() for a consumer that skips the rows a selection drops (hash aggregation): a filter
  /// that keeps most rows of a batch then marks them instead of gathering every column into a
  /// new batch, and the operators between it and the consumer compute their columns for every
  /// row but raise errors only for the kept ones. The rows a selection drops hold unspecified
  /// values. Same threading as Next(); a consumer calls either Next() or NextSelected(), never
  /// both. Default: Next() with every row kept.
  virtual std::optional<SelectedBatch> NextSelected(ExecContext& context);

  /// One line for EXPLAIN, e.g. "HashAggregate(keys=[city#1], functions=[sum(amount#3)])".
  virtual std::string Describe() const = 0;
  /// The inputs, for EXPLAIN.
  virtual std::vector<const Operator*> children() const { return {}; }

 private:
  SchemaPtr schema_;
};
using OperatorPtr = std::unique_ptr<Operator>;

/// Pulls `root` to the end and returns its batches in order.
std::vector<Batch> Collect(Operator& root, ExecContext& context);

/// The plan as EXPLAIN prints it, as Spark's physical plan text: one operator per line, each
/// child on "+- " below its parent, indented three spaces per level.
std::string ExplainTree(const Operator& root);

/// Row order of a sort key: Spark's defaults are ASC NULLS FIRST and DESC NULLS LAST.
struct SortKey {
  int column = 0;  ///< input column index
  bool ascending = true;
  bool nulls_first = true;
};

enum class JoinType { kInner, kLeftOuter, kRightOuter, kFullOuter, kLeftSemi, kLeftAnti, kCross };

/// "Inner", "LeftOuter", ... as Spark's plans print join types.
std::string JoinTypeName(JoinType type);

}  // namespace silt::exec
