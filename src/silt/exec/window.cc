#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <memory>
#include <string>
#include <utility>

#include "silt/base/check.h"
#include "silt/base/thread_pool.h"
#include "silt/exec/accumulator.h"
#include "silt/exec/aggregate_function.h"
#include "silt/exec/row_compare.h"
#include "silt/exec/sort_permutation.h"
#include "silt/exec/sort_window.h"
#include "silt/exec/window_function.h"
#include "silt/expr/evaluator.h"

namespace silt::exec {

namespace {

using Positions = std::vector<int64_t>;

[[noreturn]] void ThrowFrameError(const std::string& function, const std::string& message) {
  SILT_THROW(DATATYPE_MISMATCH, {{"sqlExpr", "\"" + function + "\""}, {"message", message}});
}

bool IsIntegralId(TypeId id) {
  return id == TypeId::kByte || id == TypeId::kShort || id == TypeId::kInteger ||
         id == TypeId::kLong;
}

// Reads an integral, date or timestamp value of any width as int64.
int64_t IntegerAt(const Vector& vector, int64_t row) {
  switch (vector.type_id()) {
    case TypeId::kByte:
      return vector.values<int8_t>()[row];
    case TypeId::kShort:
      return vector.values<int16_t>()[row];
    case TypeId::kInteger:
    case TypeId::kYearMonthInterval:
    case TypeId::kDate:
      return vector.values<int32_t>()[row];
    default:
      return vector.values<int64_t>()[row];
  }
}

double DoubleAt(const Vector& vector, int64_t row) {
  switch (vector.type_id()) {
    case TypeId::kFloat:
      return vector.values<float>()[row];
    case TypeId::kDouble:
      return vector.values<double>()[row];
    case TypeId::kDecimal: {
      double value = static_cast<double>(vector.values<Decimal128>()[row]);
      return value / std::pow(10.0, vector.type()->scale());
    }
    case TypeId::kBoolean:
      return vector.GetBool(row) ? 1.0 : 0.0;
    default:
      return static_cast<double>(IntegerAt(vector, row));
  }
}

Decimal128 PowerOfTen(int exponent) {
  Decimal128 value = 1;
  for (int i = 0; i < exponent; ++i) value *= 10;
  return value;
}

// Marks changed[k] = 1 where row k of `column` differs from row k - 1 (NULL equals NULL; values
// equal under Spark's ordering, so NaN equals NaN and -0.0 equals 0.0).
void MarkChanges(const Vector& column, int64_t num_rows, std::vector<uint8_t>& changed) {
  bool has_nulls = column.null_count() > 0;
  auto mark = [&](auto&& equal) {
    for (int64_t k = 1; k < num_rows; ++k) {
      if (changed[static_cast<size_t>(k)]) continue;
      if (has_nulls) {
        bool a = column.IsNull(k - 1);
        bool b = column.IsNull(k);
        if (a || b) {
          if (a != b) changed[static_cast<size_t>(k)] = 1;
          continue;
        }
      }
      if (!equal(k - 1, k)) changed[static_cast<size_t>(k)] = 1;
    }
  };
  auto fixed = [&](auto type_tag) {
    using T = decltype(type_tag);
    const T* v = column.values<T>();
    mark([v](int64_t a, int64_t b) { return v[a] == v[b]; });
  };
  switch (column.type_id()) {
    case TypeId::kNull:
      return;
    case TypeId::kByte:
      fixed(int8_t{});
      return;
    case TypeId::kShort:
      fixed(int16_t{});
      return;
    case TypeId::kInteger:
    case TypeId::kYearMonthInterval:
    case TypeId::kDate:
      fixed(int32_t{});
      return;
    case TypeId::kLong:
    case TypeId::kTimestamp:
    case TypeId::kDayTimeInterval:
    case TypeId::kTimestampNtz:
      fixed(int64_t{});
      return;
    case TypeId::kDecimal:
      fixed(Decimal128{});
      return;
    default:
      mark([&](int64_t a, int64_t b) { return CompareValues(column, a, column, b) == 0; });
  }
}

// The sorted rows' structure: partitions and peer groups (rows equal in every ORDER BY key).
struct Layout {
  int64_t num_rows = 0;
  Positions partition_starts;  // ascending, then num_rows
  Positions partition_of;      // per row: its partition's start
  Positions partition_end;     // per row: its partition's end
  Positions peer_start;        // per row
  Positions peer_end;          // per row
};

// Aggregate state over a sliding frame [start, end): Add the row at the end, Remove the row at
// the start; Reset empties it.
class SlidingState {
 public:
  virtual ~SlidingState() = default;
  /// Whether Remove undoes Add exactly (counts, exact sums, extrema); floating-point sums do not.
  virtual bool ExactRemoval() const { return true; }
  virtual void Reset() = 0;
  virtual void Add(int64_t row) = 0;
  virtual void Remove(int64_t row) = 0;
  virtual void Emit(int64_t row) = 0;
};

// Sliding frames of floating-point aggregates up to this many rows are recomputed rather than
// updated by removal, so that their results equal Spark's (which sums each frame in order).
constexpr int64_t kRecomputeFrameRows = 64;

// Runs `state` over every row's frame. Both frame ends never move backwards within a partition
// (true of every ROWS and RANGE frame), so each row is added and removed at most once: O(n).
// A frame that starts past the rows held restarts the state instead of adding rows only to remove
// them, which also keeps floating-point sums of growing frames in Spark's order.
void Slide(const Layout& layout, const Positions& frame_start, const Positions& frame_end,
           SlidingState& state) {
  for (size_t p = 0; p + 1 < layout.partition_starts.size(); ++p) {
    int64_t begin = layout.partition_starts[p];
    int64_t finish = layout.partition_starts[p + 1];
    int64_t held_start = begin;
    int64_t held_end = begin;
    state.Reset();
    for (int64_t k = begin; k < finish; ++k) {
      int64_t start = frame_start[static_cast<size_t>(k)];
      int64_t end = frame_end[static_cast<size_t>(k)];
      if (start >= held_end || start < held_start) {
        state.Reset();
        held_start = held_end = start;
      }
      if (start > held_start && !state.ExactRemoval() && end - start <= kRecomputeFrameRows) {
        // Small sliding frames are summed afresh, in Spark's order, rather than by subtracting.
        state.Reset();
        held_start = held_end = start;
      }
      while (held_end < end) state.Add(held_end++);
      while (held_start < start) state.Remove(held_start++);
      state.Emit(k);
    }
  }
}

class CountState final : public SlidingState {
 public:
  CountState(std::vector<VectorPtr> arguments, bool count_true, int64_t num_rows)
      : arguments_(std::move(arguments)), count_true_(count_true), builder_(LongType(), num_rows) {}
  void Reset() override { count_ = 0; }
  void Add(int64_t row) override { count_ += Counts(row); }
  void Remove(int64_t row) override { count_ -= Counts(row); }
  void Emit(int64_t) override { builder_.AppendInt(count_); }
  VectorPtr Finish() { return builder_.Finish(); }

