// Collection constructors and accessors: array, map, struct, named_struct, size, cardinality,
// element_at, try_element_at, get (array subscript / map lookup).

#include "silt/expr/cast.h"
#include "silt/expr/function_kernels_internal.h"

namespace silt::expr::internal {
namespace {

// Returns the common type of `arguments` (cast in place to it); void for no arguments.
DataTypePtr CoerceAll(std::string_view name, std::vector<ExpressionPtr>& arguments, size_t begin, size_t step) {
  std::vector<DataTypePtr> types;
  for (size_t i = begin; i < arguments.size(); i += step) types.push_back(arguments[i]->type());
  if (types.empty()) return NullType();
  auto common = CommonType(types);
  if (!common) ThrowArgumentType(name, begin, arguments[begin], "arguments of one common");
  for (size_t i = begin; i < arguments.size(); i += step) arguments[i] = CastIfNeeded(arguments[i], *common);
  return *common;
}

// Element lookup for element_at (1-based, negative from the end) and get (0-based).
VectorPtr ArrayLookup(const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask mask,
                      bool one_based, bool raise_out_of_bounds) {
  const Vector& array = *args[0];
  const Vector& index = *args[1];
  VectorBuilder out(array.type()->element_type(), num_rows);
  for (int64_t row = 0; row < num_rows; ++row) {
    if (!AllValid(args, row)) {
      out.AppendNull();
      continue;
    }
    int64_t position = index.values<int32_t>()[row];
    int64_t length = array.ListLength(row);
    if (one_based && position == 0) {
      if (mask.Contains(row)) {
        context.RecordError(MakeError(ErrorClass::INVALID_INDEX_OF_ZERO, {}));
      }
      out.AppendNull();
      continue;
    }
    int64_t element = one_based ? (position > 0 ? position - 1 : length + position) : position;
    if (element < 0 || element >= length) {
      if (raise_out_of_bounds && context.ansi && mask.Contains(row)) {
        context.RecordError(MakeError(one_based ? ErrorClass::INVALID_ARRAY_INDEX_IN_ELEMENT_AT
                                                : ErrorClass::INVALID_ARRAY_INDEX,
                                      {{"indexValue", std::to_string(position)}, {"arraySize", std::to_string(length)}}));
      }
      out.AppendNull();
      continue;
    }
    out.AppendFrom(*array.child(0), array.ListStart(row) + element);
  }
  return out.Finish();
}

VectorPtr MapLookup(const std::vector<VectorPtr>& args, int64_t num_rows) {
  const Vector& map = *args[0];
  const Vector& entries = *map.child(0);
  VectorPtr keys = entries.StructField(0);
  VectorPtr values = entries.StructField(1);
  VectorBuilder out(map.type()->value_type(), num_rows);
  for (int64_t row = 0; row < num_rows; ++row) {
    if (!AllValid(args, row)) {
      out.AppendNull();
      continue;
    }
    bool found = false;
    for (int32_t i = 0; i < map.ListLength(row) && !found; ++i) {
      int64_t entry = map.ListStart(row) + i;
      if (keys->RowEquals(entry, *args[1], row)) {
        out.AppendFrom(*values, entry);
        found = true;
      }
    }
    if (!found) out.AppendNull();  // a missing key is NULL, also in ANSI mode (Spark 4)
  }
  return out.Finish();
}

ExpressionPtr BindLookup(std::string_view name, std::vector<ExpressionPtr> arguments, bool one_based, bool raise) {
  CheckArgumentCount(name, arguments, 2, 2);
  const DataTypePtr& container = arguments[0]->type();
  if (container->id() == TypeId::kList) {
    arguments[1] = ImplicitCast(name, 1, std::move(arguments[1]), IntegerType());
    DataTypePtr type = container->element_type();
    return MakeCall(name, type, std::move(arguments),
                    [one_based, raise](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context,
                                       RowMask mask) { return ArrayLookup(args, num_rows, context, mask, one_based, raise); });
  }
  if (container->id() == TypeId::kMap) {
    arguments[1] = ImplicitCast(name, 1, std::move(arguments[1]), container->key_type());
    DataTypePtr type = container->value_type();
    return MakeCall(name, type, std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      return MapLookup(args, num_rows);
                    });
  }
  ThrowArgumentType(name, 0, arguments[0], "\"ARRAY\" or \"MAP\"");
}

}  // namespace

