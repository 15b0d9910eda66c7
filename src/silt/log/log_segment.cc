#include "silt/log/log_segment.h"

#include <simdjson.h>

#include <algorithm>
#include <cstdio>
#include <map>

#include "silt/base/check.h"
#include "silt/error.h"
#include "silt/io/path.h"
#include "silt/log/json_text_internal.h"

namespace silt::log {

namespace {

constexpr size_t kVersionDigits = 20;

bool AllDigits(std::string_view text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Parses a run of decimal digits that fits in int64 (20-digit versions can exceed it).
std::optional<int64_t> ParseDigits(std::string_view text) {
  if (!AllDigits(text)) return std::nullopt;
  int64_t value = 0;
  for (char c : text) {
    if (value > (INT64_MAX - (c - '0')) / 10) return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

bool IsUuid(std::string_view text) {
  if (text.size() != 36) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    if (!hex && c != '-') return false;
  }
  return true;
}

std::string_view Consume(std::string_view& text, size_t count) {
  std::string_view head = text.substr(0, count);
  text.remove_prefix(std::min(count, text.size()));
  return head;
}

bool ConsumeLiteral(std::string_view& text, std::string_view literal) {
  if (text.substr(0, literal.size()) != literal) return false;
  text.remove_prefix(literal.size());
  return true;
}

struct Listing {
  std::map<int64_t, io::FileInfo> commits;
  // version -> complete candidates in preference order (classic, UUID, multi-part).
  std::map<int64_t, std::vector<Checkpoint>> checkpoints;
  std::vector<Compaction> compactions;
};

Listing Collect(const std::vector<io::FileInfo>& entries) {
  Listing listing;
  // version -> number of parts -> parts found (by part number).
  std::map<int64_t, std::map<int32_t, std::map<int32_t, io::FileInfo>>> multi_part;
  std::map<int64_t, std::vector<Checkpoint>> uuid_checkpoints;
  for (const auto& entry : entries) {
    if (entry.is_directory) continue;
    auto name = ParseLogFileName(io::BaseName(entry.path));
    if (!name) continue;
    switch (name->type) {
      case LogFileName::Type::kCommit:
        listing.commits[name->version] = entry;
        break;
      case LogFileName::Type::kCompaction:
        listing.compactions.push_back({name->version, name->end_version, entry});
        break;
      case LogFileName::Type::kChecksum:
        break;
      case LogFileName::Type::kCheckpoint:
        if (name->checkpoint_kind == CheckpointKind::kClassic) {
          listing.checkpoints[name->version].push_back({name->version, CheckpointKind::kClassic, {entry}});
        } else if (name->checkpoint_kind == CheckpointKind::kUuid) {
          uuid_checkpoints[name->version].push_back({name->version, CheckpointKind::kUuid, {entry}});
        } else {
          multi_part[name->version][name->num_parts][name->part] = entry;
        }
        break;
    }
  }
  for (auto& [version, candidates] : uuid_checkpoints) {
    auto& list = listing.checkpoints[version];
    list.insert(list.end(), candidates.begin(), candidates.end());
  }
  for (auto& [version, by_count] : multi_part) {
    for (auto& [count, parts] : by_count) {
      // A set is usable only when every part 1..count is there (protocol §3.1).
      if (static_cast<int32_t>(parts.size()) != count) continue;
      Checkpoint checkpoint{version, CheckpointKind::kMultiPart, {}};
      for (auto& [part, info] : parts) checkpoint.files.push_back(info);
      listing.checkpoints[version].push_back(std::move(checkpoint));
    }
  }
  return listing;
}

LogSegment Select(const Listing& listing, std::string_view table_root, const std::string& log_dir,
                  const LogSegmentOptions& options) {
  LogSegment segment;
  segment.table_root = std::string(table_root);
  segment.log_dir = log_dir;
  int64_t latest = -1;
  if (!listing.commits.empty()) latest = listing.commits.rbegin()->first;
  if (!listing.checkpoints.empty()) latest = std::max(latest, listing.checkpoints.rbegin()->first);
  if (latest < 0) {
    SILT_THROW(DELTA_MISSING_DELTA_TABLE, {{"tableName", std::string(table_root)}});
  }
  segment.latest_version = latest;
  int64_t earliest = latest;
  if (listing.commits.count(0)) earliest = 0;
  if (!listing.checkpoints.empty()) earliest = std::min(earliest, listing.checkpoints.begin()->first);
  if (earliest != 0 && listing.checkpoints.empty()) earliest = listing.commits.begin()->first;
  segment.earliest_version = earliest;

  int64_t target = options.version.value_or(latest);
  if (target < 0 || target > latest) {
    SILT_THROW(DELTA_VERSION_NOT_FOUND, {{"userVersion", std::to_string(target)},
                                         {"earliest", std::to_string(earliest)},
                                         {"latest", std::to_string(latest)}});
  }
  segment.version = target;
  auto checkpoint_it = listing.checkpoints.upper_bound(target);
  int64_t first_commit = 0;
  if (checkpoint_it != listing.checkpoints.begin()) {
    --checkpoint_it;
    segment.checkpoint = checkpoint_it->second.front();
    first_commit = checkpoint_it->first + 1;
  } else if (!listing.commits.count(0)) {
    // Neither a checkpoint nor the full history: this version cannot be reconstructed.
    SILT_THROW(DELTA_VERSION_NOT_FOUND, {{"userVersion", std::to_string(target)},
                                         {"earliest", std::to_string(earliest)},
                                         {"latest", std::to_string(latest)}});
  }
  std::vector<int64_t> missing;
  for (int64_t version = first_commit; version <= target; ++version) {
    auto it = listing.commits.find(version);
    if (it == listing.commits.end()) {
      missing.push_back(version);
      continue;
    }
    segment.commits.push_back({version, it->second});
  }
  if (!missing.empty()) {
    std::string present;
    for (const auto& [version, info] : listing.commits) {
      if (version < first_commit || version > target) continue;
      if (!present.empty()) present += ", ";
      present += std::to_string(version);
    }
    SILT_THROW(DELTA_VERSIONS_NOT_CONTIGUOUS,
               {{"versionList", "[" + present + "]"},
                {"startVersion", std::to_string(missing.front() - 1)},
                {"endVersion", std::to_string(missing.back() + 1)},
                {"versionToLoad", std::to_string(target)}});
  }
  if (options.use_compactions) {
    for (const auto& compaction : listing.compactions) {
      if (compaction.start_version >= first_commit && compaction.end_version <= target &&
          compaction.start_version < compaction.end_version) {
        segment.compactions.push_back(compaction);
      }
    }
  }
  return segment;
}

}  // namespace

std::string FormatVersion(int64_t version) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%020lld", static_cast<long long>(version));
  return buffer;
}

std::optional<LogFileName> ParseLogFileName(std::string_view name) {
  std::string_view rest = name;
  auto version = ParseDigits(Consume(rest, kVersionDigits));
  if (!version || !ConsumeLiteral(rest, ".")) return std::nullopt;
  LogFileName result;
  result.version = *version;
  if (rest == "json") {
    result.type = LogFileName::Type::kCommit;
    return result;
  }
  if (rest == "crc") {
    result.type = LogFileName::Type::kChecksum;
    return result;
  }
  if (ConsumeLiteral(rest, "checkpoint.")) {
    result.type = LogFileName::Type::kCheckpoint;
    if (rest == "parquet") {
      result.checkpoint_kind = CheckpointKind::kClassic;
      return result;
    }
    std::string_view multi = rest;
    auto part = ParseDigits(Consume(multi, 10));
    if (part && ConsumeLiteral(multi, ".")) {
      auto parts = ParseDigits(Consume(multi, 10));
      if (parts && multi == ".parquet" && *part >= 1 && *part <= *parts && *parts <= INT32_MAX) {
        result.checkpoint_kind = CheckpointKind::kMultiPart;
        result.part = static_cast<int32_t>(*part);
        result.num_parts = static_cast<int32_t>(*parts);
        return result;
      }
    }
    std::string_view uuid = Consume(rest, 36);
    if (IsUuid(uuid) && (rest == ".json" || rest == ".parquet")) {
      result.checkpoint_kind = CheckpointKind::kUuid;
      result.json = rest == ".json";
      return result;
    }
    return std::nullopt;
  }
  auto end = ParseDigits(Consume(rest, kVersionDigits));
  if (end && rest == ".compacted.json") {
    result.type = LogFileName::Type::kCompaction;
    result.end_version = *end;
    return result;
  }
  return std::nullopt;
}

std::optional<LastCheckpointHint> ReadLastCheckpoint(io::FileSystem& fs, std::string_view log_dir) {
  std::string path = io::JoinPath(log_dir, "_last_checkpoint");
  std::string text;
  try {
    text = fs.ReadFile(path);
  } catch (const Error& error) {
    if (error.error_class() == "PATH_NOT_FOUND") return std::nullopt;
    throw;
  }
  simdjson::dom::parser parser;
  simdjson::dom::element element;
  if (parser.parse(text).get(element) != simdjson::SUCCESS) return std::nullopt;
  simdjson::dom::object object;
  if (element.get_object().get(object) != simdjson::SUCCESS) return std::nullopt;
  simdjson::dom::element version;
  if (object.at_key("version").get(version) != simdjson::SUCCESS) return std::nullopt;
  auto value = internal::ElementInt64(version);
  if (!value || *value < 0) return std::nullopt;
  LastCheckpointHint hint;
  hint.version = *value;
  simdjson::dom::element parts;
  if (object.at_key("parts").get(parts) == simdjson::SUCCESS) hint.parts = internal::ElementInt64(parts);
  return hint;
}

LogSegment BuildLogSegment(io::FileSystem& fs, std::string_view table_root,
                           const LogSegmentOptions& options) {
  std::string log_dir = io::JoinPath(table_root, "_delta_log");
  auto hint = ReadLastCheckpoint(fs, log_dir);
  if (hint && (!options.version || hint->version <= *options.version)) {
    // Listing from the hint skips the history before it. The hint may be stale or point at a
    // checkpoint that is not there; any doubt falls through to a full listing below.
    Listing listing = Collect(fs.List(log_dir, FormatVersion(hint->version)));
    if (!listing.checkpoints.empty() && listing.checkpoints.begin()->first <= options.version.value_or(INT64_MAX)) {
      try {
        LogSegment segment = Select(listing, table_root, log_dir, options);
        if (segment.checkpoint) {
          // The earliest version needs the full listing; it is only used in messages, so keep
          // what the partial listing says unless a full listing is made anyway.
          return segment;
        }
      } catch (const Error&) {
        // Fall back to the full listing, which gives the authoritative answer or error.
      }
    }
  }
  return Select(Collect(fs.List(log_dir)), table_root, log_dir, options);
}

int64_t EarliestReconstructableVersion(io::FileSystem& fs, std::string_view table_root) {
  std::string log_dir = io::JoinPath(table_root, "_delta_log");
  return Select(Collect(fs.List(log_dir)), table_root, log_dir, LogSegmentOptions{}).earliest_version;
}

std::vector<CommitFile> ListCommits(io::FileSystem& fs, std::string_view table_root) {
  std::vector<CommitFile> commits;
  for (const auto& entry : fs.List(io::JoinPath(table_root, "_delta_log"))) {
    auto name = ParseLogFileName(io::BaseName(entry.path));
    if (name && name->type == LogFileName::Type::kCommit && !entry.is_directory) {
      commits.push_back({name->version, entry});
    }
  }
  std::sort(commits.begin(), commits.end(),
            [](const CommitFile& a, const CommitFile& b) { return a.version < b.version; });
  return commits;
}

}  // namespace silt::log
