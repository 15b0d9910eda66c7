#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "silt/data_frame.h"

namespace silt {

class Session;
class DataStreamWriter;

/// When a streaming query runs its batches (Spark's Trigger).
struct Trigger {
  enum class Kind {
    kProcessingTime,  ///< a batch every interval (0: one after another) until Stop
    kOnce,            ///< one batch, then the query ends
    kAvailableNow,    ///< what is there at start, in as many batches as the limits need
    kUntilIdle,       ///< batches until nothing new is left, then the query ends
  };
  Kind kind = Kind::kProcessingTime;
  int64_t interval_ms = 0;

  static Trigger ProcessingTime(int64_t interval_ms) { return {Kind::kProcessingTime, interval_ms}; }
  static Trigger Once() { return {Kind::kOnce, 0}; }
  static Trigger AvailableNow() { return {Kind::kAvailableNow, 0}; }
  static Trigger UntilIdle() { return {Kind::kUntilIdle, 0}; }
};

/// One source's part of a batch (Spark's SourceProgress). Offsets are the source's JSON.
struct StreamingSourceProgress {
  std::string description;
  std::string start_offset;  ///< empty for the first batch
  std::string end_offset;
  std::string latest_offset;
  int64_t num_input_rows = 0;
  double input_rows_per_second = 0;
  double processed_rows_per_second = 0;
};

/// One stateful operator's part of a batch (Spark's StateOperatorProgress).
struct StreamingStateOperatorProgress {
  std::string operator_name;  ///< stateStoreSave (aggregation), dedupe, dedupeWithinWatermark
  int64_t num_rows_total = 0;    ///< rows in the state after the batch
  int64_t num_rows_updated = 0;  ///< rows the batch added or changed
  int64_t num_rows_removed = 0;  ///< rows the watermark evicted
  int64_t num_rows_dropped_by_watermark = 0;  ///< input rows at or before the watermark
  int64_t memory_used_bytes = 0;              ///< size of the state version written
};

/// What one batch did (Spark's StreamingQueryProgress); `json` is Spark's JSON form with its
/// field names (id, runId, name, timestamp, batchId, numInputRows, inputRowsPerSecond,
/// processedRowsPerSecond, durationMs, eventTime, stateOperators, sources, sink).
struct StreamingQueryProgress {
  std::string id;
  std::string run_id;
  std::string name;
  std::string timestamp;
  int64_t batch_id = 0;
  int64_t num_input_rows = 0;
  double input_rows_per_second = 0;
  double processed_rows_per_second = 0;
  /// latestOffset, queryPlanning, walCommit, addBatch, commitOffsets, triggerExecution.
  std::map<std::string, int64_t> duration_ms;
  /// With a watermark: "watermark" (the batch's), and "min", "max", "avg" of the batch's event
  /// times when it had rows; ISO-8601 UTC.
  std::map<std::string, std::string> event_time;
  std::vector<StreamingStateOperatorProgress> state_operators;
  std::vector<StreamingSourceProgress> sources;
  std::string sink_description;
  int64_t sink_num_output_rows = -1;  ///< -1 when the sink cannot tell (foreachBatch)
  std::string json;
};

/// What a query is doing now (Spark's StreamingQueryStatus).
struct StreamingQueryStatus {
  std::string message;
  bool is_data_available = false;
  bool is_trigger_active = false;
};

/// A running streaming query (Spark's StreamingQuery), made by DataStreamWriter::Start. It runs
/// on a thread of its own over a session of its own (a copy of the starting session's options).
/// Cheap to copy; every copy is the same query. When the last copy goes away the query is
/// stopped. Thread-safe.
class StreamingQuery {
 public:
  /// The query id: the same across restarts from one checkpoint.
  const std::string& id() const;
  /// This run's id.
  const std::string& run_id() const;
  const std::string& name() const;
  /// True until the query ends (its trigger is done, Stop, or a failure).
  bool IsActive() const;
  /// Waits for the query to end. Throws the error that ended it (its own class, e.g.
  /// DELTA_SOURCE_IGNORE_DELETE, with the query id in its context).
  void AwaitTermination() const;
  /// As above, waiting at most `timeout_ms`; returns whether the query has ended.
  bool AwaitTermination(int64_t timeout_ms) const;
  /// Stops the query after the batch in flight commits, and waits for it.
  void Stop();
  StreamingQueryStatus Status() const;
  /// The last batch's progress, or nullopt before the first batch.
  std::optional<StreamingQueryProgress> LastProgress() const;
  /// The progress of the last batches (at most 100), oldest first.
  std::vector<StreamingQueryProgress> RecentProgress() const;

