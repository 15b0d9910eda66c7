#include "silt/cdc/postgres_cdc_source.h"
#include "silt/session.h"

#include <cstdlib>
#include <mutex>
#include <set>

#include "silt/api/session_internal.h"
#include "silt/api/sql_text_internal.h"
#include "silt/base/error_class.h"
#include "silt/commands/statement_executor.h"
#include "silt/io/batch_delete.h"
#include "silt/io/file_system.h"
#include "silt/io/path.h"
#include "silt/io/storage_file_system.h"
#include "silt/io/storage_options.h"
#include "silt/io/storage_statistics.h"
#include "silt/sql/parser.h"
#include "silt/sql/session_state.h"
#include "silt/stream/streaming_table.h"

namespace silt {
namespace {

bool InDeltaLog(std::string_view path) {
  for (std::string_view rest = path; !rest.empty(); rest = io::ParentPath(rest)) {
    if (io::BaseName(rest) == "_delta_log") return true;
    if (io::ParentPath(rest) == rest) break;
  }
  return false;
}

// A folder that only a table's data files create: a Hive partition (`col=value`) or the change
// data folder.
bool IsDataFolder(std::string_view folder) {
  std::string_view name = io::BaseName(folder);
  return name.find('=') != std::string_view::npos || name == "_change_data";
}

// Counts the bytes written through a stream into the statement's progress.
class CountingStream final : public io::OutputStream {
 public:
  CountingStream(std::unique_ptr<io::OutputStream> inner, Progress& progress)
      : inner_(std::move(inner)), progress_(progress) {}
  void Write(const void* data, size_t length) override {
    inner_->Write(data, length);
    progress_.AddWritten(0, 0, static_cast<int64_t>(length));
  }
  void Sync() override { inner_->Sync(); }
  void Close() override { inner_->Close(); }
  uint64_t position() const override { return inner_->position(); }

 private:
  std::unique_ptr<io::OutputStream> inner_;
  Progress& progress_;
};


}  // namespace

namespace api {

// The session's file system: passes every call through, and records the files a statement
// creates outside any `_delta_log` (data, deletion-vector and change-data files), so that a
// cancelled statement can remove what it wrote and nothing committed. Counts them, and the
// bytes written, as the statement's progress.
class StatementFiles final : public io::FileSystem,
                             public io::BatchDeleting,
                             public io::StorageStatisticsSource {
 public:
  // Over the local disk and the object stores, by each path's scheme, which read `settings`.
  explicit StatementFiles(std::shared_ptr<io::StorageOptions> settings)
      : inner_(io::MakeStorageFileSystem(settings)), settings_(std::move(settings)) {}

  // The stores see the session's settings as they are when a statement starts (a SET of
  // spark.hadoop.fs.s3a.endpoint applies to the statements after it).
  void ShareSettings(const std::map<std::string, std::string>& conf) { settings_->ReplaceAll(conf); }

  // Where the bytes and files written are counted (the session state's progress).
  void CountInto(Progress& progress) { progress_ = &progress; }

  // Forgets the files of the previous statement.
  void Begin() {
    std::lock_guard<std::mutex> lock(mutex_);
    created_.clear();
    committed_ = false;
    commit_tried_ = false;
  }

  // Deletes the files the statement created, and the partition folders that leaves empty.
  // Best effort: the statement is failing already, and VACUUM removes what stays.
  // Nothing is removed once the statement has committed a version: its files are the table's.
  // With `only_before_commit`, nothing is removed once it has tried to commit: a commit whose
  // outcome is unknown (a store that failed to answer) may have made them the table's.
  void RemoveCreated(bool only_before_commit = false) {
    std::set<std::string> created;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (committed_ || (only_before_commit && commit_tried_)) return;
      created.swap(created_);
    }
    for (const std::string& path : created) {
      try {
        inner_->Delete(path);
        for (std::string folder(io::ParentPath(path)); IsDataFolder(folder);
             folder = std::string(io::ParentPath(folder))) {
          if (!inner_->DeleteEmptyFolder(folder)) break;
        }
      } catch (const Error&) {
      }
    }
  }

