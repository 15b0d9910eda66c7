#include "silt/cdc/postgres_cdc_source.h"

#include <map>
#include <mutex>

#include "silt/base/check.h"
#include "silt/base/json_writer.h"
#include "silt/cdc/replication_protocol.h"
#include "silt/commands/statement_executor.h"
#include "silt/exec/text_format.h"
#include "silt/io/path.h"
#include "silt/sql/ast_printer.h"
#include "silt/sql/parser.h"
#include "silt/stream/auto_cdc.h"
#include "silt/stream/fault_point.h"
#include "silt/stream/source_registry.h"

namespace silt::cdc {

namespace {

constexpr const char* kChangesName = "__silt_postgres_changes";

std::string Quoted(std::string_view text) {
  std::string out;
  AppendJsonString(out, text);
  return out;
}


// Types whose values PostgreSQL may keep out of line (TOAST) and leave out of an update that
// did not change them.
bool MayBeToasted(const DataType& type) {
  switch (type.id()) {
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kDecimal:
    case TypeId::kList:
      return true;
    default:
      return false;
  }
}

commands::StatementResult Run(sql::SessionState& session, const std::string& text) {
  return commands::ExecuteStatement(session, sql::ParseStatement(text));
}

}  // namespace

std::string PostgresCdcOffset::ToJson() const {
  return "{\"sourceVersion\":1,\"slot\":" + Quoted(slot) + ",\"lsn\":" + Quoted(FormatLsn(lsn)) + "}";
}

PostgresCdcOffset PostgresCdcOffset::Parse(const std::string& json) {
  auto field = [&](const std::string& name) -> std::optional<std::string> {
    std::string key = "\"" + name + "\":\"";
    size_t at = json.find(key);
    if (at == std::string::npos) return std::nullopt;
    size_t begin = at + key.size();
    size_t end = json.find('"', begin);
    if (end == std::string::npos) return std::nullopt;
    return json.substr(begin, end - begin);
  };
  auto slot = field("slot");
  auto lsn_text = field("lsn");
  std::optional<Lsn> lsn = lsn_text ? ParseLsn(*lsn_text) : std::nullopt;
  if (json.find("\"sourceVersion\":1") == std::string::npos || !slot || !lsn) {
    SILT_THROW(STREAMING_CHECKPOINT_CORRUPT,
               {{"checkpoint", "the PostgreSQL change stream's offsets"},
                {"message", "not an offset of this source: " + json}});
  }
  return PostgresCdcOffset{*slot, *lsn};
}

PostgresCdcSource::PostgresCdcSource(std::shared_ptr<io::FileSystem> fs, PostgresCdcOptions options,
                                     AnyTables)
    : reader_(std::make_unique<PostgresChangeReader>(std::move(fs), std::move(options))) {}

PostgresCdcSource::PostgresCdcSource(std::shared_ptr<io::FileSystem> fs, PostgresCdcOptions options) {
  if (options.tables.size() != 1) {
    std::string list;
    for (const auto& table : options.tables) list += (list.empty() ? "" : ", ") + table;
    SILT_THROW(INVALID_STREAMING_OPTION,
               {{"option", "tables"}, {"value", list},
                {"reason", "a postgres_cdc stream reads one table; silt cdc mirrors several over one slot"}});
  }
  reader_ = std::make_unique<PostgresChangeReader>(std::move(fs), std::move(options));
}

bool PostgresCdcSource::OpenMetadata(const std::shared_ptr<io::FileSystem>&, const std::string& folder) {
  reader_->OpenStaging(io::JoinPath(folder, "changes"));
  return false;  // the executor keeps the start offset in the folder as usual
}

void PostgresCdcSource::Close() noexcept { reader_->Disconnect(); }

void PostgresCdcSource::Commit(const std::string& end) {
  reader_->ConfirmApplied(PostgresCdcOffset::Parse(end).lsn);
}

std::string PostgresCdcSource::Describe() const {
  std::string tables;
  for (const CdcTable& table : reader_->tables()) tables += (tables.empty() ? "" : ", ") + table.QualifiedName();
  return "PostgresCdcSource[" + tables + "]";
}

SchemaPtr PostgresCdcSource::schema() const { return reader_->tables()[0].change_schema; }

std::string PostgresCdcSource::InitialOffset() {
  return PostgresCdcOffset{reader_->options().slot, 0}.ToJson();
}

void PostgresCdcSource::ValidateOffset(const std::string& offset) {
  PostgresCdcOffset parsed = PostgresCdcOffset::Parse(offset);
  if (parsed.slot != reader_->options().slot) {
    SILT_THROW(STREAMING_CHECKPOINT_MISMATCH,
               {{"checkpoint", "this checkpoint"},
                {"what", "a stream of replication slot " + parsed.slot},
                {"expected", "a stream of replication slot " + reader_->options().slot}});
  }
}

void PostgresCdcSource::PrepareForAvailableNow() { reader_->LimitToCurrentPosition(); }

std::optional<std::string> PostgresCdcSource::LatestOffset(const std::string& start) {
  PostgresCdcOffset from = PostgresCdcOffset::Parse(start);
  std::optional<Lsn> end = reader_->StageNextBatch(from.lsn);
  if (!end) return std::nullopt;
  return PostgresCdcOffset{from.slot, *end}.ToJson();
}

stream::BatchInput PostgresCdcSource::PlanBatch(const std::string& start, const std::string& end) {
  Lsn from = PostgresCdcOffset::Parse(start).lsn;
  Lsn to = PostgresCdcOffset::Parse(end).lsn;
  planned_ = {from, to};
  stream::BatchInput input;
  if (from == to) {
    // An empty batch (a query analysed before it runs): no staged table is needed.
    auto rows = std::make_shared<exec::TextTable>();
    rows->schema = schema();
    input.rows = std::move(rows);
    input.num_rows = 0;
    return input;
  }
  input.snapshot = reader_->StagedBatch(0, from, to);
  for (const log::AddFile& file : input.snapshot->files()) {
    ++input.num_files;
    input.num_bytes += file.size;
  }
  return input;
}

namespace {

class MirrorSource final : public PostgresCdcSource {
 public:
  MirrorSource(std::shared_ptr<io::FileSystem> fs, const PostgresMirrorSpec& spec)
      : PostgresCdcSource(std::move(fs), spec.source, AnyTables{}) {}
};

class MirrorSink final : public stream::Sink {
 public:
  MirrorSink(PostgresCdcSource& source, PostgresMirrorSpec spec)
      : source_(source), spec_(std::move(spec)) {}

