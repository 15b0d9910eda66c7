#include "silt/expr/function_registry.h"

#include <cctype>

#include "silt/base/check.h"
#include "silt/expr/cast.h"
#include "silt/expr/function_kernels_internal.h"

namespace silt::expr {
namespace {

std::string LowerCase(std::string_view name) {
  std::string lower(name);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower;
}

std::string QuotedTypeName(const DataTypePtr& type) {
  std::string name = type->ToString();
  for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return "\"" + name + "\"";
}

}  // namespace

const FunctionRegistry& FunctionRegistry::Default() {
  static const FunctionRegistry* registry = [] {
    auto* built = new FunctionRegistry();
    internal::RegisterConditionalFunctions(*built);
    internal::RegisterStringFunctions(*built);
    internal::RegisterMathFunctions(*built);
    internal::RegisterDatetimeFunctions(*built);
    internal::RegisterHashFunctions(*built);
    internal::RegisterDigestFunctions(*built);
    internal::RegisterCollectionFunctions(*built);
    internal::RegisterTextFunctions(*built);
    internal::RegisterArrayFunctions(*built);
    internal::RegisterCalendarFunctions(*built);
    internal::RegisterOperatorFunctions(*built);
    internal::RegisterRandomFunctions(*built);
    internal::RegisterJsonFunctions(*built);
    internal::RegisterCsvFunctions(*built);
    internal::RegisterTimestampFunctions(*built);
    internal::RegisterBinaryFunctions(*built);
    internal::RegisterCastFunctions(*built);
    internal::RegisterArrayBuildingFunctions(*built);
    internal::RegisterMapFunctions(*built);
    internal::RegisterStringEditingFunctions(*built);
    internal::RegisterUrlFunctions(*built);
    internal::RegisterNumberFormatFunctions(*built);
    internal::RegisterNumericFunctions(*built);
    internal::RegisterSessionInfoFunctions(*built);
    return built;
  }();
  return *registry;
}

void FunctionRegistry::Register(std::string_view name, FunctionBuilder builder) {
  builders_[LowerCase(name)] = std::move(builder);
}

bool FunctionRegistry::Contains(std::string_view name) const { return builders_.count(LowerCase(name)) > 0; }

ExpressionPtr FunctionRegistry::Bind(std::string_view name, std::vector<ExpressionPtr> arguments) const {
  auto found = builders_.find(LowerCase(name));
  if (found == builders_.end()) {
    SILT_THROW(UNRESOLVED_ROUTINE,
               {{"routineName", "`" + std::string(name) + "`"}, {"searchPath", "[`system`.`builtin`]"}});
  }
  return found->second(std::move(arguments));
}

std::vector<std::string> FunctionRegistry::Names() const {
  std::vector<std::string> names;
  for (const auto& entry : builders_) names.push_back(entry.first);
  return names;
}

namespace internal {

void CheckArgumentCount(std::string_view name, const std::vector<ExpressionPtr>& arguments, size_t minimum,
                        size_t maximum) {
  if (arguments.size() >= minimum && arguments.size() <= maximum) return;
  std::string expected = minimum == maximum ? std::to_string(minimum)
                         : maximum == SIZE_MAX ? "> " + std::to_string(minimum - 1)
                                               : "[" + std::to_string(minimum) + ", " + std::to_string(maximum) + "]";
  SILT_THROW(WRONG_NUM_ARGS, {{"functionName", "`" + std::string(name) + "`"},
                              {"expectedNum", expected},
                              {"actualNum", std::to_string(arguments.size())}});
}

void ThrowArgumentType(std::string_view name, size_t index, const ExpressionPtr& argument,
                       const std::string& expected) {
  // Spark's DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE wording; the SQL binder replaces the bound
  // argument text (`#0`) with the argument's SQL.
  static const char* const kOrdinals[] = {"first", "second", "third"};
  std::string ordinal = index < 3 ? kOrdinals[index] : std::to_string(index + 1) + "th";
  std::string required = (!expected.empty() && expected[0] == '"' ? "the " : "") + expected + " type";
  SILT_THROW(DATATYPE_MISMATCH,
             {{"sqlExpr", "\"" + std::string(name) + "(...)\""},
              {"message", "The " + ordinal + " parameter requires " + required + ", however \"" + argument->ToString() +
                              "\" has the type " + QuotedTypeName(argument->type()) + "."}});
}

ExpressionPtr ImplicitCast(std::string_view name, size_t index, ExpressionPtr argument, const DataTypePtr& type) {
  const DataTypePtr& from = argument->type();
  if (from->Equals(*type)) return argument;
  bool allowed = from->id() == TypeId::kNull;
  if (IsNumeric(*from) && IsNumeric(*type)) allowed = true;
  // ANSI implicit casts: string to numeric/date/timestamp/binary, and everything atomic to string.
  if (from->id() == TypeId::kString && !type->is_nested() && type->id() != TypeId::kBoolean) allowed = true;
  if (type->id() == TypeId::kString && !from->is_nested() && from->id() != TypeId::kBinary) allowed = true;
  if (from->id() == TypeId::kDate && (type->id() == TypeId::kTimestamp || type->id() == TypeId::kTimestampNtz)) {
    allowed = true;
  }
  if ((from->id() == TypeId::kTimestamp || from->id() == TypeId::kTimestampNtz) && type->id() == TypeId::kDate) {
    allowed = true;
  }
  if (!allowed) ThrowArgumentType(name, index, argument, QuotedTypeName(type));
  return Cast(std::move(argument), type);
}

ExpressionPtr MakeCall(std::string_view name, DataTypePtr result_type, std::vector<ExpressionPtr> arguments,
                       FunctionKernel kernel, bool deterministic) {
  auto function = std::make_shared<ResolvedFunction>();
  function->name = std::string(name);
  function->result_type = std::move(result_type);
  function->deterministic = deterministic;
  function->kernel = std::move(kernel);
  return Call(std::move(function), std::move(arguments));
}

int64_t ReadInteger(const Vector& vector, int64_t row) {
  switch (vector.type_id()) {
    case TypeId::kByte: return vector.values<int8_t>()[row];
    case TypeId::kShort: return vector.values<int16_t>()[row];
    case TypeId::kInteger:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval: return vector.values<int32_t>()[row];
    case TypeId::kLong:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kDayTimeInterval: return vector.values<int64_t>()[row];
    default: SILT_CHECK(false, "ReadInteger on " + vector.type()->ToString());
  }
  return 0;
}

double ReadDouble(const Vector& vector, int64_t row) {
  if (vector.type_id() == TypeId::kFloat) return vector.values<float>()[row];
  SILT_CHECK(vector.type_id() == TypeId::kDouble, "ReadDouble on " + vector.type()->ToString());
  return vector.values<double>()[row];
}

}  // namespace internal
}  // namespace silt::expr
