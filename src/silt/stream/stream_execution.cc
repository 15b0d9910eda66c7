#include "silt/stream/stream_execution.h"

#include <chrono>
#include <ctime>

#include "silt/base/ascii.h"
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
// Spark's spark.sql.streaming.minBatchesToRetain: state versions kept.
constexpr int64_t kDefaultMinBatchesToRetain = 100;
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

std::string UpperCase(std::string text) {
  for (char& c : text) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return text;
}

commands::StatementResult RunQuery(sql::SessionState& session, const std::string& text) {
  sql::Statement statement = sql::ParseStatement(text);
  statement.source_text = text;
  return commands::ExecuteStatement(session, statement);
}

// The query's watermark, its column resolved among the stream's rows `rows`: UNRESOLVED_COLUMN
// when it is not one of them, EVENT_TIME_IS_NOT_ON_TIMESTAMP_TYPE when it is no timestamp.
std::optional<Watermark> ResolveWatermark(const sql::Query& query, const Schema& rows) {
  std::optional<Watermark> watermark = FindWatermark(query);
  if (!watermark) return watermark;
  int index = rows.FieldIndex(watermark->column, /*case_sensitive=*/false);
  if (index < 0) {
    std::string proposal;
    for (const Field& field : rows.fields()) {
      proposal += (proposal.empty() ? "`" : ", `") + field.name + "`";
    }
    SILT_THROW(UNRESOLVED_COLUMN,
               {{"objectName", "`" + watermark->column + "`"}, {"proposal", proposal}});
  }
  const Field& field = rows.field(static_cast<size_t>(index));
  if (field.type->id() != TypeId::kTimestamp) {
    SILT_THROW(EVENT_TIME_IS_NOT_ON_TIMESTAMP_TYPE,
               {{"eventName", "`" + field.name + "`"},
                {"eventType", "\"" + UpperCase(field.type->ToString()) + "\""}});
  }
  watermark->column = field.name;
  return watermark;
}

void AddRawOrNull(JsonWriter& json, const std::string& offset_json) {
  if (offset_json.empty()) {
    json.Null();
  } else {
    json.Raw(offset_json);
  }
}

// Clears a stream input when the batch ends, however it ends.
// `row_filter` (SQL over the input's columns; empty: none) keeps only the rows it holds for.
class StreamInputScope {
 public:
  StreamInputScope(sql::SessionState& session, const BatchInput& input, std::string display,
                   const std::string& row_filter = "")
      : session_(session), as_query_(!input.query_sql.empty() || !row_filter.empty()) {
    // A batch of rows (the rate sources) or a pinned snapshot; read through a view when the
    // input is a query over it or late rows are filtered out.
    std::string base(as_query_ ? kStreamSnapshotName : kStreamInputName);
    if (input.rows) {
      session_.SetStreamInput(base, input.rows, display);
    } else {
      session_.SetStreamInput(base, input.snapshot, display);
    }
    if (!as_query_) return;
    // The input is a query over it: a temporary view of the input's name.
    std::string text = input.query_sql.empty()
                           ? "SELECT * FROM " + std::string(kStreamSnapshotName)
                           : input.query_sql;
    if (!row_filter.empty()) {
      text = "SELECT * FROM (" + text + ") AS `__rows` WHERE " + row_filter;
    }
    sql::TempView view;
    view.name = std::string(kStreamInputName);
    view.query = sql::ParseStatement(text).query;
    view.sql_text = text;
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
    // The watermark stays with the stream input (FindWatermark); the rest is the source's.
    std::erase_if(table->stream_options, [](const auto& entry) {
      return entry.first != kWatermarkColumnOption && entry.first != kWatermarkDelayOption;
    });
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
    for (const auto& [key, value] : found.front().options) {
      if (key == kWatermarkColumnOption || key == kWatermarkDelayOption) continue;
      options->Set(key, value);
    }
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
  if (!event_time.empty()) {
    json.Key("eventTime");
    json.BeginObject();
    for (const auto& [key, value] : event_time) {
      json.Key(key);
      json.String(value);
    }
    json.EndObject();
  }
  json.Key("stateOperators");
  json.BeginArray();
  for (const StateOperator& state : state_operators) {
    json.BeginObject();
    json.Key("operatorName");
    json.String(state.operator_name);
    json.Key("numRowsTotal");
    json.Int(state.num_rows_total);
    json.Key("numRowsUpdated");
    json.Int(state.num_rows_updated);
    json.Key("allUpdatesTimeMs");
    json.Int(state.all_updates_time_ms);
    json.Key("numRowsRemoved");
    json.Int(state.num_rows_removed);
    json.Key("allRemovalsTimeMs");
    json.Int(0);
    json.Key("commitTimeMs");
    json.Int(state.commit_time_ms);
    json.Key("memoryUsedBytes");
    json.Int(state.memory_used_bytes);
    json.Key("numRowsDroppedByWatermark");
    json.Int(state.num_rows_dropped_by_watermark);
    json.Key("numShufflePartitions");
    json.Int(1);
    json.Key("numStateStoreInstances");
    json.Int(1);
    json.Key("customMetrics");
    json.BeginObject();
    json.EndObject();
    json.EndObject();
  }
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
                               spec_.output_mode, spec_.deduplication);
  watermark_ = ResolveWatermark(*spec_.query, *spec_.source->schema());
  stateful_ = StatefulQuery::Plan(*spec_.query, spec_.deduplication, spec_.output_mode, *schema_);
  OpenState();
}

