#include "silt/base/check.h"
#include "silt/exec/operators.h"

namespace silt::exec {

namespace {

class UnionAllOperator final : public Operator {
 public:
  UnionAllOperator(std::vector<OperatorPtr> children, SchemaPtr schema)
      : Operator(std::move(schema)), children_(std::move(children)) {}

  std::optional<Batch> Next(ExecContext& context) override {
    while (current_ < children_.size()) {
      std::optional<Batch> batch = children_[current_]->Next(context);
      if (!batch) {
        ++current_;
        continue;
      }
      return Batch(schema(), batch->columns(), batch->num_rows());
    }
    return std::nullopt;
  }

  std::string Describe() const override { return "Union"; }
  std::vector<const Operator*> children() const override {
    std::vector<const Operator*> result;
    for (const OperatorPtr& child : children_) result.push_back(child.get());
    return result;
  }

 private:
  std::vector<OperatorPtr> children_;
  size_t current_ = 0;
};

}  // namespace

OperatorPtr MakeUnionAll(std::vector<OperatorPtr> children, SchemaPtr schema) {
  SILT_CHECK(schema != nullptr, "union without a schema");
  for (const OperatorPtr& child : children) {
    SILT_CHECK(child != nullptr, "null union child");
    const Schema& input = *child->schema();
    SILT_CHECK(input.num_fields() == schema->num_fields(), "union child column count differs");
    for (size_t i = 0; i < input.num_fields(); ++i) {
      SILT_CHECK(input.field(i).type->Equals(*schema->field(i).type),
                 "union child column " + std::to_string(i) + " has type " +
                     input.field(i).type->ToString() + ", expected " +
                     schema->field(i).type->ToString());
    }
  }
  return std::make_unique<UnionAllOperator>(std::move(children), std::move(schema));
}

}  // namespace silt::exec
