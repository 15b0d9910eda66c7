#include "silt/exec/accumulator.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <string>

#include "silt/base/check.h"
#include "silt/exec/aggregate_kind_internal.h"
#include "silt/exec/hash_table.h"
#include "silt/exec/row_hash.h"
#include "silt/exec/sketch_accumulator_internal.h"
#include "silt/expr/scalar.h"
#include "silt/expr/value_size.h"

namespace silt::exec {

namespace {

using expr::EvalContext;

// Whether row i takes part: selected by the FILTER and (for `arg`) not NULL.
inline bool Selected(const uint8_t* selected, int64_t i) { return selected == nullptr || selected[i] != 0; }

template <typename T>
T* Downcast(Accumulator& other) {
  return static_cast<T*>(&other);
}

VectorPtr MakeFixedResult(const DataTypePtr& type, const void* values, size_t width, const uint8_t* valid,
                          size_t num_groups) {
  BufferPtr buffer = Buffer::Allocate(std::max<size_t>(num_groups * width, 1));
  if (num_groups > 0) std::memcpy(buffer->data(), values, num_groups * width);
  return Vector::Make(type, static_cast<int64_t>(num_groups),
                      {ValidityFromBytes(valid, static_cast<int64_t>(num_groups)), buffer});
}

Decimal128 PowerOfTen(int exponent) {
  Decimal128 value = 1;
  for (int i = 0; i < exponent; ++i) value *= 10;
  return value;
}

// The context try_sum and try_avg run in: overflow is not an error there (ANSI off), and the
// accumulators turn it into NULL.
EvalContext LenientContext(const EvalContext& context, bool lenient) {
  if (!lenient) return EvalContext{};
  EvalContext copy = context;
  copy.ansi = false;
  return copy;
}

[[noreturn]] void ThrowDecimalSumOverflow() {
  SILT_THROW(ARITHMETIC_OVERFLOW, {{"message", "Overflow in sum of decimals"},
                                   {"alternative", " Use 'try_sum' to tolerate overflow and return NULL instead."}});
}

// ---- count(*), count(x, ...), count_if(x) ----

class CountAccumulator final : public Accumulator {
 public:
  explicit CountAccumulator(bool count_if) : count_if_(count_if) {}

  void Resize(size_t num_groups) override {
    if (counts_.size() < num_groups) counts_.resize(num_groups, 0);
  }

  void Update(const std::vector<VectorPtr>& arguments, const uint32_t* groups, const uint8_t* selected,
              int64_t num_rows, EvalContext&) override {
    int64_t* counts = counts_.data();
    if (count_if_) {
      const Vector& flags = *arguments[0];
      for (int64_t i = 0; i < num_rows; ++i) {
        if (Selected(selected, i) && flags.IsValid(i) && flags.GetBool(i)) ++counts[groups[i]];
      }
      return;
    }
    bool any_nulls = false;
    for (const VectorPtr& argument : arguments) any_nulls |= argument->null_count() != 0;
    if (!any_nulls) {
      if (selected == nullptr) {
        for (int64_t i = 0; i < num_rows; ++i) ++counts[groups[i]];
      } else {
        for (int64_t i = 0; i < num_rows; ++i) counts[groups[i]] += selected[i] != 0;
      }
      return;
    }
    for (int64_t i = 0; i < num_rows; ++i) {
      if (!Selected(selected, i)) continue;
      bool all_valid = true;
      for (const VectorPtr& argument : arguments) all_valid = all_valid && argument->IsValid(i);
      counts[groups[i]] += all_valid;
    }
  }

  void Merge(Accumulator& other, const uint32_t* group_map, size_t other_groups, EvalContext& context) override {
    MergeGroups(other, nullptr, group_map, other_groups, context);
  }
  bool MergesGroups() const override { return true; }
  void MergeGroups(Accumulator& other_base, const uint32_t* sources, const uint32_t* targets, size_t count,
                   EvalContext& context) override {
    auto& other = *Downcast<CountAccumulator>(other_base);
    for (size_t i = 0; i < count; ++i) {
      const size_t g = SourceGroup(sources, i);
      counts_[targets[i]] += other.counts_[g];
    }
  }

  bool RepeatableFinalize() const override { return true; }
  VectorPtr Finalize(size_t num_groups, EvalContext&) override {
    Resize(num_groups);
    std::vector<uint8_t> valid(num_groups, 1);
    return MakeFixedResult(LongType(), counts_.data(), sizeof(int64_t), valid.data(), num_groups);
  }

 private:
  bool count_if_;
  std::vector<int64_t> counts_;
};

// ---- sum and avg ----

// The running sum of a group: value and whether any non-NULL input was seen; for decimals also
// whether the 128-bit sum overflowed.
template <typename T>
class SumState {
 public:
  // Decimal inputs of at most 18 digits cannot overflow a 128-bit sum (that would take more
  // than 2^67 rows), so their rows are added without a check; Finalize still checks the
  // result's precision.
  explicit SumState(const DataTypePtr& input_type = nullptr)
      : unchecked_(std::is_same_v<T, Decimal128> && input_type != nullptr &&
                   input_type->id() == TypeId::kDecimal && input_type->precision() <= 18) {}

  void Resize(size_t num_groups) {
    if (sums_.size() >= num_groups) return;
    sums_.resize(num_groups, T{});
    counts_.resize(num_groups, 0);
    overflow_.resize(num_groups, 0);
  }

  // Adds the selected non-NULL values; a long sum that overflows throws under ANSI (and wraps
  // otherwise, as Spark's legacy mode does); decimal overflow is flagged for Finalize.
  void Update(const Vector& input, const uint32_t* groups, const uint8_t* selected, int64_t num_rows,
              EvalContext& context) {
    const T* values = input.values<T>();
    const bool has_nulls = input.null_count() != 0;
    T* sums = sums_.data();
    int64_t* counts = counts_.data();
    if constexpr (std::is_same_v<T, double>) {
      for (int64_t i = 0; i < num_rows; ++i) {
        if (!Selected(selected, i) || (has_nulls && input.IsNull(i))) continue;
        sums[groups[i]] += values[i];
        ++counts[groups[i]];
      }
    } else {
      if (unchecked_ && selected == nullptr && !has_nulls) {
        for (int64_t i = 0; i < num_rows; ++i) {
          sums[groups[i]] += values[i];
          ++counts[groups[i]];
        }
        return;
      }
      bool overflow = false;
      for (int64_t i = 0; i < num_rows; ++i) {
        if (!Selected(selected, i) || (has_nulls && input.IsNull(i))) continue;
        uint32_t g = groups[i];
        if (__builtin_add_overflow(sums[g], values[i], &sums[g])) {
          overflow_[g] = 1;
          overflow = true;
        }
        ++counts[g];
      }
      if constexpr (std::is_same_v<T, int64_t>) {
        if (overflow && context.ansi) {
          SILT_THROW(ARITHMETIC_OVERFLOW,
                     {{"message", "long overflow"},
                      {"alternative", " Use 'try_sum' to tolerate overflow and return NULL instead."}});
        }
      }
    }
  }

  // Adds other's group sources[i] (i when sources is null) into group targets[i], i < count.
  void Merge(const SumState& other, const uint32_t* sources, const uint32_t* targets, size_t count,
             EvalContext& context) {
    for (size_t i = 0; i < count; ++i) {
      const size_t g = sources == nullptr ? i : sources[i];
      const uint32_t target = targets[i];
      counts_[target] += other.counts_[g];
      overflow_[target] |= other.overflow_[g];
      if constexpr (std::is_same_v<T, double>) {
        sums_[target] += other.sums_[g];
      } else {
        if (__builtin_add_overflow(sums_[target], other.sums_[g], &sums_[target])) {
          overflow_[target] = 1;
          if constexpr (std::is_same_v<T, int64_t>) {
            if (context.ansi) {
              SILT_THROW(ARITHMETIC_OVERFLOW,
                         {{"message", "long overflow"},
                          {"alternative", " Use 'try_sum' to tolerate overflow and return NULL instead."}});
            }
          }
        }
      }
    }
  }

  std::vector<T> sums_;
  std::vector<int64_t> counts_;
  std::vector<uint8_t> overflow_;
  bool unchecked_;  // see the constructor
};

template <typename T>
class SumAccumulator;
template <typename T>
class AvgAccumulator;

// The SumState a sum or avg accumulator of values of type T keeps, or null for another kind.
template <typename T>
SumState<T>* SumStateOf(Accumulator& accumulator);

template <typename T>
class SumAccumulator final : public Accumulator {
 public:
  // `lenient`: try_sum, whose overflow gives NULL.
  SumAccumulator(const DataTypePtr& input_type, DataTypePtr result_type, bool lenient = false)
      : result_type_(std::move(result_type)), state_(input_type), lenient_(lenient) {}

  void Resize(size_t num_groups) override { state_.Resize(num_groups); }
  void Update(const std::vector<VectorPtr>& arguments, const uint32_t* groups, const uint8_t* selected,
              int64_t num_rows, EvalContext& context) override {
    EvalContext lenient = LenientContext(context, lenient_);
    state_.Update(*arguments[0], groups, selected, num_rows, lenient_ ? lenient : context);
  }
  void Merge(Accumulator& other, const uint32_t* group_map, size_t other_groups, EvalContext& context) override {
    MergeGroups(other, nullptr, group_map, other_groups, context);
  }
  bool MergesGroups() const override { return true; }
  void MergeGroups(Accumulator& other, const uint32_t* sources, const uint32_t* targets, size_t count,
                   EvalContext& context) override {
    EvalContext lenient = LenientContext(context, lenient_);
    state_.Merge(Downcast<SumAccumulator>(other)->state_, sources, targets, count, lenient_ ? lenient : context);
  }
  VectorPtr Finalize(size_t num_groups, EvalContext& strict_context) override {
    EvalContext lenient = LenientContext(strict_context, lenient_);
    EvalContext& context = lenient_ ? lenient : strict_context;
    SumState<T>& state = shared_ != nullptr ? *shared_ : state_;
    state.Resize(num_groups);
    std::vector<uint8_t> valid(num_groups);
    // The sums are copied: a shared state is read by its twin too.
    std::vector<T> sums(state.sums_.begin(), state.sums_.begin() + static_cast<int64_t>(num_groups));
    if constexpr (std::is_same_v<T, Decimal128>) {
      const Decimal128 limit = PowerOfTen(result_type_->precision());
      for (size_t g = 0; g < num_groups; ++g) {
        bool overflow = state.overflow_[g] || sums[g] >= limit || sums[g] <= -limit;
        if (overflow && state.counts_[g] > 0 && context.ansi) ThrowDecimalSumOverflow();
        valid[g] = state.counts_[g] > 0 && !overflow;
        if (!valid[g]) sums[g] = 0;
      }
    } else {
      // A wrapped long sum is NULL for try_sum (and wraps as Spark's legacy mode does otherwise).
      for (size_t g = 0; g < num_groups; ++g) valid[g] = state.counts_[g] > 0 && !(lenient_ && state.overflow_[g]);
    }
    return MakeFixedResult(result_type_, sums.data(), sizeof(T), valid.data(), num_groups);
  }
  bool RepeatableFinalize() const override { return true; }
  bool ShareStateOf(Accumulator& twin) override {
    SumState<T>* state = SumStateOf<T>(twin);
    if (lenient_ || state == nullptr || state == &state_ || state->unchecked_ != state_.unchecked_) return false;
    shared_ = state;
    return true;
  }