 private:
  friend class DataStreamWriter;
  struct Impl;
  explicit StreamingQuery(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<Impl> impl_;
};

/// A query over a stream (Spark's streaming DataFrame), made by DataStreamReader. Its
/// transformations are SQL text and return new streaming DataFrames; WriteStream starts it.
/// Cheap to copy; holds a reference to the session.
class StreamingDataFrame {
 public:
  /// SELECT `expressions` (SQL text each, e.g. "upper(name) AS name") of each row.
  StreamingDataFrame SelectExpr(const std::vector<std::string>& expressions) const;
  /// The rows for which `condition` (SQL text) is true.
  StreamingDataFrame Where(const std::string& condition) const;
  /// Any query over the stream, which `query` names `name`, e.g.
  /// Sql("SELECT e.*, d.label FROM events e JOIN dims d USING (k)", "events").
  StreamingDataFrame Sql(const std::string& query, const std::string& name) const;
  /// Declares an event-time watermark (Spark's withWatermark): `column` is a TIMESTAMP column
  /// of the stream's rows (EVENT_TIME_IS_NOT_ON_TIMESTAMP_TYPE otherwise) and `delay` how late
  /// a row may be ("10 minutes"; INVALID_STREAMING_OPTION when it is not an interval).
  /// Stateful operators drop rows at or before max(event time) - delay and evict state the
  /// watermark passed.
  StreamingDataFrame WithWatermark(const std::string& column, const std::string& delay) const;
  /// Keeps the first row of each value of `columns` (all columns when empty) across batches
  /// (Spark's dropDuplicates). With a watermark whose column is among `columns`, keys older
  /// than the watermark are forgotten; otherwise the state keeps every key.
  StreamingDataFrame DropDuplicates(const std::vector<std::string>& columns = {}) const;
  /// As DropDuplicates, with each key kept until the watermark passes its first event time plus
  /// the delay (Spark's dropDuplicatesWithinWatermark); needs WithWatermark first.
  StreamingDataFrame DropDuplicatesWithinWatermark(const std::vector<std::string>& columns = {}) const;
  /// The writer that starts this query.
  DataStreamWriter WriteStream() const;
  /// The query's SQL text (the stream appears in it as STREAM(...)).
  const std::string& sql() const { return sql_; }

