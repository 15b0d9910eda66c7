#include "silt/types/time_zone.h"

#include <algorithm>
#include <cctype>
#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <mutex>
#include <sstream>
#include <unordered_map>

#include "silt/base/check.h"
#include "silt/types/date_time.h"

namespace silt {
namespace {

constexpr int64_t kSecondsPerDay = 86'400;
constexpr int32_t kMaxOffsetSeconds = 18 * 3600;  // Java's ZoneOffset range
// Offsets in TZif files beyond a day are nonsense; local mean times stay well inside.
constexpr int32_t kMaxFileOffsetSeconds = 26 * 3600;
// Transitions from the POSIX footer are written out as a table up to this year, so that
// lookups of the instants people use are a binary search; later ones evaluate the rule.
constexpr int64_t kLastTabulatedYear = 2400;

int64_t FloorDivide(int64_t a, int64_t b) {
  int64_t quotient = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --quotient;
  return quotient;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// `micros + offset_seconds` seconds, clamped at the ends of the int64 range.
int64_t ShiftMicros(int64_t micros, int64_t offset_seconds) {
  int64_t shifted = 0;
  if (!__builtin_add_overflow(micros, offset_seconds * kMicrosPerSecond, &shifted)) return shifted;
  return offset_seconds > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
}

bool IsLeapYear(int64_t year) { return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0; }

[[noreturn]] void ThrowMalformed(const std::string& id, const std::string& problem) {
  SILT_THROW(INVALID_ARGUMENT, {{"message", "malformed time zone data for '" + id + "': " + problem}});
}

// Java's ZoneOffset.of: "+h", "+hh", "+hhmm", "+hh:mm", "+hhmmss", "+hh:mm:ss" (also '-'), and
// "Z"; at most 18 hours. Returns seconds east of UTC.
std::optional<int32_t> ParseJavaOffset(std::string_view text) {
  if (text == "Z") return 0;
  if (text.size() < 2 || (text[0] != '+' && text[0] != '-')) return std::nullopt;
  std::string_view body = text.substr(1);
  auto two_digits = [&](size_t at) -> std::optional<int32_t> {
    if (at + 2 > body.size() || !IsDigit(body[at]) || !IsDigit(body[at + 1])) return std::nullopt;
    return (body[at] - '0') * 10 + (body[at + 1] - '0');
  };
  std::optional<int32_t> hours, minutes = 0, seconds = 0;
  switch (body.size()) {
    case 1:
      if (IsDigit(body[0])) hours = body[0] - '0';
      break;
    case 2: hours = two_digits(0); break;
    case 4: hours = two_digits(0), minutes = two_digits(2); break;
    case 5:
      if (body[2] == ':') hours = two_digits(0), minutes = two_digits(3);
      break;
    case 6: hours = two_digits(0), minutes = two_digits(2), seconds = two_digits(4); break;
    case 8:
      if (body[2] == ':' && body[5] == ':') hours = two_digits(0), minutes = two_digits(3), seconds = two_digits(6);
      break;
    default: break;
  }
  if (!hours || !minutes || !seconds || *hours > 18 || *minutes > 59 || *seconds > 59) return std::nullopt;
  int32_t total = *hours * 3600 + *minutes * 60 + *seconds;
  if (total > kMaxOffsetSeconds) return std::nullopt;
  return text[0] == '-' ? -total : total;
}

// Spark's DateTimeUtils.getZoneId rewrites two pre-3.0 spellings before asking Java:
// "+h:mm" becomes "+0h:mm" (first match) and a trailing "+hh:m" becomes "+hh:0m".
std::string NormalizeLegacyOffsets(std::string_view id) {
  std::string text(id);
  for (size_t i = 0; i + 2 < text.size(); ++i) {
    if ((text[i] == '+' || text[i] == '-') && IsDigit(text[i + 1]) && text[i + 2] == ':') {
      text.insert(i + 1, "0");
      break;
    }
  }
  size_t n = text.size();
  if (n >= 5 && (text[n - 5] == '+' || text[n - 5] == '-') && IsDigit(text[n - 4]) && IsDigit(text[n - 3]) &&
      text[n - 2] == ':' && IsDigit(text[n - 1])) {
    text.insert(n - 1, "0");
  }
  return text;
}

// Java's ZoneId.SHORT_IDS, which Spark passes to ZoneId.of.
std::string_view ResolveShortId(std::string_view id) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 28> kShortIds = {{
      {"ACT", "Australia/Darwin"},    {"AET", "Australia/Sydney"},
      {"AGT", "America/Argentina/Buenos_Aires"},
      {"ART", "Africa/Cairo"},        {"AST", "America/Anchorage"},
      {"BET", "America/Sao_Paulo"},   {"BST", "Asia/Dhaka"},
      {"CAT", "Africa/Harare"},       {"CNT", "America/St_Johns"},
      {"CST", "America/Chicago"},     {"CTT", "Asia/Shanghai"},
      {"EAT", "Africa/Addis_Ababa"},  {"ECT", "Europe/Paris"},
      {"IET", "America/Indiana/Indianapolis"},
      {"IST", "Asia/Kolkata"},        {"JST", "Asia/Tokyo"},
      {"MIT", "Pacific/Apia"},        {"NET", "Asia/Yerevan"},
      {"NST", "Pacific/Auckland"},    {"PLT", "Asia/Karachi"},
      {"PNT", "America/Phoenix"},     {"PRT", "America/Puerto_Rico"},
      {"PST", "America/Los_Angeles"}, {"SST", "Pacific/Guadalcanal"},
      {"VST", "Asia/Ho_Chi_Minh"},    {"EST", "-05:00"},
      {"MST", "-07:00"},              {"HST", "-10:00"},
  }};
  for (const auto& [short_id, zone] : kShortIds) {
    if (id == short_id) return zone;
  }
  return id;
}

// Java's region id syntax ([A-Za-z][A-Za-z0-9~/._+-]+), without path tricks, and not one of the
// database folder's files that are not zones Java knows.
bool IsRegionName(std::string_view name) {
  if (name.size() < 2 || !std::isalpha(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && std::string_view("~/._+-").find(c) == std::string_view::npos) {
      return false;
    }
  }
  std::string_view rest = name;
  while (!rest.empty()) {
    size_t slash = rest.find('/');
    std::string_view part = rest.substr(0, slash);
    if (part.empty() || part == "." || part == "..") return false;
    if (slash == std::string_view::npos) break;
    rest.remove_prefix(slash + 1);
  }
  for (std::string_view excluded : {"posix/", "right/"}) {
    if (name.substr(0, excluded.size()) == excluded) return false;
  }
  return name != "posixrules" && name != "localtime" && name != "Factory";
}

std::string ZoneInfoDirectory() {
  const char* directory = std::getenv("TZDIR");
  return directory != nullptr && *directory != '\0' ? directory : "/usr/share/zoneinfo";
}

// Reads the zone file of region `name`; nullopt when there is none.
std::optional<std::string> ReadZoneFile(std::string_view name) {
  std::filesystem::path path = std::filesystem::path(ZoneInfoDirectory()) / std::string(name);
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) return std::nullopt;
  std::ifstream file(path, std::ios::binary);
  if (!file) return std::nullopt;
  std::ostringstream bytes;
  bytes << file.rdbuf();
  return std::move(bytes).str();
}

// A bounds-checked big-endian reader over TZif bytes.
class TzifReader {
 public:
  TzifReader(std::string_view bytes, const std::string& id) : bytes_(bytes), id_(id) {}
  size_t position() const { return position_; }
  std::string_view Take(size_t count) {
    if (count > bytes_.size() - position_) ThrowMalformed(id_, "truncated file");
    std::string_view taken = bytes_.substr(position_, count);
    position_ += count;
    return taken;
  }
  uint64_t Unsigned(size_t width) {
    std::string_view raw = Take(width);
    uint64_t value = 0;
    for (char c : raw) value = (value << 8) | static_cast<uint8_t>(c);
    return value;
  }
  int64_t Signed(size_t width) {
    uint64_t value = Unsigned(width);
    if (width == 4) return static_cast<int32_t>(static_cast<uint32_t>(value));
    return static_cast<int64_t>(value);
  }
  std::string_view Rest() const { return bytes_.substr(position_); }

