#include <algorithm>
#include <limits>
#include <memory>
#include <queue>
#include <string>
#include <utility>

#include "silt/base/check.h"
#include "silt/base/thread_pool.h"
#include "silt/exec/row_compare.h"
#include "silt/exec/sort_permutation.h"
#include "silt/exec/sort_window.h"
#include "silt/exec/spill_file.h"
#include "silt/log/partition_values.h"

namespace silt::exec {

namespace {

std::string SortKeyText(const Schema& schema, const SortKey& key) {
  std::string text =
      schema.field(static_cast<size_t>(key.column)).name + "#" + std::to_string(key.column);
  text += key.ascending ? " ASC" : " DESC";
  text += key.nulls_first ? " NULLS FIRST" : " NULLS LAST";
  return text;
}

std::string SortKeysText(const Schema& schema, const std::vector<SortKey>& keys) {
  std::string text;
  for (size_t k = 0; k < keys.size(); ++k) {
    if (k > 0) text += ", ";
    text += SortKeyText(schema, keys[k]);
  }
  return text;
}

// Gathers every column of `input` in `order` (rows [start, start + count) of it), a column per
// task when the slice is large.
Batch GatherBatch(const Batch& input, const std::vector<int64_t>& order, int64_t start,
                  int64_t count, ExecContext& context) {
  std::vector<VectorPtr> columns(input.num_columns());
  auto gather = [&](size_t c) {
    columns[c] = TakeRows(*input.column(c), order.data() + start, count);
  };
  if (count >= 4096 && columns.size() > 1) {
    context.Pool().ParallelFor(columns.size(), gather, context.Parallelism());
  } else {
    for (size_t c = 0; c < columns.size(); ++c) gather(c);
  }
  return Batch(input.schema(), std::move(columns), count);
}

// The row order of `pieces` (counted across them) by `sort_keys`. Only the key columns are
// concatenated.
std::vector<int64_t> SortPieces(const std::vector<Batch>& pieces, const std::vector<SortKey>& sort_keys,
                                ExecContext& context) {
  int64_t num_rows = 0;
  for (const Batch& batch : pieces) num_rows += batch.num_rows();
  std::vector<int> key_columns;
  std::vector<SortKey> keys;
  for (const SortKey& key : sort_keys) {
    auto found = std::find(key_columns.begin(), key_columns.end(), key.column);
    int index = static_cast<int>(found - key_columns.begin());
    if (found == key_columns.end()) key_columns.push_back(key.column);
    keys.push_back(SortKey{index, key.ascending, key.nulls_first});
  }
  std::vector<VectorPtr> key_vectors = ConcatenateColumns(pieces, key_columns, context);
  return SortPermutation(key_vectors, num_rows, keys, &context);
}

// Rows order[start, start + count) of `pieces`, gathered into one batch of `schema`.
Batch GatherPieces(const SchemaPtr& schema, const std::vector<Batch>& pieces, const std::vector<int64_t>& order,
                   int64_t start, int64_t count, ExecContext& context) {
  std::vector<PieceRow> located = LocateRows(pieces, order.data() + start, count);
  std::vector<VectorPtr> columns(schema->num_fields());
  auto gather = [&](size_t c) { columns[c] = GatherPieceRows(pieces, c, located.data(), count); };
  if (count >= 4096 && columns.size() > 1) {
    context.Pool().ParallelFor(columns.size(), gather, context.Parallelism());
  } else {
    for (size_t c = 0; c < columns.size(); ++c) gather(c);
  }
  return Batch(schema, std::move(columns), count);
}

// Sorted runs in spill files merged into one order, a batch at a time: each run contributes its
// current batch; ties go to the earlier run, so a merge of runs cut from the input in order is
// stable. The current batches' memory is reserved from `reservation` (EXEC_MEMORY_LIMIT_EXCEEDED
// when even that does not fit).
class RunMerger {
 public:
  RunMerger(SchemaPtr schema, std::vector<SortKey> keys, std::vector<std::unique_ptr<SpillFile>> runs,
            MemoryReservation& reservation)
      : schema_(std::move(schema)), keys_(std::move(keys)), runs_(std::move(runs)), reservation_(reservation) {
    cursors_.resize(runs_.size());
    for (size_t r = 0; r < runs_.size(); ++r) {
      if (Advance(r)) heap_.push(r);
    }
  }
  ~RunMerger() {
    for (Cursor& cursor : cursors_) reservation_.Shrink(cursor.bytes);
  }
  RunMerger(const RunMerger&) = delete;
  RunMerger& operator=(const RunMerger&) = delete;