void StreamExecution::OpenState() {
  std::vector<StateOperatorInfo> recorded =
      StateStore::ReadOperators(*session_.fs(), checkpoint_->location());
  std::vector<StateOperatorInfo> current;
  if (stateful_) {
    StateOperatorInfo info;
    info.operator_id = 0;
    info.name = std::string(stateful_->operator_name());
    // The state rows' type, from the state query over an empty input.
    BatchInput empty = spec_.source->PlanBatch(start_offset_, start_offset_);
    StreamInputScope scope(session_, empty, spec_.source->Describe());
    sql::Statement statement = sql::ParseStatement(stateful_->StateSql("", 0));
    exec::ExecContext context;
    context.eval = session_.MakeEvalContext();
    context.pool = &session_.pool();
    sql::QueryBinder binder(session_, context);
    SchemaPtr state_schema = sql::OutputSchema(*binder.Bind(*statement.query));
    info.state_schema = StructType(state_schema->fields())->ToString();
    current.push_back(std::move(info));
  }
  auto describe = [](const std::vector<StateOperatorInfo>& operators) {
    std::string text;
    for (const StateOperatorInfo& info : operators) {
      text += (text.empty() ? "" : ", ") + std::string("(OperatorId: ") +
              std::to_string(info.operator_id) + " -> OperatorName: " + info.name + ")";
    }
    return text;
  };
  bool started = checkpoint_->LatestPlannedBatch().has_value();
  bool same = recorded.size() == current.size();
  for (size_t i = 0; same && i < recorded.size(); ++i) {
    same = recorded[i].operator_id == current[i].operator_id && recorded[i].name == current[i].name;
  }
  if (started && !same) {
    SILT_THROW(STREAMING_STATEFUL_OPERATOR_NOT_MATCH_IN_STATE_METADATA,
               {{"OpsInMetadataSeq", describe(recorded)}, {"OpsInCurBatchSeq", describe(current)}});
  }
  if (!started) {
    // A run that failed before its first batch may have left another query's operators.
    for (const StateOperatorInfo& info : recorded) {
      if (current.empty() || info.operator_id != current.front().operator_id) {
        StateStore(session_.fs(), checkpoint_->location(), info.operator_id).ForgetOperator();
      }
    }
  }
  if (!stateful_) return;
  if (started && !recorded.front().state_schema.empty() &&
      recorded.front().state_schema != current.front().state_schema) {
    SILT_THROW(STREAMING_CHECKPOINT_MISMATCH,
               {{"checkpoint", checkpoint_->location()},
                {"what", "a " + recorded.front().name + " operator whose state rows are " +
                             recorded.front().state_schema},
                {"expected", "a query whose state rows are " + current.front().state_schema}});
  }
  state_store_ = std::make_unique<StateStore>(session_.fs(), checkpoint_->location(), 0);
  state_store_->WriteOperator(current.front(), /*replace=*/!started);
}

StreamExecution::~StreamExecution() = default;

