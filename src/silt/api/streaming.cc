#include "silt/streaming.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

#include "silt/api/session_internal.h"
#include "silt/api/sql_text_internal.h"
#include "silt/base/ascii.h"
#include "silt/base/check.h"
#include "silt/commands/statement_executor.h"
#include "silt/expr/duration_text.h"
#include "silt/io/path.h"
#include "silt/session.h"
#include "silt/sql/parser.h"
#include "silt/sql/session_state.h"
#include "silt/stream/delta_sink.h"
#include "silt/stream/stream_execution.h"
#include "silt/stream/streaming_table.h"

namespace silt {

namespace {

// The source formats a folder stream reads (FileSource).
bool IsFileFormat(const std::string& format) {
  std::string lower = AsciiLower(format);
  return lower == "json" || lower == "csv" || lower == "parquet";
}

// The formats read by a source function of their name rather than from a path: the rate
// sources, and the PostgreSQL change stream (whose path, if given, is its connection).
std::optional<std::string> RateFunction(const std::string& format) {
  std::string lower = AsciiLower(format);
  if (lower == "rate") return "rate";
  if (lower == "rate-micro-batch") return "rate_micro_batch";
  if (lower == "postgres_cdc" || lower == "postgres-cdc") return "postgres_cdc";
  return std::nullopt;
}


void CheckFormat(const std::string& format, std::string_view what) {
  if (AsciiLower(format) != "delta" &&
      !(what == "source" && (IsFileFormat(format) || RateFunction(format)))) {
    SILT_THROW(NOT_IMPLEMENTED,
               {{"feature", std::string("The streaming ") + std::string(what) + " format '" +
                                format + "'"}});
  }
}

std::string QuotePath(const std::string& path, const std::string& format = "delta") {
  std::string quoted = AsciiLower(format) + ".`";
  for (char c : path) {
    quoted += c;
    if (c == '`') quoted += '`';
  }
  return quoted + "`";
}

StreamingQueryProgress ToPublic(const stream::QueryProgress& progress) {
  StreamingQueryProgress out;
  out.id = progress.id;
  out.run_id = progress.run_id;
  out.name = progress.name;
  out.timestamp = progress.timestamp;
  out.batch_id = progress.batch_id;
  out.num_input_rows = progress.num_input_rows;
  out.input_rows_per_second = progress.input_rows_per_second;
  out.processed_rows_per_second = progress.processed_rows_per_second;
  out.duration_ms = progress.duration_ms;
  out.event_time = progress.event_time;
  for (const stream::QueryProgress::StateOperator& state : progress.state_operators) {
    out.state_operators.push_back({state.operator_name, state.num_rows_total, state.num_rows_updated,
                                   state.num_rows_removed, state.num_rows_dropped_by_watermark,
                                   state.memory_used_bytes});
  }
  for (const stream::SourceProgress& source : progress.sources) {
    out.sources.push_back({source.description, source.start_offset, source.end_offset,
                           source.latest_offset, source.num_input_rows,
                           source.input_rows_per_second, source.processed_rows_per_second});
  }
  out.sink_description = progress.sink_description;
  out.sink_num_output_rows = progress.sink_num_output_rows;
  out.json = progress.ToJson();
  return out;
}

stream::Trigger ToEngine(const Trigger& trigger) {
  SILT_USER_CHECK(trigger.interval_ms >= 0, INVALID_ARGUMENT,
                  {{"message", "a processing-time trigger needs an interval of 0 ms or more"}});
  stream::Trigger out;
  out.interval_ms = trigger.interval_ms;
  switch (trigger.kind) {
    case Trigger::Kind::kProcessingTime:
      out.kind = stream::TriggerKind::kProcessingTime;
      break;
    case Trigger::Kind::kOnce:
      out.kind = stream::TriggerKind::kOnce;
      break;
    case Trigger::Kind::kAvailableNow:
      out.kind = stream::TriggerKind::kAvailableNow;
      break;
    case Trigger::Kind::kUntilIdle:
      out.kind = stream::TriggerKind::kUntilIdle;
      break;
  }
  return out;
}

}  // namespace

// ---- StreamingQuery ----

struct StreamingQuery::Impl {
  // The query's own session: a copy of the starting session's warehouse and options.
  std::unique_ptr<Session> session;
  std::unique_ptr<stream::StreamExecution> execution;
  std::string name;
  std::thread thread;
  std::mutex mutex;
  std::condition_variable ended_signal;
  bool ended = false;
  std::exception_ptr failure;

