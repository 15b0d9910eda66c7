#include "silt/io/fault_injecting_file_system.h"

#include <algorithm>
#include <utility>

#include "silt/base/check.h"
#include "silt/io/path.h"

namespace silt::io {
namespace {

constexpr std::string_view kAfterSuffix = " (after it took effect)";

bool Matches(const std::string& path, const std::string& path_filter) {
  return path_filter.empty() || path.find(path_filter) != std::string::npos;
}

class FaultInjectingRandomAccessFile final : public RandomAccessFile {
 public:
  FaultInjectingRandomAccessFile(std::shared_ptr<FaultInjectingFileSystem> file_system,
                                 std::unique_ptr<RandomAccessFile> inner)
      : file_system_(std::move(file_system)), inner_(std::move(inner)) {}

  uint64_t Size() const override { return inner_->Size(); }

  size_t ReadAt(uint64_t offset, size_t length, void* out) override {
    auto decision = file_system_->BeginCall(FileOperation::kRead, inner_->path());
    size_t got = inner_->ReadAt(offset, length, out);
    if (decision.fail_after) {
      file_system_->ThrowFault(
          std::string(FileOperationName(FileOperation::kRead)) + std::string(kAfterSuffix),
          inner_->path());
    }
    return got;
  }

  const std::string& path() const override { return inner_->path(); }

 private:
  std::shared_ptr<FaultInjectingFileSystem> file_system_;
  std::unique_ptr<RandomAccessFile> inner_;
};

class FaultInjectingOutputStream final : public OutputStream {
 public:
  FaultInjectingOutputStream(std::shared_ptr<FaultInjectingFileSystem> file_system,
                             std::unique_ptr<OutputStream> inner,
                             std::shared_ptr<FaultInjectingFileSystem::WrittenFile> file)
      : file_system_(std::move(file_system)), inner_(std::move(inner)), file_(std::move(file)) {}

  ~FaultInjectingOutputStream() override {
    // Closing without counting or faults, as the contract says destruction closes silently. A
    // stream killed by DropUnsyncedWrites was already closed.
    if (!closed_ && !file_system_->IsDead(file_)) {
      try {
        inner_->Close();
      } catch (const Error&) {
      }
    }
    if (!closed_) file_system_->RecordStreamClosed(file_);
  }
  FaultInjectingOutputStream(const FaultInjectingOutputStream&) = delete;
  FaultInjectingOutputStream& operator=(const FaultInjectingOutputStream&) = delete;
  FaultInjectingOutputStream(FaultInjectingOutputStream&&) = delete;
  FaultInjectingOutputStream& operator=(FaultInjectingOutputStream&&) = delete;

  void Write(const void* data, size_t length) override {
    auto decision = BeginStreamCall(FileOperation::kWrite);
    if (decision.tear) {
      size_t kept = length / 2;
      inner_->Write(data, kept);
      file_system_->ThrowFault("Write (torn: " + std::to_string(kept) + " of " +
                                   std::to_string(length) + " bytes persisted)",
                               file_->path);
    }
    inner_->Write(data, length);
    FinishCall(FileOperation::kWrite, decision);
  }

  void Sync() override {
    auto decision = BeginStreamCall(FileOperation::kSync);
    inner_->Sync();
    file_system_->RecordSync(file_, inner_->position());
    FinishCall(FileOperation::kSync, decision);
  }

  void Close() override {
    if (closed_) return;
    auto decision = BeginStreamCall(FileOperation::kClose);
    closed_ = true;
    file_system_->RecordStreamClosed(file_);
    inner_->Close();
    FinishCall(FileOperation::kClose, decision);
  }

  uint64_t position() const override { return inner_->position(); }

 private:
  FaultInjectingFileSystem::CallDecision BeginStreamCall(FileOperation operation) {
    auto decision = file_system_->BeginCall(operation, file_->path);
    if (file_system_->IsDead(file_)) {
      file_system_->ThrowFault(
          std::string(FileOperationName(operation)) + " (after a simulated power loss)",
          file_->path);
    }
    return decision;
  }

  void FinishCall(FileOperation operation, const FaultInjectingFileSystem::CallDecision& decision) {
    if (decision.fail_after) {
      file_system_->ThrowFault(
          std::string(FileOperationName(operation)) + std::string(kAfterSuffix), file_->path);
    }
  }

