#pragma once

#include <memory>
#include <string>

#include "silt/sql/ast.h"
#include "silt/sql/session_state.h"
#include "silt/stream/sink.h"

namespace silt::stream {

// AUTO CDC (docs/streaming.md): a flow that applies a stream of changes to a Delta table by key,
// in the order of a sequence column, as Databricks' AUTO CDC / APPLY CHANGES does. Each batch:
//   1. keeps the latest change of each key (by the sequence value; a NULL sequence is ignored);
//   2. drops a change not newer than what the flow already applied to its key, or than a
//      truncate (the out-of-order guard), reading the flow's state table;
//   3. applies the rest to the target in one MERGE (SCD type 1: upsert or delete; type 2: close
//      the current version and open a new one, or update untracked columns in place);
//   4. records each applied key's sequence (deletes too: tombstones) in the state table.
// Both writes carry the stream's txn (query id, batch id), so a replayed batch changes neither
// twice. The state table is a Delta table of its own (keys, __silt_sequence, __silt_deleted,
// __silt_truncate), kept with the flow.

/// The columns AutoCdcStreamQuery adds to the source's: the change's sequence value, whether it
/// is a delete, and whether it truncates the target.
inline constexpr std::string_view kCdcSequenceColumn = "__silt_sequence";
inline constexpr std::string_view kCdcDeleteColumn = "__silt_delete";
inline constexpr std::string_view kCdcTruncateColumn = "__silt_truncate";

/// The stream query of an AUTO CDC flow: every column of its source, then the three columns
/// above, computed from SEQUENCE BY and the APPLY AS conditions.
std::string AutoCdcStreamQuery(const sql::AutoCdc& cdc);

/// Checks `cdc` against its stream's columns (`stream_schema`, the output of AutoCdcStreamQuery)
/// and against `target`; gives a target without columns (a streaming table declared without
/// any) the flow's columns, plus `__START_AT` / `__END_AT` of the sequence's type for SCD type
/// 2; creates the state table at `state_location` when missing; and returns the sink that
/// applies each batch. Throws UNRESOLVED_COLUMN for a key, COLUMNS or TRACK HISTORY column the
/// source lacks, and AUTO_CDC_INVALID for the rest (an unorderable sequence, TRACK HISTORY or
/// APPLY AS TRUNCATE with the wrong SCD type, a COLUMNS list without a key, a target whose
/// columns do not fit).
std::unique_ptr<Sink> MakeAutoCdcSink(sql::SessionState& session, const sql::Statement& statement,
                                      const sql::TableSource& target, const Schema& stream_schema,
                                      const std::string& state_location);

}  // namespace silt::stream
