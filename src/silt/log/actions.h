#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace silt {
class Vector;
}  // namespace silt

namespace silt::log {

// The actions of the Delta transaction log (PROTOCOL.md "Actions"; docs/format/delta-log.md).
// Field names follow the protocol in snake_case; optional JSON fields are std::optional so that
// a parsed action serialises back to what was read (absent stays absent).

/// A JSON object of string values in file order (tags, configuration, format options).
using StringMap = std::vector<std::pair<std::string, std::string>>;

/// `partitionValues`: partition column (physical name) -> serialised value, or nullopt for JSON
/// null. Kept in file order; lookups are linear because tables have few partition columns.
using PartitionValueMap = std::vector<std::pair<std::string, std::optional<std::string>>>;

/// Returns the value of `key` in `map`, or nullptr.
const std::string* FindValue(const StringMap& map, std::string_view key);

/// A deletion-vector descriptor (`add.deletionVector`, `remove.deletionVector`; protocol §14.1).
struct DeletionVectorDescriptor {
  char storage_type = 'u';        ///< 'u' UUID-relative file, 'i' inline, 'p' absolute path.
  std::string path_or_inline_dv;  ///< Prefix + Z85 UUID, Z85 bitmap bytes, or an absolute URI.
  std::optional<int32_t> offset;  ///< Byte offset of the record in the file; none for inline.
  int32_t size_in_bytes = 0;      ///< Serialised bitmap length (before Z85 for inline).
  int64_t cardinality = 0;        ///< Number of deleted rows.
  std::optional<int64_t> max_row_index;  ///< Spark extension seen in checkpoints; not used.