  // The next `max_rows` rows (fewer at the end), or nullopt when every run is exhausted.
  std::optional<Batch> Next(int64_t max_rows, ExecContext& context) {
    if (heap_.empty()) return std::nullopt;
    std::vector<Batch> pieces;
    std::vector<PieceRow> rows;
    // The index in `pieces` of each run's current batch, or -1 while it is not there yet.
    std::vector<int64_t> piece_of(runs_.size(), -1);
    std::vector<int64_t> retired_bytes;
    while (!heap_.empty() && static_cast<int64_t>(rows.size()) < max_rows) {
      size_t run = heap_.top();
      heap_.pop();
      Cursor& cursor = cursors_[run];
      if (piece_of[run] < 0) {
        piece_of[run] = static_cast<int64_t>(pieces.size());
        pieces.push_back(cursor.batch);
      }
      rows.push_back(PieceRow{static_cast<uint32_t>(piece_of[run]), static_cast<uint32_t>(cursor.row)});
      if (++cursor.row == cursor.batch.num_rows()) {
        // The batch stays alive in `pieces` until this output is gathered.
        retired_bytes.push_back(cursor.bytes);
        cursor.bytes = 0;
        piece_of[run] = -1;
        if (!Advance(run)) continue;
      }
      heap_.push(run);
    }
    std::vector<VectorPtr> columns(schema_->num_fields());
    const int64_t count = static_cast<int64_t>(rows.size());
    auto gather = [&](size_t c) { columns[c] = GatherPieceRows(pieces, c, rows.data(), count); };
    if (count >= 4096 && columns.size() > 1) {
      context.Pool().ParallelFor(columns.size(), gather, context.Parallelism());
    } else {
      for (size_t c = 0; c < columns.size(); ++c) gather(c);
    }
    for (int64_t bytes : retired_bytes) reservation_.Shrink(bytes);
    return Batch(schema_, std::move(columns), count);
  }

 private:
  struct Cursor {
    Batch batch;
    int64_t row = 0;
    int64_t bytes = 0;  // reserved for `batch`
  };

  // Loads run `run`'s next batch; false when the run is exhausted (its file is deleted then).
  bool Advance(size_t run) {
    Cursor& cursor = cursors_[run];
    std::optional<Batch> batch = runs_[run]->ReadNext();
    if (!batch) {
      cursor = Cursor{};
      runs_[run].reset();
      return false;
    }
    int64_t bytes = MemoryBytes(*batch);
    reservation_.Grow(bytes);
    cursor.bytes = bytes;
    cursor.batch = std::move(*batch);
    cursor.row = 0;
    return true;
  }

  // Heap order: the run whose current row comes later in the order is below.
  struct Later {
    const RunMerger* merger;
    bool operator()(size_t a, size_t b) const {
      const Cursor& x = merger->cursors_[a];
      const Cursor& y = merger->cursors_[b];
      int c = CompareRows(x.batch.columns(), x.row, y.batch.columns(), y.row, merger->keys_);
      return c != 0 ? c > 0 : a > b;
    }
  };

  SchemaPtr schema_;
  std::vector<SortKey> keys_;
  std::vector<std::unique_ptr<SpillFile>> runs_;
  MemoryReservation& reservation_;
  std::vector<Cursor> cursors_;
  std::priority_queue<size_t, std::vector<size_t>, Later> heap_{Later{this}};
};

class SortOperator final : public Operator {
 public:
  SortOperator(OperatorPtr child, std::vector<SortKey> keys, std::optional<int64_t> limit,
               int64_t offset, std::shared_ptr<log::ScanBound> bound)
      : Operator(child->schema()),
        child_(std::move(child)),
        keys_(std::move(keys)),
        limit_(limit),
        offset_(offset),
        bound_(std::move(bound)) {
    SILT_CHECK(offset_ >= 0 && (!limit_ || *limit_ >= 0), "negative sort limit or offset");
    SILT_CHECK(!bound_ || (limit_ && !keys_.empty() && bound_->keeps_nulls() == keys_[0].nulls_first),
               "a scan bound needs a top-N and must keep NULLs where its first key puts them first");
    for (const SortKey& key : keys_) {
      SILT_CHECK(key.column >= 0 && static_cast<size_t>(key.column) < schema()->num_fields(),
                 "sort key column out of range");
      CheckOrderable(*schema()->field(static_cast<size_t>(key.column)).type, "sort");
    }
  }