 private:
  friend SumState<T>* SumStateOf<T>(Accumulator&);
  DataTypePtr result_type_;
  SumState<T> state_;
  bool lenient_;
  SumState<T>* shared_ = nullptr;  // a twin's state (ShareStateOf)
};

template <typename T>
class AvgAccumulator final : public Accumulator {
 public:
  // `lenient`: try_avg, whose overflow gives NULL.
  AvgAccumulator(DataTypePtr input_type, DataTypePtr result_type, bool lenient = false)
      : input_type_(std::move(input_type)), result_type_(std::move(result_type)), state_(input_type_),
        lenient_(lenient) {}

  void Resize(size_t num_groups) override { state_.Resize(num_groups); }
  void Update(const std::vector<VectorPtr>& arguments, const uint32_t* groups, const uint8_t* selected,
              int64_t num_rows, EvalContext& context) override {
    EvalContext lenient = LenientContext(context, lenient_);
    state_.Update(*arguments[0], groups, selected, num_rows, lenient_ ? lenient : context);
  }
  void Merge(Accumulator& other, const uint32_t* group_map, size_t other_groups, EvalContext& context) override {
    MergeGroups(other, nullptr, group_map, other_groups, context);
  }
  bool MergesGroups() const override { return true; }
  void MergeGroups(Accumulator& other, const uint32_t* sources, const uint32_t* targets, size_t count,
                   EvalContext& context) override {
    EvalContext lenient = LenientContext(context, lenient_);
    state_.Merge(Downcast<AvgAccumulator>(other)->state_, sources, targets, count, lenient_ ? lenient : context);
  }
  bool ShareStateOf(Accumulator& twin) override {
    SumState<T>* state = SumStateOf<T>(twin);
    if (lenient_ || state == nullptr || state == &state_ || state->unchecked_ != state_.unchecked_) return false;
    shared_ = state;
    return true;
  }
  bool RepeatableFinalize() const override { return true; }
  VectorPtr Finalize(size_t num_groups, EvalContext& strict_context) override {
    EvalContext lenient = LenientContext(strict_context, lenient_);
    EvalContext& context = lenient_ ? lenient : strict_context;
    SumState<T>& state = shared_ != nullptr ? *shared_ : state_;
    state.Resize(num_groups);
    std::vector<uint8_t> valid(num_groups);
    if constexpr (std::is_same_v<T, double>) {
      std::vector<double> results(num_groups);
      for (size_t g = 0; g < num_groups; ++g) {
        valid[g] = state.counts_[g] > 0;
        if (valid[g]) results[g] = state.sums_[g] / static_cast<double>(state.counts_[g]);
      }
      return MakeFixedResult(result_type_, results.data(), sizeof(double), valid.data(), num_groups);
    } else {
      // Spark sums into decimal(p+10, s), then divides by the count into decimal(p+4, s+4),
      // rounding HALF_UP.
      const Decimal128 sum_limit = PowerOfTen(std::min(38, input_type_->precision() + 10));
      const Decimal128 result_limit = PowerOfTen(result_type_->precision());
      const Decimal128 scale_up = PowerOfTen(result_type_->scale() - input_type_->scale());
      std::vector<Decimal128> results(num_groups, 0);
      for (size_t g = 0; g < num_groups; ++g) {
        int64_t count = state.counts_[g];
        if (count == 0) continue;
        Decimal128 sum = state.sums_[g];
        bool overflow = state.overflow_[g] || sum >= sum_limit || sum <= -sum_limit;
        Decimal128 result = 0;
        if (!overflow) {
          bool negative = sum < 0;
          Decimal128 magnitude = negative ? -sum : sum;
          Decimal128 quotient = magnitude / count;
          Decimal128 remainder = magnitude % count;
          Decimal128 scaled = 0;
          overflow = __builtin_mul_overflow(quotient, scale_up, &scaled);
          Decimal128 fraction_numerator = remainder * scale_up;  // remainder < count < 2^63 and scale_up <= 10^4
          Decimal128 fraction = fraction_numerator / count;
          Decimal128 rest = fraction_numerator % count;
          if (rest * 2 >= count) ++fraction;
          overflow = overflow || __builtin_add_overflow(scaled, fraction, &result) || result >= result_limit;
          if (negative) result = -result;
        }
        if (overflow) {
          if (context.ansi) ThrowDecimalSumOverflow();
          continue;
        }
        valid[g] = 1;
        results[g] = result;
      }
      return MakeFixedResult(result_type_, results.data(), sizeof(Decimal128), valid.data(), num_groups);
    }
  }

 private:
  friend SumState<T>* SumStateOf<T>(Accumulator&);
  DataTypePtr input_type_;
  DataTypePtr result_type_;
  SumState<T> state_;
  bool lenient_;
  SumState<T>* shared_ = nullptr;  // a twin's state (ShareStateOf)
};

template <typename T>
SumState<T>* SumStateOf(Accumulator& accumulator) {
  if (auto* sum = dynamic_cast<SumAccumulator<T>*>(&accumulator)) {
    return sum->shared_ || sum->lenient_ ? nullptr : &sum->state_;
  }
  if (auto* avg = dynamic_cast<AvgAccumulator<T>*>(&accumulator)) {
    return avg->shared_ || avg->lenient_ ? nullptr : &avg->state_;
  }
  return nullptr;
}

// ---- stddev / variance (Welford's running moments; Chan's formula to merge) ----

class MomentAccumulator final : public Accumulator {
 public:
  explicit MomentAccumulator(AggregateKind kind) : kind_(kind) {}

  void Resize(size_t num_groups) override {
    if (count_.size() >= num_groups) return;
    count_.resize(num_groups, 0);
    mean_.resize(num_groups, 0);
    m2_.resize(num_groups, 0);
  }
  void Update(const std::vector<VectorPtr>& arguments, const uint32_t* groups, const uint8_t* selected,
              int64_t num_rows, EvalContext&) override {
    const Vector& input = *arguments[0];
    const double* values = input.values<double>();
    const bool has_nulls = input.null_count() != 0;
    for (int64_t i = 0; i < num_rows; ++i) {
      if (!Selected(selected, i) || (has_nulls && input.IsNull(i))) continue;
      uint32_t g = groups[i];
      double n = ++count_[g];
      double delta = values[i] - mean_[g];
      mean_[g] += delta / n;
      m2_[g] += delta * (values[i] - mean_[g]);
    }
  }
  void Merge(Accumulator& other, const uint32_t* group_map, size_t other_groups, EvalContext& context) override {
    MergeGroups(other, nullptr, group_map, other_groups, context);
  }
  bool MergesGroups() const override { return true; }
  void MergeGroups(Accumulator& other_base, const uint32_t* sources, const uint32_t* targets, size_t count,
                   EvalContext& context) override {
    auto& other = *Downcast<MomentAccumulator>(other_base);
    for (size_t i = 0; i < count; ++i) {
      const size_t g = SourceGroup(sources, i);
      if (other.count_[g] == 0) continue;
      uint32_t t = targets[i];
      double n1 = count_[t], n2 = other.count_[g], n = n1 + n2;
      double delta = other.mean_[g] - mean_[t];
      mean_[t] += delta * n2 / n;
      m2_[t] += other.m2_[g] + delta * delta * n1 * n2 / n;
      count_[t] = n;
    }
  }
  bool RepeatableFinalize() const override { return true; }
  VectorPtr Finalize(size_t num_groups, EvalContext&) override {
    Resize(num_groups);
    std::vector<double> results(num_groups, 0);
    std::vector<uint8_t> valid(num_groups, 0);
    const bool sample = kind_ == AggregateKind::kStddevSamp || kind_ == AggregateKind::kVarSamp;
    const bool root = kind_ == AggregateKind::kStddevSamp || kind_ == AggregateKind::kStddevPop;
    for (size_t g = 0; g < num_groups; ++g) {
      double n = count_[g];
      // Spark 3.4+ returns NULL (not NaN) for the sample variants over a single row.
      if (n == 0 || (sample && n == 1)) continue;
      double variance = m2_[g] / (sample ? n - 1 : n);
      results[g] = root ? std::sqrt(variance) : variance;
      valid[g] = 1;
    }
    return MakeFixedResult(DoubleType(), results.data(), sizeof(double), valid.data(), num_groups);
  }

 private:
  AggregateKind kind_;
  std::vector<double> count_;
  std::vector<double> mean_;
  std::vector<double> m2_;
};

// ---- bool_and / bool_or ----

class BoolAccumulator final : public Accumulator {
 public:
  explicit BoolAccumulator(bool is_and) : is_and_(is_and) {}

  void Resize(size_t num_groups) override {
    if (values_.size() >= num_groups) return;
    values_.resize(num_groups, is_and_ ? 1 : 0);
    seen_.resize(num_groups, 0);
  }
  void Update(const std::vector<VectorPtr>& arguments, const uint32_t* groups, const uint8_t* selected,
              int64_t num_rows, EvalContext&) override {
    const Vector& input = *arguments[0];
    for (int64_t i = 0; i < num_rows; ++i) {
      if (!Selected(selected, i) || input.IsNull(i)) continue;
      uint32_t g = groups[i];
      seen_[g] = 1;
      bool value = input.GetBool(i);
      values_[g] = is_and_ ? (values_[g] && value) : (values_[g] || value);
    }
  }
  void Merge(Accumulator& other, const uint32_t* group_map, size_t other_groups, EvalContext& context) override {
    MergeGroups(other, nullptr, group_map, other_groups, context);
  }
  bool MergesGroups() const override { return true; }
  void MergeGroups(Accumulator& other_base, const uint32_t* sources, const uint32_t* targets, size_t count,
                   EvalContext& context) override {
    auto& other = *Downcast<BoolAccumulator>(other_base);
    for (size_t i = 0; i < count; ++i) {
      const size_t g = SourceGroup(sources, i);
      if (!other.seen_[g]) continue;
      uint32_t t = targets[i];
      seen_[t] = 1;
      values_[t] = is_and_ ? (values_[t] && other.values_[g]) : (values_[t] || other.values_[g]);
    }
  }
  bool RepeatableFinalize() const override { return true; }
  VectorPtr Finalize(size_t num_groups, EvalContext&) override {
    Resize(num_groups);
    return BuildResult(num_groups);
  }

