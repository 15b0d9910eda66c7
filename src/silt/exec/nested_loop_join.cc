#include <deque>
#include <optional>

#include "silt/base/check.h"
#include "silt/exec/filter_internal.h"
#include "silt/exec/memory.h"
#include "silt/exec/operators.h"
#include "silt/expr/evaluator.h"

namespace silt::exec {

namespace {

bool KeepsLeftOnly(JoinType type) {
  return type == JoinType::kLeftSemi || type == JoinType::kLeftAnti;
}

class NestedLoopJoinOperator final : public Operator {
 public:
  NestedLoopJoinOperator(OperatorPtr left, OperatorPtr right, JoinType type,
                         expr::ExpressionPtr condition, SchemaPtr schema, SchemaPtr pair_schema)
      : Operator(std::move(schema)),
        left_(std::move(left)),
        right_(std::move(right)),
        type_(type),
        condition_(std::move(condition)),
        pair_schema_(std::move(pair_schema)) {}

  std::optional<Batch> Next(ExecContext& context) override {
    if (!right_loaded_) LoadRight(context);
    while (output_.empty()) {
      if (finished_) return std::nullopt;
      if (!left_batch_) {
        left_batch_ = left_->Next(context);
        if (!left_batch_) {
          EmitUnmatchedRight();
          finished_ = true;
          continue;
        }
        left_row_ = 0;
        right_row_ = 0;
        left_matched_.assign(static_cast<size_t>(left_batch_->num_rows()), 0);
      }
      if (left_row_ < left_batch_->num_rows() && right_rows_ > 0) {
        JoinBlock(context);
      } else {
        EmitLeftOnly();
        left_batch_.reset();
      }
    }
    Batch batch = std::move(output_.front());
    output_.pop_front();
    return batch;
  }

  std::string Describe() const override {
    std::string text = "BroadcastNestedLoopJoin " + JoinTypeName(type_);
    if (condition_) text += " " + ExpressionText(*condition_, *pair_schema_);
    return text;
  }
  std::vector<const Operator*> children() const override { return {left_.get(), right_.get()}; }

 private:
  // The right side is held whole, counted against the query's memory limit (a side that does
  // not fit fails with EXEC_MEMORY_LIMIT_EXCEEDED: the planner puts the smaller side there).
  void LoadRight(ExecContext& context) {
    right_loaded_ = true;
    memory_.emplace(context.memory, "BroadcastNestedLoopJoin");
    std::vector<Batch> batches;
    while (std::optional<Batch> batch = right_->Next(context)) {
      memory_->Grow(MemoryBytes(*batch));
      batches.push_back(std::move(*batch));
      ThrowIfCanceled(context.cancellation);
    }
    if (!batches.empty()) right_batch_ = ConcatenateBatches(batches);
    right_rows_ = batches.empty() ? 0 : right_batch_.num_rows();
    right_matched_.assign(static_cast<size_t>(right_rows_), 0);
  }

  // Evaluates the condition for the next block of about kTargetBatchRows pairs: several left
  // rows against the whole right side, or one left row against a slice of a large right side.
  void JoinBlock(ExecContext& context) {
    std::vector<int64_t> left_rows;
    std::vector<int64_t> right_rows;
    int64_t left_count = left_batch_->num_rows();
    if (right_rows_ <= kTargetBatchRows) {
      int64_t block = std::max<int64_t>(1, kTargetBatchRows / right_rows_);
      int64_t end = std::min(left_count, left_row_ + block);
      for (int64_t l = left_row_; l < end; ++l) {
        for (int64_t r = 0; r < right_rows_; ++r) {
          left_rows.push_back(l);
          right_rows.push_back(r);
        }
      }
      left_row_ = end;
    } else {
      int64_t end = std::min(right_rows_, right_row_ + kTargetBatchRows);
      for (int64_t r = right_row_; r < end; ++r) {
        left_rows.push_back(left_row_);
        right_rows.push_back(r);
      }
      right_row_ = end;
      if (right_row_ == right_rows_) {
        right_row_ = 0;
        ++left_row_;
      }
    }
    std::vector<VectorPtr> columns;
    for (const VectorPtr& column : left_batch_->columns()) {
      columns.push_back(TakeRows(*column, left_rows));
    }
    for (const VectorPtr& column : right_batch_.columns()) {
      columns.push_back(TakeRows(*column, right_rows));
    }
    Batch pairs(pair_schema_, std::move(columns), static_cast<int64_t>(left_rows.size()));
    std::vector<uint8_t> keep;
    if (condition_) {
      keep = expr::EvaluateFilter(*condition_, pairs, context.eval);
    } else {
      keep.assign(left_rows.size(), 1);
    }
    for (size_t i = 0; i < keep.size(); ++i) {
      if (!keep[i]) continue;
      left_matched_[static_cast<size_t>(left_rows[i])] = 1;
      right_matched_[static_cast<size_t>(right_rows[i])] = 1;
    }
    if (KeepsLeftOnly(type_)) return;
    Batch matched = SelectRows(pairs, keep);
    if (matched.num_rows() > 0) {
      output_.push_back(Batch(schema(), matched.columns(), matched.num_rows()));
    }
  }

