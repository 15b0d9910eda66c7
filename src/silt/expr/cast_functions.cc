// The functions named after a type: boolean(x), tinyint(x), smallint(x), int(x), bigint(x),
// float(x), double(x), decimal(x), string(x), binary(x), date(x), timestamp(x). Each is
// CAST(x AS type), with the session's ANSI rules.

#include "silt/expr/function_kernels_internal.h"

namespace silt::expr::internal {

void RegisterCastFunctions(FunctionRegistry& registry) {
  struct TypeFunction {
    std::string_view name;
    DataTypePtr type;
  };
  for (const TypeFunction& function : {TypeFunction{"boolean", BooleanType()}, TypeFunction{"tinyint", ByteType()},
                                       TypeFunction{"smallint", ShortType()}, TypeFunction{"int", IntegerType()},
                                       TypeFunction{"bigint", LongType()}, TypeFunction{"float", FloatType()},
                                       TypeFunction{"double", DoubleType()}, TypeFunction{"decimal", DecimalType(10, 0)},
                                       TypeFunction{"string", StringType()}, TypeFunction{"binary", BinaryType()},
                                       TypeFunction{"date", DateType()}, TypeFunction{"timestamp", TimestampType()}}) {
    registry.Register(function.name, [function](std::vector<ExpressionPtr> arguments) {
      CheckArgumentCount(function.name, arguments, 1, 1);
      return Cast(std::move(arguments[0]), function.type);
    });
  }
}

}  // namespace silt::expr::internal
