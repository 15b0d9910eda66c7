#include "silt/expr/expression_rewrite.h"

#include <algorithm>

#include "silt/base/check.h"

namespace silt::expr {

void VisitExpression(const Expression& expression,
                     const std::function<void(const Expression&)>& visit) {
  visit(expression);
  for (const ExpressionPtr& child : expression.children()) VisitExpression(*child, visit);
}

std::vector<int> ReferencedColumns(const Expression& expression) {
  std::vector<int> columns;
  VisitExpression(expression, [&](const Expression& node) {
    if (node.kind() == ExpressionKind::kColumn) columns.push_back(node.column_index());
  });
  std::sort(columns.begin(), columns.end());
  columns.erase(std::unique(columns.begin(), columns.end()), columns.end());
  return columns;
}

ExpressionPtr TransformExpression(const ExpressionPtr& expression,
                                  const std::function<ExpressionPtr(const ExpressionPtr&)>& rewrite) {
  ExpressionPtr node = expression;
  if (!expression->children().empty()) {
    std::vector<ExpressionPtr> children;
    children.reserve(expression->children().size());
    bool changed = false;
    for (const ExpressionPtr& child : expression->children()) {
      children.push_back(TransformExpression(child, rewrite));
      changed = changed || children.back() != child;
    }
    if (changed) node = expression->WithChildren(std::move(children));
  }
  ExpressionPtr replacement = rewrite(node);
  return replacement ? replacement : node;
}

ExpressionPtr RemapColumns(const ExpressionPtr& expression, const std::vector<int>& mapping) {
  return TransformExpression(expression, [&](const ExpressionPtr& node) -> ExpressionPtr {
    if (node->kind() != ExpressionKind::kColumn) return nullptr;
    int index = node->column_index();
    SILT_CHECK(index < static_cast<int>(mapping.size()) && mapping[index] >= 0,
               "RemapColumns: a referenced column has no new index");
    if (mapping[index] == index) return nullptr;
    return Column(mapping[index], node->type(), node->nullable());
  });
}

ExpressionPtr ShiftColumns(const ExpressionPtr& expression, int offset) {
  if (offset == 0) return expression;
  return TransformExpression(expression, [&](const ExpressionPtr& node) -> ExpressionPtr {
    if (node->kind() != ExpressionKind::kColumn) return nullptr;
    return Column(node->column_index() + offset, node->type(), node->nullable());
  });
}

std::vector<ExpressionPtr> SplitConjunction(const ExpressionPtr& expression) {
  std::vector<ExpressionPtr> conjuncts;
  std::vector<ExpressionPtr> stack{expression};
  while (!stack.empty()) {
    ExpressionPtr node = stack.back();
    stack.pop_back();
    if (node->kind() == ExpressionKind::kAnd) {
      stack.push_back(node->child(1));
      stack.push_back(node->child(0));
    } else {
      conjuncts.push_back(node);
    }
  }
  return conjuncts;
}

ExpressionPtr JoinConjunction(const std::vector<ExpressionPtr>& conjuncts) {
  SILT_CHECK(!conjuncts.empty(), "JoinConjunction needs at least one conjunct");
  ExpressionPtr result = conjuncts[0];
  for (size_t i = 1; i < conjuncts.size(); ++i) result = And(result, conjuncts[i]);
  return result;
}

}  // namespace silt::expr