  std::optional<io::FileInfo> Stat(const std::string& path) override { return inner_->Stat(path); }
  std::vector<io::FileInfo> List(const std::string& dir, const std::string& start_after,
                                 bool recursive) override {
    return inner_->List(dir, start_after, recursive);
  }
  std::unique_ptr<io::RandomAccessFile> OpenRead(const std::string& path) override {
    return inner_->OpenRead(path);
  }
  std::unique_ptr<io::OutputStream> OpenWrite(const std::string& path) override {
    if (InDeltaLog(path)) return inner_->OpenWrite(path);
    // Only a new file is the statement's own: an overwritten one existed before it.
    bool is_new = !inner_->Stat(path).has_value();
    auto stream = std::make_unique<CountingStream>(inner_->OpenWrite(path), *progress_);
    if (is_new) {
      std::lock_guard<std::mutex> lock(mutex_);
      created_.insert(path);
    }
    progress_->AddWritten(1, 0, 0);
    return stream;
  }
  io::PutOutcome PutIfAbsent(const std::string& path, std::string_view bytes) override {
    // A commit is the put-if-absent of a `_delta_log/<version>.json`.
    bool is_commit = InDeltaLog(path) && path.size() > 5 &&
                     path.compare(path.size() - 5, 5, ".json") == 0;
    if (is_commit) {
      std::lock_guard<std::mutex> lock(mutex_);
      commit_tried_ = true;
    }
    io::PutOutcome outcome = inner_->PutIfAbsent(path, bytes);
    if (outcome == io::PutOutcome::kCreated && is_commit) {
      std::lock_guard<std::mutex> lock(mutex_);
      committed_ = true;
    }
    return outcome;
  }
  bool Delete(const std::string& path) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      created_.erase(path);
    }
    return inner_->Delete(path);
  }
  size_t DeleteFiles(const std::vector<std::string>& paths) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (const std::string& path : paths) created_.erase(path);
    }
    return io::DeleteFiles(*inner_, paths);
  }
  bool DeleteEmptyFolder(const std::string& path) override {
    return inner_->DeleteEmptyFolder(path);
  }
  void Rename(const std::string& from, const std::string& to) override {
    inner_->Rename(from, to);
    std::lock_guard<std::mutex> lock(mutex_);
    if (created_.erase(from) > 0 && !InDeltaLog(to)) created_.insert(to);
  }
  void SetModificationTime(const std::string& path, int64_t modification_time_ms) override {
    inner_->SetModificationTime(path, modification_time_ms);
  }
  io::Capabilities capabilities() const override { return inner_->capabilities(); }
  io::StorageStatistics storage_statistics() const override {
    return io::StorageStatisticsOf(*inner_);
  }
  void ResetStorageStatistics() override { io::ResetStorageStatistics(*inner_); }

 private:
  std::shared_ptr<io::FileSystem> inner_;
  std::shared_ptr<io::StorageOptions> settings_;
  Progress* progress_ = nullptr;  // set by the session before any statement runs
  std::mutex mutex_;
  std::set<std::string> created_;
  bool committed_ = false;
  bool commit_tried_ = false;
};

}  // namespace api

struct Session::Impl {
  // Over the local disk and the object stores, by each path's scheme. (No engine type in the
  // signature: a debug build of libsilt may export this constructor, and the install test refuses
  // exported engine types.)
  explicit Impl(std::string warehouse)
      : files(std::make_shared<api::StatementFiles>(std::make_shared<io::StorageOptions>())),
        state(files, std::move(warehouse)) {
    files->CountInto(state.progress());
  }

  std::shared_ptr<api::StatementFiles> files;  // records the data files the running statement created
  sql::SessionState state;
};

namespace {

std::string ChooseWarehouse(const SessionOptions& options) {
  if (!options.warehouse.empty()) return options.warehouse;
  if (const char* from_environment = std::getenv("SILT_WAREHOUSE");
      from_environment != nullptr && *from_environment != '\0') {
    return from_environment;
  }
  return "silt-warehouse";
}

}  // namespace

Session::Session(SessionOptions options)
    // The warehouse folder appears with the first table or database written into it.
    : impl_(std::make_shared<Impl>(ChooseWarehouse(options))) {
  // Sources of layers above the stream layer, read as STREAM name(...).
  cdc::RegisterPostgresCdcSource();
  for (const auto& [key, value] : options.conf) impl_->state.SetConf(key, value);
  // A query analysed before any statement runs (Sql(), a DataFrame) already reads its table
  // with the session's storage settings.
  impl_->files->ShareSettings(impl_->state.conf());
}

Session::~Session() = default;

Result Session::Execute(std::string_view sql) {
  return api::MakeResult(api::RunStatements(*this, sql));
}

ResultStream Session::ExecuteStream(std::string_view sql) {
  return api::Access::MakeStream(api::StreamStatements(*this, sql));
}

DataFrame Session::Sql(std::string_view sql) { return api::Access::MakeDataFrame(*this, sql); }

DataFrame Session::Table(std::string_view name) {
  return api::Access::MakeDataFrame(
      *this,
      "SELECT * FROM " + api::QuoteMultipartName(std::string(name), "name", "Session.Table"));
}

