#include "silt/stream/stream_execution.h"

#include <chrono>
#include <ctime>

#include "silt/base/check.h"
#include "silt/base/clock.h"
#include "silt/base/json_writer.h"
#include "silt/commands/statement_executor.h"
#include "silt/io/path.h"
#include "silt/log/random_uuid.h"
#include "silt/sql/ast_printer.h"
#include "silt/sql/parser.h"
#include "silt/sql/query_binder.h"
#include "silt/stream/fault_point.h"

namespace silt::stream {

namespace {

constexpr size_t kProgressKept = 100;
// How long a processing-time trigger without an interval waits when there is no new data.
constexpr int64_t kIdlePollMs = 100;

std::string IsoTimestamp(int64_t ms) {
  std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  std::tm parts{};
  gmtime_r(&seconds, &parts);
  char text[96];
  std::snprintf(text, sizeof(text), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", parts.tm_year + 1900,
                parts.tm_mon + 1, parts.tm_mday, parts.tm_hour, parts.tm_min, parts.tm_sec,
                static_cast<int>(ms % 1000));
  return text;
}

void AddRawOrNull(JsonWriter& json, const std::string& offset_json) {
  if (offset_json.empty()) {
    json.Null();
  } else {
    json.Raw(offset_json);
  }
}

// Clears a stream input when the batch ends, however it ends.
class StreamInputScope {
 public:
  StreamInputScope(sql::SessionState& session, const BatchInput& input, std::string display)
      : session_(session), as_query_(!input.query_sql.empty()) {
    if (input.rows) {
      session_.SetStreamInput(std::string(kStreamInputName), input.rows, std::move(display));
      return;
    }
    if (!as_query_) {
      session_.SetStreamInput(std::string(kStreamInputName), input.snapshot, std::move(display));
      return;
    }
    // The input is a query over the pinned snapshot: a temporary view of the input's name.
    session_.SetStreamInput(std::string(kStreamSnapshotName), input.snapshot, std::move(display));
    sql::TempView view;
    view.name = std::string(kStreamInputName);
    view.query = sql::ParseStatement(input.query_sql).query;
    view.sql_text = input.query_sql;
    session_.CreateTempView(std::move(view), /*replace=*/true);
  }
  ~StreamInputScope() {
    if (as_query_) {
      session_.DropTempView(std::string(kStreamInputName));
      session_.ClearStreamInput(std::string(kStreamSnapshotName));
    } else {
      session_.ClearStreamInput(std::string(kStreamInputName));
    }
  }
  StreamInputScope(const StreamInputScope&) = delete;
  StreamInputScope& operator=(const StreamInputScope&) = delete;

