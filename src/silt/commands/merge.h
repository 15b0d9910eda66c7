#pragma once

// MERGE INTO (private to src/silt/commands): binds a parsed MERGE statement against its target
// Delta table and materialised source, finds the target rows the ON condition matches, applies
// the first WHEN clause whose condition holds to each row, and commits the rewritten files, the
// inserted rows and (with the change data feed on) the change rows in one transaction.

#include "silt/commands/statement_executor.h"
#include "silt/sql/ast.h"
#include "silt/sql/session_state.h"

namespace silt::commands::internal {

/// Runs a kMerge statement. Returns one row: num_affected_rows, num_updated_rows,
/// num_deleted_rows, num_inserted_rows (BIGINT). Errors (nothing is committed on any of them):
/// DELTA_NON_LAST_*_CLAUSE_OMIT_CONDITION for a condition-less clause before the last of its
/// group; DELTA_MERGE_UNRESOLVED_EXPRESSION for a column no visible side has, or that both
/// have; DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE when several source rows match
/// one target row that a MATCHED clause would change; the store-assignment errors
/// (INCOMPATIBLE_DATA_FOR_TABLE, CAST_OVERFLOW_IN_TABLE_INSERT); NOT NULL and CHECK violations;
/// and the binder's and the transaction's errors.
StatementResult ExecuteMerge(sql::SessionState& session, const sql::Statement& statement);

}  // namespace silt::commands::internal
