#include "silt/expr/operator_functions.h"

#include <limits>

#include "silt/expr/function_kernels_internal.h"
#include "silt/expr/interval_functions.h"
#include "silt/types/date_time.h"
#include "silt/types/time_zone.h"

namespace silt::expr {
namespace {

using internal::MakeCall;
using internal::MapRows;
using internal::ReadInteger;

std::string QuotedType(const DataTypePtr& type) {
  std::string name = type->ToString();
  for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return "\"" + name + "\"";
}

[[noreturn]] void ThrowOperandType(const std::string& sql, const ExpressionPtr& operand, const std::string& expected) {
  SILT_THROW(DATATYPE_MISMATCH, {{"sqlExpr", "\"" + sql + "\""},
                                 {"message", "the operand " + operand->ToString() + " has type " +
                                                 QuotedType(operand->type()) + ", which is not " + expected + "."}});
}

// Integral operands; an untyped NULL becomes `fallback`.
ExpressionPtr IntegralOperand(const std::string& sql, ExpressionPtr operand, const DataTypePtr& fallback) {
  if (operand->type()->id() == TypeId::kNull) return Cast(std::move(operand), fallback);
  if (!IsIntegral(*operand->type())) ThrowOperandType(sql, operand, "an integral type");
  return operand;
}

int64_t FloorDivide(int64_t value, int64_t divisor) {
  int64_t quotient = value / divisor;
  if ((value % divisor != 0) && ((value < 0) != (divisor < 0))) --quotient;
  return quotient;
}

int32_t AddMonthsToDays(int64_t days, int64_t months) {
  CivilDate date = CivilFromDays(days);
  int64_t month_index = date.year * 12 + (date.month - 1) + months;
  int64_t year = FloorDivide(month_index, 12);
  int month = static_cast<int>(month_index - year * 12) + 1;
  int day = date.day;
  while (!IsValidCivilDate(year, month, day)) --day;  // clamp to the month's last day
  return static_cast<int32_t>(DaysFromCivil(year, month, day));
}

// Months are added to the local date-time in `zone` (null: the value is already local), which
// then maps back to an instant with the zone's gap and overlap rules, as Spark does.
int64_t AddMonthsToMicros(int64_t micros, int64_t months, const TimeZone* zone) {
  int64_t local = zone != nullptr ? zone->UtcToLocal(micros) : micros;
  int64_t days = FloorDivide(local, kMicrosPerDay);
  int64_t time_of_day = local - days * kMicrosPerDay;
  int64_t moved = static_cast<int64_t>(AddMonthsToDays(days, months)) * kMicrosPerDay + time_of_day;
  return zone != nullptr ? zone->LocalToUtc(moved) : moved;
}

// Java's name of an integral width in overflow messages ("integer overflow").
std::string IntegralWidthName(int bytes) {
  return bytes == 8 ? "long" : bytes == 4 ? "integer" : bytes == 2 ? "short" : "byte";
}

}  // namespace

ExpressionPtr StructField(ExpressionPtr struct_value, int index) {
  const DataTypePtr& type = struct_value->type();
  SILT_CHECK(type->id() == TypeId::kStruct && index >= 0 && static_cast<size_t>(index) < type->fields().size(),
             "StructField needs a struct and a field index in range");
  DataTypePtr field_type = type->fields()[index].type;
  return MakeCall("getfield[" + type->fields()[index].name + "]", field_type, {std::move(struct_value)},
                  [index, field_type](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                    VectorPtr field = args[0]->StructField(index);
                    if (args[0]->null_count() == 0) return field;
                    VectorBuilder out(field_type, num_rows);
                    for (int64_t row = 0; row < num_rows; ++row) {
                      if (args[0]->IsNull(row)) out.AppendNull(); else out.AppendFrom(*field, row);
                    }
                    return out.Finish();
                  });
}

ExpressionPtr Negate(ExpressionPtr operand) {
  if (operand->type()->is_interval()) return NegateInterval(std::move(operand));
  const std::string sql = "(- " + operand->ToString() + ")";
  if (operand->type()->id() == TypeId::kNull) operand = Cast(std::move(operand), DoubleType());
  if (operand->type()->id() == TypeId::kString) operand = Cast(std::move(operand), DoubleType());
  DataTypePtr type = operand->type();
  if (!IsNumeric(*type)) ThrowOperandType(sql, operand, "a numeric type");
  return MakeCall("negative", type, {std::move(operand)},
                  [type](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask mask) {
                    const Vector& input = *args[0];
                    return MapRows(type, args, num_rows, [&](int64_t row, VectorBuilder& out) {
                      switch (type->id()) {
                        case TypeId::kFloat: out.AppendFloat(-input.values<float>()[row]); return;
                        case TypeId::kDouble: out.AppendDouble(-input.values<double>()[row]); return;
                        case TypeId::kDecimal: out.AppendDecimal(-input.values<Decimal128>()[row]); return;
                        default: break;
                      }
                      int64_t value = ReadInteger(input, row);
                      int bits = static_cast<int>(type->FixedWidth()) * 8;
                      int64_t minimum = bits == 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (bits - 1));
                      if (value == minimum) {
                        if (context.ansi) {
                          if (mask.Contains(row)) {
                            context.RecordError(MakeError(ErrorClass::ARITHMETIC_OVERFLOW,
                                                          {{"message", IntegralWidthName(type->FixedWidth()) + " overflow"},
                                                           {"alternative", " Use 'try_subtract' to tolerate overflow "
                                                                           "and return NULL instead."}}));
                          }
                          out.AppendNull();
                        } else {
                          out.AppendInt(value);  // wraps to itself, as Java's negation does
                        }
                        return;
                      }
                      out.AppendInt(-value);
                    });
                  });
}