 private:
  std::string_view bytes_;
  const std::string& id_;
  size_t position_ = 0;
};

struct TzifHeader {
  char version = 0;
  uint32_t isutcnt = 0, isstdcnt = 0, leapcnt = 0, timecnt = 0, typecnt = 0, charcnt = 0;
};

TzifHeader ReadHeader(TzifReader& reader, const std::string& id) {
  if (reader.Take(4) != "TZif") ThrowMalformed(id, "no TZif magic");
  TzifHeader header;
  header.version = reader.Take(1)[0];
  if (header.version != '\0' && (header.version < '2' || header.version > '9')) ThrowMalformed(id, "unknown version");
  reader.Take(15);
  header.isutcnt = static_cast<uint32_t>(reader.Unsigned(4));
  header.isstdcnt = static_cast<uint32_t>(reader.Unsigned(4));
  header.leapcnt = static_cast<uint32_t>(reader.Unsigned(4));
  header.timecnt = static_cast<uint32_t>(reader.Unsigned(4));
  header.typecnt = static_cast<uint32_t>(reader.Unsigned(4));
  header.charcnt = static_cast<uint32_t>(reader.Unsigned(4));
  if (header.typecnt == 0 || (header.isutcnt != 0 && header.isutcnt != header.typecnt) ||
      (header.isstdcnt != 0 && header.isstdcnt != header.typecnt)) {
    ThrowMalformed(id, "inconsistent counts");
  }
  return header;
}

uint64_t DataBlockSize(const TzifHeader& header, size_t time_width) {
  return uint64_t{header.timecnt} * (time_width + 1) + uint64_t{header.typecnt} * 6 + header.charcnt +
         uint64_t{header.leapcnt} * (time_width + 4) + header.isstdcnt + header.isutcnt;
}

// The day (since the epoch) of `rule` in `year`.
int64_t DayOfRule(const TimeZone::DayRule& rule, int64_t year) {
  int64_t january_first = DaysFromCivil(year, 1, 1);
  switch (rule.kind) {
    case TimeZone::DayRule::Kind::kJulianNoLeap:
      return january_first + rule.day - 1 + (IsLeapYear(year) && rule.day >= 60 ? 1 : 0);
    case TimeZone::DayRule::Kind::kZeroBased: return january_first + rule.day;
    case TimeZone::DayRule::Kind::kMonthWeekDay: {
      int64_t first = DaysFromCivil(year, rule.month, 1);
      int64_t next_month = rule.month == 12 ? DaysFromCivil(year + 1, 1, 1) : DaysFromCivil(year, rule.month + 1, 1);
      int64_t first_weekday = ((first + 4) % 7 + 7) % 7;  // 1970-01-01 was a Thursday; 0 = Sunday
      int64_t day = first + (rule.day - first_weekday + 7) % 7 + (rule.week - 1) * 7;
      while (day >= next_month) day -= 7;  // week 5 means the last such weekday
      return day;
    }
  }
  return january_first;
}

struct RuleTransition {
  int64_t at;
  int32_t offset_after;
};

// The two shifts of `rule` in `year`, in time order (an all-year daylight rule keeps the
// start after the previous year's end when both fall on the same instant).
std::array<RuleTransition, 2> TransitionsInYear(const TimeZone::PosixRule& rule, int64_t year) {
  RuleTransition start{DayOfRule(rule.start, year) * kSecondsPerDay + rule.start.time_seconds - rule.standard_offset,
                       rule.daylight_offset};
  RuleTransition end{DayOfRule(rule.end, year) * kSecondsPerDay + rule.end.time_seconds - rule.daylight_offset,
                     rule.standard_offset};
  if (end.at < start.at) return {end, start};
  return {start, end};
}

// Parses the POSIX TZ grammar piece by piece.
class PosixRuleParser {
 public:
  explicit PosixRuleParser(std::string_view text) : text_(text) {}

