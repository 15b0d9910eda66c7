#include "silt/cdc/postgres_change_reader.h"

#include <chrono>
#include <thread>

#include "silt/base/ascii.h"
#include "silt/base/check.h"
#include "silt/base/error_class.h"
#include "silt/cdc/postgres_connection.h"
#include "silt/cdc/replication_protocol.h"
#include "silt/io/path.h"
#include "silt/log/data_file_writer.h"
#include "silt/log/table_writer.h"
#include "silt/log/transaction.h"
#include "silt/types/schema_json.h"
#include "silt/vector/batch.h"

namespace silt::cdc {

namespace {

constexpr const char* kStartTag = "silt.cdc.start";
constexpr const char* kEndTag = "silt.cdc.end";
constexpr int64_t kRowsPerFlush = 65536;
// A transaction with more changes than this is appended to the stages as it arrives.
constexpr size_t kTransactionChangesInMemory = 65536;
// How long the stream may stay silent before the reader asks the server where it is.
constexpr int kPollMs = 50;
// How long the reader waits for the server to report a position past the target.
constexpr int64_t kCatchUpTimeoutMs = 60000;
// How long a lost server is waited for before the stream fails.
constexpr int64_t kReconnectForMs = 120000;

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int64_t PostgresNow() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
             .count() -
         kPostgresEpochOffsetMicros;
}

[[noreturn]] void ThrowBadOption(const std::string& option, const std::string& value,
                                 const std::string& reason) {
  SILT_THROW(INVALID_STREAMING_OPTION, {{"option", option}, {"value", value}, {"reason", reason}});
}

std::vector<std::string> SplitList(const std::string& text) {
  std::vector<std::string> items;
  std::string item;
  auto flush = [&] {
    size_t begin = item.find_first_not_of(" \t\n");
    size_t end = item.find_last_not_of(" \t\n");
    if (begin != std::string::npos) items.push_back(item.substr(begin, end - begin + 1));
    item.clear();
  };
  for (char c : text) {
    if (c == ',') flush();
    else item.push_back(c);
  }
  flush();
  return items;
}

}  // namespace

PostgresCdcOptions PostgresCdcOptions::FromMap(const std::map<std::string, std::string>& map) {
  PostgresCdcOptions options;
  bool has_tables = false;
  for (const auto& [raw_key, value] : map) {
    std::string key = AsciiLower(raw_key);
    if (key == "connection" || key == "url") {
      options.connection = value;
    } else if (key == "tables" || key == "table") {
      options.tables = SplitList(value);
      has_tables = true;
    } else if (key == "slot") {
      options.slot = value;
    } else if (key == "publication") {
      options.publication = value;
    } else if (key == "maxchangesperbatch") {
      char* end = nullptr;
      long long count = std::strtoll(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || count <= 0) {
        ThrowBadOption(raw_key, value, "must be a positive integer");
      }
      options.max_changes_per_batch = count;
    }
  }
  if (options.connection.empty()) ThrowBadOption("connection", "", "a PostgreSQL connection string or URI is required");
  if (!has_tables || options.tables.empty()) ThrowBadOption("tables", "", "name at least one table");
  // Slot names are lower-case letters, digits and underscores (PostgreSQL's rule).
  for (char c : options.slot) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) {
      ThrowBadOption("slot", options.slot, "a slot name has only lower-case letters, digits and underscores");
    }
  }
  if (options.slot.empty()) ThrowBadOption("slot", "", "must not be empty");
  if (options.publication.empty()) ThrowBadOption("publication", "", "must not be empty");
  return options;
}

std::vector<std::string> CdcTable::KeyColumns() const {
  std::vector<std::string> keys;
  for (const Column& column : columns) {
    if (column.is_key) keys.push_back(column.name);
  }
  return keys;
}

// One source transaction, held until its commit so that a batch only ever holds whole ones.
struct PostgresChangeReader::Transaction {
  struct Change {
    size_t table = 0;
    char op = 'c';
    // Per column: nullopt for NULL; `unchanged` marks TOASTed values the server did not send.
    std::vector<std::optional<std::string>> values;
    std::vector<bool> unchanged;
    std::optional<std::vector<std::optional<std::string>>> before;
  };
  Lsn commit_lsn = 0;
  int64_t commit_time = 0;  // µs since the Unix epoch
  std::vector<Change> changes;
  // Changes of a large transaction already appended to the stages (its first ones), so that
  // memory stays bounded; `changes` holds the ones after them.
  int64_t staged = 0;
};