 private:
  sql::SessionState& session_;
  bool as_query_;
};

// The operators that need state kept between batches, above the stream's scan.
struct StatefulUse {
  bool aggregate = false;
  std::string other;  // the first other stateful operator found, for the message
};

// Whether `node` is the scan of the stream's input: the pinned snapshot, or the rows a file or
// rate source read (a values node named after the source).
bool IsStreamScan(const sql::LogicalNode& node, const BatchInput& input, const std::string& name) {
  if (input.rows) return node.kind == sql::LogicalKind::kValues && node.table_name == name;
  return node.kind == sql::LogicalKind::kDeltaScan && node.snapshot == input.snapshot;
}

bool ReadsStream(const sql::LogicalNode& node, const BatchInput& input, const std::string& name,
                 StatefulUse& use) {
  bool below = false;
  for (const sql::LogicalPtr& child : node.children) below |= ReadsStream(*child, input, name, use);
  if (IsStreamScan(node, input, name)) return true;
  if (!below) return false;
  switch (node.kind) {
    case sql::LogicalKind::kAggregate:
      use.aggregate = true;
      break;
    case sql::LogicalKind::kDistinct:
      if (use.other.empty()) use.other = "DISTINCT";
      break;
    case sql::LogicalKind::kSetOperation:
      if (use.other.empty()) use.other = "INTERSECT / EXCEPT";
      break;
    case sql::LogicalKind::kWindow:
      if (use.other.empty()) use.other = "window functions";
      break;
    case sql::LogicalKind::kSort:
      if (use.other.empty()) use.other = "ORDER BY";
      break;
    case sql::LogicalKind::kLimit:
      if (use.other.empty()) use.other = "LIMIT";
      break;
    default:
      break;
  }
  return true;
}

struct FoundStream {
  StreamReference reference;
  std::vector<std::pair<std::string, std::string>> options;
};

void ReplaceIn(const sql::TableReferencePtr& table, std::vector<FoundStream>& found);

void ReplaceIn(sql::Query& query, std::vector<FoundStream>& found) {
  for (sql::CommonTableExpression& cte : query.with) {
    if (cte.query) ReplaceIn(*cte.query, found);
  }
  for (const sql::TableReferencePtr& item : query.from) ReplaceIn(item, found);
  if (query.left) ReplaceIn(*query.left, found);
  if (query.right) ReplaceIn(*query.right, found);
}

void ReplaceIn(const sql::TableReferencePtr& table, std::vector<FoundStream>& found) {
  if (!table) return;
  if (table->kind == sql::TableReferenceKind::kTable && table->stream) {
    found.push_back({{table->name, table->stream_call, table->stream_arguments},
                     table->stream_options});
    table->stream_options.clear();
    table->stream_call = false;
    table->stream_arguments.clear();
    if (table->alias.empty()) table->alias = table->name.back();
    table->name = {std::string(kStreamInputName)};
    table->stream = false;
    return;
  }
  if (table->subquery) ReplaceIn(*table->subquery, found);
  ReplaceIn(table->left, found);
  ReplaceIn(table->right, found);
}

}  // namespace

sql::QualifiedName ReplaceStreamSource(sql::Query& query, StreamOptions* options) {
  return ReplaceStreamReference(query, options).name;
}

StreamReference ReplaceStreamReference(sql::Query& query, StreamOptions* options) {
  std::vector<FoundStream> found;
  ReplaceIn(query, found);
  if (found.size() != 1) {
    SILT_THROW(UNSUPPORTED_FEATURE,
               {{"message", found.empty()
                                ? "a streaming query reads one table as STREAM(name); this one "
                                  "reads none"
                                : "a streaming query reads one table as STREAM(name); this one "
                                  "reads " + std::to_string(found.size())}});
  }
  if (options != nullptr) {
    for (const auto& [key, value] : found.front().options) options->Set(key, value);
  }
  return found.front().reference;
}

std::string QueryProgress::ToJson() const {
  JsonWriter json;
  json.BeginObject();
  json.Key("id");
  json.String(id);
  json.Key("runId");
  json.String(run_id);
  json.Key("name");
  if (name.empty()) {
    json.Null();
  } else {
    json.String(name);
  }
  json.Key("timestamp");
  json.String(timestamp);
  json.Key("batchId");
  json.Int(batch_id);
  json.Key("numInputRows");
  json.Int(num_input_rows);
  json.Key("inputRowsPerSecond");
  json.Double(input_rows_per_second);
  json.Key("processedRowsPerSecond");
  json.Double(processed_rows_per_second);
  json.Key("durationMs");
  json.BeginObject();
  for (const auto& [key, value] : duration_ms) {
    json.Key(key);
    json.Int(value);
  }
  json.EndObject();
  json.Key("stateOperators");
  json.BeginArray();
  json.EndArray();
  json.Key("sources");
  json.BeginArray();
  for (const SourceProgress& source : sources) {
    json.BeginObject();
    json.Key("description");
    json.String(source.description);
    json.Key("startOffset");
    AddRawOrNull(json, source.start_offset);
    json.Key("endOffset");
    AddRawOrNull(json, source.end_offset);
    json.Key("latestOffset");
    AddRawOrNull(json, source.latest_offset);
    json.Key("numInputRows");
    json.Int(source.num_input_rows);
    json.Key("inputRowsPerSecond");
    json.Double(source.input_rows_per_second);
    json.Key("processedRowsPerSecond");
    json.Double(source.processed_rows_per_second);
    json.EndObject();
  }
  json.EndArray();
  json.Key("sink");
  json.BeginObject();
  json.Key("description");
  json.String(sink_description);
  json.Key("numOutputRows");
  json.Int(sink_num_output_rows);
  json.EndObject();
  json.EndObject();
  return json.Release();
}

StreamExecution::StreamExecution(sql::SessionState& session, StreamSpec spec)
    : session_(session), spec_(std::move(spec)), run_id_(log::RandomUuid()) {
  SILT_CHECK(spec_.source && spec_.sink && spec_.query, "a stream needs a source, sink and query");
  checkpoint_ = Checkpoint::Open(session_.fs(), spec_.checkpoint_location);
  source_keeps_metadata_ = spec_.source->OpenMetadata(
      session_.fs(), io::JoinPath(checkpoint_->location(), "sources/0"));
  std::optional<std::string> start;
  if (!source_keeps_metadata_) start = checkpoint_->ReadSourceStart(0);
  if (start) {
    spec_.source->ValidateOffset(*start);
    start_offset_ = *start;
  } else {
    start_offset_ = spec_.source->InitialOffset();
  }
  schema_ = AnalyzeStreamQuery(session_, *spec_.source, start_offset_, *spec_.query,
                               spec_.output_mode);
}

StreamExecution::~StreamExecution() = default;

SchemaPtr AnalyzeStreamQuery(sql::SessionState& session, Source& source,
                             const std::string& start_offset, const sql::Query& query,
                             OutputMode mode) {
  BatchInput empty = source.PlanBatch(start_offset, start_offset);
  StreamInputScope scope(session, empty, source.Describe());
  exec::ExecContext context;
  context.eval = session.MakeEvalContext();
  context.pool = &session.pool();
  sql::QueryBinder binder(session, context);
  sql::LogicalPtr plan = binder.Bind(query);
  StatefulUse use;
  ReadsStream(*plan, empty, source.Describe(), use);
  std::string mode_name(OutputModeName(mode));
  if (mode == OutputMode::kComplete) {
    if (!use.aggregate) {
      SILT_THROW(STREAMING_OUTPUT_MODE_UNSUPPORTED,
                 {{"outputMode", mode_name},
                  {"operation", "a streaming query without an aggregation"}});
    }
  } else if (use.aggregate || !use.other.empty()) {
    SILT_THROW(STREAMING_OUTPUT_MODE_UNSUPPORTED,
               {{"outputMode", mode_name},
                {"operation", (use.aggregate ? std::string("aggregations") : use.other) +
                                  " on a stream (they need state kept between batches; use "
                                  "complete mode, or apply them to each batch in foreachBatch)"}});
  }
  return sql::OutputSchema(*plan);
}

void StreamExecution::SetProgressListener(std::function<void(const QueryProgress&)> listener) {
  listener_ = std::move(listener);
}

std::vector<QueryProgress> StreamExecution::RecentProgress() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return {progress_.begin(), progress_.end()};
}