  // After a left batch: its unmatched rows padded with NULLs (left/full outer), or the rows a
  // semi / anti join keeps.
  void EmitLeftOnly() {
    bool want_matched = type_ == JoinType::kLeftSemi;
    bool emits = type_ == JoinType::kLeftOuter || type_ == JoinType::kFullOuter ||
                 KeepsLeftOnly(type_);
    if (!emits) return;
    std::vector<int64_t> rows;
    for (size_t i = 0; i < left_matched_.size(); ++i) {
      if ((left_matched_[i] != 0) == want_matched) rows.push_back(static_cast<int64_t>(i));
    }
    if (rows.empty()) return;
    std::vector<VectorPtr> columns;
    for (const VectorPtr& column : left_batch_->columns()) columns.push_back(TakeRows(*column, rows));
    if (!KeepsLeftOnly(type_)) {
      const Schema& right_schema = *right_->schema();
      for (const Field& field : right_schema.fields()) {
        columns.push_back(Vector::MakeAllNull(field.type, static_cast<int64_t>(rows.size())));
      }
    }
    output_.push_back(Batch(schema(), std::move(columns), static_cast<int64_t>(rows.size())));
  }

  // After the left side: unmatched right rows padded with NULLs (right/full outer).
  void EmitUnmatchedRight() {
    if (type_ != JoinType::kRightOuter && type_ != JoinType::kFullOuter) return;
    std::vector<int64_t> rows;
    auto flush = [&] {
      if (rows.empty()) return;
      std::vector<VectorPtr> columns;
      for (const Field& field : left_->schema()->fields()) {
        columns.push_back(Vector::MakeAllNull(field.type, static_cast<int64_t>(rows.size())));
      }
      for (const VectorPtr& column : right_batch_.columns()) {
        columns.push_back(TakeRows(*column, rows));
      }
      output_.push_back(Batch(schema(), std::move(columns), static_cast<int64_t>(rows.size())));
      rows.clear();
    };
    for (int64_t r = 0; r < right_rows_; ++r) {
      if (right_matched_[static_cast<size_t>(r)]) continue;
      rows.push_back(r);
      if (static_cast<int64_t>(rows.size()) == kTargetBatchRows) flush();
    }
    flush();
  }

  OperatorPtr left_;
  OperatorPtr right_;
  JoinType type_;
  expr::ExpressionPtr condition_;
  SchemaPtr pair_schema_;  // left columns then right columns, as the condition sees them

  bool right_loaded_ = false;
  std::optional<MemoryReservation> memory_;  // counts right_batch_
  Batch right_batch_;
  int64_t right_rows_ = 0;
  std::vector<uint8_t> right_matched_;

  std::optional<Batch> left_batch_;
  int64_t left_row_ = 0;
  int64_t right_row_ = 0;
  std::vector<uint8_t> left_matched_;
  std::deque<Batch> output_;
  bool finished_ = false;
};

}  // namespace

SchemaPtr JoinOutputSchema(const Schema& left, const Schema& right, JoinType type) {
  std::vector<Field> fields;
  bool left_nullable = type == JoinType::kRightOuter || type == JoinType::kFullOuter;
  bool right_nullable = type == JoinType::kLeftOuter || type == JoinType::kFullOuter;
  for (Field field : left.fields()) {
    field.nullable = field.nullable || left_nullable;
    fields.push_back(std::move(field));
  }
  if (!KeepsLeftOnly(type)) {
    for (Field field : right.fields()) {
      field.nullable = field.nullable || right_nullable;
      fields.push_back(std::move(field));
    }
  }
  return std::make_shared<const Schema>(std::move(fields));
}

OperatorPtr MakeNestedLoopJoin(OperatorPtr left, OperatorPtr right, JoinType type,
                               expr::ExpressionPtr condition) {
  SILT_CHECK(left != nullptr && right != nullptr, "join needs two children");
  if (condition) {
    SILT_CHECK(condition->type()->id() == TypeId::kBoolean, "join condition must be boolean");
  }
  SchemaPtr schema = JoinOutputSchema(*left->schema(), *right->schema(), type);
  std::vector<Field> pair_fields = left->schema()->fields();
  for (const Field& field : right->schema()->fields()) pair_fields.push_back(field);
  auto pair_schema = std::make_shared<const Schema>(std::move(pair_fields));
  return std::make_unique<NestedLoopJoinOperator>(std::move(left), std::move(right), type,
                                                  std::move(condition), std::move(schema),
                                                  std::move(pair_schema));
}

}  // namespace silt::exec