 private:
  int Counts(int64_t row) const {
    for (const VectorPtr& argument : arguments_) {
      if (argument->IsNull(row)) return 0;
    }
    if (count_true_) return arguments_[0]->GetBool(row) ? 1 : 0;
    return 1;
  }
  std::vector<VectorPtr> arguments_;
  bool count_true_;
  int64_t count_ = 0;
  VectorBuilder builder_;
};

// sum and avg: exact 128-bit sums for integral and decimal inputs, doubles otherwise (with the
// non-finite values counted apart so that removing them is exact).
class SumState final : public SlidingState {
 public:
  SumState(VectorPtr argument, DataTypePtr result_type, bool average,
           const expr::EvalContext& context, int64_t num_rows)
      : argument_(std::move(argument)),
        result_type_(std::move(result_type)),
        average_(average),
        ansi_(context.ansi),
        builder_(result_type_, num_rows) {
    TypeId input = argument_->type_id();
    exact_ =
        result_type_->id() != TypeId::kDouble && (IsIntegralId(input) || input == TypeId::kDecimal);
    if (!exact_ && result_type_->id() != TypeId::kDouble) {
      SILT_THROW(DATATYPE_MISMATCH,
                 {{"sqlExpr", std::string(average ? "\"avg\"" : "\"sum\"")},
                  {"message", "cannot sum values of type " + argument_->type()->ToString() +
                                  " into " + result_type_->ToString()}});
    }
  }
  void Reset() override {
    count_ = 0;
    exact_sum_ = 0;
    finite_sum_ = 0;
    nan_ = positive_infinity_ = negative_infinity_ = 0;
  }
  bool ExactRemoval() const override { return exact_; }
  void Add(int64_t row) override { Update(row, 1); }
  void Remove(int64_t row) override { Update(row, -1); }
  void Emit(int64_t) override {
    if (count_ == 0) {
      builder_.AppendNull();
      return;
    }
    if (!exact_) {
      double sum = nan_ > 0 || (positive_infinity_ > 0 && negative_infinity_ > 0) ? std::nan("")
                   : positive_infinity_ > 0                                       ? INFINITY
                   : negative_infinity_ > 0                                       ? -INFINITY
                                                                                  : finite_sum_;
      builder_.AppendDouble(average_ ? sum / static_cast<double>(count_) : sum);
      return;
    }
    if (result_type_->id() == TypeId::kDecimal) {
      EmitDecimal();
      return;
    }
    // An integral sum (BIGINT): Spark raises on overflow under ANSI and wraps otherwise.
    if (exact_sum_ > std::numeric_limits<int64_t>::max() ||
        exact_sum_ < std::numeric_limits<int64_t>::min()) {
      if (ansi_) {
        SILT_THROW(
            ARITHMETIC_OVERFLOW,
            {{"message", "long overflow"},
             {"alternative", " Use 'try_sum' to tolerate overflow and return NULL instead."}});
      }
    }
    builder_.AppendInt(
        static_cast<int64_t>(static_cast<uint64_t>(static_cast<unsigned __int128>(exact_sum_))));
  }
  VectorPtr Finish() { return builder_.Finish(); }

 private:
  void Update(int64_t row, int sign) {
    if (argument_->IsNull(row)) return;
    count_ += sign;
    if (exact_) {
      Decimal128 value = argument_->type_id() == TypeId::kDecimal
                             ? argument_->values<Decimal128>()[row]
                             : IntegerAt(*argument_, row);
      exact_sum_ += sign > 0 ? value : -value;
      return;
    }
    double value = DoubleAt(*argument_, row);
    if (std::isnan(value)) {
      nan_ += sign;
    } else if (std::isinf(value)) {
      (value > 0 ? positive_infinity_ : negative_infinity_) += sign;
    } else {
      finite_sum_ += sign > 0 ? value : -value;
    }
  }

  void EmitDecimal() {
    int input_scale = argument_->type_id() == TypeId::kDecimal ? argument_->type()->scale() : 0;
    int scale_up = result_type_->scale() - input_scale;
    Decimal128 value = exact_sum_;
    if (average_) {
      // Long division digit by digit keeps every intermediate value far inside 128 bits, and
      // rounds half up as Spark's decimal division does.
      Decimal128 count = count_;
      bool negative = value < 0;
      Decimal128 magnitude = negative ? -value : value;
      Decimal128 quotient = magnitude / count;
      Decimal128 remainder = magnitude % count;
      for (int digit = 0; digit < scale_up; ++digit) {
        remainder *= 10;
        quotient = quotient * 10 + remainder / count;
        remainder %= count;
      }
      if (remainder * 2 >= count) ++quotient;
      value = negative ? -quotient : quotient;
    } else {
      value *= PowerOfTen(std::max(0, scale_up));
    }
    Decimal128 limit = PowerOfTen(result_type_->precision());
    if (value >= limit || value <= -limit) {
      if (ansi_) {
        SILT_THROW(NUMERIC_VALUE_OUT_OF_RANGE,
                   {{"value", "sum"},
                    {"precision", std::to_string(result_type_->precision())},
                    {"scale", std::to_string(result_type_->scale())}});
      }
      builder_.AppendNull();
      return;
    }
    builder_.AppendDecimal(value);
  }

  VectorPtr argument_;
  DataTypePtr result_type_;
  bool average_;
  bool ansi_;
  bool exact_ = false;
  int64_t count_ = 0;
  Decimal128 exact_sum_ = 0;
  double finite_sum_ = 0;
  int64_t nan_ = 0, positive_infinity_ = 0, negative_infinity_ = 0;
  VectorBuilder builder_;
};

// Variance and standard deviation by Welford's updates (with their inverse for removal).
class MomentsState final : public SlidingState {
 public:
  MomentsState(VectorPtr argument, WindowFunctionKind kind, int64_t num_rows)
      : argument_(std::move(argument)), kind_(kind), builder_(DoubleType(), num_rows) {}
  bool ExactRemoval() const override { return false; }
  void Reset() override {
    count_ = 0;
    mean_ = m2_ = 0;
    non_finite_ = 0;
  }
  void Add(int64_t row) override {
    if (argument_->IsNull(row)) return;
    double x = DoubleAt(*argument_, row);
    ++count_;
    if (!std::isfinite(x)) {
      ++non_finite_;
      return;
    }
    // Spark's CentralMomentAgg update, step for step, so that results match it bit for bit.
    int64_t finite = count_ - non_finite_;
    double delta = x - mean_;
    double delta_n = delta / static_cast<double>(finite);
    mean_ += delta_n;
    m2_ += delta * (delta - delta_n);
  }
  void Remove(int64_t row) override {
    if (argument_->IsNull(row)) return;
    double x = DoubleAt(*argument_, row);
    --count_;
    if (!std::isfinite(x)) {
      --non_finite_;
      return;
    }
    int64_t finite = count_ - non_finite_;
    if (finite == 0) {
      mean_ = m2_ = 0;
      return;
    }
    double old_mean = mean_;
    mean_ = (old_mean * static_cast<double>(finite + 1) - x) / static_cast<double>(finite);
    m2_ = std::max(0.0, m2_ - (x - old_mean) * (x - mean_));
  }
  void Emit(int64_t) override {
    bool sample = kind_ == WindowFunctionKind::kStddevSamp || kind_ == WindowFunctionKind::kVarSamp;
    // Spark returns NULL for no rows, and for one row of a sample statistic.
    if (count_ == 0 || (sample && count_ == 1)) {
      builder_.AppendNull();
      return;
    }
    if (non_finite_ > 0) {
      builder_.AppendDouble(std::nan(""));
      return;
    }
    double variance = m2_ / static_cast<double>(sample ? count_ - 1 : count_);
    bool root = kind_ == WindowFunctionKind::kStddevSamp || kind_ == WindowFunctionKind::kStddevPop;
    builder_.AppendDouble(root ? std::sqrt(variance) : variance);
  }
  VectorPtr Finish() { return builder_.Finish(); }

 private:
  VectorPtr argument_;
  WindowFunctionKind kind_;
  int64_t count_ = 0;
  int64_t non_finite_ = 0;
  double mean_ = 0, m2_ = 0;
  VectorBuilder builder_;
};

// min / max: a deque of candidate rows, best first (the classic sliding-window extremum), so
// each row enters and leaves once.
class ExtremumState final : public SlidingState {
 public:
  ExtremumState(VectorPtr argument, bool maximum, Positions& result_rows)
      : argument_(std::move(argument)), maximum_(maximum), result_rows_(result_rows) {}
  void Reset() override { candidates_.clear(); }
  void Add(int64_t row) override {
    if (argument_->IsNull(row)) return;
    while (!candidates_.empty() && Better(row, candidates_.back())) candidates_.pop_back();
    candidates_.push_back(row);
  }
  void Remove(int64_t row) override {
    if (!candidates_.empty() && candidates_.front() == row) candidates_.pop_front();
  }
  void Emit(int64_t row) override {
    result_rows_[static_cast<size_t>(row)] = candidates_.empty() ? -1 : candidates_.front();
  }