 private:
  VectorPtr BuildResult(size_t num_groups) {
    VectorBuilder builder(BooleanType(), static_cast<int64_t>(num_groups));
    for (size_t g = 0; g < num_groups; ++g) {
      if (seen_[g]) {
        builder.AppendBool(values_[g] != 0);
      } else {
        builder.AppendNull();
      }
    }
    return builder.Finish();
  }

  bool is_and_;
  std::vector<uint8_t> values_;
  std::vector<uint8_t> seen_;
};

// ---- min / max ----

// Spark's ordering of values of one type: NULL first, NaN above every number, structs field by
// field, arrays element by element then by length.
int CompareValues(const Vector& a, int64_t i, const Vector& b, int64_t j) {
  bool a_null = a.IsNull(i), b_null = b.IsNull(j);
  if (a_null || b_null) return a_null == b_null ? 0 : (a_null ? -1 : 1);
  auto three_way = [](auto x, auto y) { return x < y ? -1 : (y < x ? 1 : 0); };
  auto floating = [](auto x, auto y) {
    bool x_nan = std::isnan(x), y_nan = std::isnan(y);
    if (x_nan || y_nan) return x_nan == y_nan ? 0 : (x_nan ? 1 : -1);
    return x < y ? -1 : (y < x ? 1 : 0);
  };
  switch (a.type_id()) {
    case TypeId::kNull: return 0;
    case TypeId::kBoolean: return three_way(a.GetBool(i), b.GetBool(j));
    case TypeId::kByte: return three_way(a.values<int8_t>()[i], b.values<int8_t>()[j]);
    case TypeId::kShort: return three_way(a.values<int16_t>()[i], b.values<int16_t>()[j]);
    case TypeId::kInteger:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval: return three_way(a.values<int32_t>()[i], b.values<int32_t>()[j]);
    case TypeId::kLong:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kDayTimeInterval: return three_way(a.values<int64_t>()[i], b.values<int64_t>()[j]);
    case TypeId::kFloat: return floating(a.values<float>()[i], b.values<float>()[j]);
    case TypeId::kDouble: return floating(a.values<double>()[i], b.values<double>()[j]);
    case TypeId::kDecimal: return three_way(a.values<Decimal128>()[i], b.values<Decimal128>()[j]);
    case TypeId::kString:
    case TypeId::kBinary: {
      int c = a.GetString(i).compare(b.GetString(j));
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    case TypeId::kStruct:
      for (size_t f = 0; f < a.children().size(); ++f) {
        int c = CompareValues(*a.child(f), a.offset() + i, *b.child(f), b.offset() + j);
        if (c != 0) return c;
      }
      return 0;
    case TypeId::kList:
    case TypeId::kMap: {
      int32_t a_start = a.ListStart(i), a_length = a.ListLength(i);
      int32_t b_start = b.ListStart(j), b_length = b.ListLength(j);
      for (int32_t k = 0; k < std::min(a_length, b_length); ++k) {
        int c = CompareValues(*a.child(0), a_start + k, *b.child(0), b_start + k);
        if (c != 0) return c;
      }
      return three_way(a_length, b_length);
    }
  }
  return 0;
}

template <typename T>
inline bool FixedLess(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a)) return false;
    if (std::isnan(b)) return true;
  }
  return a < b;
}

template <typename T, bool kMax>
class FixedMinMaxAccumulator final : public Accumulator {
 public:
  explicit FixedMinMaxAccumulator(DataTypePtr type) : type_(std::move(type)) {}

  void Resize(size_t num_groups) override {
    if (values_.size() >= num_groups) return;
    values_.resize(num_groups, T{});
    seen_.resize(num_groups, 0);
  }
  void Update(const std::vector<VectorPtr>& arguments, const uint32_t* groups, const uint8_t* selected,
              int64_t num_rows, EvalContext&) override {
    const Vector& input = *arguments[0];
    const T* values = input.values<T>();
    const bool has_nulls = input.null_count() != 0;
    for (int64_t i = 0; i < num_rows; ++i) {
      if (!Selected(selected, i) || (has_nulls && input.IsNull(i))) continue;
      Offer(groups[i], values[i]);
    }
  }
  void Merge(Accumulator& other, const uint32_t* group_map, size_t other_groups, EvalContext& context) override {
    MergeGroups(other, nullptr, group_map, other_groups, context);
  }
  bool MergesGroups() const override { return true; }
  void MergeGroups(Accumulator& other_base, const uint32_t* sources, const uint32_t* targets, size_t count,
                   EvalContext& context) override {
    auto& other = *Downcast<FixedMinMaxAccumulator>(other_base);
    for (size_t i = 0; i < count; ++i) {
      const size_t g = SourceGroup(sources, i);
      if (other.seen_[g]) Offer(targets[i], other.values_[g]);
    }
  }
  bool RepeatableFinalize() const override { return true; }
  VectorPtr Finalize(size_t num_groups, EvalContext&) override {
    Resize(num_groups);
    return MakeFixedResult(type_, values_.data(), sizeof(T), seen_.data(), num_groups);
  }

 private:
  void Offer(uint32_t g, T value) {
    bool better = kMax ? FixedLess(values_[g], value) : FixedLess(value, values_[g]);
    if (!seen_[g] || better) {
      values_[g] = value;
      seen_[g] = 1;
    }
  }

  DataTypePtr type_;
  std::vector<T> values_;
  std::vector<uint8_t> seen_;
};

template <bool kMax>
class StringMinMaxAccumulator final : public Accumulator {
 public:
  explicit StringMinMaxAccumulator(DataTypePtr type) : type_(std::move(type)) {}

  void Resize(size_t num_groups) override {
    if (values_.size() >= num_groups) return;
    values_.resize(num_groups);
    seen_.resize(num_groups, 0);
  }
  void Update(const std::vector<VectorPtr>& arguments, const uint32_t* groups, const uint8_t* selected,
              int64_t num_rows, EvalContext&) override {
    const Vector& input = *arguments[0];
    for (int64_t i = 0; i < num_rows; ++i) {
      if (!Selected(selected, i) || input.IsNull(i)) continue;
      Offer(groups[i], input.GetString(i));
    }
  }
  void Merge(Accumulator& other, const uint32_t* group_map, size_t other_groups, EvalContext& context) override {
    MergeGroups(other, nullptr, group_map, other_groups, context);
  }
  bool MergesGroups() const override { return true; }
  void MergeGroups(Accumulator& other_base, const uint32_t* sources, const uint32_t* targets, size_t count,
                   EvalContext& context) override {
    auto& other = *Downcast<StringMinMaxAccumulator>(other_base);
    for (size_t i = 0; i < count; ++i) {
      const size_t g = SourceGroup(sources, i);
      if (other.seen_[g]) Offer(targets[i], other.values_[g]);
    }
  }
  bool RepeatableFinalize() const override { return true; }
  VectorPtr Finalize(size_t num_groups, EvalContext&) override {
    Resize(num_groups);
    VectorBuilder builder(type_, static_cast<int64_t>(num_groups));
    for (size_t g = 0; g < num_groups; ++g) {
      if (seen_[g]) {
        builder.AppendString(values_[g]);
      } else {
        builder.AppendNull();
      }
    }
    return builder.Finish();
  }

 private:
  void Offer(uint32_t g, std::string_view value) {
    if (!seen_[g] || (kMax ? value > values_[g] : value < values_[g])) {
      values_[g].assign(value);
      seen_[g] = 1;
    }
  }

  DataTypePtr type_;
  std::vector<std::string> values_;
  std::vector<uint8_t> seen_;
};

// Per group: one value of any type, kept as a one-row copy.
class ScalarSlots {
 public:
  void Resize(size_t num_groups) {
    if (values_.size() < num_groups) values_.resize(num_groups);
  }
  bool has(size_t g) const { return values_[g].has_value(); }
  const Vector& vector(size_t g) const { return *values_[g]->vector(); }
  void Set(size_t g, const Vector& source, int64_t row) { values_[g] = expr::Scalar::FromVector(source, row); }
  void Set(size_t g, const expr::Scalar& value) { values_[g] = value; }
  const expr::Scalar& value(size_t g) const { return *values_[g]; }

  VectorPtr Finish(const DataTypePtr& type, size_t num_groups) const {
    VectorBuilder builder(type, static_cast<int64_t>(num_groups));
    for (size_t g = 0; g < num_groups; ++g) {
      if (g < values_.size() && values_[g]) {
        builder.AppendFrom(*values_[g]->vector(), 0);
      } else {
        builder.AppendNull();
      }
    }
    return builder.Finish();
  }

 private:
  std::vector<std::optional<expr::Scalar>> values_;
};

// min/max of booleans and nested values, and min_by/max_by: compared with CompareValues.
class GenericMinMaxAccumulator final : public Accumulator {
 public:
  // `by`: min_by/max_by (argument 1 orders, argument 0 is returned).
  GenericMinMaxAccumulator(DataTypePtr type, bool is_max, bool by)
      : type_(std::move(type)), is_max_(is_max), by_(by) {}

