#include "silt/sql/optimizer.h"

#include <algorithm>
#include <functional>
#include <map>
#include <unordered_map>

#include "silt/base/check.h"
#include "silt/expr/evaluator.h"
#include "silt/expr/expression_rewrite.h"
#include "silt/expr/type_coercion.h"
#include "silt/log/file_stats.h"
#include "silt/sql/cardinality.h"

namespace silt::sql {
namespace {

using expr::ExpressionPtr;

LogicalPtr Copy(const LogicalNode& node) { return std::make_shared<LogicalNode>(node); }

// ---- Constant folding ----

void FoldNode(LogicalNode& node, const expr::EvalContext& context) {
  auto fold = [&](ExpressionPtr& expression) {
    if (expression) expression = FoldConstants(expression, context);
  };
  fold(node.predicate);
  for (ExpressionPtr& expression : node.expressions) fold(expression);
  for (exec::AggregateCall& call : node.aggregates) {
    for (ExpressionPtr& argument : call.arguments) fold(argument);
    fold(call.filter);
  }
  for (exec::WindowCall& call : node.window_calls) {
    for (ExpressionPtr& argument : call.arguments) fold(argument);
    fold(call.filter);
  }
  if (node.generate.input) fold(node.generate.input);
}

LogicalPtr FoldPlan(const LogicalPtr& plan, const expr::EvalContext& context) {
  LogicalPtr copy = Copy(*plan);
  for (LogicalPtr& child : copy->children) child = FoldPlan(child, context);
  FoldNode(*copy, context);
  return copy;
}

bool IsTrueLiteral(const ExpressionPtr& expression) {
  return expression->kind() == expr::ExpressionKind::kLiteral && !expression->literal().is_null() &&
         expression->type()->id() == TypeId::kBoolean && expression->literal().GetBool();
}

// ---- OR branches: common conjuncts and implied one-side filters ----

// Structural equality of two bound expressions (deterministic ones only: two rand() calls differ).
bool SameExpression(const expr::Expression& a, const expr::Expression& b) {
  if (&a == &b) return true;
  if (a.kind() != b.kind() || !a.deterministic() || !b.deterministic() ||
      a.children().size() != b.children().size() || !a.type()->Equals(*b.type())) {
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
      if (a.function().name != b.function().name) return false;
      break;
    case expr::ExpressionKind::kCast:
      if (a.error_mode() != b.error_mode()) return false;
      break;
    case expr::ExpressionKind::kArithmetic:
      if (a.arithmetic() != b.arithmetic() || a.error_mode() != b.error_mode()) return false;
      break;
    case expr::ExpressionKind::kComparison: {
      if (a.comparison() != b.comparison()) return false;
      // a = b is b = a (also for <=> and <>).
      bool symmetric = a.comparison() == expr::ComparisonOperator::kEqual ||
                       a.comparison() == expr::ComparisonOperator::kNullSafeEqual ||
                       a.comparison() == expr::ComparisonOperator::kNotEqual;
      if (symmetric && SameExpression(*a.child(0), *b.child(1)) && SameExpression(*a.child(1), *b.child(0))) {
        return true;
      }
      break;
    }
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

// The branches of an OR tree (`a OR (b OR c)` gives a, b, c); a non-OR gives itself.
void SplitDisjunction(const ExpressionPtr& expression, std::vector<ExpressionPtr>& branches) {
  if (expression->kind() == expr::ExpressionKind::kOr) {
    SplitDisjunction(expression->child(0), branches);
    SplitDisjunction(expression->child(1), branches);
  } else {
    branches.push_back(expression);
  }
}

ExpressionPtr JoinDisjunction(const std::vector<ExpressionPtr>& branches) {
  ExpressionPtr result = branches.front();
  for (size_t i = 1; i < branches.size(); ++i) result = expr::Or(result, branches[i]);
  return result;
}

bool Contains(const std::vector<ExpressionPtr>& list, const ExpressionPtr& expression) {
  return std::any_of(list.begin(), list.end(),
                     [&](const ExpressionPtr& e) { return SameExpression(*e, *expression); });
}

// The conjuncts of `expression` with the conjuncts every OR branch shares taken out of the OR:
// (a AND b) OR (a AND c) is a AND (b OR c), and (a) OR (a AND c) is a (Spark's
// BooleanSimplification). Kleene logic distributes, so NULLs give the same answer; a branch's
// shared conjuncts are still evaluated before the rest of it. Shared equalities between a
// join's sides so become join keys (TPC-H Q19).
std::vector<ExpressionPtr> FactorOrConjuncts(const ExpressionPtr& expression) {
  if (expression->kind() != expr::ExpressionKind::kOr || !expression->deterministic()) {
    return {expression};
  }
  std::vector<ExpressionPtr> branches;
  SplitDisjunction(expression, branches);
  std::vector<std::vector<ExpressionPtr>> branch_conjuncts;
  for (const ExpressionPtr& branch : branches) branch_conjuncts.push_back(expr::SplitConjunction(branch));
  std::vector<ExpressionPtr> common;
  for (const ExpressionPtr& candidate : branch_conjuncts.front()) {
    bool everywhere = std::all_of(branch_conjuncts.begin() + 1, branch_conjuncts.end(),
                                  [&](const std::vector<ExpressionPtr>& c) { return Contains(c, candidate); });
    if (everywhere && !Contains(common, candidate)) common.push_back(candidate);
  }
  if (common.empty()) return {expression};
  std::vector<ExpressionPtr> rests;
  for (const std::vector<ExpressionPtr>& conjuncts : branch_conjuncts) {
    std::vector<ExpressionPtr> rest;
    for (const ExpressionPtr& conjunct : conjuncts) {
      if (!Contains(common, conjunct)) rest.push_back(conjunct);
    }
    // A branch of shared conjuncts only is true wherever they are: so is the OR.
    if (rest.empty()) return common;
    rests.push_back(expr::JoinConjunction(rest));
  }
  common.push_back(JoinDisjunction(rests));
  return common;
}

// What an OR over both sides of a join requires of one side alone: the OR, over the branches,
// of each branch's conjuncts that read only that side (columns [begin, end)), shifted to the
// side's own columns. Every pair of rows the OR accepts passes it, so it filters that side
// before the join while the OR stays in the join condition (Spark's
// PushExtraPredicateThroughJoin). Nullptr when a branch has no such conjunct.
ExpressionPtr ImpliedSideFilter(const ExpressionPtr& disjunction, int begin, int end) {
  if (disjunction->kind() != expr::ExpressionKind::kOr || !disjunction->deterministic()) return nullptr;
  std::vector<ExpressionPtr> branches;
  SplitDisjunction(disjunction, branches);
  std::vector<ExpressionPtr> parts;
  for (const ExpressionPtr& branch : branches) {
    std::vector<ExpressionPtr> mine;
    for (const ExpressionPtr& conjunct : expr::SplitConjunction(branch)) {
      std::vector<int> columns = expr::ReferencedColumns(*conjunct);
      if (!columns.empty() && columns.front() >= begin && columns.back() < end) mine.push_back(conjunct);
    }
    if (mine.empty()) return nullptr;
    parts.push_back(expr::JoinConjunction(mine));
  }
  return expr::ShiftColumns(JoinDisjunction(parts), -begin);
}

// ---- Filter pushdown ----

bool OnlyBelow(const ExpressionPtr& expression, int width) {
  std::vector<int> columns = expr::ReferencedColumns(*expression);
  return columns.empty() || columns.back() < width;
}

bool OnlyFrom(const ExpressionPtr& expression, int start) {
  std::vector<int> columns = expr::ReferencedColumns(*expression);
  return !columns.empty() && columns.front() >= start;
}

LogicalPtr WithFilter(LogicalPtr child, const std::vector<ExpressionPtr>& conjuncts);
LogicalPtr PushFilters(const LogicalPtr& plan);

// A pushed-down conjunct may hold at most this many levels (as many as the parser lets one
// statement nest, kMaxParseDepth) and nodes (counting a shared subtree once per use, as the
// later tree walks do).
constexpr int kMaxPushedDepth = 1000;
constexpr uint64_t kMaxPushedNodes = uint64_t{1} << 16;

// Height and tree size of the expressions it has measured.
class ExpressionMeasure {
 public:
  // False when `expression` is deeper or larger than a pushed conjunct may be.
  bool Fits(const ExpressionPtr& expression) {
    Size size = Measure(*expression, kMaxPushedDepth);
    return size.height <= kMaxPushedDepth && size.nodes <= kMaxPushedNodes;
  }

 private:
  struct Size {
    int height = 0;
    uint64_t nodes = 0;
  };
  // Recurses at most `levels_left` levels; anything deeper reports a height beyond the limit.
  Size Measure(const expr::Expression& node, int levels_left) {
    if (auto found = sizes_.find(&node); found != sizes_.end()) return found->second;
    if (levels_left <= 0) return Size{kMaxPushedDepth + 1, kMaxPushedNodes + 1};
    Size size{1, 1};
    for (const ExpressionPtr& child : node.children()) {
      Size below = Measure(*child, levels_left - 1);
      size.height = std::max(size.height, below.height + 1);
      size.nodes = std::min(size.nodes + below.nodes, kMaxPushedNodes + 1);
    }
    sizes_.emplace(&node, size);
    return size;
  }
  std::unordered_map<const expr::Expression*, Size> sizes_;
};

ExpressionPtr Substitute(const ExpressionPtr& expression, const std::vector<ExpressionPtr>& replacements) {
  return expr::TransformExpression(expression, [&](const ExpressionPtr& node) -> ExpressionPtr {
    if (node->kind() != expr::ExpressionKind::kColumn) return nullptr;
    return replacements[node->column_index()];
  });
}

// Pushes `conjuncts` (over `child`'s columns) as far down into `child` as they can go.
LogicalPtr WithFilter(LogicalPtr child, const std::vector<ExpressionPtr>& conjuncts) {
  std::vector<ExpressionPtr> remaining;
  for (const ExpressionPtr& conjunct : conjuncts) {
    for (const ExpressionPtr& factor : FactorOrConjuncts(conjunct)) {
      if (!IsTrueLiteral(factor)) remaining.push_back(factor);
    }
  }
  if (remaining.empty()) return child;
  bool deterministic = std::all_of(remaining.begin(), remaining.end(),
                                   [](const ExpressionPtr& e) { return e->deterministic(); });
  if (!deterministic) return MakeLogicalFilter(child, expr::JoinConjunction(remaining));
  switch (child->kind) {
    case LogicalKind::kFilter: {
      std::vector<ExpressionPtr> all = expr::SplitConjunction(child->predicate);
      all.insert(all.end(), remaining.begin(), remaining.end());
      return WithFilter(child->children[0], all);
    }
    case LogicalKind::kDeltaScan:
    case LogicalKind::kChangeFeedScan:
    case LogicalKind::kParquetScan: {
      LogicalPtr copy = Copy(*child);
      std::vector<ExpressionPtr> all;
      if (copy->predicate) all = expr::SplitConjunction(copy->predicate);
      all.insert(all.end(), remaining.begin(), remaining.end());
      copy->predicate = expr::JoinConjunction(all);
      return copy;
    }
    case LogicalKind::kProject: {
      bool all_deterministic = std::all_of(child->expressions.begin(), child->expressions.end(),
                                           [](const ExpressionPtr& e) { return e->deterministic(); });
      if (!all_deterministic) break;
      std::vector<ExpressionPtr> below;
      for (const ExpressionPtr& conjunct : remaining) below.push_back(Substitute(conjunct, child->expressions));
      // Through a long chain of projections, substitution could build conjuncts that every
      // later pass would recurse through too deeply (or, with a column used twice per level,
      // exponentially often): such a filter stays above the projection.
      ExpressionMeasure measure;
      if (!std::all_of(below.begin(), below.end(), [&](const ExpressionPtr& e) { return measure.Fits(e); })) break;
      LogicalPtr copy = Copy(*child);
      copy->children[0] = WithFilter(child->children[0], below);
      return copy;
    }
    case LogicalKind::kSort: {
      if (child->limit || child->offset > 0) break;
      LogicalPtr copy = Copy(*child);
      copy->children[0] = WithFilter(child->children[0], remaining);
      return copy;
    }
    case LogicalKind::kDistinct: {
      LogicalPtr copy = Copy(*child);
      copy->children[0] = WithFilter(child->children[0], remaining);
      return copy;
    }
    case LogicalKind::kUnion: {
      LogicalPtr copy = Copy(*child);
      for (LogicalPtr& input : copy->children) input = WithFilter(input, remaining);
      return copy;
    }
    case LogicalKind::kGenerate: {
      int width = static_cast<int>(child->children[0]->columns.size());
      std::vector<ExpressionPtr> below, above;
      for (const ExpressionPtr& conjunct : remaining) (OnlyBelow(conjunct, width) ? below : above).push_back(conjunct);
      if (below.empty()) break;
      LogicalPtr copy = Copy(*child);
      copy->children[0] = WithFilter(child->children[0], below);
      return above.empty() ? copy : MakeLogicalFilter(copy, expr::JoinConjunction(above));
    }
    case LogicalKind::kAggregate: {
      int keys = static_cast<int>(child->expressions.size());
      std::vector<ExpressionPtr> below, above;
      for (const ExpressionPtr& conjunct : remaining) {
        if (keys > 0 && OnlyBelow(conjunct, keys) && !expr::ReferencedColumns(*conjunct).empty()) {
          below.push_back(Substitute(conjunct, child->expressions));
        } else {
          above.push_back(conjunct);
        }
      }
      if (below.empty()) break;
      ExpressionMeasure measure;
      if (!std::all_of(below.begin(), below.end(), [&](const ExpressionPtr& e) { return measure.Fits(e); })) break;
      LogicalPtr copy = Copy(*child);
      copy->children[0] = WithFilter(child->children[0], below);
      return above.empty() ? copy : MakeLogicalFilter(copy, expr::JoinConjunction(above));
    }
    case LogicalKind::kJoin: {
      int left_width = static_cast<int>(child->children[0]->columns.size());
      exec::JoinType type = child->join_type;
      bool semi = type == exec::JoinType::kLeftSemi || type == exec::JoinType::kLeftAnti;
      bool to_left_ok = type == exec::JoinType::kInner || type == exec::JoinType::kLeftOuter || semi;
      bool to_right_ok = type == exec::JoinType::kInner || type == exec::JoinType::kRightOuter;
      std::vector<ExpressionPtr> left, right, condition, above;
      for (const ExpressionPtr& conjunct : remaining) {
        if (to_left_ok && OnlyBelow(conjunct, left_width)) {
          left.push_back(conjunct);
        } else if (to_right_ok && OnlyFrom(conjunct, left_width)) {
          right.push_back(expr::ShiftColumns(conjunct, -left_width));
        } else if (type == exec::JoinType::kInner) {
          condition.push_back(conjunct);
          int right_width = static_cast<int>(child->children[1]->columns.size());
          if (ExpressionPtr implied = ImpliedSideFilter(conjunct, 0, left_width)) left.push_back(implied);
          if (ExpressionPtr implied = ImpliedSideFilter(conjunct, left_width, left_width + right_width)) {
            right.push_back(implied);
          }
        } else {
          above.push_back(conjunct);
        }
      }
      LogicalPtr copy = Copy(*child);
      copy->children[0] = WithFilter(child->children[0], left);
      copy->children[1] = WithFilter(child->children[1], right);
      if (!condition.empty()) {
        if (copy->predicate) condition.insert(condition.begin(), copy->predicate);
        copy->predicate = expr::JoinConjunction(condition);
      }
      return above.empty() ? copy : MakeLogicalFilter(copy, expr::JoinConjunction(above));
    }
    default: break;
  }
  return MakeLogicalFilter(child, expr::JoinConjunction(remaining));
}

LogicalPtr PushFilters(const LogicalPtr& plan) {
  LogicalPtr copy = Copy(*plan);
  for (LogicalPtr& child : copy->children) child = PushFilters(child);
  if (copy->kind == LogicalKind::kFilter) {
    return WithFilter(copy->children[0], expr::SplitConjunction(copy->predicate));
  }
  if (copy->kind == LogicalKind::kJoin && copy->predicate) {
    // Conjuncts of an ON condition that read one side only filter that side first, where the
    // join type allows it.
    int left_width = static_cast<int>(copy->children[0]->columns.size());
    exec::JoinType type = copy->join_type;
    bool left_ok = type == exec::JoinType::kInner || type == exec::JoinType::kRightOuter ||
                   type == exec::JoinType::kLeftSemi;
    bool right_ok = type == exec::JoinType::kInner || type == exec::JoinType::kLeftOuter ||
                    type == exec::JoinType::kLeftSemi || type == exec::JoinType::kLeftAnti;
    int right_width = static_cast<int>(copy->children[1]->columns.size());
    std::vector<ExpressionPtr> left, right, kept;
    std::vector<ExpressionPtr> conjuncts;
    for (const ExpressionPtr& conjunct : expr::SplitConjunction(copy->predicate)) {
      for (const ExpressionPtr& factor : FactorOrConjuncts(conjunct)) conjuncts.push_back(factor);
    }
    for (const ExpressionPtr& conjunct : conjuncts) {
      std::vector<int> columns = expr::ReferencedColumns(*conjunct);
      if (!conjunct->deterministic() || columns.empty()) {
        kept.push_back(conjunct);
      } else if (left_ok && columns.back() < left_width) {
        left.push_back(conjunct);
      } else if (right_ok && columns.front() >= left_width) {
        right.push_back(expr::ShiftColumns(conjunct, -left_width));
      } else {
        kept.push_back(conjunct);
        if (ExpressionPtr implied = left_ok ? ImpliedSideFilter(conjunct, 0, left_width) : nullptr) {
          left.push_back(implied);
        }
        if (ExpressionPtr implied =
                right_ok ? ImpliedSideFilter(conjunct, left_width, left_width + right_width) : nullptr) {
          right.push_back(implied);
        }
      }
    }
    if (!left.empty()) copy->children[0] = WithFilter(copy->children[0], left);
    if (!right.empty()) copy->children[1] = WithFilter(copy->children[1], right);
    copy->predicate = kept.empty() ? nullptr : expr::JoinConjunction(kept);
  }
  return copy;
}

// ---- Join order ----

// A tree of inner joins as its relations (in FROM order) and the conjuncts of its conditions
// over the relations' columns side by side.
struct InnerJoinGraph {
  std::vector<LogicalPtr> relations;
  std::vector<int> offsets;  ///< First column of each relation in the side-by-side numbering.
  std::vector<ExpressionPtr> conjuncts;
};

bool IsInnerJoin(const LogicalNode& node) {
  return node.kind == LogicalKind::kJoin && node.join_type == exec::JoinType::kInner &&
         (!node.predicate || node.predicate->deterministic());
}

LogicalPtr ReorderJoins(const LogicalPtr& plan, CardinalityEstimator& estimator, int& semi_join_moves);

void CollectInnerJoins(const LogicalPtr& node, int offset, InnerJoinGraph& graph,
                       CardinalityEstimator& estimator, int& semi_join_moves) {
  if (IsInnerJoin(*node)) {
    int left_width = static_cast<int>(node->children[0]->columns.size());
    CollectInnerJoins(node->children[0], offset, graph, estimator, semi_join_moves);
    CollectInnerJoins(node->children[1], offset + left_width, graph, estimator, semi_join_moves);
    if (node->predicate) {
      for (const ExpressionPtr& conjunct : expr::SplitConjunction(node->predicate)) {
        graph.conjuncts.push_back(expr::ShiftColumns(conjunct, offset));
      }
    }
    return;
  }
  graph.relations.push_back(ReorderJoins(node, estimator, semi_join_moves));
  graph.offsets.push_back(offset);
}

// Up to this many relations the join order search tries every bushy tree (3^n pairs of sets);
// beyond it, it joins greedily.
constexpr size_t kMaxExhaustiveRelations = 10;
// A hash join's work per row: building a row into the table costs about twice probing one.
constexpr double kBuildRowCost = 2;

using RelationSet = uint64_t;
// Relations of one tree of inner joins the search orders at most (one bit each in a set).
constexpr size_t kMaxOrderedRelations = 64;

// Orders the relations of a tree of inner joins by estimated cost: the sum over its joins of
// the rows each builds, probes and produces (a join without an equality, a nested loop, pays
// for every pair). Only sets a condition connects are joined, so there is never a cross
// product where a connected order exists; relations no condition reaches are crossed last.
// Equalities of columns make classes of equal columns: a = b and b = c also join a's relation
// with c's (TPC-H Q5 joins customer with the nations of one region through supplier's key).
class JoinOrderSearch {
 public:
  JoinOrderSearch(const LogicalPtr& join, CardinalityEstimator& estimator, int& semi_join_moves)
      : estimator_(estimator) {
    CollectInnerJoins(join, 0, graph_, estimator, semi_join_moves);
    width_ = static_cast<int>(join->columns.size());
    columns_ = join->columns;
    const size_t count = graph_.relations.size();
    relation_of_.resize(static_cast<size_t>(width_));
    for (size_t r = 0; r < count; ++r) {
      int end = r + 1 < count ? graph_.offsets[r + 1] : width_;
      for (int c = graph_.offsets[r]; c < end; ++c) relation_of_[c] = static_cast<int>(r);
    }
    // Equalities of plain columns of one type from two relations join the columns' classes;
    // the other conjuncts stay as they are.
    std::vector<int> parent(static_cast<size_t>(width_));
    for (int c = 0; c < width_; ++c) parent[static_cast<size_t>(c)] = c;
    auto parent_of = [&](int c) -> int& { return parent[static_cast<size_t>(c)]; };
    auto find = [&](int c) {
      while (parent_of(c) != c) c = parent_of(c) = parent_of(parent_of(c));
      return c;
    };
    std::vector<ExpressionPtr> conjuncts;
    std::vector<bool> in_class(static_cast<size_t>(width_), false);
    for (const ExpressionPtr& conjunct : graph_.conjuncts) {
      if (conjunct->kind() == expr::ExpressionKind::kComparison &&
          conjunct->comparison() == expr::ComparisonOperator::kEqual &&
          conjunct->child(0)->kind() == expr::ExpressionKind::kColumn &&
          conjunct->child(1)->kind() == expr::ExpressionKind::kColumn &&
          conjunct->child(0)->type()->Equals(*conjunct->child(1)->type())) {
        int a = conjunct->child(0)->column_index(), b = conjunct->child(1)->column_index();
        if (relation_of_[static_cast<size_t>(a)] != relation_of_[static_cast<size_t>(b)]) {
          parent[static_cast<size_t>(find(a))] = find(b);
          in_class[static_cast<size_t>(a)] = in_class[static_cast<size_t>(b)] = true;
          continue;
        }
      }
      conjuncts.push_back(conjunct);
    }
    std::map<int, std::vector<int>> classes;
    for (int c = 0; c < width_; ++c) {
      if (in_class[static_cast<size_t>(c)]) classes[find(c)].push_back(c);
    }
    for (auto& [root, members] : classes) {
      // Two members in one relation are equal there (what the equalities imply), so that one
      // equality per class and join equates every member of both sides.
      for (size_t i = 1; i < members.size(); ++i) {
        for (size_t j = 0; j < i; ++j) {
          if (relation_of_[static_cast<size_t>(members[i])] ==
              relation_of_[static_cast<size_t>(members[j])]) {
            conjuncts.push_back(ColumnEquality(members[j], members[i]));
            break;
          }
        }
      }
      classes_.push_back(std::move(members));
    }
    graph_.conjuncts = std::move(conjuncts);
    for (const ExpressionPtr& conjunct : graph_.conjuncts) reads_.push_back(Reads(*conjunct));
  }

  // The joins rebuilt in the order found, under a projection that restores `join`'s columns.
  LogicalPtr Plan(const LogicalPtr& join) {
    const size_t count = graph_.relations.size();
    for (size_t r = 0; r < count; ++r) Leaf(r);
    const RelationSet all =
        count >= kMaxOrderedRelations ? ~RelationSet{0} : (RelationSet{1} << count) - 1;
    if (count <= kMaxExhaustiveRelations) {
      SearchAll(all);
    } else {
      SearchGreedily();
    }
    // Connected components, each planned on its own, crossed in FROM order.
    std::vector<RelationSet> components;
    RelationSet left = all;
    while (left != 0) {
      RelationSet component = 0;
      for (const auto& entry : best_) {
        const RelationSet set = entry.first;
        if ((set & left) == set && (set & (left & -left)) != 0 &&
            Popcount(set) > Popcount(component)) {
          component = set;
        }
      }
      components.push_back(component);
      left &= ~component;
    }
    // Conjuncts over several components (a + b = c with no condition of two of them) join
    // them where the last one they read comes in.
    std::vector<bool> within(graph_.conjuncts.size(), false);
    for (size_t i = 0; i < graph_.conjuncts.size(); ++i) {
      for (RelationSet component : components) {
        within[i] = within[i] || (reads_[i] != 0 && (reads_[i] & component) == reads_[i]);
      }
    }
    std::vector<int> order;
    LogicalPtr plan;
    RelationSet joined = 0;
    for (RelationSet component : components) {
      std::vector<int> component_order;
      LogicalPtr part = Build(component, component_order);
      order.insert(order.end(), component_order.begin(), component_order.end());
      if (!plan) {
        plan = part;
        joined = component;
        continue;
      }
      joined |= component;
      std::vector<int> position = Positions(order);
      std::vector<ExpressionPtr> conditions;
      for (size_t i = 0; i < graph_.conjuncts.size(); ++i) {
        if (within[i] || reads_[i] == 0 || (reads_[i] & joined) != reads_[i]) continue;
        within[i] = true;
        conditions.push_back(expr::RemapColumns(graph_.conjuncts[i], position));
      }
      plan = MakeLogicalJoin(plan, part, exec::JoinType::kInner,
                             conditions.empty() ? nullptr : expr::JoinConjunction(conditions));
    }
    std::vector<int> position = Positions(order);
    // Conjuncts that read no relation filter the whole join.
    std::vector<ExpressionPtr> constant;
    for (size_t i = 0; i < graph_.conjuncts.size(); ++i) {
      if (reads_[i] == 0) constant.push_back(expr::RemapColumns(graph_.conjuncts[i], position));
    }
    if (!constant.empty()) plan = MakeLogicalFilter(plan, expr::JoinConjunction(constant));
    std::vector<ExpressionPtr> expressions;
    for (int c = 0; c < width_; ++c) {
      const LogicalColumn& column = join->columns[static_cast<size_t>(c)];
      expressions.push_back(
          expr::Column(position[static_cast<size_t>(c)], column.type, column.nullable));
    }
    return MakeLogicalProject(plan, std::move(expressions), join->columns);
  }

 private:
  // The best plan found for a set of relations: a relation (left == 0), or the join of two
  // sets, `right` the one to build.
  struct SetPlan {
    double cost = 0;
    RelationEstimate estimate;
    std::vector<int> order;  // relations in output column order
    RelationSet left = 0;
    RelationSet right = 0;
  };

  static int Popcount(RelationSet set) { return __builtin_popcountll(set); }

  RelationSet Reads(const expr::Expression& expression) const {
    RelationSet set = 0;
    for (int column : expr::ReferencedColumns(expression)) {
      set |= RelationSet{1} << relation_of_[static_cast<size_t>(column)];
    }
    return set;
  }

  // Column c of the side-by-side numbering -> its index when relations come in `order`.
  std::vector<int> Positions(const std::vector<int>& order) const {
    std::vector<int> position(static_cast<size_t>(width_), -1);
    int next = 0;
    for (int r : order) {
      int begin = graph_.offsets[static_cast<size_t>(r)];
      int end = static_cast<size_t>(r) + 1 < graph_.relations.size()
                    ? graph_.offsets[static_cast<size_t>(r) + 1]
                    : width_;
      for (int c = begin; c < end; ++c) position[static_cast<size_t>(c)] = next++;
    }
    return position;
  }

  // `a` = `b`, two columns of the side-by-side numbering.
  ExpressionPtr ColumnEquality(int a, int b) const {
    const LogicalColumn& left = columns_[static_cast<size_t>(a)];
    const LogicalColumn& right = columns_[static_cast<size_t>(b)];
    return expr::Compare(expr::ComparisonOperator::kEqual,
                         expr::Column(a, left.type, left.nullable),
                         expr::Column(b, right.type, right.nullable));
  }

  // The conjuncts a join of `left` and `right` completes, over their columns side by side: the
  // conjuncts that read both and nothing else, and for each class of equal columns with
  // members on both sides, one equality of them.
  std::vector<ExpressionPtr> Conditions(const SetPlan& left, const SetPlan& right,
                                        RelationSet left_set, RelationSet right_set,
                                        bool* equality) const {
    std::vector<int> order = left.order;
    order.insert(order.end(), right.order.begin(), right.order.end());
    std::vector<int> position;
    std::vector<ExpressionPtr> conditions;
    const RelationSet both = left_set | right_set;
    for (const std::vector<int>& members : classes_) {
      int from_left = -1, from_right = -1;
      for (int column : members) {
        RelationSet relation = RelationSet{1} << relation_of_[static_cast<size_t>(column)];
        if (from_left < 0 && (relation & left_set) != 0) from_left = column;
        if (from_right < 0 && (relation & right_set) != 0) from_right = column;
      }
      if (from_left < 0 || from_right < 0) continue;
      if (position.empty()) position = Positions(order);
      conditions.push_back(expr::RemapColumns(ColumnEquality(from_left, from_right), position));
      if (equality) *equality = true;
    }
    for (size_t i = 0; i < graph_.conjuncts.size(); ++i) {
      RelationSet reads = reads_[i];
      if ((reads & both) != reads || (reads & left_set) == 0 || (reads & right_set) == 0) continue;
      if (position.empty()) position = Positions(order);
      const ExpressionPtr& conjunct = graph_.conjuncts[i];
      conditions.push_back(expr::RemapColumns(conjunct, position));
      if (equality && conjunct->kind() == expr::ExpressionKind::kComparison &&
          (conjunct->comparison() == expr::ComparisonOperator::kEqual ||
           conjunct->comparison() == expr::ComparisonOperator::kNullSafeEqual)) {
        RelationSet a = Reads(*conjunct->child(0)), b = Reads(*conjunct->child(1));
        bool split = a != 0 && b != 0 &&
                     (((a & left_set) == a && (b & right_set) == b) ||
                      ((a & right_set) == a && (b & left_set) == b));
        *equality = *equality || split;
      }
    }
    return conditions;
  }

  void Leaf(size_t r) {
    SetPlan plan;
    const RelationSet set = RelationSet{1} << r;
    plan.estimate = estimator_.Estimate(graph_.relations[r]);
    plan.order = {static_cast<int>(r)};
    std::vector<ExpressionPtr> own;
    std::vector<int> position = Positions(plan.order);
    for (size_t i = 0; i < graph_.conjuncts.size(); ++i) {
      if (reads_[i] == set) own.push_back(expr::RemapColumns(graph_.conjuncts[i], position));
    }
    if (!own.empty())
      plan.estimate = CardinalityEstimator::Filter(plan.estimate, expr::JoinConjunction(own));
    best_[set] = std::move(plan);
  }

  // Considers joining the best plans of `a` and `b`.
  void Consider(RelationSet a, RelationSet b) {
    auto found_a = best_.find(a), found_b = best_.find(b);
    if (found_a == best_.end() || found_b == best_.end()) return;
    const SetPlan& plan_a = found_a->second;
    const SetPlan& plan_b = found_b->second;
    // The smaller side builds.
    bool b_builds = plan_b.estimate.rows <= plan_a.estimate.rows;
    const SetPlan& probe = b_builds ? plan_a : plan_b;
    const SetPlan& build = b_builds ? plan_b : plan_a;
    RelationSet probe_set = b_builds ? a : b, build_set = b_builds ? b : a;
    bool equality = false;
    std::vector<ExpressionPtr> conditions =
        Conditions(probe, build, probe_set, build_set, &equality);
    if (conditions.empty()) return;
    RelationEstimate estimate = CardinalityEstimator::Join(
        probe.estimate, build.estimate, exec::JoinType::kInner, expr::JoinConjunction(conditions));
    double work = equality ? probe.estimate.rows + kBuildRowCost * build.estimate.rows
                           : probe.estimate.rows * build.estimate.rows;
    double cost = probe.cost + build.cost + work + estimate.rows;
    auto existing = best_.find(a | b);
    if (existing != best_.end() && existing->second.cost <= cost) return;
    SetPlan plan;
    plan.cost = cost;
    plan.estimate = std::move(estimate);
    plan.order = probe.order;
    plan.order.insert(plan.order.end(), build.order.begin(), build.order.end());
    plan.left = probe_set;
    plan.right = build_set;
    best_[a | b] = std::move(plan);
  }

  // Every split of every set, smaller sets first (a set's subsets are smaller numbers).
  void SearchAll(RelationSet all) {
    for (RelationSet set = 1; set <= all; ++set) {
      if (Popcount(set) < 2) continue;
      const RelationSet lowest = set & -set;
      for (RelationSet part = (set - 1) & set; part != 0; part = (part - 1) & set) {
        // Each unordered pair once: the part holding the lowest relation.
        if ((part & lowest) == 0) continue;
        Consider(part, set & ~part);
      }
    }
  }

  // Repeatedly joins the two connected sets whose join is estimated smallest.
  void SearchGreedily() {
    std::vector<RelationSet> sets;
    for (size_t r = 0; r < graph_.relations.size(); ++r) sets.push_back(RelationSet{1} << r);
    while (sets.size() > 1) {
      double smallest = 0;
      size_t pick_a = 0, pick_b = 0;
      bool found = false;
      for (size_t i = 0; i < sets.size(); ++i) {
        for (size_t j = i + 1; j < sets.size(); ++j) {
          Consider(sets[i], sets[j]);
          auto joined = best_.find(sets[i] | sets[j]);
          if (joined == best_.end()) continue;
          if (!found || joined->second.estimate.rows < smallest) {
            found = true;
            smallest = joined->second.estimate.rows;
            pick_a = i;
            pick_b = j;
          }
        }
      }
      if (!found) break;
      sets[pick_a] |= sets[pick_b];
      sets.erase(sets.begin() + static_cast<std::ptrdiff_t>(pick_b));
    }
  }

  // The plan of `set`, its relations' order appended to `order`.
  LogicalPtr Build(RelationSet set, std::vector<int>& order) {
    const SetPlan& plan = best_.at(set);
    if (plan.left == 0) {
      int r = plan.order[0];
      order.push_back(r);
      const LogicalPtr& relation = graph_.relations[static_cast<size_t>(r)];
      std::vector<ExpressionPtr> own;
      std::vector<int> position = Positions({r});
      for (size_t i = 0; i < graph_.conjuncts.size(); ++i) {
        if (reads_[i] == set) own.push_back(expr::RemapColumns(graph_.conjuncts[i], position));
      }
      return own.empty() ? relation : MakeLogicalFilter(relation, expr::JoinConjunction(own));
    }
    std::vector<int> left_order, right_order;
    LogicalPtr left = Build(plan.left, left_order);
    LogicalPtr right = Build(plan.right, right_order);
    std::vector<ExpressionPtr> conditions =
        Conditions(best_.at(plan.left), best_.at(plan.right), plan.left, plan.right, nullptr);
    order.insert(order.end(), left_order.begin(), left_order.end());
    order.insert(order.end(), right_order.begin(), right_order.end());
    return MakeLogicalJoin(left, right, exec::JoinType::kInner, expr::JoinConjunction(conditions));
  }

  CardinalityEstimator& estimator_;
  InnerJoinGraph graph_;
  int width_ = 0;
  std::vector<LogicalColumn> columns_;     // side by side
  std::vector<std::vector<int>> classes_;  // columns equal to each other, from several relations
  std::vector<int> relation_of_;
  std::vector<RelationSet> reads_;  // per conjunct
  std::map<RelationSet, SetPlan> best_;
};

// The relations of the tree of inner joins at `node`.
size_t CountInnerJoinRelations(const LogicalNode& node) {
  if (!IsInnerJoin(node)) return 1;
  return CountInnerJoinRelations(*node.children[0]) + CountInnerJoinRelations(*node.children[1]);
}

// ---- Semi and anti joins into a tree of inner joins ----

// The estimated work of the joins of `plan`, as the join order search counts it: per join the
// rows probed, twice the rows built (the smaller side) and the rows produced, or the product of
// the inputs for a join without an equality.
double JoinWork(const LogicalPtr& plan, CardinalityEstimator& estimator) {
  double work = 0;
  for (const LogicalPtr& child : plan->children) work += JoinWork(child, estimator);
  if (plan->kind != LogicalKind::kJoin) return work;
  const double left = estimator.Estimate(plan->children[0]).rows;
  const double right = estimator.Estimate(plan->children[1]).rows;
  const double produced = estimator.Estimate(plan).rows;
  bool equality = false;
  if (plan->predicate) {
    const int left_width = static_cast<int>(plan->children[0]->columns.size());
    for (const ExpressionPtr& conjunct : expr::SplitConjunction(plan->predicate)) {
      if (conjunct->kind() != expr::ExpressionKind::kComparison ||
          (conjunct->comparison() != expr::ComparisonOperator::kEqual &&
           conjunct->comparison() != expr::ComparisonOperator::kNullSafeEqual)) {
        continue;
      }
      std::vector<int> a = expr::ReferencedColumns(*conjunct->child(0));
      std::vector<int> b = expr::ReferencedColumns(*conjunct->child(1));
      if (a.empty() || b.empty()) continue;
      equality = equality || (a.back() < left_width && b.front() >= left_width) ||
                 (b.back() < left_width && a.front() >= left_width);
    }
  }
  work += equality ? std::max(left, right) + kBuildRowCost * std::min(left, right) : left * right;
  return work + produced;
}

// A semi or anti join whose left side is a tree of inner joins, with the semi join moved onto
// the one relation of the tree that holds every left column its condition reads (Spark's
// PushLeftSemiLeftAntiThroughJoin): it keeps or drops each row of that relation by the row's own
// values, so the tree's rows are the same. Nullptr when the condition reads no left column, or
// left columns of several relations.
LogicalPtr SemiJoinIntoInnerJoins(const LogicalNode& semi) {
  const LogicalPtr& tree = semi.children[0];
  const int tree_width = static_cast<int>(tree->columns.size());
  if (!semi.predicate || !semi.predicate->deterministic()) return nullptr;
  std::vector<int> left_columns;
  for (int column : expr::ReferencedColumns(*semi.predicate)) {
    if (column < tree_width) left_columns.push_back(column);
  }
  if (left_columns.empty()) return nullptr;
  // The path down to the relation, and the relation's first column in the tree's output.
  std::vector<std::pair<LogicalPtr, int>> path;  // each inner join and the child taken
  LogicalPtr node = tree;
  int offset = 0;
  while (IsInnerJoin(*node)) {
    const int left_width = static_cast<int>(node->children[0]->columns.size());
    const bool into_left = left_columns.back() < offset + left_width;
    const bool into_right = left_columns.front() >= offset + left_width;
    if (!into_left && !into_right) return nullptr;
    path.emplace_back(node, into_left ? 0 : 1);
    if (into_right) offset += left_width;
    node = node->children[into_left ? 0 : 1];
  }
  const int relation_width = static_cast<int>(node->columns.size());
  const int right_width = static_cast<int>(semi.children[1]->columns.size());
  std::vector<int> mapping(static_cast<size_t>(tree_width + right_width), -1);
  for (int c = 0; c < relation_width; ++c) mapping[static_cast<size_t>(offset + c)] = c;
  for (int c = 0; c < right_width; ++c) mapping[static_cast<size_t>(tree_width + c)] = relation_width + c;
  LogicalPtr moved = Copy(semi);
  moved->children = {node, semi.children[1]};
  moved->columns = node->columns;
  moved->predicate = expr::RemapColumns(semi.predicate, mapping);
  LogicalPtr result = moved;
  for (size_t i = path.size(); i-- > 0;) {
    LogicalPtr join = Copy(*path[i].first);
    join->children[static_cast<size_t>(path[i].second)] = result;
    result = join;
  }
  return result;
}

// At most this many semi or anti joins are tried inside their trees of inner joins in one plan:
// each try orders the tree's relations once more, and a tried semi join nested in a relation of
// another would double that work per level.
constexpr int kMaxSemiJoinMoves = 8;

LogicalPtr ReorderJoins(const LogicalPtr& plan, CardinalityEstimator& estimator, int& semi_join_moves) {
  // Two relations keep their order: the physical planner picks the build side.
  if (IsInnerJoin(*plan)) {
    size_t relations = CountInnerJoinRelations(*plan);
    if (relations > 2 && relations <= kMaxOrderedRelations)
      return JoinOrderSearch(plan, estimator, semi_join_moves).Plan(plan);
  }
  LogicalPtr copy = Copy(*plan);
  for (LogicalPtr& child : copy->children) child = ReorderJoins(child, estimator, semi_join_moves);
  // A semi or anti join above a tree of inner joins either filters the tree's rows or, moved
  // onto the relation whose rows it keeps or drops, that relation's rows before the joins
  // (TPC-H Q18's IN over 57 orders then filters orders instead of their 6M line items): the
  // cheaper by estimated join work.
  const bool semi = plan->kind == LogicalKind::kJoin && (plan->join_type == exec::JoinType::kLeftSemi ||
                                                         plan->join_type == exec::JoinType::kLeftAnti);
  if (semi && IsInnerJoin(*plan->children[0]) && semi_join_moves < kMaxSemiJoinMoves) {
    if (LogicalPtr moved = SemiJoinIntoInnerJoins(*plan)) {
      ++semi_join_moves;
      LogicalPtr reordered = ReorderJoins(moved, estimator, semi_join_moves);
      if (JoinWork(reordered, estimator) < JoinWork(copy, estimator)) return reordered;
    }
  }
  return copy;
}

LogicalPtr ReorderJoins(const LogicalPtr& plan, CardinalityEstimator& estimator) {
  int semi_join_moves = 0;
  return ReorderJoins(plan, estimator, semi_join_moves);
}

// ---- Grouped aggregates reduced to the keys the other join side can match ----
//
// A join of rows with an aggregate grouped by the join key, where the aggregate's groups that
// match no row are not kept (an inner join, or the aggregate on the side an outer, semi or anti
// join drops unmatched rows of) — the shape a correlated scalar subquery is decorrelated into
// (TPC-H Q2, Q17, Q20) — needs only the groups of keys the other side holds. When a small
// filtered part of the other side (a "domain", a superset of the keys it can hold) can be
// computed cheaply, the aggregate's input is first semi-joined with it, so that it aggregates
// the rows of those keys only. Groups are dropped whole, and only those no row can match with
// `=`, so the join's result is the same, NULL and empty groups included.

// Rows read by the scans under `node`, by the files' statistics (filters not counted).
double ScannedRows(const LogicalNode& node) {
  double rows = 0;
  switch (node.kind) {
    case LogicalKind::kDeltaScan:
      for (const log::AddFile& file : node.snapshot->files()) {
        std::optional<int64_t> records;
        if (file.stats) {
          try {
            records = log::FileStats::Parse(*file.stats, file.path).num_records();
          } catch (const Error&) {
            records.reset();
          }
        }
        // Without statistics, assume about 100 bytes per row (as the physical planner does).
        rows += records ? static_cast<double>(*records) : static_cast<double>(file.size) / 100.0;
      }
      return rows;
    case LogicalKind::kParquetScan:
    case LogicalKind::kChangeFeedScan:
      return 1e6;
    case LogicalKind::kValues:
      for (const Batch& batch : node.batches) rows += static_cast<double>(batch.num_rows());
      return rows;
    case LogicalKind::kRange:
      return node.range_step == 0
                 ? 0
                 : std::max(0.0, static_cast<double>(node.range_end - node.range_start) /
                                     static_cast<double>(node.range_step));
    default:
      for (const LogicalPtr& child : node.children) rows += ScannedRows(*child);
      return rows;
  }
}

// Whether `node` filters rows somewhere below it (a filter, or a scan with a row filter).
bool HasFilter(const LogicalNode& node) {
  if (node.kind == LogicalKind::kFilter && node.predicate) return true;
  bool scan = node.kind == LogicalKind::kDeltaScan || node.kind == LogicalKind::kParquetScan ||
              node.kind == LogicalKind::kChangeFeedScan;
  if (scan && node.predicate) return true;
  return std::any_of(node.children.begin(), node.children.end(),
                     [](const LogicalPtr& child) { return HasFilter(*child); });
}

// Whether evaluating `node` twice gives the same rows: deterministic expressions, and no limit
// (which rows a limit keeps may differ between runs of a parallel scan).
bool Repeatable(const LogicalNode& node) {
  auto deterministic = [](const ExpressionPtr& e) { return !e || e->deterministic(); };
  if (node.kind == LogicalKind::kLimit || node.limit || node.kind == LogicalKind::kGenerate ||
      node.kind == LogicalKind::kWindow || !deterministic(node.predicate) ||
      !std::all_of(node.expressions.begin(), node.expressions.end(), deterministic)) {
    return false;
  }
  for (const exec::AggregateCall& call : node.aggregates) {
    if (!deterministic(call.filter) ||
        !std::all_of(call.arguments.begin(), call.arguments.end(), deterministic)) {
      return false;
    }
  }
  for (const auto& projection : node.projections) {
    if (!std::all_of(projection.begin(), projection.end(), deterministic)) return false;
  }
  return std::all_of(node.children.begin(), node.children.end(),
                     [](const LogicalPtr& child) { return Repeatable(*child); });
}

// Some columns of a node: the node, and the columns' indexes in its output.
struct ColumnsOf {
  LogicalPtr node;
  std::vector<int> columns;
};

// `columns` followed one node down, where every value of them in `node`'s output is a value of
// the same columns of one child (projections of plain columns, filters, sorts without limit,
// and join sides); nullopt elsewhere.
std::optional<ColumnsOf> ColumnsBelow(const ColumnsOf& at) {
  const LogicalNode& node = *at.node;
  switch (node.kind) {
    case LogicalKind::kFilter:
      return ColumnsOf{node.children[0], at.columns};
    case LogicalKind::kSort:
      if (node.limit || node.offset > 0) return std::nullopt;
      return ColumnsOf{node.children[0], at.columns};
    case LogicalKind::kProject: {
      ColumnsOf below{node.children[0], {}};
      for (int column : at.columns) {
        const ExpressionPtr& expression = node.expressions[static_cast<size_t>(column)];
        if (expression->kind() != expr::ExpressionKind::kColumn) return std::nullopt;
        below.columns.push_back(expression->column_index());
      }
      return below;
    }
    case LogicalKind::kJoin: {
      const int left_width = static_cast<int>(node.children[0]->columns.size());
      bool all_left =
          std::all_of(at.columns.begin(), at.columns.end(), [&](int c) { return c < left_width; });
      bool all_right =
          std::all_of(at.columns.begin(), at.columns.end(), [&](int c) { return c >= left_width; });
      if (all_left) return ColumnsOf{node.children[0], at.columns};
      if (!all_right) return std::nullopt;
      ColumnsOf below{node.children[1], at.columns};
      for (int& column : below.columns) column -= left_width;
      return below;
    }
    default:
      return std::nullopt;
  }
}

// The smallest subtree of `side` that holds every value `columns` take in `side`'s output and
// still filters rows: `side` followed down while the subtree reached filters. Nullopt when
// no filter is met or evaluating it twice could differ.
std::optional<ColumnsOf> KeyDomain(const ColumnsOf& side) {
  ColumnsOf domain = side;
  while (std::optional<ColumnsOf> below = ColumnsBelow(domain)) {
    if (!HasFilter(*below->node)) break;
    domain = std::move(*below);
  }
  if (!HasFilter(*domain.node) || !Repeatable(*domain.node)) return std::nullopt;
  return domain;
}

// `input` semi-joined with `domain` on keys[i] = domain column i, the semi join placed as far
// down as the keys' columns go (through projections of plain columns, filters and the side of
// an inner join, or the kept side of an outer, semi or anti join, that holds them all).
LogicalPtr SemiJoinKeys(const LogicalPtr& input, const std::vector<ExpressionPtr>& keys,
                        const ColumnsOf& domain) {
  bool plain = std::all_of(keys.begin(), keys.end(), [](const ExpressionPtr& key) {
    return key->kind() == expr::ExpressionKind::kColumn;
  });
  if (plain) {
    std::vector<int> columns;
    for (const ExpressionPtr& key : keys) columns.push_back(key->column_index());
    std::optional<ColumnsOf> below = ColumnsBelow({input, columns});
    const bool kept_side = input->kind != LogicalKind::kJoin ||
                           input->join_type == exec::JoinType::kInner ||
                           (below && below->node == input->children[0] &&
                            input->join_type != exec::JoinType::kRightOuter &&
                            input->join_type != exec::JoinType::kFullOuter);
    if (below && kept_side) {
      std::vector<ExpressionPtr> child_keys;
      for (size_t k = 0; k < keys.size(); ++k) {
        child_keys.push_back(expr::Column(below->columns[k], keys[k]->type(), keys[k]->nullable()));
      }
      LogicalPtr copy = Copy(*input);
      for (LogicalPtr& child : copy->children) {
        if (child == below->node) {
          child = SemiJoinKeys(child, child_keys, domain);
          break;
        }
      }
      return copy;
    }
  }
  const int width = static_cast<int>(input->columns.size());
  std::vector<ExpressionPtr> equalities;
  for (size_t k = 0; k < keys.size(); ++k) {
    const LogicalColumn& column = domain.node->columns[static_cast<size_t>(domain.columns[k])];
    equalities.push_back(
        expr::Compare(expr::ComparisonOperator::kEqual, keys[k],
                      expr::Column(width + static_cast<int>(k), column.type, column.nullable)));
  }
  return MakeLogicalJoin(input, MakeLogicalSelectColumns(domain.node, domain.columns),
                         exec::JoinType::kLeftSemi, expr::JoinConjunction(equalities));
}

// `side` with the aggregate it reads (through projections of plain columns and filters on
// group keys, as HAVING gives) reduced to the groups whose keys `columns` take in `domain`;
// nullptr when `columns` are not group keys of such an aggregate, or computing the domain
// could cost more than half of what the aggregate's input scans.
LogicalPtr ReduceAggregate(const LogicalPtr& side, const std::vector<int>& columns,
                           const ColumnsOf& domain) {
  if (side->kind == LogicalKind::kAggregate) {
    std::vector<ExpressionPtr> keys;
    for (int column : columns) {
      if (column >= static_cast<int>(side->expressions.size())) return nullptr;
      const ExpressionPtr& key = side->expressions[static_cast<size_t>(column)];
      if (!key->deterministic()) return nullptr;
      keys.push_back(key);
    }
    for (size_t k = 0; k < keys.size(); ++k) {
      const LogicalColumn& domain_column =
          domain.node->columns[static_cast<size_t>(domain.columns[k])];
      if (!keys[k]->type()->Equals(*domain_column.type)) return nullptr;
    }
    if (2 * ScannedRows(*domain.node) > ScannedRows(*side->children[0])) return nullptr;
    LogicalPtr copy = Copy(*side);
    copy->children[0] = SemiJoinKeys(side->children[0], keys, domain);
    return copy;
  }
  if (side->kind != LogicalKind::kProject && side->kind != LogicalKind::kFilter) return nullptr;
  std::optional<ColumnsOf> below = ColumnsBelow({side, columns});
  if (!below) return nullptr;
  LogicalPtr reduced = ReduceAggregate(below->node, below->columns, domain);
  if (!reduced) return nullptr;
  LogicalPtr copy = Copy(*side);
  copy->children[0] = std::move(reduced);
  return copy;
}

// Reduces the aggregate side `reduced` (0 left, 1 right) of `join` when the condition's
// equalities of plain columns tie group keys of it to the other side; true when it did.
bool ReduceJoinSide(LogicalNode& join, int reduced) {
  const int left_width = static_cast<int>(join.children[0]->columns.size());
  std::vector<int> other_columns, reduced_columns;
  for (const ExpressionPtr& conjunct : expr::SplitConjunction(join.predicate)) {
    if (conjunct->kind() != expr::ExpressionKind::kComparison ||
        conjunct->comparison() != expr::ComparisonOperator::kEqual ||
        conjunct->child(0)->kind() != expr::ExpressionKind::kColumn ||
        conjunct->child(1)->kind() != expr::ExpressionKind::kColumn) {
      continue;
    }
    int a = conjunct->child(0)->column_index(), b = conjunct->child(1)->column_index();
    if ((a < left_width) == (b < left_width)) continue;
    int left = std::min(a, b), right = std::max(a, b) - left_width;
    other_columns.push_back(reduced == 0 ? right : left);
    reduced_columns.push_back(reduced == 0 ? left : right);
  }
  if (other_columns.empty()) return false;
  std::optional<ColumnsOf> domain =
      KeyDomain({join.children[static_cast<size_t>(1 - reduced)], other_columns});
  if (!domain) return false;
  LogicalPtr side =
      ReduceAggregate(join.children[static_cast<size_t>(reduced)], reduced_columns, *domain);
  if (!side) return false;
  join.children[static_cast<size_t>(reduced)] = std::move(side);
  return true;
}

// At most this many aggregates are reduced in one plan: each reduction makes a subtree used
// twice, which every later pass walks once per use, so nesting them must not multiply the work
// without bound.
constexpr int kMaxReducedAggregates = 8;

LogicalPtr ReduceJoinedAggregates(const LogicalPtr& plan, int& budget) {
  LogicalPtr copy = Copy(*plan);
  for (LogicalPtr& child : copy->children) child = ReduceJoinedAggregates(child, budget);
  if (budget <= 0 || copy->kind != LogicalKind::kJoin || !copy->predicate || copy->null_aware_anti) {
    return copy;
  }
  bool reduced = false;
  switch (copy->join_type) {
    case exec::JoinType::kInner:
      reduced = ReduceJoinSide(*copy, 1) || ReduceJoinSide(*copy, 0);
      break;
    case exec::JoinType::kLeftOuter:
    case exec::JoinType::kLeftSemi:
    case exec::JoinType::kLeftAnti:
      reduced = ReduceJoinSide(*copy, 1);
      break;
    case exec::JoinType::kRightOuter:
      reduced = ReduceJoinSide(*copy, 0);
      break;
    default:
      break;
  }
  if (reduced) --budget;
  return copy;
}

LogicalPtr ReduceJoinedAggregates(const LogicalPtr& plan) {
  int budget = kMaxReducedAggregates;
  return ReduceJoinedAggregates(plan, budget);
}

// ---- Scan pruning predicates ----

std::optional<log::ScanPredicate::Op> ScanOp(expr::ComparisonOperator op, bool flipped) {
  using Op = log::ScanPredicate::Op;
  switch (op) {
    case expr::ComparisonOperator::kEqual:
    case expr::ComparisonOperator::kNullSafeEqual: return Op::kEqual;
    case expr::ComparisonOperator::kLess: return flipped ? Op::kGreater : Op::kLess;
    case expr::ComparisonOperator::kLessOrEqual: return flipped ? Op::kGreaterOrEqual : Op::kLessOrEqual;
    case expr::ComparisonOperator::kGreater: return flipped ? Op::kLess : Op::kGreater;
    case expr::ComparisonOperator::kGreaterOrEqual: return flipped ? Op::kLessOrEqual : Op::kGreaterOrEqual;
    default: return std::nullopt;
  }
}

// Types whose literal text (Scalar::ToString) is also the partition-value text the scan parses.
// Timestamps are left out: their text depends on the session time zone.
bool PrunableType(const DataType& type) {
  return !type.is_nested() && type.id() != TypeId::kBinary && type.id() != TypeId::kTimestamp &&
         type.id() != TypeId::kTimestampNtz && type.id() != TypeId::kNull;
}

void DeriveScanPredicates(LogicalNode& scan) { scan.scan_predicates = ScanPredicatesOf(scan); }

}  // namespace

std::vector<log::ScanPredicate> DeriveScanPredicates(const ExpressionPtr& predicate, const Schema& schema) {
  std::vector<log::ScanPredicate> predicates;
  for (const ExpressionPtr& conjunct : expr::SplitConjunction(predicate)) {
    auto column_name = [&](const ExpressionPtr& e) -> const Field* {
      if (e->kind() != expr::ExpressionKind::kColumn) return nullptr;
      const Field& column = schema.field(static_cast<size_t>(e->column_index()));
      return PrunableType(*column.type) ? &column : nullptr;
    };
    auto literal_text = [](const ExpressionPtr& e) -> std::optional<std::string> {
      if (e->kind() != expr::ExpressionKind::kLiteral || e->literal().is_null()) return std::nullopt;
      return e->literal().ToString();
    };
    switch (conjunct->kind()) {
      case expr::ExpressionKind::kComparison: {
        for (int side = 0; side < 2; ++side) {
          const Field* column = column_name(conjunct->child(side));
          std::optional<std::string> value = literal_text(conjunct->child(1 - side));
          std::optional<log::ScanPredicate::Op> op = ScanOp(conjunct->comparison(), side == 1);
          if (column && value && op && conjunct->child(side)->type()->Equals(*conjunct->child(1 - side)->type())) {
            predicates.push_back(log::ScanPredicate{column->name, *op, *value});
            break;
          }
        }
        break;
      }
      case expr::ExpressionKind::kIsNull:
      case expr::ExpressionKind::kIsNotNull: {
        const Field* column = column_name(conjunct->child(0));
        if (column) {
          predicates.push_back(log::ScanPredicate{
              column->name,
              conjunct->kind() == expr::ExpressionKind::kIsNull ? log::ScanPredicate::Op::kIsNull
                                                                : log::ScanPredicate::Op::kIsNotNull,
              ""});
        }
        break;
      }
      case expr::ExpressionKind::kIn: {
        const Field* column = column_name(conjunct->child(0));
        if (!column || conjunct->children().size() == 2) {
          if (column && conjunct->children().size() == 2) {
            std::optional<std::string> value = literal_text(conjunct->child(1));
            if (value && conjunct->child(1)->type()->Equals(*conjunct->child(0)->type())) {
              predicates.push_back(log::ScanPredicate{column->name, log::ScanPredicate::Op::kEqual, *value});
            }
          }
          break;
        }
        // A list: the file must hold a value between the smallest and the largest item.
        std::optional<expr::Scalar> low, high;
        bool usable = expr::IsNumeric(*conjunct->child(0)->type()) || conjunct->child(0)->type()->id() == TypeId::kDate;
        for (size_t i = 1; usable && i < conjunct->children().size(); ++i) {
          const ExpressionPtr& item = conjunct->child(i);
          if (item->kind() != expr::ExpressionKind::kLiteral || item->literal().is_null() ||
              !item->type()->Equals(*conjunct->child(0)->type())) {
            usable = false;
            break;
          }
          const expr::Scalar& value = item->literal();
          auto less = [](const expr::Scalar& a, const expr::Scalar& b) {
            if (a.type()->id() == TypeId::kFloat || a.type()->id() == TypeId::kDouble) return a.GetDouble() < b.GetDouble();
            if (a.type()->id() == TypeId::kDecimal) return a.GetDecimal() < b.GetDecimal();
            return a.GetInt() < b.GetInt();
          };
          if (!low || less(value, *low)) low = value;
          if (!high || less(*high, value)) high = value;
        }
        if (usable && low && high) {
          predicates.push_back(
              log::ScanPredicate{column->name, log::ScanPredicate::Op::kGreaterOrEqual, low->ToString()});
          predicates.push_back(
              log::ScanPredicate{column->name, log::ScanPredicate::Op::kLessOrEqual, high->ToString()});
        }
        break;
      }
      default: break;
    }
  }
  return predicates;
}

namespace {

// ---- Column pruning ----

struct Pruned {
  LogicalPtr node;
  std::vector<int> mapping;  // old output index -> new output index, -1 when dropped
};

void MarkReferenced(const ExpressionPtr& expression, std::vector<bool>& needed, int offset = 0) {
  if (!expression) return;
  for (int column : expr::ReferencedColumns(*expression)) {
    int index = column - offset;
    if (index >= 0 && index < static_cast<int>(needed.size())) needed[index] = true;
  }
}

ExpressionPtr Remap(const ExpressionPtr& expression, const std::vector<int>& mapping) {
  return expression ? expr::RemapColumns(expression, mapping) : nullptr;
}

std::vector<int> Identity(size_t n) {
  std::vector<int> mapping(n);
  for (size_t i = 0; i < n; ++i) mapping[i] = static_cast<int>(i);
  return mapping;
}

Pruned Prune(const LogicalPtr& plan, std::vector<bool> needed);

bool SelectsColumnsOnly(const LogicalNode& project) {
  return std::all_of(project.expressions.begin(), project.expressions.end(),
                     [](const ExpressionPtr& e) { return e->kind() == expr::ExpressionKind::kColumn; });
}

Pruned PruneAll(const LogicalPtr& plan) { return Prune(plan, std::vector<bool>(plan->columns.size(), true)); }

Pruned Prune(const LogicalPtr& plan, std::vector<bool> needed) {
  // Every operator keeps at least one column, so that row counts survive (count(*)).
  if (!needed.empty() && std::none_of(needed.begin(), needed.end(), [](bool b) { return b; })) needed[0] = true;
  LogicalPtr copy = Copy(*plan);
  switch (plan->kind) {
    case LogicalKind::kDeltaScan:
    case LogicalKind::kChangeFeedScan:
    case LogicalKind::kParquetScan: {
      const std::vector<bool> wanted = needed;
      MarkReferenced(plan->predicate, needed);
      // A Delta scan reads at least one table column (an empty column list means all of them),
      // so `_metadata` alone brings the first along.
      if (plan->kind == LogicalKind::kDeltaScan) {
        bool table_column = false;
        for (size_t i = 0; i < needed.size(); ++i) {
          table_column = table_column || (needed[i] && !plan->columns[i].file_metadata);
        }
        if (!table_column) needed[0] = true;
      }
      std::vector<int> mapping(plan->columns.size(), -1);
      copy->columns.clear();
      copy->scan_columns.clear();
      for (size_t i = 0; i < plan->columns.size(); ++i) {
        if (!needed[i]) continue;
        mapping[i] = static_cast<int>(copy->columns.size());
        copy->columns.push_back(plan->columns[i]);
        if (plan->kind != LogicalKind::kParquetScan) copy->scan_columns.push_back(plan->scan_columns[i]);
      }
      copy->predicate = Remap(plan->predicate, mapping);
      if (plan->kind != LogicalKind::kParquetScan) DeriveScanPredicates(*copy);
      if (wanted == needed) return {copy, mapping};
      // Columns read only for the scan's filter (o_comment for `o_comment NOT LIKE ...`) end
      // at the scan: a projection keeps joins and aggregations above from carrying them.
      std::vector<int> kept;
      std::vector<int> kept_mapping(plan->columns.size(), -1);
      for (size_t i = 0; i < plan->columns.size(); ++i) {
        if (!wanted[i]) continue;
        kept_mapping[i] = static_cast<int>(kept.size());
        kept.push_back(mapping[i]);
      }
      return {MakeLogicalSelectColumns(copy, kept), kept_mapping};
    }
    case LogicalKind::kValues:
    case LogicalKind::kRange: return {copy, Identity(plan->columns.size())};
    case LogicalKind::kFilter:
    case LogicalKind::kSort:
    case LogicalKind::kLimit: {
      std::vector<bool> child_needed = needed;
      MarkReferenced(plan->predicate, child_needed);
      for (const exec::SortKey& key : plan->sort_keys) child_needed[key.column] = true;
      Pruned child = Prune(plan->children[0], child_needed);
      copy->children[0] = child.node;
      copy->columns = child.node->columns;
      copy->predicate = Remap(plan->predicate, child.mapping);
      for (exec::SortKey& key : copy->sort_keys) key.column = child.mapping[key.column];
      return {copy, child.mapping};
    }
    case LogicalKind::kProject: {
      std::vector<bool> child_needed(plan->children[0]->columns.size(), false);
      std::vector<int> mapping(plan->columns.size(), -1);
      for (size_t i = 0; i < plan->expressions.size(); ++i) {
        if (needed[i]) MarkReferenced(plan->expressions[i], child_needed);
      }
      Pruned child = Prune(plan->children[0], child_needed);
      // The projection pruning puts over a filtering scan only selects columns: this one reads
      // through it instead of stacking a second projection.
      std::vector<int> child_mapping = child.mapping;
      if (child.node->kind == LogicalKind::kProject && SelectsColumnsOnly(*child.node) &&
          plan->children[0]->kind != LogicalKind::kProject) {
        for (int& index : child_mapping) {
          if (index >= 0) index = child.node->expressions[static_cast<size_t>(index)]->column_index();
        }
        child.node = child.node->children[0];
      }
      copy->children[0] = child.node;
      copy->expressions.clear();
      copy->columns.clear();
      for (size_t i = 0; i < plan->expressions.size(); ++i) {
        if (!needed[i]) continue;
        mapping[i] = static_cast<int>(copy->expressions.size());
        copy->expressions.push_back(Remap(plan->expressions[i], child_mapping));
        copy->columns.push_back(plan->columns[i]);
      }
      return {copy, mapping};
    }
    case LogicalKind::kAggregate: {
      std::vector<bool> child_needed(plan->children[0]->columns.size(), false);
      for (const ExpressionPtr& key : plan->expressions) MarkReferenced(key, child_needed);
      for (const exec::AggregateCall& call : plan->aggregates) {
        for (const ExpressionPtr& argument : call.arguments) MarkReferenced(argument, child_needed);
        MarkReferenced(call.filter, child_needed);
      }
      Pruned child = Prune(plan->children[0], child_needed);
      copy->children[0] = child.node;
      for (ExpressionPtr& key : copy->expressions) key = Remap(key, child.mapping);
      for (exec::AggregateCall& call : copy->aggregates) {
        for (ExpressionPtr& argument : call.arguments) argument = Remap(argument, child.mapping);
        call.filter = Remap(call.filter, child.mapping);
      }
      return {copy, Identity(plan->columns.size())};
    }
    case LogicalKind::kWindow: {
      size_t base = plan->children[0]->columns.size();
      std::vector<bool> child_needed(needed.begin(), needed.begin() + base);
      for (const ExpressionPtr& partition : plan->window_partition) MarkReferenced(partition, child_needed);
      for (const exec::SortKey& key : plan->sort_keys) child_needed[key.column] = true;
      for (const exec::WindowCall& call : plan->window_calls) {
        for (const ExpressionPtr& argument : call.arguments) MarkReferenced(argument, child_needed);
        MarkReferenced(call.filter, child_needed);
      }
      Pruned child = Prune(plan->children[0], child_needed);
      copy->children[0] = child.node;
      for (ExpressionPtr& partition : copy->window_partition) partition = Remap(partition, child.mapping);
      for (exec::SortKey& key : copy->sort_keys) key.column = child.mapping[key.column];
      for (exec::WindowCall& call : copy->window_calls) {
        for (ExpressionPtr& argument : call.arguments) argument = Remap(argument, child.mapping);
        call.filter = Remap(call.filter, child.mapping);
      }
      copy->columns = child.node->columns;
      std::vector<int> mapping = child.mapping;
      for (size_t i = base; i < plan->columns.size(); ++i) {
        mapping.push_back(static_cast<int>(copy->columns.size()));
        copy->columns.push_back(plan->columns[i]);
      }
      return {copy, mapping};
    }
    case LogicalKind::kGenerate: {
      size_t base = plan->children[0]->columns.size();
      std::vector<bool> child_needed(needed.begin(), needed.begin() + base);
      MarkReferenced(plan->generate.input, child_needed);
      Pruned child = Prune(plan->children[0], child_needed);
      copy->children[0] = child.node;
      copy->generate.input = Remap(plan->generate.input, child.mapping);
      copy->columns = child.node->columns;
      std::vector<int> mapping = child.mapping;
      for (size_t i = base; i < plan->columns.size(); ++i) {
        mapping.push_back(static_cast<int>(copy->columns.size()));
        copy->columns.push_back(plan->columns[i]);
      }
      return {copy, mapping};
    }
    case LogicalKind::kJoin: {
      size_t left_width = plan->children[0]->columns.size();
      size_t right_width = plan->children[1]->columns.size();
      std::vector<bool> left_needed(needed.begin(), needed.begin() + left_width);
      std::vector<bool> right_needed(right_width, false);
      if (needed.size() > left_width) {
        for (size_t i = 0; i < right_width; ++i) right_needed[i] = needed[left_width + i];
      }
      MarkReferenced(plan->predicate, left_needed);
      MarkReferenced(plan->predicate, right_needed, static_cast<int>(left_width));
      Pruned left = Prune(plan->children[0], left_needed);
      Pruned right = Prune(plan->children[1], right_needed);
      int new_left_width = static_cast<int>(left.node->columns.size());
      std::vector<int> condition_mapping = left.mapping;
      for (int index : right.mapping) condition_mapping.push_back(index < 0 ? -1 : new_left_width + index);
      LogicalPtr join = MakeLogicalJoin(left.node, right.node, plan->join_type, Remap(plan->predicate, condition_mapping));
      join->null_aware_anti = plan->null_aware_anti;
      // Keep the hidden flags and names the binder gave the join's own columns.
      std::vector<int> mapping(plan->columns.size(), -1);
      for (size_t i = 0; i < plan->columns.size(); ++i) {
        int index = i < left_width ? left.mapping[i] : (right.mapping[i - left_width] < 0 ? -1 : new_left_width + right.mapping[i - left_width]);
        mapping[i] = index;
        if (index >= 0) join->columns[index] = plan->columns[i];
      }
      return {join, mapping};
    }
    case LogicalKind::kExpand: {
      std::vector<bool> child_needed(plan->children[0]->columns.size(), false);
      for (const std::vector<ExpressionPtr>& projection : plan->projections) {
        for (size_t i = 0; i < projection.size(); ++i) {
          if (needed[i]) MarkReferenced(projection[i], child_needed);
        }
      }
      Pruned child = Prune(plan->children[0], child_needed);
      copy->children[0] = child.node;
      copy->columns.clear();
      std::vector<int> mapping(plan->columns.size(), -1);
      for (size_t i = 0; i < plan->columns.size(); ++i) {
        if (!needed[i]) continue;
        mapping[i] = static_cast<int>(copy->columns.size());
        copy->columns.push_back(plan->columns[i]);
      }
      for (size_t p = 0; p < plan->projections.size(); ++p) {
        copy->projections[p].clear();
        for (size_t i = 0; i < plan->projections[p].size(); ++i) {
          if (needed[i]) copy->projections[p].push_back(Remap(plan->projections[p][i], child.mapping));
        }
      }
      return {copy, mapping};
    }
    case LogicalKind::kUnion:
    case LogicalKind::kSetOperation:
    case LogicalKind::kDistinct: {
      for (LogicalPtr& child : copy->children) child = PruneAll(child).node;
      return {copy, Identity(plan->columns.size())};
    }
  }
  return {copy, Identity(plan->columns.size())};
}

// ---- Top-N ----

LogicalPtr TopN(const LogicalPtr& plan) {
  LogicalPtr copy = Copy(*plan);
  for (LogicalPtr& child : copy->children) child = TopN(child);
  if (copy->kind != LogicalKind::kLimit || !copy->limit) return copy;
  LogicalPtr child = copy->children[0];
  auto into_sort = [&](const LogicalPtr& sort) {
    LogicalPtr sorted = Copy(*sort);
    sorted->limit = copy->limit;
    sorted->offset = copy->offset;
    return sorted;
  };
  if (child->kind == LogicalKind::kSort && !child->limit && child->offset == 0) return into_sort(child);
  if (child->kind == LogicalKind::kProject && child->children[0]->kind == LogicalKind::kSort &&
      !child->children[0]->limit && child->children[0]->offset == 0) {
    LogicalPtr project = Copy(*child);
    project->children[0] = into_sort(child->children[0]);
    return project;
  }
  return copy;
}

}  // namespace

ExpressionPtr FoldConstants(const ExpressionPtr& expression, const expr::EvalContext& context) {
  return expr::TransformExpression(expression, [&](const ExpressionPtr& node) -> ExpressionPtr {
    if (node->kind() == expr::ExpressionKind::kLiteral || node->kind() == expr::ExpressionKind::kColumn) {
      return nullptr;
    }
    if (!node->deterministic()) return nullptr;
    for (const ExpressionPtr& child : node->children()) {
      if (child->kind() != expr::ExpressionKind::kLiteral) return nullptr;
    }
    if (node->kind() == expr::ExpressionKind::kCall && node->children().empty()) return nullptr;
    try {
      expr::EvalContext local = context;
      Batch one_row(std::make_shared<Schema>(), {}, 1);
      VectorPtr result = expr::Evaluate(*node, one_row, local);
      return expr::Literal(expr::Scalar::FromVector(*result, 0));
    } catch (const Error&) {
      return nullptr;  // raised again at run time, if a row gets there
    }
  });
}

std::vector<log::ScanPredicate> ScanPredicatesOf(const LogicalNode& scan) {
  const Schema* stored = scan.kind == LogicalKind::kChangeFeedScan
                             ? scan.change_feed->schema().get()
                             : &scan.snapshot->schema();
  std::vector<Field> fields;
  for (size_t i = 0; i < scan.columns.size(); ++i) {
    const LogicalColumn& column = scan.columns[i];
    int index = scan.scan_columns[i];
    const std::string& name = index == kFileMetadataScanColumn
                                  ? column.name
                                  : stored->field(static_cast<size_t>(index)).name;
    fields.push_back(Field{name, column.type, column.nullable, {}});
  }
  return scan.predicate ? DeriveScanPredicates(scan.predicate, Schema(std::move(fields)))
                        : std::vector<log::ScanPredicate>{};
}

LogicalPtr OptimizePlan(const LogicalPtr& plan, const expr::EvalContext& context) {
  CardinalityEstimator estimator;
  return OptimizePlan(plan, context, estimator);
}

LogicalPtr OptimizePlan(const LogicalPtr& plan, const expr::EvalContext& context,
                        CardinalityEstimator& estimator) {
  LogicalPtr result = FoldPlan(plan, context);
  result = PushFilters(result);
  result = ReorderJoins(result, estimator);
  result = ReduceJoinedAggregates(result);
  result = TopN(result);
  result = PruneAll(result).node;
  return result;
}

}  // namespace silt::sql