 private:
  // Strictly better: among equal values the earliest row stays, as Spark keeps the first.
  bool Better(int64_t row, int64_t other) const {
    int c = CompareValues(*argument_, row, *argument_, other);
    return maximum_ ? c > 0 : c < 0;
  }
  VectorPtr argument_;
  bool maximum_;
  Positions& result_rows_;
  std::deque<int64_t> candidates_;
};

class BoolState final : public SlidingState {
 public:
  BoolState(VectorPtr argument, bool all, int64_t num_rows)
      : argument_(std::move(argument)), all_(all), builder_(BooleanType(), num_rows) {}
  void Reset() override { trues_ = falses_ = 0; }
  void Add(int64_t row) override { Update(row, 1); }
  void Remove(int64_t row) override { Update(row, -1); }
  void Emit(int64_t) override {
    if (trues_ + falses_ == 0) {
      builder_.AppendNull();
    } else {
      builder_.AppendBool(all_ ? falses_ == 0 : trues_ > 0);
    }
  }
  VectorPtr Finish() { return builder_.Finish(); }

 private:
  void Update(int64_t row, int sign) {
    if (argument_->IsNull(row)) return;
    (argument_->GetBool(row) ? trues_ : falses_) += sign;
  }
  VectorPtr argument_;
  bool all_;
  int64_t trues_ = 0, falses_ = 0;
  VectorBuilder builder_;
};

std::string BoundText(const WindowFrame::Bound& bound) {
  switch (bound.kind) {
    case WindowFrame::BoundKind::kUnboundedPreceding:
      return "UNBOUNDED PRECEDING";
    case WindowFrame::BoundKind::kPreceding:
      return (bound.offset ? bound.offset->ToString() : "?") + " PRECEDING";
    case WindowFrame::BoundKind::kCurrentRow:
      return "CURRENT ROW";
    case WindowFrame::BoundKind::kFollowing:
      return (bound.offset ? bound.offset->ToString() : "?") + " FOLLOWING";
    case WindowFrame::BoundKind::kUnboundedFollowing:
      return "UNBOUNDED FOLLOWING";
  }
  return "?";
}

class WindowOperator final : public Operator {
 public:
  WindowOperator(OperatorPtr child, WindowOrdering ordering, std::vector<WindowCall> calls,
                 std::vector<std::string> names, SchemaPtr schema)
      : Operator(std::move(schema)),
        child_(std::move(child)),
        ordering_(std::move(ordering)),
        calls_(std::move(calls)),
        names_(std::move(names)) {
    for (const WindowCall& call : calls_) {
      std::optional<WindowFunctionKind> kind = WindowFunctionKindOf(call.function);
      bool aggregate = IsAggregateFunction(call.function);
      if (!kind && !aggregate) {
        SILT_THROW(UNRESOLVED_ROUTINE, {{"routineName", "`" + call.function + "`"},
                                        {"searchPath", "[`system`.`builtin`]"}});
      }
      SILT_CHECK(call.result_type != nullptr, "window call without a result type");
      // Aggregates without a sliding state of their own, and any with DISTINCT or FILTER, run
      // their accumulator over the frames.
      bool through_accumulator =
          aggregate && (!kind || call.distinct || call.filter != nullptr);
      SILT_USER_CHECK(!(call.distinct || call.filter) || aggregate, UNSUPPORTED_FEATURE,
                      {{"message", "DISTINCT or FILTER in the window function " + call.function}});
      through_accumulator_.push_back(through_accumulator);
      kinds_.push_back(kind.value_or(WindowFunctionKind::kCount));
      if (through_accumulator) {
        // Builds one accumulator now, so that a bad argument fails before any row is read.
        (void)MakeAccumulator(AggregateOf(call), ArgumentTypes(call));
        if (call.frame) ValidateFrame(call);
      } else {
        ValidateCall(call, *kind);
      }
    }
  }

  std::optional<Batch> Next(ExecContext& context) override {
    if (!computed_) Compute(context);
    while (next_output_ >= output_.size()) {
      output_.clear();
      next_output_ = 0;
      if (!sorted_input_ || !NextSortedChunk(context)) {
        if (reservation_) reservation_->Clear();
        return std::nullopt;
      }
    }
    return std::move(output_[next_output_++]);
  }

  std::string Describe() const override {
    const Schema& input = *child_->schema();
    auto column_text = [&](int column) {
      return input.field(static_cast<size_t>(column)).name + "#" + std::to_string(column);
    };
    std::string text = "Window [";
    for (size_t c = 0; c < calls_.size(); ++c) {
      if (c > 0) text += ", ";
      text += calls_[c].function + "(" + (calls_[c].distinct ? "distinct " : "");
      for (size_t a = 0; a < calls_[c].arguments.size(); ++a) {
        if (a > 0) text += ", ";
        const expr::Expression& argument = *calls_[c].arguments[a];
        text += argument.kind() == expr::ExpressionKind::kColumn
                    ? column_text(argument.column_index())
                    : argument.ToString();
      }
      text += ")";
      if (calls_[c].ignore_nulls) text += " IGNORE NULLS";
      if (const expr::ExpressionPtr& filter = calls_[c].filter) {
        text += " FILTER (WHERE " +
                (filter->kind() == expr::ExpressionKind::kColumn ? column_text(filter->column_index())
                                                                 : filter->ToString()) +
                ")";
      }
      if (calls_[c].frame && !IgnoresFrame(kinds_[c])) {
        const WindowFrame& frame = *calls_[c].frame;
        text += std::string(frame.unit == WindowFrame::Unit::kRows ? " ROWS" : " RANGE") +
                " BETWEEN " + BoundText(frame.start) + " AND " + BoundText(frame.end);
      }
      text += " AS " + names_[c];
    }
    text += "], [partition: ";
    for (size_t p = 0; p < ordering_.partition_by.size(); ++p) {
      if (p > 0) text += ", ";
      text += column_text(ordering_.partition_by[p]);
    }
    text += "], [order: ";
    for (size_t o = 0; o < ordering_.order_by.size(); ++o) {
      const SortKey& key = ordering_.order_by[o];
      if (o > 0) text += ", ";
      text += column_text(key.column) + (key.ascending ? " ASC" : " DESC") +
              (key.nulls_first ? " NULLS FIRST" : " NULLS LAST");
    }
    return text + "]";
  }

  std::vector<const Operator*> children() const override { return {child_.get()}; }

 private:
  void ValidateCall(const WindowCall& call, WindowFunctionKind kind) const {
    auto literal_integer = [&](size_t index, const char* what) {
      if (call.arguments.size() <= index) return;
      const expr::Expression& argument = *call.arguments[index];
      if (argument.kind() != expr::ExpressionKind::kLiteral ||
          !IsIntegralId(argument.type()->id()) || argument.literal().is_null()) {
        ThrowFrameError(call.function,
                        std::string("The ") + what + " must be a non-NULL integer literal.");
      }
    };
    switch (kind) {
      case WindowFunctionKind::kNtile:
        SILT_USER_CHECK(call.arguments.size() == 1, WRONG_NUM_ARGS,
                        {{"functionName", "`ntile`"},
                         {"expectedNum", "1"},
                         {"actualNum", std::to_string(call.arguments.size())}});
        literal_integer(0, "buckets");
        if (call.arguments[0]->literal().GetInt() <= 0) {
          ThrowFrameError(
              call.function,
              "VALUE_OUT_OF_RANGE: The buckets must be within (0, 2147483647], but got " +
                  call.arguments[0]->literal().ToString() + ".");
        }
        break;
      case WindowFunctionKind::kLag:
      case WindowFunctionKind::kLead:
        SILT_USER_CHECK(!call.arguments.empty() && call.arguments.size() <= 3, WRONG_NUM_ARGS,
                        {{"functionName", "`" + call.function + "`"},
                         {"expectedNum", "[1, 3]"},
                         {"actualNum", std::to_string(call.arguments.size())}});
        literal_integer(1, "offset");
        if (call.arguments.size() == 3) {
          SILT_CHECK(call.arguments[2]->type()->Equals(*call.arguments[0]->type()),
                     "lag/lead default not cast to the value's type");
        }
        break;
      case WindowFunctionKind::kNthValue:
        SILT_USER_CHECK(call.arguments.size() == 2, WRONG_NUM_ARGS,
                        {{"functionName", "`nth_value`"},
                         {"expectedNum", "2"},
                         {"actualNum", std::to_string(call.arguments.size())}});
        literal_integer(1, "offset");
        if (call.arguments[1]->literal().GetInt() <= 0) {
          ThrowFrameError(call.function,
                          "VALUE_OUT_OF_RANGE: The offset must be greater than 0, but got " +
                              call.arguments[1]->literal().ToString() + ".");
        }
        break;
      case WindowFunctionKind::kFirst:
      case WindowFunctionKind::kLast:
      case WindowFunctionKind::kSum:
      case WindowFunctionKind::kAvg:
      case WindowFunctionKind::kMin:
      case WindowFunctionKind::kMax:
      case WindowFunctionKind::kStddevSamp:
      case WindowFunctionKind::kStddevPop:
      case WindowFunctionKind::kVarSamp:
      case WindowFunctionKind::kVarPop:
      case WindowFunctionKind::kBoolAnd:
      case WindowFunctionKind::kBoolOr:
      case WindowFunctionKind::kCountIf:
        SILT_USER_CHECK(!call.arguments.empty(), WRONG_NUM_ARGS,
                        {{"functionName", "`" + call.function + "`"},
                         {"expectedNum", "1"},
                         {"actualNum", "0"}});
        if (kind == WindowFunctionKind::kMin || kind == WindowFunctionKind::kMax) {
          CheckOrderable(*call.arguments[0]->type(), call.function.c_str());
        }
        break;
      default:
        break;
    }
    if (call.frame && !IgnoresFrame(kind)) ValidateFrame(call);
  }