  void Resize(size_t num_groups) override {
    order_.Resize(num_groups);
    result_.Resize(num_groups);
  }
  void Update(const std::vector<VectorPtr>& arguments, const uint32_t* groups, const uint8_t* selected,
              int64_t num_rows, EvalContext&) override {
    const Vector& order = *arguments[by_ ? 1 : 0];
    const Vector& value = *arguments[0];
    for (int64_t i = 0; i < num_rows; ++i) {
      if (!Selected(selected, i) || order.IsNull(i)) continue;
      uint32_t g = groups[i];
      if (order_.has(g)) {
        int c = CompareValues(order, i, order_.vector(g), 0);
        if (is_max_ ? c <= 0 : c >= 0) continue;
      }
      order_.Set(g, order, i);
      if (by_) result_.Set(g, value, i);
    }
  }
  void Merge(Accumulator& other, const uint32_t* group_map, size_t other_groups, EvalContext& context) override {
    MergeGroups(other, nullptr, group_map, other_groups, context);
  }
  bool MergesGroups() const override { return true; }
  void MergeGroups(Accumulator& other_base, const uint32_t* sources, const uint32_t* targets, size_t count,
                   EvalContext& context) override {
    auto& other = *Downcast<GenericMinMaxAccumulator>(other_base);
    for (size_t i = 0; i < count; ++i) {
      const size_t g = SourceGroup(sources, i);
      if (!other.order_.has(g)) continue;
      uint32_t t = targets[i];
      if (order_.has(t)) {
        int c = CompareValues(other.order_.vector(g), 0, order_.vector(t), 0);
        if (is_max_ ? c <= 0 : c >= 0) continue;
      }
      order_.Set(t, other.order_.value(g));
      if (by_) result_.Set(t, other.result_.value(g));
    }
  }
  bool RepeatableFinalize() const override { return true; }
  VectorPtr Finalize(size_t num_groups, EvalContext&) override {
    return (by_ ? result_ : order_).Finish(type_, num_groups);
  }

 private:
  DataTypePtr type_;
  bool is_max_;
  bool by_;
  ScalarSlots order_;
  ScalarSlots result_;
};

// ---- first / last / any_value ----

class FirstLastAccumulator final : public Accumulator {
 public:
  FirstLastAccumulator(DataTypePtr type, bool last, bool ignore_nulls)
      : type_(std::move(type)), last_(last), ignore_nulls_(ignore_nulls) {}

  void Resize(size_t num_groups) override {
    values_.Resize(num_groups);
    if (stamps_.size() < num_groups) stamps_.resize(num_groups, 0);
  }
  void Update(const std::vector<VectorPtr>& arguments, const uint32_t* groups, const uint8_t* selected,
              int64_t num_rows, EvalContext&) override {
    const Vector& input = *arguments[0];
    if (!last_) {
      for (int64_t i = 0; i < num_rows; ++i) {
        if (!Selected(selected, i) || (ignore_nulls_ && input.IsNull(i))) continue;
        if (!values_.has(groups[i])) values_.Set(groups[i], input, i);
      }
      return;
    }
    // The last row of each group in this batch replaces the value of earlier batches.
    ++batch_stamp_;
    for (int64_t i = num_rows - 1; i >= 0; --i) {
      if (!Selected(selected, i) || (ignore_nulls_ && input.IsNull(i))) continue;
      uint32_t g = groups[i];
      if (stamps_[g] == batch_stamp_) continue;
      stamps_[g] = batch_stamp_;
      values_.Set(g, input, i);
    }
  }
  void Merge(Accumulator& other, const uint32_t* group_map, size_t other_groups, EvalContext& context) override {
    MergeGroups(other, nullptr, group_map, other_groups, context);
  }
  bool MergesGroups() const override { return true; }
  void MergeGroups(Accumulator& other_base, const uint32_t* sources, const uint32_t* targets, size_t count,
                   EvalContext& context) override {
    auto& other = *Downcast<FirstLastAccumulator>(other_base);
    for (size_t i = 0; i < count; ++i) {
      const size_t g = SourceGroup(sources, i);
      if (!other.values_.has(g)) continue;
      uint32_t t = targets[i];
      if (last_ || !values_.has(t)) values_.Set(t, other.values_.value(g));
    }
  }
  bool RepeatableFinalize() const override { return true; }
  VectorPtr Finalize(size_t num_groups, EvalContext&) override { return values_.Finish(type_, num_groups); }

 private:
  DataTypePtr type_;
  bool last_;
  bool ignore_nulls_;
  ScalarSlots values_;
  std::vector<uint64_t> stamps_;
  uint64_t batch_stamp_ = 0;
};

// ---- collect_list / collect_set ----

class CollectAccumulator final : public Accumulator {
 public:
  CollectAccumulator(DataTypePtr element_type, DataTypePtr result_type, bool set)
      : result_type_(std::move(result_type)),
        values_(element_type),
        variable_width_(element_type->id() == TypeId::kString || element_type->id() == TypeId::kBinary),
        element_bytes_(std::max(element_type->FixedWidth(), 1)),
        set_(set) {}

  void Resize(size_t num_groups) override {
    num_groups_ = std::max(num_groups_, num_groups);
    if (group_bytes_.size() < num_groups_) group_bytes_.resize(num_groups_, 0);
  }
  void Update(const std::vector<VectorPtr>& arguments, const uint32_t* groups, const uint8_t* selected,
              int64_t num_rows, EvalContext& context) override {
    const Vector& input = *arguments[0];
    for (int64_t i = 0; i < num_rows; ++i) {
      if (!Selected(selected, i) || input.IsNull(i)) continue;
      AddBytes(groups[i], variable_width_ ? input.GetString(i).size() : element_bytes_, context.max_value_bytes);
      values_.AppendFrom(input, i);
      value_groups_.push_back(groups[i]);
    }
  }
  void Merge(Accumulator& other_base, const uint32_t* group_map, size_t, EvalContext& context) override {
    auto& other = *Downcast<CollectAccumulator>(other_base);
    for (size_t g = 0; g < other.group_bytes_.size(); ++g) {
      if (other.group_bytes_[g] > 0) AddBytes(group_map[g], other.group_bytes_[g], context.max_value_bytes);
    }
    VectorPtr values = other.values_.Finish();
    for (size_t k = 0; k < other.value_groups_.size(); ++k) {
      values_.AppendFrom(*values, static_cast<int64_t>(k));
      value_groups_.push_back(group_map[other.value_groups_[k]]);
    }
  }
  VectorPtr Finalize(size_t num_groups, EvalContext&) override {
    VectorPtr values = values_.Finish();
    // Counting sort of the values by group, keeping input order within a group.
    std::vector<int64_t> starts(num_groups + 1, 0);
    for (uint32_t g : value_groups_) ++starts[g + 1];
    for (size_t g = 0; g < num_groups; ++g) starts[g + 1] += starts[g];
    std::vector<int64_t> order(value_groups_.size());
    std::vector<int64_t> cursor(starts.begin(), starts.end() - 1);
    for (size_t k = 0; k < value_groups_.size(); ++k) order[cursor[value_groups_[k]]++] = static_cast<int64_t>(k);

    std::vector<uint8_t> keep(value_groups_.size(), 1);
    if (set_ && !value_groups_.empty()) {
      EncodedKeys encoded;
      EncodeKeys({values}, values->length(), encoded);
      KeyTable seen;
      std::string key;
      for (size_t k = 0; k < value_groups_.size(); ++k) {
        key.assign(reinterpret_cast<const char*>(&value_groups_[k]), sizeof(uint32_t));
        key.append(encoded.key(static_cast<int64_t>(k)));
        bool inserted = false;
        seen.FindOrInsert(key, HashBytes(key.data(), key.size()), &inserted);
        keep[k] = inserted;
      }
    }
    VectorBuilder builder(result_type_, static_cast<int64_t>(num_groups));
    for (size_t g = 0; g < num_groups; ++g) {
      for (int64_t p = starts[g]; p < starts[g + 1]; ++p) {
        if (keep[order[p]]) builder.child(0).AppendFrom(*values, order[p]);
      }
      builder.FinishList();
    }
    return builder.Finish();
  }

 private:
  // Counts `bytes` toward group `group`'s array, which may not outgrow one value's limit
  // (before the values it would hold are kept).
  void AddBytes(uint32_t group, uint64_t bytes, uint64_t limit) {
    if (group >= group_bytes_.size()) group_bytes_.resize(size_t{group} + 1, 0);
    group_bytes_[group] += bytes;
    if (group_bytes_[group] > limit) [[unlikely]] {
      expr::CheckValueSize(set_ ? "The values collected by collect_set" : "The result of collect_list",
                           group_bytes_[group], limit);
    }
  }

  DataTypePtr result_type_;
  VectorBuilder values_;
  std::vector<uint32_t> value_groups_;
  // The bytes of the values collected for each group (strings by length, nested values by
  // their fixed part only).
  std::vector<uint64_t> group_bytes_;
  bool variable_width_;
  uint64_t element_bytes_;
  size_t num_groups_ = 0;
  bool set_;
};

// ---- skewness / kurtosis: Spark's central moments up to the fourth ----

class CentralMomentAccumulator final : public Accumulator {
 public:
  explicit CentralMomentAccumulator(bool kurtosis) : kurtosis_(kurtosis) {}

  void Resize(size_t num_groups) override {
    if (states_.size() < num_groups) states_.resize(num_groups);
  }
  void Update(const std::vector<VectorPtr>& arguments, const uint32_t* groups, const uint8_t* selected,
              int64_t num_rows, EvalContext&) override {
    const Vector& input = *arguments[0];
    const double* values = input.values<double>();
    for (int64_t i = 0; i < num_rows; ++i) {
      if (!Selected(selected, i) || input.IsNull(i)) continue;
      // Spark's CentralMomentAgg update, step for step, so that results agree to the last bit.
      State& state = states_[groups[i]];
      double n = state.n + 1;
      double delta = values[i] - state.mean;
      double delta_n = delta / n;
      double m2 = state.m2 + delta * (delta - delta_n);
      double delta2 = delta * delta;
      double delta_n2 = delta_n * delta_n;
      double m3 = state.m3 - 3.0 * delta_n * m2 + delta * (delta2 - delta_n2);
      double m4 = state.m4 - 4.0 * delta_n * m3 - 6.0 * delta_n2 * m2 + delta * (delta * delta2 - delta_n * delta_n2);
      state = State{n, state.mean + delta_n, m2, m3, m4};
    }
  }
  void Merge(Accumulator& other, const uint32_t* group_map, size_t other_groups, EvalContext& context) override {
    MergeGroups(other, nullptr, group_map, other_groups, context);
  }
  bool MergesGroups() const override { return true; }
  void MergeGroups(Accumulator& other_base, const uint32_t* sources, const uint32_t* targets, size_t count,
                   EvalContext&) override {
    auto& other = *Downcast<CentralMomentAccumulator>(other_base);
    for (size_t i = 0; i < count; ++i) {
      const size_t g = SourceGroup(sources, i);
      const State& b = other.states_[g];
      if (b.n == 0) continue;
      State& a = states_[targets[i]];
      double n1 = a.n, n2 = b.n, n = n1 + n2;
      double delta = b.mean - a.mean;
      double delta_n = delta / n;
      double m2 = a.m2 + b.m2 + delta * delta_n * n1 * n2;
      double m3 = a.m3 + b.m3 + delta_n * delta_n * delta * n1 * n2 * (n1 - n2) +
                  3.0 * delta_n * (n1 * b.m2 - n2 * a.m2);
      double m4 = a.m4 + b.m4 + delta_n * delta_n * delta_n * delta * n1 * n2 * (n1 * n1 - n1 * n2 + n2 * n2) +
                  6.0 * delta_n * delta_n * (n1 * n1 * b.m2 + n2 * n2 * a.m2) + 4.0 * delta_n * (n1 * b.m3 - n2 * a.m3);
      a = State{n, a.mean + delta_n * n2, m2, m3, m4};
    }
  }
  bool RepeatableFinalize() const override { return true; }
  VectorPtr Finalize(size_t num_groups, EvalContext&) override {
    Resize(num_groups);
    std::vector<double> results(num_groups, 0);
    std::vector<uint8_t> valid(num_groups, 0);
    for (size_t g = 0; g < num_groups; ++g) {
      const State& state = states_[g];
      // NULL for no rows and, as in Spark 3.4+, where the variance is zero.
      if (state.n == 0 || state.m2 == 0) continue;
      valid[g] = 1;
      results[g] = kurtosis_ ? state.n * state.m4 / (state.m2 * state.m2) - 3.0
                             : std::sqrt(state.n) * state.m3 / std::sqrt(state.m2 * state.m2 * state.m2);
    }
    return MakeFixedResult(DoubleType(), results.data(), sizeof(double), valid.data(), num_groups);
  }