  std::optional<TimeZone::PosixRule> Parse() {
    TimeZone::PosixRule rule;
    if (!Name()) return std::nullopt;
    auto standard = Offset(24);
    if (!standard) return std::nullopt;
    rule.standard_offset = -*standard;  // POSIX counts west of UTC as positive
    if (AtEnd()) return rule;
    if (!Name()) return std::nullopt;
    rule.has_daylight = true;
    rule.daylight_offset = rule.standard_offset + 3600;
    if (!AtEnd() && Peek() != ',') {
      auto daylight = Offset(24);
      if (!daylight) return std::nullopt;
      rule.daylight_offset = -*daylight;
    }
    if (AtEnd()) {
      // POSIX leaves the default rule to the implementation; tzcode uses the US rules.
      rule.start = {TimeZone::DayRule::Kind::kMonthWeekDay, 0, 3, 2, 7200};
      rule.end = {TimeZone::DayRule::Kind::kMonthWeekDay, 0, 11, 1, 7200};
      return rule;
    }
    if (!Consume(',') || !Day(&rule.start) || !Consume(',') || !Day(&rule.end) || !AtEnd()) return std::nullopt;
    return rule;
  }

 private:
  bool AtEnd() const { return position_ >= text_.size(); }
  char Peek() const { return AtEnd() ? '\0' : text_[position_]; }
  bool Consume(char c) {
    if (Peek() != c) return false;
    ++position_;
    return true;
  }

