#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "silt/base/check.h"
#include "silt/expr/value_size.h"
#include "silt/types/time_zone.h"

namespace silt::expr {

/// Session settings and per-batch error collection for evaluation. Not thread-safe: use one
/// context per thread (settings are plain values, so copying a context is cheap).
/// spark.sql.storeAssignmentPolicy: which values a write may store into a column of another type.
/// ANSI (the default) allows the casts ANSI SQL calls reasonable and fails at run time on values
/// that overflow or do not parse; LEGACY allows every cast and stores NULL for a value that does
/// not convert; STRICT allows only up-casts, which lose nothing.
enum class StoreAssignmentPolicy : uint8_t { kAnsi, kLegacy, kStrict };

class EvalContext {
 public:
  /// spark.sql.ansi.enabled (Spark 4's default: true). With ANSI on, overflow, malformed casts
  /// and division by zero raise errors; off, they give NULL (or wrap, for integer arithmetic).
  bool ansi = true;
  /// spark.sql.storeAssignmentPolicy (ANSI, LEGACY, STRICT).
  StoreAssignmentPolicy store_assignment = StoreAssignmentPolicy::kAnsi;
  /// spark.sql.session.timeZone: "UTC", a fixed offset ("+02:00", "UTC+01:00", "GMT-3") or a
  /// region name ("Europe/Paris", Java's short ids such as "PST"), as TimeZone::Find reads it.
  /// Timestamps are stored in UTC; the zone is applied, with the offset in effect at each
  /// instant, when they are read from or shown as local text, and in date/time fields.
  std::string time_zone = "UTC";
  /// The statement's start time in µs since the epoch: current_timestamp()/now()/current_date()
  /// return it for every row of the statement, as Spark fixes them per query.
  int64_t statement_timestamp_micros = 0;
  /// The session's current database (USE db): current_database() / current_schema().
  std::string current_database = "default";
  /// silt.sql.maxValueBytes: the largest string, binary or array a function or aggregate may
  /// build (value_size.h); larger results fail with VALUE_SIZE_LIMIT_EXCEEDED.
  uint64_t max_value_bytes = kMaxValueBytes;

  /// The session zone named by `time_zone`, resolved once and kept while `time_zone` is
  /// unchanged. Throws INVALID_CONF_VALUE when `time_zone` names no zone.
  const TimeZone& Zone() const;
  /// The session zone's offset from UTC in µs (local = UTC + offset) when it is a fixed offset.
  /// Region zones have no single offset: they throw NOT_IMPLEMENTED, so callers that convert
  /// local time should use Zone() instead. Throws INVALID_CONF_VALUE for unknown zones.
  int64_t ZoneOffsetMicros() const;

  /// Records an error raised by row evaluation; only the first one of a batch is kept (Spark
  /// reports the first failing row too). Kernels call this instead of throwing per row.
  void RecordError(Error error) {
    if (!pending_error_) pending_error_ = std::move(error);
  }
  bool has_error() const { return pending_error_.has_value(); }
  /// Throws the recorded error, if any, and clears it. Evaluate() calls this once per batch.
  void ThrowIfError() {
    if (pending_error_) {
      Error error = std::move(*pending_error_);
      pending_error_.reset();
      throw error;
    }
  }

 private:
  std::optional<Error> pending_error_;
  mutable std::shared_ptr<const TimeZone> zone_;  // resolved from zone_id_
  mutable std::string zone_id_;
};

/// The rows of a batch whose results matter: one byte per row (non-zero = active), or null for
/// all rows. Rows outside the mask are still computed (to keep loops branch-free) but never raise
/// errors; this is how CASE/IF/AND/OR/COALESCE skip errors of rows they do not select, as Spark's
/// short-circuit evaluation does.
struct RowMask {
  const uint8_t* bytes = nullptr;
  bool Contains(int64_t row) const { return bytes == nullptr || bytes[row] != 0; }
};

}  // namespace silt::expr
