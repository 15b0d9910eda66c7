#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "silt/cdc/lsn.h"

namespace silt::cdc {

// The two layers of PostgreSQL's logical replication stream, as its documentation names them
// ("Streaming Replication Protocol" and "Logical Replication Message Formats"): the frames of
// the COPY BOTH stream (XLogData and keepalives from the server, standby status updates from
// the client), and inside XLogData the messages of the built-in `pgoutput` plugin, protocol
// version 1. Decoders throw CDC_SOURCE_FAILED for a truncated or unknown message. Views in the
// decoded messages point into the frame they came from.

/// A frame of WAL data: `payload` is one pgoutput message.
struct XLogData {
  Lsn wal_start = 0;
  Lsn wal_end = 0;
  int64_t send_time = 0;  ///< microseconds since PostgreSQL's epoch
  std::string_view payload;
};

/// The server's keepalive: it has sent everything up to `wal_end`.
struct PrimaryKeepalive {
  Lsn wal_end = 0;
  int64_t send_time = 0;
  bool reply_requested = false;
};

using ReplicationFrame = std::variant<XLogData, PrimaryKeepalive>;
ReplicationFrame DecodeReplicationFrame(std::string_view frame);

/// The client's standby status update: WAL up to `flushed` is durably applied, so the server may
/// advance the slot's confirmed position and recycle older WAL. `now` counts microseconds since
/// PostgreSQL's epoch. `reply` asks the server to answer with a keepalive at once.
std::string EncodeStandbyStatusUpdate(Lsn received, Lsn flushed, int64_t now, bool reply);

/// One column value of a row: NULL, an unchanged TOASTed value the server did not send, or the
/// value in the type's text output form.
struct TupleValue {
  enum class Kind : char { kNull = 'n', kUnchangedToast = 'u', kText = 't', kBinary = 'b' };
  Kind kind = Kind::kNull;
  std::string_view bytes;
};
using Tuple = std::vector<TupleValue>;

struct BeginMessage {
  Lsn final_lsn = 0;        ///< the transaction's commit LSN
  int64_t commit_time = 0;  ///< microseconds since PostgreSQL's epoch
  uint32_t xid = 0;
};

struct CommitMessage {
  Lsn commit_lsn = 0;
  Lsn end_lsn = 0;  ///< the end of the commit record: where a restart resumes after it
  int64_t commit_time = 0;
};

struct RelationColumn {
  bool is_key = false;  ///< part of the replica identity
  std::string name;
  uint32_t type_oid = 0;
  int32_t type_modifier = -1;
};

/// Sent before the first change of a relation in a session, and again after its schema changes.
struct RelationMessage {
  uint32_t oid = 0;
  std::string namespace_name;  ///< empty for pg_catalog
  std::string name;
  char replica_identity = 'd';  ///< d(efault: primary key), n(othing), f(ull), i(ndex)
  std::vector<RelationColumn> columns;
};

/// INSERT ('I'), UPDATE ('U') or DELETE ('D') of one row.
struct RowMessage {
  char kind = 'I';
  uint32_t relation_oid = 0;
  /// UPDATE/DELETE: 'K' when `old_tuple` holds the old replica-identity key columns only (the
  /// others NULL), 'O' when it holds the whole old row (REPLICA IDENTITY FULL), 0 when absent
  /// (an UPDATE that did not change the key).
  char old_kind = 0;
  Tuple old_tuple;
  Tuple new_tuple;  ///< INSERT/UPDATE: the new row
};

struct TruncateMessage {
  std::vector<uint32_t> relation_oids;
  bool cascade = false;
  bool restart_identity = false;
};

/// Messages silt does not act on (Type, Origin, logical decoding messages).
struct IgnoredMessage {
  char kind = 0;
};

using PgOutputMessage = std::variant<BeginMessage, CommitMessage, RelationMessage, RowMessage,
                                     TruncateMessage, IgnoredMessage>;
PgOutputMessage DecodePgOutput(std::string_view payload);

}  // namespace silt::cdc