  std::optional<Batch> Next(ExecContext& context) override {
    if (!sorted_) Materialise(context);
    if (merger_) return NextMerged(context);
    if (position_ < end_) {
      int64_t count = std::min(kTargetBatchRows, end_ - position_);
      Batch batch =
          order_.empty() ? input_.Slice(position_, count)
                         : GatherPieces(schema(), pieces_, order_, position_, count, context);
      position_ += count;
      return batch;
    }
    input_ = Batch();
    pieces_.clear();
    order_.clear();
    if (reservation_) reservation_->Clear();
    return std::nullopt;
  }

  std::string Describe() const override {
    if (!limit_) return "Sort [" + SortKeysText(*schema(), keys_) + "]";
    std::string text = "TakeOrderedAndProject(limit=" + std::to_string(*limit_);
    if (offset_ > 0) text += ", offset=" + std::to_string(offset_);
    return text + ", orderBy=[" + SortKeysText(*schema(), keys_) + "])";
  }

  std::vector<const Operator*> children() const override { return {child_.get()}; }

 private:
  void Materialise(ExecContext& context) {
    sorted_ = true;
    reservation_ = std::make_unique<MemoryReservation>(context.memory, limit_ ? "TakeOrderedAndProject" : "Sort");
    if (limit_) {
      MaterialiseTopN(context);
      return;
    }
    while (std::optional<Batch> batch = child_->Next(context)) Hold(std::move(*batch), context);
    FinishInput(context);
  }

  // Keeps `batch` with the input held in memory, first writing what is held to a sorted run
  // when the memory limit does not allow both.
  void Hold(Batch batch, ExecContext& context) {
    int64_t bytes = SortingBytes(batch);
    if (!reservation_->TryGrow(bytes)) {
      SpillRun(context);
      if (!reservation_->TryGrow(bytes)) {
        // Not even this batch alone fits: it becomes a run of its own.
        pieces_.push_back(std::move(batch));
        SpillRun(context);
        return;
      }
    }
    pieces_.push_back(std::move(batch));
  }

  // What holding `batch` until the sort costs: its buffers, and while sorting a copy of its key
  // columns and about three words per row (normalised key, permutation, row location).
  int64_t SortingBytes(const Batch& batch) const {
    constexpr int64_t kSortBytesPerRow = 24;
    int64_t bytes = MemoryBytes(batch) + batch.num_rows() * kSortBytesPerRow;
    for (const SortKey& key : keys_) bytes += MemoryBytes(*batch.column(static_cast<size_t>(key.column)));
    return bytes;
  }

  // Sorts the input held in memory into a new run on disk and lets go of it.
  void SpillRun(ExecContext& context) {
    if (pieces_.empty()) return;
    std::vector<int64_t> order = SortPieces(pieces_, keys_, context);
    auto run = std::make_unique<SpillFile>(*context.memory, schema(), context.counters.get());
    const int64_t num_rows = static_cast<int64_t>(order.size());
    if (run_batch_rows_ == 0) {
      // Runs are written in batches small enough that a merge holds a batch of many runs at
      // once: a 64th of the limit each, by the rows' average size so far.
      int64_t held_bytes = 0;
      for (const Batch& piece : pieces_) held_bytes += MemoryBytes(piece);
      int64_t row_bytes = std::max<int64_t>(1, held_bytes / std::max<int64_t>(1, num_rows));
      run_batch_rows_ = std::clamp<int64_t>(context.memory->limit() / 64 / row_bytes, 256, kTargetBatchRows);
    }
    for (int64_t start = 0; start < num_rows; start += run_batch_rows_) {
      ThrowIfCanceled(context.cancellation);
      run->Append(GatherPieces(schema(), pieces_, order, start, std::min(run_batch_rows_, num_rows - start), context));
    }
    run->FinishWriting();
    runs_.push_back(std::move(run));
    pieces_.clear();
    reservation_->Clear();
  }