  std::string Describe() const override {
    std::string targets;
    for (const MirrorTable& table : spec_.tables) targets += (targets.empty() ? "" : ", ") + table.target;
    return "PostgresMirror[" + targets + "]";
  }

  std::optional<int64_t> AddBatch(const stream::BatchContext& batch) override {
    auto [start, end] = source_.planned();
    PostgresChangeReader& reader = source_.reader();
    int64_t rows = 0;
    for (size_t i = 0; i < reader.tables().size(); ++i) {
      const CdcTable& table = reader.tables()[i];
      const MirrorTable* target = TargetOf(table);
      if (target == nullptr) continue;
      auto staged = reader.StagedBatch(i, start, end);
      if (staged->files().empty()) continue;
      EnsureTarget(*batch.session, table, *target);
      batch.session->SetStreamInput(kChangesName, staged, "PostgresCdcSource[" + table.QualifiedName() + "]");
      struct Clear {
        sql::SessionState* session;
        ~Clear() { session->ClearStreamInput(kChangesName); }
      } clear{batch.session};
      if (target->history == MirrorHistory::kScdType2) {
        rows += ApplyType2(*batch.session, i, table, *target, batch);
      } else {
        rows += ApplyType1(*batch.session, table, *target, batch);
      }
      // Crash tests stop here: some tables of the batch merged, others not yet.
      stream::ReachFaultPoint(stream::kAfterDataFilesWritten, batch.batch_id);
    }
    return rows;
  }

 private:
  const MirrorTable* TargetOf(const CdcTable& table) const {
    for (const MirrorTable& target : spec_.tables) {
      std::string name = target.source_table.find('.') == std::string::npos
                             ? "public." + target.source_table
                             : target.source_table;
      if (name == table.QualifiedName()) return &target;
    }
    return nullptr;
  }

