#include "silt/stream/streaming_table.h"

#include <simdjson.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

#include "silt/base/ascii.h"
#include "silt/base/check.h"
#include "silt/base/json_writer.h"
#include "silt/io/path.h"
#include "silt/log/random_uuid.h"
#include "silt/log/transaction.h"
#include "silt/sql/ast_printer.h"
#include "silt/sql/parser.h"
#include "silt/stream/delta_sink.h"
#include "silt/stream/delta_source.h"
#include "silt/stream/file_source.h"
#include "silt/stream/flow.h"
#include "silt/stream/rate_source.h"
#include "silt/stream/source_registry.h"
#include "silt/vector/vector.h"

namespace silt::stream {

namespace {

constexpr const char* kFlowFolder = "_silt_streaming";

std::string FlowFile(const std::string& location) {
  return io::JoinPath(io::JoinPath(location, kFlowFolder), "flow.json");
}

std::string CheckpointFolder(const std::string& location) {
  return io::JoinPath(io::JoinPath(location, kFlowFolder), "checkpoint");
}

// The location of the Delta table `name`, or nullopt when there is none.
std::optional<sql::TableSource> FindTable(sql::SessionState& session, const sql::Statement& statement) {
  try {
    return session.ResolveTable(statement.name, statement.position);
  } catch (const Error& error) {
    std::string_view cls = error.error_class();
    if (cls == "TABLE_OR_VIEW_NOT_FOUND" || cls == "DELTA_MISSING_DELTA_TABLE") return std::nullopt;
    throw;
  }
}

// The table's own flow query: nullopt when the table is no streaming table, "" for one declared
// without a query (fed by named flows).
std::optional<std::string> ReadFlowQuery(io::FileSystem& fs, const std::string& location) {
  std::string path = FlowFile(location);
  if (!fs.Stat(path)) return std::nullopt;
  std::string text = fs.ReadFile(path);
  simdjson::dom::parser parser;
  simdjson::padded_string padded(text);
  simdjson::dom::element root;
  if (parser.parse(padded).get(root) != simdjson::SUCCESS || !root.is_object()) {
    SILT_THROW(STREAMING_CHECKPOINT_CORRUPT,
               {{"checkpoint", path}, {"message", "it is not a flow definition"}});
  }
  std::string_view query;
  if (root["query"].get_string().get(query) != simdjson::SUCCESS) return std::string();
  return std::string(query);
}

// Records the table's own flow query; an empty one declares a table fed by named flows only.
void WriteFlowQuery(io::FileSystem& fs, const std::string& location, const std::string& query) {
  JsonWriter json;
  json.BeginObject();
  if (!query.empty()) {
    json.Key("query");
    json.String(query);
  }
  json.EndObject();
  WriteFileAtomically(fs, FlowFile(location), json.Release() + "\n");
}

[[noreturn]] void ThrowNotStreamingTable(const sql::TableSource& table) {
  SILT_THROW(UNSUPPORTED_FEATURE,
             {{"message", table.display_name +
                              " is not a streaming table (CREATE STREAMING TABLE makes one)"}});
}

sql::QueryPtr ParseQuery(const std::string& text) {
  sql::Statement statement = sql::ParseStatement(text);
  SILT_CHECK(statement.kind == sql::StatementKind::kQuery, "a flow query is a query");
  return statement.query;
}

// The interval of REFRESH ... EVERY 'text' ("30 seconds", "interval 1 minute").
int64_t ParseEvery(const std::string& text) {
  std::string lower = AsciiLower(text);
  try {
    int64_t ms = log::ParseIntervalMs(lower.rfind("interval", 0) == 0 ? lower : "interval " + lower,
                                      "EVERY");
    if (ms > 0) return ms;
  } catch (const Error&) {
  }
  SILT_THROW(INVALID_STREAMING_OPTION,
             {{"value", text}, {"option", "EVERY"}, {"reason", "expected an interval such as '30 seconds'"}});
}

// Runs the streaming table's own flow (its query).
std::vector<QueryProgress> RunTableQuery(sql::SessionState& session, const sql::TableSource& table,
                                         const std::string& query_text,
                                         std::optional<int64_t> every_ms = std::nullopt) {
  return RunStream(
      session, table.display_name,
      [&](sql::SessionState& state) {
        StreamSpec spec;
        spec.query = ParseQuery(query_text);
        spec.source = OpenStreamSource(state, *spec.query, StreamOptions());
        DeltaSinkOptions sink_options;
        sink_options.max_rows_per_file = state.MaxRecordsPerFile();
        spec.sink = MakeDeltaSink(state.fs(), table.location, sink_options);
        spec.checkpoint_location = CheckpointFolder(table.location);
        spec.name = table.display_name;
        return spec;
      },
      every_ms);
}

// Runs what feeds the streaming table: its own query (unless `query` is empty), then its named
// flows. A repeating run (`every_ms`) takes exactly one of them.
commands::StatementResult RunTableFlows(sql::SessionState& session, const sql::TableSource& table,
                                        const std::string& query,
                                        std::optional<int64_t> every_ms = std::nullopt) {
  std::vector<std::string> flows = FlowNames(*session.fs(), table.location);
  if (every_ms && flows.size() + (query.empty() ? 0 : 1) != 1) {
    SILT_THROW(UNSUPPORTED_FEATURE,
               {{"message", "REFRESH ... EVERY of " + table.display_name +
                                ", which is fed by more than one flow (or none)"}});
  }
  std::vector<QueryProgress> progress;
  if (!query.empty()) progress = RunTableQuery(session, table, query, every_ms);
  for (const std::string& flow : flows) {
    std::vector<QueryProgress> more = RunFlow(session, table, flow, every_ms);
    progress.insert(progress.end(), more.begin(), more.end());
  }
  return ProgressRows(progress);
}

commands::StatementResult CreateStreamingTable(sql::SessionState& session,
                                               const sql::Statement& statement) {
  // Without a query the table is fed by named flows (CREATE FLOW ... INTO it).
  std::string query_text = statement.query ? sql::ToString(*statement.query) : std::string();
  std::optional<sql::TableSource> table = FindTable(session, statement);
  if (table) {
    if (table->kind != sql::TableSource::Kind::kDelta) ThrowNotStreamingTable(*table);
    if (!statement.or_replace && !statement.if_not_exists) {
      SILT_THROW(TABLE_OR_VIEW_ALREADY_EXISTS, {{"relationName", table->display_name}});
    }
    if (!ReadFlowQuery(*session.fs(), table->location) &&
        FlowNames(*session.fs(), table->location).empty()) {
      ThrowNotStreamingTable(*table);
    }
    if (!statement.or_replace) return {};
  } else {
    // The table's columns: as declared, or the query's output (none yet without a query: its
    // first flow gives them).
    sql::Statement create;
    create.kind = sql::StatementKind::kCreateTable;
    create.position = statement.position;
    create.name = statement.name;
    create.columns = statement.columns;
    create.constraints = statement.constraints;
    create.partition_columns = statement.partition_columns;
    create.cluster_columns = statement.cluster_columns;
    create.comment = statement.comment;
    create.properties = statement.properties;
    create.location = statement.location;
    create.provider = "delta";
    if (create.columns.empty() && !query_text.empty()) {
      sql::QueryPtr query = ParseQuery(query_text);
      std::unique_ptr<Source> source = OpenStreamSource(session, *query, StreamOptions());
      SchemaPtr schema = AnalyzeStreamQuery(session, *source, source->InitialOffset(), *query,
                                            OutputMode::kAppend);
      for (const Field& field : schema->fields()) {
        sql::ColumnDefinition column;
        column.name = field.name;
        column.type = field.type;
        column.nullable = true;
        create.columns.push_back(std::move(column));
      }
    }
    commands::ExecuteStatement(session, create);
    table = FindTable(session, statement);
    SILT_CHECK(table.has_value(), "the streaming table was just created");
  }
  WriteFlowQuery(*session.fs(), table->location, query_text);
  if (!statement.flow_body) return RunTableFlows(session, *table, query_text);
  // FLOW AUTO CDC FROM ...: a flow named after the table, created (and run) first.
  sql::Statement flow;
  flow.kind = sql::StatementKind::kCreateFlow;
  flow.position = statement.position;
  flow.name = {statement.name.back()};
  flow.flow_body = statement.flow_body;
  std::vector<QueryProgress> progress = CreateFlow(session, flow);
  commands::StatementResult others = RunTableFlows(session, *table, query_text);
  commands::StatementResult rows = ProgressRows(progress);
  for (Batch& batch : others.batches) {
    if (batch.num_rows() > 0) rows.batches.push_back(std::move(batch));
  }
  return rows;
}

commands::StatementResult RefreshStreamingTable(sql::SessionState& session,
                                                const sql::Statement& statement) {
  sql::TableSource table = session.ResolveTable(statement.name, statement.position);
  if (table.kind != sql::TableSource::Kind::kDelta) ThrowNotStreamingTable(table);
  std::optional<std::string> query = ReadFlowQuery(*session.fs(), table.location);
  if (!query && FlowNames(*session.fs(), table.location).empty()) ThrowNotStreamingTable(table);
  if (statement.extended) {
    // FULL: forget what was streamed and empty the table, then stream everything again.
    for (const io::FileInfo& file :
         session.fs()->List(CheckpointFolder(table.location), "", /*recursive=*/true)) {
      session.fs()->Delete(file.path);
    }
    ForgetFlowProgress(*session.fs(), table.location);
    sql::Statement truncate = sql::ParseStatement("DELETE FROM delta.`" + table.location + "`");
    commands::ExecuteStatement(session, truncate);
  }
  std::optional<int64_t> every;
  if (statement.value) every = ParseEvery(*statement.value);
  return RunTableFlows(session, table, query.value_or(""), every);
}

// `STREAM read_files('/in', format => 'json')`, `STREAM rate(rowsPerSecond => 10)` and
// `STREAM rate_micro_batch(rowsPerBatch => 100)`.
std::unique_ptr<Source> OpenSourceFunction(sql::SessionState& session,
                                           const StreamReference& reference,
                                           const StreamOptions& options) {
  std::string function = AsciiLower(reference.name.back());
  if (function == "read_files") {
    if (reference.arguments.size() != 1) {
      SILT_THROW(WRONG_NUM_ARGS, {{"functionName", "`read_files`"},
                                  {"expectedNum", "1"},
                                  {"actualNum", std::to_string(reference.arguments.size())}});
    }
    const std::string& path = reference.arguments[0];
    if (!session.fs()->Stat(path)) SILT_THROW(PATH_NOT_FOUND, {{"path", path}});
    std::string format = AsciiLower(options.Get("format").value_or(""));
    FileFormat file_format = FileFormat::kJson;
    if (format == "csv") {
      file_format = FileFormat::kCsv;
    } else if (format == "parquet") {
      file_format = FileFormat::kParquet;
    } else if (format != "json") {
      SILT_THROW(INVALID_STREAMING_OPTION,
                 {{"value", format}, {"option", "format"}, {"reason", "read_files reads json, csv or parquet"}});
    }
    return FileSource::Open(session.fs(), path, file_format, FileSourceFace::kReadFiles, options,
                            session.MakeEvalContext(), /*infer_schema=*/true);
  }
  if (!reference.arguments.empty() && (function == "rate" || function == "rate_micro_batch")) {
    SILT_THROW(WRONG_NUM_ARGS, {{"functionName", "`" + function + "`"},
                                {"expectedNum", "0"},
                                {"actualNum", std::to_string(reference.arguments.size())}});
  }
  if (function == "rate") return RateSource::Open(RateKind::kPerSecond, options);
  if (function == "rate_micro_batch") return RateSource::Open(RateKind::kPerMicroBatch, options);
  if (const SourceFunction* registered = FindSourceFunction(function)) {
    return (*registered)(session, reference.arguments, options);
  }
  std::string names = "read_files, rate, rate_micro_batch";
  for (const std::string& name : RegisteredSourceFunctions()) names += ", " + name;
  SILT_THROW(UNSUPPORTED_FEATURE,
             {{"message", "STREAM " + function +
                              "(...) is not a streaming source; the source functions are " + names}});
}

}  // namespace

bool IsStreamingStatement(const sql::Statement& statement) {
  return statement.kind == sql::StatementKind::kCreateStreamingTable ||
         statement.kind == sql::StatementKind::kRefreshStreamingTable ||
         statement.kind == sql::StatementKind::kCreateFlow;
}

commands::StatementResult ExecuteStreamingStatement(sql::SessionState& session,
                                                    const sql::Statement& statement) {
  if (statement.kind == sql::StatementKind::kCreateStreamingTable) {
    return CreateStreamingTable(session, statement);
  }
  if (statement.kind == sql::StatementKind::kCreateFlow) {
    return ProgressRows(CreateFlow(session, statement));
  }
  SILT_CHECK(statement.kind == sql::StatementKind::kRefreshStreamingTable,
             "a streaming-table statement");
  return RefreshStreamingTable(session, statement);
}

std::vector<QueryProgress> RunStream(sql::SessionState& session, const std::string& name,
                                     const StreamFactory& make_stream,
                                     std::optional<int64_t> every_ms) {
  // A repeating stream runs its batches on a session of its own, so that a cancel request of
  // the statement stops it between batches instead of inside one.
  std::unique_ptr<sql::SessionState> own;
  sql::SessionState* state = &session;
  if (every_ms) {
    own = std::make_unique<sql::SessionState>(session.fs(), session.catalog().warehouse());
    for (const auto& [key, value] : session.conf()) own->SetConf(key, value);
    own->SetCurrentDatabase(session.current_database());
    state = own.get();
  }
  StreamSpec spec = make_stream(*state);
  spec.trigger.kind = every_ms ? TriggerKind::kProcessingTime : TriggerKind::kAvailableNow;
  spec.trigger.interval_ms = every_ms.value_or(0);
  StreamExecution execution(*state, std::move(spec));
  if (!every_ms) {
    execution.Run();
    return execution.RecentProgress();
  }
  // One line per batch on stderr while it runs (the rows come when it stops).
  execution.SetProgressListener([&](const QueryProgress& progress) {
    std::fprintf(stderr, "%s batch %lld: %lld rows in, %lld rows written, %lld ms\n",
                 name.c_str(), static_cast<long long>(progress.batch_id),
                 static_cast<long long>(progress.num_input_rows),
                 static_cast<long long>(progress.sink_num_output_rows),
                 static_cast<long long>(progress.duration_ms.at("triggerExecution")));
  });
  std::atomic<bool> done{false};
  std::thread watcher([&] {
    while (!done.load()) {
      if (session.cancellation().requested()) {
        execution.Stop();
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });
  try {
    execution.Run();
  } catch (...) {
    done = true;
    watcher.join();
    throw;
  }
  done = true;
  watcher.join();
  return execution.RecentProgress();
}

commands::StatementResult ProgressRows(const std::vector<QueryProgress>& progress) {
  auto schema = std::make_shared<const Schema>(std::vector<Field>{
      {"batch_id", LongType(), false, {}},
      {"num_input_rows", LongType(), false, {}},
      {"num_output_rows", LongType(), true, {}},
      {"duration_ms", LongType(), false, {}}});
  std::vector<std::unique_ptr<VectorBuilder>> columns;
  for (const Field& field : schema->fields()) {
    columns.push_back(std::make_unique<VectorBuilder>(field.type));
  }
  for (const QueryProgress& batch : progress) {
    columns[0]->AppendInt(batch.batch_id);
    columns[1]->AppendInt(batch.num_input_rows);
    if (batch.sink_num_output_rows >= 0) {
      columns[2]->AppendInt(batch.sink_num_output_rows);
    } else {
      columns[2]->AppendNull();
    }
    columns[3]->AppendInt(batch.duration_ms.at("triggerExecution"));
  }
  std::vector<VectorPtr> vectors;
  for (auto& column : columns) vectors.push_back(column->Finish());
  commands::StatementResult result;
  result.schema = schema;
  result.batches.emplace_back(schema, std::move(vectors), static_cast<int64_t>(progress.size()));
  return result;
}

std::unique_ptr<Source> OpenStreamSource(sql::SessionState& session, sql::Query& query,
                                         const StreamOptions& options) {
  // Options written in the query (STREAM(t) WITH (...)) add to the caller's.
  StreamOptions all = options;
  StreamReference reference = ReplaceStreamReference(query, &all);
  if (reference.call) return OpenSourceFunction(session, reference, all);
  const sql::QualifiedName& name = reference.name;
  sql::TableSource table = session.ResolveTable(name, query.position);
  if (table.kind == sql::TableSource::Kind::kJson || table.kind == sql::TableSource::Kind::kCsv ||
      table.kind == sql::TableSource::Kind::kParquet) {
    FileFormat format = table.kind == sql::TableSource::Kind::kJson  ? FileFormat::kJson
                        : table.kind == sql::TableSource::Kind::kCsv ? FileFormat::kCsv
                                                                     : FileFormat::kParquet;
    return FileSource::Open(session.fs(), table.location, format, FileSourceFace::kSpark, all,
                            session.MakeEvalContext(),
                            session.GetBoolConf("spark.sql.streaming.schemaInference", false));
  }
  if (table.kind != sql::TableSource::Kind::kDelta || table.pinned_snapshot) {
    SILT_THROW(UNSUPPORTED_FEATURE,
               {{"message", "STREAM(" + table.display_name +
                                ") streams a Delta table or a folder of files; views cannot be streamed"}});
  }
  return DeltaSource::Open(session.fs(), table.location, table.display_name, all);
}

void WriteFileAtomically(io::FileSystem& fs, const std::string& path, std::string_view bytes) {
  std::string temporary = path + ".tmp-" + log::RandomUuid();
  fs.WriteFile(temporary, bytes);
  fs.Rename(temporary, path);
}

}  // namespace silt::stream
