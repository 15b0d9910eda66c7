#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace silt {

/// A time zone as Spark's session time zone names one: a fixed offset from UTC ("+02:00", "UTC",
/// "GMT-3") or a region of the IANA time zone database ("Europe/Paris"), read from the system's
/// compiled TZif files. Immutable, so one object is shared by every thread.
///
/// Offsets are whole seconds; instants and local times are µs since the epoch (a local time is
/// the wall clock read as if it were UTC).
class TimeZone {
 public:
  /// Returns the zone named `id` under Java's ZoneId.of rules with ZoneId.SHORT_IDS, as Spark
  /// resolves spark.sql.session.timeZone: "Z", "+h", "+hh", "+hh:mm", "+hhmm", "+hh:mm:ss",
  /// "+hhmmss" (up to ±18:00; Spark's legacy "+h:mm" and "+hh:m" too), "UTC"/"GMT"/"UT" alone
  /// or followed by such an offset, Java's short ids ("PST", "EST", "IST"...), and region names
  /// (case-sensitive). Returns null when the name is not a zone. Region files are read from the
  /// folder named by the TZDIR environment variable, else /usr/share/zoneinfo (the tzdata
  /// package), and cached for the process. Throws INVALID_ARGUMENT when the zone's database
  /// file is malformed. Any thread.
  static std::shared_ptr<const TimeZone> Find(std::string_view id);
  /// The UTC zone (id "UTC").
  static std::shared_ptr<const TimeZone> Utc();
  /// A zone at a fixed `offset_seconds` east of UTC, named `id`.
  static std::shared_ptr<const TimeZone> Fixed(std::string id, int32_t offset_seconds);
  /// Parses the TZif bytes of RFC 8536 (versions 1 to 4; the 64-bit data and the POSIX TZ
  /// footer of version 2+, which gives the offsets after the last transition). Throws
  /// INVALID_ARGUMENT when the bytes are malformed.
  static std::shared_ptr<const TimeZone> FromTzif(std::string id, std::string_view bytes);
  /// The id of the system's default zone, as Java's TimeZone.getDefault() finds it: the TZ
  /// environment variable, else the zone /etc/localtime links to, else "UTC".
  static std::string SystemDefaultId();

  const std::string& id() const { return id_; }
  /// The zone's offset in seconds when it never changes (fixed-offset zones); nullopt for zones
  /// with transitions.
  std::optional<int32_t> fixed_offset_seconds() const;

  /// Returns the offset from UTC (µs; local = UTC + offset) in effect at the instant.
  int64_t OffsetAt(int64_t utc_micros) const;
  /// Returns the local wall-clock time of the instant (clamped to the int64 range at its ends).
  int64_t UtcToLocal(int64_t utc_micros) const;
  /// Returns the instant at which the wall clock shows `local_micros`, with Java's rules (which
  /// Spark follows): a local time skipped by a forward shift (a gap) moves forward by the length
  /// of the gap, and a local time that occurs twice (an overlap) takes the earlier offset.
  /// Clamped to the int64 range at its ends.
  int64_t LocalToUtc(int64_t local_micros) const;

  /// One rule of a POSIX TZ string: the day of the year a shift happens.
  struct DayRule {
    enum class Kind { kJulianNoLeap, kZeroBased, kMonthWeekDay };
    Kind kind = Kind::kMonthWeekDay;
    int day = 0;      ///< Jn (1..365) or n (0..365); weekday 0 = Sunday for kMonthWeekDay
    int month = 1;    ///< kMonthWeekDay only
    int week = 1;     ///< 1..5, 5 = last
    int32_t time_seconds = 7200;  ///< local time of the shift, may be negative or past 24h
  };
  /// A POSIX TZ string ("CET-1CEST,M3.5.0,M10.5.0/3"): the offsets and shift rules in use after
  /// the last transition of a TZif file.
  struct PosixRule {
    int32_t standard_offset = 0;  ///< seconds east of UTC
    bool has_daylight = false;
    int32_t daylight_offset = 0;
    DayRule start;  ///< daylight time starts (local standard time)
    DayRule end;    ///< daylight time ends (local daylight time)
  };
  /// Parses a POSIX TZ string; nullopt when malformed.
  static std::optional<PosixRule> ParsePosixRule(std::string_view text);

 private:
  TimeZone() = default;

  // The offset in effect at `utc_seconds` and the instant of the next transition (INT64_MAX
  // when there is none).
  struct Period {
    int32_t offset;
    int64_t end;
  };
  Period PeriodAt(int64_t utc_seconds) const;
  Period RulePeriodAt(int64_t utc_seconds) const;
  void ExtendTransitionsByRule();

  std::string id_;
  int32_t initial_offset_ = 0;            // before the first transition
  std::vector<int64_t> transition_times_; // UTC seconds, ascending
  std::vector<int32_t> offsets_after_;    // offset from each transition on
  std::optional<PosixRule> rule_;         // after the last transition, when it has daylight time
};

}  // namespace silt
