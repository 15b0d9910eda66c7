#include "silt/commands/dml_validation.h"

#include <algorithm>
#include <cctype>

#include "silt/base/ascii.h"
#include "silt/base/check.h"
#include "silt/commands/statement_internal.h"
#include "silt/exec/text_format.h"
#include "silt/expr/cast.h"
#include "silt/expr/evaluator.h"
#include "silt/expr/type_coercion.h"
#include "silt/sql/expression_binder.h"
#include "silt/sql/parser.h"

namespace silt::commands::internal {

std::string SqlTypeName(const DataType& type) {
  std::string name = type.ToString();
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return "\"" + name + "\"";
}

std::optional<std::string> MetadataString(const Field& field, std::string_view key) {
  const std::string* raw = field.FindMetadata(key);
  if (raw == nullptr) return std::nullopt;
  exec::JsonValue value = exec::ParseJson(*raw);
  if (value.kind != exec::JsonValue::Kind::kString) return std::nullopt;
  return value.text;
}

expr::ExpressionPtr BindTableExpression(const std::string& text, const SchemaPtr& schema) {
  sql::ExpressionPtr parsed = sql::ParseExpression(text);
  sql::SchemaScope scope(schema);
  sql::ExpressionBinder binder(scope);
  return binder.Bind(*parsed);
}

void CollectColumns(const expr::Expression& expression, std::set<int>& columns) {
  if (expression.kind() == expr::ExpressionKind::kColumn) columns.insert(expression.column_index());
  for (const auto& child : expression.children()) CollectColumns(*child, columns);
}

std::string RowValues(const expr::Expression& expression, const Batch& batch, int64_t row) {
  std::set<int> columns;
  CollectColumns(expression, columns);
  std::string text;
  for (int column : columns) {
    const Vector& vector = *batch.column(static_cast<size_t>(column));
    text += "\n - " + batch.schema()->field(static_cast<size_t>(column)).name + " : " +
            (vector.IsNull(row) ? "null" : vector.ValueToString(row));
  }
  return text;
}

// Delta resolves the struct values UPDATE and MERGE store by field name: a struct whose fields
// are the column's in another order is reordered, recursively, before the positional cast.
// Zero-copy: the struct keeps its validity and offset, only its children are permuted.
VectorPtr AlignStructFieldsByName(const VectorPtr& input, const DataTypePtr& target) {
  if (input->type_id() != TypeId::kStruct || target->id() != TypeId::kStruct) return input;
  const std::vector<Field>& from = input->type()->fields();
  const std::vector<Field>& to = target->fields();
  if (from.size() != to.size()) return input;
  bool changed = false;
  std::vector<VectorPtr> children;
  std::vector<Field> fields;
  for (size_t i = 0; i < to.size(); ++i) {
    size_t j = 0;
    while (j < from.size() && !EqualsIgnoreCase(from[j].name, to[i].name)) ++j;
    if (j == from.size()) return input;  // not the same names: the positional rules apply
    VectorPtr child = AlignStructFieldsByName(input->children()[j], to[i].type);
    changed = changed || j != i || child != input->children()[j];
    fields.push_back(Field{from[j].name, child->type(), from[j].nullable, from[j].metadata});
    children.push_back(std::move(child));
  }
  if (!changed) return input;
  return Vector::Make(StructType(std::move(fields)), input->length(), input->buffers(), std::move(children),
                      input->null_count(), input->offset());
}

VectorPtr StoreAssign(const VectorPtr& value, const Field& target, const std::string& table,
                      expr::EvalContext& context, WriteKind kind) {
  const VectorPtr input = kind == WriteKind::kModify ? AlignStructFieldsByName(value, target.type) : value;
  if (input->type()->Equals(*target.type)) return input;
  const expr::StoreAssignmentPolicy policy = context.store_assignment;
  if (policy == expr::StoreAssignmentPolicy::kStrict && !expr::CanUpCast(input->type(), target.type)) {
    SILT_THROW(CANNOT_UP_CAST_DATATYPE,
               {{"expression", "`" + target.name + "`"},
                {"sourceType", SqlTypeName(*input->type())},
                {"targetType", SqlTypeName(*target.type)},
                {"details", "The type path of the target object is:\n\nYou can either add an explicit cast to "
                            "the input data or choose a higher precision type of the field in the target "
                            "object"}});
  }
  // Which casts a write may make: Spark's ANSI store assignment for INSERT; UPDATE and MERGE
  // follow Delta, which under ANSI casts any castable value (a string that does not parse then
  // fails at run time with CAST_INVALID_INPUT); LEGACY casts anything castable.
  // A nullable struct field may go into a NOT NULL one: the writer checks the values
  // (DataFileWriter, DELTA_NOT_NULL_CONSTRAINT_VIOLATED naming the field).
  bool allowed = expr::CanStoreAssign(input->type(), target.type, /*checked_nullability=*/true);
  if (!allowed && (policy == expr::StoreAssignmentPolicy::kLegacy ||
                   (policy == expr::StoreAssignmentPolicy::kAnsi && kind == WriteKind::kModify))) {
    allowed = expr::CanCast(input->type(), target.type);
  }
  if (!allowed) {
    // UPDATE and MERGE name a nested value whose fields differ from the column's as Delta does.
    if (kind == WriteKind::kModify && input->type()->is_nested() &&
        input->type()->id() == target.type->id()) {
      SILT_THROW(DELTA_UPDATE_SCHEMA_MISMATCH_EXPRESSION,
                 {{"fromCatalog", SqlTypeName(*input->type())}, {"toCatalog", SqlTypeName(*target.type)}});
    }
    SILT_THROW(INCOMPATIBLE_DATA_FOR_TABLE, {{"tableName", table},
                                             {"message", "Cannot safely cast `" + target.name +
                                                             "`: " + SqlTypeName(*input->type()) +
                                                             " to " + SqlTypeName(*target.type)}});
  }
  if (policy == expr::StoreAssignmentPolicy::kLegacy) {
    // LEGACY: a value that does not convert becomes NULL (or wraps), as a non-ANSI cast does.
    expr::EvalContext lenient = context;
    lenient.ansi = false;
    VectorPtr cast = expr::CastVector(input, target.type, expr::ErrorMode::kSession, lenient);
    lenient.ThrowIfError();
    return cast;
  }
  expr::EvalContext strict = context;
  strict.ansi = true;  // store assignment checks overflow whatever the session's ANSI mode
  VectorPtr cast = expr::CastVector(input, target.type, expr::ErrorMode::kSession, strict);
  try {
    strict.ThrowIfError();
  } catch (const Error& error) {
    std::string_view cls = error.error_class();
    if (cls == "CAST_OVERFLOW" || cls == "NUMERIC_VALUE_OUT_OF_RANGE" ||
        cls == "ARITHMETIC_OVERFLOW") {
      if (kind == WriteKind::kModify) {
        SILT_THROW(DELTA_CAST_OVERFLOW_IN_TABLE_WRITE,
                   {{"sourceType", SqlTypeName(*input->type())},
                    {"targetType", SqlTypeName(*target.type)},
                    {"columnName", "`" + target.name + "`"}});
      }
      SILT_THROW(CAST_OVERFLOW_IN_TABLE_INSERT, {{"sourceType", SqlTypeName(*input->type())},
                                                 {"targetType", SqlTypeName(*target.type)},
                                                 {"columnName", "`" + target.name + "`"}});
    }
    throw;
  }
  return cast;
}

RowValidator::RowValidator(const SchemaPtr& schema, const log::Metadata& metadata)
    : schema_(schema) {
  for (const auto& [name, text] : CheckConstraints(metadata)) {
    checks_.push_back({name, text, BindTableExpression(text, schema)});
  }
}

void RowValidator::Check(const Batch& batch, expr::EvalContext& context) const {
  for (size_t i = 0; i < schema_->num_fields(); ++i) {
    if (!schema_->field(i).nullable && batch.column(i)->null_count() > 0) {
      SILT_THROW(DELTA_NOT_NULL_CONSTRAINT_VIOLATED, {{"columnName", schema_->field(i).name}});
    }
  }
  for (const auto& check : checks_) {
    VectorPtr result = expr::Evaluate(*check.bound, batch, context);
    context.ThrowIfError();
    for (int64_t row = 0; row < batch.num_rows(); ++row) {
      // Delta rejects a row whose check is NULL as well as FALSE.
      if (result->IsNull(row) || !result->GetBool(row)) {
        SILT_THROW(DELTA_VIOLATE_CONSTRAINT_WITH_VALUES,
                   {{"constraintName", check.name},
                    {"expression", check.text},
                    {"values", RowValues(*check.bound, batch, row)}});
      }
    }
  }
}

RowAssembler::RowAssembler(SchemaPtr schema, const log::Metadata& metadata,
                           std::string table_name, WriteKind kind)
    : schema_(std::move(schema)),
      table_name_(std::move(table_name)),
      kind_(kind),
      validator_(schema_, metadata) {
  for (size_t i = 0; i < schema_->num_fields(); ++i) {
    if (auto text = MetadataString(schema_->field(i), kGenerationExpressionKey)) {
      generated_.push_back({i, *text, BindTableExpression(*text, schema_)});
    }
  }
}

bool RowAssembler::IsGenerated(size_t column) const {
  return std::any_of(generated_.begin(), generated_.end(),
                     [&](const Generated& g) { return g.column == column; });
}

Batch RowAssembler::Assemble(const Batch& source, const std::vector<int>& mapping,
                             expr::EvalContext& context) const {
  std::vector<VectorPtr> columns;
  for (size_t i = 0; i < schema_->num_fields(); ++i) {
    const Field& field = schema_->field(i);
    if (mapping[i] >= 0) {
      columns.push_back(StoreAssign(source.column(static_cast<size_t>(mapping[i])), field,
                                    table_name_, context, kind_));
    } else {
      columns.push_back(Vector::MakeAllNull(field.type, source.num_rows()));
    }
  }
  Batch batch(schema_, columns, source.num_rows());
  for (const Generated& g : generated_) {
    VectorPtr computed = expr::Evaluate(*g.bound, batch, context);
    context.ThrowIfError();
    const Field& field = schema_->field(g.column);
    if (!computed->type()->Equals(*field.type)) {
      computed = expr::CastVector(computed, field.type, expr::ErrorMode::kSession, context);
      context.ThrowIfError();
    }
    if (mapping[g.column] >= 0) {
      const Vector& given = *columns[g.column];
      for (int64_t row = 0; row < batch.num_rows(); ++row) {
        bool both_null = given.IsNull(row) && computed->IsNull(row);
        bool equal =
            !given.IsNull(row) && !computed->IsNull(row) && given.RowEquals(row, *computed, row);
        if (!both_null && !equal) {
          SILT_THROW(DELTA_GENERATED_COLUMN_VALUE_MISMATCH,
                     {{"columnName", field.name},
                      {"expression", g.text},
                      {"values", RowValues(*g.bound, batch, row) + "\n - " + field.name + " : " +
                                     (given.IsNull(row) ? "null" : given.ValueToString(row))}});
        }
      }
    } else {
      columns[g.column] = computed;
      batch = Batch(schema_, columns, source.num_rows());
    }
  }
  validator_.Check(batch, context);
  return batch;
}

}  // namespace silt::commands::internal