SchemaPtr AnalyzeStreamQuery(sql::SessionState& session, Source& source,
                             const std::string& start_offset, const sql::Query& query,
                             OutputMode mode, const std::optional<Deduplication>& deduplication) {
  ResolveWatermark(query, *source.schema());
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
  SchemaPtr schema = sql::OutputSchema(*plan);
  if (std::optional<StatefulQuery> stateful =
          StatefulQuery::Plan(query, deduplication, mode, *schema)) {
    // One stateful operator, at the top: nothing below it may need state.
    StatefulUse below;
    ReadsStream(*binder.Bind(stateful->input_query()), empty, source.Describe(), below);
    if (below.aggregate || !below.other.empty()) {
      SILT_THROW(STREAMING_OUTPUT_MODE_UNSUPPORTED,
                 {{"outputMode", mode_name},
                  {"operation", (below.aggregate ? std::string("aggregations") : below.other) +
                                    " below a streaming " +
                                    std::string(stateful->operator_name()) +
                                    " (a streaming query has one stateful operator, at its top)"}});
    }
    return schema;
  }
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
  return schema;
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
      watermark_ms_ = seq.batch_watermark_ms;
      if (!committed || *committed < *planned) {
        // Planned but not marked committed: run it again on the same input.
        std::string start = start_offset_;
        late_watermark_ms_ = watermark_ms_;
        if (*planned > 0) {
          OffsetSeq previous = checkpoint_->ReadOffsets(*planned - 1);
          start = *previous.offsets.at(0);
          late_watermark_ms_ = previous.batch_watermark_ms;
        }
        RunBatch(*planned, start, *seq.offsets[0], /*replay=*/true, 0);
      } else {
        late_watermark_ms_ = watermark_ms_;
        next_watermark_ms_ = checkpoint_->ReadCommitWatermark(*planned);
        watermark_advanced_ = next_watermark_ms_ > watermark_ms_;
        watermark_ms_ = next_watermark_ms_;
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
      if (!end && stateful_ && watermark_ && watermark_advanced_ &&
          spec_.trigger.kind != TriggerKind::kOnce) {
        // No new data, but the watermark moved: a batch without data lets the stateful
        // operator emit and evict what the watermark passed (Spark's no-data batch).
        end = current;
      }
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
    spec_.source->Close();
  } catch (const Error& error) {
    SetStatus("Terminated with exception: " + std::string(error.what()), false, false);
    spec_.source->Close();
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
  // Complete mode without state recomputes the result over everything read so far.
  bool recompute = spec_.output_mode == OutputMode::kComplete && !stateful_;
  BatchInput input = spec_.source->PlanBatch(recompute ? start_offset_ : start, end);
  BatchInput batch_rows = recompute ? spec_.source->PlanBatch(start, end) : input;
  durations["queryPlanning"] = SystemNowMs() - planning_start;

  int64_t wal_start = SystemNowMs();
  if (!replay) {
    OffsetSeq seq;
    seq.offsets.push_back(end);
    seq.batch_timestamp_ms = trigger_start;
    seq.batch_watermark_ms = watermark_ms_;
    checkpoint_->WriteOffsets(batch, seq);
  }
  durations["walCommit"] = SystemNowMs() - wal_start;
  ReachFaultPoint(kAfterOffsetsWritten, batch);

  QueryProgress progress;
  QueryProgress::StateOperator metrics;
  next_watermark_ms_ = watermark_ms_;
  if (watermark_) TrackEventTime(batch_rows, progress, metrics);

  int64_t add_start = SystemNowMs();
  std::optional<int64_t> output_rows;
  {
    // Rows the watermark passed are late for a stateful operator (a NULL time is not late). As
    // in Spark, lateness is judged by the previous batch's watermark and eviction by this
    // batch's, so that the rows a batch evicts by were admitted under the watermark before.
    std::string late_filter;
    if (stateful_ && watermark_) {
      late_filter = "NOT coalesce(`" + watermark_->column + "` <= timestamp_millis(" +
                    std::to_string(late_watermark_ms_) + "L), false)";
    }
    StreamInputScope scope(session_, input, spec_.source->Describe(), late_filter);
    BatchContext context;
    context.session = &session_;
    context.batch_id = batch;
    context.query_id = id();
    context.query = stateful_ ? RunStatefulOperator(batch, metrics) : spec_.query;
    context.query_sql = sql::ToString(*context.query);
    context.output_mode = spec_.output_mode;
    output_rows = spec_.sink->AddBatch(context);
  }
  durations["addBatch"] = SystemNowMs() - add_start;
  ReachFaultPoint(kAfterSinkCommit, batch);

  int64_t commit_start = SystemNowMs();
  checkpoint_->WriteCommit(batch, next_watermark_ms_);
  spec_.source->Commit(end);
  durations["commitOffsets"] = SystemNowMs() - commit_start;
  ReachFaultPoint(kAfterBatchCommitted, batch);
  watermark_advanced_ = next_watermark_ms_ > watermark_ms_;
  late_watermark_ms_ = watermark_ms_;
  watermark_ms_ = next_watermark_ms_;
  if (state_store_) {
    std::optional<std::string> retained = session_.GetConf("spark.sql.streaming.minBatchesToRetain");
    int64_t keep = kDefaultMinBatchesToRetain;
    if (retained) {
      try {
        keep = std::stoll(*retained);
      } catch (const std::exception&) {
        SILT_THROW(INVALID_CONFIGURATION,
                   {{"key", "spark.sql.streaming.minBatchesToRetain"},
                    {"value", *retained},
                    {"reason", "expected a whole number of batches"}});
      }
    }
    state_store_->Cleanup(batch + 1, keep);
  }
  if (stateful_) progress.state_operators.push_back(metrics);

  int64_t now = SystemNowMs();
  durations["triggerExecution"] = now - trigger_start;
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

sql::QueryPtr StreamExecution::RunStatefulOperator(int64_t batch,
                                                   QueryProgress::StateOperator& metrics) {
  int64_t start = SystemNowMs();
  metrics.operator_name = std::string(stateful_->operator_name());
  std::string previous;
  if (batch > 0) {
    state_store_->CheckVersion(batch);
    previous = state_store_->VersionPath(batch);
  }
  commands::StatementResult state = RunQuery(session_, stateful_->StateSql(previous, watermark_ms_));
  int64_t commit_start = SystemNowMs();
  metrics.all_updates_time_ms = commit_start - start;
  state_store_->WriteVersion(batch + 1, *state.schema, state.batches);
  metrics.commit_time_ms = SystemNowMs() - commit_start;
  ReachFaultPoint(kAfterStateWritten, batch);
  std::string path = state_store_->VersionPath(batch + 1);
  metrics.memory_used_bytes = state_store_->VersionBytes(batch + 1);
  commands::StatementResult counts = RunQuery(session_, stateful_->MetricsSql(path));
  for (const Batch& row : counts.batches) {
    if (row.num_rows() == 0) continue;
    metrics.num_rows_total = row.column(0)->values<int64_t>()[0];
    metrics.num_rows_updated = row.column(1)->values<int64_t>()[0];
    metrics.num_rows_removed = row.column(2)->values<int64_t>()[0];
    break;
  }
  return sql::ParseStatement(stateful_->OutputSql(path)).query;
}

void StreamExecution::TrackEventTime(const BatchInput& input, QueryProgress& progress,
                                     QueryProgress::StateOperator& metrics) {
  std::string column = "`" + watermark_->column + "`";
  std::string sql = "SELECT max(" + column + "), min(" + column + "), avg(CAST(" + column +
                    " AS DOUBLE)), coalesce(sum(CASE WHEN " + column + " <= timestamp_millis(" +
                    std::to_string(late_watermark_ms_) + "L) THEN 1 ELSE 0 END), 0L) FROM " +
                    std::string(kStreamInputName);
  commands::StatementResult result;
  {
    StreamInputScope scope(session_, input, spec_.source->Describe());
    result = RunQuery(session_, sql);
  }
  progress.event_time["watermark"] = IsoTimestamp(watermark_ms_);
  for (const Batch& row : result.batches) {
    if (row.num_rows() == 0 || row.column(0)->IsNull(0)) continue;
    auto millis = [](int64_t micros) { return micros >= 0 ? micros / 1000 : -((-micros + 999) / 1000); };
    int64_t max_ms = millis(row.column(0)->values<int64_t>()[0]);
    int64_t min_ms = millis(row.column(1)->values<int64_t>()[0]);
    auto avg_ms = static_cast<int64_t>(row.column(2)->values<double>()[0] * 1000);
    progress.event_time["max"] = IsoTimestamp(max_ms);
    progress.event_time["min"] = IsoTimestamp(min_ms);
    progress.event_time["avg"] = IsoTimestamp(avg_ms);
    if (stateful_) metrics.num_rows_dropped_by_watermark = row.column(3)->values<int64_t>()[0];
    next_watermark_ms_ = std::max(watermark_ms_, max_ms - watermark_->delay_ms);
    break;
  }
}

}  // namespace silt::stream
