#include <algorithm>
#include <array>
#include <memory>
#include <vector>

#include "silt/base/check.h"
#include "silt/exec/hash_operators.h"
#include "silt/exec/hash_table.h"
#include "silt/exec/memory.h"
#include "silt/exec/row_hash.h"
#include "silt/exec/spill_file.h"
#include "silt/vector/take.h"

namespace silt::exec {

namespace {

constexpr int kSpillPartitionBits = 4;
constexpr size_t kSpillPartitions = size_t{1} << kSpillPartitionBits;
constexpr int kMaxSpillDepth = 6;

// INTERSECT / EXCEPT [ALL]: the right input is counted per distinct row, then the left input
// streams through. Rows compare as GROUP BY keys do (NULL equals NULL). For ALL (bag semantics)
// every left row consumes one matching right row: INTERSECT ALL keeps a row min(l, r) times and
// EXCEPT ALL max(l - r, 0) times.
//
// The tables count against the memory limit. When the right side's rows no longer fit, rows of
// rows already held still count there and the others go to partition files by hash bits; left
// rows held on the right are settled at once and the others go to the same partitions, each
// pair of files then processed on its own one level deeper. Every copy of a row thus meets all
// copies of it on the right at one level. EXCEPT's table of rows returned spills the same way:
// once it is full, left rows it holds are dropped and the others are left to the partitions.
class SetOperationOperator final : public Operator {
 public:
  SetOperationOperator(OperatorPtr left, OperatorPtr right, SetOperation operation, bool all,
                       int depth)
      : Operator(left->schema()),
        left_(std::move(left)),
        right_(std::move(right)),
        operation_(operation),
        all_(all),
        depth_(depth) {
    SILT_CHECK(left_->schema()->num_fields() == right_->schema()->num_fields(),
               "set operation inputs need the same number of columns");
    for (size_t c = 0; c < left_->schema()->num_fields(); ++c) {
      SILT_CHECK(left_->schema()->field(c).type->Equals(*right_->schema()->field(c).type),
                 "set operation inputs need the same column types");
    }
  }

  std::optional<Batch> Next(ExecContext& context) override {
    if (!reservation_)
      reservation_ = std::make_unique<MemoryReservation>(context.memory, Describe());
    if (!built_) {
      BuildRight(context);
      built_ = true;
    }
    while (!left_done_) {
      std::optional<Batch> batch = left_->Next(context);
      if (!batch) {
        left_done_ = true;
        break;
      }
      const int64_t num_rows = batch->num_rows();
      EncodeKeys(batch->columns(), num_rows, encoded_);
      const bool remembers = operation_ == SetOperation::kExcept && !all_ && !left_spilling_;
      if (remembers &&
          !Reserve(emitted_.MaxGrowthBytes(static_cast<size_t>(num_rows), encoded_.bytes.size()),
                   context)) {
        left_spilling_ = true;
      }
      std::vector<int64_t> rows;
      std::array<std::vector<int64_t>, kSpillPartitions> spilled;
      for (int64_t i = 0; i < num_rows; ++i) {
        switch (Decide(encoded_.key(i), encoded_.hashes[i])) {
          case Decision::kKeep:
            rows.push_back(i);
            break;
          case Decision::kDrop:
            break;
          case Decision::kLater:
            spilled[PartitionOf(encoded_.hashes[i])].push_back(i);
            break;
        }
      }
      for (size_t p = 0; p < kSpillPartitions; ++p) {
        if (!spilled[p].empty())
          Append(left_partitions_, p, *left_, TakeBatchRows(*batch, spilled[p]), context);
      }
      if (remembers && !left_spilling_ && !Settle(context)) left_spilling_ = true;
      if (rows.empty()) continue;
      if (static_cast<int64_t>(rows.size()) == num_rows) return Batch(schema(), batch->columns(), num_rows);
      return Batch(schema(), TakeBatchRows(*batch, rows).columns(),
                   static_cast<int64_t>(rows.size()));
    }
    if (!released_) {
      // The partitions hold no row the tables settled: they are no longer needed.
      right_rows_ = KeyTable();
      emitted_ = KeyTable();
      remaining_ = {};
      reservation_->Clear();
      released_ = true;
    }
    while (true) {
      if (partition_) {
        if (std::optional<Batch> batch = partition_->Next(context)) return batch;
        partition_.reset();
      }
      while (next_partition_ < kSpillPartitions && !left_partitions_[next_partition_])
        ++next_partition_;
      if (next_partition_ == kSpillPartitions) return std::nullopt;
      const size_t p = next_partition_++;
      if (!right_partitions_[p]) {
        right_partitions_[p] =
            std::make_unique<SpillFile>(*context.memory, right_->schema(), context.counters.get());
      }
      partition_ = std::make_unique<SetOperationOperator>(
          MakeSpillFileSource(std::move(left_partitions_[p])),
          MakeSpillFileSource(std::move(right_partitions_[p])), operation_, all_, depth_ + 1);
    }
  }