  void EnsureTarget(sql::SessionState& session, const CdcTable& table, const MirrorTable& target) {
    std::string columns;
    for (const CdcTable::Column& column : table.columns) {
      columns += (columns.empty() ? "" : ", ") + sql::QuoteIdentifier(column.name) + " " +
                 column.parser->spark_type()->ToString();
    }
    if (target.history == MirrorHistory::kScdType2) columns += ", `__START_AT` bigint, `__END_AT` bigint";
    Run(session, "CREATE TABLE IF NOT EXISTS " + target.target + " (" + columns + ") USING delta");
    // Columns added at the source since the target was made.
    commands::StatementResult described = Run(session, "SELECT * FROM " + target.target + " LIMIT 0");
    std::string added;
    for (const CdcTable::Column& column : table.columns) {
      if (described.schema->FieldIndex(column.name, /*case_sensitive=*/false) < 0) {
        added += (added.empty() ? "" : ", ") + sql::QuoteIdentifier(column.name) + " " +
                 column.parser->spark_type()->ToString();
      }
    }
    if (added.empty()) return;
    if (!spec_.schema_evolution) {
      SILT_THROW(CDC_SOURCE_SCHEMA_CHANGED,
                 {{"table", table.QualifiedName()},
                  {"change", "target " + target.target + " lacks its column(s) " + added}});
    }
    Run(session, "ALTER TABLE " + target.target + " ADD COLUMNS (" + added + ")");
  }

  // One MERGE: the latest change of each key after the batch's last TRUNCATE; TOASTed values
  // the server left out keep the last value the batch or the target has.
  int64_t ApplyType1(sql::SessionState& session, const CdcTable& table, const MirrorTable& target,
                     const stream::BatchContext& batch) {
    std::vector<std::string> keys = table.KeyColumns();
    if (keys.empty()) {
      SILT_THROW(CDC_SOURCE_FAILED,
                 {{"source", "PostgreSQL"},
                  {"message", "table " + table.QualifiedName() + " has no primary key; mirroring it needs one"}});
    }
    commands::StatementResult facts = Run(session,
        "SELECT max(CASE WHEN _op = 't' THEN _lsn END), count(_unchanged_columns), count(*) FROM " +
        std::string(kChangesName));
    const Batch& row = facts.batches.at(0);
    std::string after_truncate = "true";
    bool truncated = !row.column(0)->IsNull(0);
    if (truncated) {
      std::string lsn = row.column(0)->ValueToString(0);
      commands::StatementResult seq = Run(session, "SELECT max(_seq) FROM " + std::string(kChangesName) +
                                                       " WHERE _op = 't' AND _lsn = " + lsn);
      after_truncate = "(_lsn > " + lsn + " OR (_lsn = " + lsn + " AND _seq > " +
                       seq.batches.at(0).column(0)->ValueToString(0) + "))";
    }
    bool any_unchanged = row.column(1)->ValueToString(0) != "0";
    int64_t changes = std::stoll(row.column(2)->ValueToString(0));

    std::string partition;
    for (const std::string& key : keys) partition += (partition.empty() ? "" : ", ") + sql::QuoteIdentifier(key);
    std::string carried;  // the last sent value of each column that may be left out
    std::vector<bool> carries(table.columns.size(), false);
    for (size_t i = 0; i < table.columns.size(); ++i) {
      const CdcTable::Column& column = table.columns[i];
      if (!any_unchanged || column.is_key || !MayBeToasted(*column.parser->spark_type())) continue;
      carries[i] = true;
      carried += ", last_value(CASE WHEN array_contains(coalesce(_unchanged_columns, array()), " +
                 Quoted(column.name) + ") THEN NULL ELSE struct(" + sql::QuoteIdentifier(column.name) +
                 " AS v) END) IGNORE NULLS OVER (PARTITION BY " + partition +
                 " ORDER BY _lsn, _seq ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS " +
                 sql::QuoteIdentifier("__silt_" + column.name);
    }
    std::string source = "SELECT * FROM (SELECT *" + carried + ", row_number() OVER (PARTITION BY " +
                         partition + " ORDER BY _lsn DESC, _seq DESC) AS __silt_rank FROM " +
                         kChangesName + " WHERE _op <> 't' AND " + after_truncate +
                         ") WHERE __silt_rank = 1";
    std::string on;
    for (const std::string& key : keys) {
      on += (on.empty() ? "" : " AND ") + std::string("t.") + sql::QuoteIdentifier(key) + " <=> s." + sql::QuoteIdentifier(key);
    }
    std::string set;
    std::string insert_columns;
    std::string insert_values;
    for (size_t i = 0; i < table.columns.size(); ++i) {
      std::string name = sql::QuoteIdentifier(table.columns[i].name);
      std::string value = "s." + name;
      std::string carried_value = "s." + sql::QuoteIdentifier("__silt_" + table.columns[i].name);
      set += (set.empty() ? "" : ", ") + std::string("t.") + name + " = " +
             (carries[i] ? "CASE WHEN " + carried_value + " IS NULL THEN t." + name + " ELSE " + carried_value + ".v END" : value);
      insert_columns += (insert_columns.empty() ? "" : ", ") + name;
      insert_values += (insert_values.empty() ? "" : ", ") + (carries[i] ? carried_value + ".v" : value);
    }
    std::string merge = "MERGE INTO " + target.target + " t USING (" + source + ") s ON " + on +
                        " WHEN MATCHED AND s._op = 'd' THEN DELETE"
                        " WHEN MATCHED THEN UPDATE SET " + set +
                        " WHEN NOT MATCHED AND s._op <> 'd' THEN INSERT (" + insert_columns +
                        ") VALUES (" + insert_values + ")";
    if (truncated) merge += " WHEN NOT MATCHED BY SOURCE THEN DELETE";
    Run(session, "SET spark.databricks.delta.write.txnAppId = " + batch.query_id + ":" + table.QualifiedName());
    Run(session, "SET spark.databricks.delta.write.txnVersion = " + std::to_string(batch.batch_id));
    struct Reset {
      sql::SessionState& session;
      ~Reset() {
        try {
          Run(session, "RESET spark.databricks.delta.write.txnAppId");
          Run(session, "RESET spark.databricks.delta.write.txnVersion");
        } catch (...) {
        }
      }
    } reset{session};
    Run(session, merge);
    return changes;
  }