  ~Impl() {
    if (thread.joinable()) {
      execution->Stop();
      thread.join();
    }
  }
};

const std::string& StreamingQuery::id() const { return impl_->execution->id(); }
const std::string& StreamingQuery::run_id() const { return impl_->execution->run_id(); }
const std::string& StreamingQuery::name() const { return impl_->name; }

bool StreamingQuery::IsActive() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return !impl_->ended;
}

void StreamingQuery::AwaitTermination() const {
  std::unique_lock<std::mutex> lock(impl_->mutex);
  impl_->ended_signal.wait(lock, [&] { return impl_->ended; });
  if (impl_->failure) std::rethrow_exception(impl_->failure);
}

bool StreamingQuery::AwaitTermination(int64_t timeout_ms) const {
  std::unique_lock<std::mutex> lock(impl_->mutex);
  if (!impl_->ended_signal.wait_for(lock, std::chrono::milliseconds(timeout_ms),
                                    [&] { return impl_->ended; })) {
    return false;
  }
  if (impl_->failure) std::rethrow_exception(impl_->failure);
  return true;
}

void StreamingQuery::Stop() {
  impl_->execution->Stop();
  std::unique_lock<std::mutex> lock(impl_->mutex);
  impl_->ended_signal.wait(lock, [&] { return impl_->ended; });
}

StreamingQueryStatus StreamingQuery::Status() const {
  stream::QueryStatus status = impl_->execution->Status();
  return {status.message, status.is_data_available, status.is_trigger_active};
}

std::optional<StreamingQueryProgress> StreamingQuery::LastProgress() const {
  std::optional<stream::QueryProgress> progress = impl_->execution->LastProgress();
  if (!progress) return std::nullopt;
  return ToPublic(*progress);
}

std::vector<StreamingQueryProgress> StreamingQuery::RecentProgress() const {
  std::vector<StreamingQueryProgress> out;
  for (const stream::QueryProgress& progress : impl_->execution->RecentProgress()) {
    out.push_back(ToPublic(progress));
  }
  return out;
}

// ---- StreamingDataFrame ----

StreamingDataFrame StreamingDataFrame::Derive(std::string sql) const {
  if (deduplicate_) {
    SILT_THROW(UNSUPPORTED_FEATURE,
               {{"message", "transformations after DropDuplicates on a streaming DataFrame "
                            "(apply them before it)"}});
  }
  StreamingDataFrame frame = *this;
  frame.sql_ = std::move(sql);
  return frame;
}

StreamingDataFrame StreamingDataFrame::SelectExpr(const std::vector<std::string>& expressions) const {
  SILT_USER_CHECK(!expressions.empty(), INVALID_ARGUMENT,
                  {{"message", "SelectExpr needs at least one expression"}});
  std::string list;
  for (const std::string& expression : expressions) {
    if (!list.empty()) list += ", ";
    list += expression;
  }
  return Derive("SELECT " + list + " FROM (" + sql_ + ") AS s");
}

StreamingDataFrame StreamingDataFrame::Where(const std::string& condition) const {
  return Derive("SELECT * FROM (" + sql_ + ") AS s WHERE " + condition);
}

StreamingDataFrame StreamingDataFrame::WithWatermark(const std::string& column,
                                                     const std::string& delay) const {
  std::optional<int64_t> micros = expr::ParseDurationMicros(delay);
  if (!micros || *micros < 0) {
    SILT_THROW(INVALID_STREAMING_OPTION,
               {{"value", delay},
                {"option", "watermark delay"},
                {"reason", "expected a non-negative interval of weeks, days, hours, minutes, "
                           "seconds or milliseconds, such as '10 minutes'"}});
  }
  StreamingDataFrame frame = Derive(sql_);
  frame.watermark_column_ = column;
  frame.watermark_delay_ = delay;
  return frame;
}

StreamingDataFrame StreamingDataFrame::DropDuplicates(const std::vector<std::string>& columns) const {
  StreamingDataFrame frame = Derive(sql_);
  frame.deduplicate_ = true;
  frame.deduplicate_columns_ = columns;
  return frame;
}

StreamingDataFrame StreamingDataFrame::DropDuplicatesWithinWatermark(
    const std::vector<std::string>& columns) const {
  StreamingDataFrame frame = DropDuplicates(columns);
  frame.within_watermark_ = true;
  return frame;
}

StreamingDataFrame StreamingDataFrame::Sql(const std::string& query, const std::string& name) const {
  std::string quoted = api::QuoteMultipartName(name, "name", "StreamingDataFrame.Sql");
  std::string cte = quoted + " AS (" + sql_ + ")";
  // The stream becomes the first CTE; a query with CTEs of its own keeps them after it.
  size_t first = query.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && query.size() >= first + 5 &&
      AsciiLower(query.substr(first, 4)) == "with" &&
      std::isspace(static_cast<unsigned char>(query[first + 4]))) {
    return Derive("WITH " + cte + ", " + query.substr(first + 5));
  }
  return Derive("WITH " + cte + " " + query);
}