// The rows of one source table in the batch being staged.
struct PostgresChangeReader::TableStage {
  const CdcTable* table = nullptr;
  std::string path;
  std::shared_ptr<const log::Snapshot> snapshot;
  std::vector<std::unique_ptr<VectorBuilder>> builders;
  int64_t buffered_rows = 0;
  std::unique_ptr<log::DataFileWriter> writer;
  std::vector<log::AddFile> files;
  std::shared_ptr<io::FileSystem> fs;

  void Reset() {
    builders.clear();
    for (const Field& field : table->change_schema->fields()) {
      builders.push_back(std::make_unique<VectorBuilder>(field.type));
    }
    buffered_rows = 0;
    writer.reset();
    files.clear();
  }

  void Flush() {
    if (buffered_rows == 0) return;
    if (writer == nullptr) writer = log::DataFileWriter::Make(fs, path, snapshot->metadata());
    std::vector<VectorPtr> columns;
    for (auto& builder : builders) columns.push_back(builder->Finish());
    writer->Write(Batch(table->change_schema, std::move(columns), buffered_rows));
    buffered_rows = 0;
  }

  std::vector<log::AddFile> Finish() {
    Flush();
    if (writer != nullptr) {
      for (log::AddFile& file : writer->Finish()) files.push_back(std::move(file));
      writer.reset();
    }
    return std::move(files);
  }

  // Appends one change row: the table's columns, then _op, _lsn, _seq, _commit_timestamp,
  // _unchanged_columns and (REPLICA IDENTITY FULL) _before.
  void Append(const Transaction::Change& change, Lsn lsn, int64_t seq, int64_t commit_time) {
    const auto& columns = table->columns;
    size_t n = columns.size();
    for (size_t i = 0; i < n; ++i) {
      if (!change.values.empty() && change.values[i] && !change.unchanged[i]) {
        columns[i].parser->Append(*builders[i], *change.values[i]);
      } else {
        builders[i]->AppendNull();
      }
    }
    builders[n]->AppendString(std::string_view(&change.op, 1));
    builders[n + 1]->AppendInt(static_cast<int64_t>(lsn));
    builders[n + 2]->AppendInt(seq);
    builders[n + 3]->AppendInt(commit_time);
    VectorBuilder& unchanged = *builders[n + 4];
    bool any_unchanged = false;
    for (size_t i = 0; i < change.unchanged.size(); ++i) {
      if (change.unchanged[i]) {
        unchanged.child(0).AppendString(columns[i].name);
        any_unchanged = true;
      }
    }
    if (any_unchanged) unchanged.FinishList();
    else unchanged.AppendNull();
    if (table->replica_identity == 'f') {
      VectorBuilder& before = *builders[n + 5];
      if (change.before) {
        for (size_t i = 0; i < n; ++i) {
          const auto& value = (*change.before)[i];
          if (value) columns[i].parser->Append(before.child(i), *value);
          else before.child(i).AppendNull();
        }
        before.AppendStruct();
      } else {
        before.AppendNull();
      }
    }
    if (++buffered_rows >= kRowsPerFlush) Flush();
  }
};

PostgresChangeReader::PostgresChangeReader(std::shared_ptr<io::FileSystem> fs,
                                           PostgresCdcOptions options)
    : fs_(std::move(fs)), options_(std::move(options)) {
  sql_ = PostgresConnection::Open(options_.connection, /*replication=*/false);
  DescribeTables();
  EnsurePublication();
}

void PostgresChangeReader::OpenStaging(const std::string& staging_root) {
  staging_root_ = io::TrimTrailingSeparators(staging_root);
  stages_.clear();
  OpenStagingTables();
}

void PostgresChangeReader::CheckStagingOpen() const {
  SILT_CHECK(!stages_.empty() || tables_.empty(), "the change stream's staging is opened before its batches");
}

void PostgresChangeReader::Disconnect() noexcept {
  StopStreaming();
  sql_.reset();
}

