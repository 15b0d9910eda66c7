#include <vector>

#include "silt/base/check.h"
#include "silt/exec/hash_operators.h"
#include "silt/exec/hash_table.h"
#include "silt/exec/row_hash.h"

namespace silt::exec {

namespace {

// Streams the first occurrence of every distinct row, as soon as its batch arrives.
class DistinctOperator final : public Operator {
 public:
  explicit DistinctOperator(OperatorPtr child) : Operator(child->schema()), child_(std::move(child)) {}

  std::optional<Batch> Next(ExecContext& context) override {
    while (std::optional<Batch> batch = child_->Next(context)) {
      const int64_t num_rows = batch->num_rows();
      EncodeKeys(batch->columns(), num_rows, encoded_);
      groups_.resize(static_cast<size_t>(num_rows));
      new_rows_.clear();
      table_.FindOrInsert(encoded_, groups_.data(), &new_rows_);
      if (new_rows_.empty()) continue;
      if (static_cast<int64_t>(new_rows_.size()) == num_rows) return Batch(schema(), batch->columns(), num_rows);
      std::vector<VectorPtr> columns;
      for (const VectorPtr& column : batch->columns()) {
        columns.push_back(TakeRows(*column, new_rows_.data(), static_cast<int64_t>(new_rows_.size())));
      }
      return Batch(schema(), std::move(columns), static_cast<int64_t>(new_rows_.size()));
    }
    return std::nullopt;
  }

  std::string Describe() const override { return "Distinct"; }
  std::vector<const Operator*> children() const override { return {child_.get()}; }

 private:
  OperatorPtr child_;
  KeyTable table_;
  EncodedKeys encoded_;
  std::vector<uint32_t> groups_;
  std::vector<int64_t> new_rows_;
};

}  // namespace

OperatorPtr MakeDistinct(OperatorPtr child) {
  SILT_CHECK(child != nullptr, "distinct without input");
  return std::make_unique<DistinctOperator>(std::move(child));
}

}  // namespace silt::exec
