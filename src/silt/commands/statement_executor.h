#pragma once

#include <vector>

#include "silt/exec/operator.h"
#include "silt/sql/ast.h"
#include "silt/sql/session_state.h"
#include "silt/vector/batch.h"

/// Runs parsed statements: queries (through the planner) and every other statement (DDL, DML,
/// DESCRIBE, SHOW, SET, EXPLAIN) against the session's catalog and Delta tables.
namespace silt::commands {

/// What a statement returned.
struct StatementResult {
  /// The columns of the result, or null for a statement that returns nothing (CREATE, INSERT,
  /// SET key=value ...), which the shell prints nothing for.
  SchemaPtr schema;
  std::vector<Batch> batches;
  int64_t num_rows() const;
};

/// Runs `statement` in `session`. Writes are committed before this returns; on an error nothing
/// of this statement is committed. Throws silt::Error with the statement's error class.
StatementResult ExecuteStatement(sql::SessionState& session, const sql::Statement& statement);

}  // namespace silt::commands