void PostgresChangeReader::ConfirmApplied(Lsn lsn) {
  if (replication_ == nullptr) return;  // the next stream sends it when it starts
  try {
    SendStatus(lsn, /*reply=*/false);
  } catch (const Error&) {
    // Best effort: the next batch confirms it again, on a new connection if need be.
  }
}

PostgresChangeReader::~PostgresChangeReader() = default;

std::string PostgresChangeReader::StagingPath(size_t table) const {
  return io::JoinPath(staging_root_, tables_[table].QualifiedName());
}

void PostgresChangeReader::DescribeTables() {
  for (const std::string& spec : options_.tables) {
    CdcTable table;
    size_t dot = spec.find('.');
    table.schema_name = dot == std::string::npos ? "public" : spec.substr(0, dot);
    table.table_name = dot == std::string::npos ? spec : spec.substr(dot + 1);
    PostgresResult relation = sql_->Execute(
        "SELECT c.oid, c.relreplident FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = $1 AND c.relname = $2 AND c.relkind IN ('r', 'p')",
        {table.schema_name, table.table_name});
    if (relation.rows() != 1) {
      SILT_THROW(TABLE_OR_VIEW_NOT_FOUND, {{"relationName", "`" + table.schema_name + "`.`" + table.table_name + "`"}});
    }
    table.oid = static_cast<uint32_t>(std::stoul(std::string(relation.Value(0, 0))));
    table.replica_identity = relation.Value(0, 1).empty() ? 'd' : relation.Value(0, 1)[0];
    PostgresResult columns = sql_->Execute(
        "SELECT a.attname, "
        "       CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE a.atttypid END, "
        "       CASE WHEN t.typtype = 'd' THEN t.typtypmod ELSE a.atttypmod END, "
        "       b.typtype, CASE WHEN b.typcategory = 'A' THEN b.typelem ELSE 0 END, "
        "       coalesce(e.typtype, 'b'), "
        "       coalesce(a.attnum = ANY (i.indkey), false) "
        "FROM pg_attribute a "
        "JOIN pg_type t ON t.oid = a.atttypid "
        "JOIN pg_type b ON b.oid = CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE a.atttypid END "
        "LEFT JOIN pg_type e ON e.oid = b.typelem AND b.typcategory = 'A' "
        "LEFT JOIN pg_index i ON i.indrelid = a.attrelid AND i.indisprimary "
        "WHERE a.attrelid = $1 AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = '' "
        "ORDER BY a.attnum",
        {std::to_string(table.oid)});
    std::vector<Field> fields;
    for (int row = 0; row < columns.rows(); ++row) {
      PostgresType type;
      type.oid = static_cast<uint32_t>(std::stoul(std::string(columns.Value(row, 1))));
      type.type_modifier = std::stoi(std::string(columns.Value(row, 2)));
      type.type_type = columns.Value(row, 3).empty() ? 'b' : columns.Value(row, 3)[0];
      type.element_oid = static_cast<uint32_t>(std::stoul(std::string(columns.Value(row, 4))));
      type.element_type_type = columns.Value(row, 5).empty() ? 'b' : columns.Value(row, 5)[0];
      CdcTable::Column column;
      column.name = std::string(columns.Value(row, 0));
      column.is_key = columns.Value(row, 6) == "t";
      column.parser = std::make_shared<PostgresValueParser>(type, column.name);
      if (column.name.size() > 1 && column.name[0] == '_' &&
          (column.name == kOpColumn || column.name == kLsnColumn || column.name == kSeqColumn ||
           column.name == kCommitTimestampColumn || column.name == kUnchangedColumnsColumn ||
           column.name == kBeforeColumn)) {
        SILT_THROW(CDC_SOURCE_FAILED,
                   {{"source", "PostgreSQL " + sql_->description()},
                    {"message", "table " + table.QualifiedName() + " has a column named " + column.name +
                                    ", which change rows use for themselves"}});
      }
      fields.push_back(Field{column.name, column.parser->spark_type(), true, {}});
      table.columns.push_back(std::move(column));
    }
    std::vector<Field> before_fields = fields;
    fields.push_back(Field{kOpColumn, StringType(), false, {}});
    fields.push_back(Field{kLsnColumn, LongType(), false, {}});
    fields.push_back(Field{kSeqColumn, LongType(), false, {}});
    fields.push_back(Field{kCommitTimestampColumn, TimestampType(), false, {}});
    fields.push_back(Field{kUnchangedColumnsColumn, ListType(StringType()), true, {}});
    if (table.replica_identity == 'f') {
      fields.push_back(Field{kBeforeColumn, silt::StructType(before_fields), true, {}});
    }
    table.change_schema = std::make_shared<const Schema>(fields);
    table_by_oid_[table.oid] = tables_.size();
    tables_.push_back(std::move(table));
  }
}

