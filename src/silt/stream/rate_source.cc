#include "silt/stream/rate_source.h"

#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "silt/base/ascii.h"
#include "silt/base/check.h"
#include "silt/base/clock.h"
#include "silt/base/json_writer.h"
#include "silt/exec/text_format.h"
#include "silt/io/path.h"
#include "silt/vector/vector.h"

namespace silt::stream {

namespace {

constexpr int64_t kRowsPerBatch = 65536;

[[noreturn]] void ThrowInvalid(const std::string& key, const std::string& value,
                               const std::string& reason) {
  SILT_THROW(INVALID_STREAMING_OPTION, {{"value", value}, {"option", key}, {"reason", reason}});
}

std::optional<int64_t> ParseInteger(std::string_view text) {
  int64_t value = 0;
  auto [ptr, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

int64_t NonNegative(const StreamOptions& options, const std::string& key, int64_t fallback) {
  std::optional<std::string> text = options.Get(key);
  if (!text) return fallback;
  std::optional<int64_t> value = ParseInteger(*text);
  if (!value || *value < 0) ThrowInvalid(key, *text, "expected a non-negative integer");
  return *value;
}

// Spark's timeStringAsSec for rampUpTime: a number of seconds, or with a unit (ms, s, m, h, d).
int64_t ParseRampUpSeconds(const std::string& text) {
  std::string lower = AsciiLower(text);
  int64_t value = 0;
  const char* begin = lower.data();
  const char* end = begin + lower.size();
  auto [ptr, error] = std::from_chars(begin, end, value);
  std::string unit(ptr, end);
  int64_t ms_per_unit = unit.empty() || unit == "s"    ? 1000
                        : unit == "ms"                 ? 1
                        : unit == "m" || unit == "min" ? 60000
                        : unit == "h"                  ? 3600000
                        : unit == "d"                  ? 86400000
                                                       : -1;
  if (error != std::errc() || ptr == begin || value < 0 || ms_per_unit < 0) {
    ThrowInvalid("rampUpTime", text, "expected a duration such as 5s or 1m");
  }
  return value * ms_per_unit / 1000;
}

}  // namespace

int64_t RateSource::ValueAtSecond(int64_t seconds, int64_t rows_per_second,
                                  int64_t ramp_up_seconds) {
  // The speed grows by rows_per_second / (ramp_up + 1) each second up to the ramp-up's end;
  // the rows so far are the sum of the speeds.
  int64_t step = rows_per_second / (ramp_up_seconds + 1);
  if (seconds <= ramp_up_seconds) {
    return seconds % 2 == 1 ? (seconds + 1) / 2 * step * seconds
                            : seconds / 2 * step * (seconds + 1);
  }
  return ValueAtSecond(ramp_up_seconds, rows_per_second, ramp_up_seconds) +
         (seconds - ramp_up_seconds) * rows_per_second;
}

std::unique_ptr<RateSource> RateSource::Open(RateKind kind, const StreamOptions& options) {
  std::unique_ptr<RateSource> source(new RateSource());
  source->kind_ = kind;
  source->schema_ = std::make_shared<const Schema>(std::vector<Field>{
      {"timestamp", TimestampType(), true, {}}, {"value", LongType(), true, {}}});
  source->num_partitions_ = options.GetPositiveInt("numPartitions").value_or(1);
  if (kind == RateKind::kPerSecond) {
    source->rows_per_second_ = options.GetPositiveInt("rowsPerSecond").value_or(1);
    if (std::optional<std::string> ramp = options.Get("rampUpTime")) {
      source->ramp_up_seconds_ = ParseRampUpSeconds(*ramp);
    }
    source->creation_time_ms_ = SystemNowMs();
    return source;
  }
  std::optional<int64_t> rows = options.GetPositiveInt("rowsPerBatch");
  if (!rows)
    ThrowInvalid("rowsPerBatch", "", "rate-micro-batch needs the number of rows per batch");
  source->rows_per_batch_ = *rows;
  source->start_timestamp_ms_ = NonNegative(options, "startTimestamp", 0);
  source->advance_ms_ = NonNegative(options, "advanceMillisPerBatch", 1000);
  return source;
}

std::string RateSource::Describe() const {
  if (kind_ == RateKind::kPerSecond) {
    return "RateStreamV2[rowsPerSecond=" + std::to_string(rows_per_second_) +
           ", rampUpTimeSeconds=" + std::to_string(ramp_up_seconds_) +
           ", numPartitions=" + std::to_string(num_partitions_) + "]";
  }
  return "RatePerMicroBatchStream[rowsPerBatch=" + std::to_string(rows_per_batch_) +
         ", numPartitions=" + std::to_string(num_partitions_) +
         ", startTimestamp=" + std::to_string(start_timestamp_ms_) +
         ", advanceMsPerBatch=" + std::to_string(advance_ms_) + "]";
}

bool RateSource::OpenMetadata(const std::shared_ptr<io::FileSystem>& fs,
                              const std::string& folder) {
  if (kind_ != RateKind::kPerSecond) return false;
  // The first run's start time, so that a restart goes on counting from it.
  std::string path = io::JoinPath(folder, "0");
  fs->PutIfAbsent(path, "v1\n" + std::to_string(creation_time_ms_));
  std::string text = fs->ReadFile(path);
  std::optional<int64_t> time;
  if (text.starts_with("v1\n")) time = ParseInteger(std::string_view(text).substr(3));
  if (!time) {
    SILT_THROW(
        STREAMING_CHECKPOINT_CORRUPT,
        {{"checkpoint", path}, {"message", "it does not hold the rate source's start time"}});
  }
  creation_time_ms_ = *time;
  return true;
}

std::string RateSource::MicroBatchJson(const MicroBatchOffset& offset) {
  return "{\"offset\":" + std::to_string(offset.offset) +
         ",\"timestamp\":" + std::to_string(offset.timestamp_ms) + "}";
}

RateSource::MicroBatchOffset RateSource::ParseMicroBatchOffset(const std::string& text) const {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(text);
  simdjson::dom::element root;
  MicroBatchOffset offset;
  if (parser.parse(padded).get(root) != simdjson::SUCCESS ||
      root["offset"].get_int64().get(offset.offset) != simdjson::SUCCESS ||
      root["timestamp"].get_int64().get(offset.timestamp_ms) != simdjson::SUCCESS ||
      offset.offset < 0) {
    SILT_THROW(STREAMING_CHECKPOINT_CORRUPT,
               {{"checkpoint", Describe()},
                {"message", "'" + text + "' is not a rate-micro-batch offset"}});
  }
  return offset;
}

int64_t RateSource::ParseSeconds(const std::string& text) const {
  std::optional<int64_t> seconds = ParseInteger(text);
  if (!seconds || *seconds < 0) {
    SILT_THROW(STREAMING_CHECKPOINT_CORRUPT,
               {{"checkpoint", Describe()}, {"message", "'" + text + "' is not a rate offset"}});
  }
  return *seconds;
}

std::string RateSource::InitialOffset() {
  if (kind_ == RateKind::kPerSecond) return "0";
  return MicroBatchJson({0, start_timestamp_ms_});
}

void RateSource::ValidateOffset(const std::string& offset) {
  if (kind_ == RateKind::kPerSecond) {
    ParseSeconds(offset);
  } else {
    ParseMicroBatchOffset(offset);
  }
}

void RateSource::PrepareForAvailableNow() {
  available_now_ = true;
  if (kind_ == RateKind::kPerSecond) {
    available_now_seconds_ = (SystemNowMs() - creation_time_ms_) / 1000;
  }
}

std::optional<std::string> RateSource::LatestOffset(const std::string& start) {
  if (kind_ == RateKind::kPerSecond) {
    int64_t from = ParseSeconds(start);
    int64_t now = available_now_seconds_.value_or((SystemNowMs() - creation_time_ms_) / 1000);
    if (now <= from) return std::nullopt;
    return std::to_string(now);
  }
  MicroBatchOffset from = ParseMicroBatchOffset(start);
  std::string next =
      MicroBatchJson({from.offset + rows_per_batch_, from.timestamp_ms + advance_ms_});
  if (!available_now_) return next;
  // Available-now: the one batch that follows where the query stood when it started.
  if (!available_now_end_) available_now_end_ = next;
  if (start == *available_now_end_) return std::nullopt;
  return available_now_end_;
}

template <typename Stamp>
BatchInput RateSource::MakeRows(int64_t first, int64_t end, Stamp stamp) const {
  auto table = std::make_shared<exec::TextTable>();
  table->schema = schema_;
  std::unique_ptr<VectorBuilder> timestamps;
  std::unique_ptr<VectorBuilder> values;
  int64_t in_batch = 0;
  auto flush = [&] {
    if (in_batch == 0) return;
    table->batches.emplace_back(
        schema_, std::vector<VectorPtr>{timestamps->Finish(), values->Finish()}, in_batch);
    in_batch = 0;
  };
  // Partitions past the batch's row count hold nothing.
  int64_t partitions = std::min(num_partitions_, std::max<int64_t>(end - first, 0));
  for (int64_t partition = 0; partition < partitions; ++partition) {
    for (int64_t value = first + partition; value < end; value += num_partitions_) {
      if (in_batch == 0) {
        timestamps = std::make_unique<VectorBuilder>(TimestampType(), kRowsPerBatch);
        values = std::make_unique<VectorBuilder>(LongType(), kRowsPerBatch);
      }
      timestamps->AppendInt(stamp(value) * 1000);
      values->AppendInt(value);
      if (++in_batch == kRowsPerBatch) flush();
    }
  }
  flush();
  BatchInput input;
  input.num_rows = std::max<int64_t>(end - first, 0);
  input.rows = std::move(table);
  return input;
}

BatchInput RateSource::PlanBatch(const std::string& start, const std::string& end) {
  if (kind_ == RateKind::kPerSecond) {
    int64_t from = ParseSeconds(start);
    int64_t to = ParseSeconds(end);
    int64_t first = ValueAtSecond(from, rows_per_second_, ramp_up_seconds_);
    int64_t last = ValueAtSecond(to, rows_per_second_, ramp_up_seconds_);
    int64_t start_ms = creation_time_ms_ + from * 1000;
    double ms_per_value =
        last > first ? static_cast<double>((to - from) * 1000) / (last - first) : 0;
    return MakeRows(first, last, [&](int64_t value) {
      return start_ms + static_cast<int64_t>(std::llround((value - first) * ms_per_value));
    });
  }
  MicroBatchOffset from = ParseMicroBatchOffset(start);
  MicroBatchOffset to = ParseMicroBatchOffset(end);
  return MakeRows(from.offset, to.offset, [&](int64_t) { return from.timestamp_ms; });
}

}  // namespace silt::stream
