#include "silt/exec/aggregate_function.h"

#include <algorithm>
#include <cctype>

#include "silt/base/ascii.h"
#include "silt/base/check.h"
#include "silt/exec/aggregate_kind_internal.h"
#include "silt/exec/row_compare.h"
#include "silt/expr/evaluator.h"
#include "silt/expr/type_coercion.h"
#include "silt/vector/batch.h"

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

bool IsInterval(const DataType& type) {
  return type.id() == TypeId::kYearMonthInterval || type.id() == TypeId::kDayTimeInterval;
}

// The percentage argument of the percentile functions: a number or an array of numbers, cast to
// DOUBLE / ARRAY<DOUBLE>. Returns the cast type.
DataTypePtr PercentageType(const std::string& name, int ordinal, const DataType& type) {
  if (IsNumericOrNull(type)) return DoubleType();
  if (type.id() == TypeId::kList && IsNumericOrNull(*type.element_type())) return ListType(DoubleType(), false);
  ThrowTypeMismatch(name, ordinal, "(\"DOUBLE\" or \"ARRAY<DOUBLE>\")", type);
}

// `shown` is the call as the error names it (its SQL text).
[[noreturn]] void ThrowParameterMismatch(const std::string& shown, const std::string& message) {
  SILT_THROW(DATATYPE_MISMATCH, {{"sqlExpr", "\"" + shown + "\""}, {"message", message}});
}

bool HasColumns(const expr::Expression& expression) {
  if (expression.kind() == expr::ExpressionKind::kColumn) return true;
  for (const expr::ExpressionPtr& child : expression.children()) {
    if (HasColumns(*child)) return true;
  }
  return false;
}

