#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "silt/expr/eval_context.h"
#include "silt/expr/scalar.h"
#include "silt/types/data_type.h"
#include "silt/vector/vector.h"

namespace silt::expr {

/// The kinds of bound expression nodes.
enum class ExpressionKind {
  kLiteral,
  kColumn,      ///< an input column by index
  kCall,        ///< a resolved function (function_registry.h)
  kCast,
  kCase,        ///< CASE WHEN c1 THEN v1 ... [ELSE e] END; children c1, v1, c2, v2, ..., [e]
  kIn,          ///< children[0] IN (children[1..])
  kIsNull,
  kIsNotNull,
  kAnd,
  kOr,
  kNot,
  kCoalesce,
  kComparison,
  kArithmetic,
};

enum class ComparisonOperator {
  kEqual,
  kNotEqual,
  kLess,
  kLessOrEqual,
  kGreater,
  kGreaterOrEqual,
  kNullSafeEqual,  ///< <=>: never NULL
};

enum class ArithmeticOperator { kAdd, kSubtract, kMultiply, kDivide, kRemainder };

/// How a node reacts to a row error: follow EvalContext::ansi, or return NULL (try_cast,
/// try_divide, try_add, ...).
enum class ErrorMode { kSession, kTry };

/// A function kernel: computes the result of `num_rows` rows from argument vectors (each of
/// `num_rows` rows, already cast to the overload's parameter types). Row errors go to
/// `context.RecordError` for rows in `mask` only.
using FunctionKernel = std::function<VectorPtr(const std::vector<VectorPtr>& arguments,
                                               int64_t num_rows, EvalContext& context,
                                               RowMask mask)>;

/// A function overload chosen by the registry for given argument types.
struct ResolvedFunction {
  std::string name;            ///< lower-case name, for ToString and errors
  DataTypePtr result_type;
  bool deterministic = true;
  /// NULL in any argument gives NULL without calling the kernel's logic for that row. The
  /// evaluator does not rely on this; it is for optimisers.
  bool null_intolerant = true;
  FunctionKernel kernel;
};
using ResolvedFunctionPtr = std::shared_ptr<const ResolvedFunction>;

class Expression;
/// Bound expressions are immutable and shared.
using ExpressionPtr = std::shared_ptr<const Expression>;

/// A bound expression node: its kind, result type, nullability and children. Built by the
/// factories below, which check and coerce their operands' types (inserting implicit casts as
/// Spark's type coercion does) and throw DATATYPE_MISMATCH for operands that cannot be used.
class Expression {
 public:
  ExpressionKind kind() const { return kind_; }
  const DataTypePtr& type() const { return type_; }
  bool nullable() const { return nullable_; }
  /// False when the node or a descendant is non-deterministic (rand(), uuid(), ...).
  bool deterministic() const { return deterministic_; }
  const std::vector<ExpressionPtr>& children() const { return children_; }
  const ExpressionPtr& child(size_t i) const { return children_[i]; }

  /// kLiteral only.
  const Scalar& literal() const { return *literal_; }
  /// kColumn only.
  int column_index() const { return column_index_; }
  /// kComparison only.
  ComparisonOperator comparison() const { return comparison_; }
  /// kArithmetic only.
  ArithmeticOperator arithmetic() const { return arithmetic_; }
  /// kCast and kArithmetic.
  ErrorMode error_mode() const { return error_mode_; }
  /// kCase: true when the last child is the ELSE value.
  bool has_else() const { return has_else_; }
  /// kCall only.
  const ResolvedFunction& function() const { return *function_; }

  /// A readable SQL-like form for plans and error messages: "(a#0 + 2)", "CAST(x#1 AS INT)".
  std::string ToString() const;

  /// A copy of this node (kind, type, attributes) over other children of the same types; for
  /// plan rewrites (expression_rewrite.h). `children` must match children() in number.
  ExpressionPtr WithChildren(std::vector<ExpressionPtr> children) const;

