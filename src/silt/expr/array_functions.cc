// Array and map functions beyond the constructors and accessors of collection_functions.cc:
// array_contains, sort_array, array_distinct, map_keys, map_values, and concat of arrays.

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "silt/expr/function_kernels_internal.h"

namespace silt::expr::internal {
namespace {

ExpressionPtr ArrayArgument(std::string_view name, size_t index, ExpressionPtr argument) {
  if (argument->type()->id() == TypeId::kNull) return Cast(std::move(argument), ListType(NullType()));
  if (argument->type()->id() != TypeId::kList) ThrowArgumentType(name, index, argument, "\"ARRAY\"");
  return argument;
}

bool IsOrderable(const DataType& type) {
  switch (type.id()) {
    case TypeId::kNull:
    case TypeId::kBoolean:
    case TypeId::kByte:
    case TypeId::kShort:
    case TypeId::kInteger:
    case TypeId::kLong:
    case TypeId::kFloat:
    case TypeId::kDouble:
    case TypeId::kDecimal:
    case TypeId::kDate:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kString:
    case TypeId::kBinary: return true;
    default: return false;
  }
}

// Orders two non-NULL values of one vector of an orderable type: <0, 0, >0. NaN sorts above
// every number and equals itself, as in Spark.
int CompareValues(const Vector& values, int64_t a, int64_t b) {
  switch (values.type_id()) {
    case TypeId::kBoolean: return static_cast<int>(values.GetBool(a)) - static_cast<int>(values.GetBool(b));
    case TypeId::kFloat:
    case TypeId::kDouble: {
      double x = ReadDouble(values, a);
      double y = ReadDouble(values, b);
      if (std::isnan(x) || std::isnan(y)) return std::isnan(x) - std::isnan(y);
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case TypeId::kDecimal: {
      Decimal128 x = values.values<Decimal128>()[a];
      Decimal128 y = values.values<Decimal128>()[b];
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case TypeId::kString:
    case TypeId::kBinary: {
      int order = values.GetString(a).compare(values.GetString(b));
      return order < 0 ? -1 : order > 0 ? 1 : 0;
    }
    case TypeId::kNull: return 0;
    default: {
      int64_t x = ReadInteger(values, a);
      int64_t y = ReadInteger(values, b);
      return x < y ? -1 : x > y ? 1 : 0;
    }
  }
}

}  // namespace

ExpressionPtr BindArrayConcat(std::vector<ExpressionPtr> arguments) {
  std::vector<DataTypePtr> element_types;
  for (size_t i = 0; i < arguments.size(); ++i) {
    arguments[i] = ArrayArgument("concat", i, std::move(arguments[i]));
    element_types.push_back(arguments[i]->type()->element_type());
  }
  auto element = CommonType(element_types);
  if (!element) ThrowArgumentType("concat", 0, arguments[0], "arrays of one common element");
  DataTypePtr type = ListType(*element, true);
  for (ExpressionPtr& argument : arguments) argument = CastIfNeeded(std::move(argument), type);
  return MakeCall("concat", type, std::move(arguments),
                  [type](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                    // NULL when any array is NULL, as Spark's concat.
                    return MapRows(type, args, num_rows, [&](int64_t row, VectorBuilder& out) {
                      for (const VectorPtr& array : args) {
                        out.child(0).AppendRange(*array->child(0), array->ListStart(row), array->ListLength(row));
                      }
                      out.FinishList();
                    });
                  });
}

void RegisterArrayFunctions(FunctionRegistry& registry) {
  registry.Register("array_contains", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("array_contains", arguments, 2, 2);
    arguments[0] = ArrayArgument("array_contains", 0, std::move(arguments[0]));
    auto common = WiderType(arguments[0]->type()->element_type(), arguments[1]->type());
    if (!common || (*common)->is_nested() != arguments[1]->type()->is_nested()) {
      ThrowArgumentType("array_contains", 1, arguments[1], "the array's element");
    }
    arguments[0] = CastIfNeeded(std::move(arguments[0]), ListType(*common, true));
    arguments[1] = CastIfNeeded(std::move(arguments[1]), *common);
    return MakeCall("array_contains", BooleanType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      // TRUE when found; otherwise NULL if the array holds a NULL, else FALSE.
                      const Vector& elements = *args[0]->child(0);
                      VectorBuilder out(BooleanType(), num_rows);
                      for (int64_t row = 0; row < num_rows; ++row) {
                        if (!AllValid(args, row)) {
                          out.AppendNull();
                          continue;
                        }
                        bool found = false;
                        bool saw_null = false;
                        int64_t start = args[0]->ListStart(row);
                        for (int64_t i = start; i < start + args[0]->ListLength(row) && !found; ++i) {
                          if (elements.IsNull(i)) {
                            saw_null = true;
                          } else {
                            found = elements.RowEquals(i, *args[1], row);
                          }
                        }
                        if (found) out.AppendBool(true); else if (saw_null) out.AppendNull(); else out.AppendBool(false);
                      }
                      return out.Finish();
                    });
  });
  registry.Register("sort_array", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("sort_array", arguments, 1, 2);
    arguments[0] = ArrayArgument("sort_array", 0, std::move(arguments[0]));
    if (!IsOrderable(*arguments[0]->type()->element_type())) {
      ThrowArgumentType("sort_array", 0, arguments[0], "an array of orderable element");
    }
    bool ascending = true;
    if (arguments.size() == 2) {
      const ExpressionPtr& order = arguments[1];
      if (order->kind() != ExpressionKind::kLiteral || order->type()->id() != TypeId::kBoolean ||
          order->literal().is_null()) {
        ThrowArgumentType("sort_array", 1, order, "a constant \"BOOLEAN\"");
      }
      ascending = order->literal().GetBool();
      arguments.resize(1);
    }
    DataTypePtr type = arguments[0]->type();
    return MakeCall("sort_array", type, std::move(arguments),
                    [type, ascending](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      // NULL elements come first ascending and last descending.
                      const Vector& elements = *args[0]->child(0);
                      std::vector<int64_t> order;
                      return MapRows(type, args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        order.resize(args[0]->ListLength(row));
                        std::iota(order.begin(), order.end(), static_cast<int64_t>(args[0]->ListStart(row)));
                        std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
                          bool a_null = elements.IsNull(a);
                          bool b_null = elements.IsNull(b);
                          if (a_null || b_null) return ascending ? (a_null && !b_null) : (b_null && !a_null);
                          int compared = CompareValues(elements, a, b);
                          return ascending ? compared < 0 : compared > 0;
                        });
                        for (int64_t index : order) out.child(0).AppendFrom(elements, index);
                        out.FinishList();
                      });
                    });
  });
  registry.Register("array_distinct", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("array_distinct", arguments, 1, 1);
    arguments[0] = ArrayArgument("array_distinct", 0, std::move(arguments[0]));
    DataTypePtr type = arguments[0]->type();
    return MakeCall("array_distinct", type, std::move(arguments),
                    [type](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      // Keeps the first occurrence of each value (NULL included) in order.
                      const Vector& elements = *args[0]->child(0);
                      std::vector<int64_t> kept;
                      return MapRows(type, args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        kept.clear();
                        int64_t start = args[0]->ListStart(row);
                        for (int64_t i = start; i < start + args[0]->ListLength(row); ++i) {
                          bool seen = std::any_of(kept.begin(), kept.end(),
                                                  [&](int64_t j) { return elements.RowEquals(j, elements, i); });
                          if (!seen) kept.push_back(i);
                        }
                        for (int64_t index : kept) out.child(0).AppendFrom(elements, index);
                        out.FinishList();
                      });
                    });
  });
  for (bool keys : {true, false}) {
    std::string_view name = keys ? "map_keys" : "map_values";
    registry.Register(name, [name, keys](std::vector<ExpressionPtr> arguments) {
      CheckArgumentCount(name, arguments, 1, 1);
      const DataTypePtr& map = arguments[0]->type();
      if (map->id() != TypeId::kMap) ThrowArgumentType(name, 0, arguments[0], "\"MAP\"");
      DataTypePtr type = keys ? ListType(map->key_type(), false) : ListType(map->value_type(), map->value_contains_null());
      return MakeCall(name, type, std::move(arguments),
                      [type, keys](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                        VectorPtr part = args[0]->child(0)->StructField(keys ? 0 : 1);
                        return MapRows(type, args, num_rows, [&](int64_t row, VectorBuilder& out) {
                          out.child(0).AppendRange(*part, args[0]->ListStart(row), args[0]->ListLength(row));
                          out.FinishList();
                        });
                      });
    });
  }
}

}  // namespace silt::expr::internal
