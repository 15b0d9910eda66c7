#pragma once

#include <optional>
#include <string>
#include <vector>

#include "silt/expr/expression.h"
#include "silt/sql/ast.h"
#include "silt/sql/expression_binder.h"
#include "silt/sql/logical_plan.h"

/// Name resolution over the columns of a relation (a FROM clause, a join's two sides), as
/// Spark's analyzer resolves attributes: qualifiers match any suffix of a column's qualifier,
/// names compare case-insensitively, the longest qualifier that matches wins, and the parts left
/// over are struct fields.
namespace silt::sql {

/// A name resolved to one column of a column list.
struct ResolvedName {
  int column = -1;
  /// How many parts of the name the qualifier and column used; the rest are struct fields.
  size_t parts_used = 0;
};

/// Resolves `name` among `columns`. Returns nullopt when no column matches; throws
/// AMBIGUOUS_REFERENCE (positioned) when several do. Hidden columns match qualified names only.
std::optional<ResolvedName> FindColumn(const std::vector<LogicalColumn>& columns,
                                       const QualifiedName& name, const SourcePosition& position);

/// The bound column `resolved` names, with the struct fields of the remaining parts extracted.
expr::ExpressionPtr ColumnReference(const std::vector<LogicalColumn>& columns,
                                    const ResolvedName& resolved, const QualifiedName& name,
                                    const SourcePosition& position, int index_offset = 0);

/// Throws UNRESOLVED_COLUMN for `name`, suggesting the closest of `columns` (positioned).
[[noreturn]] void ThrowUnresolvedColumn(const QualifiedName& name,
                                        const std::vector<LogicalColumn>& columns,
                                        const SourcePosition& position);

/// `name` as Spark quotes it in messages: `t`.`a`.
std::string QuoteName(const QualifiedName& name);

/// Case-insensitive (ASCII) equality, as Spark compares identifiers.
bool NamesEqual(const std::string& left, const std::string& right);

/// A scope over one list of columns (for join conditions, ORDER BY of set operations, and the
/// DataFrame API). Aggregates, windows, generators and subqueries keep the defaults (refused).
class RelationScope : public BindingScope {
 public:
  explicit RelationScope(std::vector<LogicalColumn> columns) : columns_(std::move(columns)) {}
  expr::ExpressionPtr ResolveColumn(const QualifiedName& name, const SourcePosition& position) override;
  const std::vector<LogicalColumn>& columns() const { return columns_; }

 private:
  std::vector<LogicalColumn> columns_;
};

}  // namespace silt::sql