 private:
  struct State {
    double n = 0, mean = 0, m2 = 0, m3 = 0, m4 = 0;
  };
  bool kurtosis_;
  std::vector<State> states_;
};

// ---- corr, covar_pop, covar_samp, regr_*: co-moments of pairs where both values are non-NULL ----

// Spark computes these with its Covariance, PearsonCorrelation and CentralMomentAgg states, whose
// roles differ per function; each is followed here step for step so that results agree to the
// last bit.
class CoMomentAccumulator final : public Accumulator {
 public:
  explicit CoMomentAccumulator(AggregateKind kind) : kind_(kind) {}

  void Resize(size_t num_groups) override {
    if (states_.size() < num_groups) states_.resize(num_groups);
  }
  void Update(const std::vector<VectorPtr>& arguments, const uint32_t* groups, const uint8_t* selected,
              int64_t num_rows, EvalContext&) override {
    // The pair's roles: (arg0, arg1) as written, except regr_slope and regr_intercept, whose
    // covariance Spark takes over (x, y) = (arg1, arg0).
    const bool swapped = kind_ == AggregateKind::kRegrSlope || kind_ == AggregateKind::kRegrIntercept;
    const Vector& first = *arguments[swapped ? 1 : 0];
    const Vector& second = *arguments[swapped ? 0 : 1];
    // The one variable a central moment is kept for: regr_sxx's x, regr_syy's y (over pairs),
    // and the x of regr_slope/regr_intercept (over every non-NULL x, as Spark's VariancePop is).
    const Vector* moment = kind_ == AggregateKind::kRegrSyy ? arguments[0].get()
                           : kind_ == AggregateKind::kRegrSxx || swapped ? arguments[1].get()
                                                                         : nullptr;
    const bool moment_of_pairs_only = !swapped;
    for (int64_t i = 0; i < num_rows; ++i) {
      if (!Selected(selected, i)) continue;
      State& state = states_[groups[i]];
      const bool pair = first.IsValid(i) && second.IsValid(i);
      if (moment != nullptr && moment->IsValid(i) && (pair || !moment_of_pairs_only)) {
        // CentralMomentAgg's update.
        double value = moment->values<double>()[i];
        double n = state.moment_n + 1;
        double delta = value - state.moment_mean;
        double delta_n = delta / n;
        state.moment_mean += delta_n;
        state.moment_m2 += delta * (delta - delta_n);
        state.moment_n = n;
      }
      if (!pair) continue;
      // PearsonCorrelation's (and Covariance's) update.
      double x = first.values<double>()[i], y = second.values<double>()[i];
      double n = state.n + 1;
      double dx = x - state.x_mean;
      double dy = y - state.y_mean;
      double x_mean = state.x_mean + dx / n;
      double y_mean = state.y_mean + dy / n;
      state.ck += dx * (y - y_mean);
      state.x_mk += dx * (x - x_mean);
      state.y_mk += dy * (y - y_mean);
      state.x_mean = x_mean;
      state.y_mean = y_mean;
      state.x_sum += x;
      state.y_sum += y;
      state.n = n;
    }
  }
  void Merge(Accumulator& other, const uint32_t* group_map, size_t other_groups, EvalContext& context) override {
    MergeGroups(other, nullptr, group_map, other_groups, context);
  }
  bool MergesGroups() const override { return true; }
  void MergeGroups(Accumulator& other_base, const uint32_t* sources, const uint32_t* targets, size_t count,
                   EvalContext&) override {
    auto& other = *Downcast<CoMomentAccumulator>(other_base);
    for (size_t i = 0; i < count; ++i) {
      const size_t g = SourceGroup(sources, i);
      const State& b = other.states_[g];
      State& a = states_[targets[i]];
      if (b.moment_n > 0) {
        double n1 = a.moment_n, n2 = b.moment_n, n = n1 + n2;
        double delta = b.moment_mean - a.moment_mean;
        double delta_n = delta / n;
        a.moment_m2 += b.moment_m2 + delta * delta_n * n1 * n2;
        a.moment_mean += delta_n * n2;
        a.moment_n = n;
      }
      if (b.n == 0) continue;
      double n1 = a.n, n2 = b.n, n = n1 + n2;
      double dx = b.x_mean - a.x_mean, dy = b.y_mean - a.y_mean;
      double dx_n = dx / n, dy_n = dy / n;
      a.ck += b.ck + dx * dy_n * n1 * n2;
      a.x_mk += b.x_mk + dx * dx_n * n1 * n2;
      a.y_mk += b.y_mk + dy * dy_n * n1 * n2;
      a.x_mean += dx_n * n2;
      a.y_mean += dy_n * n2;
      a.x_sum += b.x_sum;
      a.y_sum += b.y_sum;
      a.n = n;
    }
  }
  bool RepeatableFinalize() const override { return true; }
  VectorPtr Finalize(size_t num_groups, EvalContext&) override {
    Resize(num_groups);
    if (kind_ == AggregateKind::kRegrCount) {
      std::vector<int64_t> counts(num_groups);
      for (size_t g = 0; g < num_groups; ++g) counts[g] = static_cast<int64_t>(states_[g].n);
      std::vector<uint8_t> valid(num_groups, 1);
      return MakeFixedResult(LongType(), counts.data(), sizeof(int64_t), valid.data(), num_groups);
    }
    std::vector<double> results(num_groups, 0);
    std::vector<uint8_t> valid(num_groups, 0);
    for (size_t g = 0; g < num_groups; ++g) {
      std::optional<double> result = Evaluate(states_[g]);
      valid[g] = result.has_value();
      if (result) results[g] = *result;
    }
    return MakeFixedResult(DoubleType(), results.data(), sizeof(double), valid.data(), num_groups);
  }

 private:
  struct State {
    double n = 0, x_mean = 0, y_mean = 0, ck = 0, x_mk = 0, y_mk = 0, x_sum = 0, y_sum = 0;
    double moment_n = 0, moment_mean = 0, moment_m2 = 0;
  };

  // Spark's results; NULL for no pairs, and (since Spark 3.4) where a divisor is zero.
  std::optional<double> Evaluate(const State& state) const {
    const double n = state.n;
    switch (kind_) {
      case AggregateKind::kRegrSlope:
      case AggregateKind::kRegrIntercept: {
        if (state.moment_m2 == 0) return std::nullopt;
        double slope = state.ck / state.moment_m2;
        if (kind_ == AggregateKind::kRegrSlope) return slope;
        return state.y_mean - slope * state.x_mean;
      }
      case AggregateKind::kRegrSxx:
      case AggregateKind::kRegrSyy:
        if (state.moment_n == 0) return std::nullopt;
        return state.moment_m2;
      default: break;
    }
    if (n == 0) return std::nullopt;
    switch (kind_) {
      case AggregateKind::kCorr:
        if (n == 1) return std::nullopt;
        return state.ck / std::sqrt(state.x_mk * state.y_mk);
      case AggregateKind::kCovarPop: return state.ck / n;
      case AggregateKind::kCovarSamp:
        if (n == 1) return std::nullopt;
        return state.ck / (n - 1);
      case AggregateKind::kRegrAvgX: return state.y_sum / n;
      case AggregateKind::kRegrAvgY: return state.x_sum / n;
      case AggregateKind::kRegrSxy: return state.ck;
      case AggregateKind::kRegrR2: {
        if (state.x_mk == 0) return std::nullopt;
        if (state.y_mk == 0) return 1.0;
        double correlation = state.ck / std::sqrt(state.x_mk * state.y_mk);
        return correlation * correlation;
      }
      default: break;
    }
    SILT_CHECK(false, "not a co-moment aggregate");
    return std::nullopt;
  }

  AggregateKind kind_;
  std::vector<State> states_;
};

// ---- percentile, median, percentile_cont/disc, percentile_approx, mode ----

// Every value of a group (with its frequency), ordered when the group is finalised.
class OrderStatisticAccumulator final : public Accumulator {
 public:
  OrderStatisticAccumulator(AggregateKind kind, const AggregateCall& call, const DataTypePtr& value_type)
      : kind_(kind), result_type_(call.result_type), values_(value_type), descending_(call.descending) {
    // The percentages are literals (PrepareAggregateArguments); median is the 50th percentile.
    if (kind == AggregateKind::kMedian) {
      percentages_.push_back(0.5);
    } else if (kind != AggregateKind::kMode) {
      const expr::Expression& argument = *call.arguments[1];
      SILT_CHECK(argument.kind() == expr::ExpressionKind::kLiteral && !argument.literal().is_null(),
                 "percentile percentage not prepared");
      const expr::Scalar& percentage = argument.literal();
      if (percentage.type()->id() == TypeId::kList) {
        array_result_ = true;
        const Vector& list = *percentage.vector();
        for (int64_t k = 0; k < list.ListLength(0); ++k) {
          percentages_.push_back(list.child(0)->values<double>()[list.ListStart(0) + k]);
        }
      } else {
        percentages_.push_back(percentage.GetDouble());
      }
    }
    if (kind == AggregateKind::kPercentile && call.arguments.size() == 3) frequency_argument_ = 2;
    if (kind == AggregateKind::kPercentileApprox) {
      int64_t accuracy = 10000;  // Spark's default
      if (call.arguments.size() == 3) accuracy = call.arguments[2]->literal().GetInt();
      relative_error_ = 1.0 / static_cast<double>(accuracy);
    }
  }