  /// Used by the factories; prefer them.
  Expression(ExpressionKind kind, DataTypePtr type, bool nullable, std::vector<ExpressionPtr> children)
      : kind_(kind), type_(std::move(type)), nullable_(nullable), children_(std::move(children)) {
    for (const ExpressionPtr& child : children_) deterministic_ = deterministic_ && child->deterministic();
  }

 private:
  friend ExpressionPtr Literal(Scalar);
  friend ExpressionPtr Column(int, DataTypePtr, bool);
  friend ExpressionPtr Cast(ExpressionPtr, DataTypePtr, ErrorMode);
  friend ExpressionPtr Compare(ComparisonOperator, ExpressionPtr, ExpressionPtr);
  friend ExpressionPtr Arithmetic(ArithmeticOperator, ExpressionPtr, ExpressionPtr, ErrorMode);
  friend ExpressionPtr Case(std::vector<std::pair<ExpressionPtr, ExpressionPtr>>, ExpressionPtr);
  friend ExpressionPtr Call(ResolvedFunctionPtr, std::vector<ExpressionPtr>);

  ExpressionKind kind_;
  DataTypePtr type_;
  bool nullable_ = true;
  bool deterministic_ = true;
  std::vector<ExpressionPtr> children_;
  std::shared_ptr<const Scalar> literal_;
  int column_index_ = -1;
  ComparisonOperator comparison_ = ComparisonOperator::kEqual;
  ArithmeticOperator arithmetic_ = ArithmeticOperator::kAdd;
  ErrorMode error_mode_ = ErrorMode::kSession;
  bool has_else_ = false;
  ResolvedFunctionPtr function_;
};

/// A constant.
ExpressionPtr Literal(Scalar value);
/// Input column `index` of the batch, of type `type`.
ExpressionPtr Column(int index, DataTypePtr type, bool nullable = true);
/// CAST(child AS type), or TRY_CAST with ErrorMode::kTry. Throws DATATYPE_MISMATCH when Spark
/// cannot cast between the types (CanCast in cast.h). A cast to the child's own type returns the
/// child.
ExpressionPtr Cast(ExpressionPtr child, DataTypePtr type, ErrorMode mode = ErrorMode::kSession);
/// A comparison; operands are coerced to a common type (ComparisonType in type_coercion.h).
ExpressionPtr Compare(ComparisonOperator op, ExpressionPtr left, ExpressionPtr right);
/// left op right; operands are coerced (ArithmeticTypes in type_coercion.h): integral `/` gives
/// double, decimals follow Spark's DecimalPrecision rules.
ExpressionPtr Arithmetic(ArithmeticOperator op, ExpressionPtr left, ExpressionPtr right,
                         ErrorMode mode = ErrorMode::kSession);
/// CASE WHEN ... THEN ... [ELSE ...] END (pass a null `otherwise` for no ELSE). Conditions must
/// be boolean; values are cast to their common type.
ExpressionPtr Case(std::vector<std::pair<ExpressionPtr, ExpressionPtr>> branches,
                   ExpressionPtr otherwise);
/// IF(condition, then, else): a two-branch CASE.
ExpressionPtr If(ExpressionPtr condition, ExpressionPtr then_value, ExpressionPtr else_value);
/// value IN (list...): NULL when no match and the value or any list item is NULL.
ExpressionPtr In(ExpressionPtr value, std::vector<ExpressionPtr> list);
ExpressionPtr IsNull(ExpressionPtr child);
ExpressionPtr IsNotNull(ExpressionPtr child);
/// Three-valued AND/OR/NOT over boolean operands.
ExpressionPtr And(ExpressionPtr left, ExpressionPtr right);
ExpressionPtr Or(ExpressionPtr left, ExpressionPtr right);
ExpressionPtr Not(ExpressionPtr child);
/// The first non-NULL argument; arguments are cast to their common type.
ExpressionPtr Coalesce(std::vector<ExpressionPtr> arguments);
/// A call of a resolved function on arguments already of the overload's parameter types.
ExpressionPtr Call(ResolvedFunctionPtr function, std::vector<ExpressionPtr> arguments);

}  // namespace silt::expr
