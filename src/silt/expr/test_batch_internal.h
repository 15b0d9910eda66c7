#pragma once

// Test helpers: build columns and batches from literal values, and read results back as text.

#include <optional>
#include <string>
#include <vector>

#include "silt/expr/evaluator.h"
#include "silt/vector/batch.h"

namespace silt::expr::testing {

/// A column of `type` from optional integers (nullopt = NULL).
inline VectorPtr IntColumn(DataTypePtr type, const std::vector<std::optional<int64_t>>& values) {
  VectorBuilder builder(std::move(type));
  for (const auto& value : values) {
    if (value) builder.AppendInt(*value); else builder.AppendNull();
  }
  return builder.Finish();
}

inline VectorPtr StringColumn(const std::vector<std::optional<std::string>>& values) {
  VectorBuilder builder(StringType());
  for (const auto& value : values) {
    if (value) builder.AppendString(*value); else builder.AppendNull();
  }
  return builder.Finish();
}

inline VectorPtr DoubleColumn(const std::vector<std::optional<double>>& values) {
  VectorBuilder builder(DoubleType());
  for (const auto& value : values) {
    if (value) builder.AppendDouble(*value); else builder.AppendNull();
  }
  return builder.Finish();
}

inline VectorPtr BoolColumn(const std::vector<std::optional<bool>>& values) {
  VectorBuilder builder(BooleanType());
  for (const auto& value : values) {
    if (value) builder.AppendBool(*value); else builder.AppendNull();
  }
  return builder.Finish();
}

/// A batch whose columns are named c0, c1, ...
inline Batch MakeBatch(const std::vector<VectorPtr>& columns) {
  std::vector<Field> fields;
  for (size_t i = 0; i < columns.size(); ++i) fields.push_back(Field{"c" + std::to_string(i), columns[i]->type(), true, {}});
  int64_t rows = columns.empty() ? 1 : columns[0]->length();
  return Batch(std::make_shared<Schema>(std::move(fields)), columns, rows);
}

/// A one-row batch without columns, for evaluating constant expressions.
inline Batch OneRow() {
  return Batch(std::make_shared<Schema>(), {}, 1);
}

/// Every row of `vector` in Spark's show() text ("NULL" for NULL).
inline std::vector<std::string> Texts(const VectorPtr& vector) {
  std::vector<std::string> texts;
  for (int64_t i = 0; i < vector->length(); ++i) texts.push_back(vector->ValueToString(i));
  return texts;
}

/// Evaluates an expression on one empty row and returns its text.
inline std::string EvaluateText(const ExpressionPtr& expression, EvalContext& context) {
  return Evaluate(*expression, OneRow(), context)->ValueToString(0);
}

inline std::string EvaluateText(const ExpressionPtr& expression) {
  EvalContext context;
  return EvaluateText(expression, context);
}

}  // namespace silt::expr::testing