  bool Name() {
    if (Consume('<')) {
      size_t start = position_;
      while (!AtEnd() && Peek() != '>') {
        if (!std::isalnum(static_cast<unsigned char>(Peek())) && Peek() != '+' && Peek() != '-') return false;
        ++position_;
      }
      return position_ - start >= 3 && Consume('>');
    }
    size_t start = position_;
    while (std::isalpha(static_cast<unsigned char>(Peek()))) ++position_;
    return position_ - start >= 3;
  }

  std::optional<int64_t> Number(int64_t max_value) {
    if (!IsDigit(Peek())) return std::nullopt;
    int64_t value = 0;
    while (IsDigit(Peek())) {
      value = value * 10 + (Peek() - '0');
      if (value > max_value) return std::nullopt;
      ++position_;
    }
    return value;
  }

  // [+-]hh[:mm[:ss]] in seconds, hours up to `max_hours`.
  std::optional<int32_t> Offset(int64_t max_hours) {
    int sign = 1;
    if (Consume('-')) sign = -1;
    else Consume('+');
    auto hours = Number(max_hours);
    if (!hours) return std::nullopt;
    int64_t total = *hours * 3600;
    if (Consume(':')) {
      auto minutes = Number(59);
      if (!minutes) return std::nullopt;
      total += *minutes * 60;
      if (Consume(':')) {
        auto seconds = Number(59);
        if (!seconds) return std::nullopt;
        total += *seconds;
      }
    }
    return static_cast<int32_t>(sign * total);
  }

  bool Day(TimeZone::DayRule* rule) {
    if (Consume('J')) {
      auto day = Number(365);
      if (!day || *day < 1) return false;
      rule->kind = TimeZone::DayRule::Kind::kJulianNoLeap;
      rule->day = static_cast<int>(*day);
    } else if (Consume('M')) {
      auto month = Number(12);
      if (!month || *month < 1 || !Consume('.')) return false;
      auto week = Number(5);
      if (!week || *week < 1 || !Consume('.')) return false;
      auto weekday = Number(6);
      if (!weekday) return false;
      rule->kind = TimeZone::DayRule::Kind::kMonthWeekDay;
      rule->month = static_cast<int>(*month);
      rule->week = static_cast<int>(*week);
      rule->day = static_cast<int>(*weekday);
    } else {
      auto day = Number(365);
      if (!day) return false;
      rule->kind = TimeZone::DayRule::Kind::kZeroBased;
      rule->day = static_cast<int>(*day);
    }
    rule->time_seconds = 7200;
    if (Consume('/')) {
      auto time = Offset(167);  // RFC 8536 extends POSIX times to -167..167 hours
      if (!time) return false;
      rule->time_seconds = *time;
    }
    return true;
  }

  std::string_view text_;
  size_t position_ = 0;
};

}  // namespace

std::optional<TimeZone::PosixRule> TimeZone::ParsePosixRule(std::string_view text) {
  return PosixRuleParser(text).Parse();
}

std::shared_ptr<const TimeZone> TimeZone::Utc() {
  static const std::shared_ptr<const TimeZone> utc = Fixed("UTC", 0);
  return utc;
}

std::shared_ptr<const TimeZone> TimeZone::Fixed(std::string id, int32_t offset_seconds) {
  std::shared_ptr<TimeZone> zone(new TimeZone());
  zone->id_ = std::move(id);
  zone->initial_offset_ = offset_seconds;
  return zone;
}

