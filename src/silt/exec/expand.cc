#include <condition_variable>
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
  ExpandOperator(OperatorPtr child, std::vector<std::vector<expr::ExpressionPtr>> projections,
                 SchemaPtr schema)
      : Operator(std::move(schema)),
        child_(std::move(child)),
        projections_(std::move(projections)) {}

  // Each call evaluates one projection of one input batch. Input batches whose projections are
  // not all taken yet wait in `pending_`; with parallel pulls several threads share them, each
  // evaluating outside the lock. A parallel consumer stops all its workers at the first end of
  // input, so the end is returned only once every projection is handed out: a thread that finds
  // the child exhausted while another is still pulling from it waits for that pull.
  std::optional<Batch> Next(ExecContext& context) override {
    std::unique_lock<std::mutex> lock(mutex_);
    while (true) {
      if (!pending_.empty()) {
        Pending& front = pending_.front();
        std::shared_ptr<const Batch> input = front.batch;
        size_t projection = front.next++;
        if (front.next == projections_.size()) pending_.pop_front();
        lock.unlock();
        return Project(projections_[projection], *input, context);
      }
      if (child_done_) {
        if (pulling_ == 0) return std::nullopt;
        changed_.wait(lock);
        continue;
      }
      ++pulling_;
      lock.unlock();
      std::optional<Batch> batch;
      try {
        batch = child_->Next(context);
      } catch (...) {
        lock.lock();
        --pulling_;
        child_done_ = true;
        changed_.notify_all();
        throw;
      }
      lock.lock();
      --pulling_;
      if (!batch) child_done_ = true;
      if (!batch || batch->num_rows() == 0) {
        changed_.notify_all();
        continue;
      }
      auto input = std::make_shared<const Batch>(std::move(*batch));
      if (projections_.size() > 1) pending_.push_back(Pending{input, 1});
      changed_.notify_all();
      lock.unlock();
      return Project(projections_[0], *input, context);
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
    for (size_t i = 0; i < schema()->num_fields(); ++i)
      text += (i > 0 ? ", " : "") + schema()->field(i).name;
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
  std::condition_variable changed_;  // a pull ended or pending_ grew
  std::deque<Pending> pending_;
  int pulling_ = 0;  // threads inside child_->Next
  bool child_done_ = false;
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
      SILT_CHECK(projection.size() == names.size(),
                 "expand needs one name per projected expression");
      const expr::ExpressionPtr& expression = projection[i];
      SILT_CHECK(expression != nullptr, "null expand expression");
      if (expression->kind() == expr::ExpressionKind::kColumn) {
        SILT_CHECK(static_cast<size_t>(expression->column_index()) < child->schema()->num_fields(),
                   "expand column out of range");
      }
      if (type == nullptr) type = expression->type();
      SILT_CHECK(type->Equals(*expression->type()),
                 "expand projections disagree on a column's type");
      nullable = nullable || expression->nullable();
    }
    fields.push_back(Field{names[i], type, nullable, {}});
  }
  auto schema = std::make_shared<const Schema>(std::move(fields));
  return std::make_unique<ExpandOperator>(std::move(child), std::move(projections),
                                          std::move(schema));
}

}  // namespace silt::exec
