#include "silt/base/check.h"
#include "silt/exec/filter_internal.h"
#include "silt/exec/operators.h"

namespace silt::exec {

namespace {

class BatchSourceOperator final : public Operator {
 public:
  BatchSourceOperator(SchemaPtr schema, std::vector<Batch> batches)
      : Operator(std::move(schema)), batches_(std::move(batches)) {}

  std::optional<Batch> Next(ExecContext& context) override {
    while (next_ < batches_.size()) {
      Batch batch = std::move(batches_[next_++]);
      if (batch.num_rows() > 0) return batch;
    }
    return std::nullopt;
  }

  std::string Describe() const override {
    return "LocalTableScan [" + ColumnListText(*schema(), /*with_index=*/false) + "]";
  }

 private:
  std::vector<Batch> batches_;
  size_t next_ = 0;
};

}  // namespace

OperatorPtr MakeBatchSource(SchemaPtr schema, std::vector<Batch> batches) {
  SILT_CHECK(schema != nullptr, "batch source without a schema");
  for (Batch& batch : batches) {
    SILT_CHECK(batch.num_columns() == schema->num_fields(),
               "batch source batch has " + std::to_string(batch.num_columns()) + " columns for " +
                   std::to_string(schema->num_fields()) + " fields");
    // Relabel with the operator's schema (the checks there catch a type mismatch).
    batch = Batch(schema, batch.columns(), batch.num_rows());
  }
  return std::make_unique<BatchSourceOperator>(std::move(schema), std::move(batches));
}

}  // namespace silt::exec
