#include "silt/exec/sketch_accumulator_internal.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "silt/base/check.h"
#include "silt/expr/murmur3.h"
#include "silt/expr/scalar.h"

namespace silt::exec {
namespace {

using expr::EvalContext;

inline bool Selected(const uint8_t* selected, int64_t i) { return selected == nullptr || selected[i] != 0; }

// java.util.Random: the 48-bit linear congruential generator both sketches draw from, so that a
// seed gives Spark's numbers.
class JavaRandom {
 public:
  explicit JavaRandom(int64_t seed) : seed_((static_cast<uint64_t>(seed) ^ kMultiplier) & kMask) {}

  int32_t NextInt(int32_t bound) {
    int32_t r = Next(31);
    const int32_t m = bound - 1;
    if ((bound & m) == 0) return static_cast<int32_t>((static_cast<int64_t>(bound) * r) >> 31);
    for (int32_t u = r; Wrap(static_cast<int64_t>(u) - (r = u % bound) + m) < 0; u = Next(31)) {
    }
    return r;
  }

  double NextDouble() {
    const int64_t high = static_cast<int64_t>(Next(26)) << 27;
    return static_cast<double>(high + Next(27)) * 0x1.0p-53;
  }

 private:
  static constexpr uint64_t kMultiplier = 0x5DEECE66DULL;
  static constexpr uint64_t kMask = (uint64_t{1} << 48) - 1;

  static int32_t Wrap(int64_t value) { return static_cast<int32_t>(static_cast<uint32_t>(value)); }

  int32_t Next(int bits) {
    seed_ = (seed_ * kMultiplier + 0xBULL) & kMask;
    return Wrap(static_cast<int64_t>(seed_ >> (48 - bits)));
  }

  uint64_t seed_;
};

// ---- histogram_numeric ----

class HistogramNumericAccumulator final : public Accumulator {
 public:
  HistogramNumericAccumulator(const AggregateCall& call, DataTypePtr value_type)
      : value_type_(std::move(value_type)), result_type_(call.result_type) {
    const expr::Expression& bins = *call.arguments[1];
    SILT_CHECK(bins.kind() == expr::ExpressionKind::kLiteral && !bins.literal().is_null(),
               "histogram_numeric bins not prepared");
    max_bins_ = static_cast<size_t>(bins.literal().GetInt());
  }

  void Resize(size_t num_groups) override {
    while (groups_.size() < num_groups) groups_.emplace_back();
  }

  void Update(const std::vector<VectorPtr>& arguments, const uint32_t* groups, const uint8_t* selected,
              int64_t num_rows, EvalContext&) override {
    const Vector& input = *arguments[0];
    for (int64_t i = 0; i < num_rows; ++i) {
      if (!Selected(selected, i) || input.IsNull(i)) continue;
      Add(groups_[groups[i]], NumberAt(input, i));
    }
  }

  void Merge(Accumulator& other, const uint32_t* group_map, size_t other_groups, EvalContext& context) override {
    MergeGroups(other, nullptr, group_map, other_groups, context);
  }
  bool MergesGroups() const override { return true; }
  void MergeGroups(Accumulator& other_base, const uint32_t* sources, const uint32_t* targets, size_t count,
                   EvalContext&) override {
    auto& other = static_cast<HistogramNumericAccumulator&>(other_base);
    for (size_t i = 0; i < count; ++i) {
      const size_t g = SourceGroup(sources, i);
      if (g >= other.groups_.size()) continue;
      const Histogram& from = other.groups_[g];
      if (from.bins.empty()) continue;
      Histogram& into = groups_[targets[i]];
      if (into.bins.empty()) {
        into.bins = from.bins;
        continue;
      }
      // Algorithm 2 of the paper: every bin of both, in order of x, trimmed back to size.
      into.bins.insert(into.bins.end(), from.bins.begin(), from.bins.end());
      std::stable_sort(into.bins.begin(), into.bins.end(), [](const Bin& a, const Bin& b) { return a.x < b.x; });
      Trim(into);
    }
  }