  /// `storageType + pathOrInlineDv`, then `"@" + offset` when an offset is present: the DV part
  /// of the reconciliation key (protocol §9).
  std::string UniqueId() const;
  bool operator==(const DeletionVectorDescriptor&) const = default;
};

/// `protocol`: the reader and writer versions and, from (3, 7), named features.
struct Protocol {
  int32_t min_reader_version = 1;
  int32_t min_writer_version = 2;
  std::optional<std::vector<std::string>> reader_features;
  std::optional<std::vector<std::string>> writer_features;
  bool operator==(const Protocol&) const = default;
};

/// `metaData.format`.
struct Format {
  std::string provider = "parquet";
  StringMap options;
  bool operator==(const Format&) const = default;
};

/// `metaData`: the table's id, schema, partitioning and properties.
struct Metadata {
  std::string id;
  std::optional<std::string> name;
  std::optional<std::string> description;
  Format format;
  std::string schema_string;  ///< The Delta schema JSON, as a string (parse with schema_json.h).
  std::vector<std::string> partition_columns;  ///< Logical names.
  std::optional<int64_t> created_time;         ///< Milliseconds since the epoch.
  StringMap configuration;                     ///< Table properties.
  bool operator==(const Metadata&) const = default;
};

/// `add`: a logical file (a data file, minus the rows of its deletion vector) becomes live.
/// A file's typed statistics as a checkpoint holds them (`add.stats_parsed`: numRecords,
/// minValues, maxValues, nullCount by physical column name): the struct vector of one
/// checkpoint batch, shared by its files, and the file's row in it. A cache of `stats` for data
/// skipping, not part of the action: it is never written and never makes two actions differ.
struct ParsedStats {
  std::shared_ptr<const Vector> values;  ///< null: none
  int64_t row = 0;                       ///< index for `values`' accessors
  bool operator==(const ParsedStats&) const { return true; }
};

struct AddFile {
  std::string path;  ///< As written in the log: a URI, relative to the table root or absolute.
  PartitionValueMap partition_values;
  int64_t size = 0;
  int64_t modification_time = 0;
  bool data_change = true;
  std::optional<std::string> stats;  ///< The raw statistics JSON text; parse with file_stats.h.
  std::optional<StringMap> tags;
  std::optional<DeletionVectorDescriptor> deletion_vector;
  std::optional<int64_t> base_row_id;
  std::optional<int64_t> default_row_commit_version;
  std::optional<std::string> clustering_provider;
  ParsedStats parsed_stats;  ///< from a checkpoint's stats_parsed, when it had them
  bool operator==(const AddFile&) const = default;
};

/// `remove`: a logical file stops being live and becomes a tombstone.
struct RemoveFile {
  std::string path;
  std::optional<int64_t> deletion_timestamp;
  bool data_change = true;
  std::optional<bool> extended_file_metadata;
  std::optional<PartitionValueMap> partition_values;
  std::optional<int64_t> size;
  std::optional<std::string> stats;
  std::optional<StringMap> tags;
  std::optional<DeletionVectorDescriptor> deletion_vector;
  std::optional<int64_t> base_row_id;
  std::optional<int64_t> default_row_commit_version;
  bool operator==(const RemoveFile&) const = default;
};

/// `cdc`: a change-data file written by this commit.
struct AddCdcFile {
  std::string path;
  PartitionValueMap partition_values;
  int64_t size = 0;
  bool data_change = false;
  std::optional<StringMap> tags;
  bool operator==(const AddCdcFile&) const = default;
};

/// `txn`: the latest version an application committed (idempotent writes).
struct SetTransaction {
  std::string app_id;
  int64_t version = 0;
  std::optional<int64_t> last_updated;
  bool operator==(const SetTransaction&) const = default;
};

/// `commitInfo`: free-form provenance. The whole object is kept as raw JSON (it is written back
/// verbatim); the fields readers commonly need are parsed alongside.
struct CommitInfo {
  std::string raw_json;  ///< The JSON object (the value of the "commitInfo" key).
  std::optional<int64_t> timestamp;
  std::optional<int64_t> in_commit_timestamp;
  std::optional<std::string> operation;
  /// Parameter name -> the raw JSON value (Spark writes strings holding JSON; others write any
  /// JSON type), e.g. {"mode", "\"Append\""}, {"zOrderBy", "[\"a\"]"}.
  std::vector<std::pair<std::string, std::string>> operation_parameters;
  /// Metric name -> value text (JSON strings unquoted; other JSON values as written).
  StringMap operation_metrics;
  std::optional<std::string> engine_info;
  std::optional<int64_t> read_version;
  std::optional<std::string> isolation_level;
  std::optional<bool> is_blind_append;
  std::optional<std::string> txn_id;
  bool operator==(const CommitInfo&) const = default;
};

/// `domainMetadata`: named configuration owned by a feature or by users; `removed` is a tombstone.
struct DomainMetadata {
  std::string domain;
  std::string configuration;
  bool removed = false;
  bool operator==(const DomainMetadata&) const = default;
};

/// `checkpointMetadata` (V2 checkpoints only).
struct CheckpointMetadata {
  int64_t version = 0;
  std::optional<StringMap> tags;
  bool operator==(const CheckpointMetadata&) const = default;
};

/// `sidecar` (V2 checkpoints only): a Parquet file under `_delta_log/_sidecars/` with file actions.
struct Sidecar {
  std::string path;  ///< URI-encoded; usually just a file name.
  int64_t size_in_bytes = 0;
  int64_t modification_time = 0;
  std::optional<StringMap> tags;
  bool operator==(const Sidecar&) const = default;
};

/// One action of a commit or checkpoint.
using Action = std::variant<Protocol, Metadata, AddFile, RemoveFile, AddCdcFile, SetTransaction,
                            CommitInfo, DomainMetadata, CheckpointMetadata, Sidecar>;

/// Parses newline-delimited JSON actions (a commit, a compaction or a JSON V2 checkpoint).
/// Blank lines, unknown action keys and unknown fields are skipped. `file` names the source in
/// errors. Throws DELTA_INVALID_LOG_ENTRY (category corruption) for malformed JSON, a line that is
/// not an object, or a known action with a missing required field or a field of the wrong type.
std::vector<Action> ParseActions(std::string_view text, std::string_view file);

/// Parses one JSON line; nullopt when it holds no known action. Errors as for ParseActions.
std::optional<Action> ParseActionLine(std::string_view line, std::string_view file);

/// Serialises one action as a single JSON line (no trailing newline), with fields in the order
/// Spark writes them and absent optional fields left out.
std::string SerializeAction(const Action& action);

/// Serialises actions as a commit file: one line each, each ending in '\n'.
std::string SerializeActions(const std::vector<Action>& actions);

/// Decodes the %XX escapes of a log path (add/remove/cdc/sidecar `path`) exactly once. A '+' is
/// kept (paths are RFC 2396 URIs, not form data). Throws DELTA_INVALID_LOG_ENTRY on a malformed
/// escape.
std::string DecodeLogPath(std::string_view path);

/// Percent-encodes what a Delta path must not hold literally (space, '%', and non-URI characters);
/// DecodeLogPath(EncodeLogPath(p)) == p.
std::string EncodeLogPath(std::string_view path);

}  // namespace silt::log