void Session::SetConf(const std::string& key, const std::string& value) {
  impl_->state.SetConf(key, value);
  impl_->files->ShareSettings(impl_->state.conf());
}

std::optional<std::string> Session::GetConf(const std::string& key) const {
  return impl_->state.GetConf(key);
}

const std::string& Session::warehouse() const { return impl_->state.catalog().warehouse(); }

void Session::Cancel() noexcept { impl_->state.cancellation().Cancel(); }

// ---- internal access ----

sql::SessionState& api::Access::State(Session& session) { return session.impl_->state; }

api::StatementFiles& api::Access::Files(Session& session) { return *session.impl_->files; }

std::shared_ptr<sql::SessionState> api::Access::SharedState(Session& session) {
  return std::shared_ptr<sql::SessionState>(session.impl_, &session.impl_->state);
}

sql::SessionState& api::StateOf(Session& session) { return Access::State(session); }

ProgressSnapshot api::StatementProgress(const Session& session) {
  // Reading the counters changes nothing; the state is reached through the non-const accessor.
  return StateOf(const_cast<Session&>(session)).progress().Read();
}

std::unique_ptr<api::StatementStream> api::StreamStatements(Session& session, std::string_view sql) {
  std::vector<sql::Statement> statements = sql::ParseStatements(sql);
  StateOf(session).cancellation().Reset();
  for (size_t i = 0; i + 1 < statements.size(); ++i) RunStatement(session, statements[i]);
  // ParseStatements refuses text without a statement.
  return StatementStream::Open(session, statements.back());
}

void api::ShareStoreSettings(Session& session) {
  Access::Files(session).ShareSettings(StateOf(session).conf());
}

StatementOutput api::RunStatements(Session& session, std::string_view sql) {
  StatementOutput last;
  RunStatementsEach(session, sql, [&](const StatementOutput& output) { last = output; });
  return last;
}

void api::RunStatementsEach(Session& session, std::string_view sql,
                            const std::function<void(const StatementOutput&)>& on_output) {
  // Parse the whole script first: a syntax error anywhere runs nothing, as spark-sql -f does.
  std::vector<sql::Statement> statements = sql::ParseStatements(sql);
  // Each call starts uncancelled: a Cancel() with nothing running does nothing.
  StateOf(session).cancellation().Reset();
  for (const sql::Statement& statement : statements) on_output(RunStatement(session, statement));
}

void api::RunStatementsStreamed(Session& session, std::string_view sql,
                                const std::function<void(StatementStream&)>& on_statement) {
  std::vector<sql::Statement> statements = sql::ParseStatements(sql);
  StateOf(session).cancellation().Reset();
  for (const sql::Statement& statement : statements) {
    on_statement(*StatementStream::Open(session, statement));
  }
}

StatementOutput api::RunStatement(Session& session, const sql::Statement& statement) {
  // A query's rows are the ones its stream produces, collected.
  if (statement.kind == sql::StatementKind::kQuery) {
    return StatementStream::Open(session, statement)->Drain();
  }
  sql::SessionState& state = StateOf(session);
  StatementFiles& files = Access::Files(session);
  state.cancellation().ThrowIfRequested();
  files.ShareSettings(state.conf());
  files.Begin();
  state.progress().Start();
  commands::StatementResult result;
  try {
    result = stream::IsStreamingStatement(statement)
                 ? stream::ExecuteStreamingStatement(state, statement)
                 : commands::ExecuteStatement(state, statement);
  } catch (const Error& error) {
    state.progress().Finish();
    // A cancelled statement commits nothing, so what it wrote is orphaned: remove it. So is what
    // a failing statement wrote before it tried to commit (a write that failed on its source's
    // last batch, past the memory limit or a CHECK constraint). A streaming statement keeps its
    // checkpoint's files, which say what its next run starts from.
    if (error.id() == static_cast<ErrorClassId>(ErrorClass::OPERATION_CANCELED)) {
      files.RemoveCreated();
    } else if (!stream::IsStreamingStatement(statement)) {
      files.RemoveCreated(/*only_before_commit=*/true);
    }
    throw;
  } catch (...) {
    state.progress().Finish();
    throw;
  }
  state.progress().Finish();
  // A SET of a storage setting applies to the queries analysed after it, too.
  files.ShareSettings(state.conf());
  // The zone after the statement: `SET TIME ZONE` applies to what follows it.
  std::shared_ptr<const TimeZone> zone;
  if (result.schema) zone = TimeZone::Find(state.MakeEvalContext().time_zone);
  return StatementOutput(std::move(result.schema), std::move(result.batches), statement.source_text,
                         std::move(zone));
}

}  // namespace silt
