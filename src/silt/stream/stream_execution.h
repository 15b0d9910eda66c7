#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "silt/sql/ast.h"
#include "silt/sql/session_state.h"
#include "silt/stream/checkpoint.h"
#include "silt/stream/sink.h"
#include "silt/stream/source.h"
#include "silt/stream/state_store.h"
#include "silt/stream/stateful_query.h"

namespace silt::stream {

/// The name a streaming query's text gives its source: while a batch runs, the session reads it
/// as the batch's input (SessionState::SetStreamInput).
inline constexpr std::string_view kStreamInputName = "__silt_stream_input";

/// When batches run.
enum class TriggerKind {
  kProcessingTime,  ///< a batch every interval (0: as soon as the previous one ends), until Stop
  kOnce,            ///< one batch, then stop
  kAvailableNow,    ///< everything present at start, in as many batches as the limits need
  kUntilIdle,       ///< batches until the source has nothing new (data that arrives meanwhile too)
};

struct Trigger {
  TriggerKind kind = TriggerKind::kProcessingTime;
  int64_t interval_ms = 0;
};

/// One source's part of a batch's progress (Spark's SourceProgress).
struct SourceProgress {
  std::string description;
  std::string start_offset;   ///< JSON; empty before the first batch
  std::string end_offset;
  std::string latest_offset;
  int64_t num_input_rows = 0;
  double input_rows_per_second = 0;
  double processed_rows_per_second = 0;
};

/// What one batch did (Spark's StreamingQueryProgress; ToJson uses Spark's field names).
struct QueryProgress {
  std::string id;
  std::string run_id;
  std::string name;
  std::string timestamp;  ///< the batch's start, ISO-8601 UTC with milliseconds
  int64_t batch_id = 0;
  int64_t num_input_rows = 0;
  double input_rows_per_second = 0;
  double processed_rows_per_second = 0;
  /// latestOffset, queryPlanning, walCommit, addBatch, commitOffsets, triggerExecution.
  std::map<std::string, int64_t> duration_ms;
  /// Spark's StateOperatorProgress, one per stateful operator.
  struct StateOperator {
    std::string operator_name;
    int64_t num_rows_total = 0;
    int64_t num_rows_updated = 0;
    int64_t num_rows_removed = 0;
    int64_t num_rows_dropped_by_watermark = 0;
    int64_t all_updates_time_ms = 0;
    int64_t commit_time_ms = 0;
    int64_t memory_used_bytes = 0;
  };
  std::vector<StateOperator> state_operators;
  /// eventTime: "watermark" and, for a batch with rows, "min", "max" and "avg" of the event
  /// time (ISO-8601 UTC); empty without a watermark.
  std::map<std::string, std::string> event_time;
  std::vector<SourceProgress> sources;
  std::string sink_description;
  int64_t sink_num_output_rows = -1;  ///< -1 when the sink cannot tell

  std::string ToJson() const;
};

/// What a query is doing (Spark's StreamingQueryStatus).
struct QueryStatus {
  std::string message = "Initializing sources";
  bool is_data_available = false;
  bool is_trigger_active = false;
};

/// What a streaming query is made of.
struct StreamSpec {
  std::unique_ptr<Source> source;
  std::unique_ptr<Sink> sink;
  /// The query over the source, which it names kStreamInputName.
  sql::QueryPtr query;
  std::string checkpoint_location;
  Trigger trigger;
  OutputMode output_mode = OutputMode::kAppend;
  std::string name;
  /// dropDuplicates / dropDuplicatesWithinWatermark of the query's rows.
  std::optional<Deduplication> deduplication;
};

/// The micro-batch executor (docs/streaming.md). Each batch: ask the source for the next end
/// offset under its limits, write `offsets/<n>` to the checkpoint, run the query on exactly
/// the files between the previous end and this one as an ordinary query, hand the result to
/// the sink, then write `commits/<n>`. On start it first re-runs a batch whose offsets were
/// written but whose commit marker was not, with the same offsets; the sink recognises a batch
/// it already committed. A query whose top is a stateful operator (an aggregation, DISTINCT,
/// a deduplication; StatefulQuery) keeps its state in the checkpoint (StateStore): each batch
/// merges its rows into the previous batch's state and writes the next version before its
/// commit marker. A watermark (WATERMARK clause, WithWatermark) is max(event time) - delay,
/// advanced after each batch and recorded in offsets and commits; rows at or before it are
/// dropped before a stateful operator, and a batch without data runs when the watermark moved
/// so that the operator can emit and evict what it passed.
class StreamExecution {
 public:
  /// Opens the checkpoint (creating it) and checks the query against the output mode
  /// (AnalyzeStreamQuery), the watermark's column (EVENT_TIME_IS_NOT_ON_TIMESTAMP_TYPE) and the
  /// checkpoint's stateful operators
  /// (STREAMING_STATEFUL_OPERATOR_NOT_MATCH_IN_STATE_METADATA). `session` must outlive the
  /// execution and is used by the thread that calls Run.
  StreamExecution(sql::SessionState& session, StreamSpec spec);
  ~StreamExecution();
  StreamExecution(const StreamExecution&) = delete;
  StreamExecution& operator=(const StreamExecution&) = delete;