std::shared_ptr<const TimeZone> TimeZone::FromTzif(std::string id, std::string_view bytes) {
  TzifReader reader(bytes, id);
  TzifHeader header = ReadHeader(reader, id);
  size_t time_width = 4;
  if (header.version != '\0') {
    // Skip the 32-bit block: version 2+ repeats the data with 64-bit times after it.
    uint64_t skip = DataBlockSize(header, 4);
    if (skip > reader.Rest().size()) ThrowMalformed(id, "truncated file");
    reader.Take(static_cast<size_t>(skip));
    header = ReadHeader(reader, id);
    time_width = 8;
  }
  if (DataBlockSize(header, time_width) > reader.Rest().size()) ThrowMalformed(id, "truncated file");

  std::vector<int64_t> times(header.timecnt);
  for (int64_t& time : times) time = reader.Signed(time_width);
  std::vector<uint8_t> type_indexes(header.timecnt);
  for (uint8_t& index : type_indexes) {
    index = static_cast<uint8_t>(reader.Unsigned(1));
    if (index >= header.typecnt) ThrowMalformed(id, "transition to an unknown local time type");
  }
  std::vector<int32_t> type_offsets(header.typecnt);
  for (int32_t& offset : type_offsets) {
    int64_t utoff = reader.Signed(4);
    reader.Take(2);  // isdst, abbreviation index: not needed for offsets
    if (utoff < -kMaxFileOffsetSeconds || utoff > kMaxFileOffsetSeconds) ThrowMalformed(id, "offset out of range");
    offset = static_cast<int32_t>(utoff);
  }
  // Abbreviations, leap seconds (Java ignores them, as does Spark) and the standard/UT
  // indicators (which only matter to POSIX-style rules built from these files) follow.
  reader.Take(header.charcnt + size_t{header.leapcnt} * (time_width + 4) + header.isstdcnt + header.isutcnt);
  for (size_t i = 1; i < times.size(); ++i) {
    if (times[i] <= times[i - 1]) ThrowMalformed(id, "transitions out of order");
  }

  std::shared_ptr<TimeZone> zone(new TimeZone());
  zone->id_ = std::move(id);
  zone->initial_offset_ = type_offsets[0];
  zone->transition_times_ = std::move(times);
  for (uint8_t index : type_indexes) zone->offsets_after_.push_back(type_offsets[index]);

  if (time_width == 8) {
    std::string_view footer = reader.Rest();
    if (footer.empty() || footer[0] != '\n') ThrowMalformed(id, "missing footer");
    size_t end = footer.find('\n', 1);
    if (end == std::string_view::npos) ThrowMalformed(id, "unterminated footer");
    std::string_view text = footer.substr(1, end - 1);
    if (!text.empty()) {
      std::optional<PosixRule> rule = ParsePosixRule(text);
      if (!rule) ThrowMalformed(id, "malformed POSIX TZ string '" + std::string(text) + "'");
      if (rule->has_daylight) {
        zone->rule_ = *rule;
        zone->ExtendTransitionsByRule();
      } else if (zone->transition_times_.empty()) {
        zone->initial_offset_ = rule->standard_offset;
      }
    }
  }
  return zone;
}

void TimeZone::ExtendTransitionsByRule() {
  if (transition_times_.empty()) return;  // the rule alone describes the zone
  int64_t last = transition_times_.back();
  int64_t first_year = CivilFromDays(FloorDivide(last, kSecondsPerDay)).year;
  for (int64_t year = first_year; year <= kLastTabulatedYear; ++year) {
    for (const RuleTransition& transition : TransitionsInYear(*rule_, year)) {
      if (transition.at > transition_times_.back() && transition.offset_after != offsets_after_.back()) {
        transition_times_.push_back(transition.at);
        offsets_after_.push_back(transition.offset_after);
      }
    }
  }
}

std::optional<int32_t> TimeZone::fixed_offset_seconds() const {
  if (transition_times_.empty() && !rule_) return initial_offset_;
  return std::nullopt;
}

TimeZone::Period TimeZone::RulePeriodAt(int64_t utc_seconds) const {
  int64_t year = CivilFromDays(FloorDivide(utc_seconds + rule_->standard_offset, kSecondsPerDay)).year;
  Period period{rule_->standard_offset, std::numeric_limits<int64_t>::max()};
  bool found_before = false;
  for (int64_t y = year - 1; y <= year + 1; ++y) {
    for (const RuleTransition& transition : TransitionsInYear(*rule_, y)) {
      if (transition.at <= utc_seconds) {
        period.offset = transition.offset_after;
        found_before = true;
      } else if (period.end == std::numeric_limits<int64_t>::max()) {
        period.end = transition.at;
      }
    }
  }
  if (!found_before) period.offset = rule_->standard_offset;
  return period;
}

TimeZone::Period TimeZone::PeriodAt(int64_t utc_seconds) const {
  size_t index = static_cast<size_t>(
      std::upper_bound(transition_times_.begin(), transition_times_.end(), utc_seconds) - transition_times_.begin());
  if (rule_ && index == transition_times_.size()) return RulePeriodAt(utc_seconds);
  Period period{index == 0 ? initial_offset_ : offsets_after_[index - 1], std::numeric_limits<int64_t>::max()};
  if (index < transition_times_.size()) period.end = transition_times_[index];
  return period;
}