DataStreamWriter StreamingDataFrame::WriteStream() const { return DataStreamWriter(*this); }

// ---- DataStreamReader ----

DataStreamReader& DataStreamReader::Format(const std::string& format) {
  format_ = format;
  return *this;
}

DataStreamReader& DataStreamReader::Option(const std::string& key, const std::string& value) {
  options_[key] = value;
  return *this;
}

DataStreamReader& DataStreamReader::Options(const std::map<std::string, std::string>& options) {
  for (const auto& [key, value] : options) options_[key] = value;
  return *this;
}

DataStreamReader& DataStreamReader::Schema(const std::string& schema) {
  options_["schema"] = schema;
  return *this;
}

StreamingDataFrame DataStreamReader::Load(const std::string& path) const {
  CheckFormat(format_, "source");
  if (std::optional<std::string> function = RateFunction(format_)) {
    if (*function == "postgres_cdc") {
      return StreamingDataFrame(session_, options_,
                                "SELECT * FROM STREAM postgres_cdc(" + (path.empty() ? "" : api::QuoteString(path)) + ")");
    }
    SILT_USER_CHECK(path.empty(), INVALID_ARGUMENT,
                    {{"message", "the " + format_ + " source reads no path"}});
    return StreamingDataFrame(session_, options_, "SELECT * FROM STREAM " + *function + "()");
  }
  SILT_USER_CHECK(!path.empty(), INVALID_ARGUMENT, {{"message", "Load needs a table path"}});
  return StreamingDataFrame(session_, options_,
                            "SELECT * FROM STREAM(" + QuotePath(path, format_) + ")");
}

StreamingDataFrame DataStreamReader::Table(const std::string& name) const {
  CheckFormat(format_, "source");
  if (IsFileFormat(format_) || RateFunction(format_)) {
    SILT_THROW(INVALID_ARGUMENT,
               {{"message", "Table reads a Delta table; the " + format_ + " source is read with Load"}});
  }
  return StreamingDataFrame(
      session_, options_,
      "SELECT * FROM STREAM(" + api::QuoteMultipartName(name, "name", "DataStreamReader.Table") +
          ")");
}

// ---- DataStreamWriter ----

DataStreamWriter& DataStreamWriter::Format(const std::string& format) {
  format_ = format;
  return *this;
}

DataStreamWriter& DataStreamWriter::OutputMode(const std::string& mode) {
  stream::ParseOutputMode(mode);
  output_mode_ = mode;
  return *this;
}

DataStreamWriter& DataStreamWriter::Option(const std::string& key, const std::string& value) {
  options_[key] = value;
  return *this;
}

DataStreamWriter& DataStreamWriter::Options(const std::map<std::string, std::string>& options) {
  for (const auto& [key, value] : options) options_[key] = value;
  return *this;
}

DataStreamWriter& DataStreamWriter::PartitionBy(const std::vector<std::string>& columns) {
  partition_by_ = columns;
  return *this;
}

DataStreamWriter& DataStreamWriter::Trigger(const silt::Trigger& trigger) {
  ToEngine(trigger);
  trigger_ = trigger;
  return *this;
}

DataStreamWriter& DataStreamWriter::QueryName(const std::string& name) {
  name_ = name;
  return *this;
}

DataStreamWriter& DataStreamWriter::ForEachBatch(
    std::function<void(const DataFrame&, int64_t)> function) {
  for_each_batch_ = std::move(function);
  return *this;
}

StreamingQuery DataStreamWriter::Start(const std::string& path) {
  if (for_each_batch_) {
    SILT_USER_CHECK(path.empty(), INVALID_ARGUMENT,
                    {{"message", "a foreachBatch query writes to its function, not to a path"}});
    return StartOn("");
  }
  SILT_USER_CHECK(!path.empty(), INVALID_ARGUMENT,
                  {{"message", "Start needs the path of the Delta table to write"}});
  return StartOn(QuotePath(path));
}

StreamingQuery DataStreamWriter::ToTable(const std::string& name) {
  SILT_USER_CHECK(!for_each_batch_, INVALID_ARGUMENT,
                  {{"message", "a foreachBatch query writes to its function, not to a table"}});
  return StartOn(api::QuoteMultipartName(name, "name", "DataStreamWriter.ToTable"));
}