  void ValidateFrame(const WindowCall& call) const {
    const WindowFrame& frame = *call.frame;
    using Kind = WindowFrame::BoundKind;
    if (frame.start.kind == Kind::kUnboundedFollowing ||
        frame.end.kind == Kind::kUnboundedPreceding) {
      ThrowFrameError(call.function,
                      "SPECIFIED_WINDOW_FRAME_INVALID_BOUND: Window frame upper bound '" +
                          BoundText(frame.end) + "' does not follow the lower bound '" +
                          BoundText(frame.start) + "'.");
    }
    for (const WindowFrame::Bound* bound : {&frame.start, &frame.end}) {
      if (bound->kind != Kind::kPreceding && bound->kind != Kind::kFollowing) continue;
      if (!bound->offset || bound->offset->is_null()) {
        ThrowFrameError(call.function,
                        "SPECIFIED_WINDOW_FRAME_WITHOUT_FOLDABLE: frame offsets must be literals.");
      }
      const expr::Scalar& offset = *bound->offset;
      TypeId id = offset.type()->id();
      bool negative = false;
      if (IsIntegralId(id)) {
        negative = offset.GetInt() < 0;
      } else if (id == TypeId::kDecimal) {
        negative = offset.GetDecimal() < 0;
      } else if (id == TypeId::kFloat || id == TypeId::kDouble) {
        negative = !(offset.GetDouble() >= 0);
      } else {
        ThrowFrameError(call.function,
                        "SPECIFIED_WINDOW_FRAME_UNACCEPTED_TYPE: frame offset of type \"" +
                            offset.type()->ToString() + "\" is not supported.");
      }
      if (negative) {
        ThrowFrameError(call.function, "SPECIFIED_WINDOW_FRAME_WRONG_COMPARISON: frame offset " +
                                           offset.ToString() + " must be non-negative.");
      }
      if (frame.unit == WindowFrame::Unit::kRows && !IsIntegralId(id)) {
        ThrowFrameError(
            call.function,
            "SPECIFIED_WINDOW_FRAME_UNACCEPTED_TYPE: a ROWS frame offset must be an integer.");
      }
    }
    bool value_offsets = frame.unit == WindowFrame::Unit::kRange &&
                         (frame.start.offset.has_value() || frame.end.offset.has_value());
    if (!value_offsets) return;
    if (ordering_.order_by.size() != 1) {
      ThrowFrameError(call.function,
                      ordering_.order_by.empty()
                          ? "RANGE_FRAME_WITHOUT_ORDER: A range window frame cannot be used in an "
                            "unordered window specification."
                          : "RANGE_FRAME_MULTI_ORDER: A range window frame with value boundaries "
                            "cannot be used in a window specification with multiple order by "
                            "expressions.");
    }
    const DataType& key_type =
        *child_->schema()->field(static_cast<size_t>(ordering_.order_by[0].column)).type;
    TypeId key = key_type.id();
    bool numeric_key = IsIntegralId(key) || key == TypeId::kFloat || key == TypeId::kDouble ||
                       key == TypeId::kDecimal;
    bool temporal_key =
        key == TypeId::kDate || key == TypeId::kTimestamp || key == TypeId::kTimestampNtz;
    for (const WindowFrame::Bound* bound : {&frame.start, &frame.end}) {
      if (!bound->offset) continue;
      TypeId offset_type = bound->offset->type()->id();
      bool floating_offset = offset_type == TypeId::kFloat || offset_type == TypeId::kDouble;
      if (floating_offset && key != TypeId::kFloat && key != TypeId::kDouble) {
        ThrowFrameError(call.function,
                        "RANGE_FRAME_INVALID_TYPE: The data type \"" + key_type.ToString() +
                            "\" used in the order specification does not support the data type \"" +
                            bound->offset->type()->ToString() + "\" used in the range frame.");
      }
    }
    if (!numeric_key && !temporal_key) {
      ThrowFrameError(call.function,
                      "RANGE_FRAME_INVALID_TYPE: The data type \"" + key_type.ToString() +
                          "\" used in the order specification does not support the data type "
                          "used in the range frame.");
    }
  }

  // Pulls the input, holding it while the memory limit allows. When it does not, the input
  // (what is held, then the rest) goes through an external sort by partition and order keys
  // instead, and the window is computed a run of whole partitions at a time as the sorted rows
  // arrive (NextSortedChunk): one partition must fit in memory, not the input.
  void Compute(ExecContext& context) {
    computed_ = true;
    reservation_ = std::make_unique<MemoryReservation>(context.memory, "Window");
    std::vector<Batch> batches;
    while (std::optional<Batch> batch = child_->Next(context)) {
      if (!reservation_->TryGrow(MemoryBytes(*batch))) {
        batches.push_back(std::move(*batch));
        reservation_->Clear();
        std::vector<SortKey> keys;
        for (int column : ordering_.partition_by) keys.push_back(SortKey{column, true, true});
        for (const SortKey& key : ordering_.order_by) keys.push_back(key);
        sorted_input_ = MakeSort(std::make_unique<HeldThenRest>(std::move(batches), *child_), std::move(keys));
        return;
      }
      batches.push_back(std::move(*batch));
    }
    ComputeOver(std::move(batches), context);
  }

  // The next run of whole partitions from the sorted input into output_; false at the end.
  bool NextSortedChunk(ExecContext& context) {
    while (std::optional<Batch> batch = sorted_input_->Next(context)) {
      reservation_->Grow(MemoryBytes(*batch));
      // The last partition of `batch` may continue in the next batch: it stays held. The rows
      // before it complete the partitions held so far.
      int64_t last_start = batch->num_rows() - 1;
      while (last_start >= 0 && !PartitionStartsAt(*batch, last_start)) --last_start;
      if (last_start < 0) {
        held_.push_back(std::move(*batch));
        continue;
      }
      std::vector<Batch> complete = std::move(held_);
      held_.clear();
      if (last_start > 0) complete.push_back(batch->Slice(0, last_start));
      held_.push_back(batch->Slice(last_start, batch->num_rows() - last_start));
      if (complete.empty()) continue;
      int64_t held_bytes = MemoryBytes(held_.back());
      ComputeOver(std::move(complete), context);
      reservation_->Clear();
      reservation_->Grow(held_bytes);
      return true;
    }
    sorted_input_.reset();
    if (held_.empty()) return false;
    ComputeOver(std::move(held_), context);
    held_.clear();
    reservation_->Clear();
    return true;
  }