  std::shared_ptr<FaultInjectingFileSystem> file_system_;
  std::unique_ptr<OutputStream> inner_;
  std::shared_ptr<FaultInjectingFileSystem::WrittenFile> file_;
  bool closed_ = false;
};

}  // namespace

std::string_view FileOperationName(FileOperation operation) {
  switch (operation) {
    case FileOperation::kStat:
      return "Stat";
    case FileOperation::kList:
      return "List";
    case FileOperation::kOpenRead:
      return "OpenRead";
    case FileOperation::kRead:
      return "Read";
    case FileOperation::kOpenWrite:
      return "OpenWrite";
    case FileOperation::kWrite:
      return "Write";
    case FileOperation::kSync:
      return "Sync";
    case FileOperation::kClose:
      return "Close";
    case FileOperation::kPutIfAbsent:
      return "PutIfAbsent";
    case FileOperation::kDelete:
      return "Delete";
    case FileOperation::kRename:
      return "Rename";
    case FileOperation::kSetModificationTime:
      return "SetModificationTime";
  }
  return "Unknown";
}

std::shared_ptr<FaultInjectingFileSystem> FaultInjectingFileSystem::Make(
    std::shared_ptr<FileSystem> inner) {
  SILT_USER_CHECK(inner != nullptr, INVALID_ARGUMENT,
                  {{"message", "FaultInjectingFileSystem needs a file system to wrap"}});
  return std::make_shared<FaultInjectingFileSystem>(PrivateTag{}, std::move(inner));
}

FaultInjectingFileSystem::FaultInjectingFileSystem(PrivateTag, std::shared_ptr<FileSystem> inner)
    : inner_(std::move(inner)) {}

uint64_t FaultInjectingFileSystem::CallCount(FileOperation operation) const {
  std::lock_guard lock(mutex_);
  return call_counts_[static_cast<size_t>(operation)];
}

uint64_t FaultInjectingFileSystem::TotalCallCount() const {
  std::lock_guard lock(mutex_);
  uint64_t total = 0;
  for (uint64_t count : call_counts_) total += count;
  return total;
}

uint64_t FaultInjectingFileSystem::InjectedFaultCount() const {
  std::lock_guard lock(mutex_);
  return injected_fault_count_;
}

void FaultInjectingFileSystem::ResetCallCounts() {
  std::lock_guard lock(mutex_);
  call_counts_.fill(0);
  injected_fault_count_ = 0;
}

void FaultInjectingFileSystem::Arm(std::optional<FileOperation> operation, FaultMode mode,
                                   uint64_t n, std::string path_filter) {
  SILT_USER_CHECK(
      n >= 1, INVALID_ARGUMENT,
      {{"message", "a fault fires on the n-th call from now, n >= 1; got " + std::to_string(n)}});
  std::lock_guard lock(mutex_);
  faults_.push_back(Fault{operation, mode, n, std::move(path_filter)});
}

void FaultInjectingFileSystem::FailNthCall(FileOperation operation, uint64_t n,
                                           std::string path_filter) {
  Arm(operation, FaultMode::kBefore, n, std::move(path_filter));
}

void FaultInjectingFileSystem::FailNthCallOfAny(uint64_t n, std::string path_filter) {
  Arm(std::nullopt, FaultMode::kBefore, n, std::move(path_filter));
}

void FaultInjectingFileSystem::FailAfterNthCall(FileOperation operation, uint64_t n,
                                                std::string path_filter) {
  Arm(operation, FaultMode::kAfter, n, std::move(path_filter));
}

void FaultInjectingFileSystem::TearNextWrite(std::string path_filter) {
  Arm(FileOperation::kWrite, FaultMode::kTear, 1, std::move(path_filter));
}

void FaultInjectingFileSystem::ClearFaults() {
  std::lock_guard lock(mutex_);
  faults_.clear();
}

size_t FaultInjectingFileSystem::PendingFaultCount() const {
  std::lock_guard lock(mutex_);
  return faults_.size();
}

void FaultInjectingFileSystem::SetCallHook(
    std::function<void(FileOperation, const std::string&)> hook) {
  std::lock_guard lock(mutex_);
  hook_ = hook ? std::make_shared<const std::function<void(FileOperation, const std::string&)>>(
                     std::move(hook))
               : nullptr;
}

FaultInjectingFileSystem::CallDecision FaultInjectingFileSystem::BeginCall(
    FileOperation operation, const std::string& path) {
  std::shared_ptr<const std::function<void(FileOperation, const std::string&)>> hook;
  {
    std::lock_guard lock(mutex_);
    ++call_counts_[static_cast<size_t>(operation)];
    hook = hook_;
  }
  // The hook runs unlocked so that it may do slow work (a competing commit) or throw.
  if (hook) (*hook)(operation, path);

  std::lock_guard lock(mutex_);
  // Count this call against every matching fault, then pick at most one to fire.
  std::vector<size_t> due;
  for (size_t index = 0; index < faults_.size(); ++index) {
    Fault& fault = faults_[index];
    if (fault.operation.has_value() && *fault.operation != operation) continue;
    if (!Matches(path, fault.path_filter)) continue;
    if (fault.remaining > 1) {
      --fault.remaining;
    } else {
      due.push_back(index);  // Stays at 1 unless chosen, so it fires on the next match.
    }
  }
  if (due.empty()) return {};
  static constexpr FaultMode kPrecedence[] = {FaultMode::kBefore, FaultMode::kTear,
                                              FaultMode::kAfter};
  for (FaultMode mode : kPrecedence) {
    for (size_t index : due) {
      if (faults_[index].mode != mode) continue;
      faults_.erase(faults_.begin() + static_cast<std::ptrdiff_t>(index));
      switch (mode) {
        case FaultMode::kBefore:
          ++injected_fault_count_;
          SILT_THROW(FAULT_INJECTED,
                     {{"operation", std::string(FileOperationName(operation))}, {"path", path}});
        case FaultMode::kTear:
          return CallDecision{.fail_after = false, .tear = true};
        case FaultMode::kAfter:
          return CallDecision{.fail_after = true, .tear = false};
      }
    }
  }
  return {};
}

void FaultInjectingFileSystem::ThrowFault(std::string operation_text, const std::string& path) {
  {
    std::lock_guard lock(mutex_);
    ++injected_fault_count_;
  }
  SILT_THROW(FAULT_INJECTED, {{"operation", std::move(operation_text)}, {"path", path}});
}

void FaultInjectingFileSystem::RecordSync(const std::shared_ptr<WrittenFile>& file,
                                          uint64_t length) {
  std::lock_guard lock(mutex_);
  file->synced_length = length;
  file->ever_synced = true;
}

void FaultInjectingFileSystem::RecordStreamClosed(const std::shared_ptr<WrittenFile>& file) {
  std::lock_guard lock(mutex_);
  file->open_stream = nullptr;
}

bool FaultInjectingFileSystem::IsDead(const std::shared_ptr<WrittenFile>& file) const {
  std::lock_guard lock(mutex_);
  return file->dead;
}

void FaultInjectingFileSystem::ForgetWrittenFileLocked(const std::string& path) {
  written_files_.erase(NormalizePath(path));
}

void FaultInjectingFileSystem::DropUnsyncedWrites() {
  std::map<std::string, std::shared_ptr<WrittenFile>> files;
  {
    std::lock_guard lock(mutex_);
    files.swap(written_files_);
    for (auto& [key, file] : files) {
      if (file->open_stream == nullptr) continue;
      // Closing publishes what the stream wrote (the memory backend shows content only at Close),
      // so the truncation below sees the same bytes on every backend.
      try {
        file->open_stream->Close();
      } catch (const Error&) {
        // A stream that cannot even close has lost its unsynced bytes anyway.
      }
      file->open_stream = nullptr;
      file->dead = true;
    }
  }
  for (auto& [key, file] : files) {
    if (!file->ever_synced) {
      inner_->Delete(file->path);
      continue;
    }
    std::optional<FileInfo> info = inner_->Stat(file->path);
    if (!info.has_value() || info->is_directory || info->size <= file->synced_length) continue;
    std::string durable(static_cast<size_t>(file->synced_length), '\0');
    inner_->OpenRead(file->path)->ReadExactly(0, durable.size(), durable.data());
    inner_->WriteFile(file->path, durable);
  }
}

std::optional<FileInfo> FaultInjectingFileSystem::Stat(const std::string& path) {
  auto decision = BeginCall(FileOperation::kStat, path);
  auto result = inner_->Stat(path);
  if (decision.fail_after) ThrowFault("Stat" + std::string(kAfterSuffix), path);
  return result;
}

std::vector<FileInfo> FaultInjectingFileSystem::List(const std::string& dir,
                                                     const std::string& start_after,
                                                     bool recursive) {
  auto decision = BeginCall(FileOperation::kList, dir);
  auto result = inner_->List(dir, start_after, recursive);
  if (decision.fail_after) ThrowFault("List" + std::string(kAfterSuffix), dir);
  return result;
}

std::unique_ptr<RandomAccessFile> FaultInjectingFileSystem::OpenRead(const std::string& path) {
  auto decision = BeginCall(FileOperation::kOpenRead, path);
  auto file = inner_->OpenRead(path);
  if (decision.fail_after) ThrowFault("OpenRead" + std::string(kAfterSuffix), path);
  return std::make_unique<FaultInjectingRandomAccessFile>(shared_from_this(), std::move(file));
}

std::unique_ptr<OutputStream> FaultInjectingFileSystem::OpenWrite(const std::string& path) {
  auto decision = BeginCall(FileOperation::kOpenWrite, path);
  std::unique_ptr<OutputStream> stream = inner_->OpenWrite(path);
  auto file = std::make_shared<WrittenFile>();
  file->path = path;
  {
    std::lock_guard lock(mutex_);
    // The file is tracked even when an after-fault discards the stream: OpenWrite truncated it.
    written_files_[NormalizePath(path)] = file;
    if (!decision.fail_after) file->open_stream = stream.get();
  }
  if (decision.fail_after) {
    try {
      stream->Close();
    } catch (const Error&) {
    }
    ThrowFault("OpenWrite" + std::string(kAfterSuffix), path);
  }
  return std::make_unique<FaultInjectingOutputStream>(shared_from_this(), std::move(stream),
                                                      std::move(file));
}

PutOutcome FaultInjectingFileSystem::PutIfAbsent(const std::string& path, std::string_view bytes) {
  auto decision = BeginCall(FileOperation::kPutIfAbsent, path);
  PutOutcome outcome = inner_->PutIfAbsent(path, bytes);
  if (outcome == PutOutcome::kCreated) {
    std::lock_guard lock(mutex_);
    ForgetWrittenFileLocked(path);  // Durable by contract.
  }
  if (decision.fail_after) ThrowFault("PutIfAbsent" + std::string(kAfterSuffix), path);
  return outcome;
}

bool FaultInjectingFileSystem::Delete(const std::string& path) {
  auto decision = BeginCall(FileOperation::kDelete, path);
  bool deleted = inner_->Delete(path);
  {
    std::lock_guard lock(mutex_);
    ForgetWrittenFileLocked(path);
  }
  if (decision.fail_after) ThrowFault("Delete" + std::string(kAfterSuffix), path);
  return deleted;
}

bool FaultInjectingFileSystem::DeleteEmptyFolder(const std::string& path) {
  auto decision = BeginCall(FileOperation::kDelete, path);
  bool deleted = inner_->DeleteEmptyFolder(path);
  if (decision.fail_after) ThrowFault("DeleteEmptyFolder" + std::string(kAfterSuffix), path);
  return deleted;
}

void FaultInjectingFileSystem::Rename(const std::string& from, const std::string& to) {
  auto decision = BeginCall(FileOperation::kRename, from);
  inner_->Rename(from, to);
  {
    // The renamed file keeps what the wrapper knows about its durability.
    std::lock_guard lock(mutex_);
    std::string from_key = NormalizePath(from);
    std::string to_key = NormalizePath(to);
    auto found = written_files_.find(from_key);
    if (from_key != to_key) {
      written_files_.erase(to_key);
      if (found != written_files_.end()) {
        std::shared_ptr<WrittenFile> file = found->second;
        written_files_.erase(found);
        file->path = to;
        written_files_[to_key] = std::move(file);
      }
    }
  }
  if (decision.fail_after) ThrowFault("Rename" + std::string(kAfterSuffix), from + " -> " + to);
}

void FaultInjectingFileSystem::SetModificationTime(const std::string& path,
                                                   int64_t modification_time_ms) {
  auto decision = BeginCall(FileOperation::kSetModificationTime, path);
  inner_->SetModificationTime(path, modification_time_ms);
  if (decision.fail_after) ThrowFault("SetModificationTime" + std::string(kAfterSuffix), path);
}

Capabilities FaultInjectingFileSystem::capabilities() const { return inner_->capabilities(); }

}  // namespace silt::io
