#include "silt/sql/physical_planner.h"

#include <algorithm>
#include <limits>
#include <optional>

#include "silt/base/check.h"
#include "silt/base/error_class.h"
#include "silt/exec/change_feed_scan.h"
#include "silt/exec/group_top_rows.h"
#include "silt/exec/hash_operators.h"
#include "silt/exec/operators.h"
#include "silt/exec/sort_window.h"
#include "silt/expr/expression_rewrite.h"
#include "silt/expr/type_coercion.h"
#include "silt/sql/cardinality.h"
#include "silt/sql/optimizer.h"
#include "silt/sql/subplan_results.h"

namespace silt::sql {
namespace {

struct Planner {
  CardinalityEstimator& estimator;
  // Keeps the outputs of aggregates for reuse later in the statement; nullptr = no.
  SubplanResults* results = nullptr;
  // The number EXPLAIN gives the next hash join that publishes runtime filters.
  int next_join_id = 1;
};

// A runtime join filter on its way from the hash join that publishes it down to the Delta scan
// it filters: `column` is the output column of the node being planned that carries the join's
// probe key as it is. Only nodes that pass every row whose key may match on with that key
// unchanged lead it on (projections, filters, the sides of joins whose rows reach the output
// with their own columns); any other node drops it, and the scan reached (if any) adds a
// log::JoinKeyFilter to `attached` for the join to publish to.
struct PushedJoinFilter {
  int column = 0;
  size_t key = 0;        // which of the publishing join's key pairs
  DataTypePtr key_type;  // the type the join compares its keys in
  std::shared_ptr<std::vector<std::shared_ptr<log::JoinKeyFilter>>> attached;
};
using PushedJoinFilters = std::vector<PushedJoinFilter>;

exec::OperatorPtr PlanNode(const LogicalNode& node, Planner& planner,
                           const PushedJoinFilters& filters = {});

std::vector<std::string> ColumnNames(const std::vector<LogicalColumn>& columns) {
  std::vector<std::string> names;
  for (const LogicalColumn& column : columns) names.push_back(column.name);
  return names;
}

// Equi-join keys found among the conjuncts of a join condition.
struct JoinKeys {
  std::vector<expr::ExpressionPtr> left;
  std::vector<expr::ExpressionPtr> right;
  std::vector<bool> null_safe;
  std::vector<expr::ExpressionPtr> residual;
};

JoinKeys ExtractJoinKeys(const expr::ExpressionPtr& condition, int left_width) {
  JoinKeys keys;
  if (!condition) return keys;
  for (const expr::ExpressionPtr& conjunct : expr::SplitConjunction(condition)) {
    bool used = false;
    if (conjunct->kind() == expr::ExpressionKind::kComparison &&
        (conjunct->comparison() == expr::ComparisonOperator::kEqual ||
         conjunct->comparison() == expr::ComparisonOperator::kNullSafeEqual)) {
      for (int side = 0; side < 2 && !used; ++side) {
        const expr::ExpressionPtr& a = conjunct->child(side);
        const expr::ExpressionPtr& b = conjunct->child(1 - side);
        std::vector<int> a_columns = expr::ReferencedColumns(*a);
        std::vector<int> b_columns = expr::ReferencedColumns(*b);
        if (a_columns.empty() || b_columns.empty()) continue;
        if (a_columns.back() < left_width && b_columns.front() >= left_width) {
          std::optional<DataTypePtr> common = expr::ComparisonType(a->type(), b->type());
          if (!common) continue;
          keys.left.push_back(expr::CastIfNeeded(a, *common));
          keys.right.push_back(expr::CastIfNeeded(expr::ShiftColumns(b, -left_width), *common));
          keys.null_safe.push_back(conjunct->comparison() == expr::ComparisonOperator::kNullSafeEqual);
          used = true;
        }
      }
    }
    if (!used) keys.residual.push_back(conjunct);
  }
  return keys;
}

// The condition of `type` over (right ++ left) columns from one over (left ++ right).
expr::ExpressionPtr SwapSides(const expr::ExpressionPtr& expression, int left_width, int right_width) {
  std::vector<int> mapping(left_width + right_width);
  for (int i = 0; i < left_width; ++i) mapping[i] = right_width + i;
  for (int i = 0; i < right_width; ++i) mapping[left_width + i] = i;
  return expr::RemapColumns(expression, mapping);
}

// A semi or anti join builds its left input when that is estimated below half the right one:
// building the small side and streaming the large one through it costs a fraction of the
// reverse (TPC-H Q04's 58k orders against 3.8M line items). NOT IN keeps its sides.
bool SemiJoinBuildsLeft(const LogicalNode& node, Planner& planner) {
  if (node.join_type != exec::JoinType::kLeftSemi && node.join_type != exec::JoinType::kLeftAnti) {
    return false;
  }
  if (node.null_aware_anti) return false;
  return 2 * planner.estimator.Estimate(node.children[0]).rows < planner.estimator.Estimate(node.children[1]).rows;
}

// 1 to 4 for TINYINT to BIGINT, 0 for any other type.
int IntegerRank(TypeId id) {
  switch (id) {
    case TypeId::kByte: return 1;
    case TypeId::kShort: return 2;
    case TypeId::kInteger: return 3;
    case TypeId::kLong: return 4;
    default: return 0;
  }
}

// Whether every value of an integer type `from` is the same value of integer type `to`.
bool WidensExactly(TypeId from, TypeId to) {
  return IntegerRank(from) > 0 && IntegerRank(to) > 0 && IntegerRank(from) <= IntegerRank(to);
}

// The filters pushed onto a join (over its left ++ right columns) that one side leads on, in
// that side's columns: a side whose every row reaches the output with its columns unchanged (or
// is dropped) may leave out the rows whose key cannot match above. Not the side of an outer
// join that NULLs fill in, nor either side of a full outer join.
PushedJoinFilters JoinSideFilters(const LogicalNode& join, const PushedJoinFilters& filters, bool left) {
  const int left_width = static_cast<int>(join.children[0]->columns.size());
  const exec::JoinType type = join.join_type;
  const bool leads = left ? type != exec::JoinType::kRightOuter && type != exec::JoinType::kFullOuter
                          : type == exec::JoinType::kInner || type == exec::JoinType::kCross ||
                                type == exec::JoinType::kRightOuter;
  PushedJoinFilters side;
  if (!leads) return side;
  for (const PushedJoinFilter& filter : filters) {
    if ((filter.column < left_width) != left) continue;
    side.push_back(filter);
    if (!left) side.back().column -= left_width;
  }
  return side;
}

// The smallest estimated probe side, relative to the build side, for which a hash join filters
// its probe side's scan: a build side about as large as the probe lets most rows through.
constexpr double kRuntimeFilterProbeRatio = 2.0;

// This join's own runtime filters, pushed onto its probe input (`probe_keys` over that input's
// columns): one per key compared with `=` (NULL never matches) that is a column as it is, or an
// integer column widened to the compared integer type, of a type a log::JoinKeySet holds. None
// when the join keeps probe rows without a match (outer joins on their preserved side, anti
// joins), or when the build side is not estimated well below the probe side.
PushedJoinFilters OwnJoinFilters(const exec::HashJoinSpec& spec,
                                 const std::vector<expr::ExpressionPtr>& probe_keys,
                                 const LogicalPtr& build, const LogicalPtr& probe, Planner& planner) {
  PushedJoinFilters filters;
  const bool drops_unmatched = spec.type == exec::JoinType::kInner ||
                               spec.type == exec::JoinType::kRightOuter ||
                               spec.type == exec::JoinType::kLeftSemi;
  if (!drops_unmatched) return filters;
  const double build_rows = planner.estimator.Estimate(build).rows;
  const double probe_rows = planner.estimator.Estimate(probe).rows;
  if (build_rows * kRuntimeFilterProbeRatio > probe_rows ||
      build_rows > static_cast<double>(exec::kMaxRuntimeFilterKeys)) {
    return filters;
  }
  for (size_t k = 0; k < probe_keys.size(); ++k) {
    if (k < spec.null_safe.size() && spec.null_safe[k]) continue;
    const expr::Expression* key = probe_keys[k].get();
    const DataTypePtr& key_type = key->type();
    if (!log::JoinKeySet::Supports(*key_type)) continue;
    if (key->kind() == expr::ExpressionKind::kCast &&
        WidensExactly(key->child(0)->type()->id(), key_type->id())) {
      key = key->child(0).get();
    }
    if (key->kind() != expr::ExpressionKind::kColumn) continue;
    PushedJoinFilter filter;
    filter.column = key->column_index();
    filter.key = k;
    filter.key_type = key_type;
    filter.attached = std::make_shared<std::vector<std::shared_ptr<log::JoinKeyFilter>>>();
    filters.push_back(std::move(filter));
  }
  return filters;
}

// Gives `spec` the scan filters that its own pushed filters (OwnJoinFilters) reached, and
// numbers the join for EXPLAIN when there is one.
void AttachOwnFilters(exec::HashJoinSpec& spec, const PushedJoinFilters& own, Planner& planner) {
  for (const PushedJoinFilter& filter : own) {
    for (const std::shared_ptr<log::JoinKeyFilter>& scan_filter : *filter.attached) {
      spec.runtime_filters.push_back(exec::HashJoinSpec::RuntimeFilter{filter.key, scan_filter});
    }
  }
  if (spec.runtime_filters.empty()) return;
  const int id = planner.next_join_id++;
  for (exec::HashJoinSpec::RuntimeFilter& runtime : spec.runtime_filters) runtime.filter->set_join_id(id);
}

exec::OperatorPtr PlanJoin(const LogicalNode& node, Planner& planner, const PushedJoinFilters& pushed) {
  const LogicalNode& left = *node.children[0];
  const LogicalNode& right = *node.children[1];
  int left_width = static_cast<int>(left.columns.size());
  int right_width = static_cast<int>(right.columns.size());
  PushedJoinFilters left_filters = JoinSideFilters(node, pushed, true);
  PushedJoinFilters right_filters = JoinSideFilters(node, pushed, false);
  JoinKeys keys = ExtractJoinKeys(node.predicate, left_width);
  if (keys.left.empty()) {
    exec::JoinType type = node.join_type;
    if (type == exec::JoinType::kInner && !node.predicate) type = exec::JoinType::kCross;
    return exec::MakeNestedLoopJoin(PlanNode(left, planner, left_filters),
                                    PlanNode(right, planner, right_filters), type, node.predicate);
  }
  // The hash join builds its right input: put the smaller input there. An outer join swaps
  // its sides with its type (a left outer join becomes a right outer join that builds the side
  // whose unmatched rows it emits once the probe is done): building the smaller side costs
  // less than probing with it, and the larger side's rows probe in any order.
  exec::JoinType swapped_type = node.join_type;
  if (node.join_type == exec::JoinType::kLeftOuter) swapped_type = exec::JoinType::kRightOuter;
  if (node.join_type == exec::JoinType::kRightOuter) swapped_type = exec::JoinType::kLeftOuter;
  const bool swappable = node.join_type == exec::JoinType::kInner ||
                         node.join_type == exec::JoinType::kLeftOuter ||
                         node.join_type == exec::JoinType::kRightOuter ||
                         node.join_type == exec::JoinType::kFullOuter;
  const bool swap =
      swappable &&
      planner.estimator.Estimate(node.children[0]).rows < planner.estimator.Estimate(node.children[1]).rows;
  exec::HashJoinSpec spec;
  spec.type = swap ? swapped_type : node.join_type;
  spec.null_safe = keys.null_safe;
  spec.null_aware_anti = node.null_aware_anti;
  spec.build_left = SemiJoinBuildsLeft(node, planner);
  expr::ExpressionPtr residual = keys.residual.empty() ? nullptr : expr::JoinConjunction(keys.residual);
  // The probe input (the one not built), as a logical child, and its keys.
  const bool probe_is_left = swap ? false : !spec.build_left;
  const std::vector<expr::ExpressionPtr>& probe_keys = probe_is_left ? keys.left : keys.right;
  PushedJoinFilters own;
  if (node.predicate->deterministic()) {
    own = OwnJoinFilters(spec, probe_keys, node.children[probe_is_left ? 1 : 0],
                         node.children[probe_is_left ? 0 : 1], planner);
  }
  PushedJoinFilters& probe_filters = probe_is_left ? left_filters : right_filters;
  probe_filters.insert(probe_filters.end(), own.begin(), own.end());
  exec::OperatorPtr left_input = PlanNode(left, planner, left_filters);
  exec::OperatorPtr right_input = PlanNode(right, planner, right_filters);
  AttachOwnFilters(spec, own, planner);
  if (!swap) {
    spec.left_keys = keys.left;
    spec.right_keys = keys.right;
    spec.residual = residual;
    return exec::MakeHashJoin(std::move(left_input), std::move(right_input), std::move(spec));
  }
  spec.left_keys = keys.right;
  spec.right_keys = keys.left;
  if (residual) spec.residual = SwapSides(residual, left_width, right_width);
  exec::OperatorPtr join =
      exec::MakeHashJoin(std::move(right_input), std::move(left_input), std::move(spec));
  // Back to left columns then right columns.
  std::vector<expr::ExpressionPtr> expressions;
  std::vector<std::string> names;
  for (int i = 0; i < left_width + right_width; ++i) {
    int source = i < left_width ? right_width + i : i - left_width;
    const LogicalColumn& column = node.columns[i];
    expressions.push_back(expr::Column(source, column.type, column.nullable));
    names.push_back(column.name);
  }
  return exec::MakeProject(std::move(join), std::move(expressions), std::move(names));
}

// ---- QUALIFY row_number() <= k as the first k rows per partition ----

// Above this k, keeping k rows per partition in a hash table costs more than sorting.
constexpr int64_t kMaxGroupTopRows = 100;

bool IsIntegralLiteral(const expr::Expression& expression) {
  if (expression.kind() != expr::ExpressionKind::kLiteral || expression.literal().is_null()) {
    return false;
  }
  TypeId id = expression.type()->id();
  return id == TypeId::kByte || id == TypeId::kShort || id == TypeId::kInteger ||
         id == TypeId::kLong;
}

// The k of a conjunct that keeps the rows whose row number (input column `row_number_column`,
// possibly widened to BIGINT) is at most k: `rn = 1`, `rn <= k`, `rn < k + 1`, either side
// first; nullopt for any other conjunct.
std::optional<int64_t> RowNumberLimit(const expr::Expression& conjunct, int row_number_column) {
  if (conjunct.kind() != expr::ExpressionKind::kComparison) return std::nullopt;
  const expr::Expression* row_number = conjunct.child(0).get();
  const expr::Expression* bound = conjunct.child(1).get();
  expr::ComparisonOperator op = conjunct.comparison();
  if (IsIntegralLiteral(*row_number)) {
    std::swap(row_number, bound);
    if (op == expr::ComparisonOperator::kGreaterOrEqual) {
      op = expr::ComparisonOperator::kLessOrEqual;
    } else if (op == expr::ComparisonOperator::kGreater) {
      op = expr::ComparisonOperator::kLess;
    } else if (op == expr::ComparisonOperator::kLessOrEqual ||
               op == expr::ComparisonOperator::kLess) {
      return std::nullopt;
    }
  }
  if (row_number->kind() == expr::ExpressionKind::kCast &&
      row_number->type()->id() == TypeId::kLong) {
    row_number = row_number->child(0).get();
  }
  if (row_number->kind() != expr::ExpressionKind::kColumn ||
      row_number->column_index() != row_number_column || !IsIntegralLiteral(*bound)) {
    return std::nullopt;
  }
  const int64_t k = bound->literal().GetInt();
  switch (op) {
    case expr::ComparisonOperator::kEqual:
    case expr::ComparisonOperator::kNullSafeEqual:
      if (k == 1) return k;
      return std::nullopt;
    case expr::ComparisonOperator::kLessOrEqual:
      return k;
    case expr::ComparisonOperator::kLess:
      if (k == std::numeric_limits<int64_t>::min()) return std::nullopt;
      return k - 1;
    default:
      return std::nullopt;
  }
}

// A Filter keeping `row_number() <= k` (k up to kMaxGroupTopRows) over a Window that computes
// only that row_number, with PARTITION BY and ORDER BY: the first k rows of every partition are
// found with a hash table instead of sorting the input. The other conjuncts filter its output.
// Null for any other filter.
exec::OperatorPtr PlanGroupTopRows(const LogicalNode& filter, Planner& planner) {
  const LogicalNode& window = *filter.children[0];
  if (window.kind != LogicalKind::kWindow || window.window_calls.size() != 1 ||
      window.window_partition.empty() || window.sort_keys.empty()) {
    return nullptr;
  }
  const exec::WindowCall& call = window.window_calls[0];
  if (call.function != "row_number" || !call.arguments.empty() || !call.result_type ||
      call.result_type->id() != TypeId::kInteger) {
    return nullptr;
  }
  std::vector<int> partition_by;
  for (const expr::ExpressionPtr& partition : window.window_partition) {
    if (partition->kind() != expr::ExpressionKind::kColumn) return nullptr;
    partition_by.push_back(partition->column_index());
  }
  const int row_number_column = static_cast<int>(window.columns.size()) - 1;
  std::optional<int64_t> limit;
  std::vector<expr::ExpressionPtr> rest;
  for (const expr::ExpressionPtr& conjunct : expr::SplitConjunction(filter.predicate)) {
    std::optional<int64_t> k = RowNumberLimit(*conjunct, row_number_column);
    if (k) {
      limit = limit ? std::min(*limit, *k) : *k;
    } else {
      rest.push_back(conjunct);
    }
  }
  if (!limit || *limit < 1 || *limit > kMaxGroupTopRows) return nullptr;
  exec::OperatorPtr top =
      exec::MakeGroupTopRows(PlanNode(*window.children[0], planner), std::move(partition_by),
                             window.sort_keys, *limit, window.columns.back().name);
  if (rest.empty()) return top;
  return exec::MakeFilter(std::move(top), expr::JoinConjunction(rest));
}

// The largest top-N (offset + limit) that bounds its scan: it cuts back the rows it keeps each
// time they reach twice that many, which pays only when they are few.
constexpr int64_t kMaxBoundedTopRows = exec::kTargetBatchRows;

// Types whose partition-value text (which the top-N writes its bound in and the scan parses)
// is exact and whose order the scan's statistics and row filters follow as the sort does
// (floating point is left out: NaN and -0.0 order apart from their text).
bool BoundableType(const DataType& type) {
  switch (type.id()) {
    case TypeId::kByte:
    case TypeId::kShort:
    case TypeId::kInteger:
    case TypeId::kLong:
    case TypeId::kDate:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kDecimal:
    case TypeId::kString: return true;
    default: return false;
  }
}

// For a top-N over a Delta scan reached through projections and filters: the scan node, and a
// bound on the scan column its first key reads (see exec::MakeSort), when the top-N can give
// one: its first key is that column as it is, of a BoundableType.
std::pair<const LogicalNode*, std::shared_ptr<log::ScanBound>> TopRowsScanBound(const LogicalNode& sort) {
  if (!sort.limit || sort.sort_keys.empty() || *sort.limit > kMaxBoundedTopRows - sort.offset) {
    return {nullptr, nullptr};
  }
  const exec::SortKey& key = sort.sort_keys[0];
  int column = key.column;
  const LogicalNode* node = sort.children[0].get();
  bool filtered = false;  // whether a filter may drop rows between the scan and the top-N
  while (true) {
    if (node->kind == LogicalKind::kProject) {
      const expr::ExpressionPtr& expression = node->expressions[static_cast<size_t>(column)];
      if (expression->kind() != expr::ExpressionKind::kColumn) return {nullptr, nullptr};
      column = expression->column_index();
    } else if (node->kind != LogicalKind::kFilter || node->children[0]->kind == LogicalKind::kWindow) {
      break;  // a Filter over a Window may be planned as GroupTopRows, which passes no bound on
    } else {
      filtered = true;
    }
    node = node->children[0].get();
  }
  if (node->kind != LogicalKind::kDeltaScan) return {nullptr, nullptr};
  int index = node->scan_columns[static_cast<size_t>(column)];
  if (index == kFileMetadataScanColumn) return {nullptr, nullptr};
  const Field& field = node->snapshot->schema().field(static_cast<size_t>(index));
  if (!BoundableType(*field.type)) return {nullptr, nullptr};
  auto op = key.ascending ? log::ScanPredicate::Op::kLessOrEqual : log::ScanPredicate::Op::kGreaterOrEqual;
  // A file's own best rows bound it only when all of them reach the top-N: with a filter on the
  // way (the scan's own included), the rows it keeps may all lie beyond them.
  filtered = filtered || node->predicate != nullptr || !node->scan_predicates.empty();
  const int64_t keep = filtered ? 0 : *sort.limit + sort.offset;
  return {node, std::make_shared<log::ScanBound>(field.name, op, key.nulls_first, keep)};
}

// The runtime join filters `filters` that reach scan `node`: those whose column is a table column
// of the join's key type (or an integer type the key type widens exactly); each attaches a new
// log::JoinKeyFilter on it for its join to publish to.
std::vector<std::shared_ptr<const log::JoinKeyFilter>> AttachJoinFilters(const LogicalNode& node,
                                                                         const PushedJoinFilters& filters) {
  std::vector<std::shared_ptr<const log::JoinKeyFilter>> attached;
  for (const PushedJoinFilter& filter : filters) {
    int index = node.scan_columns[static_cast<size_t>(filter.column)];
    if (index == kFileMetadataScanColumn) continue;
    const Field& field = node.snapshot->schema().field(static_cast<size_t>(index));
    const bool same_type = field.type->Equals(*filter.key_type) ||
                           WidensExactly(field.type->id(), filter.key_type->id());
    if (!same_type) continue;
    auto scan_filter = std::make_shared<log::JoinKeyFilter>(field.name);
    filter.attached->push_back(scan_filter);
    attached.push_back(std::move(scan_filter));
  }
  return attached;
}

exec::OperatorPtr PlanDeltaScan(const LogicalNode& node, std::shared_ptr<const log::ScanBound> bound,
                                const PushedJoinFilters& filters = {}) {
  exec::DeltaScanSpec spec;
  spec.snapshot = node.snapshot;
  const Schema& schema = node.snapshot->schema();
  for (int index : node.scan_columns) {
    if (index == kFileMetadataScanColumn) {
      spec.options.file_metadata = true;
    } else {
      spec.options.columns.push_back(schema.field(index).name);
    }
  }
  spec.options.predicates = node.scan_predicates;
  // The predicates are conjuncts of the scan's filter, which runs on every row the scan
  // returns: the reader may drop the rows they rule out while decoding.
  spec.options.filter_rows = true;
  spec.options.bound = std::move(bound);
  spec.options.join_filters = AttachJoinFilters(node, filters);
  spec.filter = node.predicate;
  spec.table_name = node.table_name;
  return exec::MakeDeltaScan(std::move(spec));
}

// Plans the projections and filters from `node` down to `scan` (TopRowsScanBound's chain), the
// scan reading `bound`.
exec::OperatorPtr PlanBoundedChain(const LogicalNode& node, const LogicalNode& scan,
                                   const std::shared_ptr<log::ScanBound>& bound) {
  if (&node == &scan) return PlanDeltaScan(node, bound);
  exec::OperatorPtr child = PlanBoundedChain(*node.children[0], scan, bound);
  if (node.kind == LogicalKind::kProject) {
    return exec::MakeProject(std::move(child), node.expressions, ColumnNames(node.columns));
  }
  SILT_CHECK(node.kind == LogicalKind::kFilter, "a bounded top-N chain holds projections and filters only");
  return exec::MakeFilter(std::move(child), node.predicate);
}

// The filters pushed onto a projection that its input leads on: those whose column the
// projection passes through as it is.
PushedJoinFilters ProjectedFilters(const LogicalNode& project, const PushedJoinFilters& filters) {
  PushedJoinFilters input;
  for (const PushedJoinFilter& filter : filters) {
    const expr::ExpressionPtr& expression = project.expressions[static_cast<size_t>(filter.column)];
    if (expression->kind() != expr::ExpressionKind::kColumn) continue;
    input.push_back(filter);
    input.back().column = expression->column_index();
  }
  return input;
}

// The pushed join filters `node` may lead on: none past an expression that is not deterministic
// (rand() in a filter, monotonically_increasing_id() in a projection), whose values for the rows
// kept would change with the rows left out below it.
const PushedJoinFilters& FiltersPastNode(const LogicalNode& node, const PushedJoinFilters& filters) {
  static const PushedJoinFilters kNone;
  if (filters.empty()) return filters;
  if (node.predicate && !node.predicate->deterministic()) return kNone;
  for (const expr::ExpressionPtr& expression : node.expressions) {
    if (!expression->deterministic()) return kNone;
  }
  return filters;
}

exec::OperatorPtr PlanOperator(const LogicalNode& node, Planner& planner, const PushedJoinFilters& pushed) {
  const PushedJoinFilters& filters = FiltersPastNode(node, pushed);
  switch (node.kind) {
    case LogicalKind::kDeltaScan:
      return PlanDeltaScan(node, nullptr, filters);
    case LogicalKind::kChangeFeedScan: {
      exec::ChangeFeedScanSpec spec;
      spec.feed = node.change_feed;
      spec.columns = node.scan_columns;
      spec.predicates = node.scan_predicates;
      spec.filter = node.predicate;
      spec.table_name = node.table_name;
      return exec::MakeChangeFeedScan(std::move(spec));
    }
    case LogicalKind::kParquetScan: {
      exec::ParquetScanSpec spec;
      spec.fs = node.file_system;
      spec.files = node.parquet_files;
      std::vector<Field> fields;
      for (const LogicalColumn& column : node.columns) {
        int index = node.file_schema->FieldIndex(column.name, false);
        fields.push_back(index >= 0 ? node.file_schema->field(index) : Field{column.name, column.type, true, {}});
      }
      spec.schema = std::make_shared<Schema>(std::move(fields));
      spec.filter = node.predicate;
      spec.display_name = node.table_name;
      return exec::MakeParquetScan(std::move(spec));
    }
    case LogicalKind::kValues:
      return exec::MakeBatchSource(OutputSchema(node), node.batches);
    case LogicalKind::kRange:
      return exec::MakeRange(node.range_start, node.range_end, node.range_step, node.columns[0].name);
    case LogicalKind::kFilter:
      if (exec::OperatorPtr top_rows = PlanGroupTopRows(node, planner)) return top_rows;
      return exec::MakeFilter(PlanNode(*node.children[0], planner, filters), node.predicate);
    case LogicalKind::kProject:
      return exec::MakeProject(PlanNode(*node.children[0], planner, ProjectedFilters(node, filters)),
                               node.expressions, ColumnNames(node.columns));
    case LogicalKind::kAggregate: {
      std::vector<std::string> names = ColumnNames(node.columns);
      std::vector<std::string> key_names(names.begin(), names.begin() + node.expressions.size());
      std::vector<std::string> aggregate_names(names.begin() + node.expressions.size(), names.end());
      return exec::MakeHashAggregate(PlanNode(*node.children[0], planner), node.expressions,
                                     std::move(key_names), node.aggregates,
                                     std::move(aggregate_names));
    }
    case LogicalKind::kWindow: {
      exec::WindowOrdering ordering;
      for (const expr::ExpressionPtr& partition : node.window_partition) {
        SILT_CHECK(partition->kind() == expr::ExpressionKind::kColumn, "window partition keys must be columns");
        ordering.partition_by.push_back(partition->column_index());
      }
      ordering.order_by = node.sort_keys;
      size_t base = node.children[0]->columns.size();
      std::vector<std::string> names;
      for (size_t i = base; i < node.columns.size(); ++i) names.push_back(node.columns[i].name);
      return exec::MakeWindow(PlanNode(*node.children[0], planner), std::move(ordering),
                              node.window_calls, std::move(names));
    }
    case LogicalKind::kJoin:
      return PlanJoin(node, planner, filters);
    case LogicalKind::kSort: {
      auto [scan, bound] = TopRowsScanBound(node);
      if (scan != nullptr) {
        return exec::MakeSort(PlanBoundedChain(*node.children[0], *scan, bound), node.sort_keys,
                              node.limit, node.offset, bound);
      }
      return exec::MakeSort(PlanNode(*node.children[0], planner), node.sort_keys, node.limit,
                            node.offset);
    }
    case LogicalKind::kLimit:
      return exec::MakeLimit(PlanNode(*node.children[0], planner), node.limit, node.offset);
    case LogicalKind::kUnion: {
      std::vector<exec::OperatorPtr> children;
      for (const LogicalPtr& child : node.children) children.push_back(PlanNode(*child, planner));
      return exec::MakeUnionAll(std::move(children), OutputSchema(node));
    }
    case LogicalKind::kSetOperation:
      return exec::MakeSetOperation(PlanNode(*node.children[0], planner),
                                    PlanNode(*node.children[1], planner), node.set_operation,
                                    node.set_all);
    case LogicalKind::kDistinct:
      return exec::MakeDistinct(PlanNode(*node.children[0], planner));
    case LogicalKind::kGenerate:
      return exec::MakeGenerate(PlanNode(*node.children[0], planner), node.generate);
    case LogicalKind::kExpand:
      return exec::MakeExpand(PlanNode(*node.children[0], planner), node.projections,
                              ColumnNames(node.columns));
  }
  SILT_CHECK(false, "unknown logical node kind");
  return nullptr;
}

exec::OperatorPtr PlanNode(const LogicalNode& node, Planner& planner, const PushedJoinFilters& filters) {
  exec::OperatorPtr op = PlanOperator(node, planner, filters);
  if (planner.results != nullptr) return planner.results->Record(node, std::move(op));
  return op;
}

}  // namespace

exec::OperatorPtr PlanPhysical(const LogicalNode& plan) {
  CardinalityEstimator estimator;
  Planner planner{estimator};
  return PlanNode(plan, planner);
}

exec::OperatorPtr PlanPhysical(const LogicalNode& plan, CardinalityEstimator& estimator) {
  Planner planner{estimator};
  return PlanNode(plan, planner);
}

std::vector<Batch> ExecuteLogicalPlan(const LogicalPtr& plan, exec::ExecContext& context,
                                      SubplanResults* results) {
  CardinalityEstimator estimator;
  LogicalPtr optimized = OptimizePlan(plan, context.eval, estimator);
  if (results != nullptr) {
    optimized = results->Reuse(optimized);
    results->Keep(optimized);
  }
  Planner planner{estimator, results};
  exec::OperatorPtr root = PlanNode(*optimized, planner);
  return exec::Collect(*root, context);
}

}  // namespace silt::sql