void PostgresChangeReader::EnsurePublication() {
  PostgresResult existing =
      sql_->Execute("SELECT schemaname, tablename FROM pg_publication_tables WHERE pubname = $1",
                    {options_.publication});
  PostgresResult publication =
      sql_->Execute("SELECT 1 FROM pg_publication WHERE pubname = $1", {options_.publication});
  std::vector<std::string> missing;
  for (const CdcTable& table : tables_) {
    bool found = false;
    for (int row = 0; row < existing.rows() && !found; ++row) {
      found = existing.Value(row, 0) == table.schema_name && existing.Value(row, 1) == table.table_name;
    }
    if (!found) missing.push_back(sql_->QuoteIdentifier(table.schema_name) + "." + sql_->QuoteIdentifier(table.table_name));
  }
  if (missing.empty()) return;
  std::string list;
  for (const std::string& name : missing) list += (list.empty() ? "" : ", ") + name;
  if (publication.rows() == 0) {
    sql_->Execute("CREATE PUBLICATION " + sql_->QuoteIdentifier(options_.publication) + " FOR TABLE " + list);
  } else {
    sql_->Execute("ALTER PUBLICATION " + sql_->QuoteIdentifier(options_.publication) + " ADD TABLE " + list);
  }
}

void PostgresChangeReader::OpenStagingTables() {
  for (size_t i = 0; i < tables_.size(); ++i) {
    auto stage = std::make_unique<TableStage>();
    stage->table = &tables_[i];
    stage->path = StagingPath(i);
    stage->fs = fs_;
    if (!fs_->Stat(io::JoinPath(stage->path, "_delta_log")).has_value()) {
      log::CreateTableOptions create;
      create.schema = *tables_[i].change_schema;
      log::CreateTable(fs_, stage->path, create);
    }
    stage->snapshot = log::Snapshot::Load(fs_, stage->path);
    const Schema& staged = stage->snapshot->schema();
    const Schema& wanted = *tables_[i].change_schema;
    if (!staged.Equals(wanted)) {
      // A column added at the source since the stage was made: the stage takes the new schema
      // (its older files read the new column as NULL). Anything else is a change the staged
      // rows cannot follow.
      for (const Field& field : staged.fields()) {
        int index = wanted.FieldIndex(field.name, /*case_sensitive=*/true);
        if (index < 0 || !wanted.field(static_cast<size_t>(index)).type->Equals(*field.type)) {
          SILT_THROW(CDC_SOURCE_SCHEMA_CHANGED,
                     {{"table", tables_[i].QualifiedName()},
                      {"change", "column " + field.name + (index < 0 ? " was dropped" : " changed its type")}});
        }
      }
      auto txn = log::Transaction::Start(stage->snapshot);
      log::Metadata metadata = txn->metadata();
      metadata.schema_string = ToDeltaSchemaJson(wanted);
      txn->UpdateMetadata(metadata);
      txn->SetOperation("CHANGE COLUMN", {}, {});
      txn->Commit();
      stage->snapshot = log::Snapshot::Load(fs_, stage->path);
    }
    stage->Reset();
    stages_.push_back(std::move(stage));
  }
}

void PostgresChangeReader::ResetStages() {
  for (auto& stage : stages_) stage->Reset();
}

void PostgresChangeReader::StageTransaction(const Transaction& transaction) {
  int64_t seq = transaction.staged;
  for (const Transaction::Change& change : transaction.changes) {
    stages_[change.table]->Append(change, transaction.commit_lsn, seq++, transaction.commit_time);
  }
}

