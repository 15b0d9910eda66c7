#include <vector>

#include "silt/base/check.h"
#include "silt/exec/hash_operators.h"
#include "silt/exec/hash_table.h"
#include "silt/exec/row_hash.h"

namespace silt::exec {

namespace {

// INTERSECT / EXCEPT [ALL]: the right input is counted per distinct row, then the left input
// streams through. Rows compare as GROUP BY keys do (NULL equals NULL). For ALL (bag semantics)
// every left row consumes one matching right row: INTERSECT ALL keeps a row min(l, r) times and
// EXCEPT ALL max(l - r, 0) times.
class SetOperationOperator final : public Operator {
 public:
  SetOperationOperator(OperatorPtr left, OperatorPtr right, SetOperation operation, bool all)
      : Operator(left->schema()), left_(std::move(left)), right_(std::move(right)), operation_(operation), all_(all) {
    SILT_CHECK(left_->schema()->num_fields() == right_->schema()->num_fields(),
               "set operation inputs need the same number of columns");
    for (size_t c = 0; c < left_->schema()->num_fields(); ++c) {
      SILT_CHECK(left_->schema()->field(c).type->Equals(*right_->schema()->field(c).type),
                 "set operation inputs need the same column types");
    }
  }

  std::optional<Batch> Next(ExecContext& context) override {
    if (!built_) {
      BuildRight(context);
      built_ = true;
    }
    while (std::optional<Batch> batch = left_->Next(context)) {
      const int64_t num_rows = batch->num_rows();
      EncodeKeys(batch->columns(), num_rows, encoded_);
      std::vector<int64_t> rows;
      for (int64_t i = 0; i < num_rows; ++i) {
        if (Keep(encoded_.key(i), encoded_.hashes[i])) rows.push_back(i);
      }
      if (rows.empty()) continue;
      if (static_cast<int64_t>(rows.size()) == num_rows) return Batch(schema(), batch->columns(), num_rows);
      std::vector<VectorPtr> columns;
      for (const VectorPtr& column : batch->columns()) {
        columns.push_back(TakeRows(*column, rows.data(), static_cast<int64_t>(rows.size())));
      }
      return Batch(schema(), std::move(columns), static_cast<int64_t>(rows.size()));
    }
    return std::nullopt;
  }

  std::string Describe() const override {
    return std::string(operation_ == SetOperation::kIntersect ? "Intersect" : "Except") + (all_ ? " All" : "");
  }
  std::vector<const Operator*> children() const override { return {left_.get(), right_.get()}; }

 private:
  void BuildRight(ExecContext& context) {
    std::vector<uint32_t> groups;
    while (std::optional<Batch> batch = right_->Next(context)) {
      const int64_t num_rows = batch->num_rows();
      EncodeKeys(batch->columns(), num_rows, encoded_);
      groups.resize(static_cast<size_t>(num_rows));
      right_rows_.FindOrInsert(encoded_, groups.data(), nullptr);
      remaining_.resize(right_rows_.num_groups(), 0);
      for (uint32_t g : groups) ++remaining_[g];
    }
  }

  bool Keep(std::string_view key, uint64_t hash) {
    int64_t group = right_rows_.Find(key, hash);
    const bool in_right = group >= 0 && remaining_[group] > 0;
    if (all_) {
      if (in_right) --remaining_[group];
      return operation_ == SetOperation::kIntersect ? in_right : !in_right;
    }
    if (operation_ == SetOperation::kIntersect) {
      if (!in_right) return false;
      remaining_[group] = 0;  // emitted once
      return true;
    }
    if (group >= 0) return false;
    bool inserted = false;
    emitted_.FindOrInsert(key, hash, &inserted);
    return inserted;
  }

  OperatorPtr left_;
  OperatorPtr right_;
  SetOperation operation_;
  bool all_;
  bool built_ = false;
  KeyTable right_rows_;
  std::vector<int64_t> remaining_;  // per distinct right row: matches left to consume
  KeyTable emitted_;                // EXCEPT: left rows already returned
  EncodedKeys encoded_;
};

}  // namespace

OperatorPtr MakeSetOperation(OperatorPtr left, OperatorPtr right, SetOperation operation, bool all) {
  SILT_CHECK(left != nullptr && right != nullptr, "set operation without inputs");
  return std::make_unique<SetOperationOperator>(std::move(left), std::move(right), operation, all);
}

}  // namespace silt::exec