ExpressionPtr Bitwise(BitwiseOperator op, ExpressionPtr left, ExpressionPtr right) {
  const char* symbol = op == BitwiseOperator::kAnd ? "&" : op == BitwiseOperator::kOr ? "|" : "^";
  const std::string sql = "(" + left->ToString() + " " + symbol + " " + right->ToString() + ")";
  DataTypePtr left_type = left->type()->id() == TypeId::kNull ? right->type() : left->type();
  DataTypePtr right_type = right->type()->id() == TypeId::kNull ? left_type : right->type();
  if (left_type->id() == TypeId::kNull) left_type = right_type = IntegerType();
  std::optional<DataTypePtr> common;
  if (IsIntegral(*left_type) && IsIntegral(*right_type)) common = WiderType(left_type, right_type);
  if (!common) {
    SILT_THROW(DATATYPE_MISMATCH,
               {{"sqlExpr", "\"" + sql + "\""},
                {"message", "the left and right operands of the binary operator have incompatible types (" +
                                QuotedType(left->type()) + " and " + QuotedType(right->type()) + ")."}});
  }
  DataTypePtr type = *common;
  left = CastIfNeeded(IntegralOperand(sql, std::move(left), type), type);
  right = CastIfNeeded(IntegralOperand(sql, std::move(right), type), type);
  return MakeCall(symbol, type, {std::move(left), std::move(right)},
                  [op, type](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                    return MapRows(type, args, num_rows, [&](int64_t row, VectorBuilder& out) {
                      int64_t a = ReadInteger(*args[0], row);
                      int64_t b = ReadInteger(*args[1], row);
                      out.AppendInt(op == BitwiseOperator::kAnd ? (a & b) : op == BitwiseOperator::kOr ? (a | b) : (a ^ b));
                    });
                  });
}

ExpressionPtr BitwiseNot(ExpressionPtr operand) {
  const std::string sql = "~" + operand->ToString();
  operand = IntegralOperand(sql, std::move(operand), IntegerType());
  DataTypePtr type = operand->type();
  return MakeCall("~", type, {std::move(operand)},
                  [type](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                    return MapRows(type, args, num_rows, [&](int64_t row, VectorBuilder& out) {
                      out.AppendInt(~ReadInteger(*args[0], row));
                    });
                  });
}

