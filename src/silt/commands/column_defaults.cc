#include "silt/commands/column_defaults.h"

#include "silt/base/ascii.h"
#include "silt/base/check.h"
#include "silt/commands/dml_validation.h"
#include "silt/commands/statement_internal.h"
#include "silt/expr/evaluator.h"
#include "silt/expr/type_coercion.h"
#include "silt/log/table_features.h"
#include "silt/sql/parser.h"

namespace silt::commands::internal {
namespace {

[[noreturn]] void ThrowInvalid(const std::string& statement, const Field& field,
                               const std::string& text, const std::string& reason) {
  SILT_THROW(INVALID_DEFAULT_VALUE, {{"statement", statement},
                                     {"colName", "`" + field.name + "`"},
                                     {"defaultValue", text},
                                     {"message", reason}});
}

// The default bound with no columns in scope (a default cannot read the row).
expr::ExpressionPtr BindDefault(const std::string& text, const Field& field,
                                const std::string& statement) {
  auto no_columns = std::make_shared<Schema>(std::vector<Field>{});
  expr::ExpressionPtr bound;
  try {
    bound = BindTableExpression(text, no_columns);
  } catch (const Error& error) {
    if (error.error_class() != "UNRESOLVED_COLUMN") throw;
    ThrowInvalid(statement, field, text, "which fails to resolve as a valid expression.");
  }
  if (!bound->deterministic()) {
    ThrowInvalid(statement, field, text, "which is not a constant expression whose equivalent "
                                         "value is known at query planning time.");
  }
  if (!expr::CanStoreAssign(bound->type(), field.type)) {
    ThrowInvalid(statement, field, text,
                 "which requires " + SqlTypeName(*field.type) +
                     " type, but the statement provided a value of incompatible " +
                     SqlTypeName(*bound->type()) + " type.");
  }
  return bound;
}

}  // namespace

void SetColumnDefault(Field& field, const std::string& text, const std::string& statement) {
  BindDefault(text, field, statement);
  std::string value = QuotedJson(text);
  for (auto& [key, existing] : field.metadata) {
    if (key == kCurrentDefaultKey) {
      existing = value;
      return;
    }
  }
  field.metadata.emplace_back(std::string(kCurrentDefaultKey), value);
}

void DropColumnDefault(Field& field) {
  std::erase_if(field.metadata, [](const auto& entry) { return entry.first == kCurrentDefaultKey; });
}

void CheckColumnDefaultsAllowed(const log::Protocol& protocol, const std::string& command_type) {
  if (!log::IsFeatureSupported(protocol, "allowColumnDefaults")) {
    SILT_THROW(WRONG_COLUMN_DEFAULTS_FOR_DELTA_FEATURE_NOT_ENABLED, {{"commandType", command_type}});
  }
}

Batch WithDefaultColumns(const SchemaPtr& schema, const Batch& source, std::vector<int>& mapping,
                         expr::EvalContext& context) {
  std::vector<Field> fields;
  std::vector<VectorPtr> columns;
  for (size_t i = 0; i < mapping.size(); ++i) {
    if (mapping[i] >= 0) continue;
    const Field& field = schema->field(i);
    std::optional<std::string> text = MetadataString(field, kCurrentDefaultKey);
    if (!text) continue;
    if (fields.empty()) {
      fields = source.schema()->fields();
      columns = source.columns();
    }
    expr::ExpressionPtr bound = BindDefault(*text, field, "INSERT");
    VectorPtr value = expr::Evaluate(*bound, source, context);
    context.ThrowIfError();
    mapping[i] = static_cast<int>(columns.size());
    fields.push_back(Field{"default " + std::to_string(i), value->type(), true, {}});
    columns.push_back(std::move(value));
  }
  if (fields.empty()) return source;
  return Batch(std::make_shared<Schema>(std::move(fields)), std::move(columns), source.num_rows());
}

bool IsDefaultKeyword(const sql::Expression& value) {
  return value.kind == sql::ExpressionKind::kColumn && value.name.size() == 1 &&
         EqualsIgnoreCase(value.name[0], "DEFAULT");
}

namespace {

void CheckNoNestedDefault(const sql::Expression& expression) {
  auto visit = [](const sql::ExpressionPtr& child) {
    if (child == nullptr) return;
    if (IsDefaultKeyword(*child)) SILT_THROW(DEFAULT_PLACEMENT_INVALID, {});
    CheckNoNestedDefault(*child);
  };
  for (const auto& child : expression.children) visit(child);
  visit(expression.case_operand);
  for (const auto& [when, then] : expression.when_clauses) {
    visit(when);
    visit(then);
  }
  visit(expression.else_result);
}

}  // namespace

sql::ExpressionPtr ResolveDefaultKeyword(const sql::ExpressionPtr& value, const Field& target) {
  if (!IsDefaultKeyword(*value)) {
    CheckNoNestedDefault(*value);
    return value;
  }
  std::optional<std::string> text = MetadataString(target, kCurrentDefaultKey);
  return sql::ParseExpression(text ? *text : "NULL");
}

const Field* AssignedColumn(const Schema& schema, const sql::QualifiedName& name) {
  for (size_t part = 0; part < name.size() && part < 2; ++part) {
    int index = schema.FieldIndex(name[part], /*case_sensitive=*/false);
    if (index >= 0 && part + 1 == name.size()) return &schema.field(static_cast<size_t>(index));
  }
  return nullptr;
}

}  // namespace silt::commands::internal