  std::string Describe() const override {
    return std::string(operation_ == SetOperation::kIntersect ? "Intersect" : "Except") + (all_ ? " All" : "");
  }
  std::vector<const Operator*> children() const override { return {left_.get(), right_.get()}; }

 private:
  enum class Decision { kKeep, kDrop, kLater };

  // The memory the tables hold.
  int64_t HeldBytes() const {
    return right_rows_.MemoryBytes() + emitted_.MemoryBytes() +
           static_cast<int64_t>(remaining_.capacity() * sizeof(int64_t));
  }

  // How far the counts may grow while `num_keys` keys go in: a vector that must grow allocates
  // its doubled buffer beside the old one.
  int64_t CountsGrowthBytes(size_t num_keys) const {
    const size_t needed = remaining_.size() + num_keys;
    if (needed <= remaining_.capacity()) return 0;
    size_t grown = std::max<size_t>(remaining_.capacity(), 1);
    while (grown < needed) grown *= 2;
    return static_cast<int64_t>(grown * sizeof(int64_t));
  }

  // Reserves `growth` bytes more before the tables grow; false when refused. Refused at the
  // deepest level, where partitioning again could not help, it fails with the limit's class.
  bool Reserve(int64_t growth, ExecContext& context) {
    if (growth <= 0 || reservation_->TryGrow(growth)) return true;
    if (depth_ >= kMaxSpillDepth) ThrowMemoryLimitExceeded(*context.memory, Describe());
    return false;
  }

  // Counts what the tables hold after they grew; false when more than reserved was refused.
  bool Settle(ExecContext& context) {
    const int64_t held = HeldBytes();
    if (held < reservation_->used()) {
      reservation_->Shrink(reservation_->used() - held);
      return true;
    }
    return Reserve(held - reservation_->used(), context);
  }

  size_t PartitionOf(uint64_t hash) const {
    const int shift = 64 - kSpillPartitionBits * (depth_ + 1);
    return (hash >> shift) & (kSpillPartitions - 1);
  }

  void Append(std::array<std::unique_ptr<SpillFile>, kSpillPartitions>& files, size_t p,
              const Operator& input, const Batch& rows, ExecContext& context) {
    if (!files[p])
      files[p] =
          std::make_unique<SpillFile>(*context.memory, input.schema(), context.counters.get());
    files[p]->Append(rows);
  }

