#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "silt/io/file_system.h"
#include "silt/sql/ast.h"
#include "silt/sql/session_state.h"
#include "silt/stream/stream_execution.h"

namespace silt::stream {

// Named flows (docs/streaming.md): `CREATE FLOW f AS ...` streams a STREAM(source) into a Delta
// table in one of three ways:
//   AUTO CDC INTO t ... / APPLY CHANGES INTO t ...   changes applied by key (auto_cdc.h)
//   MERGE INTO t USING STREAM(src) s ON ... WHEN ... the MERGE run on each batch, as an
//                                                    idempotent write (txnAppId = the flow's
//                                                    query id, txnVersion = the batch id)
//   INSERT INTO t BY NAME SELECT ... FROM STREAM(src) the query's rows appended (Delta sink)
// A flow is kept with its target table, beside the table's own streaming query:
//   _silt_streaming/flows/<name>/flow.json    {"name": "<f>", "statement": "CREATE FLOW ..."}
//   _silt_streaming/flows/<name>/checkpoint/  the flow's checkpoint (checkpoint.h)
//   _silt_streaming/flows/<name>/state/       AUTO CDC: the keys' last sequence (a Delta table)
// A table with flows is a streaming table: REFRESH STREAMING TABLE runs its flows.

/// Records the flow of a CREATE FLOW statement with its target (replacing a flow of that name,
/// whose checkpoint it keeps) after checking it, then runs it once as available-now. Returns
/// the progress of its batches. Throws TABLE_OR_VIEW_NOT_FOUND for a missing target,
/// UNSUPPORTED_FEATURE for a target that is not a Delta table or a body that reads no stream,
/// and what the flow's checks and its run throw.
std::vector<QueryProgress> CreateFlow(sql::SessionState& session, const sql::Statement& statement);

/// The names of the flows kept with the table at `location`, sorted.
std::vector<std::string> FlowNames(io::FileSystem& fs, const std::string& location);

/// Runs the flow `name` of `table`: available-now, or every `every_ms` (see RunStream).
std::vector<QueryProgress> RunFlow(sql::SessionState& session, const sql::TableSource& table,
                                   const std::string& name,
                                   std::optional<int64_t> every_ms = std::nullopt);

/// Forgets what the flows of the table at `location` have streamed (their checkpoints and AUTO
/// CDC state), for REFRESH ... FULL; their definitions stay.
void ForgetFlowProgress(io::FileSystem& fs, const std::string& location);

}  // namespace silt::stream
