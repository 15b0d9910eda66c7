// Conditional functions: coalesce, nvl, ifnull, nvl2, nullif, if, isnull, isnotnull, greatest,
// least, nanvl, zeroifnull, nullifzero, equal_null, raise_error, assert_true. Most are special
// forms that build CASE/COALESCE nodes, so they short-circuit.

#include <cmath>

#include "silt/expr/function_kernels_internal.h"

namespace silt::expr::internal {
namespace {

ExpressionPtr GreatestOrLeast(std::string_view name, bool greatest, std::vector<ExpressionPtr> arguments) {
  CheckArgumentCount(name, arguments, 2, SIZE_MAX);
  std::vector<DataTypePtr> types;
  for (const ExpressionPtr& argument : arguments) types.push_back(argument->type());
  auto common = CommonType(types);
  if (!common) ThrowArgumentType(name, 1, arguments[1], "a type coercible with the first argument's");
  for (ExpressionPtr& argument : arguments) argument = CastIfNeeded(std::move(argument), *common);
  ComparisonOperator better = greatest ? ComparisonOperator::kGreater : ComparisonOperator::kLess;
  DataTypePtr type = *common;
  return MakeCall(name, type, std::move(arguments),
                  [type, better](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                    // NULL arguments are skipped; the result is NULL only when all are. Each
                    // argument is compared with the best so far a whole vector at a time.
                    VectorPtr best = args[0];
                    for (size_t argument = 1; argument < args.size(); ++argument) {
                      const Vector& candidate = *args[argument];
                      VectorPtr wins = CompareVectors(better, candidate, *best);
                      VectorBuilder builder(type, num_rows);
                      for (int64_t row = 0; row < num_rows; ++row) {
                        bool take = candidate.IsValid(row) && (best->IsNull(row) || wins->GetBool(row));
                        builder.AppendFrom(take ? candidate : *best, row);
                      }
                      best = builder.Finish();
                    }
                    return best;
                  });
}

// Records USER_RAISED_EXCEPTION for the active rows of `messages` (NULL prints as "null").
VectorPtr RaiseErrors(const Vector& messages, int64_t num_rows, EvalContext& context, RowMask mask,
                      const std::vector<bool>* raise) {
  for (int64_t row = 0; row < num_rows && !context.has_error(); ++row) {
    if (!mask.Contains(row) || (raise != nullptr && !(*raise)[row])) continue;
    std::string message = messages.IsNull(row) ? "null" : std::string(messages.GetString(row));
    context.RecordError(MakeError(ErrorClass::USER_RAISED_EXCEPTION, {{"errorMessage", message}}));
  }
  return Vector::MakeAllNull(NullType(), num_rows);
}

}  // namespace

void RegisterConditionalFunctions(FunctionRegistry& registry) {
  registry.Register("coalesce", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("coalesce", arguments, 1, SIZE_MAX);
    return Coalesce(std::move(arguments));
  });
  for (std::string_view name : {"nvl", "ifnull"}) {
    registry.Register(name, [name](std::vector<ExpressionPtr> arguments) {
      CheckArgumentCount(name, arguments, 2, 2);
      return Coalesce(std::move(arguments));
    });
  }
  registry.Register("nvl2", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("nvl2", arguments, 3, 3);
    return If(IsNotNull(arguments[0]), arguments[1], arguments[2]);
  });
  registry.Register("nullif", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("nullif", arguments, 2, 2);
    ExpressionPtr equal = Compare(ComparisonOperator::kEqual, arguments[0], arguments[1]);
    return If(equal, Literal(Scalar::Null(arguments[0]->type())), arguments[0]);
  });
  registry.Register("if", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("if", arguments, 3, 3);
    return If(arguments[0], arguments[1], arguments[2]);
  });
  registry.Register("isnull", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("isnull", arguments, 1, 1);
    return IsNull(arguments[0]);
  });
  registry.Register("isnotnull", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("isnotnull", arguments, 1, 1);
    return IsNotNull(arguments[0]);
  });
  registry.Register("greatest", [](std::vector<ExpressionPtr> arguments) {
    return GreatestOrLeast("greatest", true, std::move(arguments));
  });
  registry.Register("least", [](std::vector<ExpressionPtr> arguments) {
    return GreatestOrLeast("least", false, std::move(arguments));
  });
  registry.Register("nanvl", [](std::vector<ExpressionPtr> arguments) {
    // The first argument unless it is NaN, else the second; float only when both are float.
    CheckArgumentCount("nanvl", arguments, 2, 2);
    bool both_float = true;
    for (size_t i = 0; i < 2; ++i) {
      TypeId id = arguments[i]->type()->id();
      if (id != TypeId::kNull && id != TypeId::kString && !IsNumeric(*arguments[i]->type())) {
        ThrowArgumentType("nanvl", i, arguments[i], "(\"DOUBLE\" or \"FLOAT\")");
      }
      both_float = both_float && id == TypeId::kFloat;
    }
    DataTypePtr type = both_float ? FloatType() : DoubleType();
    for (size_t i = 0; i < 2; ++i) arguments[i] = ImplicitCast("nanvl", i, std::move(arguments[i]), type);
    return MakeCall("nanvl", type, std::move(arguments),
                    [type](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      VectorBuilder out(type, num_rows);
                      for (int64_t row = 0; row < num_rows; ++row) {
                        const Vector& chosen =
                            args[0]->IsValid(row) && std::isnan(ReadDouble(*args[0], row)) ? *args[1] : *args[0];
                        out.AppendFrom(chosen, row);
                      }
                      return out.Finish();
                    });
  });
  registry.Register("zeroifnull", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("zeroifnull", arguments, 1, 1);
    return Coalesce({arguments[0], Literal(Scalar::Integer(0))});
  });
  registry.Register("nullifzero", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("nullifzero", arguments, 1, 1);
    ExpressionPtr zero = Compare(ComparisonOperator::kEqual, arguments[0], Literal(Scalar::Integer(0)));
    return If(zero, Literal(Scalar::Null(arguments[0]->type())), arguments[0]);
  });
  registry.Register("equal_null", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("equal_null", arguments, 2, 2);
    return Compare(ComparisonOperator::kNullSafeEqual, arguments[0], arguments[1]);
  });
  registry.Register("raise_error", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("raise_error", arguments, 1, 1);
    arguments[0] = ImplicitCast("raise_error", 0, std::move(arguments[0]), StringType());
    return MakeCall("raise_error", NullType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask mask) {
                      return RaiseErrors(*args[0], num_rows, context, mask, nullptr);
                    }, /*deterministic=*/false);
  });
  registry.Register("assert_true", [](std::vector<ExpressionPtr> arguments) {
    // NULL when the condition holds; USER_RAISED_EXCEPTION when it is false or NULL.
    CheckArgumentCount("assert_true", arguments, 1, 2);
    if (arguments[0]->type()->id() != TypeId::kBoolean && arguments[0]->type()->id() != TypeId::kNull) {
      ThrowArgumentType("assert_true", 0, arguments[0], "\"BOOLEAN\"");
    }
    if (arguments.size() == 1) {
      arguments.push_back(Literal(Scalar::String("'" + arguments[0]->ToString() + "' is not true!")));
    }
    arguments[1] = ImplicitCast("assert_true", 1, std::move(arguments[1]), StringType());
    return MakeCall("assert_true", NullType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask mask) {
                      std::vector<bool> failed(num_rows);
                      for (int64_t row = 0; row < num_rows; ++row) {
                        failed[row] = args[0]->IsNull(row) || !args[0]->GetBool(row);
                      }
                      return RaiseErrors(*args[1], num_rows, context, mask, &failed);
                    }, /*deterministic=*/false);
  });
}

}  // namespace silt::expr::internal
