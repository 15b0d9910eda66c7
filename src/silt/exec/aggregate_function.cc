#include "silt/exec/aggregate_function.h"

#include <algorithm>
#include <cctype>

#include "silt/base/ascii.h"
#include "silt/base/check.h"
#include "silt/exec/aggregate_kind_internal.h"
#include "silt/exec/row_compare.h"
#include "silt/expr/type_coercion.h"

namespace silt::exec {

namespace {

// Spark's type names in error messages: "STRING", "DECIMAL(10,2)", "ARRAY<INT>".
std::string QuotedTypeName(const DataType& type) {
  std::string name = type.ToString();
  for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return "\"" + name + "\"";
}

[[noreturn]] void ThrowWrongArgs(const std::string& name, const std::string& expected, size_t actual) {
  SILT_THROW(WRONG_NUM_ARGS, {{"functionName", "`" + name + "`"},
                              {"expectedNum", expected},
                              {"actualNum", std::to_string(actual)}});
}

[[noreturn]] void ThrowTypeMismatch(const std::string& name, int ordinal, const std::string& required,
                                    const DataType& actual) {
  static const char* kOrdinals[] = {"first", "second", "third"};
  SILT_THROW(DATATYPE_MISMATCH,
             {{"sqlExpr", "\"" + name + "\""},
              {"message", std::string("The ") + kOrdinals[std::min(ordinal, 2)] +
                              " parameter requires the " + required + " type, however the argument has the type " +
                              QuotedTypeName(actual) + "."}});
}

// Map values have no order in Spark, so min/max/min_by/max_by and DISTINCT cannot use them.
bool ContainsMap(const DataType& type) {
  if (type.id() == TypeId::kMap) return true;
  for (const Field& field : type.fields()) {
    if (ContainsMap(*field.type)) return true;
  }
  return false;
}

void CheckCount(const std::string& name, const std::vector<DataTypePtr>& types, size_t min, size_t max) {
  if (types.size() < min || types.size() > max) {
    std::string expected = min == max ? std::to_string(min) : "[" + std::to_string(min) + ", " + std::to_string(max) + "]";
    ThrowWrongArgs(name, expected, types.size());
  }
}

// Numeric input for the statistical aggregates and avg: NULL-typed input reads as DOUBLE.
bool IsNumericOrNull(const DataType& type) { return type.id() == TypeId::kNull || expr::IsNumeric(type); }

}  // namespace

std::optional<AggregateKind> AggregateKindOf(std::string_view name) {
  std::string lower = AsciiLower(name);
  static const std::pair<const char*, AggregateKind> kNames[] = {
      {"count", AggregateKind::kCount},
      {"sum", AggregateKind::kSum},
      {"avg", AggregateKind::kAvg},
      {"mean", AggregateKind::kAvg},
      {"min", AggregateKind::kMin},
      {"max", AggregateKind::kMax},
      {"min_by", AggregateKind::kMinBy},
      {"max_by", AggregateKind::kMaxBy},
      {"first", AggregateKind::kFirst},
      {"first_value", AggregateKind::kFirst},
      {"last", AggregateKind::kLast},
      {"last_value", AggregateKind::kLast},
      {"any_value", AggregateKind::kAnyValue},
      {"collect_list", AggregateKind::kCollectList},
      {"array_agg", AggregateKind::kCollectList},
      {"collect_set", AggregateKind::kCollectSet},
      {"approx_count_distinct", AggregateKind::kApproxCountDistinct},
      {"stddev", AggregateKind::kStddevSamp},
      {"stddev_samp", AggregateKind::kStddevSamp},
      {"std", AggregateKind::kStddevSamp},
      {"stddev_pop", AggregateKind::kStddevPop},
      {"variance", AggregateKind::kVarSamp},
      {"var_samp", AggregateKind::kVarSamp},
      {"var_pop", AggregateKind::kVarPop},
      {"bool_or", AggregateKind::kBoolOr},
      {"any", AggregateKind::kBoolOr},
      {"some", AggregateKind::kBoolOr},
      {"bool_and", AggregateKind::kBoolAnd},
      {"every", AggregateKind::kBoolAnd},
      {"count_if", AggregateKind::kCountIf},
  };
  for (const auto& [candidate, kind] : kNames) {
    if (lower == candidate) return kind;
  }
  return std::nullopt;
}

bool IsAggregateFunction(std::string_view name) { return AggregateKindOf(name).has_value(); }

AggregateSignature ResolveAggregate(std::string_view name, const std::vector<DataTypePtr>& argument_types,
                                    bool distinct) {
  std::optional<AggregateKind> kind = AggregateKindOf(name);
  std::string lower = AsciiLower(name);
  if (!kind) {
    SILT_THROW(UNRESOLVED_ROUTINE, {{"routineName", "`" + lower + "`"}, {"searchPath", "[`system`.`builtin`]"}});
  }
  for (const DataTypePtr& type : argument_types) SILT_CHECK(type != nullptr, "aggregate argument without a type");
  const std::vector<DataTypePtr>& types = argument_types;
  AggregateSignature signature;
  switch (*kind) {
    case AggregateKind::kCount: {
      if (types.empty() && distinct) ThrowWrongArgs(lower, "at least 1", 0);
      if (distinct) {
        for (size_t i = 0; i < types.size(); ++i) {
          if (!IsOrderable(*types[i])) ThrowTypeMismatch(lower, static_cast<int>(i), "hashable", *types[i]);
        }
      }
      signature.argument_types = types;
      signature.result_type = LongType();
      signature.nullable = false;
      break;
    }
    case AggregateKind::kCountIf: {
      CheckCount(lower, types, 1, 1);
      if (types[0]->id() != TypeId::kBoolean && types[0]->id() != TypeId::kNull) {
        ThrowTypeMismatch(lower, 0, "\"BOOLEAN\"", *types[0]);
      }
      signature.argument_types = {BooleanType()};
      signature.result_type = LongType();
      signature.nullable = false;
      break;
    }
    case AggregateKind::kSum: {
      CheckCount(lower, types, 1, 1);
      const DataType& input = *types[0];
      if (input.id() == TypeId::kDecimal) {
        signature.argument_types = {types[0]};
        signature.result_type =
            DecimalType(std::min(expr::kMaxDecimalPrecision, input.precision() + 10), input.scale());
      } else if (expr::IsIntegral(input)) {
        signature.argument_types = {LongType()};
        signature.result_type = LongType();
      } else if (IsNumericOrNull(input)) {
        signature.argument_types = {DoubleType()};
        signature.result_type = DoubleType();
      } else {
        ThrowTypeMismatch(lower, 0, "(\"NUMERIC\" or \"ANSI INTERVAL\")", input);
      }
      break;
    }
    case AggregateKind::kAvg: {
      CheckCount(lower, types, 1, 1);
      const DataType& input = *types[0];
      if (input.id() == TypeId::kDecimal) {
        signature.argument_types = {types[0]};
        signature.result_type = DecimalType(std::min(expr::kMaxDecimalPrecision, input.precision() + 4),
                                            std::min(expr::kMaxDecimalPrecision, input.scale() + 4));
      } else if (IsNumericOrNull(input)) {
        signature.argument_types = {DoubleType()};
        signature.result_type = DoubleType();
      } else {
        ThrowTypeMismatch(lower, 0, "(\"NUMERIC\" or \"ANSI INTERVAL\")", input);
      }
      break;
    }
    case AggregateKind::kStddevSamp:
    case AggregateKind::kStddevPop:
    case AggregateKind::kVarSamp:
    case AggregateKind::kVarPop: {
      CheckCount(lower, types, 1, 1);
      if (!IsNumericOrNull(*types[0])) ThrowTypeMismatch(lower, 0, "\"DOUBLE\"", *types[0]);
      signature.argument_types = {DoubleType()};
      signature.result_type = DoubleType();
      break;
    }
    case AggregateKind::kMin:
    case AggregateKind::kMax: {
      CheckCount(lower, types, 1, 1);
      if (!IsOrderable(*types[0])) ThrowTypeMismatch(lower, 0, "orderable", *types[0]);
      signature.argument_types = types;
      signature.result_type = types[0];
      break;
    }
    case AggregateKind::kMinBy:
    case AggregateKind::kMaxBy: {
      CheckCount(lower, types, 2, 2);
      if (!IsOrderable(*types[1])) ThrowTypeMismatch(lower, 1, "orderable", *types[1]);
      signature.argument_types = types;
      signature.result_type = types[0];
      break;
    }
    case AggregateKind::kFirst:
    case AggregateKind::kLast:
    case AggregateKind::kAnyValue: {
      CheckCount(lower, types, 1, 2);
      // The optional second argument is the ignoreNulls flag (a boolean literal).
      if (types.size() == 2 && types[1]->id() != TypeId::kBoolean) {
        ThrowTypeMismatch(lower, 1, "\"BOOLEAN\"", *types[1]);
      }
      signature.argument_types = types;
      signature.result_type = types[0];
      break;
    }
    case AggregateKind::kCollectList:
    case AggregateKind::kCollectSet: {
      CheckCount(lower, types, 1, 1);
      if (*kind == AggregateKind::kCollectSet && ContainsMap(*types[0])) {
        ThrowTypeMismatch(lower, 0, "hashable", *types[0]);
      }
      signature.argument_types = types;
      // Spark's collect_* never put NULL elements in the array and return [] for no rows.
      signature.result_type = ListType(types[0], false);
      signature.nullable = false;
      break;
    }
    case AggregateKind::kApproxCountDistinct: {
      CheckCount(lower, types, 1, 2);
      if (ContainsMap(*types[0])) ThrowTypeMismatch(lower, 0, "hashable", *types[0]);
      signature.argument_types = {types[0]};
      if (types.size() == 2) {
        if (!IsNumericOrNull(*types[1])) ThrowTypeMismatch(lower, 1, "\"DOUBLE\"", *types[1]);
        signature.argument_types.push_back(DoubleType());
      }
      signature.result_type = LongType();
      signature.nullable = false;
      break;
    }
    case AggregateKind::kBoolOr:
    case AggregateKind::kBoolAnd: {
      CheckCount(lower, types, 1, 1);
      if (types[0]->id() != TypeId::kBoolean && types[0]->id() != TypeId::kNull) {
        ThrowTypeMismatch(lower, 0, "\"BOOLEAN\"", *types[0]);
      }
      signature.argument_types = {BooleanType()};
      signature.result_type = BooleanType();
      break;
    }
  }
  return signature;
}

std::string AggregateCall::ToString() const {
  std::string out = function + "(";
  if (distinct) out += "distinct ";
  if (arguments.empty()) {
    out += "1";  // count(*) prints as Spark's count(1)
  } else {
    for (size_t i = 0; i < arguments.size(); ++i) {
      if (i > 0) out += ", ";
      out += arguments[i]->ToString();
    }
  }
  if (ignore_nulls && arguments.size() == 1) out += ", true";
  out += ")";
  if (filter) out += " FILTER (WHERE " + filter->ToString() + ")";
  return out;
}

}  // namespace silt::exec