void PostgresChangeReader::CommitStages(Lsn start, Lsn end) {
  std::string start_text = FormatLsn(start);
  std::string end_text = FormatLsn(end);
  for (auto& stage : stages_) {
    std::vector<log::AddFile> files = stage->Finish();
    auto snapshot = log::Snapshot::Load(fs_, stage->path);
    auto txn = log::Transaction::Start(snapshot);
    std::vector<std::string> obsolete;
    for (const log::AddFile& file : snapshot->files()) {
      // Batches up to `start` are applied (the caller only asks for the batch after a committed
      // one); a batch staged from `start` or later was never planned (this one replaces it).
      txn->RemoveLiveFile(file);
      obsolete.push_back(file.path);
    }
    for (log::AddFile& file : files) {
      file.tags = log::StringMap{{kStartTag, start_text}, {kEndTag, end_text}};
      txn->Add(std::move(file));
    }
    txn->SetOperation("WRITE", {{"mode", "\"Append\""}}, {});
    log::CommitOptions commit;
    commit.post_commit_checkpoint = true;
    txn->Commit(commit);
    for (const std::string& path : obsolete) fs_->Delete(io::JoinPath(stage->path, path));
    stage->Reset();
  }
}

std::shared_ptr<const log::Snapshot> PostgresChangeReader::StagedBatch(size_t table, Lsn start, Lsn end) {
  CheckStagingOpen();
  auto snapshot = log::Snapshot::Load(fs_, StagingPath(table));
  std::string start_text = FormatLsn(start);
  std::string end_text = FormatLsn(end);
  std::vector<log::AddFile> files;
  for (const log::AddFile& file : snapshot->files()) {
    if (!file.tags) continue;
    const std::string* s = log::FindValue(*file.tags, kStartTag);
    const std::string* e = log::FindValue(*file.tags, kEndTag);
    if (s != nullptr && e != nullptr && *s == start_text && *e == end_text) {
      files.push_back(file);
    }
  }
  return snapshot->WithFiles(std::move(files));
}

Lsn PostgresChangeReader::StageSnapshot() {
  StopStreaming();
  // Nothing of this slot was ever applied (no batch has committed), so a slot left by an
  // earlier attempt is dropped: its exported snapshot died with that attempt's connection.
  sql_->Execute("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1",
                {options_.slot});
  auto replication = PostgresConnection::Open(options_.connection, /*replication=*/true);
  PostgresResult slot = replication->Execute("CREATE_REPLICATION_SLOT " + options_.slot +
                                             " LOGICAL pgoutput EXPORT_SNAPSHOT");
  auto consistent_point = ParseLsn(slot.Value(0, 1));
  std::string snapshot_name(slot.Value(0, 2));
  if (!consistent_point || snapshot_name.empty()) {
    SILT_THROW(CDC_SOURCE_FAILED, {{"source", "PostgreSQL " + replication->description()},
                                   {"message", "CREATE_REPLICATION_SLOT returned no snapshot"}});
  }
  // The snapshot's rows, read in the snapshot the slot exported (valid while `replication`
  // stays open and idle): exactly the data before the slot's first change.
  auto reader = PostgresConnection::Open(options_.connection, /*replication=*/false);
  reader->Execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
  reader->Execute("SET TRANSACTION SNAPSHOT " + reader->QuoteLiteral(snapshot_name));
  PostgresResult now = reader->Execute(
      "SELECT (extract(epoch FROM now()) * 1000000)::bigint");
  Transaction snapshot_rows;
  snapshot_rows.commit_lsn = *consistent_point;
  snapshot_rows.commit_time = std::stoll(std::string(now.Value(0, 0)));
  int64_t seq = 0;
  for (size_t t = 0; t < tables_.size(); ++t) {
    const CdcTable& table = tables_[t];
    std::string columns;
    for (const auto& column : table.columns) {
      columns += (columns.empty() ? "" : ", ") + reader->QuoteIdentifier(column.name);
    }
    if (columns.empty()) continue;
    reader->Execute("DECLARE silt_snapshot NO SCROLL CURSOR FOR SELECT " + columns + " FROM " +
                    reader->QuoteIdentifier(table.schema_name) + "." + reader->QuoteIdentifier(table.table_name));
    for (;;) {
      PostgresResult rows = reader->Execute("FETCH 10000 FROM silt_snapshot");
      if (rows.rows() == 0) break;
      Transaction::Change change;
      change.table = t;
      change.op = 'r';
      change.unchanged.assign(table.columns.size(), false);
      change.values.resize(table.columns.size());
      for (int row = 0; row < rows.rows(); ++row) {
        for (size_t c = 0; c < table.columns.size(); ++c) {
          if (rows.IsNull(row, static_cast<int>(c))) change.values[c].reset();
          else change.values[c] = std::string(rows.Value(row, static_cast<int>(c)));
        }
        stages_[t]->Append(change, *consistent_point, seq++, snapshot_rows.commit_time);
      }
    }
    reader->Execute("CLOSE silt_snapshot");
  }
  reader->Execute("COMMIT");
  CommitStages(0, *consistent_point);
  return *consistent_point;
}

