#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "silt/commands/statement_executor.h"
#include "silt/sql/ast.h"
#include "silt/sql/session_state.h"
#include "silt/stream/source.h"
#include "silt/stream/stream_execution.h"

namespace silt::stream {

// Streaming tables in SQL (docs/streaming.md): a Delta table kept up to date by the flow that
// streams its query's STREAM(source) into it, and by named flows (flow.h). The flow's definition
// and checkpoint live in the table's folder under `_silt_streaming/` (hidden from Delta readers
// and VACUUM):
//   _silt_streaming/flow.json     {"query": "<the query text, with STREAM(...)>"}, or {} for a
//                                 table declared without a query
//   _silt_streaming/checkpoint/   the flow's checkpoint (checkpoint.h)
//   _silt_streaming/flows/        named flows (flow.h)

/// True for CREATE [OR REFRESH] STREAMING TABLE, REFRESH STREAMING TABLE and CREATE FLOW.
bool IsStreamingStatement(const sql::Statement& statement);

/// Runs a streaming-table statement: CREATE creates the table (columns from the statement, or
/// the query's output), records the flow and runs it once as available-now; CREATE OR REFRESH
/// replaces the flow's query of an existing streaming table and runs it; REFRESH runs it again
/// (FULL first empties the table and starts the checkpoint afresh). Returns one row per batch:
/// batch_id, num_input_rows, num_output_rows, duration_ms. Throws TABLE_OR_VIEW_ALREADY_EXISTS
/// for CREATE of an existing table, UNSUPPORTED_FEATURE for a table that is not a streaming
/// table, and what the stream throws.
commands::StatementResult ExecuteStreamingStatement(sql::SessionState& session,
                                                    const sql::Statement& statement);

/// A stream of the Delta table `query` reads as STREAM(name): replaces that reference (see
/// ReplaceStreamSource) and opens the source with `options`. Throws UNSUPPORTED_FEATURE when
/// the name is a view or raw files, and what DeltaSource::Open throws.
std::unique_ptr<Source> OpenStreamSource(sql::SessionState& session, sql::Query& query,
                                         const StreamOptions& options);

/// Builds a stream on `session`, the session its batches run on (the trigger is set after).
using StreamFactory = std::function<StreamSpec(sql::SessionState& session)>;

/// Runs the stream `make_stream` builds: available-now, or with `every_ms` a batch every
/// interval (one progress line per batch on stderr, prefixed with `name`) until the statement
/// is cancelled, which stops it after the batch in flight commits (its batches then run on a
/// session of their own). Returns the progress of its batches; throws what the stream throws.
std::vector<QueryProgress> RunStream(sql::SessionState& session, const std::string& name,
                                     const StreamFactory& make_stream,
                                     std::optional<int64_t> every_ms = std::nullopt);

/// One row per batch: batch_id, num_input_rows, num_output_rows, duration_ms.
commands::StatementResult ProgressRows(const std::vector<QueryProgress>& progress);

/// Writes `bytes` to `path` atomically (a temporary file renamed over it).
void WriteFileAtomically(io::FileSystem& fs, const std::string& path, std::string_view bytes);

}  // namespace silt::stream
