#include "silt/base/check.h"
#include "silt/exec/filter_internal.h"
#include "silt/exec/operators.h"
#include "silt/expr/evaluator.h"

namespace silt::exec {

namespace {

using Kind = GenerateSpec::Kind;

std::string GeneratorName(const GenerateSpec& spec) {
  std::string name = spec.kind == Kind::kExplode      ? "explode"
                     : spec.kind == Kind::kPosExplode ? "posexplode"
                                                      : "inline";
  return spec.outer ? name + "_outer" : name;
}

class GenerateOperator final : public Operator {
 public:
  GenerateOperator(OperatorPtr child, GenerateSpec spec, SchemaPtr schema)
      : Operator(std::move(schema)), child_(std::move(child)), spec_(std::move(spec)) {}

  std::optional<Batch> Next(ExecContext& context) override {
    for (;;) {
      if (!input_) {
        input_ = child_->Next(context);
        if (!input_) return std::nullopt;
        collection_ = expr::Evaluate(*spec_.input, *input_, context.eval);
        next_row_ = 0;
      }
      std::optional<Batch> output = GenerateFrom();
      if (next_row_ >= input_->num_rows()) input_.reset();
      if (output) return output;
    }
  }

  std::string Describe() const override {
    return "Generate " + GeneratorName(spec_) + "(" +
           ExpressionText(*spec_.input, *child_->schema()) + ")";
  }
  std::vector<const Operator*> children() const override { return {child_.get()}; }

 private:
  // Expands rows of the current input from next_row_ until about a target batch is produced.
  std::optional<Batch> GenerateFrom() {
    const Vector& collection = *collection_;
    std::vector<int64_t> parent_rows;
    std::vector<int64_t> elements;  // index into the collection's child, -1 for OUTER's NULLs
    std::vector<int64_t> positions;
    int64_t num_rows = input_->num_rows();
    while (next_row_ < num_rows && static_cast<int64_t>(parent_rows.size()) < kTargetBatchRows) {
      int64_t row = next_row_++;
      int32_t length = collection.IsValid(row) ? collection.ListLength(row) : 0;
      if (length == 0) {
        if (spec_.outer) {
          parent_rows.push_back(row);
          elements.push_back(-1);
          positions.push_back(-1);
        }
        continue;
      }
      int32_t start = collection.ListStart(row);
      for (int32_t i = 0; i < length; ++i) {
        parent_rows.push_back(row);
        elements.push_back(start + i);
        positions.push_back(i);
      }
    }
    if (parent_rows.empty()) return std::nullopt;

    std::vector<VectorPtr> columns;
    for (const VectorPtr& column : input_->columns()) {
      columns.push_back(TakeRows(*column, parent_rows));
    }
    if (spec_.kind == Kind::kPosExplode) columns.push_back(PositionVector(positions));
    const VectorPtr& values = collection.child(0);
    if (collection.type_id() == TypeId::kMap) {
      columns.push_back(TakeRows(*values->StructField(0), elements));
      columns.push_back(TakeRows(*values->StructField(1), elements));
    } else if (spec_.kind == Kind::kInline) {
      // A NULL struct element gives NULL in every field.
      std::vector<int64_t> present = elements;
      for (int64_t& element : present) {
        if (element >= 0 && values->IsNull(element)) element = -1;
      }
      for (size_t field = 0; field < values->type()->fields().size(); ++field) {
        columns.push_back(TakeRows(*values->StructField(field), present));
      }
    } else {
      columns.push_back(TakeRows(*values, elements));
    }
    int64_t rows = static_cast<int64_t>(parent_rows.size());
    return Batch(schema(), std::move(columns), rows);
  }

  static VectorPtr PositionVector(const std::vector<int64_t>& positions) {
    VectorBuilder builder(IntegerType(), static_cast<int64_t>(positions.size()));
    for (int64_t position : positions) {
      if (position < 0) {
        builder.AppendNull();
      } else {
        builder.AppendInt(position);
      }
    }
    return builder.Finish();
  }

  OperatorPtr child_;
  GenerateSpec spec_;
  std::optional<Batch> input_;
  VectorPtr collection_;
  int64_t next_row_ = 0;
};

}  // namespace

OperatorPtr MakeGenerate(OperatorPtr child, GenerateSpec spec) {
  SILT_CHECK(child != nullptr && spec.input != nullptr, "generate needs a child and an input");
  const DataTypePtr& type = spec.input->type();
  std::vector<Field> generated;
  bool outer = spec.outer;
  auto mismatch = [&](const std::string& expected) {
    SILT_THROW(DATATYPE_MISMATCH,
               {{"sqlExpr", GeneratorName(spec) + "(" + spec.input->ToString() + ")"},
                {"message", "the input should be " + expected + ", but it is " + type->ToString()}});
  };
  if (spec.kind == GenerateSpec::Kind::kPosExplode) {
    generated.push_back(Field{"pos", IntegerType(), outer, {}});
  }
  if (spec.kind == GenerateSpec::Kind::kInline) {
    if (type->id() != TypeId::kList || type->element_type()->id() != TypeId::kStruct) {
      mismatch("an ARRAY<STRUCT>");
    }
    for (const Field& field : type->element_type()->fields()) {
      generated.push_back(Field{field.name, field.type, true, {}});
    }
  } else if (type->id() == TypeId::kList) {
    generated.push_back(Field{"col", type->element_type(), type->contains_null() || outer, {}});
  } else if (type->id() == TypeId::kMap) {
    generated.push_back(Field{"key", type->key_type(), outer, {}});
    generated.push_back(Field{"value", type->value_type(), type->value_contains_null() || outer, {}});
  } else {
    mismatch("an ARRAY or a MAP");
  }
  if (!spec.names.empty()) {
    SILT_USER_CHECK(spec.names.size() == generated.size(), UNSUPPORTED_GENERATOR,
                    {{"message", GeneratorName(spec) + " produces " +
                                     std::to_string(generated.size()) + " columns, but " +
                                     std::to_string(spec.names.size()) + " names were given"}});
    for (size_t i = 0; i < generated.size(); ++i) generated[i].name = spec.names[i];
  }
  std::vector<Field> fields = child->schema()->fields();
  fields.insert(fields.end(), generated.begin(), generated.end());
  auto schema = std::make_shared<const Schema>(std::move(fields));
  return std::make_unique<GenerateOperator>(std::move(child), std::move(spec), std::move(schema));
}

}  // namespace silt::exec