void PostgresChangeReader::StopStreaming() {
  replication_.reset();
  streaming_from_ = 0;
}

void PostgresChangeReader::StartStreaming(Lsn start) {
  StopStreaming();
  replication_ = PostgresConnection::Open(options_.connection, /*replication=*/true);
  std::string publication = options_.publication;
  // publication_names is a list of names, each quoted as an identifier inside the literal.
  std::string quoted;
  for (char c : publication) {
    if (c == '"') quoted += "\"\"";
    else if (c == '\'') quoted += "''";
    else quoted += c;
  }
  replication_->StartCopyBoth("START_REPLICATION SLOT " + options_.slot + " LOGICAL " + FormatLsn(start) +
                              " (proto_version '1', publication_names '\"" + quoted + "\"')");
  streaming_from_ = start;
  flushed_ = 0;
  column_positions_.clear();  // the server sends each relation again in a new session
  SendStatus(start, /*reply=*/false);
}

void PostgresChangeReader::SendStatus(Lsn flushed, bool reply) {
  if (flushed > flushed_) flushed_ = flushed;
  replication_->WriteCopyData(EncodeStandbyStatusUpdate(flushed_, flushed_, PostgresNow(), reply));
}

Lsn PostgresChangeReader::CurrentWalPosition() {
  // A marker written to the log now (a non-transactional logical message, which pgoutput does
  // not forward): every transaction committed before this call lies before it, and the stream
  // is known to have reached it when the server reports a position past it. The write and
  // flush positions would not do: with asynchronous commit they lag behind committed
  // transactions, and they may point where no record will ever end.
  if (sql_ == nullptr) sql_ = PostgresConnection::Open(options_.connection, /*replication=*/false);
  PostgresResult position = sql_->Execute("SELECT pg_logical_emit_message(false, 'silt', '')");
  return ParseLsn(position.Value(0, 0)).value_or(0);
}

void PostgresChangeReader::LimitToCurrentPosition() {
  limit_ = CurrentWalPosition();
}

std::optional<Lsn> PostgresChangeReader::StageNextBatch(Lsn start) {
  CheckStagingOpen();
  // A server that restarts or a connection that drops is waited for: the attempt is dropped
  // (nothing of it was staged for good) and made again on new connections, for up to
  // kReconnectForMs. Other errors (a schema change, a bad value) are not retried.
  int64_t give_up = NowMs() + kReconnectForMs;
  int64_t pause_ms = 250;
  for (;;) {
    try {
      return TryStageNextBatch(start);
    } catch (const Error& error) {
      std::string_view cls = error.error_class();
      bool connection_lost = cls == "CDC_SOURCE_CONNECTION_FAILED" ||
                             (cls == "CDC_SOURCE_FAILED" && (sql_ == nullptr || !sql_->IsAlive() ||
                                                             (replication_ != nullptr && !replication_->IsAlive())));
      if (!connection_lost || NowMs() + pause_ms > give_up) throw;
    }
    StopStreaming();
    ResetStages();
    sql_.reset();
    std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms));
    pause_ms = std::min<int64_t>(pause_ms * 2, 4000);
    try {
      sql_ = PostgresConnection::Open(options_.connection, /*replication=*/false);
    } catch (const Error&) {
      if (NowMs() + pause_ms > give_up) throw;
    }
  }
}