// Folds argument `index` of `call` into a literal, or throws NON_FOLDABLE_INPUT when it reads
// columns.
const expr::Scalar& FoldArgument(AggregateCall& call, size_t index, const std::string& input_name,
                                 expr::EvalContext& context, const std::string& shown) {
  expr::ExpressionPtr& argument = call.arguments[index];
  if (argument->kind() != expr::ExpressionKind::kLiteral) {
    if (HasColumns(*argument) || !argument->deterministic()) {
      ThrowParameterMismatch(shown, "NON_FOLDABLE_INPUT: the input `" + input_name + "` should be a foldable \"" +
                                       QuotedTypeName(*argument->type()).substr(1) +
                                       " expression; however, got \"" + argument->ToString() + "\".");
    }
    Batch one_row(std::make_shared<Schema>(), {}, 1);
    VectorPtr value = expr::Evaluate(*argument, one_row, context);
    argument = expr::Literal(expr::Scalar::FromVector(*value, 0));
  }
  return argument->literal();
}

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
      {"percentile", AggregateKind::kPercentile},
      {"percentile_cont", AggregateKind::kPercentile},
      {"percentile_disc", AggregateKind::kPercentileDisc},
      {"percentile_approx", AggregateKind::kPercentileApprox},
      {"approx_percentile", AggregateKind::kPercentileApprox},
      {"median", AggregateKind::kMedian},
      {"mode", AggregateKind::kMode},
      {"skewness", AggregateKind::kSkewness},
      {"kurtosis", AggregateKind::kKurtosis},
      {"corr", AggregateKind::kCorr},
      {"covar_pop", AggregateKind::kCovarPop},
      {"covar_samp", AggregateKind::kCovarSamp},
      {"regr_count", AggregateKind::kRegrCount},
      {"regr_avgx", AggregateKind::kRegrAvgX},
      {"regr_avgy", AggregateKind::kRegrAvgY},
      {"regr_sxx", AggregateKind::kRegrSxx},
      {"regr_syy", AggregateKind::kRegrSyy},
      {"regr_sxy", AggregateKind::kRegrSxy},
      {"regr_slope", AggregateKind::kRegrSlope},
      {"regr_intercept", AggregateKind::kRegrIntercept},
      {"regr_r2", AggregateKind::kRegrR2},
      {"try_sum", AggregateKind::kTrySum},
      {"try_avg", AggregateKind::kTryAvg},
      {"bit_and", AggregateKind::kBitAnd},
      {"bit_or", AggregateKind::kBitOr},
      {"bit_xor", AggregateKind::kBitXor},
      {"listagg", AggregateKind::kListAgg},
      {"string_agg", AggregateKind::kListAgg},
      {"histogram_numeric", AggregateKind::kHistogramNumeric},
      {"count_min_sketch", AggregateKind::kCountMinSketch},
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
    case AggregateKind::kSum:
    case AggregateKind::kTrySum: {
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
    case AggregateKind::kAvg:
    case AggregateKind::kTryAvg: {
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
    case AggregateKind::kPercentile:
    case AggregateKind::kPercentileDisc:
    case AggregateKind::kMedian: {
      bool median = *kind == AggregateKind::kMedian;
      if (median) {
        CheckCount(lower, types, 1, 1);
      } else if (*kind == AggregateKind::kPercentileDisc || lower == "percentile_cont") {
        CheckCount(lower, types, 2, 2);
      } else {
        CheckCount(lower, types, 2, 3);
      }
      const DataType& input = *types[0];
      if (!IsNumericOrNull(input) && !IsInterval(input)) {
        ThrowTypeMismatch(lower, 0, "(\"NUMERIC\" or \"ANSI INTERVAL\")", input);
      }
      // Numbers are ordered and interpolated as DOUBLE (Spark returns DOUBLE); intervals keep
      // their type and come back as intervals.
      DataTypePtr value_type = IsInterval(input) ? types[0] : DoubleType();
      signature.argument_types = {value_type};
      DataTypePtr percentage = median ? DoubleType() : PercentageType(lower, 1, *types[1]);
      if (!median) signature.argument_types.push_back(percentage);
      if (types.size() == 3) {
        if (!expr::IsIntegral(*types[2]) && types[2]->id() != TypeId::kNull) {
          ThrowTypeMismatch(lower, 2, "\"INTEGRAL\"", *types[2]);
        }
        signature.argument_types.push_back(LongType());
      }
      signature.result_type = percentage->id() == TypeId::kList ? ListType(value_type, false) : value_type;
      break;
    }
    case AggregateKind::kPercentileApprox: {
      CheckCount(lower, types, 2, 3);
      const DataType& input = *types[0];
      TypeId id = input.id();
      bool temporal = id == TypeId::kDate || id == TypeId::kTimestamp || id == TypeId::kTimestampNtz;
      if (!IsNumericOrNull(input) && !IsInterval(input) && !temporal) {
        ThrowTypeMismatch(lower, 0, "(\"NUMERIC\" or \"DATE\" or \"TIMESTAMP\" or \"ANSI INTERVAL\")", input);
      }
      DataTypePtr value_type = id == TypeId::kNull ? DoubleType() : types[0];
      DataTypePtr percentage = PercentageType(lower, 1, *types[1]);
      signature.argument_types = {value_type, percentage};
      if (types.size() == 3) {
        if (!expr::IsIntegral(*types[2])) ThrowTypeMismatch(lower, 2, "\"INTEGRAL\"", *types[2]);
        signature.argument_types.push_back(IntegerType());
      }
      signature.result_type = percentage->id() == TypeId::kList ? ListType(value_type, false) : value_type;
      break;
    }
    case AggregateKind::kMode: {
      CheckCount(lower, types, 1, 2);
      if (!IsOrderable(*types[0]) || ContainsMap(*types[0])) ThrowTypeMismatch(lower, 0, "orderable", *types[0]);
      signature.argument_types = {types[0]};
      if (types.size() == 2) {
        if (types[1]->id() != TypeId::kBoolean) ThrowTypeMismatch(lower, 1, "\"BOOLEAN\"", *types[1]);
        signature.argument_types.push_back(BooleanType());
      }
      signature.result_type = types[0];
      break;
    }
    case AggregateKind::kBitAnd:
    case AggregateKind::kBitOr:
    case AggregateKind::kBitXor: {
      CheckCount(lower, types, 1, 1);
      if (!expr::IsIntegral(*types[0])) ThrowTypeMismatch(lower, 0, "\"INTEGRAL\"", *types[0]);
      signature.argument_types = {types[0]};
      signature.result_type = types[0];
      break;
    }
    case AggregateKind::kListAgg: {
      // listagg(value [, delimiter]); the binder appends WITHIN GROUP's sort keys after an
      // explicit delimiter.
      if (types.empty()) ThrowWrongArgs(lower, "[1, 2]", 0);
      auto text = [](const DataType& type) {
        return type.id() == TypeId::kString || type.id() == TypeId::kBinary || type.id() == TypeId::kNull;
      };
      if (!text(*types[0])) ThrowTypeMismatch(lower, 0, "(\"STRING\" or \"BINARY\")", *types[0]);
      DataTypePtr value_type = types[0]->id() == TypeId::kNull ? StringType() : types[0];
      signature.argument_types = {value_type};
      if (types.size() >= 2) {
        if (!text(*types[1])) ThrowTypeMismatch(lower, 1, "(\"STRING\" or \"BINARY\")", *types[1]);
        signature.argument_types.push_back(value_type);
      }
      for (size_t k = 2; k < types.size(); ++k) {
        if (!IsOrderable(*types[k])) ThrowTypeMismatch(lower, static_cast<int>(k), "orderable", *types[k]);
        signature.argument_types.push_back(types[k]);
      }
      signature.result_type = value_type;
      break;
    }
    case AggregateKind::kHistogramNumeric: {
      // Spark's histogram_numeric(expr, nb): x follows the input's type
      // (spark.sql.legacy.histogramNumericPropagateInputType, true by default); a decimal is
      // binned as a DOUBLE and its x is a DOUBLE.
      CheckCount(lower, types, 2, 2);
      const DataType& input = *types[0];
      TypeId id = input.id();
      bool temporal = id == TypeId::kDate || id == TypeId::kTimestamp || id == TypeId::kTimestampNtz;
      if (!IsNumericOrNull(input) && !IsInterval(input) && !temporal) {
        ThrowTypeMismatch(lower, 0,
                          "(\"NUMERIC\" or \"DATE\" or \"TIMESTAMP\" or \"TIMESTAMP_NTZ\" or \"INTERVAL YEAR TO "
                          "MONTH\" or \"INTERVAL DAY TO SECOND\")",
                          input);
      }
      if (!expr::IsIntegral(*types[1]) && types[1]->id() != TypeId::kNull) {
        ThrowTypeMismatch(lower, 1, "\"INT\"", *types[1]);
      }
      DataTypePtr value_type = id == TypeId::kNull || id == TypeId::kDecimal ? DoubleType() : types[0];
      signature.argument_types = {value_type, IntegerType()};
      signature.result_type = ListType(StructType({Field{"x", value_type, true, {}}, Field{"y", DoubleType(), true, {}}}),
                                       true);
      break;
    }
    case AggregateKind::kCountMinSketch: {
      // count_min_sketch(col, eps, confidence, seed): Spark takes these types as they are (no
      // implicit cast), so eps and confidence must be DOUBLE (0.5d, not 0.5).
      CheckCount(lower, types, 4, 4);
      const TypeId id = types[0]->id();
      if (!expr::IsIntegral(*types[0]) && id != TypeId::kString && id != TypeId::kBinary) {
        ThrowTypeMismatch(lower, 0, "(\"INTEGRAL\" or \"STRING\" or \"BINARY\")", *types[0]);
      }
      for (int i = 1; i <= 2; ++i) {
        if (types[i]->id() != TypeId::kDouble) ThrowTypeMismatch(lower, i, "\"DOUBLE\"", *types[i]);
      }
      if (types[3]->id() != TypeId::kInteger && types[3]->id() != TypeId::kLong) {
        ThrowTypeMismatch(lower, 3, "(\"INT\" or \"BIGINT\")", *types[3]);
      }
      signature.argument_types = types;
      signature.result_type = BinaryType();
      signature.nullable = false;
      break;
    }
    case AggregateKind::kSkewness:
    case AggregateKind::kKurtosis: {
      CheckCount(lower, types, 1, 1);
      if (!IsNumericOrNull(*types[0])) ThrowTypeMismatch(lower, 0, "\"DOUBLE\"", *types[0]);
      signature.argument_types = {DoubleType()};
      signature.result_type = DoubleType();
      break;
    }
    case AggregateKind::kCorr:
    case AggregateKind::kCovarPop:
    case AggregateKind::kCovarSamp:
    case AggregateKind::kRegrCount:
    case AggregateKind::kRegrAvgX:
    case AggregateKind::kRegrAvgY:
    case AggregateKind::kRegrSxx:
    case AggregateKind::kRegrSyy:
    case AggregateKind::kRegrSxy:
    case AggregateKind::kRegrSlope:
    case AggregateKind::kRegrIntercept:
    case AggregateKind::kRegrR2: {
      CheckCount(lower, types, 2, 2);
      for (int i = 0; i < 2; ++i) {
        if (!IsNumericOrNull(*types[i])) ThrowTypeMismatch(lower, i, "\"DOUBLE\"", *types[i]);
      }
      signature.argument_types = {DoubleType(), DoubleType()};
      signature.result_type = *kind == AggregateKind::kRegrCount ? LongType() : DoubleType();
      signature.nullable = *kind != AggregateKind::kRegrCount;
      break;
    }
  }
  return signature;
}