  void Resize(size_t num_groups) override { num_groups_ = std::max(num_groups_, num_groups); }
  void Update(const std::vector<VectorPtr>& arguments, const uint32_t* groups, const uint8_t* selected,
              int64_t num_rows, EvalContext&) override {
    const Vector& input = *arguments[0];
    const Vector* frequency = frequency_argument_ > 0 ? arguments[frequency_argument_].get() : nullptr;
    for (int64_t i = 0; i < num_rows; ++i) {
      if (!Selected(selected, i) || input.IsNull(i)) continue;
      int64_t weight = 1;
      if (frequency != nullptr) {
        if (frequency->IsNull(i)) continue;
        weight = frequency->values<int64_t>()[i];
        if (weight < 0) {
          SILT_THROW(INVALID_PARAMETER_VALUE, {{"parameter", "`frequency`"},
                                               {"functionName", "`percentile`"},
                                               {"message", "found the negative value " + std::to_string(weight)}});
        }
        if (weight == 0) continue;
      }
      values_.AppendFrom(input, i);
      value_groups_.push_back(groups[i]);
      weights_.push_back(weight);
    }
  }
  void Merge(Accumulator& other_base, const uint32_t* group_map, size_t, EvalContext&) override {
    auto& other = *Downcast<OrderStatisticAccumulator>(other_base);
    VectorPtr values = other.values_.Finish();
    for (size_t k = 0; k < other.value_groups_.size(); ++k) {
      values_.AppendFrom(*values, static_cast<int64_t>(k));
      value_groups_.push_back(group_map[other.value_groups_[k]]);
      weights_.push_back(other.weights_[k]);
    }
  }
  VectorPtr Finalize(size_t num_groups, EvalContext&) override {
    VectorPtr values = values_.Finish();
    // Counting sort of the values by group, then each group's values in order.
    std::vector<int64_t> starts(num_groups + 1, 0);
    for (uint32_t g : value_groups_) ++starts[g + 1];
    for (size_t g = 0; g < num_groups; ++g) starts[g + 1] += starts[g];
    std::vector<int64_t> order(value_groups_.size());
    std::vector<int64_t> cursor(starts.begin(), starts.end() - 1);
    for (size_t k = 0; k < value_groups_.size(); ++k) order[cursor[value_groups_[k]]++] = static_cast<int64_t>(k);

    VectorBuilder builder(result_type_, static_cast<int64_t>(num_groups));
    std::vector<int64_t> keys;         // a row of each distinct value, in order
    std::vector<int64_t> accumulated;  // the frequencies up to and including each key
    for (size_t g = 0; g < num_groups; ++g) {
      auto first = order.begin() + starts[g];
      auto last = order.begin() + starts[g + 1];
      if (first == last) {
        builder.AppendNull();
        continue;
      }
      std::stable_sort(first, last, [&](int64_t a, int64_t b) {
        int c = CompareValues(*values, a, *values, b);
        return descending_ ? c > 0 : c < 0;
      });
      keys.clear();
      accumulated.clear();
      for (auto it = first; it != last; ++it) {
        if (keys.empty() || CompareValues(*values, keys.back(), *values, *it) != 0) {
          keys.push_back(*it);
          accumulated.push_back(accumulated.empty() ? 0 : accumulated.back());
        }
        accumulated.back() += weights_[*it];
      }
      AppendResult(*values, keys, accumulated, builder);
    }
    return builder.Finish();
  }

 private:
  // The index of the first key whose accumulated frequency reaches `count`.
  static size_t KeyAt(const std::vector<int64_t>& accumulated, int64_t count) {
    return static_cast<size_t>(std::lower_bound(accumulated.begin(), accumulated.end(), count) - accumulated.begin());
  }

  static double NumberAt(const Vector& values, int64_t row) {
    switch (values.type_id()) {
      case TypeId::kYearMonthInterval: return values.values<int32_t>()[row];
      case TypeId::kDayTimeInterval: return static_cast<double>(values.values<int64_t>()[row]);
      default: return values.values<double>()[row];
    }
  }

  void AppendNumber(VectorBuilder& builder, const Vector& values, double value) const {
    // An interval result is truncated to its unit, as Spark's toInt / toLong do.
    if (values.type_id() == TypeId::kYearMonthInterval || values.type_id() == TypeId::kDayTimeInterval) {
      builder.AppendInt(static_cast<int64_t>(value));
    } else {
      builder.AppendDouble(value);
    }
  }

  void AppendResult(const Vector& values, const std::vector<int64_t>& keys, const std::vector<int64_t>& accumulated,
                    VectorBuilder& builder) const {
    if (kind_ == AggregateKind::kMode) {
      // The most frequent value; among equally frequent ones the first in order (the smallest,
      // or the largest WITHIN GROUP (ORDER BY ... DESC)).
      auto frequency = [&](size_t k) { return accumulated[k] - (k == 0 ? 0 : accumulated[k - 1]); };
      size_t best = 0;
      for (size_t k = 1; k < keys.size(); ++k) {
        if (frequency(k) > frequency(best)) best = k;
      }
      builder.AppendFrom(values, keys[best]);
      return;
    }
    VectorBuilder& out = array_result_ ? builder.child(0) : builder;
    const int64_t total = accumulated.back();
    for (double p : percentages_) {
      switch (kind_) {
        case AggregateKind::kPercentileApprox: {
          // The exact answer of Spark's quantile summary: the smallest value whose rank reaches
          // ceil(p * n), the first and last values within the relative error of the ends.
          size_t key = 0;
          if (p >= 1.0 - relative_error_) {
            key = keys.size() - 1;
          } else if (p > relative_error_) {
            key = KeyAt(accumulated, static_cast<int64_t>(std::ceil(p * static_cast<double>(total))));
          }
          out.AppendFrom(values, keys[key]);
          break;
        }
        case AggregateKind::kPercentileDisc: {
          // The first value whose cumulative share reaches p.
          double position = static_cast<double>(total) * p;
          size_t key = KeyAt(accumulated, static_cast<int64_t>(std::ceil(position)));
          AppendNumber(out, values, NumberAt(values, keys[std::min(key, keys.size() - 1)]));
          break;
        }
        default: {
          // Linear interpolation between the values at the floor and ceiling of (n - 1) * p.
          double position = static_cast<double>(total - 1) * p;
          auto lower = static_cast<int64_t>(std::floor(position));
          auto higher = static_cast<int64_t>(std::ceil(position));
          size_t lower_key = KeyAt(accumulated, lower + 1);
          size_t higher_key = KeyAt(accumulated, higher + 1);
          double low = NumberAt(values, keys[lower_key]);
          if (lower == higher || lower_key == higher_key) {
            AppendNumber(out, values, low);
          } else {
            double high = NumberAt(values, keys[higher_key]);
            AppendNumber(out, values,
                         (static_cast<double>(higher) - position) * low + (position - static_cast<double>(lower)) * high);
          }
          break;
        }
      }
    }
    if (array_result_) builder.FinishList();
  }

  AggregateKind kind_;
  DataTypePtr result_type_;
  VectorBuilder values_;
  std::vector<uint32_t> value_groups_;
  std::vector<int64_t> weights_;
  std::vector<double> percentages_;
  bool array_result_ = false;
  bool descending_;
  size_t frequency_argument_ = 0;
  double relative_error_ = 0;
  size_t num_groups_ = 0;
};

// ---- bit_and / bit_or / bit_xor ----

class BitAccumulator final : public Accumulator {
 public:
  BitAccumulator(AggregateKind kind, DataTypePtr type) : kind_(kind), type_(std::move(type)) {}

  void Resize(size_t num_groups) override {
    if (values_.size() >= num_groups) return;
    values_.resize(num_groups, kind_ == AggregateKind::kBitAnd ? ~int64_t{0} : 0);
    seen_.resize(num_groups, 0);
  }
  void Update(const std::vector<VectorPtr>& arguments, const uint32_t* groups, const uint8_t* selected,
              int64_t num_rows, EvalContext&) override {
    const Vector& input = *arguments[0];
    for (int64_t i = 0; i < num_rows; ++i) {
      if (!Selected(selected, i) || input.IsNull(i)) continue;
      Fold(groups[i], IntegralAt(input, i));
    }
  }
  void Merge(Accumulator& other, const uint32_t* group_map, size_t other_groups, EvalContext& context) override {
    MergeGroups(other, nullptr, group_map, other_groups, context);
  }
  bool MergesGroups() const override { return true; }
  void MergeGroups(Accumulator& other_base, const uint32_t* sources, const uint32_t* targets, size_t count,
                   EvalContext&) override {
    auto& other = *Downcast<BitAccumulator>(other_base);
    for (size_t i = 0; i < count; ++i) {
      const size_t g = SourceGroup(sources, i);
      if (other.seen_[g]) Fold(targets[i], other.values_[g]);
    }
  }
  bool RepeatableFinalize() const override { return true; }
  VectorPtr Finalize(size_t num_groups, EvalContext&) override {
    Resize(num_groups);
    VectorBuilder builder(type_, static_cast<int64_t>(num_groups));
    for (size_t g = 0; g < num_groups; ++g) {
      if (seen_[g]) {
        builder.AppendInt(values_[g]);
      } else {
        builder.AppendNull();
      }
    }
    return builder.Finish();
  }

 private:
  static int64_t IntegralAt(const Vector& input, int64_t row) {
    switch (input.type_id()) {
      case TypeId::kByte: return input.values<int8_t>()[row];
      case TypeId::kShort: return input.values<int16_t>()[row];
      case TypeId::kInteger: return input.values<int32_t>()[row];
      default: return input.values<int64_t>()[row];
    }
  }
  void Fold(uint32_t g, int64_t value) {
    seen_[g] = 1;
    switch (kind_) {
      case AggregateKind::kBitAnd: values_[g] &= value; break;
      case AggregateKind::kBitOr: values_[g] |= value; break;
      default: values_[g] ^= value; break;
    }
  }