  // Whether row `row` of `batch` starts a new partition: its partition keys differ from the
  // previous row's (in `batch`, or for row 0 the last row held).
  bool PartitionStartsAt(const Batch& batch, int64_t row) const {
    const Batch* previous = &batch;
    int64_t previous_row = row - 1;
    if (row == 0) {
      if (held_.empty()) return true;
      previous = &held_.back();
      previous_row = held_.back().num_rows() - 1;
      if (previous_row < 0) return false;
    }
    for (int column : ordering_.partition_by) {
      const Vector& a = *previous->column(static_cast<size_t>(column));
      const Vector& b = *batch.column(static_cast<size_t>(column));
      if (!ValuesEqual(a, previous_row, b, row)) return true;
    }
    return false;
  }

  // Hands out batches already pulled, then the rest of `child`.
  class HeldThenRest final : public Operator {
   public:
    HeldThenRest(std::vector<Batch> held, Operator& child)
        : Operator(child.schema()), held_(std::move(held)), child_(child) {}
    std::optional<Batch> Next(ExecContext& context) override {
      if (next_ < held_.size()) return std::move(held_[next_++]);
      held_.clear();
      return child_.Next(context);
    }
    std::string Describe() const override { return child_.Describe(); }

   private:
    std::vector<Batch> held_;
    size_t next_ = 0;
    Operator& child_;
  };

  // Computes the window over `batches` (whole partitions) and appends the rows to output_.
  void ComputeOver(std::vector<Batch> batches, ExecContext& context) {
    if (batches.empty()) return;
    int64_t num_rows = 0;
    for (const Batch& batch : batches) num_rows += batch.num_rows();
    if (num_rows == 0) return;
    // Only the key columns are concatenated for the sort; every column is then gathered in
    // sorted order straight from the input batches.
    std::vector<int> key_columns;
    std::vector<SortKey> keys;
    auto key_index = [&](int column) {
      auto found = std::find(key_columns.begin(), key_columns.end(), column);
      if (found != key_columns.end()) return static_cast<int>(found - key_columns.begin());
      key_columns.push_back(column);
      return static_cast<int>(key_columns.size() - 1);
    };
    for (int column : ordering_.partition_by)
      keys.push_back(SortKey{key_index(column), true, true});
    for (const SortKey& key : ordering_.order_by) {
      keys.push_back(SortKey{key_index(key.column), key.ascending, key.nulls_first});
    }
    std::vector<VectorPtr> sorted(child_->schema()->num_fields());
    {
      std::vector<VectorPtr> key_vectors = ConcatenateColumns(batches, key_columns, context);
      Positions order = SortPermutation(key_vectors, num_rows, keys, &context);
      key_vectors.clear();
      std::vector<PieceRow> located = LocateRows(batches, order.data(), num_rows, &context);
      context.Pool().ParallelFor(
          sorted.size(),
          [&](size_t c) { sorted[c] = GatherPieceRows(batches, c, located.data(), num_rows); },
          context.Parallelism());
    }
    batches.clear();
    Batch input(child_->schema(), sorted, num_rows);
    Layout layout = MakeLayout(sorted, num_rows);

    std::vector<VectorPtr> results(calls_.size());
    for (size_t c = 0; c < calls_.size(); ++c) {
      results[c] = through_accumulator_[c] ? AggregateOverFrames(calls_[c], input, layout, context)
                                           : ComputeCall(calls_[c], kinds_[c], input, layout, context);
    }
    for (int64_t start = 0; start < num_rows; start += kTargetBatchRows) {
      int64_t count = std::min(kTargetBatchRows, num_rows - start);
      std::vector<VectorPtr> columns;
      columns.reserve(sorted.size() + results.size());
      for (const VectorPtr& column : sorted) columns.push_back(column->Slice(start, count));
      for (const VectorPtr& column : results) columns.push_back(column->Slice(start, count));
      output_.emplace_back(schema(), std::move(columns), count);
    }
  }

  Layout MakeLayout(const std::vector<VectorPtr>& sorted, int64_t num_rows) const {
    Layout layout;
    layout.num_rows = num_rows;
    std::vector<uint8_t> changed(static_cast<size_t>(num_rows), 0);
    for (int column : ordering_.partition_by)
      MarkChanges(*sorted[static_cast<size_t>(column)], num_rows, changed);
    for (int64_t k = 0; k < num_rows; ++k) {
      if (k == 0 || changed[static_cast<size_t>(k)]) layout.partition_starts.push_back(k);
    }
    layout.partition_starts.push_back(num_rows);
    for (const SortKey& key : ordering_.order_by) {
      MarkChanges(*sorted[static_cast<size_t>(key.column)], num_rows, changed);
    }
    layout.partition_of.resize(static_cast<size_t>(num_rows));
    layout.partition_end.resize(static_cast<size_t>(num_rows));
    for (size_t p = 0; p + 1 < layout.partition_starts.size(); ++p) {
      for (int64_t k = layout.partition_starts[p]; k < layout.partition_starts[p + 1]; ++k) {
        layout.partition_of[static_cast<size_t>(k)] = layout.partition_starts[p];
        layout.partition_end[static_cast<size_t>(k)] = layout.partition_starts[p + 1];
      }
    }
    layout.peer_start.resize(static_cast<size_t>(num_rows));
    layout.peer_end.resize(static_cast<size_t>(num_rows));
    int64_t group_start = 0;
    for (int64_t k = 0; k < num_rows; ++k) {
      if (k > 0 && changed[static_cast<size_t>(k)]) group_start = k;
      layout.peer_start[static_cast<size_t>(k)] = group_start;
    }
    int64_t group_end = num_rows;
    for (int64_t k = num_rows - 1; k >= 0; --k) {
      layout.peer_end[static_cast<size_t>(k)] = group_end;
      if (changed[static_cast<size_t>(k)]) group_end = k;
    }
    return layout;
  }

  static int64_t LiteralInteger(const WindowCall& call, size_t index, int64_t fallback) {
    return call.arguments.size() > index ? call.arguments[index]->literal().GetInt() : fallback;
  }

  static AggregateCall AggregateOf(const WindowCall& call) {
    AggregateCall aggregate;
    aggregate.function = call.function;
    aggregate.arguments = call.arguments;
    aggregate.distinct = call.distinct;
    aggregate.filter = call.filter;
    aggregate.ignore_nulls = call.ignore_nulls;
    aggregate.descending = call.descending;
    aggregate.within_group_order = call.within_group_order;
    aggregate.result_type = call.result_type;
    return aggregate;
  }

  static std::vector<DataTypePtr> ArgumentTypes(const WindowCall& call) {
    std::vector<DataTypePtr> types;
    for (const expr::ExpressionPtr& argument : call.arguments) types.push_back(argument->type());
    return types;
  }