bool IsInverseDistributionFunction(std::string_view name) {
  std::string lower = AsciiLower(name);
  return lower == "percentile_cont" || lower == "percentile_disc" || lower == "mode";
}

void PrepareAggregateArguments(AggregateCall& call, expr::EvalContext& context, const std::string& sql) {
  const std::string call_sql = sql.empty() ? call.ToString() : sql;
  std::optional<AggregateKind> kind = AggregateKindOf(call.function);
  if (!kind) return;
  switch (*kind) {
    case AggregateKind::kPercentile:
    case AggregateKind::kPercentileDisc:
    case AggregateKind::kPercentileApprox: {
      if (call.arguments.size() < 2) return;
      const expr::Scalar& percentage = FoldArgument(call, 1, "percentage", context, call_sql);
      if (percentage.is_null()) ThrowParameterMismatch(call_sql, "UNEXPECTED_NULL: The `percentage` must not be null.");
      std::vector<double> values;
      if (percentage.type()->id() == TypeId::kList) {
        const Vector& elements = *percentage.vector();
        int64_t start = elements.ListStart(0), length = elements.ListLength(0);
        for (int64_t k = 0; k < length; ++k) {
          if (elements.child(0)->IsNull(start + k)) {
            ThrowParameterMismatch(call_sql, "UNEXPECTED_NULL: The `percentage` must not be null.");
          }
          values.push_back(elements.child(0)->values<double>()[start + k]);
        }
      } else {
        values.push_back(percentage.GetDouble());
      }
      std::string shown;
      bool out_of_range = false;
      for (double value : values) {
        out_of_range = out_of_range || !(value >= 0.0 && value <= 1.0);
        shown += (shown.empty() ? "" : ",") + expr::Scalar::Double(value).ToString();
      }
      if (out_of_range) {
        ThrowParameterMismatch(call_sql, "VALUE_OUT_OF_RANGE: The `percentage` must be between [0.0, 1.0], but got " +
                                         shown + ".");
      }
      if (*kind == AggregateKind::kPercentileApprox && call.arguments.size() == 3) {
        const expr::Scalar& accuracy = FoldArgument(call, 2, "accuracy", context, call_sql);
        if (accuracy.is_null()) ThrowParameterMismatch(call_sql, "UNEXPECTED_NULL: The `accuracy` must not be null.");
        if (accuracy.GetInt() <= 0) {
          ThrowParameterMismatch(call_sql, "VALUE_OUT_OF_RANGE: The `accuracy` must be between (0, 2147483647], but got " +
                                           accuracy.ToString() + ".");
        }
      }
      return;
    }
    case AggregateKind::kListAgg: {
      if (call.arguments.size() < 2) return;
      (void)FoldArgument(call, 1, "delimiter", context, call_sql);
      return;
    }
    case AggregateKind::kHistogramNumeric: {
      if (call.arguments.size() < 2) return;
      const expr::Scalar& bins = FoldArgument(call, 1, "nb", context, call_sql);
      if (bins.is_null()) ThrowParameterMismatch(call_sql, "UNEXPECTED_NULL: The `nb` must not be null.");
      if (bins.GetInt() < 2) {
        ThrowParameterMismatch(call_sql, "VALUE_OUT_OF_RANGE: The `nb` must be between [2, 2147483647] (current value = " +
                                         std::to_string(bins.GetInt()) + ").");
      }
      return;
    }
    case AggregateKind::kCountMinSketch: {
      if (call.arguments.size() < 4) return;
      const expr::Scalar& eps = FoldArgument(call, 1, "eps", context, call_sql);
      const expr::Scalar& confidence = FoldArgument(call, 2, "confidence", context, call_sql);
      const expr::Scalar& seed = FoldArgument(call, 3, "seed", context, call_sql);
      if (eps.is_null()) ThrowParameterMismatch(call_sql, "UNEXPECTED_NULL: The `eps` must not be null.");
      if (confidence.is_null()) ThrowParameterMismatch(call_sql, "UNEXPECTED_NULL: The `confidence` must not be null.");
      if (seed.is_null()) ThrowParameterMismatch(call_sql, "UNEXPECTED_NULL: The `seed` must not be null.");
      // Spark's bounds as it prints them, the value as a DOUBLE literal (0.0D).
      if (!(eps.GetDouble() > 0.0)) {
        ThrowParameterMismatch(call_sql, "VALUE_OUT_OF_RANGE: The `eps` must be between (0.0, 1.7976931348623157E308] "
                                     "(current value = " + eps.ToString() + "D).");
      }
      if (!(confidence.GetDouble() > 0.0 && confidence.GetDouble() < 1.0)) {
        ThrowParameterMismatch(call_sql, "VALUE_OUT_OF_RANGE: The `confidence` must be between (0.0, 1.0] (current "
                                     "value = " + confidence.ToString() + "D).");
      }
      return;
    }
    case AggregateKind::kMode: {
      if (call.arguments.size() < 2) return;
      const expr::Scalar& deterministic = FoldArgument(call, 1, "deterministic", context, call_sql);
      if (deterministic.is_null()) {
        ThrowParameterMismatch(call_sql, "UNEXPECTED_NULL: The `deterministic` must not be null.");
      }
      return;
    }
    default: return;
  }
}

std::string AggregateCall::ToString() const {
  std::string out = function + "(";
  if (distinct) out += "distinct ";
  // The inverse distribution functions print as written: percentile_cont(0.5) WITHIN GROUP
  // (ORDER BY x DESC), and mode() WITHIN GROUP (ORDER BY x) when its ties go to the largest.
  bool within_group = !arguments.empty() && ((function == "percentile_cont" || function == "percentile_disc") ||
                                             (function == "mode" && descending));
  if (within_group) {
    for (size_t i = 1; i < arguments.size(); ++i) out += (i > 1 ? ", " : "") + arguments[i]->ToString();
    out += ") WITHIN GROUP (ORDER BY " + arguments[0]->ToString();
    if (function != "mode" && descending) out += " DESC";
  } else if (arguments.empty()) {
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
