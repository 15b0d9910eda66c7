#pragma once

// Row validation shared by every statement that writes rows (INSERT, UPDATE, DELETE's rewrites,
// MERGE): Spark's store-assignment casts, generated columns, NOT NULL and CHECK constraints.
// Private to src/silt/commands.

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "silt/expr/eval_context.h"
#include "silt/expr/expression.h"
#include "silt/log/actions.h"
#include "silt/vector/batch.h"

namespace silt::commands::internal {

/// The column metadata key holding a generated column's expression.
inline constexpr std::string_view kGenerationExpressionKey = "delta.generationExpression";

/// A type as Spark quotes it in write errors: "INT", "DECIMAL(10,2)".
std::string SqlTypeName(const DataType& type);

/// The unquoted text of a field metadata value stored as a JSON string; nullopt when absent or
/// not a string.
std::optional<std::string> MetadataString(const Field& field, std::string_view key);

/// Binds `text` (a stored SQL expression: CHECK constraint, generation expression) against the
/// table's columns. Throws the parser's and binder's errors.
expr::ExpressionPtr BindTableExpression(const std::string& text, const SchemaPtr& schema);

/// Adds the top-level column indexes `expression` references to `columns`.
void CollectColumns(const expr::Expression& expression, std::set<int>& columns);

/// " - a : 1" lines, as Delta lists the values of the columns a failing check used.
std::string RowValues(const expr::Expression& expression, const Batch& batch, int64_t row);

/// Which statement family a store assignment serves; it picks Spark's or Delta's error class.
enum class WriteKind {
  kInsert,  ///< INSERT: CAST_OVERFLOW_IN_TABLE_INSERT on overflow.
  kModify,  ///< UPDATE / MERGE: DELTA_CAST_OVERFLOW_IN_TABLE_WRITE on overflow.
};

/// Casts a column to the table's type under Spark's ANSI store-assignment rules (overflow is
/// checked whatever the session's ANSI mode). Throws INCOMPATIBLE_DATA_FOR_TABLE when the types
/// cannot be store-assigned, and the overflow class of `kind`.
VectorPtr StoreAssign(const VectorPtr& input, const Field& target, const std::string& table,
                      expr::EvalContext& context, WriteKind kind = WriteKind::kInsert);

/// Everything a write must enforce on the rows of one table: NOT NULL on top-level columns and
/// the table's CHECK constraints. Immutable after construction.
class RowValidator {
 public:
  /// Binds the CHECK constraints of `metadata`; throws the binder's errors for a bad one.
  RowValidator(const SchemaPtr& schema, const log::Metadata& metadata);

  /// Throws the first violation: DELTA_NOT_NULL_CONSTRAINT_VIOLATED, or
  /// DELTA_VIOLATE_CONSTRAINT_WITH_VALUES for a CHECK that is FALSE or NULL for a row.
  void Check(const Batch& batch, expr::EvalContext& context) const;

 private:
  struct BoundCheck {
    std::string name;
    std::string text;
    expr::ExpressionPtr bound;
  };
  SchemaPtr schema_;
  std::vector<BoundCheck> checks_;
};

/// Completes rows for a table: maps source columns to table columns, casts them by store
/// assignment, computes generated columns (or checks given values against them) and validates
/// the result. Immutable after construction.
class RowAssembler {
 public:
  RowAssembler(SchemaPtr schema, const log::Metadata& metadata, std::string table_name,
               WriteKind kind = WriteKind::kInsert);

  /// True when table column `column` is a generated column.
  bool IsGenerated(size_t column) const;

  /// The rows of `source` as table rows: `mapping[i]` is the source column of table column i,
  /// or -1 for NULL (or the computed value of a generated column). A given value of a generated
  /// column that differs from its expression throws DELTA_GENERATED_COLUMN_VALUE_MISMATCH; then
  /// RowValidator::Check's errors.
  Batch Assemble(const Batch& source, const std::vector<int>& mapping,
                 expr::EvalContext& context) const;

 private:
  struct Generated {
    size_t column;
    std::string text;
    expr::ExpressionPtr bound;
  };
  SchemaPtr schema_;
  std::string table_name_;
  WriteKind kind_;
  RowValidator validator_;
  std::vector<Generated> generated_;
};

}  // namespace silt::commands::internal