  // An aggregate through its accumulator: rows with the same frame as the row before share one
  // result. While every frame of a partition starts at the same row and only grows, one
  // accumulator takes each row once and reports after each frame (when it can report
  // repeatedly); otherwise each distinct frame is aggregated afresh, as one group among many
  // of a batch of frames.
  VectorPtr AggregateOverFrames(const WindowCall& call, const Batch& sorted, const Layout& layout,
                                ExecContext& context) const {
    const int64_t n = layout.num_rows;
    std::vector<VectorPtr> arguments;
    for (const expr::ExpressionPtr& argument : call.arguments) {
      arguments.push_back(expr::Evaluate(*argument, sorted, context.eval));
    }
    std::vector<uint8_t> selected;
    if (call.filter) selected = expr::EvaluateFilter(*call.filter, sorted, context.eval);
    Positions frame_start(static_cast<size_t>(n));
    Positions frame_end(static_cast<size_t>(n));
    ComputeFrames(call, sorted, layout, frame_start, frame_end);

    // The distinct frames, in row order, and each row's frame.
    Positions starts, ends, partitions;
    Positions frame_of(static_cast<size_t>(n));
    for (int64_t k = 0; k < n; ++k) {
      auto row = static_cast<size_t>(k);
      bool same = !starts.empty() && partitions.back() == layout.partition_of[row] &&
                  starts.back() == frame_start[row] && ends.back() == frame_end[row];
      if (!same) {
        starts.push_back(frame_start[row]);
        ends.push_back(frame_end[row]);
        partitions.push_back(layout.partition_of[row]);
      }
      frame_of[row] = static_cast<int64_t>(starts.size()) - 1;
    }
    const AggregateCall aggregate = AggregateOf(call);
    const std::vector<DataTypePtr> types = ArgumentTypes(call);
    std::unique_ptr<Accumulator> accumulator = MakeAccumulator(aggregate, types);
    bool growing = accumulator->RepeatableFinalize();
    for (size_t f = 1; f < starts.size() && growing; ++f) {
      if (partitions[f] == partitions[f - 1]) growing = starts[f] == starts[f - 1] && ends[f] >= ends[f - 1];
    }
    const uint8_t* selected_rows = call.filter ? selected.data() : nullptr;
    VectorBuilder results(call.result_type, static_cast<int64_t>(starts.size()));
    if (growing) {
      std::vector<uint32_t> zeros;
      int64_t held_end = 0;
      for (size_t f = 0; f < starts.size(); ++f) {
        if (f == 0 || partitions[f] != partitions[f - 1]) {
          accumulator = MakeAccumulator(aggregate, types);
          accumulator->Resize(1);
          held_end = starts[f];
        }
        if (ends[f] > held_end) {
          int64_t length = ends[f] - held_end;
          if (zeros.size() < static_cast<size_t>(length)) zeros.resize(static_cast<size_t>(length), 0);
          std::vector<VectorPtr> slice;
          for (const VectorPtr& argument : arguments) slice.push_back(argument->Slice(held_end, length));
          accumulator->Update(slice, zeros.data(), selected_rows ? selected_rows + held_end : nullptr, length,
                              context.eval);
          held_end = ends[f];
        }
        results.AppendFrom(*accumulator->Finalize(1, context.eval), 0);
      }
    } else {
      // Frames are aggregated in batches of about kFrameBatchRows rows, each frame a group.
      constexpr int64_t kFrameBatchRows = int64_t{1} << 20;
      Positions rows;
      std::vector<uint32_t> groups;
      std::vector<uint8_t> batch_selected;
      size_t first_frame = 0;
      auto flush = [&](size_t end_frame) {
        std::unique_ptr<Accumulator> batch = MakeAccumulator(aggregate, types);
        size_t num_frames = end_frame - first_frame;
        batch->Resize(num_frames);
        if (!rows.empty()) {
          std::vector<VectorPtr> gathered;
          for (const VectorPtr& argument : arguments) gathered.push_back(TakeRows(*argument, rows));
          if (selected_rows != nullptr) {
            batch_selected.resize(rows.size());
            for (size_t r = 0; r < rows.size(); ++r) batch_selected[r] = selected[static_cast<size_t>(rows[r])];
          }
          batch->Update(gathered, groups.data(), selected_rows ? batch_selected.data() : nullptr,
                        static_cast<int64_t>(rows.size()), context.eval);
        }
        VectorPtr batch_results = batch->Finalize(num_frames, context.eval);
        results.AppendRange(*batch_results, 0, static_cast<int64_t>(num_frames));
        rows.clear();
        groups.clear();
        first_frame = end_frame;
      };
      for (size_t f = 0; f < starts.size(); ++f) {
        for (int64_t r = starts[f]; r < ends[f]; ++r) {
          rows.push_back(r);
          groups.push_back(static_cast<uint32_t>(f - first_frame));
        }
        if (static_cast<int64_t>(rows.size()) >= kFrameBatchRows) flush(f + 1);
      }
      if (first_frame < starts.size()) flush(starts.size());
    }
    VectorPtr per_frame = results.Finish();
    return TakeRows(*per_frame, frame_of);
  }

  VectorPtr ComputeCall(const WindowCall& call, WindowFunctionKind kind, const Batch& sorted,
                        const Layout& layout, ExecContext& context) const {
    int64_t n = layout.num_rows;
    std::vector<VectorPtr> arguments;
    for (const expr::ExpressionPtr& argument : call.arguments) {
      arguments.push_back(expr::Evaluate(*argument, sorted, context.eval));
    }
    auto int_result = [&](auto&& value_of) {
      BufferPtr values = Buffer::Allocate(static_cast<size_t>(n) * sizeof(int32_t));
      int32_t* out = values->as<int32_t>();
      for (int64_t k = 0; k < n; ++k) out[k] = static_cast<int32_t>(value_of(k));
      return Vector::Make(IntegerType(), n, {nullptr, values}, {}, 0);
    };
    auto double_result = [&](auto&& value_of) {
      BufferPtr values = Buffer::Allocate(static_cast<size_t>(n) * sizeof(double));
      double* out = values->as<double>();
      for (int64_t k = 0; k < n; ++k) out[k] = value_of(k);
      return Vector::Make(DoubleType(), n, {nullptr, values}, {}, 0);
    };
    auto position = [&](int64_t k) { return k - layout.partition_of[static_cast<size_t>(k)]; };
    auto size_of = [&](int64_t k) {
      return layout.partition_end[static_cast<size_t>(k)] -
             layout.partition_of[static_cast<size_t>(k)];
    };
    switch (kind) {
      case WindowFunctionKind::kRowNumber:
        return int_result([&](int64_t k) { return position(k) + 1; });
      case WindowFunctionKind::kRank:
        return int_result([&](int64_t k) {
          return layout.peer_start[static_cast<size_t>(k)] -
                 layout.partition_of[static_cast<size_t>(k)] + 1;
        });
      case WindowFunctionKind::kDenseRank: {
        int64_t dense = 0;
        return int_result([&](int64_t k) {
          if (k == layout.partition_of[static_cast<size_t>(k)]) dense = 0;
          if (layout.peer_start[static_cast<size_t>(k)] == k) ++dense;
          return dense;
        });
      }
      case WindowFunctionKind::kPercentRank:
        return double_result([&](int64_t k) {
          int64_t rows = size_of(k);
          int64_t rank = layout.peer_start[static_cast<size_t>(k)] -
                         layout.partition_of[static_cast<size_t>(k)];
          return rows <= 1 ? 0.0 : static_cast<double>(rank) / static_cast<double>(rows - 1);
        });
      case WindowFunctionKind::kCumeDist:
        return double_result([&](int64_t k) {
          return static_cast<double>(layout.peer_end[static_cast<size_t>(k)] -
                                     layout.partition_of[static_cast<size_t>(k)]) /
                 static_cast<double>(size_of(k));
        });
      case WindowFunctionKind::kNtile: {
        int64_t buckets = LiteralInteger(call, 0, 1);
        return int_result([&](int64_t k) {
          // The first (rows % buckets) buckets hold one row more than the others.
          int64_t rows = size_of(k);
          int64_t small = rows / buckets;
          int64_t large_buckets = rows % buckets;
          int64_t i = position(k);
          int64_t in_large = large_buckets * (small + 1);
          return i < in_large ? i / (small + 1) + 1 : large_buckets + (i - in_large) / small + 1;
        });
      }
      case WindowFunctionKind::kLag:
      case WindowFunctionKind::kLead:
        return OffsetValue(call, kind, arguments, layout);
      default:
        break;
    }
    Positions frame_start(static_cast<size_t>(n));
    Positions frame_end(static_cast<size_t>(n));
    ComputeFrames(call, sorted, layout, frame_start, frame_end);
    const VectorPtr& argument = arguments.empty() ? nullptr : arguments[0];
    switch (kind) {
      case WindowFunctionKind::kFirst:
      case WindowFunctionKind::kLast:
      case WindowFunctionKind::kNthValue: {
        Positions rows = ValueRows(kind, call, *argument, frame_start, frame_end);
        return TakeRows(*argument, rows.data(), n);
      }
      case WindowFunctionKind::kCount:
      case WindowFunctionKind::kCountIf: {
        CountState state(arguments, kind == WindowFunctionKind::kCountIf, n);
        Slide(layout, frame_start, frame_end, state);
        return state.Finish();
      }
      case WindowFunctionKind::kSum:
      case WindowFunctionKind::kAvg: {
        SumState state(argument, call.result_type, kind == WindowFunctionKind::kAvg, context.eval,
                       n);
        Slide(layout, frame_start, frame_end, state);
        return state.Finish();
      }
      case WindowFunctionKind::kMin:
      case WindowFunctionKind::kMax: {
        Positions rows(static_cast<size_t>(n));
        ExtremumState state(argument, kind == WindowFunctionKind::kMax, rows);
        Slide(layout, frame_start, frame_end, state);
        return TakeRows(*argument, rows.data(), n);
      }
      case WindowFunctionKind::kStddevSamp:
      case WindowFunctionKind::kStddevPop:
      case WindowFunctionKind::kVarSamp:
      case WindowFunctionKind::kVarPop: {
        MomentsState state(argument, kind, n);
        Slide(layout, frame_start, frame_end, state);
        return state.Finish();
      }
      case WindowFunctionKind::kBoolAnd:
      case WindowFunctionKind::kBoolOr: {
        BoolState state(argument, kind == WindowFunctionKind::kBoolAnd, n);
        Slide(layout, frame_start, frame_end, state);
        return state.Finish();
      }
      default:
        break;
    }
    SILT_CHECK(false, "unhandled window function " + call.function);
    return nullptr;
  }