void RegisterCollectionFunctions(FunctionRegistry& registry) {
  registry.Register("array", [](std::vector<ExpressionPtr> arguments) {
    DataTypePtr element = CoerceAll("array", arguments, 0, 1);
    DataTypePtr type = ListType(element, true);
    return MakeCall("array", type, std::move(arguments),
                    [type](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      VectorBuilder out(type, num_rows);
                      for (int64_t row = 0; row < num_rows; ++row) {
                        for (const VectorPtr& argument : args) out.child(0).AppendFrom(*argument, row);
                        out.FinishList();
                      }
                      return out.Finish();
                    });
  });
  registry.Register("map", [](std::vector<ExpressionPtr> arguments) {
    SILT_USER_CHECK(arguments.size() % 2 == 0, WRONG_NUM_ARGS,
                    {{"functionName", "`map`"}, {"expectedNum", "2n (n > 0)"}, {"actualNum", std::to_string(arguments.size())}});
    DataTypePtr key = CoerceAll("map", arguments, 0, 2);
    DataTypePtr value = CoerceAll("map", arguments, 1, 2);
    DataTypePtr type = MapType(key, value, true);
    return MakeCall("map", type, std::move(arguments),
                    [type](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask mask) {
                      VectorBuilder out(type, num_rows);
                      for (int64_t row = 0; row < num_rows; ++row) {
                        for (size_t i = 0; i < args.size(); i += 2) {
                          if (args[i]->IsNull(row) && mask.Contains(row)) {
                            context.RecordError(MakeError(ErrorClass::NULL_MAP_KEY, {}));
                          }
                          // Spark rejects duplicate keys by default (mapKeyDedupPolicy=EXCEPTION).
                          for (size_t j = 0; j < i; j += 2) {
                            if (args[j]->RowEquals(row, *args[i], row) && mask.Contains(row)) {
                              context.RecordError(MakeError(ErrorClass::DUPLICATED_MAP_KEY,
                                                            {{"key", CastValueToString(*args[i], row)}}));
                            }
                          }
                          out.child(0).child(0).AppendFrom(*args[i], row);
                          out.child(0).child(1).AppendFrom(*args[i + 1], row);
                          out.child(0).AppendStruct();
                        }
                        out.FinishList();
                      }
                      return out.Finish();
                    });
  });
  registry.Register("named_struct", [](std::vector<ExpressionPtr> arguments) {
    SILT_USER_CHECK(!arguments.empty() && arguments.size() % 2 == 0, WRONG_NUM_ARGS,
                    {{"functionName", "`named_struct`"}, {"expectedNum", "2n (n > 0)"},
                     {"actualNum", std::to_string(arguments.size())}});
    std::vector<Field> fields;
    std::vector<ExpressionPtr> values;
    for (size_t i = 0; i < arguments.size(); i += 2) {
      const ExpressionPtr& name = arguments[i];
      if (name->kind() != ExpressionKind::kLiteral || name->type()->id() != TypeId::kString || name->literal().is_null()) {
        ThrowArgumentType("named_struct", i, name, "a constant \"STRING\"");
      }
      fields.push_back(Field{std::string(name->literal().GetString()), arguments[i + 1]->type(), true, {}});
      values.push_back(arguments[i + 1]);
    }
    DataTypePtr type = StructType(std::move(fields));
    return MakeCall("named_struct", type, std::move(values),
                    [type](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      VectorBuilder out(type, num_rows);
                      for (int64_t row = 0; row < num_rows; ++row) {
                        for (size_t i = 0; i < args.size(); ++i) out.child(i).AppendFrom(*args[i], row);
                        out.AppendStruct();
                      }
                      return out.Finish();
                    });
  });
  registry.Register("struct", [&registry](std::vector<ExpressionPtr> arguments) {
    // Unnamed fields are col1, col2, ... (the binder names fields after column references).
    std::vector<ExpressionPtr> named;
    for (size_t i = 0; i < arguments.size(); ++i) {
      named.push_back(Literal(Scalar::String("col" + std::to_string(i + 1))));
      named.push_back(arguments[i]);
    }
    return registry.Bind("named_struct", std::move(named));
  });
  for (std::string_view name : {"size", "cardinality"}) {
    registry.Register(name, [name](std::vector<ExpressionPtr> arguments) {
      CheckArgumentCount(name, arguments, 1, 1);
      TypeId id = arguments[0]->type()->id();
      if (id != TypeId::kList && id != TypeId::kMap) ThrowArgumentType(name, 0, arguments[0], "\"ARRAY\" or \"MAP\"");
      return MakeCall(name, IntegerType(), std::move(arguments),
                      [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask) {
                        // size(NULL) is -1 outside ANSI (legacy sizeOfNull) and NULL in ANSI mode.
                        VectorBuilder out(IntegerType(), num_rows);
                        for (int64_t row = 0; row < num_rows; ++row) {
                          if (args[0]->IsNull(row)) {
                            if (context.ansi) out.AppendNull(); else out.AppendInt(-1);
                          } else {
                            out.AppendInt(args[0]->ListLength(row));
                          }
                        }
                        return out.Finish();
                      });
    });
  }
  registry.Register("element_at", [](std::vector<ExpressionPtr> arguments) {
    return BindLookup("element_at", std::move(arguments), true, true);
  });
  registry.Register("try_element_at", [](std::vector<ExpressionPtr> arguments) {
    return BindLookup("try_element_at", std::move(arguments), true, false);
  });
  registry.Register("get", [](std::vector<ExpressionPtr> arguments) {
    return BindLookup("get", std::move(arguments), false, false);
  });
  // The subscript operator `a[i]` (0-based for arrays; raises out of bounds in ANSI mode).
  registry.Register("subscript", [](std::vector<ExpressionPtr> arguments) {
    return BindLookup("subscript", std::move(arguments), false, true);
  });
}

}  // namespace silt::expr::internal