  // SCD type 2 through AUTO CDC's sink (stream/auto_cdc.h), sequenced by the commit LSN: the
  // changes of one source transaction to a key collapse into its last one (the source never
  // showed the ones before), so `__START_AT` / `__END_AT` are the commit LSNs a version was
  // current between. TOASTed values an update left out are taken from the key's previous
  // change in the batch, else from the target's current version.
  int64_t ApplyType2(sql::SessionState& session, size_t index, const CdcTable& table,
                     const MirrorTable& target, const stream::BatchContext& batch) {
    std::vector<std::string> keys = table.KeyColumns();
    if (keys.empty()) {
      SILT_THROW(CDC_SOURCE_FAILED,
                 {{"source", "PostgreSQL"},
                  {"message", "table " + table.QualifiedName() + " has no primary key; mirroring it needs one"}});
    }
    commands::StatementResult facts = Run(session,
        "SELECT count(CASE WHEN _op = 't' THEN 1 END), count(_unchanged_columns), count(*) FROM " +
        std::string(kChangesName));
    const Batch& row = facts.batches.at(0);
    if (row.column(0)->ValueToString(0) != "0") {
      SILT_THROW(CDC_SOURCE_FAILED,
                 {{"source", "PostgreSQL"},
                  {"message", "table " + table.QualifiedName() +
                                  " was truncated; a table kept as SCD type 2 cannot follow a TRUNCATE "
                                  "(its history would have to end every row at once): mirror it as type 1, "
                                  "or recreate the target"}});
    }
    bool any_unchanged = row.column(1)->ValueToString(0) != "0";
    int64_t changes = std::stoll(row.column(2)->ValueToString(0));

    std::string partition;
    std::string changes_partition;
    std::string join;
    for (const std::string& key : keys) {
      partition += (partition.empty() ? "" : ", ") + sql::QuoteIdentifier(key);
      changes_partition += (changes_partition.empty() ? "" : ", ") + std::string("c.") + sql::QuoteIdentifier(key);
      join += (join.empty() ? "" : " AND ") + std::string("c.") + sql::QuoteIdentifier(key) + " <=> cur." + sql::QuoteIdentifier(key);
    }
    std::string select;
    for (const CdcTable::Column& column : table.columns) {
      std::string name = sql::QuoteIdentifier(column.name);
      std::string value = "c." + name;
      if (any_unchanged && !column.is_key && MayBeToasted(*column.parser->spark_type())) {
        value = "CASE WHEN array_contains(coalesce(c._unchanged_columns, array()), " + Quoted(column.name) +
                ") THEN coalesce(last_value(CASE WHEN array_contains(coalesce(c._unchanged_columns, array()), " +
                Quoted(column.name) + ") THEN NULL ELSE struct(c." + name + " AS v) END) IGNORE NULLS OVER (PARTITION BY " +
                changes_partition + " ORDER BY c._lsn, c._seq ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), "
                "struct(cur." + name + " AS v)).v ELSE c." + name + " END";
      }
      select += (select.empty() ? "" : ", ") + value + " AS " + name;
    }
    std::string changes_sql = "SELECT " + select + ", c._op, c._lsn, c._seq FROM " + std::string(kChangesName) + " c";
    if (any_unchanged) {
      changes_sql += " LEFT JOIN (SELECT * FROM " + target.target + " WHERE `__END_AT` IS NULL) cur ON " + join;
    }
    std::string columns;
    for (const CdcTable::Column& column : table.columns) columns += sql::QuoteIdentifier(column.name) + ", ";
    std::string batch_sql = "SELECT " + columns + "_lsn AS `" +
                            std::string(stream::kCdcSequenceColumn) + "`, _op = 'd' AS `" +
                            std::string(stream::kCdcDeleteColumn) + "`, false AS `" +
                            std::string(stream::kCdcTruncateColumn) + "` FROM (SELECT *, row_number() OVER (PARTITION BY " +
                            partition + ", _lsn ORDER BY _seq DESC) AS __silt_rank FROM (" + changes_sql +
                            ")) WHERE __silt_rank = 1";
    auto& sink = type2_sinks_[index];
    if (sink == nullptr) {
      std::string key_list;
      for (const std::string& key : keys) key_list += (key_list.empty() ? "" : ", ") + sql::QuoteIdentifier(key);
      // AUTO CDC is written as a flow's body; the body is what the sink takes.
      sql::Statement flow = sql::ParseStatement(
          "CREATE FLOW silt_cdc_mirror AS AUTO CDC INTO " + target.target + " FROM STREAM(" + std::string(kChangesName) + ") KEYS (" + key_list +
          ") APPLY AS DELETE WHEN _op = 'd' SEQUENCE BY _lsn STORED AS SCD TYPE 2");
      const sql::Statement& statement = *flow.flow_body;
      commands::StatementResult described = Run(session, batch_sql + " LIMIT 0");
      sql::Statement name = sql::ParseStatement("DESCRIBE TABLE " + target.target);
      sql::TableSource resolved = session.ResolveTable(name.name, {});
      sink = stream::MakeAutoCdcSink(
          session, statement, resolved, *described.schema,
          io::JoinPath(io::JoinPath(io::JoinPath(spec_.checkpoint_location, "state"), "scd2"), table.QualifiedName()));
    }
    stream::BatchContext context = batch;
    context.query_id = batch.query_id + ":" + table.QualifiedName();
    context.query_sql = batch_sql;
    context.query = sql::ParseStatement(batch_sql).query;
    sink->AddBatch(context);
    return changes;
  }

