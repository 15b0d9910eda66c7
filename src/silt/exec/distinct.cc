#include <array>
#include <vector>

#include "silt/base/check.h"
#include "silt/exec/hash_operators.h"
#include "silt/exec/hash_table.h"
#include "silt/exec/row_hash.h"
#include "silt/exec/spill_file.h"
#include "silt/vector/take.h"

namespace silt::exec {

namespace {

// Spilling as hash aggregation does (hash_aggregate.cc): once the distinct rows seen no longer
// fit, rows already seen are dropped, unseen ones go to partition files by hash bits, and each
// file is made distinct on its own afterwards, one level deeper.
constexpr int kSpillPartitionBits = 4;
constexpr size_t kSpillPartitions = size_t{1} << kSpillPartitionBits;
constexpr int kMaxSpillDepth = 6;

// Streams the first occurrence of every distinct row, as soon as its batch arrives.
class DistinctOperator final : public Operator {
 public:
  DistinctOperator(OperatorPtr child, int depth)
      : Operator(child->schema()), child_(std::move(child)), depth_(depth) {}

  std::optional<Batch> Next(ExecContext& context) override {
    if (!reservation_) reservation_ = std::make_unique<MemoryReservation>(context.memory, "Distinct");
    while (!input_done_) {
      std::optional<Batch> batch = child_->Next(context);
      if (!batch) {
        input_done_ = true;
        break;
      }
      const int64_t num_rows = batch->num_rows();
      EncodeKeys(batch->columns(), num_rows, encoded_);
      if (spilling_) {
        Spill(*batch, context);
        continue;
      }
      // The table's growth is reserved before the rows go in (a table that doubles holds both
      // sizes while it copies): when refused, this batch and the rest go to the partitions.
      const int64_t growth =
          table_.MaxGrowthBytes(static_cast<size_t>(num_rows), encoded_.bytes.size());
      if (growth > 0 && !reservation_->TryGrow(growth)) {
        if (depth_ >= kMaxSpillDepth) ThrowMemoryLimitExceeded(*context.memory, "Distinct");
        spilling_ = true;
        Spill(*batch, context);
        continue;
      }
      groups_.resize(static_cast<size_t>(num_rows));
      new_rows_.clear();
      table_.FindOrInsert(encoded_, groups_.data(), &new_rows_);
      const int64_t held = table_.MemoryBytes();
      if (held < reservation_->used()) {
        reservation_->Shrink(reservation_->used() - held);
      } else if (held > reservation_->used() &&
                 !reservation_->TryGrow(held - reservation_->used())) {
        if (depth_ >= kMaxSpillDepth) ThrowMemoryLimitExceeded(*context.memory, "Distinct");
        spilling_ = true;
      }
      if (new_rows_.empty()) continue;
      if (static_cast<int64_t>(new_rows_.size()) == num_rows) return Batch(schema(), batch->columns(), num_rows);
      std::vector<VectorPtr> columns;
      for (const VectorPtr& column : batch->columns()) {
        columns.push_back(TakeRows(*column, new_rows_.data(), static_cast<int64_t>(new_rows_.size())));
      }
      return Batch(schema(), std::move(columns), static_cast<int64_t>(new_rows_.size()));
    }
    if (spilling_) {
      // The rows seen are no longer needed: the partitions hold none of them.
      table_ = KeyTable();
      reservation_->Clear();
      spilling_ = false;
    }
    while (true) {
      if (partition_) {
        if (std::optional<Batch> batch = partition_->Next(context)) return batch;
        partition_.reset();
      }
      while (next_partition_ < kSpillPartitions && !partitions_[next_partition_]) ++next_partition_;
      if (next_partition_ == kSpillPartitions) return std::nullopt;
      partition_ = std::make_unique<DistinctOperator>(MakeSpillFileSource(std::move(partitions_[next_partition_++])),
                                                      depth_ + 1);
    }
  }

  std::string Describe() const override { return "Distinct"; }
  std::vector<const Operator*> children() const override { return {child_.get()}; }

 private:
  // Drops the rows of `batch` already returned and writes the others to the partitions.
  void Spill(const Batch& batch, ExecContext& context) {
    const int64_t num_rows = batch.num_rows();
    std::vector<int64_t> found(static_cast<size_t>(num_rows));
    table_.FindAll(encoded_, nullptr, found.data());
    std::array<std::vector<int64_t>, kSpillPartitions> spilled;
    const int shift = 64 - kSpillPartitionBits * (depth_ + 1);
    for (int64_t r = 0; r < num_rows; ++r) {
      if (found[static_cast<size_t>(r)] >= 0) continue;
      spilled[(encoded_.hashes[static_cast<size_t>(r)] >> shift) & (kSpillPartitions - 1)].push_back(r);
    }
    for (size_t p = 0; p < kSpillPartitions; ++p) {
      if (spilled[p].empty()) continue;
      if (!partitions_[p]) {
        partitions_[p] = std::make_unique<SpillFile>(*context.memory, schema(), context.counters.get());
      }
      partitions_[p]->Append(TakeBatchRows(batch, spilled[p]));
    }
  }

  OperatorPtr child_;
  int depth_;  // 0, or how many times the rows were partitioned to spill files
  KeyTable table_;
  EncodedKeys encoded_;
  std::vector<uint32_t> groups_;
  std::vector<int64_t> new_rows_;
  std::unique_ptr<MemoryReservation> reservation_;
  bool input_done_ = false;
  bool spilling_ = false;
  std::array<std::unique_ptr<SpillFile>, kSpillPartitions> partitions_;
  size_t next_partition_ = 0;
  std::unique_ptr<Operator> partition_;  // makes the partition being returned distinct
};

}  // namespace

OperatorPtr MakeDistinct(OperatorPtr child) {
  SILT_CHECK(child != nullptr, "distinct without input");
  return std::make_unique<DistinctOperator>(std::move(child), 0);
}

}  // namespace silt::exec
