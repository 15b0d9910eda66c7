#pragma once

#include <string>
#include <vector>

#include "silt/expr/expression.h"
#include "silt/expr/function_registry.h"
#include "silt/expr/scalar.h"
#include "silt/sql/ast.h"
#include "silt/types/data_type.h"

/// Turns AST expressions (sql::Expression) into bound expressions (expr::Expression): literals,
/// operators, CASE, CAST, IN lists, BETWEEN, LIKE, field access, subscripts and function calls,
/// with Spark's type coercion and error classes. Names, aggregates, window calls and subqueries
/// are delegated to a BindingScope that the query binder implements.
namespace silt::sql {

class ExpressionBinder;

/// How the names and relational parts of an expression bind in one place of a query.
class BindingScope {
 public:
  virtual ~BindingScope() = default;
  /// A column or field path as written (`a`, `t.a`, `s.f`, `t.s.f`, `db.t.a`): the bound
  /// column (with struct field extraction for the remaining parts). Throws UNRESOLVED_COLUMN
  /// (with suggestions) or AMBIGUOUS_REFERENCE, positioned at `position`.
  virtual expr::ExpressionPtr ResolveColumn(const QualifiedName& name,
                                            const SourcePosition& position) = 0;
  /// An aggregate call without OVER (count(*), sum(DISTINCT x) FILTER (WHERE ...)). The default
  /// throws the error Spark gives where aggregates are not allowed (e.g. in WHERE:
  /// INVALID_WHERE_CONDITION).
  virtual expr::ExpressionPtr BindAggregate(const Expression& call, ExpressionBinder& binder);
  /// A function call with OVER. The default throws (window functions are not allowed here).
  virtual expr::ExpressionPtr BindWindow(const Expression& call, ExpressionBinder& binder);
  /// kScalarSubquery, kExists, or kIn with a subquery. The default throws
  /// UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.
  virtual expr::ExpressionPtr BindSubquery(const Expression& node, ExpressionBinder& binder);
  /// A generator (explode, posexplode, inline) in a select list. The default throws
  /// UNSUPPORTED_GENERATOR.
  virtual expr::ExpressionPtr BindGenerator(const Expression& call, ExpressionBinder& binder);
  /// grouping(col) or grouping_id(cols...). The default throws UNSUPPORTED_GROUPING_EXPRESSION
  /// (they need GROUP BY with GROUPING SETS, ROLLUP or CUBE).
  virtual expr::ExpressionPtr BindGrouping(const Expression& call, ExpressionBinder& binder);
  /// A name used in the place where this scope's context allows it instead of a column (unused
  /// by default): lambda parameters. Returns nullptr when the name is not one.
  virtual expr::ExpressionPtr ResolveSpecialName(const QualifiedName& name) { return nullptr; }
};

/// Binds expressions of one scope. Stateless apart from the scope; cheap to create.
class ExpressionBinder {
 public:
  explicit ExpressionBinder(BindingScope& scope,
                            const expr::FunctionRegistry& functions = expr::FunctionRegistry::Default());

  BindingScope& scope() { return scope_; }

  /// The bound form of `expression`. Errors: DATATYPE_MISMATCH (Spark's message naming the
  /// expression and types), UNRESOLVED_ROUTINE, WRONG_NUM_ARGS, INVALID_TYPED_LITERAL, and the
  /// scope's errors; each positioned (`line l, pos p`) at the node.
  expr::ExpressionPtr Bind(const Expression& expression);

  /// Binds `expression` and requires BOOLEAN (DATATYPE_MISMATCH otherwise), for WHERE/ON/HAVING.
  /// `clause` ("WHERE", "JOIN", "HAVING", ...) picks Spark's wording: a "Filter expression" for
  /// filters, a "Join condition" for JOIN. An untyped NULL becomes a BOOLEAN NULL.
  expr::ExpressionPtr BindPredicate(const Expression& expression, const std::string& clause);

 private:
  expr::ExpressionPtr BindNode(const Expression& node);
  expr::ExpressionPtr BindLiteral(const Expression& node);
  expr::ExpressionPtr BindUnary(const Expression& node);
  expr::ExpressionPtr BindBinary(const Expression& node);
  expr::ExpressionPtr BindFunction(const Expression& node);
  /// transform, filter, aggregate, ...: value arguments, then each lambda's body in a scope
  /// where its parameters shadow columns and outer values are captured.
  expr::ExpressionPtr BindHigherOrderFunction(const Expression& node, const std::string& name);

  BindingScope& scope_;
  const expr::FunctionRegistry& functions_;
};

/// `struct_value.field` (case-insensitive field name): throws FIELD_NOT_FOUND-style
/// UNRESOLVED_COLUMN when the struct has no such field, DATATYPE_MISMATCH for a non-struct.
expr::ExpressionPtr GetStructField(expr::ExpressionPtr struct_value, const std::string& field,
                                   const SourcePosition& position);

/// The column name Spark gives an unaliased select item: a column's own name (`t.a` gives `a`,
/// `s.f` gives `f`; a CAST of a column keeps the column's name), and otherwise the expression's SQL text as Spark prints it: `(a + 1)`,
/// `count(1)` for count(*), `sum(x)`, `CAST(x AS INT)`, `CASE WHEN (a > 1) THEN x ELSE y END`,
/// `1`, `abc` for 'abc', `NULL`, `(a = 1)`, `upper(name)`, `max(DISTINCT x)`.
std::string AutoColumnName(const Expression& expression);

/// The Spark SQL text of an AST expression as above, used in messages and plan text. Columns
/// print without their table qualifier; as the AST cannot tell `t.a` from a struct field `s.f`,
/// a two-part name prints its last part and a longer one its last two.
std::string ExpressionSql(const Expression& expression);

/// Spark's SQL name of a type: INT, BIGINT, DECIMAL(10,2), ARRAY<INT>, STRUCT<a: INT>.
std::string DataTypeSql(const DataType& type);

/// Evaluates an expression that must be constant (LIMIT, OFFSET, TIMESTAMP AS OF, table
/// function arguments, frame offsets): binds it with no columns in scope and evaluates it.
/// Throws what binding and evaluation throw (a column reference is UNRESOLVED_COLUMN without
/// suggestions); `what` names the clause for the caller's own checks and is not part of these
/// errors, as Spark's are the same in every clause.
expr::Scalar EvaluateConstant(const Expression& expression, const std::string& what,
                              const expr::EvalContext& context);

/// The table version a `VERSION AS OF` value names: an integer, or a string holding one (Spark's
/// grammar takes both). Throws INVALID_PARAMETER_VALUE otherwise.
int64_t TimeTravelVersion(const expr::Scalar& value);

/// A scope over the columns of one schema, optionally qualified by `qualifier` (a table name or
/// alias): for CHECK constraints, generated columns, DML predicates and assignments. Supports
/// field paths; no aggregates, windows or subqueries.
class SchemaScope : public BindingScope {
 public:
  SchemaScope(SchemaPtr schema, std::vector<std::string> qualifier = {});
  expr::ExpressionPtr ResolveColumn(const QualifiedName& name, const SourcePosition& position) override;

 private:
  SchemaPtr schema_;
  std::vector<std::string> qualifier_;
};

}  // namespace silt::sql
