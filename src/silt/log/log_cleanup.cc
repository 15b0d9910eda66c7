#include "silt/log/log_cleanup.h"

#include <map>
#include <set>

#include "silt/io/path.h"
#include "silt/log/log_segment.h"
#include "silt/log/transaction.h"

namespace silt::log {

LogCleanupResult CleanUpExpiredLogs(io::FileSystem& fs, const std::string& table_root,
                                    const Metadata& metadata, int64_t now_ms,
                                    std::optional<int64_t> explicit_cutoff_ms) {
  LogCleanupResult result;
  const std::string* enabled = FindValue(metadata.configuration, "delta.enableExpiredLogCleanup");
  if (!explicit_cutoff_ms && enabled != nullptr &&
      (*enabled == "false" || *enabled == "FALSE" || *enabled == "False")) {
    return result;
  }
  const std::string* retention_text = FindValue(metadata.configuration, "delta.logRetentionDuration");
  int64_t retention_ms =
      retention_text ? ParseIntervalMs(*retention_text, "delta.logRetentionDuration") : 30 * 86'400'000ll;
  int64_t cutoff_ms = explicit_cutoff_ms.value_or(now_ms - retention_ms);

  std::string log_dir = io::JoinPath(table_root, "_delta_log");
  std::vector<io::FileInfo> entries = fs.List(log_dir);
  struct Entry {
    io::FileInfo info;
    LogFileName name;
  };
  std::vector<Entry> parsed;
  // Multi-part checkpoints count only when every part is present: version -> parts seen, total.
  std::map<int64_t, std::pair<int32_t, int32_t>> multi_part;
  std::set<int64_t> complete_checkpoints;
  std::map<int64_t, int64_t> checkpoint_newest_mtime;
  for (const auto& info : entries) {
    auto name = ParseLogFileName(io::BaseName(info.path));
    if (!name) continue;
    parsed.push_back({info, *name});
    if (name->type != LogFileName::Type::kCheckpoint) continue;
    int64_t& newest = checkpoint_newest_mtime[name->version];
    newest = std::max(newest, info.modification_time_ms);
    if (name->checkpoint_kind == CheckpointKind::kMultiPart) {
      auto& [seen, total] = multi_part[name->version];
      ++seen;
      total = name->num_parts;
      if (seen == total) complete_checkpoints.insert(name->version);
    } else {
      complete_checkpoints.insert(name->version);
    }
  }
  std::optional<int64_t> cutoff_checkpoint;
  for (int64_t version : complete_checkpoints) {
    if (checkpoint_newest_mtime[version] <= cutoff_ms) cutoff_checkpoint = version;
  }
  if (!cutoff_checkpoint) return result;
  result.cutoff_checkpoint_version = cutoff_checkpoint;
  for (const auto& entry : parsed) {
    if (entry.info.modification_time_ms > cutoff_ms) continue;
    bool expired = false;
    switch (entry.name.type) {
      case LogFileName::Type::kCommit:
      case LogFileName::Type::kChecksum:
      case LogFileName::Type::kCheckpoint:
        expired = entry.name.version < *cutoff_checkpoint;
        break;
      case LogFileName::Type::kCompaction:
        // A compaction is replaced by the checkpoint once it starts at or before it.
        expired = entry.name.version <= *cutoff_checkpoint;
        break;
    }
    if (expired && fs.Delete(entry.info.path)) ++result.deleted_files;
  }
  return result;
}

}  // namespace silt::log
