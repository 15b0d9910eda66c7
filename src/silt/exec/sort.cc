#include <algorithm>
#include <limits>
#include <string>
#include <utility>

#include "silt/base/check.h"
#include "silt/base/thread_pool.h"
#include "silt/exec/row_compare.h"
#include "silt/exec/sort_permutation.h"
#include "silt/exec/sort_window.h"

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

class SortOperator final : public Operator {
 public:
  SortOperator(OperatorPtr child, std::vector<SortKey> keys, std::optional<int64_t> limit,
               int64_t offset)
      : Operator(child->schema()),
        child_(std::move(child)),
        keys_(std::move(keys)),
        limit_(limit),
        offset_(offset) {
    SILT_CHECK(offset_ >= 0 && (!limit_ || *limit_ >= 0), "negative sort limit or offset");
    for (const SortKey& key : keys_) {
      SILT_CHECK(key.column >= 0 && static_cast<size_t>(key.column) < schema()->num_fields(),
                 "sort key column out of range");
      CheckOrderable(*schema()->field(static_cast<size_t>(key.column)).type, "sort");
    }
  }

  std::optional<Batch> Next(ExecContext& context) override {
    if (!sorted_) Materialise(context);
    if (position_ < end_) {
      int64_t count = std::min(kTargetBatchRows, end_ - position_);
      Batch batch =
          order_.empty() ? input_.Slice(position_, count) : GatherPieces(position_, count, context);
      position_ += count;
      return batch;
    }
    input_ = Batch();
    pieces_.clear();
    order_.clear();
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
    if (limit_) {
      MaterialiseTopN(context);
      return;
    }
    // Only the key columns are concatenated; output batches are gathered from the input batches.
    pieces_ = Collect(*child_, context);
    if (pieces_.empty()) return;
    int64_t num_rows = 0;
    for (const Batch& batch : pieces_) num_rows += batch.num_rows();
    std::vector<int> key_columns;
    std::vector<SortKey> keys;
    for (const SortKey& key : keys_) {
      auto found = std::find(key_columns.begin(), key_columns.end(), key.column);
      int index = static_cast<int>(found - key_columns.begin());
      if (found == key_columns.end()) key_columns.push_back(key.column);
      keys.push_back(SortKey{index, key.ascending, key.nulls_first});
    }
    std::vector<VectorPtr> key_vectors = ConcatenateColumns(pieces_, key_columns, context);
    order_ = SortPermutation(key_vectors, num_rows, keys, &context);
    position_ = std::min(offset_, num_rows);
    end_ = num_rows;
  }

  Batch GatherPieces(int64_t start, int64_t count, ExecContext& context) const {
    std::vector<PieceRow> located = LocateRows(pieces_, order_.data() + start, count);
    std::vector<VectorPtr> columns(schema()->num_fields());
    auto gather = [&](size_t c) {
      columns[c] = GatherPieceRows(pieces_, c, located.data(), count);
    };
    if (count >= 4096 && columns.size() > 1) {
      context.Pool().ParallelFor(columns.size(), gather, context.Parallelism());
    } else {
      for (size_t c = 0; c < columns.size(); ++c) gather(c);
    }
    return Batch(schema(), std::move(columns), count);
  }

  // Keeps only the best offset + limit rows: input accumulates until it holds twice that (and
  // at least a batch's worth), then a partial sort cuts it back, so memory stays bounded by the
  // rows kept rather than the input.
  void MaterialiseTopN(ExecContext& context) {
    int64_t keep = *limit_ > std::numeric_limits<int64_t>::max() - offset_
                       ? std::numeric_limits<int64_t>::max()
                       : *limit_ + offset_;
    if (*limit_ == 0) return;  // nothing to return: the child is never pulled
    int64_t compact_at = std::max(kTargetBatchRows,
                                  keep > std::numeric_limits<int64_t>::max() / 2 ? keep : 2 * keep);
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
    };
    while (std::optional<Batch> batch = child_->Next(context)) {
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

  OperatorPtr child_;
  std::vector<SortKey> keys_;
  std::optional<int64_t> limit_;
  int64_t offset_;
  bool sorted_ = false;
  Batch input_;                 // top-N: the rows kept, already in order
  std::vector<Batch> pieces_;   // full sort: the input as it arrived
  std::vector<int64_t> order_;  // full sort: row numbers across pieces_, in order
  int64_t position_ = 0;
  int64_t end_ = 0;
};

}  // namespace

OperatorPtr MakeSort(OperatorPtr child, std::vector<SortKey> keys, std::optional<int64_t> limit,
                     int64_t offset) {
  return std::make_unique<SortOperator>(std::move(child), std::move(keys), limit, offset);
}

}  // namespace silt::exec
