#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "silt/stream/source.h"

namespace silt::stream {

/// Spark's two rate sources: `rate` and `rate-micro-batch`.
enum class RateKind { kPerSecond, kPerMicroBatch };

/// Rows made up for tests and demos, as Spark's `rate` and `rate-micro-batch` sources make
/// them: columns `timestamp` (TIMESTAMP) and `value` (BIGINT, counting from 0), the values of
/// a batch spread over `numPartitions` partitions and listed partition by partition.
///
/// `rate` (RateKind::kPerSecond) produces `rowsPerSecond` rows (default 1) for each second since
/// the query first started, ramping up linearly over `rampUpTime` (e.g. "5s", default 0); its
/// offset is the number of whole seconds elapsed, and its start time is kept in the
/// checkpoint's `sources/0/0` (`v1`, then the time in ms), as Spark keeps it. Row v of a batch
/// over seconds (s, e] is stamped start + s seconds + round((v - first) * (e - s) seconds /
/// rows).
///
/// `rate-micro-batch` (RateKind::kPerMicroBatch, Spark 3.3+) produces exactly `rowsPerBatch`
/// rows per batch whatever the time, all stamped with the batch's timestamp, which starts at
/// `startTimestamp` (ms, default 0) and advances by `advanceMillisPerBatch` (default 1000) per
/// batch; its offset is `{"offset":<rows so far>,"timestamp":<ms>}`. It makes streaming tests
/// deterministic. Under an available-now trigger both produce one batch's worth (`rate`: up to
/// the seconds elapsed when the query started).
///
/// Not thread-safe.
class RateSource final : public Source {
 public:
  /// Throws INVALID_STREAMING_OPTION for an option that is not a positive number (or, for
  /// startTimestamp and advanceMillisPerBatch, a non-negative one), and when rate-micro-batch
  /// has no rowsPerBatch.
  static std::unique_ptr<RateSource> Open(RateKind kind, const StreamOptions& options);

  std::string Describe() const override;
  SchemaPtr schema() const override { return schema_; }
  /// `rate` keeps its start time in `folder`/0 (Spark's layout); `rate-micro-batch` keeps
  /// nothing.
  bool OpenMetadata(const std::shared_ptr<io::FileSystem>& fs, const std::string& folder) override;
  std::string InitialOffset() override;
  /// Throws STREAMING_CHECKPOINT_CORRUPT for an offset of another shape.
  void ValidateOffset(const std::string& offset) override;
  void PrepareForAvailableNow() override;
  std::optional<std::string> LatestOffset(const std::string& start) override;
  BatchInput PlanBatch(const std::string& start, const std::string& end) override;

  /// Spark's count of rows made in the first `seconds` seconds with a linear ramp-up.
  static int64_t ValueAtSecond(int64_t seconds, int64_t rows_per_second, int64_t ramp_up_seconds);

 private:
  struct MicroBatchOffset {
    int64_t offset = 0;
    int64_t timestamp_ms = 0;
  };
  RateSource() = default;
  MicroBatchOffset ParseMicroBatchOffset(const std::string& text) const;
  static std::string MicroBatchJson(const MicroBatchOffset& offset);
  int64_t ParseSeconds(const std::string& text) const;
  // The rows [first, end) stamped by `stamp(value)` (ms), partition by partition.
  template <typename Stamp>
  BatchInput MakeRows(int64_t first, int64_t end, Stamp stamp) const;

  RateKind kind_ = RateKind::kPerSecond;
  SchemaPtr schema_;
  int64_t rows_per_second_ = 1;
  int64_t ramp_up_seconds_ = 0;
  int64_t num_partitions_ = 1;
  int64_t rows_per_batch_ = 0;
  int64_t start_timestamp_ms_ = 0;
  int64_t advance_ms_ = 1000;
  int64_t creation_time_ms_ = 0;
  bool available_now_ = false;
  std::optional<int64_t> available_now_seconds_;
  std::optional<std::string> available_now_end_;
};

}  // namespace silt::stream
