// Map functions beyond map(), map_keys and map_values: map_contains_key, map_entries,
// map_from_arrays, map_from_entries, map_concat and str_to_map. Maps built here refuse NULL
// keys (NULL_MAP_KEY) and repeated keys (DUPLICATED_MAP_KEY), as Spark's default
// spark.sql.mapKeyDedupPolicy=EXCEPTION does.

#include <regex>

#include "silt/expr/cast.h"
#include "silt/expr/function_kernels_internal.h"

namespace silt::expr::internal {
namespace {

ExpressionPtr MapArgument(std::string_view name, size_t index, ExpressionPtr argument) {
  if (argument->type()->id() != TypeId::kMap) ThrowArgumentType(name, index, argument, "\"MAP\"");
  return argument;
}

ExpressionPtr ArrayArgument(std::string_view name, size_t index, ExpressionPtr argument) {
  if (argument->type()->id() == TypeId::kNull) return Cast(std::move(argument), ListType(NullType()));
  if (argument->type()->id() != TypeId::kList) ThrowArgumentType(name, index, argument, "\"ARRAY\"");
  return argument;
}

// Appends entries to a map row while checking its keys; `Finish` closes the row. Keys already
// appended to this row are compared one by one (maps are small).
class MapRowBuilder {
 public:
  MapRowBuilder(VectorBuilder& out, EvalContext& context, bool active)
      : out_(out), context_(context), active_(active) {}

  // Appends the entry; false (with the error recorded) for a NULL or repeated key.
  bool Add(const Vector& keys, int64_t key_row, const Vector& values, int64_t value_row) {
    if (keys.IsNull(key_row)) return Fail(MakeError(ErrorClass::NULL_MAP_KEY, {}));
    for (const auto& [vector, row] : added_) {
      if (vector->RowEquals(row, keys, key_row)) {
        return Fail(MakeError(ErrorClass::DUPLICATED_MAP_KEY, {{"key", CastValueToString(keys, key_row)}}));
      }
    }
    added_.emplace_back(&keys, key_row);
    out_.child(0).child(0).AppendFrom(keys, key_row);
    out_.child(0).child(1).AppendFrom(values, value_row);
    out_.child(0).AppendStruct();
    return true;
  }

  void Finish() { out_.FinishList(); }

 private:
  bool Fail(Error error) {
    if (active_) context_.RecordError(std::move(error));
    return false;
  }

