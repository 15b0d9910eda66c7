// Conditional functions: coalesce, nvl, ifnull, nvl2, nullif, if, isnull, isnotnull, greatest,
// least. Most are special forms that build CASE/COALESCE nodes, so they short-circuit.

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
}

}  // namespace silt::expr::internal