  VectorPtr Finalize(size_t num_groups, EvalContext&) override {
    VectorBuilder builder(result_type_, static_cast<int64_t>(num_groups));
    VectorBuilder& entry = builder.child(0);
    for (size_t g = 0; g < num_groups; ++g) {
      const std::vector<Bin>& bins = groups_[g].bins;
      if (bins.empty()) {
        builder.AppendNull();
        continue;
      }
      for (const Bin& bin : bins) {
        AppendX(entry.child(0), bin.x);
        entry.child(1).AppendDouble(bin.y);
        entry.AppendStruct();
      }
      builder.FinishList();
    }
    return builder.Finish();
  }

 private:
  struct Bin {
    double x;
    double y;
  };
  struct Histogram {
    std::vector<Bin> bins;
    JavaRandom random{31183};
  };

  // The value as Spark's histogram reads it: the number of its physical representation (days,
  // microseconds, months).
  static double NumberAt(const Vector& input, int64_t i) {
    switch (input.type_id()) {
      case TypeId::kByte: return input.values<int8_t>()[i];
      case TypeId::kShort: return input.values<int16_t>()[i];
      case TypeId::kInteger:
      case TypeId::kDate:
      case TypeId::kYearMonthInterval: return input.values<int32_t>()[i];
      case TypeId::kLong:
      case TypeId::kTimestamp:
      case TypeId::kTimestampNtz:
      case TypeId::kDayTimeInterval: return static_cast<double>(input.values<int64_t>()[i]);
      case TypeId::kFloat: return input.values<float>()[i];
      default: return input.values<double>()[i];
    }
  }

  // x in the value's type, truncated toward zero as Spark's toInt / toLong do.
  void AppendX(VectorBuilder& out, double x) const {
    switch (value_type_->id()) {
      case TypeId::kFloat: out.AppendFloat(static_cast<float>(x)); return;
      case TypeId::kDouble: out.AppendDouble(x); return;
      default: out.AppendInt(static_cast<int64_t>(x)); return;
    }
  }

  // Algorithm 1: the value joins the bin at its x, or becomes a bin of its own and the two
  // closest bins merge while there are too many.
  void Add(Histogram& histogram, double value) const {
    std::vector<Bin>& bins = histogram.bins;
    size_t bin = 0;
    for (size_t l = 0, r = bins.size(); l < r;) {
      bin = (l + r) / 2;
      if (bins[bin].x > value) {
        r = bin;
      } else if (bins[bin].x < value) {
        l = ++bin;
      } else {
        break;
      }
    }
    if (bin < bins.size() && bins[bin].x == value) {
      bins[bin].y += 1;
      return;
    }
    bins.insert(bins.begin() + static_cast<std::ptrdiff_t>(bin), Bin{value, 1});
    if (bins.size() > max_bins_) Trim(histogram);
  }

  // Merges the closest neighbours (ties chosen at random, as Spark's trim does) until at most
  // max_bins_ bins are left.
  void Trim(Histogram& histogram) const {
    std::vector<Bin>& bins = histogram.bins;
    while (bins.size() > max_bins_) {
      double smallest = bins[1].x - bins[0].x;
      size_t location = 0;
      int ties = 1;
      for (size_t i = 1; i + 1 < bins.size(); ++i) {
        double difference = bins[i + 1].x - bins[i].x;
        if (difference < smallest) {
          smallest = difference;
          location = i;
          ties = 1;
        } else if (difference == smallest && histogram.random.NextDouble() <= 1.0 / ++ties) {
          location = i;
        }
      }
      Bin& merged = bins[location];
      const Bin& next = bins[location + 1];
      const double total = merged.y + next.y;
      merged.x *= merged.y / total;
      merged.x += next.x / total * next.y;
      merged.y = total;
      bins.erase(bins.begin() + static_cast<std::ptrdiff_t>(location + 1));
    }
  }

