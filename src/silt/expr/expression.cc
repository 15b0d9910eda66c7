#include "silt/expr/expression.h"

#include "silt/base/check.h"
#include "silt/expr/cast.h"
#include "silt/expr/type_coercion.h"

namespace silt::expr {
namespace {

[[noreturn]] void ThrowMismatch(const std::string& sql, const std::string& message) {
  SILT_THROW(DATATYPE_MISMATCH, {{"sqlExpr", "\"" + sql + "\""}, {"message", message}});
}

std::string QuotedType(const DataTypePtr& type) {
  std::string name = type->ToString();
  for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return "\"" + name + "\"";
}

// Boolean operands: void (an untyped NULL) becomes a boolean NULL; other types are refused.
ExpressionPtr RequireBoolean(ExpressionPtr operand, const std::string& sql) {
  if (operand->type()->id() == TypeId::kBoolean) return operand;
  if (operand->type()->id() == TypeId::kNull) return Cast(std::move(operand), BooleanType());
  ThrowMismatch(sql, "the operand " + operand->ToString() + " has type " + QuotedType(operand->type()) +
                         ", which is not \"BOOLEAN\".");
}

std::string ComparisonSymbol(ComparisonOperator op) {
  switch (op) {
    case ComparisonOperator::kEqual: return "=";
    case ComparisonOperator::kNotEqual: return "!=";
    case ComparisonOperator::kLess: return "<";
    case ComparisonOperator::kLessOrEqual: return "<=";
    case ComparisonOperator::kGreater: return ">";
    case ComparisonOperator::kGreaterOrEqual: return ">=";
    case ComparisonOperator::kNullSafeEqual: return "<=>";
  }
  return "?";
}

std::string ArithmeticSymbol(ArithmeticOperator op) {
  switch (op) {
    case ArithmeticOperator::kAdd: return "+";
    case ArithmeticOperator::kSubtract: return "-";
    case ArithmeticOperator::kMultiply: return "*";
    case ArithmeticOperator::kDivide: return "/";
    case ArithmeticOperator::kRemainder: return "%";
  }
  return "?";
}

bool AnyNullable(const std::vector<ExpressionPtr>& children) {
  for (const ExpressionPtr& child : children) {
    if (child->nullable()) return true;
  }
  return false;
}

std::string UpperTypeName(const DataTypePtr& type) {
  std::string name = type->ToString();
  for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return name;
}

}  // namespace

std::string Expression::ToString() const {
  auto join = [&](size_t begin, size_t end) {
    std::string text;
    for (size_t i = begin; i < end; ++i) {
      if (i > begin) text += ", ";
      text += children_[i]->ToString();
    }
    return text;
  };
  switch (kind_) {
    case ExpressionKind::kLiteral:
      if (literal_->type()->id() == TypeId::kString && !literal_->is_null()) return "'" + literal_->ToString() + "'";
      return literal_->ToString();
    case ExpressionKind::kColumn: return "#" + std::to_string(column_index_);
    case ExpressionKind::kCall: return function_->name + "(" + join(0, children_.size()) + ")";
    case ExpressionKind::kCast:
      return std::string(error_mode_ == ErrorMode::kTry ? "TRY_CAST(" : "CAST(") + children_[0]->ToString() +
             " AS " + UpperTypeName(type_) + ")";
    case ExpressionKind::kCase: {
      std::string text = "CASE";
      size_t branches = (children_.size() - (has_else_ ? 1 : 0)) / 2;
      for (size_t i = 0; i < branches; ++i) {
        text += " WHEN " + children_[2 * i]->ToString() + " THEN " + children_[2 * i + 1]->ToString();
      }
      if (has_else_) text += " ELSE " + children_.back()->ToString();
      return text + " END";
    }
    case ExpressionKind::kIn: return "(" + children_[0]->ToString() + " IN (" + join(1, children_.size()) + "))";
    case ExpressionKind::kIsNull: return "(" + children_[0]->ToString() + " IS NULL)";
    case ExpressionKind::kIsNotNull: return "(" + children_[0]->ToString() + " IS NOT NULL)";
    case ExpressionKind::kAnd: return "(" + children_[0]->ToString() + " AND " + children_[1]->ToString() + ")";
    case ExpressionKind::kOr: return "(" + children_[0]->ToString() + " OR " + children_[1]->ToString() + ")";
    case ExpressionKind::kNot: return "(NOT " + children_[0]->ToString() + ")";
    case ExpressionKind::kCoalesce: return "coalesce(" + join(0, children_.size()) + ")";
    case ExpressionKind::kComparison:
      return "(" + children_[0]->ToString() + " " + ComparisonSymbol(comparison_) + " " + children_[1]->ToString() + ")";
    case ExpressionKind::kArithmetic:
      return "(" + children_[0]->ToString() + " " + ArithmeticSymbol(arithmetic_) + " " + children_[1]->ToString() + ")";
  }
  return "?";
}

ExpressionPtr Expression::WithChildren(std::vector<ExpressionPtr> children) const {
  SILT_CHECK(children.size() == children_.size(), "WithChildren needs as many children as the node");
  auto node = std::make_shared<Expression>(*this);
  node->deterministic_ = true;
  for (const ExpressionPtr& child : children) {
    node->deterministic_ = node->deterministic_ && child->deterministic();
  }
  if (function_ && !function_->deterministic) node->deterministic_ = false;
  node->children_ = std::move(children);
  return node;
}

ExpressionPtr Literal(Scalar value) {
  DataTypePtr type = value.type();
  bool nullable = value.is_null();
  auto node = std::make_shared<Expression>(ExpressionKind::kLiteral, std::move(type), nullable,
                                           std::vector<ExpressionPtr>{});
  node->literal_ = std::make_shared<const Scalar>(std::move(value));
  return node;
}

ExpressionPtr Column(int index, DataTypePtr type, bool nullable) {
  SILT_CHECK(index >= 0 && type, "Column needs an index >= 0 and a type");
  auto node = std::make_shared<Expression>(ExpressionKind::kColumn, std::move(type), nullable,
                                           std::vector<ExpressionPtr>{});
  node->column_index_ = index;
  return node;
}

ExpressionPtr Cast(ExpressionPtr child, DataTypePtr type, ErrorMode mode) {
  SILT_CHECK(child && type, "Cast needs a child and a type");
  if (child->type()->Equals(*type)) return child;
  if (!CanCast(child->type(), type)) {
    ThrowMismatch("CAST(" + child->ToString() + " AS " + UpperTypeName(type) + ")",
                  "cannot cast " + QuotedType(child->type()) + " to " + QuotedType(type) + ".");
  }
  // A cast can produce NULL from a non-NULL input when it may fail and errors give NULL; the
  // session mode is only known at evaluation, so any cast is nullable unless the child is not
  // and the cast cannot fail (widening).
  bool nullable = true;
  auto node = std::make_shared<Expression>(ExpressionKind::kCast, std::move(type), nullable,
                                           std::vector<ExpressionPtr>{std::move(child)});
  node->error_mode_ = mode;
  return node;
}

ExpressionPtr Compare(ComparisonOperator op, ExpressionPtr left, ExpressionPtr right) {
  std::string sql = "(" + left->ToString() + " " + ComparisonSymbol(op) + " " + right->ToString() + ")";
  auto common = ComparisonType(left->type(), right->type());
  if (!common) {
    ThrowMismatch(sql, "the left and right operands of the binary operator have incompatible types (" +
                           QuotedType(left->type()) + " and " + QuotedType(right->type()) + ").");
  }
  left = CastIfNeeded(std::move(left), *common);
  right = CastIfNeeded(std::move(right), *common);
  bool nullable = op != ComparisonOperator::kNullSafeEqual && (left->nullable() || right->nullable());
  auto node = std::make_shared<Expression>(ExpressionKind::kComparison, BooleanType(), nullable,
                                           std::vector<ExpressionPtr>{std::move(left), std::move(right)});
  node->comparison_ = op;
  return node;
}

namespace {

// Spark types an integral literal beside a decimal as the narrowest decimal that holds its value
// (DecimalType.fromLiteral: 10 is DECIMAL(2,0)), so `d * 10` keeps more scale than `d * int_col`.
void NarrowIntegralLiteral(ExpressionPtr& operand, const ExpressionPtr& other) {
  if (operand->kind() != ExpressionKind::kLiteral || !IsIntegral(*operand->type()) ||
      other->type()->id() != TypeId::kDecimal || operand->literal().is_null()) {
    return;
  }
  int64_t value = operand->literal().GetInt();
  uint64_t magnitude = value < 0 ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  int digits = 1;
  while (magnitude >= 10) {
    magnitude /= 10;
    ++digits;
  }
  operand = Cast(operand, DecimalType(digits, 0));
}

}  // namespace

ExpressionPtr Arithmetic(ArithmeticOperator op, ExpressionPtr left, ExpressionPtr right, ErrorMode mode) {
  std::string sql = "(" + left->ToString() + " " + ArithmeticSymbol(op) + " " + right->ToString() + ")";
  NarrowIntegralLiteral(left, right);
  NarrowIntegralLiteral(right, left);
  auto types = ResolveArithmetic(op, left->type(), right->type());
  if (!types) {
    ThrowMismatch(sql, "the left and right operands of the binary operator have incompatible types (" +
                           QuotedType(left->type()) + " and " + QuotedType(right->type()) + ").");
  }
  if (types->decimal) {
    // Each operand keeps its own decimal type (integral operands become exact decimals); the
    // kernel aligns scales per operation.
    auto as_decimal = [](ExpressionPtr operand) {
      DataTypePtr type = operand->type();
      if (type->id() == TypeId::kNull) type = DecimalType(1, 0);
      if (type->id() != TypeId::kDecimal) type = DecimalForIntegral(type);
      return CastIfNeeded(std::move(operand), type);
    };
    left = as_decimal(std::move(left));
    right = as_decimal(std::move(right));
  } else {
    left = CastIfNeeded(std::move(left), types->operand);
    right = CastIfNeeded(std::move(right), types->operand);
  }
  // Division, remainder and overflow can yield NULL from non-NULL operands.
  auto node = std::make_shared<Expression>(ExpressionKind::kArithmetic, types->result, true,
                                           std::vector<ExpressionPtr>{std::move(left), std::move(right)});
  node->arithmetic_ = op;
  node->error_mode_ = mode;
  return node;
}

ExpressionPtr Case(std::vector<std::pair<ExpressionPtr, ExpressionPtr>> branches, ExpressionPtr otherwise) {
  SILT_CHECK(!branches.empty(), "CASE needs at least one WHEN branch");
  std::vector<DataTypePtr> value_types;
  for (const auto& branch : branches) value_types.push_back(branch.second->type());
  if (otherwise) value_types.push_back(otherwise->type());
  auto common = CommonType(value_types);
  if (!common) {
    std::string types;
    for (const DataTypePtr& type : value_types) types += (types.empty() ? "" : ", ") + QuotedType(type);
    ThrowMismatch("CASE", "the THEN and ELSE expressions should all be the same type or coercible to a common "
                          "type, got [" + types + "].");
  }
  std::vector<ExpressionPtr> children;
  const bool has_else = otherwise != nullptr;
  bool nullable = !has_else;
  for (auto& branch : branches) {
    children.push_back(RequireBoolean(std::move(branch.first), "CASE WHEN"));
    nullable = nullable || branch.second->nullable();
    children.push_back(CastIfNeeded(std::move(branch.second), *common));
  }
  if (otherwise) {
    nullable = nullable || otherwise->nullable();
    children.push_back(CastIfNeeded(std::move(otherwise), *common));
  }
  auto node = std::make_shared<Expression>(ExpressionKind::kCase, *common, nullable, std::move(children));
  node->has_else_ = has_else;
  return node;
}

ExpressionPtr If(ExpressionPtr condition, ExpressionPtr then_value, ExpressionPtr else_value) {
  std::vector<std::pair<ExpressionPtr, ExpressionPtr>> branches;
  branches.emplace_back(std::move(condition), std::move(then_value));
  return Case(std::move(branches), std::move(else_value));
}

ExpressionPtr In(ExpressionPtr value, std::vector<ExpressionPtr> list) {
  SILT_CHECK(!list.empty(), "IN needs at least one list item");
  std::vector<DataTypePtr> types = {value->type()};
  for (const ExpressionPtr& item : list) types.push_back(item->type());
  auto common = CommonType(types);
  if (!common) {
    ThrowMismatch("IN", "the input types of the IN list items and the value must be the same or coercible to a "
                        "common type.");
  }
  std::vector<ExpressionPtr> children = {CastIfNeeded(std::move(value), *common)};
  for (ExpressionPtr& item : list) children.push_back(CastIfNeeded(std::move(item), *common));
  bool nullable = AnyNullable(children);
  return std::make_shared<Expression>(ExpressionKind::kIn, BooleanType(), nullable, std::move(children));
}

ExpressionPtr IsNull(ExpressionPtr child) {
  return std::make_shared<Expression>(ExpressionKind::kIsNull, BooleanType(), false,
                                      std::vector<ExpressionPtr>{std::move(child)});
}

ExpressionPtr IsNotNull(ExpressionPtr child) {
  return std::make_shared<Expression>(ExpressionKind::kIsNotNull, BooleanType(), false,
                                      std::vector<ExpressionPtr>{std::move(child)});
}

ExpressionPtr And(ExpressionPtr left, ExpressionPtr right) {
  left = RequireBoolean(std::move(left), "AND");
  right = RequireBoolean(std::move(right), "AND");
  bool nullable = left->nullable() || right->nullable();
  return std::make_shared<Expression>(ExpressionKind::kAnd, BooleanType(), nullable,
                                      std::vector<ExpressionPtr>{std::move(left), std::move(right)});
}

ExpressionPtr Or(ExpressionPtr left, ExpressionPtr right) {
  left = RequireBoolean(std::move(left), "OR");
  right = RequireBoolean(std::move(right), "OR");
  bool nullable = left->nullable() || right->nullable();
  return std::make_shared<Expression>(ExpressionKind::kOr, BooleanType(), nullable,
                                      std::vector<ExpressionPtr>{std::move(left), std::move(right)});
}

ExpressionPtr Not(ExpressionPtr child) {
  child = RequireBoolean(std::move(child), "NOT");
  bool nullable = child->nullable();
  return std::make_shared<Expression>(ExpressionKind::kNot, BooleanType(), nullable,
                                      std::vector<ExpressionPtr>{std::move(child)});
}

ExpressionPtr Coalesce(std::vector<ExpressionPtr> arguments) {
  SILT_USER_CHECK(!arguments.empty(), WRONG_NUM_ARGS,
                  {{"functionName", "`coalesce`"}, {"expectedNum", "> 0"}, {"actualNum", "0"}});
  std::vector<DataTypePtr> types;
  for (const ExpressionPtr& argument : arguments) types.push_back(argument->type());
  auto common = CommonType(types);
  if (!common) {
    ThrowMismatch("coalesce", "the input types of coalesce must be the same or coercible to a common type.");
  }
  bool nullable = true;
  std::vector<ExpressionPtr> children;
  for (ExpressionPtr& argument : arguments) {
    nullable = nullable && argument->nullable();
    children.push_back(CastIfNeeded(std::move(argument), *common));
  }
  return std::make_shared<Expression>(ExpressionKind::kCoalesce, *common, nullable, std::move(children));
}

ExpressionPtr Call(ResolvedFunctionPtr function, std::vector<ExpressionPtr> arguments) {
  SILT_CHECK(function && function->kernel, "Call needs a resolved function with a kernel");
  DataTypePtr type = function->result_type;
  auto node = std::make_shared<Expression>(ExpressionKind::kCall, std::move(type), true, std::move(arguments));
  node->deterministic_ = node->deterministic_ && function->deterministic;
  node->function_ = std::move(function);
  return node;
}

}  // namespace silt::expr
