#include "silt/sql/subplan_results.h"

#include <utility>

#include "silt/exec/memory.h"

namespace silt::sql {

namespace {

bool SameExpressions(const std::vector<expr::ExpressionPtr>& a, const std::vector<expr::ExpressionPtr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!SameExpression(*a[i], *b[i])) return false;
  }
  return true;
}

bool SameOptionalExpression(const expr::ExpressionPtr& a, const expr::ExpressionPtr& b) {
  if (!a || !b) return !a && !b;
  return SameExpression(*a, *b);
}

bool SameAggregateCall(const exec::AggregateCall& a, const exec::AggregateCall& b) {
  return a.function == b.function && a.distinct == b.distinct && a.ignore_nulls == b.ignore_nulls &&
         a.descending == b.descending && a.within_group_order == b.within_group_order &&
         a.nullable == b.nullable && a.result_type->Equals(*b.result_type) &&
         SameExpressions(a.arguments, b.arguments) && SameOptionalExpression(a.filter, b.filter);
}

bool SameSortKeys(const std::vector<exec::SortKey>& a, const std::vector<exec::SortKey>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].column != b[i].column || a[i].ascending != b[i].ascending || a[i].nulls_first != b[i].nulls_first) {
      return false;
    }
  }
  return true;
}

bool SameScanPredicates(const std::vector<log::ScanPredicate>& a, const std::vector<log::ScanPredicate>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].column != b[i].column || a[i].op != b[i].op || a[i].value != b[i].value) return false;
  }
  return true;
}

// The same batch objects (VALUES bound twice are two lists and do not count as equal).
bool SameBatches(const std::vector<Batch>& a, const std::vector<Batch>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].num_rows() != b[i].num_rows() || a[i].columns() != b[i].columns()) return false;
  }
  return true;
}

// The attributes of one node (not its children or columns) that decide its rows.
bool SameAttributes(const LogicalNode& a, const LogicalNode& b) {
  switch (a.kind) {
    case LogicalKind::kDeltaScan:
      return a.snapshot == b.snapshot && a.scan_columns == b.scan_columns &&
             SameScanPredicates(a.scan_predicates, b.scan_predicates) &&
             SameOptionalExpression(a.predicate, b.predicate);
    case LogicalKind::kParquetScan: {
      // The physical scan finds its columns in the files by name.
      for (size_t i = 0; i < a.columns.size(); ++i) {
        if (a.columns[i].name != b.columns[i].name) return false;
      }
      return a.file_system == b.file_system && a.parquet_files == b.parquet_files &&
             a.file_schema->Equals(*b.file_schema) && SameOptionalExpression(a.predicate, b.predicate);
    }
    case LogicalKind::kValues: return SameBatches(a.batches, b.batches);
    case LogicalKind::kRange:
      return a.range_start == b.range_start && a.range_end == b.range_end && a.range_step == b.range_step;
    case LogicalKind::kFilter: return SameOptionalExpression(a.predicate, b.predicate);
    case LogicalKind::kProject: return SameExpressions(a.expressions, b.expressions);
    case LogicalKind::kAggregate: {
      if (!SameExpressions(a.expressions, b.expressions) || a.aggregates.size() != b.aggregates.size()) return false;
      for (size_t i = 0; i < a.aggregates.size(); ++i) {
        if (!SameAggregateCall(a.aggregates[i], b.aggregates[i])) return false;
      }
      return true;
    }
    case LogicalKind::kJoin:
      return a.join_type == b.join_type && a.null_aware_anti == b.null_aware_anti &&
             SameOptionalExpression(a.predicate, b.predicate);
    case LogicalKind::kSort:
      return SameSortKeys(a.sort_keys, b.sort_keys) && a.limit == b.limit && a.offset == b.offset;
    case LogicalKind::kLimit: return a.limit == b.limit && a.offset == b.offset;
    case LogicalKind::kUnion:
    case LogicalKind::kDistinct: return true;
    case LogicalKind::kSetOperation: return a.set_operation == b.set_operation && a.set_all == b.set_all;
    case LogicalKind::kWindow:
    case LogicalKind::kGenerate:
    case LogicalKind::kChangeFeedScan:
    case LogicalKind::kExpand: return false;
  }
  return false;
}

}  // namespace

