#include <cctype>
#include <cstring>

#include "silt/base/check.h"
#include "silt/exec/filter_internal.h"
#include "silt/exec/operators.h"
#include "silt/expr/evaluator.h"
#include "silt/vector/take.h"

namespace silt::exec {

Batch GatherBatchRows(const Batch& batch, const std::vector<int64_t>& rows, SchemaPtr schema) {
  std::vector<VectorPtr> columns;
  columns.reserve(batch.num_columns());
  for (const VectorPtr& column : batch.columns()) columns.push_back(TakeRows(*column, rows));
  return Batch(std::move(schema), std::move(columns), static_cast<int64_t>(rows.size()));
}

Batch SelectRows(const Batch& batch, const std::vector<uint8_t>& keep) {
  std::vector<int64_t> rows;
  rows.reserve(keep.size());
  for (size_t i = 0; i < keep.size(); ++i) {
    if (keep[i]) rows.push_back(static_cast<int64_t>(i));
  }
  if (static_cast<int64_t>(rows.size()) == batch.num_rows()) return batch;
  return GatherBatchRows(batch, rows, batch.schema());
}

namespace {

void CollectConjuncts(const expr::Expression& predicate, std::vector<const expr::Expression*>& conjuncts) {
  if (predicate.kind() == expr::ExpressionKind::kAnd) {
    CollectConjuncts(*predicate.child(0), conjuncts);
    CollectConjuncts(*predicate.child(1), conjuncts);
  } else {
    conjuncts.push_back(&predicate);
  }
}

// Compacting costs a gather of every column, worth it once at most this share of rows remains.
constexpr int64_t kCompactWhenOneIn = 4;

}  // namespace

namespace {

// Rows whose `keep` byte is set, marked in `*selection` when at least half of them are (the
// consumer then skips the others, which costs less than gathering every column), else gathered.
Batch SelectOrMark(const Batch& batch, std::vector<uint8_t> keep, std::vector<uint8_t>* selection) {
  if (selection != nullptr) {
    selection->clear();
    int64_t kept = 0;
    for (uint8_t byte : keep) kept += byte != 0;
    if (kept == batch.num_rows()) return batch;
    if (kept * 2 >= batch.num_rows()) {
      *selection = std::move(keep);
      return batch;
    }
  }
  return SelectRows(batch, keep);
}

}  // namespace

bool EvaluableUnderSelection(const expr::Expression& expression) {
  if (!expression.deterministic() || expression.kind() == expr::ExpressionKind::kCall) return false;
  for (const expr::ExpressionPtr& child : expression.children()) {
    if (!EvaluableUnderSelection(*child)) return false;
  }
  return true;
}

Batch FilterBatch(const expr::Expression& predicate, const Batch& batch, expr::EvalContext& eval,
                  std::vector<uint8_t>* selection) {
  SILT_CHECK(predicate.type()->id() == TypeId::kBoolean, "a filter needs a boolean predicate");
  if (selection != nullptr) selection->clear();
  std::vector<const expr::Expression*> conjuncts;
  CollectConjuncts(predicate, conjuncts);
  if (conjuncts.size() == 1) {
    return SelectOrMark(batch, expr::EvaluateFilter(predicate, batch, eval), selection);
  }
  // Compacting gives later conjuncts other row positions, which only deterministic ones ignore.
  bool may_compact = true;
  for (size_t k = 1; k < conjuncts.size(); ++k) may_compact = may_compact && conjuncts[k]->deterministic();

  Batch current = batch;
  int64_t num_rows = current.num_rows();
  // Per row of `current`: `undecided` while no conjunct was FALSE (the rows AND evaluates the
  // next conjunct on), `passed` while every conjunct was TRUE.
  std::vector<uint8_t> undecided(static_cast<size_t>(num_rows), 1);
  std::vector<uint8_t> passed(static_cast<size_t>(num_rows), 1);
  for (size_t k = 0; k < conjuncts.size(); ++k) {
    VectorPtr result;
    if (k == 0) {
      result = expr::Evaluate(*conjuncts[k], current, eval);
    } else {
      result = expr::EvaluateMasked(*conjuncts[k], current, eval, expr::RowMask{undecided.data()});
      eval.ThrowIfError();
    }
    int64_t remaining = 0;
    for (int64_t i = 0; i < num_rows; ++i) {
      if (!undecided[i]) continue;
      bool valid = result->IsValid(i);
      bool value = valid && result->GetBool(i);
      if (valid && !value) undecided[i] = 0;
      passed[i] = passed[i] && value;
      remaining += undecided[i];
    }
    if (remaining == 0) return current.Slice(0, 0);
    bool last = k + 1 == conjuncts.size();
    if (!last && may_compact && remaining * kCompactWhenOneIn <= num_rows) {
      std::vector<uint8_t> kept_passed;
      kept_passed.reserve(static_cast<size_t>(remaining));
      for (int64_t i = 0; i < num_rows; ++i) {
        if (undecided[i]) kept_passed.push_back(passed[i]);
      }
      current = SelectRows(current, undecided);
      num_rows = current.num_rows();
      passed = std::move(kept_passed);
      undecided.assign(static_cast<size_t>(num_rows), 1);
    }
  }
  return SelectOrMark(current, std::move(passed), selection);
}

std::string ExpressionText(const expr::Expression& expression, const Schema& schema) {
  std::string text = expression.ToString();
  std::string out;
  out.reserve(text.size() + 16);
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    bool starts_reference = c == '#' && i + 1 < text.size() &&
                            std::isdigit(static_cast<unsigned char>(text[i + 1])) &&
                            (i == 0 || !(std::isalnum(static_cast<unsigned char>(text[i - 1])) ||
                                         text[i - 1] == '_'));
    if (starts_reference) {
      size_t end = i + 1;
      while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
      size_t index = std::stoul(text.substr(i + 1, end - i - 1));
      if (index < schema.num_fields()) out += schema.field(index).name;
    }
    out += c;
  }
  return out;
}

