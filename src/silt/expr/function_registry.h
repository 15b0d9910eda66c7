#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "silt/expr/expression.h"

namespace silt::expr {

/// Builds the bound expression of one function call from its bound arguments: checks the
/// argument count and types, inserts implicit casts, and returns a Call node (or another node
/// for special forms such as coalesce and if). Throws WRONG_NUM_ARGS or DATATYPE_MISMATCH.
using FunctionBuilder = std::function<ExpressionPtr(std::vector<ExpressionPtr> arguments)>;

/// Scalar functions by case-insensitive name. Registration is not thread-safe; lookups on a
/// registry nobody modifies are (Default() is built once, thread-safely, and then read only).
class FunctionRegistry {
 public:
  /// The registry with every built-in function of silt.
  static const FunctionRegistry& Default();

  /// Adds or replaces `name` (stored lower-case).
  void Register(std::string_view name, FunctionBuilder builder);
  bool Contains(std::string_view name) const;
  /// Binds a call of `name`. Throws UNRESOLVED_ROUTINE for an unknown name, and the builder's
  /// errors for wrong arguments.
  ExpressionPtr Bind(std::string_view name, std::vector<ExpressionPtr> arguments) const;
  /// Every registered name, sorted.
  std::vector<std::string> Names() const;

 private:
  std::map<std::string, FunctionBuilder> builders_;
};

}  // namespace silt::expr
