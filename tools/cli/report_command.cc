#include "report_command.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "report_html.h"
#include "silt/commands/table_health.h"
#include "silt/io/file_system.h"
#include "silt/session.h"
#include "silt/sql/session_state.h"
#include "silt/types/date_time.h"

namespace silt::cli {
namespace {

using commands::FormatByteSize;
using commands::FormatDuration;
using commands::TableHealth;

// The text report lists this many partitions, deletion vectors and commits; JSON and HTML
// carry the rest.
constexpr size_t kMaxTextRows = 10;
constexpr int kHistogramWidth = 40;

struct ReportOptions {
  std::string table;
  std::string warehouse;
  std::string format = "text";
  std::string html_path;
  int64_t small_file_bytes = commands::kDefaultSmallFileBytes;
  double dense_deletion_vector_ratio = commands::kDefaultDenseDeletionVectorRatio;
};

// A TABLE argument with a '/' is a path (delta.`path`); anything else is a catalog name,
// `t` or `db.t`.
sql::QualifiedName TableName(const std::string& text) {
  if (text.find('/') != std::string::npos) return {"delta", text};
  sql::QualifiedName name;
  size_t start = 0;
  while (true) {
    size_t dot = text.find('.', start);
    name.push_back(text.substr(start, dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return name;
}

std::string Timestamp(int64_t ms) { return FormatTimestamp(ms * 1000) + " UTC"; }

std::string Ago(const TableHealth& health, const std::optional<int64_t>& version,
                const std::optional<int64_t>& ms) {
  if (!version) return "never";
  std::string text = "version " + std::to_string(*version);
  if (ms) {
    text += ", " + Timestamp(*ms) + " (" +
            FormatDuration(std::max<int64_t>(0, health.now_ms - *ms)) + " ago)";
  }
  return text;
}

std::string Rows(const std::optional<int64_t>& rows) { return rows ? std::to_string(*rows) : "?"; }

std::string Pad(std::string text, size_t width, bool right = false) {
  if (text.size() >= width) return text;
  std::string padding(width - text.size(), ' ');
  return right ? padding + text : text + padding;
}

std::string Percent(double share) {
  char text[16];
  std::snprintf(text, sizeof(text), "%.0f%%", share * 100);
  return text;
}

std::string TextReport(const TableHealth& health) {
  std::string out = "Table health: " + health.location + "\n";
  out += "Version " + std::to_string(health.version) + " of " + Timestamp(health.timestamp_ms) +
         ": " + std::to_string(health.num_files) + " files, " + FormatByteSize(health.size_bytes) +
         ", " + (health.num_rows ? std::to_string(*health.num_rows) : "unknown") + " rows\n";

  out += "\nAdvice\n";
  if (health.advice.empty()) out += "  nothing to do: the table looks healthy\n";
  for (const commands::HealthAdvice& advice : health.advice) {
    out += "  - " + advice.message + "\n";
  }

  out += "\nFile sizes (" + std::to_string(health.small_files) + " of " +
         std::to_string(health.num_files) + " files under " +
         FormatByteSize(health.small_file_bytes) + ")\n";
  if (health.target_file_bytes) {
    out += "  delta.targetFileSize " + FormatByteSize(*health.target_file_bytes) + ": " +
           std::to_string(health.files_below_half_target) + " files under half of it\n";
  }
  int64_t most = 1;
  for (const auto& bucket : health.size_histogram) most = std::max(most, bucket.files);
  for (const auto& bucket : health.size_histogram) {
    std::string range = bucket.upper_bytes ? FormatByteSize(bucket.lower_bytes) + " - " +
                                                 FormatByteSize(*bucket.upper_bytes)
                                           : ">= " + FormatByteSize(bucket.lower_bytes);
    int bar = static_cast<int>(kHistogramWidth * bucket.files / most);
    if (bucket.files > 0 && bar == 0) bar = 1;
    out += "  " + Pad(range, 20) + Pad(std::to_string(bucket.files), 8, true) + " files " +
           Pad(FormatByteSize(bucket.bytes), 10, true) + "  " + std::string(bar, '#') + "\n";
  }

  out += "\nPartitions";
  if (health.partition_columns.empty()) {
    out += ": not partitioned\n";
  } else {
    std::string columns;
    for (const auto& column : health.partition_columns) {
      columns += (columns.empty() ? "" : ", ") + column;
    }
    out += " by " + columns + ": " + std::to_string(health.partitions.size()) + ", median " +
           FormatByteSize(health.median_partition_bytes) + "\n";
    for (size_t i = 0; i < health.partitions.size() && i < kMaxTextRows; ++i) {
      const auto& partition = health.partitions[i];
      out += "  " + Pad(partition.name, 40) + Pad(std::to_string(partition.files), 8, true) +
             " files " + Pad(FormatByteSize(partition.bytes), 10, true) + "\n";
    }
    if (health.partitions.size() > kMaxTextRows) {
      out += "  ... " + std::to_string(health.partitions.size() - kMaxTextRows) + " more\n";
    }
  }

  out += "\nDeletion vectors: " + std::to_string(health.deletion_vectors.size()) + " files, " +
         std::to_string(health.deleted_rows) + " rows deleted, " +
         std::to_string(health.dense_deletion_vector_files) + " files over " +
         Percent(health.dense_deletion_vector_ratio) + "\n";
  for (size_t i = 0; i < health.deletion_vectors.size() && i < kMaxTextRows; ++i) {
    const auto& dv = health.deletion_vectors[i];
    out += "  " + std::to_string(dv.deleted_rows) + " of " + Rows(dv.rows) + " rows" +
           (dv.density ? " (" + Percent(*dv.density) + ")" : std::string()) + "  " + dv.path + "\n";
  }

  out += "\nChange data feed: " + std::to_string(health.change_data_files) + " files, " +
         FormatByteSize(health.change_data_bytes) + " referenced by the log\n";

  out += "\nMaintenance\n";
  out +=
      "  last OPTIMIZE:    " + Ago(health, health.last_optimize_version, health.last_optimize_ms) +
      "\n";
  out += "  last VACUUM:      " + Ago(health, health.last_vacuum_version, health.last_vacuum_ms) +
         "\n";
  out += "  last checkpoint:  " +
         Ago(health, health.last_checkpoint_version, health.last_checkpoint_ms) + "; " +
         std::to_string(health.commits_since_checkpoint) + " commits since (interval " +
         std::to_string(health.checkpoint_interval) + ")\n";
  if (health.vacuum) {
    out += "  VACUUM now:       would delete " + std::to_string(health.vacuum->files) + " files, " +
           FormatByteSize(health.vacuum->bytes) + " (retention " +
           FormatDuration(health.vacuum->retention_ms) + ")\n";
  } else {
    out += "  VACUUM now:       no estimate: " + health.vacuum_unavailable + "\n";
  }

  out += "\nCommits (newest first; rows +added/-removed, files +added/-removed)\n";
  size_t shown = 0;
  for (auto commit = health.commits.rbegin();
       commit != health.commits.rend() && shown < kMaxTextRows; ++commit, ++shown) {
    out += "  " + Pad(std::to_string(commit->version), 6, true) + "  " +
           Timestamp(commit->timestamp_ms) + "  " + Pad(commit->operation, 18) + " rows +" +
           Pad(Rows(commit->rows_added), 8) + " -" + Pad(Rows(commit->rows_removed), 8) +
           " files +" + Pad(std::to_string(commit->files_added), 5) + " -" +
           std::to_string(commit->files_removed) + "\n";
  }
  if (health.commits.size() > shown) {
    out += "  ... " + std::to_string(health.commits.size() - shown) + " older commits\n";
  }
  return out;
}

void WriteHtml(const std::string& path, const std::string& html) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw CLI::ValidationError("--html", "cannot write " + path);
  out << html;
  out.close();
  if (!out) throw CLI::ValidationError("--html", "cannot write " + path);
}

void RunReport(const ReportOptions& options) {
  // The session picks the warehouse as `silt sql` does; names resolve in a state over it.
  SessionOptions session_options;
  session_options.warehouse = options.warehouse;
  Session session(std::move(session_options));
  sql::SessionState state(io::MakeLocalFileSystem(), session.warehouse());
  commands::TableHealthOptions health_options;
  health_options.small_file_bytes = options.small_file_bytes;
  health_options.dense_deletion_vector_ratio = options.dense_deletion_vector_ratio;
  TableHealth health =
      commands::ComputeTableHealth(state, TableName(options.table), health_options);
  if (!options.html_path.empty()) {
    WriteHtml(options.html_path, RenderHealthHtml(health));
    std::cout << "wrote " << options.html_path << "\n";
    return;
  }
  if (options.format == "json") {
    std::cout << commands::TableHealthJson(health) << "\n";
  } else {
    std::cout << TextReport(health);
  }
}

}  // namespace

void AddReportCommand(CLI::App& app) {
  auto options = std::make_shared<ReportOptions>();
  CLI::App* report =
      app.add_subcommand("report",
                         "Report a Delta table's health: file sizes, partitions, deletion vectors, "
                         "change data, maintenance, and what to run about them");
  report->add_option("table", options->table, "A table name in the warehouse, or a path (with a /)")
      ->required();
  report->add_option("--warehouse", options->warehouse,
                     "Folder of the named tables (default $SILT_WAREHOUSE, else ./silt-warehouse)");
  report->add_option("--format", options->format, "Output: text or json")
      ->check(CLI::IsMember({"text", "json"}));
  report->add_option("--html", options->html_path,
                     "Write the report as one self-contained HTML page to this file");
  report
      ->add_option("--small-file-size", options->small_file_bytes,
                   "Files under this size count as small (default 8MB)")
      ->transform(CLI::AsSizeValue(false))
      ->check(CLI::PositiveNumber);
  report
      ->add_option("--deleted-rows-ratio", options->dense_deletion_vector_ratio,
                   "Flag files whose deletion vector hides more than this share of rows "
                   "(default 0.3)")
      ->check(CLI::Range(0.0, 1.0));
  report->callback([options] { RunReport(*options); });
}

}  // namespace silt::cli