 private:
  friend class DataStreamReader;
  friend class DataStreamWriter;
  StreamingDataFrame(Session* session, std::map<std::string, std::string> options,
                     std::string sql)
      : session_(session), options_(std::move(options)), sql_(std::move(sql)) {}
  // This frame with the query `sql` (UNSUPPORTED_FEATURE after a deduplication).
  StreamingDataFrame Derive(std::string sql) const;
  Session* session_;
  std::map<std::string, std::string> options_;
  std::string sql_;
  std::string watermark_column_;
  std::string watermark_delay_;
  bool deduplicate_ = false;
  bool within_watermark_ = false;
  std::vector<std::string> deduplicate_columns_;
};

/// Reads a table as a stream (Spark's DataStreamReader): session.ReadStream().Format("delta")
/// .Option("maxFilesPerTrigger", "10").Load("/path") or .Table("name"). Source options are
/// Delta's (docs/streaming.md): startingVersion, startingTimestamp, maxFilesPerTrigger,
/// maxBytesPerTrigger, ignoreDeletes, skipChangeCommits, ignoreChanges, excludeRegex and
/// readChangeFeed (the change data feed, with _change_type, _commit_version, _commit_timestamp).
///
/// Format("json"), "csv" or "parquet" with Load(folder) streams the files that land in a folder,
/// each once (Spark's file source): Schema("id BIGINT, name STRING") gives the columns (without
/// it the session must set spark.sql.streaming.schemaInference to true), and the options are
/// Spark's: maxFilesPerTrigger, latestFirst, maxFileAge, pathGlobFilter, recursiveFileLookup,
/// header (CSV), the JSON parse options, and rescuedDataColumn (values that do not fit the
/// schema go there as JSON instead of failing the batch with FAILED_READ_FILE).
///
/// Format("rate") (rowsPerSecond, rampUpTime, numPartitions) and Format("rate-micro-batch")
/// (rowsPerBatch, numPartitions, startTimestamp, advanceMillisPerBatch) with Load() make up rows
/// of `timestamp` and `value` for tests and demos, as Spark's rate sources do.
class DataStreamReader {
 public:
  explicit DataStreamReader(Session& session) : session_(&session) {}
  /// "delta" (the default), "json", "csv", "parquet", "rate", "rate-micro-batch" or
  /// "postgres_cdc" (a PostgreSQL table's changes, docs/cdc.md: options `connection` or
  /// Load(connection), `tables`, `slot`, `publication`, `maxChangesPerBatch`); others throw
  /// NOT_IMPLEMENTED when loading.
  DataStreamReader& Format(const std::string& format);
  /// The rows' schema as Spark's DDL text ("id BIGINT, name STRING"), for the file formats.
  DataStreamReader& Schema(const std::string& schema);
  DataStreamReader& Option(const std::string& key, const std::string& value);
  DataStreamReader& Options(const std::map<std::string, std::string>& options);
  /// The Delta table at `path`; the table must exist (DELTA_MISSING_DELTA_TABLE). For a file
  /// format, the folder at `path` (PATH_NOT_FOUND when it does not exist); the rate formats
  /// take no path.
  StreamingDataFrame Load(const std::string& path = "") const;
  /// The Delta table `name` ("t", "db.t", "delta.`/path`").
  StreamingDataFrame Table(const std::string& name) const;

 private:
  Session* session_;
  std::string format_ = "delta";
  std::map<std::string, std::string> options_;
};

/// Starts a streaming query (Spark's DataStreamWriter). The option "checkpointLocation" is
/// required. The Delta sink takes "mergeSchema"; output modes are "append" (default) and
/// "complete"; foreachBatch also takes "update" (the groups a batch changed).
class DataStreamWriter {
 public:
  /// "delta" (the default) only; foreachBatch needs none.
  DataStreamWriter& Format(const std::string& format);
  DataStreamWriter& OutputMode(const std::string& mode);
  DataStreamWriter& Option(const std::string& key, const std::string& value);
  DataStreamWriter& Options(const std::map<std::string, std::string>& options);
  DataStreamWriter& PartitionBy(const std::vector<std::string>& columns);
  DataStreamWriter& Trigger(const silt::Trigger& trigger);
  DataStreamWriter& QueryName(const std::string& name);
  /// Calls `function` with each batch, as a DataFrame over the query's session, and its id,
  /// instead of writing to a table. Writes it makes with the session options
  /// spark.databricks.delta.write.txnAppId / txnVersion are skipped when already applied.
  DataStreamWriter& ForEachBatch(std::function<void(const DataFrame& batch, int64_t batch_id)> function);
  /// Starts writing to the Delta table at `path` (created from the query's columns when
  /// missing), or, with ForEachBatch, to the function (`path` empty).
  StreamingQuery Start(const std::string& path = "");
  /// Starts writing to the table `name` (created when missing).
  StreamingQuery ToTable(const std::string& name);

 private:
  friend class StreamingDataFrame;
  explicit DataStreamWriter(StreamingDataFrame frame) : frame_(std::move(frame)) {}
  StreamingQuery StartOn(const std::string& table_name);
  StreamingDataFrame frame_;
  std::string format_ = "delta";
  std::string output_mode_ = "append";
  std::map<std::string, std::string> options_;
  std::vector<std::string> partition_by_;
  silt::Trigger trigger_;
  std::string name_;
  std::function<void(const DataFrame&, int64_t)> for_each_batch_;
};

}  // namespace silt
