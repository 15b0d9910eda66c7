#pragma once

#include <functional>
#include <vector>

#include "silt/expr/expression.h"

/// Walking and rewriting bound expressions, for plan rewrites (column pruning, filter pushdown).
namespace silt::expr {

/// Calls `visit` on every node of `expression`, parents before children.
void VisitExpression(const Expression& expression,
                     const std::function<void(const Expression&)>& visit);

/// The input column indexes `expression` reads, sorted and without repeats.
std::vector<int> ReferencedColumns(const Expression& expression);

/// Rebuilds `expression` bottom-up: children are transformed first, then `rewrite` is called on
/// the node (with its new children); it returns a replacement, or nullptr to keep the node.
/// Unchanged subtrees are shared, not copied.
ExpressionPtr TransformExpression(const ExpressionPtr& expression,
                                  const std::function<ExpressionPtr(const ExpressionPtr&)>& rewrite);

/// `expression` with every column index i replaced by mapping[i]. Every referenced column must
/// have mapping[i] >= 0 (INTERNAL_ERROR otherwise).
ExpressionPtr RemapColumns(const ExpressionPtr& expression, const std::vector<int>& mapping);

/// `expression` with every column index shifted by `offset` (e.g. right-side columns of a join).
ExpressionPtr ShiftColumns(const ExpressionPtr& expression, int offset);

/// The conjuncts of an AND tree (`a AND (b AND c)` gives a, b, c); a non-AND gives itself.
std::vector<ExpressionPtr> SplitConjunction(const ExpressionPtr& expression);
/// AND of `conjuncts` (at least one).
ExpressionPtr JoinConjunction(const std::vector<ExpressionPtr>& conjuncts);

}  // namespace silt::expr
