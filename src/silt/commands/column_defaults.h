#pragma once

// Column DEFAULT values (Spark's column defaults, Delta's `allowColumnDefaults` writer feature):
// the SQL text of a column's default is stored in its metadata under `CURRENT_DEFAULT`, and
// writes that leave the column out store the default's value. Delta requires the table feature
// before any default is set. Private to src/silt/commands.

#include <string>
#include <string_view>
#include <vector>

#include "silt/expr/eval_context.h"
#include "silt/log/actions.h"
#include "silt/sql/ast.h"
#include "silt/vector/batch.h"

namespace silt::commands::internal {

/// The column metadata key holding a column's DEFAULT expression as SQL text.
inline constexpr std::string_view kCurrentDefaultKey = "CURRENT_DEFAULT";

/// The table property that adds the `allowColumnDefaults` feature to a table's protocol.
inline constexpr std::string_view kAllowColumnDefaultsProperty =
    "delta.feature.allowColumnDefaults";

/// Checks `text` as the DEFAULT of `field` for `statement` ("CREATE TABLE", "ALTER TABLE") and
/// stores it in the field's metadata. Throws INVALID_DEFAULT_VALUE when it references columns,
/// is not deterministic, or cannot be stored in the column's type.
void SetColumnDefault(Field& field, const std::string& text, const std::string& statement);

/// Removes the DEFAULT of `field`, if any.
void DropColumnDefault(Field& field);

/// Throws WRONG_COLUMN_DEFAULTS_FOR_DELTA_FEATURE_NOT_ENABLED for `command_type` unless
/// `protocol` supports `allowColumnDefaults`.
void CheckColumnDefaultsAllowed(const log::Protocol& protocol, const std::string& command_type);

/// `source` with the default values appended for every column of `schema` that has a DEFAULT
/// and whose `mapping` entry is -1; those entries then point at the appended columns.
Batch WithDefaultColumns(const SchemaPtr& schema, const Batch& source, std::vector<int>& mapping,
                         expr::EvalContext& context);

/// True when `value` is the DEFAULT keyword (an unqualified name `DEFAULT`, any case).
bool IsDefaultKeyword(const sql::Expression& value);

/// `value`, or the DEFAULT expression of `target` when `value` is the DEFAULT keyword (NULL for a
/// column without one). Throws DEFAULT_PLACEMENT_INVALID when DEFAULT is part of `value`.
sql::ExpressionPtr ResolveDefaultKeyword(const sql::ExpressionPtr& value, const Field& target);

/// The top-level column of `schema` an assignment `name` (`c`, or `alias.c`) sets, or nullptr.
const Field* AssignedColumn(const Schema& schema, const sql::QualifiedName& name);

}  // namespace silt::commands::internal