  // After the last input batch: sorts in memory, or, when runs were written, merges them (the
  // input still held becomes the last run). Either way output starts at offset_ and stops
  // after limit_ rows.
  void FinishInput(ExecContext& context) {
    if (!runs_.empty()) {
      SpillRun(context);
      MergeRunsDownTo(MaxMergeWidth(context), context);
      merger_ = std::make_unique<RunMerger>(schema(), keys_, std::move(runs_), *reservation_);
      runs_.clear();
      skip_ = offset_;
      remaining_ = limit_ ? *limit_ : std::numeric_limits<int64_t>::max();
      return;
    }
    if (pieces_.empty()) return;
    int64_t num_rows = 0;
    for (const Batch& batch : pieces_) num_rows += batch.num_rows();
    order_ = SortPieces(pieces_, keys_, context);
    position_ = std::min(offset_, num_rows);
    end_ = limit_ ? position_ + std::min(num_rows - position_, *limit_) : num_rows;
  }

  // How many runs one merge reads at once: a batch of each is in memory, so as many as a
  // quarter of the limit holds (at least two).
  size_t MaxMergeWidth(const ExecContext& context) const {
    int64_t largest = 1;
    for (const auto& run : runs_) {
      int64_t batches = std::max<int64_t>(1, (run->num_rows() + run_batch_rows_ - 1) / run_batch_rows_);
      largest = std::max(largest, run->num_bytes() / batches);
    }
    return static_cast<size_t>(std::clamp<int64_t>(context.memory->limit() / 4 / largest, 2, 1024));
  }

  // Merges the oldest runs into one until at most `width` are left. The merged run takes their
  // place at the front, so runs stay in input order and ties keep favouring earlier input.
  void MergeRunsDownTo(size_t width, ExecContext& context) {
    while (runs_.size() > width) {
      std::vector<std::unique_ptr<SpillFile>> group;
      for (size_t r = 0; r < width; ++r) group.push_back(std::move(runs_[r]));
      runs_.erase(runs_.begin(), runs_.begin() + static_cast<std::ptrdiff_t>(width));
      auto merged = std::make_unique<SpillFile>(*context.memory, schema(), context.counters.get());
      {
        RunMerger merger(schema(), keys_, std::move(group), *reservation_);
        while (std::optional<Batch> batch = merger.Next(run_batch_rows_, context)) {
          ThrowIfCanceled(context.cancellation);
          merged->Append(*batch);
        }
      }
      merged->FinishWriting();
      runs_.insert(runs_.begin(), std::move(merged));
    }
  }

  std::optional<Batch> NextMerged(ExecContext& context) {
    while (remaining_ > 0) {
      ThrowIfCanceled(context.cancellation);
      // Batches of the runs' size: an output batch holds on to every run batch it takes rows
      // from until it is gathered.
      std::optional<Batch> batch = merger_->Next(run_batch_rows_, context);
      if (!batch) break;
      int64_t start = std::min(skip_, batch->num_rows());
      skip_ -= start;
      int64_t count = std::min(remaining_, batch->num_rows() - start);
      if (count == 0) continue;
      remaining_ -= count;
      return count == batch->num_rows() ? std::move(*batch) : batch->Slice(start, count);
    }
    merger_.reset();
    reservation_->Clear();
    return std::nullopt;
  }