  PostgresCdcSource& source_;
  PostgresMirrorSpec spec_;
  std::map<size_t, std::unique_ptr<stream::Sink>> type2_sinks_;
};

}  // namespace

std::unique_ptr<stream::Source> MakeMirrorSource(std::shared_ptr<io::FileSystem> fs,
                                                 const PostgresMirrorSpec& spec) {
  return std::make_unique<MirrorSource>(std::move(fs), spec);
}

void RegisterPostgresCdcSource() {
  static std::once_flag once;
  std::call_once(once, [] {
    stream::RegisterSourceFunction(
        "postgres_cdc", [](sql::SessionState& session, const std::vector<std::string>& arguments,
                           const stream::StreamOptions& options) -> std::unique_ptr<stream::Source> {
          if (arguments.size() > 1) {
            SILT_THROW(WRONG_NUM_ARGS, {{"functionName", "`postgres_cdc`"},
                                        {"expectedNum", "0 or 1"},
                                        {"actualNum", std::to_string(arguments.size())}});
          }
          std::map<std::string, std::string> values = options.values();
          if (!arguments.empty()) values["connection"] = arguments[0];
          return std::make_unique<PostgresCdcSource>(session.fs(), PostgresCdcOptions::FromMap(values));
        });
  });
}

std::unique_ptr<stream::Sink> MakeMirrorSink(stream::Source& source, const PostgresMirrorSpec& spec) {
  auto* cdc = dynamic_cast<PostgresCdcSource*>(&source);
  SILT_CHECK(cdc != nullptr, "a mirror sink needs the mirror's source");
  return std::make_unique<MirrorSink>(*cdc, spec);
}

}  // namespace silt::cdc
