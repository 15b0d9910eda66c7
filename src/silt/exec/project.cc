#include <algorithm>

#include "silt/base/check.h"
#include "silt/exec/filter_internal.h"
#include "silt/exec/operators.h"
#include "silt/expr/evaluator.h"

namespace silt::exec {

namespace {

class ProjectOperator final : public Operator {
 public:
  ProjectOperator(OperatorPtr child, std::vector<expr::ExpressionPtr> expressions, SchemaPtr schema)
      : Operator(std::move(schema)), child_(std::move(child)), expressions_(std::move(expressions)) {}

  // When the expressions may be computed for rows a filter drops, the child's selection is
  // taken and only the projected columns are gathered (a filter below would gather every column
  // it has, including those only the filter reads).
  std::optional<Batch> Next(ExecContext& context) override {
    if (!evaluable_under_selection_) {
      std::optional<Batch> input = child_->Next(context);
      if (!input) return std::nullopt;
      return Project(*input, {}, context);
    }
    std::optional<SelectedBatch> input = child_->NextSelected(context);
    if (!input) return std::nullopt;
    Batch projected = Project(input->batch, input->selection, context);
    if (input->selection.empty()) return projected;
    return SelectRows(projected, input->selection);
  }

  // The child's selection passes through when every expression may be computed for the rows
  // it drops; otherwise the child's rows come gathered.
  std::optional<SelectedBatch> NextSelected(ExecContext& context) override {
    if (!evaluable_under_selection_) {
      std::optional<Batch> batch = Next(context);
      if (!batch) return std::nullopt;
      return SelectedBatch{std::move(*batch), {}};
    }
    std::optional<SelectedBatch> input = child_->NextSelected(context);
    if (!input) return std::nullopt;
    input->batch = Project(input->batch, input->selection, context);
    return input;
  }

  std::string Describe() const override {
    const Schema& input = *child_->schema();
    std::string text = "Project [";
    for (size_t i = 0; i < expressions_.size(); ++i) {
      if (i > 0) text += ", ";
      const expr::Expression& expression = *expressions_[i];
      const std::string& name = schema()->field(i).name;
      std::string value = ExpressionText(expression, input);
      bool same_column = expression.kind() == expr::ExpressionKind::kColumn &&
                         input.field(static_cast<size_t>(expression.column_index())).name == name;
      text += same_column ? value : value + " AS " + name;
    }
    return text + "]";
  }
  std::vector<const Operator*> children() const override { return {child_.get()}; }

  // Stateless per batch: parallel when the child is.
  bool EnableParallelNext() override { return child_->EnableParallelNext(); }

 private:
  // The projected columns of `input`; with a `selection`, errors count only for its rows.
  Batch Project(const Batch& input, const std::vector<uint8_t>& selection, ExecContext& context) const {
    std::vector<VectorPtr> columns;
    columns.reserve(expressions_.size());
    const expr::RowMask mask{selection.empty() ? nullptr : selection.data()};
    for (const expr::ExpressionPtr& expression : expressions_) {
      if (expression->kind() == expr::ExpressionKind::kColumn) {
        columns.push_back(input.column(static_cast<size_t>(expression->column_index())));
      } else {
        columns.push_back(expr::EvaluateMasked(*expression, input, context.eval, mask));
        context.eval.ThrowIfError();
      }
    }
    return Batch(schema(), std::move(columns), input.num_rows());
  }

  OperatorPtr child_;
  std::vector<expr::ExpressionPtr> expressions_;
  bool evaluable_under_selection_ = std::all_of(
      expressions_.begin(), expressions_.end(),
      [](const expr::ExpressionPtr& expression) { return EvaluableUnderSelection(*expression); });
};

}  // namespace

OperatorPtr MakeProject(OperatorPtr child, std::vector<expr::ExpressionPtr> expressions,
                        std::vector<std::string> names) {
  SILT_CHECK(child != nullptr, "project without a child");
  SILT_CHECK(expressions.size() == names.size(), "project needs one name per expression");
  std::vector<Field> fields;
  for (size_t i = 0; i < expressions.size(); ++i) {
    const expr::ExpressionPtr& expression = expressions[i];
    SILT_CHECK(expression != nullptr, "null project expression");
    if (expression->kind() == expr::ExpressionKind::kColumn) {
      size_t index = static_cast<size_t>(expression->column_index());
      SILT_CHECK(index < child->schema()->num_fields(), "project column out of range");
      const Field& input = child->schema()->field(index);
      SILT_CHECK(input.type->Equals(*expression->type()), "project column type mismatch");
      fields.push_back(Field{names[i], input.type, input.nullable, {}});
    } else {
      fields.push_back(Field{names[i], expression->type(), expression->nullable(), {}});
    }
  }
  auto schema = std::make_shared<const Schema>(std::move(fields));
  return std::make_unique<ProjectOperator>(std::move(child), std::move(expressions),
                                           std::move(schema));
}

}  // namespace silt::exec
