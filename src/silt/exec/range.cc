#include <algorithm>
#include <limits>

#include "silt/base/check.h"
#include "silt/exec/operators.h"

namespace silt::exec {

namespace {

class RangeOperator final : public Operator {
 public:
  RangeOperator(int64_t start, int64_t end, int64_t step, SchemaPtr schema)
      : Operator(std::move(schema)), start_(start), end_(end), step_(step) {
    // Count in 128 bits: (end - start) overflows int64 for ranges spanning most of it.
    __int128 span = static_cast<__int128>(end) - start;
    __int128 count = 0;
    if ((step > 0 && span > 0) || (step < 0 && span < 0)) {
      count = (span + step + (step > 0 ? -1 : 1)) / step;
    }
    remaining_ = count;
  }

  std::optional<Batch> Next(ExecContext& context) override {
    ThrowIfCanceled(context.cancellation);
    if (context.progress != nullptr && !announced_) {
      announced_ = true;
      context.progress->AddInputTotals(0, 0, static_cast<int64_t>(std::min<__int128>(
                                                 remaining_, std::numeric_limits<int64_t>::max())));
    }
    if (remaining_ <= 0) return std::nullopt;
    int64_t rows = static_cast<int64_t>(std::min<__int128>(remaining_, kTargetBatchRows));
    BufferPtr values = Buffer::Allocate(static_cast<size_t>(rows) * sizeof(int64_t));
    int64_t* out = values->as<int64_t>();
    // Values wrap like Spark's (which computes them in longs) only past the last row, never
    // within the range itself, so unsigned arithmetic gives the exact values.
    uint64_t value = static_cast<uint64_t>(start_) + produced_ *
                                                          static_cast<uint64_t>(step_);
    for (int64_t i = 0; i < rows; ++i) {
      out[i] = static_cast<int64_t>(value);
      value += static_cast<uint64_t>(step_);
    }
    produced_ += static_cast<uint64_t>(rows);
    remaining_ -= rows;
    if (context.progress != nullptr) context.progress->AddRead(0, rows, 0);
    return Batch(schema(), {Vector::Make(LongType(), rows, {nullptr, values}, {}, 0)}, rows);
  }

  std::string Describe() const override {
    return "Range (" + std::to_string(start_) + ", " + std::to_string(end_) +
           ", step=" + std::to_string(step_) + ")";
  }

 private:
  int64_t start_;
  int64_t end_;
  int64_t step_;
  __int128 remaining_ = 0;
  uint64_t produced_ = 0;  // a range may hold up to 2^64 - 1 values
  bool announced_ = false;  // its row count was added to the progress totals
};

}  // namespace

OperatorPtr MakeRange(int64_t start, int64_t end, int64_t step, std::string column_name) {
  SILT_USER_CHECK(step != 0, INVALID_PARAMETER_VALUE,
                  {{"parameter", "`step`"},
                   {"functionName", "`range`"},
                   {"message", "Expects a non-zero value, but got 0"}});
  auto schema = std::make_shared<const Schema>(
      std::vector<Field>{Field{std::move(column_name), LongType(), false, {}}});
  return std::make_unique<RangeOperator>(start, end, step, std::move(schema));
}

}  // namespace silt::exec