  // Keeps only the best offset + limit rows: input accumulates until it holds twice that (and
  // at least a batch's worth), then a partial sort cuts it back, so memory stays bounded by the
  // rows kept rather than the input.
  void MaterialiseTopN(ExecContext& context) {
    int64_t keep = *limit_ > std::numeric_limits<int64_t>::max() - offset_
                       ? std::numeric_limits<int64_t>::max()
                       : *limit_ + offset_;
    if (*limit_ == 0) return;  // nothing to return: the child is never pulled
    const int64_t twice_keep = keep > std::numeric_limits<int64_t>::max() / 2 ? keep : 2 * keep;
    // With a scan bound, the rows kept are cut back as soon as they are twice the limit: each cut
    // tightens the bound.
    const int64_t compact_at = bound_ ? twice_keep : std::max(kTargetBatchRows, twice_keep);
    std::vector<Batch> pending;
    int64_t pending_rows = 0;
    auto compact = [&] {
      Batch all = ConcatenateInParallel(pending, context);
      std::vector<int64_t> best =
          SortPermutation(all.columns(), all.num_rows(), keys_, &context, keep);
      // Rows kept stay in their sorted order, so the next compaction's ties still favour them
      // (they arrived first): stability across compactions.
      pending.clear();
      pending.push_back(GatherBatch(all, best, 0, static_cast<int64_t>(best.size()), context));
      pending_rows = pending.back().num_rows();
      reservation_->Clear();
      reservation_->Grow(SortingBytes(pending.back()));
      if (bound_ && pending_rows == keep) PublishBound(pending.back());
    };
    while (std::optional<Batch> batch = child_->Next(context)) {
      if (keep <= batch->num_rows() / 4) {
        // Only the batch's own best rows can be among the best of all: keep those alone, so
        // that a wide row costs its columns' copy only when it is a candidate.
        std::vector<int64_t> best = SortPermutation(batch->columns(), batch->num_rows(), keys_, &context, keep);
        *batch = GatherBatch(*batch, best, 0, static_cast<int64_t>(best.size()), context);
      }
      const int64_t bytes = SortingBytes(*batch);
      bool fits = reservation_->TryGrow(bytes);
      if (!fits && pending_rows > keep) {
        compact();  // cut back to the rows kept, then try again
        fits = reservation_->TryGrow(bytes);
      }
      if (!fits) {
        // The rows kept do not fit in memory (a large limit): sort everything externally and
        // cut the result there instead.
        pieces_ = std::move(pending);
        Hold(std::move(*batch), context);
        while (std::optional<Batch> more = child_->Next(context)) Hold(std::move(*more), context);
        FinishInput(context);
        return;
      }
      pending_rows += batch->num_rows();
      pending.push_back(std::move(*batch));
      if (pending_rows >= compact_at) compact();
    }
    if (pending.empty()) return;
    compact();
    input_ = std::move(pending.back());  // already in order: Next() slices it
    position_ = std::min(offset_, input_.num_rows());
    end_ = input_.num_rows();
  }

  // Sets the scan bound to the first key of the last row of `kept` (the rows kept, in order,
  // as many as the top-N keeps): no row beyond it can be kept any more. A NULL there bounds
  // nothing (NULLs sort last, or every row kept is NULL).
  void PublishBound(const Batch& kept) {
    const Vector& key = *kept.column(static_cast<size_t>(keys_[0].column));
    const int64_t last = kept.num_rows() - 1;
    if (last < 0 || key.IsNull(last)) return;
    bound_->Set(log::FormatPartitionValue(key, last));
  }

  OperatorPtr child_;
  std::vector<SortKey> keys_;
  std::optional<int64_t> limit_;
  int64_t offset_;
  std::shared_ptr<log::ScanBound> bound_;  // set as the rows kept tighten (top-N only)
  bool sorted_ = false;
  Batch input_;                 // top-N: the rows kept, already in order
  std::vector<Batch> pieces_;   // full sort: the input as it arrived
  std::vector<int64_t> order_;  // full sort: row numbers across pieces_, in order
  int64_t position_ = 0;
  int64_t end_ = 0;
  std::unique_ptr<MemoryReservation> reservation_;  // what the held input takes
  std::vector<std::unique_ptr<SpillFile>> runs_;    // sorted runs on disk, in input order
  int64_t run_batch_rows_ = 0;                      // rows per batch written to runs
  std::unique_ptr<RunMerger> merger_;               // output when runs were written
  int64_t skip_ = 0;                                // merged output: rows still to skip
  int64_t remaining_ = 0;                           // merged output: rows still to return
};

}  // namespace

OperatorPtr MakeSort(OperatorPtr child, std::vector<SortKey> keys, std::optional<int64_t> limit,
                     int64_t offset, std::shared_ptr<log::ScanBound> bound) {
  return std::make_unique<SortOperator>(std::move(child), std::move(keys), limit, offset,
                                        std::move(bound));
}

}  // namespace silt::exec