ExpressionPtr Shift(ShiftOperator op, ExpressionPtr value, ExpressionPtr amount) {
  const char* name = op == ShiftOperator::kLeft    ? "shiftleft"
                     : op == ShiftOperator::kRight ? "shiftright"
                                                   : "shiftrightunsigned";
  const std::string sql = std::string(name) + "(" + value->ToString() + ", " + amount->ToString() + ")";
  value = IntegralOperand(sql, std::move(value), IntegerType());
  if (value->type()->id() != TypeId::kLong) value = CastIfNeeded(std::move(value), IntegerType());
  amount = IntegralOperand(sql, std::move(amount), IntegerType());
  if (amount->type()->id() == TypeId::kLong) ThrowOperandType(sql, amount, "\"INT\"");
  amount = CastIfNeeded(std::move(amount), IntegerType());
  DataTypePtr type = value->type();
  const bool wide = type->id() == TypeId::kLong;
  return MakeCall(name, type, {std::move(value), std::move(amount)},
                  [op, type, wide](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                    return MapRows(type, args, num_rows, [&](int64_t row, VectorBuilder& out) {
                      int64_t count = args[1]->values<int32_t>()[row] & (wide ? 63 : 31);
                      if (wide) {
                        int64_t a = args[0]->values<int64_t>()[row];
                        auto bits = static_cast<uint64_t>(a);
                        switch (op) {
                          case ShiftOperator::kLeft: out.AppendInt(static_cast<int64_t>(bits << count)); break;
                          case ShiftOperator::kRight: out.AppendInt(a >> count); break;
                          case ShiftOperator::kRightUnsigned: out.AppendInt(static_cast<int64_t>(bits >> count)); break;
                        }
                      } else {
                        int32_t a = args[0]->values<int32_t>()[row];
                        auto bits = static_cast<uint32_t>(a);
                        switch (op) {
                          case ShiftOperator::kLeft: out.AppendInt(static_cast<int32_t>(bits << count)); break;
                          case ShiftOperator::kRight: out.AppendInt(a >> count); break;
                          case ShiftOperator::kRightUnsigned: out.AppendInt(static_cast<int32_t>(bits >> count)); break;
                        }
                      }
                    });
                  });
}

ExpressionPtr IntegralDivide(ExpressionPtr left, ExpressionPtr right, ErrorMode mode) {
  const std::string sql = "(" + left->ToString() + " div " + right->ToString() + ")";
  auto as_long = [&](ExpressionPtr operand) {
    if (operand->type()->id() == TypeId::kString) operand = Cast(std::move(operand), LongType());
    return CastIfNeeded(IntegralOperand(sql, std::move(operand), LongType()), LongType());
  };
  if (!IsIntegral(*left->type()) && left->type()->id() != TypeId::kNull && left->type()->id() != TypeId::kString) {
    ThrowOperandType(sql, left, "an integral type");
  }
  left = as_long(std::move(left));
  right = as_long(std::move(right));
  const bool try_mode = mode == ErrorMode::kTry;
  return MakeCall("div", LongType(), {std::move(left), std::move(right)},
                  [try_mode](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask mask) {
                    const bool raise = context.ansi && !try_mode;
                    return MapRows(LongType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                      int64_t a = args[0]->values<int64_t>()[row];
                      int64_t b = args[1]->values<int64_t>()[row];
                      if (b == 0) {
                        if (raise && mask.Contains(row)) context.RecordError(MakeError(ErrorClass::DIVIDE_BY_ZERO, {}));
                        out.AppendNull();
                      } else if (a == std::numeric_limits<int64_t>::min() && b == -1) {
                        if (raise && mask.Contains(row)) {
                          context.RecordError(MakeError(ErrorClass::ARITHMETIC_OVERFLOW,
                                                        {{"message", "Overflow in integral divide"},
                                                         {"alternative", " Use 'try_divide' to tolerate overflow and "
                                                                         "return NULL instead."}}));
                        }
                        if (raise || try_mode) out.AppendNull(); else out.AppendInt(a);
                      } else {
                        out.AppendInt(a / b);
                      }
                    });
                  });
}

