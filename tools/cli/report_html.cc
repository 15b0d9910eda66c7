#include "report_html.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "silt/types/date_time.h"

namespace silt::cli {
namespace {

using commands::CommitHealth;
using commands::FormatByteSize;
using commands::FormatDuration;
using commands::TableHealth;

// Charts are drawn in a fixed coordinate system and scale with the page (viewBox).
constexpr int kChartWidth = 1000;
constexpr int kChartHeight = 280;
constexpr int kMarginLeft = 20;
constexpr int kMarginRight = 20;
constexpr int kMarginTop = 44;
constexpr int kMarginBottom = 50;
// More bars than these would make their labels unreadable; the page says what was left out.
constexpr size_t kMaxVersionsCharted = 50;
constexpr size_t kMaxPartitionsCharted = 20;
constexpr size_t kMaxDeletionVectorsCharted = 20;
constexpr size_t kMaxCommitRows = 200;

constexpr const char* kBarColor = "#4c78a8";
constexpr const char* kSmallColor = "#e45756";
constexpr const char* kAddedColor = "#54a24b";
constexpr const char* kRemovedColor = "#e45756";

constexpr const char* kStyle =
    "body{font-family:sans-serif;margin:24px 32px;color:#222;background:#fff;max-width:1100px}"
    "h1{font-size:24px;margin-bottom:4px}h2{font-size:18px;margin-top:28px;"
    "border-bottom:1px solid #ddd;padding-bottom:4px}"
    ".location{color:#555;font-family:monospace;margin-top:0}"
    "table{border-collapse:collapse;font-size:13px}"
    "td,th{border:1px solid #ddd;padding:3px 8px;text-align:right}"
    "th{background:#f4f4f4}td.text,th.text{text-align:left}"
    "ul.advice li{margin:4px 0}ul.advice li.none{color:#2a7a2a}"
    "svg{width:100%;height:auto;display:block;margin:8px 0}"
    "svg text{font-family:sans-serif;font-size:12px;fill:#222}"
    "svg text.value{font-weight:bold}p.note{color:#666;font-size:13px}";

std::string Escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string Number(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f", value);
  return text;
}

std::string Timestamp(int64_t ms) { return FormatTimestamp(ms * 1000) + " UTC"; }

std::string Ago(const TableHealth& health, const std::optional<int64_t>& ms) {
  if (!ms) return "never";
  return Timestamp(*ms) + " (" + FormatDuration(std::max<int64_t>(0, health.now_ms - *ms)) +
         " ago)";
}

std::string OptionalRows(const std::optional<int64_t>& rows) {
  return rows ? std::to_string(*rows) : "?";
}

std::string SvgOpen(const std::string& id, const std::string& title, int height = kChartHeight) {
  return "<svg id=\"" + id + "\" viewBox=\"0 0 " + std::to_string(kChartWidth) + " " +
         std::to_string(height) + "\" role=\"img\" aria-label=\"" + Escape(title) +
         "\" xmlns=\"http://www.w3.org/2000/svg\">";
}

std::string Text(double x, double y, const std::string& css_class, const std::string& attributes,
                 const std::string& text, const char* anchor = "middle") {
  return "<text class=\"" + css_class + "\" x=\"" + Number(x) + "\" y=\"" + Number(y) +
         "\" text-anchor=\"" + anchor + "\"" + attributes + ">" + Escape(text) + "</text>";
}

// Text turned to run upwards from (x, y), in a smaller font: labels of narrow bars.
std::string VerticalText(double x, double y, const std::string& css_class,
                         const std::string& attributes, const std::string& text,
                         const char* anchor) {
  return Text(x, y, css_class,
              " transform=\"rotate(-90 " + Number(x) + " " + Number(y) +
                  ")\" style=\"font-size:10px\"" + attributes,
              text, anchor);
}

std::string Rect(double x, double y, double width, double height, const char* color,
                 const std::string& tooltip) {
  return "<rect x=\"" + Number(x) + "\" y=\"" + Number(y) + "\" width=\"" + Number(width) +
         "\" height=\"" + Number(height) + "\" fill=\"" + color + "\"><title>" + Escape(tooltip) +
         "</title></rect>";
}

std::string Baseline(double y) {
  return "<line x1=\"" + std::to_string(kMarginLeft) + "\" y1=\"" + Number(y) + "\" x2=\"" +
         std::to_string(kChartWidth - kMarginRight) + "\" y2=\"" + Number(y) +
         "\" stroke=\"#888\" stroke-width=\"1\"/>";
}

// "1–8 MB", or "0 B–64 KB" when the ends have different units.
std::string BucketLabel(const commands::SizeBucket& bucket) {
  std::string lower = FormatByteSize(bucket.lower_bytes);
  if (!bucket.upper_bytes) return "\u2265 " + lower;
  std::string upper = FormatByteSize(*bucket.upper_bytes);
  size_t space = lower.find(' ');
  if (space != std::string::npos && upper.ends_with(lower.substr(space))) lower.resize(space);
  return lower + "\u2013" + upper;
}

// Vertical bars, one per size bucket, labelled with their file counts; buckets below the
// small-file threshold are drawn in the warning colour.
std::string SizeHistogram(const TableHealth& health) {
  std::string svg = SvgOpen("size-histogram", "file-size histogram");
  int64_t most = 1;
  for (const auto& bucket : health.size_histogram) most = std::max(most, bucket.files);
  double plot_height = kChartHeight - kMarginTop - kMarginBottom;
  double slot = static_cast<double>(kChartWidth - kMarginLeft - kMarginRight) /
                static_cast<double>(std::max<size_t>(1, health.size_histogram.size()));
  double base = kChartHeight - kMarginBottom;
  for (size_t i = 0; i < health.size_histogram.size(); ++i) {
    const commands::SizeBucket& bucket = health.size_histogram[i];
    bool small = bucket.upper_bytes && *bucket.upper_bytes <= health.small_file_bytes;
    double height = plot_height * static_cast<double>(bucket.files) / static_cast<double>(most);
    double x = kMarginLeft + slot * static_cast<double>(i);
    std::string label = BucketLabel(bucket);
    svg += Rect(x + slot * 0.15, base - height, slot * 0.7, height, small ? kSmallColor : kBarColor,
                label + ": " + std::to_string(bucket.files) + " files, " +
                    std::to_string(bucket.bytes) + " bytes");
    std::string data = " data-bucket=\"" + std::to_string(i) + "\"";
    svg += Text(x + slot / 2, base - height - 6, "value", data, std::to_string(bucket.files));
    svg += Text(x + slot / 2, base + 18, "label", data, label);
    svg += Text(x + slot / 2, base + 34, "bytes", data, FormatByteSize(bucket.bytes));
  }
  svg += Baseline(base);
  svg += Text(kMarginLeft, 16, "axis", "", "files per size", "start");
  return svg + "</svg>";
}

// Rows added (up, green) and removed (down, red) per version around a zero line, each bar
// labelled with its count. Bars too narrow for their labels get them turned upright.
std::string RowsPerVersion(const std::vector<CommitHealth>& commits) {
  constexpr double kNarrowSlot = 40;
  double slot = static_cast<double>(kChartWidth - kMarginLeft - kMarginRight) /
                static_cast<double>(std::max<size_t>(1, commits.size()));
  bool narrow = slot < kNarrowSlot;
  int height = narrow ? kChartHeight + 120 : kChartHeight;
  double version_band = narrow ? 40 : 30;
  double label_room = narrow ? 52 : 14;
  std::string svg = SvgOpen("rows-per-version", "rows added and removed per version", height);
  int64_t most = 1;
  for (const CommitHealth& commit : commits) {
    most = std::max({most, commit.rows_added.value_or(0), commit.rows_removed.value_or(0)});
  }
  double zero = kMarginTop + (height - kMarginTop - version_band) / 2.0;
  double half = (height - kMarginTop - version_band) / 2.0 - label_room;
  for (size_t i = 0; i < commits.size(); ++i) {
    const CommitHealth& commit = commits[i];
    double x = kMarginLeft + slot * static_cast<double>(i);
    std::string data = " data-version=\"" + std::to_string(commit.version) + "\"";
    std::string what = "version " + std::to_string(commit.version) + " " + commit.operation;
    double added = half * static_cast<double>(commit.rows_added.value_or(0)) / most;
    double removed = half * static_cast<double>(commit.rows_removed.value_or(0)) / most;
    svg += Rect(x + slot * 0.15, zero - added, slot * 0.7, added, kAddedColor,
                what + ": " + OptionalRows(commit.rows_added) + " rows added");
    svg += Rect(x + slot * 0.15, zero, slot * 0.7, removed, kRemovedColor,
                what + ": " + OptionalRows(commit.rows_removed) + " rows removed");
    std::string version = "v" + std::to_string(commit.version);
    if (narrow) {
      double center = x + slot / 2 + 4;  // an upright glyph sits left of its baseline
      svg += VerticalText(center, zero - added - 4, "added", data, OptionalRows(commit.rows_added),
                          "start");
      svg += VerticalText(center, zero + removed + 4, "removed", data,
                          OptionalRows(commit.rows_removed), "end");
      svg += VerticalText(center, height - 4, "label", data, version, "start");
    } else {
      svg += Text(x + slot / 2, zero - added - 4, "added", data, OptionalRows(commit.rows_added));
      svg += Text(x + slot / 2, zero + removed + 12, "removed", data,
                  OptionalRows(commit.rows_removed));
      svg += Text(x + slot / 2, height - 12, "label", data, version);
    }
  }
  svg += Baseline(zero);
  svg += Text(kMarginLeft, 16, "axis", "", "rows added (up) and removed (down)", "start");
  return svg + "</svg>";
}

// Horizontal bars of `values` (label, value, value text), largest first as given.
struct HorizontalBar {
  std::string label;
  double value = 0;
  std::string value_text;
  std::string data;  // extra attributes for the labels
  const char* color = kBarColor;
};

std::string HorizontalBars(const std::string& id, const std::string& title,
                           const std::vector<HorizontalBar>& bars) {
  constexpr int kRow = 24;
  constexpr int kLabelWidth = 300;
  constexpr int kValueWidth = 220;
  int height = kMarginTop + kRow * static_cast<int>(bars.size()) + 10;
  std::string svg = SvgOpen(id, title, height);
  double most = 0;
  for (const HorizontalBar& bar : bars) most = std::max(most, bar.value);
  if (most <= 0) most = 1;
  double plot = kChartWidth - kMarginLeft - kLabelWidth - kValueWidth;
  for (size_t i = 0; i < bars.size(); ++i) {
    const HorizontalBar& bar = bars[i];
    double y = kMarginTop + kRow * static_cast<double>(i);
    double width = plot * bar.value / most;
    std::string label = bar.label.size() > 42 ? bar.label.substr(0, 20) + "\u2026" +
                                                    bar.label.substr(bar.label.size() - 20)
                                              : bar.label;
    svg += Text(kMarginLeft + kLabelWidth - 8, y + 15, "label", bar.data, label, "end");
    svg += Rect(kMarginLeft + kLabelWidth, y + 3, width, kRow - 6, bar.color,
                bar.label + ": " + bar.value_text);
    svg += Text(kMarginLeft + kLabelWidth + width + 6, y + 15, "value", bar.data, bar.value_text,
                "start");
  }
  svg += Text(kMarginLeft, 16, "axis", "", title, "start");
  return svg + "</svg>";
}

std::string PartitionChart(const TableHealth& health) {
  std::vector<HorizontalBar> bars;
  for (size_t i = 0; i < health.partitions.size() && i < kMaxPartitionsCharted; ++i) {
    const commands::PartitionHealth& partition = health.partitions[i];
    HorizontalBar bar;
    bar.label = partition.name.empty() ? "(not partitioned)" : partition.name;
    bar.value = static_cast<double>(partition.bytes);
    bar.value_text = std::to_string(partition.files) + " files, " + FormatByteSize(partition.bytes);
    bar.data = " data-partition=\"" + Escape(partition.name) + "\" data-files=\"" +
               std::to_string(partition.files) + "\" data-bytes=\"" +
               std::to_string(partition.bytes) + "\"";
    bars.push_back(std::move(bar));
  }
  return HorizontalBars("partition-sizes", "bytes per partition (largest first)", bars);
}

std::string DeletionVectorChart(const TableHealth& health) {
  std::vector<HorizontalBar> bars;
  for (size_t i = 0; i < health.deletion_vectors.size() && i < kMaxDeletionVectorsCharted; ++i) {
    const commands::DeletionVectorHealth& dv = health.deletion_vectors[i];
    HorizontalBar bar;
    bar.label = dv.path;
    bar.value = dv.density.value_or(0);
    bar.value_text = std::to_string(dv.deleted_rows) + " of " + OptionalRows(dv.rows) +
                     " rows deleted" +
                     (dv.density ? " (" + Number(*dv.density * 100) + "%)" : std::string());
    bar.data = " data-deleted=\"" + std::to_string(dv.deleted_rows) + "\"";
    if (dv.density && *dv.density > health.dense_deletion_vector_ratio) bar.color = kSmallColor;
    bars.push_back(std::move(bar));
  }
  return HorizontalBars("deletion-vector-density", "share of rows deleted per file (densest first)",
                        bars);
}

std::string Row(const std::vector<std::string>& cells, bool header = false) {
  std::string row = "<tr>";
  for (size_t i = 0; i < cells.size(); ++i) {
    const char* tag = header ? "th" : "td";
    row += std::string("<") + tag + (i == 0 ? " class=\"text\"" : "") + ">" + Escape(cells[i]) +
           "</" + tag + ">";
  }
  return row + "</tr>";
}

}  // namespace

std::string RenderHealthHtml(const TableHealth& health) {
  std::string html =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<title>Table health: " +
      Escape(health.location) + "</title><style>" + kStyle + "</style></head><body>\n";
  html += "<h1>Table health</h1><p class=\"location\">" + Escape(health.location) + "</p>\n";
  html += "<p id=\"summary\">Version " + std::to_string(health.version) + " of " +
          Escape(Timestamp(health.timestamp_ms)) + ": " + std::to_string(health.num_files) +
          " files, " + Escape(FormatByteSize(health.size_bytes)) + ", " +
          (health.num_rows ? std::to_string(*health.num_rows) : std::string("unknown")) +
          " rows. Report made " + Escape(Timestamp(health.now_ms)) + ".</p>\n";

  html += "<section id=\"advice\"><h2>Advice</h2><ul class=\"advice\">";
  if (health.advice.empty()) {
    html += "<li class=\"none\">Nothing to do: the table looks healthy.</li>";
  }
  for (const commands::HealthAdvice& advice : health.advice) {
    html += "<li data-kind=\"" + Escape(advice.kind) + "\">" + Escape(advice.message) + "</li>";
  }
  html += "</ul></section>\n";

  html += "<section id=\"sizes\"><h2>File sizes</h2><p>" + std::to_string(health.small_files) +
          " of " + std::to_string(health.num_files) + " files (" +
          Escape(FormatByteSize(health.small_files_bytes)) + ") are under " +
          Escape(FormatByteSize(health.small_file_bytes)) + " (red bars).";
  if (health.target_file_bytes) {
    html += " delta.targetFileSize is " + Escape(FormatByteSize(*health.target_file_bytes)) + "; " +
            std::to_string(health.files_below_half_target) + " files are under half of it.";
  }
  html += "</p>" + SizeHistogram(health) + "</section>\n";

  std::vector<CommitHealth> charted = health.commits;
  if (charted.size() > kMaxVersionsCharted) {
    charted.erase(charted.begin(), charted.end() - kMaxVersionsCharted);
  }
  html += "<section id=\"history\"><h2>Rows added and removed per version</h2>";
  if (charted.size() < health.commits.size()) {
    html += "<p class=\"note\">The last " + std::to_string(charted.size()) + " of " +
            std::to_string(health.commits.size()) + " commits.</p>";
  }
  html += RowsPerVersion(charted) + "</section>\n";

  html += "<section id=\"partitions\"><h2>Partitions</h2><p>";
  if (health.partition_columns.empty()) {
    html += "The table is not partitioned.";
  } else {
    std::string columns;
    for (const std::string& column : health.partition_columns) {
      columns += (columns.empty() ? "" : ", ") + column;
    }
    html += std::to_string(health.partitions.size()) + " partitions by " + Escape(columns) +
            "; the median partition holds " +
            Escape(FormatByteSize(health.median_partition_bytes)) + ".";
    if (health.partitions.size() > kMaxPartitionsCharted) {
      html += " The largest " + std::to_string(kMaxPartitionsCharted) + " are shown.";
    }
  }
  html += "</p>" + PartitionChart(health) + "</section>\n";

  html += "<section id=\"deletion-vectors\"><h2>Deletion vectors</h2><p>" +
          std::to_string(health.deletion_vectors.size()) + " files have deletion vectors, hiding " +
          std::to_string(health.deleted_rows) + " rows; " +
          std::to_string(health.dense_deletion_vector_files) + " have more than " +
          Number(health.dense_deletion_vector_ratio * 100) + "% of their rows deleted.</p>";
  if (!health.deletion_vectors.empty()) html += DeletionVectorChart(health);
  html += "</section>\n";

  html += "<section id=\"maintenance\"><h2>Maintenance</h2><table>";
  html += Row({"what", "version", "when"}, true);
  auto version_text = [](const std::optional<int64_t>& version) {
    return version ? std::to_string(*version) : std::string("-");
  };
  html += Row({"last OPTIMIZE", version_text(health.last_optimize_version),
               Ago(health, health.last_optimize_ms)});
  html += Row({"last VACUUM", version_text(health.last_vacuum_version),
               Ago(health, health.last_vacuum_ms)});
  html += Row({"last checkpoint", version_text(health.last_checkpoint_version),
               Ago(health, health.last_checkpoint_ms)});
  html += "</table><p>" + std::to_string(health.commits_since_checkpoint) +
          " commits since the last checkpoint (delta.checkpointInterval " +
          std::to_string(health.checkpoint_interval) +
          "). Change data feed: " + std::to_string(health.change_data_files) +
          " change-data files (" + Escape(FormatByteSize(health.change_data_bytes)) +
          ") referenced by the log. ";
  if (health.vacuum) {
    html += "VACUUM with the table's retention (" +
            Escape(FormatDuration(health.vacuum->retention_ms)) + ") would delete " +
            std::to_string(health.vacuum->files) + " files (" +
            Escape(FormatByteSize(health.vacuum->bytes)) + ").";
  } else {
    html += "No VACUUM estimate: " + Escape(health.vacuum_unavailable);
  }
  html += "</p></section>\n";

  html += "<section id=\"commits\"><h2>Commits</h2>";
  size_t first =
      health.commits.size() > kMaxCommitRows ? health.commits.size() - kMaxCommitRows : 0;
  if (first > 0) {
    html += "<p class=\"note\">The last " + std::to_string(kMaxCommitRows) + " of " +
            std::to_string(health.commits.size()) + " commits.</p>";
  }
  html += "<table>";
  html += Row({"version", "timestamp", "operation", "rows added", "rows removed", "files added",
               "files removed", "bytes added", "change data files"},
              true);
  for (size_t i = health.commits.size(); i-- > first;) {
    const CommitHealth& commit = health.commits[i];
    html += Row({std::to_string(commit.version), Timestamp(commit.timestamp_ms), commit.operation,
                 OptionalRows(commit.rows_added), OptionalRows(commit.rows_removed),
                 std::to_string(commit.files_added), std::to_string(commit.files_removed),
                 FormatByteSize(commit.bytes_added), std::to_string(commit.change_data_files)});
  }
  html += "</table></section>\n</body></html>\n";
  return html;
}

}  // namespace silt::cli