std::string ColumnListText(const Schema& schema, bool with_index) {
  std::string out;
  for (size_t i = 0; i < schema.num_fields(); ++i) {
    if (i > 0) out += ", ";
    out += schema.field(i).name;
    if (with_index) out += "#" + std::to_string(i);
  }
  return out;
}

namespace {

class FilterOperator final : public Operator {
 public:
  FilterOperator(OperatorPtr child, expr::ExpressionPtr predicate)
      : Operator(child->schema()), child_(std::move(child)), predicate_(std::move(predicate)) {}

  std::optional<Batch> Next(ExecContext& context) override {
    while (std::optional<Batch> batch = child_->Next(context)) {
      Batch selected = FilterBatch(*predicate_, *batch, context.eval);
      if (selected.num_rows() > 0) return selected;
    }
    return std::nullopt;
  }

  std::optional<SelectedBatch> NextSelected(ExecContext& context) override {
    while (std::optional<Batch> batch = child_->Next(context)) {
      SelectedBatch selected;
      selected.batch = FilterBatch(*predicate_, *batch, context.eval, &selected.selection);
      if (selected.batch.num_rows() > 0) return selected;
    }
    return std::nullopt;
  }

  std::string Describe() const override {
    return "Filter " + ExpressionText(*predicate_, *child_->schema());
  }
  std::vector<const Operator*> children() const override { return {child_.get()}; }

  // Stateless per batch: parallel when the child is.
  bool EnableParallelNext() override { return child_->EnableParallelNext(); }

 private:
  OperatorPtr child_;
  expr::ExpressionPtr predicate_;
};

}  // namespace

OperatorPtr MakeFilter(OperatorPtr child, expr::ExpressionPtr predicate) {
  SILT_CHECK(child != nullptr && predicate != nullptr, "filter needs a child and a predicate");
  SILT_CHECK(predicate->type()->id() == TypeId::kBoolean, "filter predicate must be boolean");
  return std::make_unique<FilterOperator>(std::move(child), std::move(predicate));
}

}  // namespace silt::exec
