#include <deque>
#include <mutex>

#include "silt/base/check.h"
#include "silt/exec/filter_internal.h"
#include "silt/exec/operators.h"
#include "silt/expr/evaluator.h"

namespace silt::exec {

namespace {

class ExpandOperator final : public Operator {
 public:
  ExpandOperator(OperatorPtr child, std::vector<std::vector<expr::ExpressionPtr>> projections, SchemaPtr schema)
      : Operator(std::move(schema)), child_(std::move(child)), projections_(std::move(projections)) {}

  // Each call evaluates one projection of one input batch. Input batches whose projections are
  // not all taken yet wait in `pending_`; with parallel pulls several threads share them, each
  // evaluating outside the lock.
  std::optional<Batch> Next(ExecContext& context) override {
    while (true) {
      std::shared_ptr<const Batch> input;
      size_t projection = 0;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!pending_.empty()) {
          Pending& front = pending_.front();
          input = front.batch;
          projection = front.next++;
          if (front.next == projections_.size()) pending_.pop_front();
        }
      }
      if (!input) {
        std::optional<Batch> batch = child_->Next(context);
        if (!batch) return std::nullopt;
        if (batch->num_rows() == 0) continue;
        input = std::make_shared<const Batch>(std::move(*batch));
        if (projections_.size() > 1) {
          std::lock_guard<std::mutex> lock(mutex_);
          pending_.push_back(Pending{input, 1});
        }
      }
      return Project(projections_[projection], *input, context);
    }
  }

  std::string Describe() const override {
    const Schema& input = *child_->schema();
    std::string text = "Expand [";
    for (size_t p = 0; p < projections_.size(); ++p) {
      text += p > 0 ? ", [" : "[";
      for (size_t i = 0; i < projections_[p].size(); ++i) {
        if (i > 0) text += ", ";
        text += ExpressionText(*projections_[p][i], input);
      }
      text += "]";
    }
    text += "], [";
    for (size_t i = 0; i < schema()->num_fields(); ++i) text += (i > 0 ? ", " : "") + schema()->field(i).name;
    return text + "]";
  }
  std::vector<const Operator*> children() const override { return {child_.get()}; }

  bool EnableParallelNext() override { return child_->EnableParallelNext(); }

 private:
  struct Pending {
    std::shared_ptr<const Batch> batch;
    size_t next = 0;
  };

  Batch Project(const std::vector<expr::ExpressionPtr>& expressions, const Batch& input,
                ExecContext& context) const {
    std::vector<VectorPtr> columns;
    columns.reserve(expressions.size());
    for (const expr::ExpressionPtr& expression : expressions) {
      if (expression->kind() == expr::ExpressionKind::kColumn) {
        columns.push_back(input.column(static_cast<size_t>(expression->column_index())));
      } else {
        columns.push_back(expr::Evaluate(*expression, input, context.eval));
      }
    }
    return Batch(schema(), std::move(columns), input.num_rows());
  }

  OperatorPtr child_;
  std::vector<std::vector<expr::ExpressionPtr>> projections_;
  std::mutex mutex_;
  std::deque<Pending> pending_;
};

}  // namespace

OperatorPtr MakeExpand(OperatorPtr child, std::vector<std::vector<expr::ExpressionPtr>> projections,
                       std::vector<std::string> names) {
  SILT_CHECK(child != nullptr, "expand without a child");
  SILT_CHECK(!projections.empty(), "expand without projections");
  std::vector<Field> fields;
  for (size_t i = 0; i < names.size(); ++i) {
    DataTypePtr type;
    bool nullable = false;
    for (const std::vector<expr::ExpressionPtr>& projection : projections) {
      SILT_CHECK(projection.size() == names.size(), "expand needs one name per projected expression");
      const expr::ExpressionPtr& expression = projection[i];
      SILT_CHECK(expression != nullptr, "null expand expression");
      if (expression->kind() == expr::ExpressionKind::kColumn) {
        SILT_CHECK(static_cast<size_t>(expression->column_index()) < child->schema()->num_fields(),
                   "expand column out of range");
      }
      if (type == nullptr) type = expression->type();
      SILT_CHECK(type->Equals(*expression->type()), "expand projections disagree on a column's type");
      nullable = nullable || expression->nullable();
    }
    fields.push_back(Field{names[i], type, nullable, {}});
  }
  auto schema = std::make_shared<const Schema>(std::move(fields));
  return std::make_unique<ExpandOperator>(std::move(child), std::move(projections), std::move(schema));
}

}  // namespace silt::exec
