#include "silt/session.h"

#include <cstdlib>
#include <mutex>
#include <set>

#include "silt/base/error_class.h"
#include "silt/commands/statement_executor.h"
#include "silt/io/file_system.h"
#include "silt/io/path.h"
#include "silt/sql/parser.h"
#include "silt/sql/session_state.h"

namespace silt {
namespace {

std::string ChooseWarehouse(const SessionOptions& options) {
  if (!options.warehouse.empty()) return options.warehouse;
  if (const char* from_environment = std::getenv("SILT_WAREHOUSE");
      from_environment != nullptr && *from_environment != '\0') {
    return from_environment;
  }
  return "silt-warehouse";
}

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

// The session's file system: passes every call through, and records the files a statement
// creates outside any `_delta_log` (data, deletion-vector and change-data files), so that a
// cancelled statement can remove what it wrote and nothing committed. Counts them, and the
// bytes written, as the statement's progress.
class Session::StatementFiles final : public io::FileSystem {
 public:
  explicit StatementFiles(std::shared_ptr<io::FileSystem> inner) : inner_(std::move(inner)) {}

  // Where the bytes and files written are counted (the session state's progress).
  void CountInto(Progress& progress) { progress_ = &progress; }

  // Forgets the files of the previous statement.
  void Begin() {
    std::lock_guard<std::mutex> lock(mutex_);
    created_.clear();
  }

  // Deletes the files the statement created, and the partition folders that leaves empty.
  // Best effort: the statement is failing already, and VACUUM removes what stays.
  void RemoveCreated() {
    std::set<std::string> created;
    {
      std::lock_guard<std::mutex> lock(mutex_);
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
    return inner_->PutIfAbsent(path, bytes);
  }
  bool Delete(const std::string& path) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      created_.erase(path);
    }
    return inner_->Delete(path);
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

 private:
  std::shared_ptr<io::FileSystem> inner_;
  Progress* progress_ = nullptr;  // set by the session before any statement runs
  std::mutex mutex_;
  std::set<std::string> created_;
};

Session::Session(SessionOptions options) {
  // The warehouse folder appears with the first table or database written into it.
  files_ = std::make_shared<StatementFiles>(io::MakeLocalFileSystem());
  state_ = std::make_unique<sql::SessionState>(files_, ChooseWarehouse(options));
  files_->CountInto(state_->progress());
  for (const auto& [key, value] : options.conf) state_->SetConf(key, value);
}

Session::~Session() = default;

StatementOutput Session::Sql(std::string_view sql) {
  StatementOutput last;
  SqlEach(sql, [&](const StatementOutput& output) { last = output; });
  return last;
}

void Session::SqlEach(std::string_view sql,
                      const std::function<void(const StatementOutput&)>& on_output) {
  state_->cancellation().Reset();
  // Parse the whole script first: a syntax error anywhere runs nothing, as spark-sql -f does.
  std::vector<sql::Statement> statements = sql::ParseStatements(sql);
  for (const sql::Statement& statement : statements) {
    state_->cancellation().ThrowIfRequested();
    files_->Begin();
    state_->progress().Start();
    commands::StatementResult result;
    try {
      result = commands::ExecuteStatement(*state_, statement);
    } catch (const Error& error) {
      state_->progress().Finish();
      // Cancellation is only checked before a statement commits, so what it wrote is orphaned.
      if (error.id() == static_cast<ErrorClassId>(ErrorClass::OPERATION_CANCELED)) {
        files_->RemoveCreated();
      }
      throw;
    } catch (...) {
      state_->progress().Finish();
      throw;
    }
    state_->progress().Finish();
    // The zone after the statement: `SET TIME ZONE` applies to what follows it.
    std::shared_ptr<const TimeZone> zone;
    if (result.schema) zone = TimeZone::Find(state_->MakeEvalContext().time_zone);
    on_output(StatementOutput(std::move(result.schema), std::move(result.batches),
                              statement.source_text, std::move(zone)));
  }
}

void Session::Cancel() noexcept { state_->cancellation().Cancel(); }

ProgressSnapshot Session::StatementProgress() const { return state_->progress().Read(); }

void Session::SetConf(const std::string& key, const std::string& value) {
  state_->SetConf(key, value);
}

std::optional<std::string> Session::GetConf(const std::string& key) const {
  return state_->GetConf(key);
}

const std::string& Session::warehouse() const { return state_->catalog().warehouse(); }

}  // namespace silt