int64_t TimeZone::OffsetAt(int64_t utc_micros) const {
  if (transition_times_.empty() && !rule_) return int64_t{initial_offset_} * kMicrosPerSecond;
  return int64_t{PeriodAt(FloorDivide(utc_micros, kMicrosPerSecond)).offset} * kMicrosPerSecond;
}

int64_t TimeZone::UtcToLocal(int64_t utc_micros) const {
  if (transition_times_.empty() && !rule_) return ShiftMicros(utc_micros, initial_offset_);
  return ShiftMicros(utc_micros, PeriodAt(FloorDivide(utc_micros, kMicrosPerSecond)).offset);
}

int64_t TimeZone::LocalToUtc(int64_t local_micros) const {
  if (transition_times_.empty() && !rule_) return ShiftMicros(local_micros, -int64_t{initial_offset_});
  // Offsets are whole seconds, so the search runs on seconds and the fraction rides along.
  int64_t local = FloorDivide(local_micros, kMicrosPerSecond);
  // Every instant showing `local` lies within a day of it; walk the periods of that window in
  // time order and take the first that shows it (the earlier offset of an overlap).
  int64_t instant = local - kSecondsPerDay;
  Period period = PeriodAt(instant);
  for (int steps = 0; steps < 64; ++steps) {
    int64_t candidate = local - period.offset;
    if (candidate >= instant && candidate < period.end) return ShiftMicros(local_micros, -int64_t{period.offset});
    if (period.end > local + kSecondsPerDay) break;
    Period next = PeriodAt(period.end);
    // A gap: the wall clock jumps over `local` at this transition, so move forward by the
    // length of the gap, that is, read the local time with the offset before it.
    if (period.end + period.offset <= local && local < period.end + next.offset) {
      return ShiftMicros(local_micros, -int64_t{period.offset});
    }
    instant = period.end;
    period = next;
  }
  return ShiftMicros(local_micros, -int64_t{period.offset});
}

std::shared_ptr<const TimeZone> TimeZone::Find(std::string_view requested) {
  std::string id = NormalizeLegacyOffsets(ResolveShortId(requested));
  if (id == "Z" || (!id.empty() && (id[0] == '+' || id[0] == '-'))) {
    std::optional<int32_t> offset = ParseJavaOffset(id);
    if (!offset) return nullptr;
    return Fixed(std::string(requested), *offset);
  }
  for (std::string_view prefix : {"UTC", "GMT", "UT"}) {
    if (id == prefix) return Fixed(std::string(requested), 0);
    if (id.size() > prefix.size() && id.compare(0, prefix.size(), prefix) == 0 &&
        (id[prefix.size()] == '+' || id[prefix.size()] == '-')) {
      std::optional<int32_t> offset = ParseJavaOffset(std::string_view(id).substr(prefix.size()));
      if (!offset) return nullptr;
      return Fixed(std::string(requested), *offset);
    }
  }
  if (!IsRegionName(id)) return nullptr;

  static std::mutex mutex;
  static std::unordered_map<std::string, std::shared_ptr<const TimeZone>> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  auto cached = loaded.find(id);
  if (cached != loaded.end()) return cached->second;
  std::optional<std::string> bytes = ReadZoneFile(id);
  // Text files of the database folder (zone.tab, leapseconds...) are not zones.
  if (!bytes || bytes->compare(0, 4, "TZif") != 0) return nullptr;
  std::shared_ptr<const TimeZone> zone = FromTzif(id, *bytes);
  loaded.emplace(id, zone);
  return zone;
}

std::string TimeZone::SystemDefaultId() {
  if (const char* variable = std::getenv("TZ"); variable != nullptr && *variable != '\0') {
    std::string_view tz = variable;
    if (tz[0] == ':') tz.remove_prefix(1);
    if (Find(tz)) return std::string(tz);
  }
  std::error_code error;
  std::filesystem::path target = std::filesystem::read_symlink("/etc/localtime", error);
  if (!error) {
    std::string text = target.string();
    size_t at = text.find("zoneinfo/");
    if (at != std::string::npos) {
      std::string name = text.substr(at + 9);
      if (Find(name)) return name;
    }
  }
  return "UTC";
}

}  // namespace silt