  // lag / lead: the value `offset` rows before / after within the partition, else the default.
  VectorPtr OffsetValue(const WindowCall& call, WindowFunctionKind kind,
                        const std::vector<VectorPtr>& arguments, const Layout& layout) const {
    int64_t n = layout.num_rows;
    int64_t offset = LiteralInteger(call, 1, 1);
    if (kind == WindowFunctionKind::kLag) offset = -offset;
    Positions rows(static_cast<size_t>(n));
    if (call.ignore_nulls && offset != 0) {
      IgnoreNullsOffsetRows(*arguments[0], offset, layout, rows);
    } else {
      SameOffsetRows(offset, layout, rows);
    }
    const Vector& value = *arguments[0];

    if (arguments.size() < 3 || arguments[2]->null_count() == n)
      return TakeRows(value, rows.data(), n);
    const Vector& fallback = *arguments[2];
    VectorBuilder builder(value.type(), n);
    for (int64_t k = 0; k < n; ++k) {
      int64_t row = rows[static_cast<size_t>(k)];
      if (row >= 0) {
        builder.AppendFrom(value, row);
      } else {
        builder.AppendFrom(fallback, k);
      }
    }
    return builder.Finish();
  }

  // The row `offset` rows away from each row within its partition, or -1.
  static void SameOffsetRows(int64_t offset, const Layout& layout, Positions& rows) {
    for (int64_t k = 0; k < layout.num_rows; ++k) {
      // Offsets beyond the partition saturate rather than overflow.
      int64_t target = offset > 0 ? (k > std::numeric_limits<int64_t>::max() - offset
                                         ? std::numeric_limits<int64_t>::max()
                                         : k + offset)
                                  : (k < std::numeric_limits<int64_t>::min() - offset
                                         ? std::numeric_limits<int64_t>::min()
                                         : k + offset);
      bool inside = target >= layout.partition_of[static_cast<size_t>(k)] &&
                    target < layout.partition_end[static_cast<size_t>(k)];
      rows[static_cast<size_t>(k)] = inside ? target : -1;
    }
  }

  // IGNORE NULLS: the |offset|-th row with a non-NULL value after (offset > 0) or before
  // (offset < 0) each row within its partition, or -1.
  static void IgnoreNullsOffsetRows(const Vector& value, int64_t offset, const Layout& layout,
                                    Positions& rows) {
    const int64_t n = layout.num_rows;
    // Offsets larger than any partition are capped so that the arithmetic cannot overflow.
    offset = std::clamp<int64_t>(offset, -(int64_t{1} << 40), int64_t{1} << 40);
    // valid_before[p] = non-NULL rows before p; valid_rows lists them in order.
    Positions valid_before(static_cast<size_t>(n + 1), 0);
    Positions valid_rows;
    for (int64_t p = 0; p < n; ++p) {
      bool valid = value.IsValid(p);
      valid_before[static_cast<size_t>(p + 1)] = valid_before[static_cast<size_t>(p)] + (valid ? 1 : 0);
      if (valid) valid_rows.push_back(p);
    }
    for (int64_t k = 0; k < n; ++k) {
      auto row = static_cast<size_t>(k);
      int64_t first = valid_before[static_cast<size_t>(layout.partition_of[row])];
      int64_t past = valid_before[static_cast<size_t>(layout.partition_end[row])];
      // The wanted value's index in valid_rows.
      int64_t index = offset > 0 ? valid_before[row + 1] + offset - 1 : valid_before[row] + offset;
      rows[row] = index >= first && index < past ? valid_rows[static_cast<size_t>(index)] : -1;
    }
  }

  // first / last / nth_value: the row each frame's value comes from (-1 = NULL).
  static Positions ValueRows(WindowFunctionKind kind, const WindowCall& call,
                             const Vector& argument, const Positions& frame_start,
                             const Positions& frame_end) {
    auto n = static_cast<int64_t>(frame_start.size());
    Positions rows(static_cast<size_t>(n), -1);
    if (!call.ignore_nulls || argument.null_count() == 0) {
      int64_t nth =
          kind == WindowFunctionKind::kNthValue ? call.arguments[1]->literal().GetInt() : 1;
      for (int64_t k = 0; k < n; ++k) {
        int64_t start = frame_start[static_cast<size_t>(k)];
        int64_t end = frame_end[static_cast<size_t>(k)];
        if (start >= end) continue;
        if (kind == WindowFunctionKind::kLast) {
          rows[static_cast<size_t>(k)] = end - 1;
        } else if (nth <= end - start) {
          rows[static_cast<size_t>(k)] = start + nth - 1;
        }
      }
      return rows;
    }
    // valid_before[p] = non-NULL rows before p; valid_rows lists them, so the i-th non-NULL row
    // of a frame is found in O(1).
    Positions valid_before(static_cast<size_t>(n + 1), 0);
    Positions valid_rows;
    for (int64_t p = 0; p < n; ++p) {
      valid_before[static_cast<size_t>(p + 1)] =
          valid_before[static_cast<size_t>(p)] + (argument.IsValid(p) ? 1 : 0);
      if (argument.IsValid(p)) valid_rows.push_back(p);
    }
    int64_t nth = kind == WindowFunctionKind::kNthValue ? call.arguments[1]->literal().GetInt() : 1;
    for (int64_t k = 0; k < n; ++k) {
      int64_t start = frame_start[static_cast<size_t>(k)];
      int64_t end = frame_end[static_cast<size_t>(k)];
      if (start >= end) continue;
      int64_t first = valid_before[static_cast<size_t>(start)];
      int64_t past = valid_before[static_cast<size_t>(end)];
      if (first >= past) continue;
      if (kind == WindowFunctionKind::kLast) {
        rows[static_cast<size_t>(k)] = valid_rows[static_cast<size_t>(past - 1)];
      } else if (nth <= past - first) {
        rows[static_cast<size_t>(k)] = valid_rows[static_cast<size_t>(first + nth - 1)];
      }
    }
    return rows;
  }

  void ComputeFrames(const WindowCall& call, const Batch& sorted, const Layout& layout,
                     Positions& frame_start, Positions& frame_end) const {
    int64_t n = layout.num_rows;
    if (!call.frame) {
      // Spark's default: the whole partition, or with ORDER BY everything up to the last peer.
      for (int64_t k = 0; k < n; ++k) {
        frame_start[static_cast<size_t>(k)] = layout.partition_of[static_cast<size_t>(k)];
        frame_end[static_cast<size_t>(k)] = ordering_.order_by.empty()
                                                ? layout.partition_end[static_cast<size_t>(k)]
                                                : layout.peer_end[static_cast<size_t>(k)];
      }
      return;
    }
    const WindowFrame& frame = *call.frame;
    bool range = frame.unit == WindowFrame::Unit::kRange;
    ComputeBound(frame.start, true, range, sorted, layout, frame_start);
    ComputeBound(frame.end, false, range, sorted, layout, frame_end);
    for (int64_t k = 0; k < n; ++k) {
      frame_end[static_cast<size_t>(k)] =
          std::max(frame_end[static_cast<size_t>(k)], frame_start[static_cast<size_t>(k)]);
    }
  }