  void BuildRight(ExecContext& context) {
    std::vector<uint32_t> groups;
    std::vector<int64_t> found;
    while (std::optional<Batch> batch = right_->Next(context)) {
      const int64_t num_rows = batch->num_rows();
      EncodeKeys(batch->columns(), num_rows, encoded_);
      if (!right_spilled_) {
        // A table that doubles holds both sizes while it copies, and so may the counts.
        const int64_t growth =
            right_rows_.MaxGrowthBytes(static_cast<size_t>(num_rows), encoded_.bytes.size()) +
            CountsGrowthBytes(static_cast<size_t>(num_rows));
        right_spilled_ = !Reserve(growth, context);
      }
      if (right_spilled_) {
        // Rows held still count; the others wait in the partitions.
        found.resize(static_cast<size_t>(num_rows));
        right_rows_.FindAll(encoded_, nullptr, found.data());
        std::array<std::vector<int64_t>, kSpillPartitions> spilled;
        for (int64_t i = 0; i < num_rows; ++i) {
          if (found[static_cast<size_t>(i)] >= 0) {
            ++remaining_[static_cast<size_t>(found[static_cast<size_t>(i)])];
          } else {
            spilled[PartitionOf(encoded_.hashes[static_cast<size_t>(i)])].push_back(i);
          }
        }
        for (size_t p = 0; p < kSpillPartitions; ++p) {
          if (!spilled[p].empty())
            Append(right_partitions_, p, *right_, TakeBatchRows(*batch, spilled[p]), context);
        }
        continue;
      }
      groups.resize(static_cast<size_t>(num_rows));
      right_rows_.FindOrInsert(encoded_, groups.data(), nullptr);
      remaining_.resize(right_rows_.num_groups(), 0);
      for (uint32_t g : groups) ++remaining_[g];
      right_spilled_ = !Settle(context);
    }
  }

  // What becomes of a left row: returned now, dropped, or left to its partition (its key is
  // neither held on the right nor, for EXCEPT, among the rows returned, and may be on the right
  // in a partition or be returned by the partition's own pass).
  Decision Decide(std::string_view key, uint64_t hash) {
    int64_t group = right_rows_.Find(key, hash);
    if (group < 0) {
      if (operation_ == SetOperation::kIntersect)
        return right_spilled_ ? Decision::kLater : Decision::kDrop;
      if (all_) return right_spilled_ ? Decision::kLater : Decision::kKeep;
      if (emitted_.Find(key, hash) >= 0) return Decision::kDrop;
      if (right_spilled_ || left_spilling_) return Decision::kLater;
      bool inserted = false;
      emitted_.FindOrInsert(key, hash, &inserted);
      return Decision::kKeep;
    }
    const bool in_right = remaining_[group] > 0;
    if (all_) {
      if (in_right) --remaining_[group];
      return (operation_ == SetOperation::kIntersect) == in_right ? Decision::kKeep
                                                                  : Decision::kDrop;
    }
    if (operation_ == SetOperation::kIntersect && in_right) {
      remaining_[group] = 0;  // returned once
      return Decision::kKeep;
    }
    return Decision::kDrop;
  }

  OperatorPtr left_;
  OperatorPtr right_;
  SetOperation operation_;
  bool all_;
  int depth_;  // 0, or how many times the rows were partitioned to spill files
  bool built_ = false;
  bool left_done_ = false;
  bool right_spilled_ = false;
  bool left_spilling_ = false;
  bool released_ = false;
  KeyTable right_rows_;
  std::vector<int64_t> remaining_;  // per distinct right row: matches left to consume
  KeyTable emitted_;                // EXCEPT: left rows already returned
  EncodedKeys encoded_;
  std::unique_ptr<MemoryReservation> reservation_;
  std::array<std::unique_ptr<SpillFile>, kSpillPartitions> left_partitions_;
  std::array<std::unique_ptr<SpillFile>, kSpillPartitions> right_partitions_;
  size_t next_partition_ = 0;
  std::unique_ptr<Operator> partition_;  // the pair of partitions being processed
};

}  // namespace

OperatorPtr MakeSetOperation(OperatorPtr left, OperatorPtr right, SetOperation operation, bool all) {
  SILT_CHECK(left != nullptr && right != nullptr, "set operation without inputs");
  return std::make_unique<SetOperationOperator>(std::move(left), std::move(right), operation, all,
                                                0);
}

}  // namespace silt::exec
