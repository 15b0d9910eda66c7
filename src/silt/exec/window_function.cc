#include "silt/exec/window_function.h"

#include <string>
#include <utility>
#include <vector>

#include "silt/base/ascii.h"
#include "silt/base/check.h"
#include "silt/exec/aggregate_function.h"
#include "silt/exec/sort_window.h"

namespace silt::exec {

namespace {

constexpr std::pair<std::string_view, WindowFunctionKind> kNames[] = {
    {"row_number", WindowFunctionKind::kRowNumber},
    {"rank", WindowFunctionKind::kRank},
    {"dense_rank", WindowFunctionKind::kDenseRank},
    {"percent_rank", WindowFunctionKind::kPercentRank},
    {"cume_dist", WindowFunctionKind::kCumeDist},
    {"ntile", WindowFunctionKind::kNtile},
    {"lag", WindowFunctionKind::kLag},
    {"lead", WindowFunctionKind::kLead},
    {"first", WindowFunctionKind::kFirst},
    {"first_value", WindowFunctionKind::kFirst},
    {"any_value", WindowFunctionKind::kFirst},
    {"last", WindowFunctionKind::kLast},
    {"last_value", WindowFunctionKind::kLast},
    {"nth_value", WindowFunctionKind::kNthValue},
    {"count", WindowFunctionKind::kCount},
    {"count_if", WindowFunctionKind::kCountIf},
    {"sum", WindowFunctionKind::kSum},
    {"avg", WindowFunctionKind::kAvg},
    {"mean", WindowFunctionKind::kAvg},
    {"min", WindowFunctionKind::kMin},
    {"max", WindowFunctionKind::kMax},
    {"stddev", WindowFunctionKind::kStddevSamp},
    {"stddev_samp", WindowFunctionKind::kStddevSamp},
    {"std", WindowFunctionKind::kStddevSamp},
    {"stddev_pop", WindowFunctionKind::kStddevPop},
    {"variance", WindowFunctionKind::kVarSamp},
    {"var_samp", WindowFunctionKind::kVarSamp},
    {"var_pop", WindowFunctionKind::kVarPop},
    {"bool_and", WindowFunctionKind::kBoolAnd},
    {"every", WindowFunctionKind::kBoolAnd},
    {"bool_or", WindowFunctionKind::kBoolOr},
    {"any", WindowFunctionKind::kBoolOr},
    {"some", WindowFunctionKind::kBoolOr},
};

// The window-only functions (aggregates go through ResolveAggregate).
bool IsWindowOnly(WindowFunctionKind kind) {
  return IgnoresFrame(kind) || kind == WindowFunctionKind::kNthValue;
}

[[noreturn]] void ThrowWrongArgs(const std::string& name, const std::string& expected,
                                 size_t actual) {
  SILT_THROW(WRONG_NUM_ARGS, {{"functionName", "`" + name + "`"},
                              {"expectedNum", expected},
                              {"actualNum", std::to_string(actual)}});
}

void CheckCount(const std::string& name, const std::vector<DataTypePtr>& types, size_t min,
                size_t max) {
  if (types.size() >= min && types.size() <= max) return;
  ThrowWrongArgs(name,
                 min == max ? std::to_string(min)
                            : "[" + std::to_string(min) + ", " + std::to_string(max) + "]",
                 types.size());
}

bool IsIntegralType(const DataType& type) {
  switch (type.id()) {
    case TypeId::kByte:
    case TypeId::kShort:
    case TypeId::kInteger:
    case TypeId::kLong:
      return true;
    default:
      return false;
  }
}

void RequireIntegral(const std::string& name, int ordinal, const DataType& type) {
  if (IsIntegralType(type) || type.id() == TypeId::kNull) return;
  static const char* kOrdinals[] = {"first", "second", "third"};
  SILT_THROW(DATATYPE_MISMATCH,
             {{"sqlExpr", "\"" + name + "\""},
              {"message", std::string("The ") + kOrdinals[ordinal] +
                              " parameter requires the \"INT\" type, however the "
                              "argument has the type \"" +
                              type.ToString() + "\"."}});
}

}  // namespace

std::optional<WindowFunctionKind> WindowFunctionKindOf(std::string_view name) {
  std::string lower = AsciiLower(name);
  for (const auto& [candidate, kind] : kNames) {
    if (lower == candidate) return kind;
  }
  return std::nullopt;
}

bool IgnoresFrame(WindowFunctionKind kind) {
  switch (kind) {
    case WindowFunctionKind::kRowNumber:
    case WindowFunctionKind::kRank:
    case WindowFunctionKind::kDenseRank:
    case WindowFunctionKind::kPercentRank:
    case WindowFunctionKind::kCumeDist:
    case WindowFunctionKind::kNtile:
    case WindowFunctionKind::kLag:
    case WindowFunctionKind::kLead:
      return true;
    default:
      return false;
  }
}

bool IsWindowFunction(std::string_view name) {
  std::string lower = AsciiLower(name);
  // first_value/last_value are also aggregates; the rest have no meaning without OVER.
  if (lower == "first_value" || lower == "last_value") return true;
  std::optional<WindowFunctionKind> kind = WindowFunctionKindOf(lower);
  return kind && IsWindowOnly(*kind);
}

DataTypePtr ResolveWindowFunction(std::string_view name,
                                  const std::vector<DataTypePtr>& argument_types) {
  std::string lower = AsciiLower(name);
  std::optional<WindowFunctionKind> kind = WindowFunctionKindOf(lower);
  if (!kind || !IsWindowOnly(*kind))
    return ResolveAggregate(lower, argument_types, false).result_type;
  const std::vector<DataTypePtr>& types = argument_types;
  switch (*kind) {
    case WindowFunctionKind::kRowNumber:
    case WindowFunctionKind::kRank:
    case WindowFunctionKind::kDenseRank:
      CheckCount(lower, types, 0, 0);
      return IntegerType();
    case WindowFunctionKind::kPercentRank:
    case WindowFunctionKind::kCumeDist:
      CheckCount(lower, types, 0, 0);
      return DoubleType();
    case WindowFunctionKind::kNtile:
      CheckCount(lower, types, 1, 1);
      RequireIntegral(lower, 0, *types[0]);
      return IntegerType();
    case WindowFunctionKind::kLag:
    case WindowFunctionKind::kLead:
      CheckCount(lower, types, 1, 3);
      if (types.size() >= 2) RequireIntegral(lower, 1, *types[1]);
      return types[0];
    case WindowFunctionKind::kNthValue:
      CheckCount(lower, types, 2, 2);
      RequireIntegral(lower, 1, *types[1]);
      return types[0];
    default:
      break;
  }
  SILT_CHECK(false, "unhandled window function kind");
  return nullptr;
}

}  // namespace silt::exec