  // One frame bound for every row, as a half-open position: a start is the first row in the
  // frame, an end the first row after it.
  void ComputeBound(const WindowFrame::Bound& bound, bool is_start, bool range, const Batch& sorted,
                    const Layout& layout, Positions& out) const {
    int64_t n = layout.num_rows;
    using Kind = WindowFrame::BoundKind;
    auto clamp = [&](int64_t k, int64_t value) {
      return std::clamp(value, layout.partition_of[static_cast<size_t>(k)],
                        layout.partition_end[static_cast<size_t>(k)]);
    };
    switch (bound.kind) {
      case Kind::kUnboundedPreceding:
        for (int64_t k = 0; k < n; ++k)
          out[static_cast<size_t>(k)] = layout.partition_of[static_cast<size_t>(k)];
        return;
      case Kind::kUnboundedFollowing:
        for (int64_t k = 0; k < n; ++k)
          out[static_cast<size_t>(k)] = layout.partition_end[static_cast<size_t>(k)];
        return;
      case Kind::kCurrentRow:
        for (int64_t k = 0; k < n; ++k) {
          out[static_cast<size_t>(k)] = !range     ? k + (is_start ? 0 : 1)
                                        : is_start ? layout.peer_start[static_cast<size_t>(k)]
                                                   : layout.peer_end[static_cast<size_t>(k)];
        }
        return;
      case Kind::kPreceding:
      case Kind::kFollowing:
        break;
    }
    bool following = bound.kind == Kind::kFollowing;
    if (!range) {
      // Offsets larger than any partition are capped so that the arithmetic cannot overflow.
      int64_t offset = std::min<int64_t>(bound.offset->GetInt(), int64_t{1} << 40);
      int64_t shift = (following ? offset : -offset) + (is_start ? 0 : 1);
      for (int64_t k = 0; k < n; ++k) out[static_cast<size_t>(k)] = clamp(k, k + shift);
      return;
    }
    const SortKey& key = ordering_.order_by[0];
    const Vector& values = *sorted.column(static_cast<size_t>(key.column));
    // Positions advance in the key's sort direction, so "after" is "greater" when ascending.
    bool add = following == key.ascending;
    TypeId id = values.type_id();
    if (id == TypeId::kFloat || id == TypeId::kDouble) {
      double offset = bound.offset->type()->id() == TypeId::kDecimal
                          ? static_cast<double>(bound.offset->GetDecimal()) /
                                std::pow(10.0, bound.offset->type()->scale())
                      : IsIntegralId(bound.offset->type()->id())
                          ? static_cast<double>(bound.offset->GetInt())
                          : bound.offset->GetDouble();
      auto less = [](double a, double b) { return std::isnan(b) ? !std::isnan(a) : a < b; };
      RangeBound<double>([&](int64_t p) { return DoubleAt(values, p); },
                         [&](double x) { return add ? x + offset : x - offset; }, less, key,
                         is_start, values, layout, out);
      return;
    }
    // Integral, date, timestamp and decimal keys compare exactly as 128-bit integers; a decimal
    // offset is brought to the key's scale.
    int key_scale = id == TypeId::kDecimal ? values.type()->scale() : 0;
    Decimal128 offset;
    if (bound.offset->type()->id() == TypeId::kDecimal) {
      int offset_scale = bound.offset->type()->scale();
      offset = bound.offset->GetDecimal();
      if (offset_scale > key_scale) {
        // Rounded up: a row inside the exact offset is never left out.
        Decimal128 divisor = PowerOfTen(offset_scale - key_scale);
        offset = (offset + divisor - 1) / divisor;
      } else {
        offset *= PowerOfTen(key_scale - offset_scale);
      }
    } else if (IsIntegralId(bound.offset->type()->id())) {
      offset = static_cast<Decimal128>(bound.offset->GetInt()) * PowerOfTen(key_scale);
    } else {
      SILT_CHECK(false, "floating-point RANGE offset over an exact key passed validation");
    }
    auto value_at = [&](int64_t p) -> Decimal128 {
      return id == TypeId::kDecimal ? values.values<Decimal128>()[p]
                                    : static_cast<Decimal128>(IntegerAt(values, p));
    };
    RangeBound<Decimal128>(
        value_at, [&](Decimal128 x) { return add ? x + offset : x - offset; },
        [](Decimal128 a, Decimal128 b) { return a < b; }, key, is_start, values, layout, out);
  }

  // A RANGE bound with a value offset: binary search among the partition's non-NULL keys for the
  // first row not before (start) or after (end) the target value. NULL keys are a peer group of
  // their own: their frame bound is the NULL group's edge.
  template <typename T, typename ValueAt, typename Target, typename Less>
  static void RangeBound(ValueAt value_at, Target target_of, Less less, const SortKey& key,
                         bool is_start, const Vector& values, const Layout& layout,
                         Positions& out) {
    auto before = [&](T a, T b) { return key.ascending ? less(a, b) : less(b, a); };
    for (size_t p = 0; p + 1 < layout.partition_starts.size(); ++p) {
      int64_t begin = layout.partition_starts[p];
      int64_t finish = layout.partition_starts[p + 1];
      int64_t valid_begin = begin;
      int64_t valid_end = finish;
      if (values.null_count() > 0) {
        if (key.nulls_first) {
          while (valid_begin < finish && values.IsNull(valid_begin)) ++valid_begin;
        } else {
          while (valid_end > begin && values.IsNull(valid_end - 1)) --valid_end;
        }
      }
      for (int64_t k = begin; k < finish; ++k) {
        if (k < valid_begin || k >= valid_end) {
          out[static_cast<size_t>(k)] = is_start ? (k < valid_begin ? begin : valid_end)
                                                 : (k < valid_begin ? valid_begin : finish);
          continue;
        }
        T target = target_of(value_at(k));
        int64_t low = valid_begin;
        int64_t high = valid_end;
        while (low < high) {
          int64_t middle = low + (high - low) / 2;
          bool go_right =
              is_start ? before(value_at(middle), target) : !before(target, value_at(middle));
          if (go_right) {
            low = middle + 1;
          } else {
            high = middle;
          }
        }
        out[static_cast<size_t>(k)] = low;
      }
    }
  }

  OperatorPtr child_;
  WindowOrdering ordering_;
  std::vector<WindowCall> calls_;
  std::vector<WindowFunctionKind> kinds_;
  std::vector<uint8_t> through_accumulator_;  // per call: AggregateOverFrames computes it
  std::vector<std::string> names_;
  bool computed_ = false;
  std::vector<Batch> output_;
  size_t next_output_ = 0;
  std::unique_ptr<MemoryReservation> reservation_;  // the input held
  // Past the memory limit: the input sorted by partition and order keys (an external sort),
  // and the rows of the partition not yet complete.
  OperatorPtr sorted_input_;
  std::vector<Batch> held_;
};

}  // namespace

OperatorPtr MakeWindow(OperatorPtr child, WindowOrdering ordering, std::vector<WindowCall> calls,
                       std::vector<std::string> names) {
  SILT_CHECK(calls.size() == names.size(), "one name per window call");
  const Schema& input = *child->schema();
  for (int column : ordering.partition_by) {
    SILT_CHECK(column >= 0 && static_cast<size_t>(column) < input.num_fields(),
               "partition column out of range");
    CheckOrderable(*input.field(static_cast<size_t>(column)).type, "window partition");
  }
  for (const SortKey& key : ordering.order_by) {
    SILT_CHECK(key.column >= 0 && static_cast<size_t>(key.column) < input.num_fields(),
               "order column out of range");
    CheckOrderable(*input.field(static_cast<size_t>(key.column)).type, "window order");
  }
  std::vector<Field> fields = input.fields();
  for (size_t c = 0; c < calls.size(); ++c) {
    std::optional<WindowFunctionKind> kind = WindowFunctionKindOf(calls[c].function);
    bool never_null = kind && (IgnoresFrame(*kind) ? *kind != WindowFunctionKind::kLag &&
                                                         *kind != WindowFunctionKind::kLead
                                                   : *kind == WindowFunctionKind::kCount ||
                                                         *kind == WindowFunctionKind::kCountIf);
    fields.push_back(Field{names[c], calls[c].result_type, !never_null, {}});
  }
  auto schema = std::make_shared<Schema>(std::move(fields));
  return std::make_unique<WindowOperator>(std::move(child), std::move(ordering), std::move(calls),
                                          std::move(names), std::move(schema));
}

}  // namespace silt::exec