  DataTypePtr value_type_;
  DataTypePtr result_type_;
  size_t max_bins_ = 0;
  std::vector<Histogram> groups_;
};

// ---- count_min_sketch ----

class CountMinSketchAccumulator final : public Accumulator {
 public:
  CountMinSketchAccumulator(const AggregateCall& call, DataTypePtr value_type) : value_type_(std::move(value_type)) {
    for (size_t i = 1; i < 4; ++i) {
      SILT_CHECK(call.arguments[i]->kind() == expr::ExpressionKind::kLiteral && !call.arguments[i]->literal().is_null(),
                 "count_min_sketch arguments not prepared");
    }
    const double eps = call.arguments[1]->literal().GetDouble();
    const double confidence = call.arguments[2]->literal().GetDouble();
    // A BIGINT seed is truncated to its low 32 bits, as Spark's toInt.
    const auto seed = static_cast<int32_t>(static_cast<uint32_t>(call.arguments[3]->literal().GetInt()));
    width_ = static_cast<int32_t>(std::ceil(2 / eps));
    depth_ = static_cast<int32_t>(std::ceil(-std::log(1 - confidence) / std::log(2.0)));
    SILT_USER_CHECK(width_ > 0 && depth_ > 0 &&
                        static_cast<int64_t>(width_) * depth_ <= kMaxCells,
                    INVALID_PARAMETER_VALUE,
                    {{"parameter", "`eps` and `confidence`"},
                     {"functionName", "`count_min_sketch`"},
                     {"message", "the sketch would have " + std::to_string(depth_) + " rows of " +
                                     std::to_string(width_) + " counters, more than " + std::to_string(kMaxCells)}});
    JavaRandom random(seed);
    for (int32_t i = 0; i < depth_; ++i) hash_a_.push_back(random.NextInt(0x7FFFFFFF));
  }

  void Resize(size_t num_groups) override {
    if (totals_.size() >= num_groups) return;
    totals_.resize(num_groups, 0);
    table_.resize(num_groups * static_cast<size_t>(depth_) * static_cast<size_t>(width_), 0);
  }

  void Update(const std::vector<VectorPtr>& arguments, const uint32_t* groups, const uint8_t* selected,
              int64_t num_rows, EvalContext&) override {
    const Vector& input = *arguments[0];
    const TypeId id = input.type_id();
    std::vector<int32_t> buckets(static_cast<size_t>(depth_));
    for (int64_t i = 0; i < num_rows; ++i) {
      if (!Selected(selected, i) || input.IsNull(i)) continue;
      int64_t* counts = Counts(groups[i]);
      if (id == TypeId::kString || id == TypeId::kBinary) {
        std::string_view bytes = input.GetString(i);
        const auto hash1 = static_cast<int32_t>(expr::SparkMurmur3Bytes(bytes, 0));
        const auto hash2 = static_cast<int32_t>(expr::SparkMurmur3Bytes(bytes, static_cast<uint32_t>(hash1)));
        for (int32_t d = 0; d < depth_; ++d) {
          const auto combined = static_cast<int32_t>(static_cast<uint32_t>(hash1) + static_cast<uint32_t>(d) *
                                                                                         static_cast<uint32_t>(hash2));
          counts[static_cast<size_t>(d) * width_ + static_cast<size_t>(std::abs(combined % width_))] += 1;
        }
      } else {
        const int64_t item = IntegerAt(input, i);
        for (int32_t d = 0; d < depth_; ++d) {
          counts[static_cast<size_t>(d) * width_ + static_cast<size_t>(LongBucket(item, d))] += 1;
        }
      }
      totals_[groups[i]] += 1;
    }
  }