bool SameExpression(const expr::Expression& a, const expr::Expression& b) {
  if (a.kind() != b.kind() || !a.deterministic() || !b.deterministic() ||
      a.children().size() != b.children().size() || a.nullable() != b.nullable() ||
      !a.type()->Equals(*b.type())) {
    return false;
  }
  switch (a.kind()) {
    case expr::ExpressionKind::kLiteral:
      if (a.literal().is_null() != b.literal().is_null()) return false;
      if (!a.literal().is_null() && !a.literal().Equals(b.literal())) return false;
      break;
    case expr::ExpressionKind::kColumn:
      if (a.column_index() != b.column_index()) return false;
      break;
    case expr::ExpressionKind::kCall:
      // A function's name tells its kernels apart (a struct field's name holds the field, a
      // higher-order function's its lambdas); its arguments and result type are compared too.
      if (&a.function() != &b.function() &&
          (a.function().name != b.function().name || !a.function().result_type->Equals(*b.function().result_type))) {
        return false;
      }
      break;
    case expr::ExpressionKind::kCast:
      if (a.error_mode() != b.error_mode()) return false;
      break;
    case expr::ExpressionKind::kArithmetic:
      if (a.arithmetic() != b.arithmetic() || a.error_mode() != b.error_mode()) return false;
      break;
    case expr::ExpressionKind::kComparison:
      if (a.comparison() != b.comparison()) return false;
      break;
    case expr::ExpressionKind::kCase:
      if (a.has_else() != b.has_else()) return false;
      break;
    default: break;
  }
  for (size_t i = 0; i < a.children().size(); ++i) {
    if (!SameExpression(*a.child(i), *b.child(i))) return false;
  }
  return true;
}

bool SameSubplan(const LogicalNode& a, const LogicalNode& b) {
  if (&a == &b) return true;
  if (a.kind != b.kind || a.columns.size() != b.columns.size() || a.children.size() != b.children.size()) {
    return false;
  }
  for (size_t i = 0; i < a.columns.size(); ++i) {
    if (a.columns[i].nullable != b.columns[i].nullable || !a.columns[i].type->Equals(*b.columns[i].type)) {
      return false;
    }
  }
  if (!SameAttributes(a, b)) return false;
  for (size_t i = 0; i < a.children.size(); ++i) {
    if (!SameSubplan(*a.children[i], *b.children[i])) return false;
  }
  return true;
}

struct SubplanResults::Entry {
  const LogicalNode* node = nullptr;
  std::vector<Batch> batches;
  bool complete = false;
};

// Passes its child's batches on and keeps them in its entry while the budget lasts; the entry is
// complete once the child has ended with every batch kept.
class RecordingOperator final : public exec::Operator {
 public:
  RecordingOperator(exec::OperatorPtr child, SubplanResults& results, std::shared_ptr<SubplanResults::Entry> entry)
      : Operator(child->schema()), child_(std::move(child)), results_(results), entry_(std::move(entry)) {}

  std::optional<Batch> Next(exec::ExecContext& context) override {
    std::optional<Batch> batch = child_->Next(context);
    if (!recording_) return batch;
    if (!batch) {
      std::lock_guard<std::mutex> lock(results_.mutex_);
      entry_->batches = std::move(batches_);
      entry_->complete = true;
      recording_ = false;
      return batch;
    }
    const int64_t bytes = exec::MemoryBytes(*batch);
    if (results_.Reserve(bytes)) {
      batches_.push_back(*batch);
      reserved_ += bytes;
    } else {
      // Past the budget: nothing of this output is kept, and what it held is given back.
      recording_ = false;
      batches_.clear();
      results_.Reserve(-reserved_);
      reserved_ = 0;
    }
    return batch;
  }

  std::string Describe() const override { return child_->Describe(); }
  std::vector<const Operator*> children() const override { return child_->children(); }

 private:
  exec::OperatorPtr child_;
  SubplanResults& results_;
  std::shared_ptr<SubplanResults::Entry> entry_;
  std::vector<Batch> batches_;
  int64_t reserved_ = 0;
  bool recording_ = true;
};

void SubplanResults::Keep(LogicalPtr plan) {
  std::lock_guard<std::mutex> lock(mutex_);
  plans_.push_back(std::move(plan));
}

// Takes `bytes` of the budget (gives them back when negative).
bool SubplanResults::Reserve(int64_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (bytes_ + bytes > kMaxBytes) return false;
  bytes_ += bytes;
  return true;
}

exec::OperatorPtr SubplanResults::Record(const LogicalNode& node, exec::OperatorPtr op) {
  if (node.kind != LogicalKind::kAggregate && node.kind != LogicalKind::kDistinct) return op;
  auto entry = std::make_shared<Entry>();
  entry->node = &node;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    entries_.push_back(entry);
  }
  return std::make_unique<RecordingOperator>(std::move(op), *this, std::move(entry));
}

LogicalPtr SubplanResults::Reuse(const LogicalPtr& plan) const {
  if (plan->kind == LogicalKind::kAggregate || plan->kind == LogicalKind::kDistinct) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const std::shared_ptr<Entry>& entry : entries_) {
      if (!entry->complete || !SameSubplan(*entry->node, *plan)) continue;
      auto values = std::make_shared<LogicalNode>();
      values->kind = LogicalKind::kValues;
      values->columns = plan->columns;
      values->batches = entry->batches;
      ++reused_;
      return values;
    }
  }
  LogicalPtr copy;
  for (size_t i = 0; i < plan->children.size(); ++i) {
    LogicalPtr child = Reuse(plan->children[i]);
    if (child == plan->children[i]) continue;
    if (!copy) copy = std::make_shared<LogicalNode>(*plan);
    copy->children[i] = std::move(child);
  }
  return copy ? copy : plan;
}

int64_t SubplanResults::reused() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return reused_;
}

}  // namespace silt::sql
