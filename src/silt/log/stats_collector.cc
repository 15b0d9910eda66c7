#include "silt/log/stats_collector.h"

#include <cmath>
#include <tuple>
#include <type_traits>

#include "silt/base/check.h"
#include "silt/base/json_writer.h"
#include "silt/base/string_bounds.h"
#include "silt/types/date_time.h"

namespace silt::log {

namespace {


// Byte length of the UTF-8 sequence starting with `lead` (1 for stray continuation bytes, so
// malformed text still advances).
size_t Utf8Length(unsigned char lead) {
  if (lead >= 0xF0) return 4;
  if (lead >= 0xE0) return 3;
  if (lead >= 0xC0) return 2;
  return 1;
}

// Byte offset just past the first `characters` characters of `text`.
size_t PrefixBytes(std::string_view text, int characters) {
  size_t offset = 0;
  for (int i = 0; i < characters && offset < text.size(); ++i) {
    offset += Utf8Length(static_cast<unsigned char>(text[offset]));
  }
  return std::min(offset, text.size());
}

constexpr std::string_view kMaxCharacter = "\xF4\x8F\xBF\xBF";  // U+10FFFF

std::string FormatDecimal(Decimal128 unscaled, int scale) {
  bool negative = unscaled < 0;
  unsigned __int128 magnitude =
      negative ? static_cast<unsigned __int128>(-(unscaled + 1)) + 1 : static_cast<unsigned __int128>(unscaled);
  std::string digits;
  do {
    digits.push_back(static_cast<char>('0' + static_cast<int>(magnitude % 10)));
    magnitude /= 10;
  } while (magnitude != 0);
  while (static_cast<int>(digits.size()) <= scale) digits.push_back('0');
  std::string out = negative ? "-" : "";
  for (size_t i = digits.size(); i-- > 0;) {
    out.push_back(digits[i]);
    if (scale > 0 && i == static_cast<size_t>(scale)) out.push_back('.');
  }
  return out;
}

int64_t FloorDiv(int64_t value, int64_t divisor) {
  int64_t quotient = value / divisor;
  if ((value % divisor != 0) && ((value < 0) != (divisor < 0))) --quotient;
  return quotient;
}

// "yyyy-MM-ddTHH:mm:ss.SSS" for milliseconds since the epoch.
std::string FormatMillis(int64_t millis) {
  int64_t days = FloorDiv(millis, 86'400'000);
  int64_t in_day = millis - days * 86'400'000;
  char time[32];
  std::snprintf(time, sizeof(time), "T%02d:%02d:%02d.%03d", static_cast<int>(in_day / 3'600'000),
                static_cast<int>(in_day / 60'000 % 60), static_cast<int>(in_day / 1000 % 60),
                static_cast<int>(in_day % 1000));
  return FormatDate(days) + time;
}

void WriteBound(JsonWriter& json, const DataType& type, const Scalar& value, bool is_max) {
  switch (type.id()) {
    case TypeId::kByte:
    case TypeId::kShort:
    case TypeId::kInteger:
    case TypeId::kLong:
      json.Int(std::get<int64_t>(value));
      break;
    case TypeId::kFloat:
    case TypeId::kDouble:
      json.Double(std::get<double>(value));
      break;
    case TypeId::kDecimal:
      json.Raw(FormatDecimal(std::get<Decimal128>(value), type.scale()));
      break;
    case TypeId::kDate:
      json.String(FormatDate(std::get<int64_t>(value)));
      break;
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz: {
      // Statistics keep milliseconds: round the bound outwards so it stays a bound.
      int64_t micros = std::get<int64_t>(value);
      int64_t millis = is_max ? -FloorDiv(-micros, 1000) : FloorDiv(micros, 1000);
      std::string text = FormatMillis(millis);
      if (type.id() == TypeId::kTimestamp) text += "Z";
      json.String(text);
      break;
    }
    case TypeId::kString:
      json.String(std::get<std::string>(value));
      break;
    default:
      SILT_CHECK(false, "no bound for type " + type.ToString());
  }
}

}  // namespace

bool KeepsStatsBounds(TypeId id) {
  switch (id) {
    case TypeId::kByte:
    case TypeId::kShort:
    case TypeId::kInteger:
    case TypeId::kLong:
    case TypeId::kFloat:
    case TypeId::kDouble:
    case TypeId::kDecimal:
    case TypeId::kDate:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kString:
      return true;
    default:
      return false;
  }
}

std::string TruncateMinString(std::string_view text, int max_characters) {
  return std::string(text.substr(0, PrefixBytes(text, max_characters)));
}

std::optional<std::string> TruncateMaxString(std::string_view text, int max_characters) {
  size_t prefix = PrefixBytes(text, max_characters);
  if (prefix >= text.size()) return std::string(text);
  // prefix + U+10FFFF exceeds every string with that prefix unless the next character is
  // U+10FFFF itself; then try a shorter prefix whose next character is smaller.
  while (true) {
    if (text.substr(prefix, kMaxCharacter.size()) != kMaxCharacter) {
      return std::string(text.substr(0, prefix)) + std::string(kMaxCharacter);
    }
    if (prefix == 0) return std::nullopt;
    // Step back one character.
    size_t back = prefix - 1;
    while (back > 0 && (static_cast<unsigned char>(text[back]) & 0xC0) == 0x80) --back;
    prefix = back;
  }
}

StatsCollector::StatsCollector(const Schema& schema, StatsOptions options) : options_(options) {
  // Depth-first over structs; lists, maps and other types are leaves.
  std::vector<size_t> indexes;
  std::vector<std::string> names;
  auto visit = [&](auto&& self, const std::vector<Field>& fields) -> void {
    for (size_t i = 0; i < fields.size(); ++i) {
      if (options_.num_indexed_columns >= 0 &&
          static_cast<int>(leaves_.size()) >= options_.num_indexed_columns) {
        return;
      }
      indexes.push_back(i);
      names.push_back(fields[i].name);
      if (fields[i].type->id() == TypeId::kStruct) {
        self(self, fields[i].type->fields());
      } else {
        Leaf leaf;
        leaf.field_indexes = indexes;
        leaf.names = names;
        leaf.type = fields[i].type;
        leaf.has_bounds = KeepsStatsBounds(fields[i].type->id());
        leaves_.push_back(std::move(leaf));
      }
      indexes.pop_back();
      names.pop_back();
    }
  };
  visit(visit, schema.fields());
}

void StatsCollector::Update(const Batch& batch) {
  num_records_ += batch.num_rows();
  for (auto& leaf : leaves_) UpdateLeaf(leaf, batch);
}

void StatsCollector::UpdateLeaf(Leaf& leaf, const Batch& batch) {
  // Walk down the struct path; a row is NULL for the leaf when any ancestor is NULL.
  std::vector<VectorPtr> path;
  VectorPtr vector = batch.column(leaf.field_indexes[0]);
  path.push_back(vector);
  for (size_t depth = 1; depth < leaf.field_indexes.size(); ++depth) {
    vector = vector->StructField(leaf.field_indexes[depth]);
    path.push_back(vector);
  }
  const Vector& values = *vector;
  const int64_t num_rows = batch.num_rows();
  bool any_null = false;
  for (const auto& level : path) any_null = any_null || level->null_count() > 0;
  auto is_null = [&](int64_t row) {
    if (!any_null) return false;
    for (const auto& level : path) {
      if (level->IsNull(row)) return true;
    }
    return false;
  };
  const bool bounded = leaf.has_bounds && !leaf.poisoned;
  // The batch's bounds are found in a typed loop, then merged into the leaf's once.
  auto merge = [&](Scalar low, Scalar high) {
    if (!leaf.min || CompareScalars(low, *leaf.min) < 0) leaf.min = std::move(low);
    if (!leaf.max || CompareScalars(high, *leaf.max) > 0) leaf.max = std::move(high);
  };
  auto typed = [&](auto load) {
    using Value = decltype(load(int64_t{0}));
    if (!any_null && bounded && num_rows > 0) {
      // Without NULLs: a loop without branches, which the compiler can vectorise.
      Value low = load(0);
      Value high = low;
      for (int64_t row = 1; row < num_rows; ++row) {
        const Value value = load(row);
        low = value < low ? value : low;
        high = high < value ? value : high;
      }
      return std::make_tuple(true, low, high);
    }
    bool found = false;
    Value low{};
    Value high{};
    for (int64_t row = 0; row < num_rows; ++row) {
      if (is_null(row)) {
        ++leaf.null_count;
        continue;
      }
      if (!bounded) continue;
      Value value = load(row);
      if (!found) {
        low = high = value;
        found = true;
      } else if (value < low) {
        low = value;
      } else if (high < value) {
        high = value;
      }
    }
    return std::make_tuple(found, low, high);
  };
  auto fixed = [&](auto tag) {
    using T = decltype(tag);
    const T* data = values.values<T>();
    auto [found, low, high] = typed([data](int64_t row) { return data[row]; });
    if (!found) return;
    if constexpr (std::is_same_v<T, Decimal128>) {
      merge(Scalar(low), Scalar(high));
    } else {
      merge(Scalar(static_cast<int64_t>(low)), Scalar(static_cast<int64_t>(high)));
    }
  };
  switch (values.type_id()) {
    case TypeId::kByte: fixed(int8_t{}); return;
    case TypeId::kShort: fixed(int16_t{}); return;
    case TypeId::kInteger:
    case TypeId::kDate: fixed(int32_t{}); return;
    case TypeId::kLong:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz: fixed(int64_t{}); return;
    case TypeId::kDecimal: fixed(Decimal128{}); return;
    case TypeId::kFloat:
    case TypeId::kDouble: {
      const bool single = values.type_id() == TypeId::kFloat;
      bool finite = true;
      auto [found, low, high] = typed([&](int64_t row) {
        double number = single ? static_cast<double>(values.values<float>()[row])
                               : values.values<double>()[row];
        finite = finite && std::isfinite(number);
        return number;
      });
      if (!finite) {
        // NaN and infinities have no bounds Delta can use.
        leaf.poisoned = true;
        leaf.min.reset();
        leaf.max.reset();
      } else if (found) {
        merge(Scalar(low), Scalar(high));
      }
      return;
    }
    case TypeId::kString: {
      // Compare on the full text; truncate only when writing.
      // The value buffers are read once here: GetString reads them again for every row.
      StringBounds bounds;
      const int32_t* offsets = values.buffers()[1]->as<int32_t>() + values.offset();
      const char* bytes = reinterpret_cast<const char*>(values.buffers()[2]->data());
      for (int64_t row = 0; row < num_rows; ++row) {
        if (is_null(row)) {
          ++leaf.null_count;
          continue;
        }
        if (bounded) {
          bounds.Add(std::string_view(bytes + offsets[row],
                                      static_cast<size_t>(offsets[row + 1] - offsets[row])));
        }
      }
      if (bounds.found()) merge(Scalar(std::string(bounds.low())), Scalar(std::string(bounds.high())));
      return;
    }
    default:
      typed([](int64_t) { return 0; });
      return;
  }
}

std::string StatsCollector::ToJson() const {
  JsonWriter json;
  json.BeginObject();
  json.Key("numRecords");
  json.Int(num_records_);
  // Writes one section (minValues / maxValues / nullCount) as nested objects mirroring structs.
  enum class Section { kMin, kMax, kNullCount };
  auto has_value = [&](const Leaf& leaf, Section section) {
    switch (section) {
      case Section::kMin: return leaf.min.has_value() && !leaf.poisoned;
      case Section::kMax:
        return leaf.max.has_value() && !leaf.poisoned &&
               (leaf.type->id() != TypeId::kString ||
                TruncateMaxString(std::get<std::string>(*leaf.max), options_.string_prefix_length).has_value());
      case Section::kNullCount: return true;
    }
    return false;
  };
  auto write_section = [&](std::string_view key, Section section) {
    bool any = false;
    for (const auto& leaf : leaves_) any = any || has_value(leaf, section);
    if (!any) return;
    json.Key(key);
    json.BeginObject();
    std::vector<std::string> open;  // the struct path currently open
    for (const auto& leaf : leaves_) {
      if (!has_value(leaf, section)) continue;
      size_t common = 0;
      while (common < open.size() && common + 1 < leaf.names.size() && open[common] == leaf.names[common]) ++common;
      while (open.size() > common) {
        json.EndObject();
        open.pop_back();
      }
      for (size_t depth = open.size(); depth + 1 < leaf.names.size(); ++depth) {
        json.Key(leaf.names[depth]);
        json.BeginObject();
        open.push_back(leaf.names[depth]);
      }
      json.Key(leaf.names.back());
      switch (section) {
        case Section::kMin:
          if (leaf.type->id() == TypeId::kString) {
            json.String(TruncateMinString(std::get<std::string>(*leaf.min), options_.string_prefix_length));
          } else {
            WriteBound(json, *leaf.type, *leaf.min, false);
          }
          break;
        case Section::kMax:
          if (leaf.type->id() == TypeId::kString) {
            json.String(*TruncateMaxString(std::get<std::string>(*leaf.max), options_.string_prefix_length));
          } else {
            WriteBound(json, *leaf.type, *leaf.max, true);
          }
          break;
        case Section::kNullCount:
          json.Int(leaf.null_count);
          break;
      }
    }
    while (!open.empty()) {
      json.EndObject();
      open.pop_back();
    }
    json.EndObject();
  };
  write_section("minValues", Section::kMin);
  write_section("maxValues", Section::kMax);
  write_section("nullCount", Section::kNullCount);
  if (options_.write_tight_bounds) {
    json.Key("tightBounds");
    json.Bool(true);
  }
  json.EndObject();
  return json.Release();
}

}  // namespace silt::log
