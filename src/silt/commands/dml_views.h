#pragma once

#include <string>

#include "silt/sql/ast.h"
#include "silt/sql/session_state.h"

namespace silt::commands::dml {

/// DML through a temporary or permanent view, as Delta allows it: MERGE INTO, UPDATE and DELETE
/// FROM a view that selects columns of one Delta table (`*` or plain columns, not renamed),
/// optionally filtered, write to that table. Returns `statement` rewritten onto the table: the view's
/// filter joins the WHERE (UPDATE, DELETE) or the ON condition and every NOT MATCHED BY SOURCE
/// condition (MERGE), so rows outside the view are neither seen nor changed; for a view of some
/// of the table's columns, `UPDATE SET *` / `INSERT *` assign those columns only, and other
/// columns cannot be assigned. A statement whose target is not a view is returned as is. A view
/// of another shape throws UNSUPPORTED_FEATURE naming the view.
sql::Statement ResolveDmlThroughView(sql::SessionState& session, const sql::Statement& statement,
                                     const std::string& operation);

}  // namespace silt::commands::dml
