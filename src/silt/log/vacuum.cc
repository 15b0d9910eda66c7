#include "silt/log/vacuum.h"

#include <algorithm>
#include <chrono>
#include <set>
#include <utility>

#include "silt/base/check.h"
#include "silt/base/clock.h"
#include "silt/io/batch_delete.h"
#include "silt/io/path.h"
#include "silt/log/deletion_vector.h"
#include "silt/log/transaction.h"

namespace silt::log {
namespace {

// The storage paths a version within the retention still reads: the data file and, when it
// lives in its own file, the deletion vector.
void AddReferencedPaths(const Snapshot& snapshot, const std::string& log_path,
                        const std::optional<DeletionVectorDescriptor>& deletion_vector,
                        std::set<std::string>* referenced) {
  referenced->insert(io::NormalizePath(snapshot.ResolvePath(log_path)));
  if (deletion_vector && deletion_vector->storage_type != 'i') {
    referenced->insert(
        io::NormalizePath(DeletionVectorPath(*deletion_vector, snapshot.table_root())));
  }
}

void CheckRetention(std::optional<int64_t> retention_ms, int64_t table_retention_ms,
                    bool check_enabled) {
  if (!retention_ms) return;
  if (*retention_ms < 0) {
    SILT_THROW(INVALID_ARGUMENT, {{"message", "Retention for Vacuum can't be less than 0."}});
  }
  if (check_enabled && *retention_ms < table_retention_ms) {
    // The smallest whole number of hours that is not below the table's retention.
    constexpr int64_t kHourMs = 3'600'000;
    int64_t hours = (table_retention_ms + kHourMs - 1) / kHourMs;
    SILT_THROW(DELTA_VACUUM_RETENTION_PERIOD_TOO_SHORT,
               {{"configuredRetentionHours", std::to_string(hours)}});
  }
}

// Commits an operation with no actions: VACUUM records itself in the history this way.
int64_t CommitHistoryEntry(const std::shared_ptr<io::FileSystem>& fs, const std::string& root,
                           const VacuumOptions& options, std::string operation,
                           std::vector<std::pair<std::string, std::string>> parameters,
                           StringMap metrics) {
  auto txn = Transaction::StartLatest(fs, root, options.enforced_features);
  txn->SetOperation(std::move(operation), std::move(parameters), std::move(metrics));
  // A commit that changes no data is recorded under snapshot isolation, as Delta does.
  txn->SetIsolationLevel(IsolationLevel::kSnapshotIsolation);
  CommitOptions commit_options;
  commit_options.now_ms = options.now_ms;
  return txn->Commit(commit_options).version;
}

}  // namespace

int64_t DeletedFileRetentionMs(const Metadata& metadata) {
  constexpr std::string_view kKey = "delta.deletedFileRetentionDuration";
  const std::string* text = FindValue(metadata.configuration, kKey);
  return text ? ParseIntervalMs(*text, kKey) : kDefaultDeletedFileRetentionMs;
}

bool IsHiddenFromVacuum(std::string_view name, const std::vector<std::string>& partition_columns) {
  if (name.empty() || (name[0] != '_' && name[0] != '.')) return false;
  if (name.starts_with("_change_data") || name.starts_with("_delta_index")) return false;
  for (const std::string& column : partition_columns) {
    if (name.size() > column.size() && name.starts_with(column) && name[column.size()] == '=') {
      return false;
    }
  }
  return true;
}

VacuumResult Vacuum(const std::shared_ptr<const Snapshot>& snapshot, const VacuumOptions& options) {
  SILT_CHECK(snapshot != nullptr, "VACUUM needs a snapshot");
  const Metadata& metadata = snapshot->metadata();
  int64_t table_retention_ms = DeletedFileRetentionMs(metadata);
  CheckRetention(options.retention_ms, table_retention_ms, options.retention_check_enabled);
  // Refuse early, before anything is deleted, when silt cannot write this table.
  CheckWriteSupported(snapshot->protocol(), metadata, snapshot->table_root(),
                      options.enforced_features);

  VacuumResult result;
  int64_t now_ms = options.now_ms.value_or(SystemNowMs());
  result.delete_before_ms = now_ms - options.retention_ms.value_or(table_retention_ms);

  std::set<std::string> referenced;
  for (const AddFile& file : snapshot->files()) {
    AddReferencedPaths(*snapshot, file.path, file.deletion_vector, &referenced);
  }
  for (const RemoveFile& tombstone : snapshot->tombstones()) {
    // A tombstone without a deletion time counts as deleted at the epoch, as in Delta; one is
    // still needed only when it was removed after the cutoff (Delta keeps `> cutoff`).
    if (tombstone.deletion_timestamp.value_or(0) <= result.delete_before_ms) continue;
    AddReferencedPaths(*snapshot, tombstone.path, tombstone.deletion_vector, &referenced);
  }

  // Walk the folders one level at a time so that hidden folders (`_delta_log` above all) are
  // never listed.
  io::FileSystem& fs = *snapshot->file_system();
  const std::string root = io::NormalizePath(snapshot->table_root());
  std::vector<std::string> pending = {root};
  std::vector<std::pair<std::string, int64_t>> doomed;  // path, size
  std::vector<std::string> folders;                     // below the root, parents first
  while (!pending.empty()) {
    ThrowIfCanceled(options.cancellation);
    std::string folder = std::move(pending.back());
    pending.pop_back();
    ++result.directories;
    if (folder != root) folders.push_back(folder);
    for (const io::FileInfo& entry : fs.List(folder)) {
      if (IsHiddenFromVacuum(io::BaseName(entry.path), metadata.partition_columns)) continue;
      if (entry.is_directory) {
        pending.push_back(entry.path);
        continue;
      }
      // A file written within the retention may belong to a writer that has not committed yet.
      if (entry.modification_time_ms >= result.delete_before_ms) continue;
      if (referenced.count(io::NormalizePath(entry.path))) continue;
      doomed.emplace_back(entry.path, static_cast<int64_t>(entry.size));
    }
  }
  std::sort(doomed.begin(), doomed.end());
  for (const auto& [path, size] : doomed) {
    result.files.push_back(path);
    result.bytes += size;
  }
  if (options.dry_run) return result;

  const std::shared_ptr<io::FileSystem>& fs_handle = snapshot->file_system();
  if (options.log_operation) {
    std::vector<std::pair<std::string, std::string>> parameters = {
        {"retentionCheckEnabled", options.retention_check_enabled ? "true" : "false"}};
    if (options.retention_ms) {
      parameters.emplace_back("specifiedRetentionMillis", std::to_string(*options.retention_ms));
    }
    parameters.emplace_back("defaultRetentionMillis", std::to_string(table_retention_ms));
    result.start_version =
        CommitHistoryEntry(fs_handle, root, options, "VACUUM START", std::move(parameters),
                           {{"numFilesToDelete", std::to_string(result.files.size())},
                            {"sizeOfDataToDelete", std::to_string(result.bytes)}});
  }
  try {
    // In batches: one request per thousand files on S3.
    constexpr size_t kDeleteBatch = 1000;
    for (size_t start = 0; start < result.files.size(); start += kDeleteBatch) {
      ThrowIfCanceled(options.cancellation);
      size_t end = std::min(result.files.size(), start + kDeleteBatch);
      std::vector<std::string> batch(result.files.begin() + static_cast<std::ptrdiff_t>(start),
                                     result.files.begin() + static_cast<std::ptrdiff_t>(end));
      result.deleted_files += static_cast<int64_t>(io::DeleteFiles(fs, batch));
    }
    // Folders the deletes left empty go too, deepest first (a parent is listed before its
    // children), as Delta's VACUUM leaves no empty partition folders behind.
    for (auto folder = folders.rbegin(); folder != folders.rend(); ++folder) {
      fs.DeleteEmptyFolder(*folder);
    }
  } catch (...) {
    if (options.log_operation) {
      // The deletion error matters more than a failure to record it.
      try {
        CommitHistoryEntry(fs_handle, root, options, "VACUUM END", {{"status", "\"FAILED\""}}, {});
      } catch (const Error&) {
      }
    }
    throw;
  }
  if (options.log_operation) {
    result.end_version =
        CommitHistoryEntry(fs_handle, root, options, "VACUUM END", {{"status", "\"COMPLETED\""}},
                           {{"numDeletedFiles", std::to_string(result.deleted_files)},
                            {"numVacuumedDirectories", std::to_string(result.directories)}});
  }
  return result;
}

}  // namespace silt::log