std::optional<QueryProgress> StreamExecution::LastProgress() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (progress_.empty()) return std::nullopt;
  return progress_.back();
}

QueryStatus StreamExecution::Status() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return status_;
}

void StreamExecution::SetStatus(std::string message, bool data_available, bool trigger_active) {
  std::lock_guard<std::mutex> lock(mutex_);
  status_ = QueryStatus{std::move(message), data_available, trigger_active};
}

void StreamExecution::Stop() noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  stop_requested_ = true;
  stop_signal_.notify_all();
}

bool StreamExecution::WaitUnlessStopped(int64_t ms) {
  std::unique_lock<std::mutex> lock(mutex_);
  stop_signal_.wait_for(lock, std::chrono::milliseconds(ms), [&] { return stop_requested_; });
  return !stop_requested_;
}

void StreamExecution::Run() {
  try {
    if (!source_keeps_metadata_ && !checkpoint_->ReadSourceStart(0)) {
      start_offset_ = checkpoint_->WriteSourceStart(0, start_offset_);
    }
    std::string current = start_offset_;
    int64_t next_batch = 0;
    if (std::optional<int64_t> planned = checkpoint_->LatestPlannedBatch()) {
      OffsetSeq seq = checkpoint_->ReadOffsets(*planned);
      if (seq.offsets.size() != 1 || !seq.offsets[0]) {
        SILT_THROW(STREAMING_CHECKPOINT_MISMATCH,
                   {{"checkpoint", checkpoint_->location()},
                    {"what", "a query with " + std::to_string(seq.offsets.size()) + " sources"},
                    {"expected", "a query with one source"}});
      }
      spec_.source->ValidateOffset(*seq.offsets[0]);
      std::optional<int64_t> committed = checkpoint_->LatestCommittedBatch();
      if (!committed || *committed < *planned) {
        // Planned but not marked committed: run it again on the same input.
        std::string start = *planned == 0 ? start_offset_
                                          : *checkpoint_->ReadOffsets(*planned - 1).offsets.at(0);
        RunBatch(*planned, start, *seq.offsets[0], /*replay=*/true, 0);
      }
      current = *seq.offsets[0];
      next_batch = *planned + 1;
    }
    if (spec_.trigger.kind == TriggerKind::kAvailableNow) spec_.source->PrepareForAvailableNow();
    while (true) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (stop_requested_) break;
      }
      int64_t trigger_start = SystemNowMs();
      SetStatus("Waiting for data to arrive", false, true);
      std::optional<std::string> end = spec_.source->LatestOffset(current);
      int64_t latest_offset_ms = SystemNowMs() - trigger_start;
      if (!end) {
        SetStatus("Waiting for data to arrive", false, false);
        if (spec_.trigger.kind != TriggerKind::kProcessingTime) break;
        if (!WaitUnlessStopped(std::max(spec_.trigger.interval_ms, kIdlePollMs))) break;
        continue;
      }
      RunBatch(next_batch, current, *end, /*replay=*/false, latest_offset_ms);
      current = *end;
      ++next_batch;
      if (spec_.trigger.kind == TriggerKind::kOnce) break;
      if (spec_.trigger.kind == TriggerKind::kProcessingTime) {
        int64_t elapsed = SystemNowMs() - trigger_start;
        if (elapsed < spec_.trigger.interval_ms &&
            !WaitUnlessStopped(spec_.trigger.interval_ms - elapsed)) {
          break;
        }
      }
    }
    SetStatus("Stopped", false, false);
  } catch (const Error& error) {
    SetStatus("Terminated with exception: " + std::string(error.what()), false, false);
    throw error.WithContext("query [id = " + id() + ", runId = " + run_id_ + "]");
  }
}