StreamingQuery DataStreamWriter::StartOn(const std::string& table_name) {
  if (!for_each_batch_) CheckFormat(format_, "sink");
  stream::StreamOptions writer_options(options_);
  std::optional<std::string> checkpoint = writer_options.Get("checkpointLocation");
  if (!checkpoint || checkpoint->empty()) {
    SILT_THROW(INVALID_STREAMING_OPTION,
               {{"value", ""},
                {"option", "checkpointLocation"},
                {"reason", "a streaming query needs a checkpoint location"}});
  }
  Session& user_session = *frame_.session_;
  sql::SessionState& user_state = api::StateOf(user_session);

  auto impl = std::make_shared<StreamingQuery::Impl>();
  impl->name = name_;
  SessionOptions session_options;
  session_options.warehouse = user_session.warehouse();
  session_options.conf = user_state.conf();
  impl->session = std::make_unique<Session>(session_options);
  sql::SessionState& state = api::StateOf(*impl->session);
  state.SetCurrentDatabase(user_state.current_database());

  stream::StreamSpec spec;
  spec.output_mode = stream::ParseOutputMode(output_mode_);
  spec.trigger = ToEngine(trigger_);
  spec.name = name_;
  spec.checkpoint_location = *checkpoint;
  sql::Statement parsed = sql::ParseStatement(frame_.sql_);
  SILT_CHECK(parsed.kind == sql::StatementKind::kQuery, "a streaming DataFrame is a query");
  spec.query = parsed.query;
  if (!frame_.watermark_column_.empty()) {
    stream::SetWatermark(*spec.query, frame_.watermark_column_, frame_.watermark_delay_);
  }
  if (frame_.deduplicate_) {
    spec.deduplication = stream::Deduplication{frame_.deduplicate_columns_, frame_.within_watermark_};
  }
  spec.source = stream::OpenStreamSource(state, *spec.query, stream::StreamOptions(frame_.options_));

  if (for_each_batch_) {
    Session* query_session = impl->session.get();
    auto function = for_each_batch_;
    spec.sink = stream::MakeForEachBatchSink([query_session, function](const stream::BatchContext& batch) {
      function(api::Access::MakeDataFrame(*query_session, batch.query_sql), batch.batch_id);
    });
  } else {
    // The table, created from the query's columns when it does not exist yet.
    sql::Statement name_statement = sql::ParseStatement("DESCRIBE TABLE " + table_name);
    std::optional<sql::TableSource> table;
    try {
      table = state.ResolveTable(name_statement.name, {});
    } catch (const Error& error) {
      std::string_view cls = error.error_class();
      if (cls != "TABLE_OR_VIEW_NOT_FOUND" && cls != "DELTA_MISSING_DELTA_TABLE") throw;
    }
    if (!table) {
      SchemaPtr schema = stream::AnalyzeStreamQuery(state, *spec.source,
                                                    spec.source->InitialOffset(), *spec.query,
                                                    spec.output_mode, spec.deduplication);
      sql::Statement create;
      create.kind = sql::StatementKind::kCreateTable;
      create.name = name_statement.name;
      create.provider = "delta";
      create.partition_columns = partition_by_;
      for (const Field& field : schema->fields()) {
        sql::ColumnDefinition column;
        column.name = field.name;
        column.type = field.type;
        create.columns.push_back(std::move(column));
      }
      commands::ExecuteStatement(state, create);
      table = state.ResolveTable(name_statement.name, {});
    }
    if (table->kind != sql::TableSource::Kind::kDelta) {
      SILT_THROW(UNSUPPORTED_FEATURE,
                 {{"message", "a stream can only be written to a Delta table, not " +
                                  table->display_name}});
    }
    stream::DeltaSinkOptions sink_options;
    sink_options.output_mode = spec.output_mode;
    sink_options.partition_by = partition_by_;
    sink_options.merge_schema = writer_options.GetBool("mergeSchema", false);
    sink_options.max_rows_per_file = writer_options.GetPositiveInt("maxRecordsPerFile")
                                         .value_or(state.MaxRecordsPerFile());
    spec.sink = stream::MakeDeltaSink(state.fs(), table->location, sink_options);
  }
  impl->execution = std::make_unique<stream::StreamExecution>(state, std::move(spec));
  StreamingQuery::Impl* raw = impl.get();
  impl->thread = std::thread([raw] {
    std::exception_ptr failure;
    try {
      raw->execution->Run();
    } catch (const Error&) {
      failure = std::current_exception();
    } catch (const std::exception& error) {
      failure = std::make_exception_ptr(
          MakeError(ErrorClass::STREAM_FAILED, {{"id", raw->execution->id()},
                                                {"runId", raw->execution->run_id()},
                                                {"message", error.what()}}));
    }
    std::lock_guard<std::mutex> lock(raw->mutex);
    raw->ended = true;
    raw->failure = failure;
    raw->ended_signal.notify_all();
  });
  return StreamingQuery(std::move(impl));
}

}  // namespace silt