  /// Runs batches until the trigger is done or Stop is called, on the calling thread. A failure
  /// stops the query and is thrown (the error's own class, with the query id in its context);
  /// the checkpoint then holds what a restart needs.
  void Run();
  /// Asks Run to return after the batch in flight has committed. Any thread.
  void Stop() noexcept;

  const std::string& id() const { return checkpoint_->query_id(); }
  const std::string& run_id() const { return run_id_; }
  const std::string& name() const { return spec_.name; }
  /// The query's output schema.
  const SchemaPtr& schema() const { return schema_; }

  /// Called on the running thread after each batch.
  void SetProgressListener(std::function<void(const QueryProgress&)> listener);
  /// Thread-safe views of the progress of the last batches (at most 100) and the status.
  std::vector<QueryProgress> RecentProgress() const;
  std::optional<QueryProgress> LastProgress() const;
  QueryStatus Status() const;

 private:
  // Runs batch `batch` over (start, end]; `replay` when its offsets are in the checkpoint.
  void RunBatch(int64_t batch, const std::string& start, const std::string& end, bool replay,
                int64_t latest_offset_ms);
  // Opens the state store of a stateful query and checks it against the checkpoint's.
  void OpenState();
  // Runs the stateful operator of `batch` over the batch's input (the session's stream input):
  // writes state version batch + 1 and returns the query that reads the batch's output from it.
  sql::QueryPtr RunStatefulOperator(int64_t batch, QueryProgress::StateOperator& metrics);
  // The event-time statistics of `input` (with a watermark); advances next_watermark_ms_.
  void TrackEventTime(const BatchInput& input, QueryProgress& progress,
                      QueryProgress::StateOperator& metrics);
  void SetStatus(std::string message, bool data_available, bool trigger_active);
  // Sleeps up to `ms` unless Stop is called; returns false when stopping.
  bool WaitUnlessStopped(int64_t ms);

  sql::SessionState& session_;
  StreamSpec spec_;
  std::unique_ptr<Checkpoint> checkpoint_;
  std::string run_id_;
  std::string start_offset_;
  bool source_keeps_metadata_ = false;  // the source keeps sources/0 itself (no start offset)
  SchemaPtr schema_;
  std::function<void(const QueryProgress&)> listener_;
  std::optional<Watermark> watermark_;
  std::optional<StatefulQuery> stateful_;
  std::unique_ptr<StateStore> state_store_;
  int64_t watermark_ms_ = 0;       // the watermark of the batch being run (evicts state)
  int64_t late_watermark_ms_ = 0;  // the batch before's, which drops late rows
  int64_t next_watermark_ms_ = 0;  // the watermark of the batch after it
  bool watermark_advanced_ = false;  // the last batch moved the watermark

  mutable std::mutex mutex_;
  std::condition_variable stop_signal_;
  bool stop_requested_ = false;
  std::deque<QueryProgress> progress_;
  QueryStatus status_;
  int64_t previous_trigger_ms_ = 0;
};

/// Binds `query` over an empty input of `source` (at `start_offset`) and returns its output
/// schema. Throws the analysis errors, StatefulQuery::Plan's, and
/// STREAMING_OUTPUT_MODE_UNSUPPORTED for operators that would need state other than one
/// stateful operator at the query's top (StatefulQuery) — aggregations, DISTINCT,
/// INTERSECT/EXCEPT, window functions, ORDER BY or LIMIT over the stream — and for complete
/// mode without an aggregation. Complete mode over an aggregation below the top recomputes it
/// over everything the stream read at each batch.
SchemaPtr AnalyzeStreamQuery(sql::SessionState& session, Source& source,
                             const std::string& start_offset, const sql::Query& query,
                             OutputMode mode,
                             const std::optional<Deduplication>& deduplication = std::nullopt);

/// The stream a query reads, as ReplaceStreamReference found it.
struct StreamReference {
  sql::QualifiedName name;
  /// `STREAM name(arguments)`: a source function (read_files, rate) rather than a table.
  bool call = false;
  std::vector<std::string> arguments;
};

/// As ReplaceStreamSource, but also finds `STREAM name(arguments)` and returns what it found.
StreamReference ReplaceStreamReference(sql::Query& query, StreamOptions* options = nullptr);

/// Finds the one `STREAM(name)` table of `query` (in FROM items, joins, subqueries in FROM,
/// CTEs and set operations), replaces it with a reference to kStreamInputName (keeping its
/// alias, or the source's last name part as one) and returns the name as written. Throws
/// UNSUPPORTED_FEATURE when there is none or more than one.
/// `options` receives the reference's `WITH (...)` source options.
sql::QualifiedName ReplaceStreamSource(sql::Query& query, StreamOptions* options = nullptr);

}  // namespace silt::stream
