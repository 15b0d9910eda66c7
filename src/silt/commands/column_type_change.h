#pragma once

// ALTER TABLE ... ALTER COLUMN path TYPE type (private to src/silt/commands).

#include <vector>

#include "silt/sql/ast.h"
#include "silt/types/data_type.h"

namespace silt::commands::internal {

/// A column type change applied to a schema.
struct ColumnTypeChange {
  std::vector<Field> fields;    ///< the table's columns with the new type and its history
  size_t top_level_column = 0;  ///< the column holding the changed field
  /// The changed field as Delta's CHANGE COLUMN operation records it: its dotted path as name,
  /// the new type, and the field's metadata before the change.
  Field changed;
  bool type_changed = false;  ///< false when the type was already `new_type`
};

/// Changes the type of the column, struct field, map `key`/`value` or array `element` at `path`
/// (names matched case-insensitively) to `new_type`, recording the change in the
/// `delta.typeChanges` metadata of the nearest struct field. A change is allowed when it is a
/// type widening Delta supports and `widening_enabled`, or when the old type is void. Throws
/// UNRESOLVED_COLUMN for a path the schema lacks and DELTA_UNSUPPORTED_ALTER_TABLE_CHANGE_COL_OP
/// for any other change (Spark's SQL type names, " NOT NULL" for non-nullable fields).
ColumnTypeChange ChangeColumnType(const Schema& schema, const sql::QualifiedName& path,
                                  const DataTypePtr& new_type, bool widening_enabled);

}  // namespace silt::commands::internal