std::optional<Lsn> PostgresChangeReader::TryStageNextBatch(Lsn start) {
  if (sql_ == nullptr) sql_ = PostgresConnection::Open(options_.connection, /*replication=*/false);
  if (start == 0) return StageSnapshot();
  // Everything up to `start` is applied: the server may let it go. The stream resumes there
  // (after a restart or a replayed batch, the stream's position is no longer known).
  if (replication_ == nullptr || streaming_from_ != start) StartStreaming(start);
  else SendStatus(start, /*reply=*/false);

  Lsn target;
  if (limit_) {
    target = *limit_;
  } else {
    target = CurrentWalPosition();
  }
  if (target <= start) return std::nullopt;

  ResetStages();
  std::optional<Transaction> open;  // the transaction being received
  Lsn end = start;                  // the end of the last whole transaction taken
  int64_t changes = 0;
  bool schema_changed = false;
  std::string schema_change_table;
  std::string schema_change;
  int64_t deadline = NowMs() + kCatchUpTimeoutMs;
  bool asked = false;
  while (true) {
    std::optional<std::string> frame = replication_->ReadCopyData(kPollMs);
    if (!frame) {
      if (NowMs() > deadline) break;
      // Silence: ask the server where it is (it answers with a keepalive).
      if (!asked) {
        SendStatus(start, /*reply=*/true);
        asked = true;
      }
      continue;
    }
    asked = false;
    ReplicationFrame decoded = DecodeReplicationFrame(*frame);
    if (auto* keepalive = std::get_if<PrimaryKeepalive>(&decoded)) {
      if (keepalive->reply_requested) SendStatus(start, /*reply=*/false);
      if (!open && keepalive->wal_end >= target) break;  // everything before target was sent
      continue;
    }
    deadline = NowMs() + kCatchUpTimeoutMs;
    const XLogData& data = std::get<XLogData>(decoded);
    PgOutputMessage message = DecodePgOutput(data.payload);
    if (auto* begin = std::get_if<BeginMessage>(&message)) {
      if (stop_before_ && begin->final_lsn == *stop_before_ && end > start) break;
      open.emplace();
      open->commit_lsn = begin->final_lsn;
      open->commit_time = begin->commit_time + kPostgresEpochOffsetMicros;
    } else if (auto* commit = std::get_if<CommitMessage>(&message)) {
      if (!open) continue;
      if (commit->end_lsn > start) {
        StageTransaction(*open);
        changes += open->staged + static_cast<int64_t>(open->changes.size());
        end = commit->end_lsn;
      }
      open.reset();
      if (changes >= options_.max_changes_per_batch || end >= target) break;
    } else if (auto* relation = std::get_if<RelationMessage>(&message)) {
      auto it = table_by_oid_.find(relation->oid);
      if (it == table_by_oid_.end()) continue;
      const CdcTable& table = tables_[it->second];
      // The stream's columns as of this point of the log, matched to the table's by name: an
      // older transaction may have fewer columns (they read as NULL); a column the table does
      // not know was added after the reader described the table.
      std::vector<int> positions;
      std::string unknown;
      for (const RelationColumn& column : relation->columns) {
        int found = -1;
        for (size_t i = 0; i < table.columns.size(); ++i) {
          if (table.columns[i].name == column.name) found = static_cast<int>(i);
        }
        if (found < 0) unknown += (unknown.empty() ? "" : ", ") + column.name;
        positions.push_back(found);
      }
      if (!unknown.empty()) {
        schema_changed = true;
        schema_change_table = table.QualifiedName();
        schema_change = "new column(s) " + unknown;
        break;  // the transaction that made the change is left for the restarted reader
      }
      column_positions_[relation->oid] = std::move(positions);
    } else if (auto* row = std::get_if<RowMessage>(&message)) {
      if (!open) continue;
      auto it = table_by_oid_.find(row->relation_oid);
      if (it == table_by_oid_.end()) continue;
      const CdcTable& table = tables_[it->second];
      auto positions = column_positions_.find(row->relation_oid);
      if (positions == column_positions_.end()) {
        SILT_THROW(CDC_SOURCE_FAILED, {{"source", "PostgreSQL"},
                                       {"message", "a change of " + table.QualifiedName() + " came before its relation message"}});
      }
      auto to_values = [&](const Tuple& tuple, std::vector<bool>* unchanged) {
        std::vector<std::optional<std::string>> values(table.columns.size());
        if (unchanged) unchanged->assign(table.columns.size(), false);
        for (size_t i = 0; i < tuple.size() && i < positions->second.size(); ++i) {
          int column = positions->second[i];
          if (column < 0) continue;
          if (tuple[i].kind == TupleValue::Kind::kText) values[column] = std::string(tuple[i].bytes);
          else if (tuple[i].kind == TupleValue::Kind::kUnchangedToast && unchanged) (*unchanged)[column] = true;
        }
        return values;
      };
      auto full_before = [&]() -> std::optional<std::vector<std::optional<std::string>>> {
        if (row->old_kind != 'O') return std::nullopt;
        return to_values(row->old_tuple, nullptr);
      };
      Transaction::Change change;
      change.table = it->second;
      if (row->kind == 'I') {
        change.op = 'c';
        change.values = to_values(row->new_tuple, &change.unchanged);
        open->changes.push_back(std::move(change));
      } else if (row->kind == 'D') {
        change.op = 'd';
        change.values = to_values(row->old_tuple, &change.unchanged);
        change.before = full_before();
        open->changes.push_back(std::move(change));
      } else {
        std::vector<bool> unused;
        // A changed primary key is a delete of the old key and an insert of the new row, as
        // Debezium emits it; 'K' is only sent when the key changed.
        bool key_changed = row->old_kind == 'K';
        if (row->old_kind == 'O') {
          auto old_values = to_values(row->old_tuple, &unused);
          auto new_values = to_values(row->new_tuple, &unused);
          for (size_t i = 0; i < table.columns.size(); ++i) {
            if (table.columns[i].is_key && old_values[i] != new_values[i]) {
              key_changed = true;
            }
          }
        }
        if (key_changed) {
          Transaction::Change removed;
          removed.table = it->second;
          removed.op = 'd';
          removed.values = to_values(row->old_tuple, &removed.unchanged);
          removed.before = full_before();
          open->changes.push_back(std::move(removed));
          change.op = 'c';
        } else {
          change.op = 'u';
          change.before = full_before();
        }
        change.values = to_values(row->new_tuple, &change.unchanged);
        open->changes.push_back(std::move(change));
      }
      if (open->changes.size() >= kTransactionChangesInMemory && open->commit_lsn > start) {
        StageTransaction(*open);
        open->staged += static_cast<int64_t>(open->changes.size());
        open->changes.clear();
      }
    } else if (auto* truncate = std::get_if<TruncateMessage>(&message)) {
      if (!open) continue;
      for (uint32_t oid : truncate->relation_oids) {
        auto it = table_by_oid_.find(oid);
        if (it == table_by_oid_.end()) continue;
        Transaction::Change change;
        change.table = it->second;
        change.op = 't';
        change.unchanged.assign(tables_[it->second].columns.size(), false);
        open->changes.push_back(std::move(change));
      }
    }
  }
  if (open && open->staged > 0) {
    // A large transaction was left half way (a schema change in it, or the stream went
    // silent): its first changes are in the stages, so the whole attempt is dropped. After a
    // schema change the next attempt ends its batch before that transaction.
    if (schema_changed) stop_before_ = open->commit_lsn;
    StopStreaming();
    ResetStages();
    return std::nullopt;
  }
  if (schema_changed) {
    // The stream stopped inside a transaction: it must resume from `end` when asked again.
    StopStreaming();
    if (end == start) {
      ResetStages();
      SILT_THROW(CDC_SOURCE_SCHEMA_CHANGED, {{"table", schema_change_table}, {"change", schema_change}});
    }
  } else if (open) {
    // Timed out inside a transaction: drop its partial rows; the stream resumes after `end`.
    StopStreaming();
  }
  if (end == start) {
    ResetStages();
    return std::nullopt;
  }
  if (replication_ != nullptr) streaming_from_ = end;
  CommitStages(start, end);
  return end;
}

}  // namespace silt::cdc
