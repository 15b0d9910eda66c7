#include "silt/stream/flow.h"

#include <simdjson.h>

#include <algorithm>

#include "silt/base/ascii.h"
#include "silt/base/check.h"
#include "silt/base/json_writer.h"
#include "silt/io/path.h"
#include "silt/sql/ast_printer.h"
#include "silt/sql/parser.h"
#include "silt/stream/auto_cdc.h"
#include "silt/stream/delta_sink.h"
#include "silt/stream/fault_point.h"
#include "silt/stream/flow_sql.h"
#include "silt/stream/streaming_table.h"

namespace silt::stream {

namespace {

constexpr const char* kFlowsFolder = "_silt_streaming/flows";

std::string FlowsFolder(const std::string& location) {
  return io::JoinPath(location, kFlowsFolder);
}

// A flow's folder: its name in lower case, other characters than letters, digits, `_` and `-`
// as %XX.
std::string FlowFolder(const std::string& location, const std::string& name) {
  std::string encoded;
  for (char c : AsciiLower(name)) {
    bool plain = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    if (plain) {
      encoded += c;
    } else {
      char hex[4];
      std::snprintf(hex, sizeof(hex), "%%%02X", static_cast<unsigned char>(c));
      encoded += hex;
    }
  }
  return io::JoinPath(FlowsFolder(location), encoded);
}

std::string DefinitionFile(const std::string& folder) { return io::JoinPath(folder, "flow.json"); }

std::string FlowName(const sql::Statement& statement) {
  std::string name;
  for (const std::string& part : statement.name) name += (name.empty() ? "" : ".") + part;
  return name;
}

// The CREATE FLOW statement of a recorded flow.
sql::Statement ReadFlow(io::FileSystem& fs, const std::string& folder) {
  std::string path = DefinitionFile(folder);
  std::string text = fs.ReadFile(path);
  simdjson::dom::parser parser;
  simdjson::padded_string padded(text);
  simdjson::dom::element root;
  std::string_view statement;
  if (parser.parse(padded).get(root) != simdjson::SUCCESS ||
      root["statement"].get_string().get(statement) != simdjson::SUCCESS) {
    SILT_THROW(STREAMING_CHECKPOINT_CORRUPT,
               {{"checkpoint", path}, {"message", "it holds no flow statement"}});
  }
  sql::Statement parsed = sql::ParseStatement(std::string(statement));
  SILT_CHECK(parsed.kind == sql::StatementKind::kCreateFlow && parsed.flow_body,
             "a recorded flow is a CREATE FLOW statement");
  return parsed;
}

void WriteFlow(io::FileSystem& fs, const std::string& folder, const sql::Statement& statement) {
  JsonWriter json;
  json.BeginObject();
  json.Key("name");
  json.String(FlowName(statement));
  json.Key("statement");
  json.String(sql::ToString(statement));
  json.EndObject();
  WriteFileAtomically(fs, DefinitionFile(folder), json.Release() + "\n");
}

const sql::QualifiedName& TargetName(const sql::Statement& body) {
  return body.kind == sql::StatementKind::kMerge ? body.target->name : body.name;
}

// A MERGE flow: the flow's MERGE over each batch, as an idempotent write.
class MergeFlowSink final : public Sink {
 public:
  MergeFlowSink(sql::Statement merge, std::string target)
      : merge_(std::move(merge)), target_(std::move(target)) {}

  std::string Describe() const override { return "MergeFlowSink[" + target_ + "]"; }

  std::optional<int64_t> AddBatch(const BatchContext& batch) override {
    sql::SessionState& session = *batch.session;
    TransactionScope txn(session, batch.query_id, batch.batch_id);
    commands::StatementResult result = commands::ExecuteStatement(session, merge_);
    ReachFaultPoint(kAfterDataFilesWritten, batch.batch_id);
    return FirstCount(result);
  }