void StreamExecution::RunBatch(int64_t batch, const std::string& start, const std::string& end,
                               bool replay, int64_t latest_offset_ms) {
  int64_t trigger_start = SystemNowMs();
  SetStatus("Processing new data", true, true);
  std::map<std::string, int64_t> durations;
  durations["latestOffset"] = latest_offset_ms;

  int64_t planning_start = SystemNowMs();
  // Complete mode recomputes the result over everything read so far.
  BatchInput input = spec_.source->PlanBatch(
      spec_.output_mode == OutputMode::kComplete ? start_offset_ : start, end);
  BatchInput batch_rows =
      spec_.output_mode == OutputMode::kComplete ? spec_.source->PlanBatch(start, end) : input;
  durations["queryPlanning"] = SystemNowMs() - planning_start;

  int64_t wal_start = SystemNowMs();
  if (!replay) {
    OffsetSeq seq;
    seq.offsets.push_back(end);
    seq.batch_timestamp_ms = trigger_start;
    checkpoint_->WriteOffsets(batch, seq);
  }
  durations["walCommit"] = SystemNowMs() - wal_start;
  ReachFaultPoint(kAfterOffsetsWritten, batch);

  int64_t add_start = SystemNowMs();
  std::optional<int64_t> output_rows;
  {
    StreamInputScope scope(session_, input, spec_.source->Describe());
    BatchContext context;
    context.session = &session_;
    context.batch_id = batch;
    context.query_id = id();
    context.query = spec_.query;
    context.query_sql = sql::ToString(*spec_.query);
    context.output_mode = spec_.output_mode;
    output_rows = spec_.sink->AddBatch(context);
  }
  durations["addBatch"] = SystemNowMs() - add_start;
  ReachFaultPoint(kAfterSinkCommit, batch);

  int64_t commit_start = SystemNowMs();
  checkpoint_->WriteCommit(batch);
  spec_.source->Commit(end);
  durations["commitOffsets"] = SystemNowMs() - commit_start;
  ReachFaultPoint(kAfterBatchCommitted, batch);

  int64_t now = SystemNowMs();
  durations["triggerExecution"] = now - trigger_start;
  QueryProgress progress;
  progress.id = id();
  progress.run_id = run_id_;
  progress.name = spec_.name;
  progress.timestamp = IsoTimestamp(trigger_start);
  progress.batch_id = batch;
  progress.num_input_rows = batch_rows.num_rows.value_or(output_rows.value_or(0));
  double seconds = std::max<int64_t>(now - trigger_start, 1) / 1000.0;
  progress.processed_rows_per_second = progress.num_input_rows / seconds;
  if (previous_trigger_ms_ > 0) {
    progress.input_rows_per_second =
        progress.num_input_rows / (std::max<int64_t>(trigger_start - previous_trigger_ms_, 1) / 1000.0);
  }
  previous_trigger_ms_ = trigger_start;
  progress.duration_ms = std::move(durations);
  SourceProgress source;
  source.description = spec_.source->Describe();
  source.start_offset = batch == 0 && start == start_offset_ ? std::string() : start;
  source.end_offset = end;
  source.latest_offset = end;
  source.num_input_rows = progress.num_input_rows;
  source.input_rows_per_second = progress.input_rows_per_second;
  source.processed_rows_per_second = progress.processed_rows_per_second;
  progress.sources.push_back(std::move(source));
  progress.sink_description = spec_.sink->Describe();
  progress.sink_num_output_rows = output_rows.value_or(-1);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    progress_.push_back(progress);
    if (progress_.size() > kProgressKept) progress_.pop_front();
  }
  if (listener_) listener_(progress);
}

}  // namespace silt::stream
