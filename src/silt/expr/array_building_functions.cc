// Array functions that build new arrays or read them whole: array_insert, array_append,
// array_prepend, array_compact, array_size, arrays_zip, sequence, slice, array_remove,
// array_position, array_join, array_repeat, flatten, array_union, array_intersect,
// array_except, arrays_overlap, array_max, array_min, shuffle and reverse of an array.
// Element equality is Vector::RowEquals (NULL equals NULL, NaN equals NaN), as Spark's set
// functions compare.

#include <algorithm>
#include <cmath>
#include <random>

#include "silt/expr/function_kernels_internal.h"
#include "silt/expr/value_size.h"
#include "silt/types/date_time.h"

namespace silt::expr::internal {
namespace {

// Spark's ByteArrayMethods.MAX_ROUNDED_ARRAY_LENGTH.
constexpr int64_t kMaxArrayLength = 2147483632;
constexpr int64_t kMicrosPerDay = int64_t{86400} * 1000 * 1000;

ExpressionPtr ArrayArgument(std::string_view name, size_t index, ExpressionPtr argument) {
  if (argument->type()->id() == TypeId::kNull) return Cast(std::move(argument), ListType(NullType()));
  if (argument->type()->id() != TypeId::kList) ThrowArgumentType(name, index, argument, "\"ARRAY\"");
  return argument;
}

ExpressionPtr IntArgument(std::string_view name, size_t index, ExpressionPtr argument) {
  TypeId id = argument->type()->id();
  if (id != TypeId::kNull && id != TypeId::kString && !IsIntegral(*argument->type())) {
    ThrowArgumentType(name, index, argument, "\"INT\"");
  }
  return ImplicitCast(name, index, std::move(argument), IntegerType());
}

// Casts the array argument 0 and the element argument `element` to an array of their wider
// element type and that type; returns the array type.
DataTypePtr CoerceArrayAndElement(std::string_view name, std::vector<ExpressionPtr>& arguments, size_t element) {
  arguments[0] = ArrayArgument(name, 0, std::move(arguments[0]));
  auto common = WiderType(arguments[0]->type()->element_type(), arguments[element]->type());
  if (!common) ThrowArgumentType(name, element, arguments[element], "the array's element");
  bool contains_null = arguments[0]->type()->contains_null() || arguments[element]->nullable();
  DataTypePtr type = ListType(*common, contains_null);
  arguments[0] = CastIfNeeded(std::move(arguments[0]), type);
  arguments[element] = CastIfNeeded(std::move(arguments[element]), *common);
  return type;
}

// Casts every argument to an array of one common element type and returns that array type.
DataTypePtr CoerceArrays(std::string_view name, std::vector<ExpressionPtr>& arguments) {
  std::vector<DataTypePtr> elements;
  bool contains_null = false;
  for (size_t i = 0; i < arguments.size(); ++i) {
    arguments[i] = ArrayArgument(name, i, std::move(arguments[i]));
    elements.push_back(arguments[i]->type()->element_type());
    contains_null = contains_null || arguments[i]->type()->contains_null();
  }
  auto common = CommonType(elements);
  if (!common) ThrowArgumentType(name, 1, arguments[1], "arrays of one common element");
  DataTypePtr type = ListType(*common, contains_null);
  for (ExpressionPtr& argument : arguments) argument = CastIfNeeded(std::move(argument), type);
  return type;
}

Error SizeLimitError(int64_t count) {
  return MakeError(ErrorClass::COLLECTION_SIZE_LIMIT_EXCEEDED,
                   {{"numberOfElements", std::to_string(count)}, {"maxRoundedArrayLength", std::to_string(kMaxArrayLength)}});
}

// Whether `elements[index]` equals any of `elements[kept...]`.
bool Contains(const Vector& elements, const std::vector<int64_t>& kept, int64_t index) {
  return std::any_of(kept.begin(), kept.end(), [&](int64_t j) { return elements.RowEquals(j, elements, index); });
}

// Whether array row `row` of `array` holds a value equal to `elements[index]`.
bool ArrayHas(const Vector& array, int64_t row, const Vector& elements, int64_t index) {
  const Vector& own = *array.child(0);
  int64_t start = array.ListStart(row);
  for (int64_t i = start; i < start + array.ListLength(row); ++i) {
    if (own.RowEquals(i, elements, index)) return true;
  }
  return false;
}

// Orders two non-NULL elements of an orderable vector (NaN above every number).
int CompareElements(const Vector& values, int64_t a, int64_t b) {
  switch (values.type_id()) {
    case TypeId::kBoolean: return static_cast<int>(values.GetBool(a)) - static_cast<int>(values.GetBool(b));
    case TypeId::kFloat:
    case TypeId::kDouble: {
      double x = ReadDouble(values, a);
      double y = ReadDouble(values, b);
      if (std::isnan(x) || std::isnan(y)) return static_cast<int>(std::isnan(x)) - static_cast<int>(std::isnan(y));
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
    default: {
      int64_t x = ReadInteger(values, a);
      int64_t y = ReadInteger(values, b);
      return x < y ? -1 : x > y ? 1 : 0;
    }
  }
}

bool IsOrderableAtom(TypeId id) {
  switch (id) {
    case TypeId::kNull:
    case TypeId::kStruct:
    case TypeId::kList:
    case TypeId::kMap: return false;
    default: return true;
  }
}

// Months added to a day number: the day of month clamps to the new month's last day.
std::optional<int64_t> AddMonthsToDays(int64_t days, int64_t months) {
  CivilDate date = CivilFromDays(days);
  int64_t month_index = date.year * 12 + (date.month - 1) + months;
  int64_t year = month_index >= 0 ? month_index / 12 : -((-month_index + 11) / 12);
  if (year > 294247 || year < -290308) return std::nullopt;
  int month = static_cast<int>(month_index - year * 12) + 1;
  int day = date.day;
  while (!IsValidCivilDate(year, month, day)) --day;
  return DaysFromCivil(year, month, day);
}

int64_t FloorDivide(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0); }

// sequence(start, stop[, step]) over integral values.
ExpressionPtr BindIntegralSequence(std::vector<ExpressionPtr> arguments) {
  std::vector<DataTypePtr> types;
  for (size_t i = 0; i < arguments.size(); ++i) {
    TypeId id = arguments[i]->type()->id();
    if (id != TypeId::kNull && !IsIntegral(*arguments[i]->type())) ThrowArgumentType("sequence", i, arguments[i], "\"INTEGRAL\"");
    if (id != TypeId::kNull) types.push_back(arguments[i]->type());
  }
  DataTypePtr type = types.empty() ? LongType() : *CommonType(types);
  for (ExpressionPtr& argument : arguments) argument = CastIfNeeded(std::move(argument), type);
  DataTypePtr result = ListType(type, false);
  return MakeCall("sequence", result, std::move(arguments),
                  [type, result](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask mask) {
                    return MapRows(result, args, num_rows, [&](int64_t row, VectorBuilder& out) {
                      int64_t start = ReadInteger(*args[0], row);
                      int64_t stop = ReadInteger(*args[1], row);
                      int64_t step = args.size() > 2 ? ReadInteger(*args[2], row) : (start <= stop ? 1 : -1);
                      if (!((step > 0 && start <= stop) || (step < 0 && start >= stop) || (step == 0 && start == stop))) {
                        if (mask.Contains(row)) {
                          context.RecordError(MakeError(
                              ErrorClass::INVALID_PARAMETER_VALUE,
                              {{"parameter", "`step`"}, {"functionName", "`sequence`"},
                               {"message", "Illegal sequence boundaries: " + std::to_string(start) + " to " +
                                               std::to_string(stop) + " by " + std::to_string(step)}}));
                        }
                        return out.AppendNull();
                      }
                      __int128 count = step == 0 ? 1 : (static_cast<__int128>(stop) - start) / step + 1;
                      if (count > kMaxArrayLength) {
                        if (mask.Contains(row)) context.RecordError(SizeLimitError(static_cast<int64_t>(count)));
                        return out.AppendNull();
                      }
                      CheckValueSize("The result of sequence", SaturatingProduct(static_cast<uint64_t>(count), 8),
                                     context.max_value_bytes);
                      for (__int128 i = 0; i < count; ++i) out.child(0).AppendInt(static_cast<int64_t>(start + i * step));
                      out.FinishList();
                    });
                  });
}

// sequence over dates or timestamps with an interval step (default one day, or minus one).
ExpressionPtr BindTemporalSequence(std::vector<ExpressionPtr> arguments) {
  auto common = WiderType(arguments[0]->type(), arguments[1]->type());
  if (!common || !((*common)->id() == TypeId::kDate || (*common)->id() == TypeId::kTimestamp ||
                   (*common)->id() == TypeId::kTimestampNtz)) {
    ThrowArgumentType("sequence", 1, arguments[1], "the start's");
  }
  DataTypePtr type = *common;
  arguments[0] = CastIfNeeded(std::move(arguments[0]), type);
  arguments[1] = CastIfNeeded(std::move(arguments[1]), type);
  bool months = false;
  if (arguments.size() > 2) {
    TypeId id = arguments[2]->type()->id();
    if (id == TypeId::kNull) {
      arguments[2] = Cast(std::move(arguments[2]), DayTimeIntervalType());
    } else if (id != TypeId::kYearMonthInterval && id != TypeId::kDayTimeInterval) {
      ThrowArgumentType("sequence", 2, arguments[2], "\"INTERVAL\"");
    }
    months = arguments[2]->type()->id() == TypeId::kYearMonthInterval;
  }
  DataTypePtr result = ListType(type, false);
  const bool is_date = type->id() == TypeId::kDate;
  const bool zoned = type->id() == TypeId::kTimestamp;
  return MakeCall("sequence", result, std::move(arguments),
                  [result, is_date, zoned, months](const std::vector<VectorPtr>& args, int64_t num_rows,
                                                   EvalContext& context, RowMask mask) {
                    const TimeZone* zone = zoned ? &context.Zone() : nullptr;
                    return MapRows(result, args, num_rows, [&](int64_t row, VectorBuilder& out) {
                      int64_t start = ReadInteger(*args[0], row);
                      int64_t stop = ReadInteger(*args[1], row);
                      int64_t unit = is_date ? kMicrosPerDay : 1;
                      int64_t step = args.size() > 2 ? ReadInteger(*args[2], row)
                                                     : (start <= stop ? kMicrosPerDay : -kMicrosPerDay);
                      auto fail = [&](Error error) {
                        if (mask.Contains(row)) context.RecordError(std::move(error));
                        out.AppendNull();
                      };
                      if (is_date && !months && step % kMicrosPerDay != 0) {
                        return fail(MakeError(ErrorClass::INVALID_PARAMETER_VALUE,
                                              {{"parameter", "`step`"}, {"functionName", "`sequence`"},
                                               {"message", "sequence step must be a day interval if start and end values are dates"}}));
                      }
                      // The i-th element is start + i * step, months moving the local date.
                      auto element = [&](int64_t i) -> std::optional<int64_t> {
                        __int128 amount = static_cast<__int128>(step) * i;
                        if (amount > INT64_MAX || amount < INT64_MIN) return std::nullopt;
                        if (!months) {
                          __int128 value = static_cast<__int128>(start) + amount / unit;
                          if (value > INT64_MAX || value < INT64_MIN) return std::nullopt;
                          return static_cast<int64_t>(value);
                        }
                        if (is_date) return AddMonthsToDays(start, static_cast<int64_t>(amount));
                        int64_t local = zone != nullptr ? zone->UtcToLocal(start) : start;
                        int64_t days = FloorDivide(local, kMicrosPerDay);
                        std::optional<int64_t> moved = AddMonthsToDays(days, static_cast<int64_t>(amount));
                        if (!moved) return std::nullopt;
                        int64_t moved_local = *moved * kMicrosPerDay + (local - days * kMicrosPerDay);
                        return zone != nullptr ? zone->LocalToUtc(moved_local) : moved_local;
                      };
                      int sign = step > 0 ? 1 : step < 0 ? -1 : 0;
                      if (!((sign > 0 && start <= stop) || (sign < 0 && start >= stop) || (sign == 0 && start == stop))) {
                        return fail(MakeError(ErrorClass::INVALID_PARAMETER_VALUE,
                                              {{"parameter", "`step`"}, {"functionName", "`sequence`"},
                                               {"message", "Illegal sequence boundaries: " + std::to_string(start * unit) +
                                                               " to " + std::to_string(stop * unit) + " by " +
                                                               std::to_string(step)}}));
                      }
                      // An upper bound of the count from the step's size (a month is at least 28 days).
                      int64_t approximate_step = months ? std::abs(step) * 28 * (is_date ? 1 : kMicrosPerDay)
                                                        : std::abs(step) / unit;
                      __int128 estimate = sign == 0 ? 1
                                                    : (static_cast<__int128>(stop) - start) * sign /
                                                              std::max<int64_t>(approximate_step, 1) + 1;
                      if (estimate > kMaxArrayLength) return fail(SizeLimitError(static_cast<int64_t>(estimate)));
                      CheckValueSize("The result of sequence", SaturatingProduct(static_cast<uint64_t>(estimate), 8),
                                     context.max_value_bytes);
                      for (int64_t i = 0;; ++i) {
                        std::optional<int64_t> value = element(i);
                        if (!value || (sign >= 0 && *value > stop) || (sign < 0 && *value < stop)) break;
                        out.child(0).AppendInt(*value);
                        if (sign == 0) break;
                      }
                      out.FinishList();
                    });
                  });
}

// slice(x, start, length): `length` elements from the 1-based `start` (negative: from the end).
VectorPtr SliceKernel(const DataTypePtr& type, const std::vector<VectorPtr>& args, int64_t num_rows,
                      EvalContext& context, RowMask mask) {
  return MapRows(type, args, num_rows, [&](int64_t row, VectorBuilder& out) {
    int64_t start = args[1]->values<int32_t>()[row];
    int64_t length = args[2]->values<int32_t>()[row];
    auto invalid = [&](const char* parameter, std::string message) {
      if (mask.Contains(row)) {
        context.RecordError(MakeError(ErrorClass::INVALID_PARAMETER_VALUE,
                                      {{"parameter", parameter}, {"functionName", "`slice`"}, {"message", message}}));
      }
      out.AppendNull();
    };
    if (start == 0) return invalid("`start`", "Expects a positive or a negative value for `start`, but got 0.");
    if (length < 0) {
      return invalid("`length`", "Expects `length` greater than or equal to 0, but got " + std::to_string(length) + ".");
    }
    int64_t size = args[0]->ListLength(row);
    int64_t first = start > 0 ? start - 1 : size + start;
    if (first < 0 || first >= size) {
      out.FinishList();
      return;
    }
    int64_t count = std::min(length, size - first);
    out.child(0).AppendRange(*args[0]->child(0), args[0]->ListStart(row) + first, count);
    out.FinishList();
  });
}

enum class SetOperation { kUnion, kIntersect, kExcept };

ExpressionPtr BindSetOperation(std::string_view name, SetOperation operation, std::vector<ExpressionPtr> arguments) {
  CheckArgumentCount(name, arguments, 2, 2);
  DataTypePtr type = CoerceArrays(name, arguments);
  return MakeCall(name, type, std::move(arguments),
                  [type, operation](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                    const Vector& left = *args[0]->child(0);
                    const Vector& right = *args[1]->child(0);
                    std::vector<int64_t> kept_left;
                    std::vector<int64_t> kept_right;
                    return MapRows(type, args, num_rows, [&](int64_t row, VectorBuilder& out) {
                      kept_left.clear();
                      kept_right.clear();
                      int64_t start = args[0]->ListStart(row);
                      for (int64_t i = start; i < start + args[0]->ListLength(row); ++i) {
                        if (Contains(left, kept_left, i)) continue;
                        bool in_right = ArrayHas(*args[1], row, left, i);
                        if (operation == SetOperation::kUnion || (operation == SetOperation::kIntersect) == in_right) {
                          kept_left.push_back(i);
                        }
                      }
                      if (operation == SetOperation::kUnion) {
                        int64_t right_start = args[1]->ListStart(row);
                        for (int64_t i = right_start; i < right_start + args[1]->ListLength(row); ++i) {
                          bool seen = std::any_of(kept_left.begin(), kept_left.end(),
                                                  [&](int64_t j) { return left.RowEquals(j, right, i); });
                          if (!seen && !Contains(right, kept_right, i)) kept_right.push_back(i);
                        }
                      }
                      for (int64_t i : kept_left) out.child(0).AppendFrom(left, i);
                      for (int64_t i : kept_right) out.child(0).AppendFrom(right, i);
                      out.FinishList();
                    });
                  });
}

// array_append and array_prepend.
ExpressionPtr BindAddElement(std::string_view name, std::vector<ExpressionPtr> arguments, bool append) {
  CheckArgumentCount(name, arguments, 2, 2);
  DataTypePtr type = CoerceArrayAndElement(name, arguments, 1);
  return MakeCall(name, type, std::move(arguments),
                  [type, append](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                    // NULL only when the array is; a NULL element is added.
                    VectorBuilder out(type, num_rows);
                    for (int64_t row = 0; row < num_rows; ++row) {
                      if (args[0]->IsNull(row)) {
                        out.AppendNull();
                        continue;
                      }
                      if (!append) out.child(0).AppendFrom(*args[1], row);
                      out.child(0).AppendRange(*args[0]->child(0), args[0]->ListStart(row), args[0]->ListLength(row));
                      if (append) out.child(0).AppendFrom(*args[1], row);
                      out.FinishList();
                    }
                    return out.Finish();
                  });
}

// array_max and array_min: NULL elements are skipped; NaN is the largest double.
ExpressionPtr BindExtreme(std::string_view name, std::vector<ExpressionPtr> arguments, bool maximum) {
  CheckArgumentCount(name, arguments, 1, 1);
  arguments[0] = ArrayArgument(name, 0, std::move(arguments[0]));
  DataTypePtr element = arguments[0]->type()->element_type();
  if (!IsOrderableAtom(element->id()) && element->id() != TypeId::kNull) {
    ThrowArgumentType(name, 0, arguments[0], "an array of orderable element");
  }
  return MakeCall(name, element, std::move(arguments),
                  [element, maximum](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                    const Vector& elements = *args[0]->child(0);
                    VectorBuilder out(element, num_rows);
                    for (int64_t row = 0; row < num_rows; ++row) {
                      int64_t best = -1;
                      if (args[0]->IsValid(row)) {
                        int64_t start = args[0]->ListStart(row);
                        for (int64_t i = start; i < start + args[0]->ListLength(row); ++i) {
                          if (elements.IsNull(i)) continue;
                          int order = best < 0 ? 0 : CompareElements(elements, i, best);
                          if (best < 0 || (maximum ? order > 0 : order < 0)) best = i;
                        }
                      }
                      if (best < 0) out.AppendNull(); else out.AppendFrom(elements, best);
                    }
                    return out.Finish();
                  });
}

}  // namespace

ExpressionPtr BindArrayReverse(std::vector<ExpressionPtr> arguments) {
  DataTypePtr type = arguments[0]->type();
  return MakeCall("reverse", type, std::move(arguments),
                  [type](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                    const Vector& elements = *args[0]->child(0);
                    return MapRows(type, args, num_rows, [&](int64_t row, VectorBuilder& out) {
                      int64_t start = args[0]->ListStart(row);
                      for (int64_t i = start + args[0]->ListLength(row) - 1; i >= start; --i) {
                        out.child(0).AppendFrom(elements, i);
                      }
                      out.FinishList();
                    });
                  });
}

void RegisterArrayBuildingFunctions(FunctionRegistry& registry) {
  registry.Register("array_insert", [](std::vector<ExpressionPtr> arguments) {
    // array_insert(x, pos, value): pos is 1-based; past the end the array is padded with NULLs;
    // negative pos counts from the end, -1 placing the value last (spark.sql.legacy.
    // negativeIndexInArrayInsert off), and pads with NULLs after the value when it reaches
    // before the start. 0 is INVALID_INDEX_OF_ZERO.
    CheckArgumentCount("array_insert", arguments, 3, 3);
    arguments[1] = IntArgument("array_insert", 1, std::move(arguments[1]));
    DataTypePtr type = CoerceArrayAndElement("array_insert", arguments, 2);
    type = ListType(type->element_type(), true);
    arguments[0] = CastIfNeeded(std::move(arguments[0]), type);
    return MakeCall("array_insert", type, std::move(arguments),
                    [type](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask mask) {
                      VectorBuilder out(type, num_rows);
                      for (int64_t row = 0; row < num_rows; ++row) {
                        if (args[0]->IsNull(row) || args[1]->IsNull(row)) {
                          out.AppendNull();
                          continue;
                        }
                        int64_t position = args[1]->values<int32_t>()[row];
                        if (position == 0) {
                          if (mask.Contains(row)) context.RecordError(MakeError(ErrorClass::INVALID_INDEX_OF_ZERO, {}));
                          out.AppendNull();
                          continue;
                        }
                        int64_t size = args[0]->ListLength(row);
                        int64_t start = args[0]->ListStart(row);
                        const Vector& elements = *args[0]->child(0);
                        VectorBuilder& values = out.child(0);
                        // The 0-based index the value takes, and the NULLs padding the gap.
                        int64_t index = position > 0 ? position - 1 : size + position + 1;
                        int64_t length = index >= 0 ? std::max(size, index) + 1 : size - index + 1;
                        if (length > kMaxArrayLength) {
                          if (mask.Contains(row)) context.RecordError(SizeLimitError(length));
                          out.AppendNull();
                          continue;
                        }
                        CheckValueSize("The result of array_insert", SaturatingProduct(static_cast<uint64_t>(length), 4),
                                       context.max_value_bytes);
                        if (index < 0) {
                          values.AppendFrom(*args[2], row);
                          values.AppendNulls(-index);
                          values.AppendRange(elements, start, size);
                        } else if (index <= size) {
                          values.AppendRange(elements, start, index);
                          values.AppendFrom(*args[2], row);
                          values.AppendRange(elements, start + index, size - index);
                        } else {
                          values.AppendRange(elements, start, size);
                          values.AppendNulls(index - size);
                          values.AppendFrom(*args[2], row);
                        }
                        out.FinishList();
                      }
                      return out.Finish();
                    });
  });
  registry.Register("array_append", [](std::vector<ExpressionPtr> arguments) {
    return BindAddElement("array_append", std::move(arguments), true);
  });
  registry.Register("array_prepend", [](std::vector<ExpressionPtr> arguments) {
    return BindAddElement("array_prepend", std::move(arguments), false);
  });
  registry.Register("array_compact", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("array_compact", arguments, 1, 1);
    arguments[0] = ArrayArgument("array_compact", 0, std::move(arguments[0]));
    DataTypePtr type = ListType(arguments[0]->type()->element_type(), false);
    return MakeCall("array_compact", type, std::move(arguments),
                    [type](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      const Vector& elements = *args[0]->child(0);
                      return MapRows(type, args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        int64_t start = args[0]->ListStart(row);
                        for (int64_t i = start; i < start + args[0]->ListLength(row); ++i) {
                          if (elements.IsValid(i)) out.child(0).AppendFrom(elements, i);
                        }
                        out.FinishList();
                      });
                    });
  });
  registry.Register("array_size", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("array_size", arguments, 1, 1);
    arguments[0] = ArrayArgument("array_size", 0, std::move(arguments[0]));
    return MakeCall("array_size", IntegerType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      return MapRows(IntegerType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        out.AppendInt(args[0]->ListLength(row));
                      });
                    });
  });
  registry.Register("arrays_zip", [](std::vector<ExpressionPtr> arguments) {
    // The i-th struct holds the i-th element of each array (NULL past an array's end); fields
    // are named "0", "1", ... (the binder renames those of column arguments after the column).
    std::vector<Field> fields;
    for (size_t i = 0; i < arguments.size(); ++i) {
      arguments[i] = ArrayArgument("arrays_zip", i, std::move(arguments[i]));
      fields.push_back(Field{std::to_string(i), arguments[i]->type()->element_type(), true, {}});
    }
    DataTypePtr type = ListType(StructType(std::move(fields)), false);
    if (arguments.empty()) {
      VectorBuilder empty(type, 1);
      empty.FinishList();
      return Literal(Scalar::FromVector(*empty.Finish(), 0));
    }
    return MakeCall("arrays_zip", type, std::move(arguments),
                    [type](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask) {
                      return MapRows(type, args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        int64_t length = 0;
                        for (const VectorPtr& array : args) length = std::max<int64_t>(length, array->ListLength(row));
                        CheckValueSize("The result of arrays_zip", SaturatingProduct(static_cast<uint64_t>(length), 4 * args.size()),
                                       context.max_value_bytes);
                        VectorBuilder& structs = out.child(0);
                        for (int64_t i = 0; i < length; ++i) {
                          for (size_t a = 0; a < args.size(); ++a) {
                            if (i < args[a]->ListLength(row)) {
                              structs.child(a).AppendFrom(*args[a]->child(0), args[a]->ListStart(row) + i);
                            } else {
                              structs.child(a).AppendNull();
                            }
                          }
                          structs.AppendStruct();
                        }
                        out.FinishList();
                      });
                    });
  });
  registry.Register("sequence", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("sequence", arguments, 2, 3);
    for (size_t i = 0; i < 2; ++i) {
      if (arguments[i]->type()->id() == TypeId::kString) arguments[i] = Cast(std::move(arguments[i]), LongType());
    }
    TypeId start = arguments[0]->type()->id();
    TypeId stop = arguments[1]->type()->id();
    auto temporal = [](TypeId id) {
      return id == TypeId::kDate || id == TypeId::kTimestamp || id == TypeId::kTimestampNtz;
    };
    if (temporal(start) || temporal(stop)) return BindTemporalSequence(std::move(arguments));
    return BindIntegralSequence(std::move(arguments));
  });
  registry.Register("slice", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("slice", arguments, 3, 3);
    arguments[0] = ArrayArgument("slice", 0, std::move(arguments[0]));
    arguments[1] = IntArgument("slice", 1, std::move(arguments[1]));
    arguments[2] = IntArgument("slice", 2, std::move(arguments[2]));
    DataTypePtr type = arguments[0]->type();
    return MakeCall("slice", type, std::move(arguments),
                    [type](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask mask) {
                      return SliceKernel(type, args, num_rows, context, mask);
                    });
  });
  registry.Register("array_remove", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("array_remove", arguments, 2, 2);
    DataTypePtr type = CoerceArrayAndElement("array_remove", arguments, 1);
    type = ListType(type->element_type(), arguments[0]->type()->contains_null());
    arguments[0] = CastIfNeeded(std::move(arguments[0]), type);
    return MakeCall("array_remove", type, std::move(arguments),
                    [type](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      // Removes every element equal to the value; NULL elements stay.
                      const Vector& elements = *args[0]->child(0);
                      return MapRows(type, args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        int64_t start = args[0]->ListStart(row);
                        for (int64_t i = start; i < start + args[0]->ListLength(row); ++i) {
                          if (elements.IsNull(i) || !elements.RowEquals(i, *args[1], row)) {
                            out.child(0).AppendFrom(elements, i);
                          }
                        }
                        out.FinishList();
                      });
                    });
  });
  registry.Register("array_position", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("array_position", arguments, 2, 2);
    CoerceArrayAndElement("array_position", arguments, 1);
    return MakeCall("array_position", LongType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      // The 1-based position of the first equal element, 0 when there is none.
                      const Vector& elements = *args[0]->child(0);
                      return MapRows(LongType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        int64_t start = args[0]->ListStart(row);
                        int64_t found = 0;
                        for (int64_t i = start; i < start + args[0]->ListLength(row) && found == 0; ++i) {
                          if (elements.IsValid(i) && elements.RowEquals(i, *args[1], row)) found = i - start + 1;
                        }
                        out.AppendInt(found);
                      });
                    });
  });
  registry.Register("array_join", [](std::vector<ExpressionPtr> arguments) {
    // array_join(array, delimiter[, nullReplacement]): NULL elements are skipped unless replaced.
    CheckArgumentCount("array_join", arguments, 2, 3);
    arguments[0] = ArrayArgument("array_join", 0, std::move(arguments[0]));
    if (arguments[0]->type()->element_type()->is_nested()) {
      ThrowArgumentType("array_join", 0, arguments[0], "\"ARRAY<STRING>\"");
    }
    arguments[0] = CastIfNeeded(std::move(arguments[0]), ListType(StringType(), true));
    for (size_t i = 1; i < arguments.size(); ++i) {
      arguments[i] = ImplicitCast("array_join", i, std::move(arguments[i]), StringType());
    }
    return MakeCall("array_join", StringType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask) {
                      const Vector& elements = *args[0]->child(0);
                      std::string scratch;
                      return MapRows(StringType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        scratch.clear();
                        bool first = true;
                        int64_t start = args[0]->ListStart(row);
                        for (int64_t i = start; i < start + args[0]->ListLength(row); ++i) {
                          std::string_view value;
                          if (elements.IsValid(i)) {
                            value = elements.GetString(i);
                          } else if (args.size() > 2) {
                            value = args[2]->GetString(row);
                          } else {
                            continue;
                          }
                          std::string_view delimiter = first ? std::string_view() : args[1]->GetString(row);
                          CheckValueSize("The result of array_join",
                                         uint64_t{scratch.size()} + delimiter.size() + value.size(), context.max_value_bytes);
                          scratch.append(delimiter);
                          scratch.append(value);
                          first = false;
                        }
                        out.AppendString(scratch);
                      });
                    });
  });
  registry.Register("array_repeat", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("array_repeat", arguments, 2, 2);
    arguments[1] = IntArgument("array_repeat", 1, std::move(arguments[1]));
    DataTypePtr type = ListType(arguments[0]->type(), true);
    return MakeCall("array_repeat", type, std::move(arguments),
                    [type](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask mask) {
                      // NULL only for a NULL count; a NULL element is repeated.
                      VectorBuilder out(type, num_rows);
                      for (int64_t row = 0; row < num_rows; ++row) {
                        if (args[1]->IsNull(row)) {
                          out.AppendNull();
                          continue;
                        }
                        int64_t count = std::max<int64_t>(args[1]->values<int32_t>()[row], 0);
                        if (count > kMaxArrayLength) {
                          if (mask.Contains(row)) context.RecordError(SizeLimitError(count));
                          out.AppendNull();
                          continue;
                        }
                        // Each element costs its bytes and a 4-byte offset, or at most 16 bytes of a
                        // fixed-width value.
                        uint64_t each = args[0]->type_id() == TypeId::kString || args[0]->type_id() == TypeId::kBinary
                                            ? (args[0]->IsValid(row) ? args[0]->GetString(row).size() : 0) + 4
                                            : 16;
                        CheckValueSize("The result of array_repeat", SaturatingProduct(static_cast<uint64_t>(count), each),
                                       context.max_value_bytes);
                        for (int64_t i = 0; i < count; ++i) out.child(0).AppendFrom(*args[0], row);
                        out.FinishList();
                      }
                      return out.Finish();
                    });
  });
  registry.Register("flatten", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("flatten", arguments, 1, 1);
    arguments[0] = ArrayArgument("flatten", 0, std::move(arguments[0]));
    const DataTypePtr& inner = arguments[0]->type()->element_type();
    if (inner->id() != TypeId::kList) ThrowArgumentType("flatten", 0, arguments[0], "\"ARRAY\" of \"ARRAY\"");
    DataTypePtr type = inner;
    return MakeCall("flatten", type, std::move(arguments),
                    [type](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      // NULL when the array or any of its arrays is NULL.
                      const Vector& arrays = *args[0]->child(0);
                      VectorBuilder out(type, num_rows);
                      for (int64_t row = 0; row < num_rows; ++row) {
                        int64_t start = args[0]->ListStart(row);
                        int64_t end = start + (args[0]->IsValid(row) ? args[0]->ListLength(row) : 0);
                        bool null = args[0]->IsNull(row);
                        for (int64_t i = start; i < end && !null; ++i) null = arrays.IsNull(i);
                        if (null) {
                          out.AppendNull();
                          continue;
                        }
                        for (int64_t i = start; i < end; ++i) {
                          out.child(0).AppendRange(*arrays.child(0), arrays.ListStart(i), arrays.ListLength(i));
                        }
                        out.FinishList();
                      }
                      return out.Finish();
                    });
  });
  registry.Register("array_union", [](std::vector<ExpressionPtr> arguments) {
    return BindSetOperation("array_union", SetOperation::kUnion, std::move(arguments));
  });
  registry.Register("array_intersect", [](std::vector<ExpressionPtr> arguments) {
    return BindSetOperation("array_intersect", SetOperation::kIntersect, std::move(arguments));
  });
  registry.Register("array_except", [](std::vector<ExpressionPtr> arguments) {
    return BindSetOperation("array_except", SetOperation::kExcept, std::move(arguments));
  });
  registry.Register("arrays_overlap", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("arrays_overlap", arguments, 2, 2);
    CoerceArrays("arrays_overlap", arguments);
    return MakeCall("arrays_overlap", BooleanType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      // TRUE when a non-NULL element is in both; otherwise NULL when both are
                      // non-empty and either holds a NULL; else FALSE.
                      const Vector& left = *args[0]->child(0);
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
                          if (left.IsNull(i)) {
                            saw_null = true;
                          } else {
                            found = ArrayHas(*args[1], row, left, i);
                          }
                        }
                        const Vector& right = *args[1]->child(0);
                        int64_t right_start = args[1]->ListStart(row);
                        for (int64_t i = right_start; i < right_start + args[1]->ListLength(row) && !saw_null; ++i) {
                          saw_null = right.IsNull(i);
                        }
                        bool both_non_empty = args[0]->ListLength(row) > 0 && args[1]->ListLength(row) > 0;
                        if (found) {
                          out.AppendBool(true);
                        } else if (saw_null && both_non_empty) {
                          out.AppendNull();
                        } else {
                          out.AppendBool(false);
                        }
                      }
                      return out.Finish();
                    });
  });
  registry.Register("array_max", [](std::vector<ExpressionPtr> arguments) {
    return BindExtreme("array_max", std::move(arguments), true);
  });
  registry.Register("array_min", [](std::vector<ExpressionPtr> arguments) {
    return BindExtreme("array_min", std::move(arguments), false);
  });
  registry.Register("shuffle", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("shuffle", arguments, 1, 1);
    arguments[0] = ArrayArgument("shuffle", 0, std::move(arguments[0]));
    DataTypePtr type = arguments[0]->type();
    return MakeCall("shuffle", type, std::move(arguments),
                    [type](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      thread_local std::mt19937_64 generator{std::random_device{}()};
                      const Vector& elements = *args[0]->child(0);
                      std::vector<int64_t> order;
                      return MapRows(type, args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        order.resize(args[0]->ListLength(row));
                        for (size_t i = 0; i < order.size(); ++i) order[i] = args[0]->ListStart(row) + static_cast<int64_t>(i);
                        std::shuffle(order.begin(), order.end(), generator);
                        for (int64_t i : order) out.child(0).AppendFrom(elements, i);
                        out.FinishList();
                      });
                    }, /*deterministic=*/false);
  });
}

}  // namespace silt::expr::internal