  AggregateKind kind_;
  DataTypePtr type_;
  std::vector<int64_t> values_;
  std::vector<uint8_t> seen_;
};

// ---- listagg / string_agg ----

// Each group's non-NULL values (and WITHIN GROUP sort keys), joined by the delimiter in key
// order (input order without keys) when the group is finalised.
class ListAggAccumulator final : public Accumulator {
 public:
  ListAggAccumulator(const AggregateCall& call, const std::vector<DataTypePtr>& types)
      : result_type_(call.result_type), values_(types[0]), order_(call.within_group_order) {
    if (call.arguments.size() >= 2) {
      const expr::Expression& delimiter = *call.arguments[1];
      SILT_CHECK(delimiter.kind() == expr::ExpressionKind::kLiteral, "listagg delimiter not prepared");
      if (!delimiter.literal().is_null()) delimiter_ = std::string(delimiter.literal().GetString());
    }
    first_key_ = call.arguments.size() - order_.size();
    for (size_t k = first_key_; k < types.size(); ++k) keys_.push_back(std::make_unique<VectorBuilder>(types[k]));
  }

  void Resize(size_t num_groups) override { num_groups_ = std::max(num_groups_, num_groups); }
  void Update(const std::vector<VectorPtr>& arguments, const uint32_t* groups, const uint8_t* selected,
              int64_t num_rows, EvalContext& context) override {
    const Vector& input = *arguments[0];
    for (int64_t i = 0; i < num_rows; ++i) {
      if (!Selected(selected, i) || input.IsNull(i)) continue;
      uint32_t g = groups[i];
      if (g >= group_bytes_.size()) group_bytes_.resize(size_t{g} + 1, 0);
      group_bytes_[g] += input.GetString(i).size() + delimiter_.size();
      if (group_bytes_[g] > context.max_value_bytes) [[unlikely]] {
        expr::CheckValueSize("The result of listagg", group_bytes_[g], context.max_value_bytes);
      }
      values_.AppendFrom(input, i);
      for (size_t k = 0; k < keys_.size(); ++k) keys_[k]->AppendFrom(*arguments[first_key_ + k], i);
      value_groups_.push_back(g);
    }
  }
  void Merge(Accumulator& other_base, const uint32_t* group_map, size_t, EvalContext& context) override {
    auto& other = *Downcast<ListAggAccumulator>(other_base);
    VectorPtr values = other.values_.Finish();
    std::vector<VectorPtr> keys;
    for (auto& key : other.keys_) keys.push_back(key->Finish());
    for (size_t r = 0; r < other.value_groups_.size(); ++r) {
      uint32_t g = group_map[other.value_groups_[r]];
      if (g >= group_bytes_.size()) group_bytes_.resize(size_t{g} + 1, 0);
      group_bytes_[g] += values->GetString(static_cast<int64_t>(r)).size() + delimiter_.size();
      if (group_bytes_[g] > context.max_value_bytes) [[unlikely]] {
        expr::CheckValueSize("The result of listagg", group_bytes_[g], context.max_value_bytes);
      }
      values_.AppendFrom(*values, static_cast<int64_t>(r));
      for (size_t k = 0; k < keys.size(); ++k) keys_[k]->AppendFrom(*keys[k], static_cast<int64_t>(r));
      value_groups_.push_back(g);
    }
  }
  VectorPtr Finalize(size_t num_groups, EvalContext&) override {
    VectorPtr values = values_.Finish();
    std::vector<VectorPtr> keys;
    for (auto& key : keys_) keys.push_back(key->Finish());
    std::vector<int64_t> starts(num_groups + 1, 0);
    for (uint32_t g : value_groups_) ++starts[g + 1];
    for (size_t g = 0; g < num_groups; ++g) starts[g + 1] += starts[g];
    std::vector<int64_t> order(value_groups_.size());
    std::vector<int64_t> cursor(starts.begin(), starts.end() - 1);
    for (size_t r = 0; r < value_groups_.size(); ++r) order[cursor[value_groups_[r]]++] = static_cast<int64_t>(r);
    auto before = [&](int64_t a, int64_t b) {
      for (size_t k = 0; k < keys.size(); ++k) {
        const Vector& key = *keys[k];
        auto [ascending, nulls_first] = order_[k];
        bool a_null = key.IsNull(a), b_null = key.IsNull(b);
        if (a_null || b_null) {
          if (a_null == b_null) continue;
          return a_null == nulls_first;
        }
        int c = CompareValues(key, a, key, b);
        if (c != 0) return ascending ? c < 0 : c > 0;
      }
      return false;
    };
    VectorBuilder builder(result_type_, static_cast<int64_t>(num_groups));
    std::string text;
    for (size_t g = 0; g < num_groups; ++g) {
      auto first = order.begin() + starts[g];
      auto last = order.begin() + starts[g + 1];
      if (first == last) {
        builder.AppendNull();
        continue;
      }
      if (!keys.empty()) std::stable_sort(first, last, before);
      text.clear();
      for (auto it = first; it != last; ++it) {
        if (it != first) text += delimiter_;
        text += values->GetString(*it);
      }
      builder.AppendString(text);
    }
    return builder.Finish();
  }

 private:
  DataTypePtr result_type_;
  VectorBuilder values_;
  std::vector<std::pair<bool, bool>> order_;
  std::string delimiter_;
  size_t first_key_ = 1;
  std::vector<std::unique_ptr<VectorBuilder>> keys_;
  std::vector<uint32_t> value_groups_;
  std::vector<uint64_t> group_bytes_;
  size_t num_groups_ = 0;
};

// ---- approx_count_distinct: HyperLogLog with 2^p registers per group ----

class ApproxDistinctAccumulator final : public Accumulator {
 public:
  explicit ApproxDistinctAccumulator(double relative_sd) {
    // Spark: p = ceil(2 * log2(1.106 / rsd)); rsd 0.05 gives 2^9 registers.
    int p = static_cast<int>(std::ceil(2.0 * std::log2(1.106 / relative_sd)));
    precision_ = std::clamp(p, 4, 18);
    registers_per_group_ = size_t{1} << precision_;
  }

  void Resize(size_t num_groups) override {
    if (registers_.size() < num_groups * registers_per_group_) registers_.resize(num_groups * registers_per_group_, 0);
  }
  void Update(const std::vector<VectorPtr>& arguments, const uint32_t* groups, const uint8_t* selected,
              int64_t num_rows, EvalContext&) override {
    const Vector& input = *arguments[0];
    EncodeKeys({arguments[0]}, num_rows, encoded_);
    for (int64_t i = 0; i < num_rows; ++i) {
      if (!Selected(selected, i) || input.IsNull(i)) continue;
      uint64_t hash = encoded_.hashes[i];
      size_t index = hash >> (64 - precision_);
      uint64_t rest = (hash << precision_) | (uint64_t{1} << (precision_ - 1));
      uint8_t rank = static_cast<uint8_t>(std::countl_zero(rest) + 1);
      uint8_t& slot = registers_[groups[i] * registers_per_group_ + index];
      slot = std::max(slot, rank);
    }
  }
  void Merge(Accumulator& other, const uint32_t* group_map, size_t other_groups, EvalContext& context) override {
    MergeGroups(other, nullptr, group_map, other_groups, context);
  }
  bool MergesGroups() const override { return true; }
  void MergeGroups(Accumulator& other_base, const uint32_t* sources, const uint32_t* targets, size_t count,
                   EvalContext& context) override {
    auto& other = *Downcast<ApproxDistinctAccumulator>(other_base);
    for (size_t i = 0; i < count; ++i) {
      const size_t g = SourceGroup(sources, i);
      uint8_t* target = &registers_[targets[i] * registers_per_group_];
      const uint8_t* source = &other.registers_[g * registers_per_group_];
      for (size_t r = 0; r < registers_per_group_; ++r) target[r] = std::max(target[r], source[r]);
    }
  }
  bool RepeatableFinalize() const override { return true; }
  VectorPtr Finalize(size_t num_groups, EvalContext&) override {
    Resize(num_groups);
    const double m = static_cast<double>(registers_per_group_);
    const double alpha = 0.7213 / (1 + 1.079 / m);
    std::vector<int64_t> results(num_groups);
    for (size_t g = 0; g < num_groups; ++g) {
      const uint8_t* slots = &registers_[g * registers_per_group_];
      double sum = 0;
      size_t zeros = 0;
      for (size_t r = 0; r < registers_per_group_; ++r) {
        sum += std::ldexp(1.0, -slots[r]);
        zeros += slots[r] == 0;
      }
      double estimate = alpha * m * m / sum;
      // Linear counting is far more accurate while registers are still empty.
      if (estimate <= 2.5 * m && zeros > 0) estimate = m * std::log(m / static_cast<double>(zeros));
      results[g] = static_cast<int64_t>(std::llround(estimate));
    }
    std::vector<uint8_t> valid(num_groups, 1);
    return MakeFixedResult(LongType(), results.data(), sizeof(int64_t), valid.data(), num_groups);
  }

 private:
  int precision_ = 9;
  size_t registers_per_group_ = 512;
  std::vector<uint8_t> registers_;
  EncodedKeys encoded_;
};

// ---- DISTINCT: keeps each group's distinct argument rows and aggregates them at the end ----

class DistinctAccumulator final : public Accumulator {
 public:
  DistinctAccumulator(std::unique_ptr<Accumulator> inner, const std::vector<DataTypePtr>& argument_types)
      : inner_(std::move(inner)) {
    for (const DataTypePtr& type : argument_types) builders_.push_back(std::make_unique<VectorBuilder>(type));
  }