 private:
  sql::Statement merge_;
  std::string target_;
};

// The stream of the flow `statement` into `table`, on `session`.
StreamSpec MakeFlowStream(sql::SessionState& session, const sql::TableSource& table,
                          const sql::Statement& statement, const std::string& folder) {
  sql::Statement body = *statement.flow_body;
  StreamSpec spec;
  spec.name = FlowName(statement);
  spec.checkpoint_location = io::JoinPath(folder, "checkpoint");
  switch (body.kind) {
    case sql::StatementKind::kInsert: {
      spec.query = body.query;
      spec.source = OpenStreamSource(session, *spec.query, StreamOptions());
      DeltaSinkOptions sink_options;
      sink_options.max_rows_per_file = session.MaxRecordsPerFile();
      spec.sink = MakeDeltaSink(session.fs(), table.location, sink_options);
      return spec;
    }
    case sql::StatementKind::kMerge: {
      // The MERGE reads the batch where its source read STREAM(...): opening the stream
      // rewrites that reference (keeping its alias, or the table's name as one).
      sql::Query reads;
      reads.from.push_back(body.source);
      spec.source = OpenStreamSource(session, reads, StreamOptions());
      spec.query = sql::ParseStatement("SELECT * FROM " + std::string(kStreamInputName)).query;
      spec.sink = std::make_unique<MergeFlowSink>(std::move(body), table.display_name);
      return spec;
    }
    case sql::StatementKind::kAutoCdc: {
      spec.query = sql::ParseStatement(AutoCdcStreamQuery(*body.auto_cdc)).query;
      spec.source = OpenStreamSource(session, *spec.query, StreamOptions());
      SchemaPtr schema = AnalyzeStreamQuery(session, *spec.source, spec.source->InitialOffset(),
                                            *spec.query, OutputMode::kAppend);
      spec.sink = MakeAutoCdcSink(session, body, table, *schema, io::JoinPath(folder, "state"));
      return spec;
    }
    default:
      SILT_CHECK(false, "a flow's body is AUTO CDC, MERGE or INSERT");
  }
  return spec;
}

// Runs the flow whose CREATE FLOW text is `text`, kept in `folder`.
std::vector<QueryProgress> RunFlowStatement(sql::SessionState& session,
                                            const sql::TableSource& table, const std::string& text,
                                            const std::string& folder,
                                            std::optional<int64_t> every_ms) {
  sql::Statement statement = sql::ParseStatement(text);
  SILT_CHECK(statement.kind == sql::StatementKind::kCreateFlow && statement.flow_body,
             "a flow is a CREATE FLOW statement");
  return RunStream(
      session, FlowName(statement),
      [&](sql::SessionState& state) {
        // Parsed afresh: opening the stream rewrites the statement's STREAM(...) reference.
        return MakeFlowStream(state, table, sql::ParseStatement(text), folder);
      },
      every_ms);
}

}  // namespace

std::vector<QueryProgress> CreateFlow(sql::SessionState& session, const sql::Statement& statement) {
  SILT_CHECK(statement.kind == sql::StatementKind::kCreateFlow && statement.flow_body,
             "CREATE FLOW with a body");
  const sql::Statement& body = *statement.flow_body;
  sql::TableSource table = session.ResolveTable(TargetName(body), body.position);
  if (table.kind != sql::TableSource::Kind::kDelta || table.pinned_snapshot) {
    SILT_THROW(UNSUPPORTED_FEATURE,
               {{"message", "a flow writes a Delta table; " + table.display_name + " is not one"}});
  }
  std::string folder = FlowFolder(table.location, FlowName(statement));
  // The flow is recorded once its first run succeeds, so that a flow that cannot run (an
  // unknown column, a source that is no stream) is not kept.
  std::vector<QueryProgress> progress =
      RunFlowStatement(session, table, sql::ToString(statement), folder, std::nullopt);
  WriteFlow(*session.fs(), folder, statement);
  return progress;
}

std::vector<std::string> FlowNames(io::FileSystem& fs, const std::string& location) {
  std::vector<std::string> names;
  for (const io::FileInfo& entry : fs.List(FlowsFolder(location))) {
    if (!entry.is_directory || !fs.Stat(DefinitionFile(entry.path))) continue;
    names.push_back(FlowName(ReadFlow(fs, entry.path)));
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<QueryProgress> RunFlow(sql::SessionState& session, const sql::TableSource& table,
                                   const std::string& name, std::optional<int64_t> every_ms) {
  std::string folder = FlowFolder(table.location, name);
  return RunFlowStatement(session, table, sql::ToString(ReadFlow(*session.fs(), folder)), folder,
                          every_ms);
}

void ForgetFlowProgress(io::FileSystem& fs, const std::string& location) {
  for (const io::FileInfo& entry : fs.List(FlowsFolder(location))) {
    if (!entry.is_directory) continue;
    for (const char* part : {"checkpoint", "state"}) {
      for (const io::FileInfo& file : fs.List(io::JoinPath(entry.path, part), "", true)) {
        if (!file.is_directory) fs.Delete(file.path);
      }
    }
  }
}

}  // namespace silt::stream