  void Merge(Accumulator& other, const uint32_t* group_map, size_t other_groups, EvalContext& context) override {
    MergeGroups(other, nullptr, group_map, other_groups, context);
  }
  bool MergesGroups() const override { return true; }
  void MergeGroups(Accumulator& other_base, const uint32_t* sources, const uint32_t* targets, size_t count,
                   EvalContext&) override {
    auto& other = static_cast<CountMinSketchAccumulator&>(other_base);
    const size_t cells = static_cast<size_t>(depth_) * static_cast<size_t>(width_);
    for (size_t i = 0; i < count; ++i) {
      const size_t g = SourceGroup(sources, i);
      if (g >= other.totals_.size()) continue;
      int64_t* into = Counts(targets[i]);
      const int64_t* from = other.table_.data() + g * cells;
      for (size_t c = 0; c < cells; ++c) into[c] += from[c];
      totals_[targets[i]] += other.totals_[g];
    }
  }

  VectorPtr Finalize(size_t num_groups, EvalContext&) override {
    Resize(num_groups);
    VectorBuilder builder(BinaryType(), static_cast<int64_t>(num_groups));
    const size_t cells = static_cast<size_t>(depth_) * static_cast<size_t>(width_);
    std::string bytes;
    for (size_t g = 0; g < num_groups; ++g) {
      bytes.clear();
      AppendBigEndian(bytes, uint32_t{1}, 4);  // version 1
      AppendBigEndian(bytes, static_cast<uint64_t>(totals_[g]), 8);
      AppendBigEndian(bytes, static_cast<uint32_t>(depth_), 4);
      AppendBigEndian(bytes, static_cast<uint32_t>(width_), 4);
      for (int64_t a : hash_a_) AppendBigEndian(bytes, static_cast<uint64_t>(a), 8);
      const int64_t* counts = table_.data() + g * cells;
      for (size_t c = 0; c < cells; ++c) AppendBigEndian(bytes, static_cast<uint64_t>(counts[c]), 8);
      builder.AppendString(bytes);
    }
    return builder.Finish();
  }

 private:
  // A sketch per group is depth x width counters: beyond this many, refuse rather than exhaust
  // memory (eps = 1e-5 at 99% confidence is 1.4 million).
  static constexpr int64_t kMaxCells = int64_t{1} << 27;

  int64_t* Counts(uint32_t group) {
    return table_.data() + static_cast<size_t>(group) * static_cast<size_t>(depth_) * static_cast<size_t>(width_);
  }

  static int64_t IntegerAt(const Vector& input, int64_t i) {
    switch (input.type_id()) {
      case TypeId::kByte: return input.values<int8_t>()[i];
      case TypeId::kShort: return input.values<int16_t>()[i];
      case TypeId::kInteger: return input.values<int32_t>()[i];
      default: return input.values<int64_t>()[i];
    }
  }

  // (a * item) mod 2^31-1 by Spark's shortcut, then mod width.
  int32_t LongBucket(int64_t item, int32_t row) const {
    int64_t hash = static_cast<int64_t>(static_cast<uint64_t>(hash_a_[static_cast<size_t>(row)]) * static_cast<uint64_t>(item));
    hash += hash >> 32;
    hash &= int64_t{0x7FFFFFFF};
    return static_cast<int32_t>(hash) % width_;
  }

  static void AppendBigEndian(std::string& out, uint64_t value, int bytes) {
    for (int shift = (bytes - 1) * 8; shift >= 0; shift -= 8) out.push_back(static_cast<char>((value >> shift) & 0xFF));
  }

  DataTypePtr value_type_;
  int32_t width_ = 0;
  int32_t depth_ = 0;
  std::vector<int64_t> hash_a_;
  std::vector<int64_t> totals_;
  std::vector<int64_t> table_;
};

}  // namespace

std::unique_ptr<Accumulator> MakeHistogramNumericAccumulator(const AggregateCall& call, const DataTypePtr& value_type) {
  return std::make_unique<HistogramNumericAccumulator>(call, value_type);
}

std::unique_ptr<Accumulator> MakeCountMinSketchAccumulator(const AggregateCall& call, const DataTypePtr& value_type) {
  return std::make_unique<CountMinSketchAccumulator>(call, value_type);
}

}  // namespace silt::exec
