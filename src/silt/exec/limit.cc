#include "silt/base/check.h"
#include "silt/exec/operators.h"

namespace silt::exec {

namespace {

class LimitOperator final : public Operator {
 public:
  LimitOperator(OperatorPtr child, std::optional<int64_t> limit, int64_t offset)
      : Operator(child->schema()), child_(std::move(child)), limit_(limit), offset_(offset),
        to_skip_(offset), remaining_(limit) {}

  std::optional<Batch> Next(ExecContext& context) override {
    while (!remaining_ || *remaining_ > 0) {
      std::optional<Batch> batch = child_->Next(context);
      if (!batch) break;
      int64_t start = std::min(to_skip_, batch->num_rows());
      to_skip_ -= start;
      int64_t rows = batch->num_rows() - start;
      if (remaining_) rows = std::min(rows, *remaining_);
      if (rows == 0) continue;
      if (remaining_) *remaining_ -= rows;
      if (start == 0 && rows == batch->num_rows()) return batch;
      return batch->Slice(start, rows);
    }
    return std::nullopt;
  }

  std::string Describe() const override {
    std::string text = limit_ ? "Limit " + std::to_string(*limit_) : "Offset";
    if (offset_ > 0) text += (limit_ ? ", offset " : " ") + std::to_string(offset_);
    return text;
  }
  std::vector<const Operator*> children() const override { return {child_.get()}; }

 private:
  OperatorPtr child_;
  std::optional<int64_t> limit_;
  int64_t offset_;
  int64_t to_skip_;
  std::optional<int64_t> remaining_;
};

}  // namespace

OperatorPtr MakeLimit(OperatorPtr child, std::optional<int64_t> limit, int64_t offset) {
  SILT_CHECK(child != nullptr, "limit without a child");
  SILT_CHECK(!limit || *limit >= 0, "negative limit");
  SILT_CHECK(offset >= 0, "negative offset");
  return std::make_unique<LimitOperator>(std::move(child), limit, offset);
}

}  // namespace silt::exec