  VectorBuilder& out_;
  EvalContext& context_;
  bool active_;
  std::vector<std::pair<const Vector*, int64_t>> added_;
};

// Splits `text` on `delimiter`, a Java regular expression (a plain string when it has no
// metacharacters), keeping empty pieces (Java's split with limit -1).
std::vector<std::string_view> SplitAll(std::string_view text, std::string_view delimiter,
                                       std::optional<std::regex>& compiled, std::string& compiled_for) {
  std::vector<std::string_view> pieces;
  if (delimiter.find_first_of("\\^$.|?*+()[]{}") == std::string_view::npos && !delimiter.empty()) {
    size_t position = 0;
    while (true) {
      size_t found = text.find(delimiter, position);
      if (found == std::string_view::npos) break;
      pieces.push_back(text.substr(position, found - position));
      position = found + delimiter.size();
    }
    pieces.push_back(text.substr(position));
    return pieces;
  }
  if (!compiled || compiled_for != delimiter) {
    try {
      compiled.emplace(std::string(delimiter), std::regex::ECMAScript);
    } catch (const std::regex_error& error) {
      SILT_THROW(INVALID_PARAMETER_VALUE, {{"parameter", "`regexp`"}, {"functionName", "`str_to_map`"},
                                          {"message", "invalid pattern '" + std::string(delimiter) + "': " + error.what()}});
    }
    compiled_for = std::string(delimiter);
  }
  size_t position = 0;
  for (std::cregex_iterator match(text.data(), text.data() + text.size(), *compiled), end; match != end; ++match) {
    auto start = static_cast<size_t>(match->position());
    if (match->length() == 0) {
      if (start == 0 || start >= text.size()) continue;
    }
    pieces.push_back(text.substr(position, start - position));
    position = start + static_cast<size_t>(match->length());
  }
  pieces.push_back(text.substr(position));
  return pieces;
}

}  // namespace

void RegisterMapFunctions(FunctionRegistry& registry) {
  registry.Register("map_contains_key", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("map_contains_key", arguments, 2, 2);
    arguments[0] = MapArgument("map_contains_key", 0, std::move(arguments[0]));
    const DataTypePtr& map = arguments[0]->type();
    auto common = WiderType(map->key_type(), arguments[1]->type());
    if (!common || (*common)->is_nested() != map->key_type()->is_nested()) {
      ThrowArgumentType("map_contains_key", 1, arguments[1], "the map's key");
    }
    arguments[0] = CastIfNeeded(std::move(arguments[0]), MapType(*common, map->value_type(), map->value_contains_null()));
    arguments[1] = CastIfNeeded(std::move(arguments[1]), *common);
    return MakeCall("map_contains_key", BooleanType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      VectorPtr keys = args[0]->child(0)->StructField(0);
                      return MapRows(BooleanType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        bool found = false;
                        int64_t start = args[0]->ListStart(row);
                        for (int64_t i = start; i < start + args[0]->ListLength(row) && !found; ++i) {
                          found = keys->RowEquals(i, *args[1], row);
                        }
                        out.AppendBool(found);
                      });
                    });
  });
  registry.Register("map_entries", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("map_entries", arguments, 1, 1);
    arguments[0] = MapArgument("map_entries", 0, std::move(arguments[0]));
    const DataTypePtr& map = arguments[0]->type();
    DataTypePtr entry = StructType({Field{"key", map->key_type(), false, {}},
                                    Field{"value", map->value_type(), map->value_contains_null(), {}}});
    DataTypePtr type = ListType(entry, false);
    return MakeCall("map_entries", type, std::move(arguments),
                    [type](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      VectorPtr keys = args[0]->child(0)->StructField(0);
                      VectorPtr values = args[0]->child(0)->StructField(1);
                      return MapRows(type, args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        VectorBuilder& entries = out.child(0);
                        int64_t start = args[0]->ListStart(row);
                        for (int64_t i = start; i < start + args[0]->ListLength(row); ++i) {
                          entries.child(0).AppendFrom(*keys, i);
                          entries.child(1).AppendFrom(*values, i);
                          entries.AppendStruct();
                        }
                        out.FinishList();
                      });
                    });
  });
  registry.Register("map_from_arrays", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("map_from_arrays", arguments, 2, 2);
    for (size_t i = 0; i < 2; ++i) arguments[i] = ArrayArgument("map_from_arrays", i, std::move(arguments[i]));
    DataTypePtr type = MapType(arguments[0]->type()->element_type(), arguments[1]->type()->element_type(),
                               arguments[1]->type()->contains_null());
    return MakeCall("map_from_arrays", type, std::move(arguments),
                    [type](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask mask) {
                      return MapRows(type, args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        int64_t length = args[0]->ListLength(row);
                        if (length != args[1]->ListLength(row)) {
                          if (mask.Contains(row)) {
                            context.RecordError(MakeError(
                                ErrorClass::INVALID_PARAMETER_VALUE,
                                {{"parameter", "`keys`, `values`"}, {"functionName", "`map_from_arrays`"},
                                 {"message", "The key array and value array of MapData must have the same length."}}));
                          }
                          return out.AppendNull();
                        }
                        MapRowBuilder map(out, context, mask.Contains(row));
                        for (int64_t i = 0; i < length; ++i) {
                          if (!map.Add(*args[0]->child(0), args[0]->ListStart(row) + i, *args[1]->child(0),
                                       args[1]->ListStart(row) + i)) {
                            break;
                          }
                        }
                        map.Finish();
                      });
                    });
  });
  registry.Register("map_from_entries", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("map_from_entries", arguments, 1, 1);
    arguments[0] = ArrayArgument("map_from_entries", 0, std::move(arguments[0]));
    const DataTypePtr& entry = arguments[0]->type()->element_type();
    if (entry->id() != TypeId::kStruct || entry->fields().size() != 2) {
      ThrowArgumentType("map_from_entries", 0, arguments[0], "\"ARRAY\" of pair \"STRUCT\"");
    }
    DataTypePtr type = MapType(entry->fields()[0].type, entry->fields()[1].type, true);
    return MakeCall("map_from_entries", type, std::move(arguments),
                    [type](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask mask) {
                      // NULL when the array holds a NULL entry.
                      const Vector& entries = *args[0]->child(0);
                      VectorPtr keys = entries.StructField(0);
                      VectorPtr values = entries.StructField(1);
                      return MapRows(type, args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        int64_t start = args[0]->ListStart(row);
                        int64_t end = start + args[0]->ListLength(row);
                        for (int64_t i = start; i < end; ++i) {
                          if (entries.IsNull(i)) return out.AppendNull();
                        }
                        MapRowBuilder map(out, context, mask.Contains(row));
                        for (int64_t i = start; i < end && map.Add(*keys, i, *values, i); ++i) {
                        }
                        map.Finish();
                      });
                    });
  });
  registry.Register("map_concat", [](std::vector<ExpressionPtr> arguments) {
    if (arguments.empty()) {
      VectorBuilder empty(MapType(StringType(), StringType()), 1);
      empty.FinishList();
      return Literal(Scalar::FromVector(*empty.Finish(), 0));
    }
    std::vector<DataTypePtr> keys;
    std::vector<DataTypePtr> values;
    for (size_t i = 0; i < arguments.size(); ++i) {
      if (arguments[i]->type()->id() == TypeId::kNull) continue;  // cast to the common map type below
      arguments[i] = MapArgument("map_concat", i, std::move(arguments[i]));
      keys.push_back(arguments[i]->type()->key_type());
      values.push_back(arguments[i]->type()->value_type());
    }
    if (keys.empty()) {
      keys.push_back(StringType());
      values.push_back(StringType());
    }
    auto key = CommonType(keys);
    auto value = CommonType(values);
    if (!key || !value) ThrowArgumentType("map_concat", 1, arguments[1], "maps of one common key and value");
    DataTypePtr type = MapType(*key, *value, true);
    for (ExpressionPtr& argument : arguments) argument = CastIfNeeded(std::move(argument), type);
    return MakeCall("map_concat", type, std::move(arguments),
                    [type](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask mask) {
                      std::vector<VectorPtr> keys;
                      std::vector<VectorPtr> values;
                      for (const VectorPtr& map : args) {
                        keys.push_back(map->child(0)->StructField(0));
                        values.push_back(map->child(0)->StructField(1));
                      }
                      return MapRows(type, args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        MapRowBuilder map(out, context, mask.Contains(row));
                        bool ok = true;
                        for (size_t m = 0; m < args.size() && ok; ++m) {
                          int64_t start = args[m]->ListStart(row);
                          for (int64_t i = start; i < start + args[m]->ListLength(row) && ok; ++i) {
                            ok = map.Add(*keys[m], i, *values[m], i);
                          }
                        }
                        map.Finish();
                      });
                    });
  });
  registry.Register("str_to_map", [](std::vector<ExpressionPtr> arguments) {
    // str_to_map(text[, pairDelim[, keyValueDelim]]): delimiters ',' and ':' by default (Java
    // regular expressions); a pair without the key-value delimiter has a NULL value.
    CheckArgumentCount("str_to_map", arguments, 1, 3);
    if (arguments.size() < 2) arguments.push_back(Literal(Scalar::String(",")));
    if (arguments.size() < 3) arguments.push_back(Literal(Scalar::String(":")));
    for (size_t i = 0; i < 3; ++i) arguments[i] = ImplicitCast("str_to_map", i, std::move(arguments[i]), StringType());
    DataTypePtr type = MapType(StringType(), StringType(), true);
    return MakeCall("str_to_map", type, std::move(arguments),
                    [type](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask mask) {
                      std::optional<std::regex> pair_regex;
                      std::optional<std::regex> entry_regex;
                      std::string pair_pattern;
                      std::string entry_pattern;
                      VectorBuilder keys(StringType());
                      VectorBuilder values(StringType());
                      return MapRows(type, args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        std::vector<std::string_view> pairs =
                            SplitAll(args[0]->GetString(row), args[1]->GetString(row), pair_regex, pair_pattern);
                        for (std::string_view pair : pairs) {
                          std::vector<std::string_view> parts =
                              SplitAll(pair, args[2]->GetString(row), entry_regex, entry_pattern);
                          keys.AppendString(parts[0]);
                          if (parts.size() > 1) {
                            // Only the first delimiter splits (Java's split with limit 2).
                            size_t offset = static_cast<size_t>(parts[1].data() - pair.data());
                            values.AppendString(pair.substr(offset));
                          } else {
                            values.AppendNull();
                          }
                        }
                        VectorPtr key_vector = keys.Finish();
                        VectorPtr value_vector = values.Finish();
                        MapRowBuilder map(out, context, mask.Contains(row));
                        for (int64_t i = 0; i < key_vector->length() && map.Add(*key_vector, i, *value_vector, i); ++i) {
                        }
                        map.Finish();
                      });
                    });
  });
}

}  // namespace silt::expr::internal