  void Resize(size_t num_groups) override { num_groups_ = std::max(num_groups_, num_groups); }
  void Update(const std::vector<VectorPtr>& arguments, const uint32_t* groups, const uint8_t* selected,
              int64_t num_rows, EvalContext&) override {
    EncodeKeys(arguments, num_rows, encoded_);
    std::string key;
    for (int64_t i = 0; i < num_rows; ++i) {
      if (!Selected(selected, i)) continue;
      key.assign(reinterpret_cast<const char*>(&groups[i]), sizeof(uint32_t));
      key.append(encoded_.key(i));
      bool inserted = false;
      seen_.FindOrInsert(key, HashBytes(key.data(), key.size()), &inserted);
      if (!inserted) continue;
      for (size_t a = 0; a < arguments.size(); ++a) builders_[a]->AppendFrom(*arguments[a], i);
      kept_groups_.push_back(groups[i]);
    }
  }
  void Merge(Accumulator& other_base, const uint32_t* group_map, size_t, EvalContext&) override {
    auto& other = *Downcast<DistinctAccumulator>(other_base);
    SILT_CHECK(other.handed_over_ == 0, "merging a finalised DISTINCT state");
    std::vector<VectorPtr> values;
    for (auto& builder : other.builders_) values.push_back(builder->Finish());
    std::string key;
    for (size_t k = 0; k < other.kept_groups_.size(); ++k) {
      uint32_t target = group_map[other.kept_groups_[k]];
      std::string_view other_key = other.seen_.key(static_cast<uint32_t>(k));
      key.assign(reinterpret_cast<const char*>(&target), sizeof(uint32_t));
      key.append(other_key.substr(sizeof(uint32_t)));
      bool inserted = false;
      seen_.FindOrInsert(key, HashBytes(key.data(), key.size()), &inserted);
      if (!inserted) continue;
      for (size_t a = 0; a < values.size(); ++a) builders_[a]->AppendFrom(*values[a], static_cast<int64_t>(k));
      kept_groups_.push_back(target);
    }
  }
  // Repeatable when the inner aggregate's is: each Finalize hands it only the distinct rows kept
  // since the one before (a window's running count(DISTINCT x) stays linear).
  bool RepeatableFinalize() const override { return inner_->RepeatableFinalize(); }
  VectorPtr Finalize(size_t num_groups, EvalContext& context) override {
    std::vector<VectorPtr> values;
    for (auto& builder : builders_) values.push_back(builder->Finish());
    inner_->Resize(num_groups);
    // Aggregate in slices so that very many distinct values do not need one huge pass.
    const int64_t total = static_cast<int64_t>(kept_groups_.size() - handed_over_);
    const uint32_t* groups = kept_groups_.data() + handed_over_;
    for (int64_t start = 0; start < total; start += 1 << 16) {
      int64_t length = std::min<int64_t>(1 << 16, total - start);
      std::vector<VectorPtr> slice;
      for (const VectorPtr& value : values) slice.push_back(value->Slice(start, length));
      inner_->Update(slice, groups + start, nullptr, length, context);
    }
    handed_over_ = kept_groups_.size();
    return inner_->Finalize(num_groups, context);
  }

 private:
  std::unique_ptr<Accumulator> inner_;
  std::vector<std::unique_ptr<VectorBuilder>> builders_;
  std::vector<uint32_t> kept_groups_;
  size_t handed_over_ = 0;  // kept rows already given to inner_ (by an earlier Finalize)
  KeyTable seen_;
  EncodedKeys encoded_;
  size_t num_groups_ = 0;
};

template <bool kMax>
std::unique_ptr<Accumulator> MakeMinMax(const DataTypePtr& type) {
  switch (type->id()) {
    case TypeId::kByte: return std::make_unique<FixedMinMaxAccumulator<int8_t, kMax>>(type);
    case TypeId::kShort: return std::make_unique<FixedMinMaxAccumulator<int16_t, kMax>>(type);
    case TypeId::kInteger:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval: return std::make_unique<FixedMinMaxAccumulator<int32_t, kMax>>(type);
    case TypeId::kLong:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kDayTimeInterval: return std::make_unique<FixedMinMaxAccumulator<int64_t, kMax>>(type);
    case TypeId::kFloat: return std::make_unique<FixedMinMaxAccumulator<float, kMax>>(type);
    case TypeId::kDouble: return std::make_unique<FixedMinMaxAccumulator<double, kMax>>(type);
    case TypeId::kDecimal: return std::make_unique<FixedMinMaxAccumulator<Decimal128, kMax>>(type);
    case TypeId::kString:
    case TypeId::kBinary: return std::make_unique<StringMinMaxAccumulator<kMax>>(type);
    default: return std::make_unique<GenericMinMaxAccumulator>(type, kMax, false);
  }
}

std::unique_ptr<Accumulator> MakePlainAccumulator(AggregateKind kind, const AggregateCall& call,
                                                  const std::vector<DataTypePtr>& types) {
  const DataTypePtr& result = call.result_type;
  switch (kind) {
    case AggregateKind::kCount: return std::make_unique<CountAccumulator>(false);
    case AggregateKind::kCountIf: return std::make_unique<CountAccumulator>(true);
    case AggregateKind::kSum:
    case AggregateKind::kTrySum: {
      const bool lenient = kind == AggregateKind::kTrySum;
      switch (types[0]->id()) {
        case TypeId::kLong: return std::make_unique<SumAccumulator<int64_t>>(types[0], result, lenient);
        case TypeId::kDecimal: return std::make_unique<SumAccumulator<Decimal128>>(types[0], result, lenient);
        default: return std::make_unique<SumAccumulator<double>>(types[0], result, lenient);
      }
    }
    case AggregateKind::kAvg:
    case AggregateKind::kTryAvg: {
      const bool lenient = kind == AggregateKind::kTryAvg;
      if (types[0]->id() == TypeId::kDecimal) {
        return std::make_unique<AvgAccumulator<Decimal128>>(types[0], result, lenient);
      }
      return std::make_unique<AvgAccumulator<double>>(types[0], result, lenient);
    }
    case AggregateKind::kBitAnd:
    case AggregateKind::kBitOr:
    case AggregateKind::kBitXor: return std::make_unique<BitAccumulator>(kind, types[0]);
    case AggregateKind::kListAgg: return std::make_unique<ListAggAccumulator>(call, types);
    case AggregateKind::kHistogramNumeric: return MakeHistogramNumericAccumulator(call, types[0]);
    case AggregateKind::kCountMinSketch: return MakeCountMinSketchAccumulator(call, types[0]);
    case AggregateKind::kMin: return MakeMinMax<false>(types[0]);
    case AggregateKind::kMax: return MakeMinMax<true>(types[0]);
    case AggregateKind::kMinBy: return std::make_unique<GenericMinMaxAccumulator>(types[0], false, true);
    case AggregateKind::kMaxBy: return std::make_unique<GenericMinMaxAccumulator>(types[0], true, true);
    case AggregateKind::kFirst:
    case AggregateKind::kAnyValue:
      return std::make_unique<FirstLastAccumulator>(types[0], false, call.ignore_nulls);
    case AggregateKind::kLast: return std::make_unique<FirstLastAccumulator>(types[0], true, call.ignore_nulls);
    case AggregateKind::kCollectList: return std::make_unique<CollectAccumulator>(types[0], result, false);
    case AggregateKind::kCollectSet: return std::make_unique<CollectAccumulator>(types[0], result, true);
    case AggregateKind::kApproxCountDistinct: {
      double relative_sd = 0.05;
      if (call.arguments.size() == 2) {
        const expr::Expression& argument = *call.arguments[1];
        SILT_USER_CHECK(argument.kind() == expr::ExpressionKind::kLiteral && !argument.literal().is_null(),
                        DATATYPE_MISMATCH,
                        {{"sqlExpr", "\"approx_count_distinct\""},
                         {"message", "The relativeSD argument must be a constant."}});
        relative_sd = argument.literal().GetDouble();
        SILT_USER_CHECK(relative_sd > 0 && relative_sd < 1, INVALID_PARAMETER_VALUE,
                        {{"parameter", "`relativeSD`"},
                         {"functionName", "`approx_count_distinct`"},
                         {"message", "must be between 0 and 1"}});
      }
      return std::make_unique<ApproxDistinctAccumulator>(relative_sd);
    }
    case AggregateKind::kStddevSamp:
    case AggregateKind::kStddevPop:
    case AggregateKind::kVarSamp:
    case AggregateKind::kVarPop: return std::make_unique<MomentAccumulator>(kind);
    case AggregateKind::kBoolOr: return std::make_unique<BoolAccumulator>(false);
    case AggregateKind::kBoolAnd: return std::make_unique<BoolAccumulator>(true);
    case AggregateKind::kPercentile:
    case AggregateKind::kPercentileDisc:
    case AggregateKind::kPercentileApprox:
    case AggregateKind::kMedian:
    case AggregateKind::kMode: return std::make_unique<OrderStatisticAccumulator>(kind, call, types[0]);
    case AggregateKind::kSkewness: return std::make_unique<CentralMomentAccumulator>(false);
    case AggregateKind::kKurtosis: return std::make_unique<CentralMomentAccumulator>(true);
    case AggregateKind::kCorr:
    case AggregateKind::kCovarPop:
    case AggregateKind::kCovarSamp:
    case AggregateKind::kRegrCount:
    case AggregateKind::kRegrAvgX:
    case AggregateKind::kRegrAvgY:
    case AggregateKind::kRegrSxx:
    case AggregateKind::kRegrSyy:
    case AggregateKind::kRegrSxy:
    case AggregateKind::kRegrSlope:
    case AggregateKind::kRegrIntercept:
    case AggregateKind::kRegrR2: return std::make_unique<CoMomentAccumulator>(kind);
  }
  SILT_CHECK(false, "unknown aggregate kind");
  return nullptr;
}

}  // namespace

void Accumulator::MergeGroups(Accumulator&, const uint32_t*, const uint32_t*, size_t, EvalContext&) {
  SILT_CHECK(false, "MergeGroups on an accumulator that merges whole tables only");
}

std::unique_ptr<Accumulator> MakeAccumulator(const AggregateCall& call, const std::vector<DataTypePtr>& argument_types) {
  std::optional<AggregateKind> kind = AggregateKindOf(call.function);
  if (!kind) {
    SILT_THROW(UNRESOLVED_ROUTINE, {{"routineName", "`" + call.function + "`"}, {"searchPath", "[`system`.`builtin`]"}});
  }
  std::unique_ptr<Accumulator> accumulator = MakePlainAccumulator(*kind, call, argument_types);
  // DISTINCT changes nothing for these; skip the cost of keeping distinct rows.
  const bool distinct_matters = *kind != AggregateKind::kMin && *kind != AggregateKind::kMax &&
                                *kind != AggregateKind::kCollectSet && *kind != AggregateKind::kApproxCountDistinct &&
                                *kind != AggregateKind::kBoolAnd && *kind != AggregateKind::kBoolOr;
  if (call.distinct && distinct_matters) {
    accumulator = std::make_unique<DistinctAccumulator>(std::move(accumulator), argument_types);
  }
  return accumulator;
}

}  // namespace silt::exec
