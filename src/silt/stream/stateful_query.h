#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "silt/sql/ast.h"
#include "silt/stream/sink.h"
#include "silt/types/data_type.h"

namespace silt::stream {

/// Where the parser keeps `STREAM(t) WATERMARK column DELAY OF INTERVAL ...` (and the C++ API
/// WithWatermark): two entries of the stream reference's options, which ReplaceStreamSource
/// leaves on the stream input's reference instead of handing them to the source.
inline constexpr std::string_view kWatermarkColumnOption = "__watermark_column";
inline constexpr std::string_view kWatermarkDelayOption = "__watermark_delay";

/// An event-time watermark (Spark's withWatermark): the watermark is the largest event time
/// seen, minus the delay; rows at or before it are late for stateful operators.
struct Watermark {
  std::string column;  ///< a timestamp column of the stream's rows
  int64_t delay_ms = 0;
};

/// The watermark declared on the query's stream input (after ReplaceStreamSource), if any.
/// Throws INVALID_STREAMING_OPTION for a delay that is not a non-negative duration.
std::optional<Watermark> FindWatermark(const sql::Query& query);

/// Declares `watermark` on the STREAM(...) reference of `query` (before ReplaceStreamSource).
void SetWatermark(sql::Query& query, const std::string& column, const std::string& delay);

/// dropDuplicates / dropDuplicatesWithinWatermark of the C++ API, applied to the query's rows.
struct Deduplication {
  std::vector<std::string> columns;  ///< empty: every column
  bool within_watermark = false;
};

/// A streaming query whose top is one stateful operator — an aggregation (GROUP BY, with
/// count, sum, min, max and avg), DISTINCT, or a deduplication — run incrementally: each batch
/// merges the batch's rows into the state of the batch before it and writes the result as the
/// next state version (stream/state_store.h); the batch's output is then read from that
/// version. The state is a table of rows:
///
///   aggregation     `__k0..` group keys, `__p0..` partial aggregates (count, sum, min, max;
///                   avg keeps a sum and a count), `__updated`, `__expired`
///   deduplication   the first row of each key (the query's columns), `__expires_at`
///                   (within-watermark only, microseconds), `__updated`, `__expired`
///
/// `__updated` marks the rows this batch changed (update mode's output, the deduplication's
/// new rows); `__expired` the rows the batch's watermark evicts (append mode's output of an
/// aggregation): they are dropped from the next version.
class StatefulQuery {
 public:
  enum class Kind { kAggregate, kDeduplicate, kDeduplicateWithinWatermark };

  /// The stateful plan of `query` (its stream already replaced), or nullopt when its top is no
  /// stateful operator and `deduplication` is not set. `output` is the query's output schema.
  /// Throws STREAMING_OUTPUT_MODE_UNSUPPORTED for an append-mode aggregation without a
  /// watermark on a group key, sorting or LIMIT outside complete mode, a deduplication in
  /// complete mode; UNSUPPORTED_FEATURE for aggregates that cannot be merged (DISTINCT, or
  /// other than count, sum, min, max, avg), GROUPING SETS and a deduplication of a query that
  /// already aggregates — except in complete mode, where such an aggregation has no plan (the
  /// executor recomputes it over everything read); UNRESOLVED_COLUMN for a deduplication column
  /// the query lacks.
  static std::optional<StatefulQuery> Plan(const sql::Query& query,
                                           const std::optional<Deduplication>& deduplication,
                                           OutputMode mode, const Schema& output);

  Kind kind() const { return kind_; }
  /// Spark's name of the operator: stateStoreSave, dedupe or dedupeWithinWatermark.
  std::string_view operator_name() const;
  /// The query over the stream input whose rows enter the operator (for the checks that
  /// nothing below it needs state).
  const sql::Query& input_query() const { return *input_; }

  /// The query that computes the next state version from the batch's input and the previous
  /// version (`previous`: its file, or empty for the first batch), at the batch's watermark.
  std::string StateSql(const std::string& previous, int64_t watermark_ms) const;
  /// The batch's output, read from the state version the batch wrote.
  std::string OutputSql(const std::string& state) const;
  /// numRowsTotal, numRowsUpdated and numRowsRemoved of a state version.
  std::string MetricsSql(const std::string& state) const;

 private:
  StatefulQuery() = default;
  static StatefulQuery PlanAggregate(const sql::Query& query, OutputMode mode, const Schema& output,
                                     const std::optional<Watermark>& watermark);
  static StatefulQuery PlanDeduplicate(const sql::Query& query, std::vector<std::string> keys,
                                       bool within_watermark, OutputMode mode, const Schema& output,
                                       const std::optional<Watermark>& watermark);
  std::string ExpiredSql(int64_t watermark_ms) const;

  Kind kind_ = Kind::kAggregate;
  OutputMode mode_ = OutputMode::kAppend;
  sql::QueryPtr input_;
  std::optional<Watermark> watermark_;
  // Aggregation: the partial query (keys then partials, over the batch input), the merge of
  // each partial column, the output items and the HAVING / ORDER BY / LIMIT over the state.
  std::string partial_sql_;
  std::vector<std::string> key_columns_;
  std::vector<std::pair<std::string, std::string>> partial_merges_;  // column, merge function
  std::vector<std::string> output_items_;
  std::string having_;
  std::string order_and_limit_;
  // The state column the watermark evicts by (`__k3`, `__k3`.`end`, a column, `__expires_at`);
  // empty: nothing is evicted.
  std::string eviction_column_;
  // Deduplication: the query's columns and the key columns (quoted).
  std::vector<std::string> columns_;
  std::vector<std::string> keys_;
  std::string event_time_;  // the watermark column, quoted
  int64_t delay_micros_ = 0;
};

}  // namespace silt::stream