ExpressionPtr AddInterval(ExpressionPtr datetime, const IntervalValue& interval) {
  const std::string sql = datetime->ToString() + " + INTERVAL";
  if (datetime->type()->id() == TypeId::kString || datetime->type()->id() == TypeId::kNull) {
    // Spark reads a string (or untyped NULL) operand as a timestamp, or as a date when the
    // interval keeps dates dates.
    bool keeps_date = interval.year_month || interval.days_only;
    datetime = Cast(std::move(datetime), keeps_date ? DateType() : TimestampType());
  }
  TypeId id = datetime->type()->id();
  if (id != TypeId::kDate && id != TypeId::kTimestamp && id != TypeId::kTimestampNtz) {
    ThrowOperandType(sql, datetime, "\"DATE\" or \"TIMESTAMP\"");
  }
  if (id == TypeId::kDate && !interval.year_month && !interval.days_only) {
    datetime = Cast(std::move(datetime), TimestampType());
    id = TypeId::kTimestamp;
  }
  DataTypePtr type = datetime->type();
  const IntervalValue value = interval;
  return MakeCall(interval.year_month ? "add_months_interval" : "add_time_interval", type, {std::move(datetime)},
                  [type, value](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context,
                                RowMask mask) {
                    const TimeZone* zone =
                        type->id() == TypeId::kTimestamp && value.year_month ? &context.Zone() : nullptr;
                    return MapRows(type, args, num_rows, [&](int64_t row, VectorBuilder& out) {
                      int64_t input = ReadInteger(*args[0], row);
                      if (type->id() == TypeId::kDate) {
                        int64_t days = value.year_month ? AddMonthsToDays(input, value.months)
                                                        : input + value.micros / kMicrosPerDay;
                        if (days < std::numeric_limits<int32_t>::min() || days > std::numeric_limits<int32_t>::max()) {
                          if (mask.Contains(row)) context.RecordError(MakeError(ErrorClass::ARITHMETIC_OVERFLOW,
                                                        {{"message", "integer overflow"}, {"alternative", ""}}));
                          out.AppendNull();
                          return;
                        }
                        out.AppendInt(days);
                        return;
                      }
                      if (value.year_month) {
                        out.AppendInt(AddMonthsToMicros(input, value.months, zone));
                        return;
                      }
                      int64_t result = 0;
                      if (__builtin_add_overflow(input, value.micros, &result)) {
                        if (mask.Contains(row)) {
                          context.RecordError(MakeError(ErrorClass::ARITHMETIC_OVERFLOW,
                                                        {{"message", "long overflow"}, {"alternative", ""}}));
                        }
                        out.AppendNull();
                        return;
                      }
                      out.AppendInt(result);
                    });
                  });
}

}  // namespace silt::expr

namespace silt::expr::internal {

void RegisterOperatorFunctions(FunctionRegistry& registry) {
  registry.Register("div", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("div", arguments, 2, 2);
    return IntegralDivide(arguments[0], arguments[1]);
  });
  struct ShiftFunction {
    std::string_view name;
    ShiftOperator op;
  };
  for (ShiftFunction function : {ShiftFunction{"shiftleft", ShiftOperator::kLeft},
                                 ShiftFunction{"shiftright", ShiftOperator::kRight},
                                 ShiftFunction{"shiftrightunsigned", ShiftOperator::kRightUnsigned}}) {
    registry.Register(function.name, [function](std::vector<ExpressionPtr> arguments) {
      CheckArgumentCount(function.name, arguments, 2, 2);
      return Shift(function.op, arguments[0], arguments[1]);
    });
  }
  registry.Register("negative", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("negative", arguments, 1, 1);
    return Negate(arguments[0]);
  });
  registry.Register("positive", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("positive", arguments, 1, 1);
    if (!IsNumeric(*arguments[0]->type()) && arguments[0]->type()->id() != TypeId::kNull) {
      ThrowArgumentType("positive", 0, arguments[0], "\"NUMERIC\"");
    }
    return arguments[0];
  });
  // typeof(x): the operand's type as Spark's simpleString ("int", "decimal(10,2)", "array<int>").
  registry.Register("typeof", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("typeof", arguments, 1, 1);
    return Literal(Scalar::String(arguments[0]->type()->ToString()));
  });
}

}  // namespace silt::expr::internal
