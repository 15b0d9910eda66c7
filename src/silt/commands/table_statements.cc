// CREATE TABLE, INSERT and ALTER TABLE: the statements that commit to Delta tables.

#include <algorithm>
#include <cctype>
#include <functional>
#include <set>

#include "silt/base/ascii.h"
#include "silt/base/check.h"
#include "silt/base/json_writer.h"
#include "silt/base/shortened_text.h"
#include "silt/commands/column_defaults.h"
#include "silt/commands/column_type_change.h"
#include "silt/commands/dml_support.h"
#include "silt/commands/dml_validation.h"
#include "silt/commands/drop_feature.h"
#include "silt/commands/identity_columns.h"
#include "silt/commands/statement_internal.h"
#include "silt/exec/text_format.h"
#include "silt/expr/cast.h"
#include "silt/expr/evaluator.h"
#include "silt/expr/type_coercion.h"
#include "silt/io/file_system.h"
#include "silt/io/path.h"
#include "silt/log/clustering.h"
#include "silt/log/data_file_writer.h"
#include "silt/log/partition_values.h"
#include "silt/log/random_uuid.h"
#include "silt/log/restore.h"
#include "silt/log/row_tracking.h"
#include "silt/log/table_features.h"
#include "silt/log/table_properties.h"
#include "silt/log/table_scan.h"
#include "silt/log/transaction.h"
#include "silt/log/type_widening.h"
#include "silt/sql/expression_binder.h"
#include "silt/sql/lexer.h"
#include "silt/sql/parser.h"
#include "silt/types/schema_json.h"

namespace silt::commands::internal {
namespace {

constexpr std::string_view kDefaultsPrefix = "spark.databricks.delta.properties.defaults.";

std::string Upper(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return out;
}

std::string JsonStringArray(const std::vector<std::string>& values) {
  JsonWriter json;
  json.BeginArray();
  for (const auto& value : values) json.String(value);
  json.EndArray();
  return json.Release();
}

std::string JsonStringObject(const log::StringMap& values) {
  JsonWriter json;
  json.BeginObject();
  for (const auto& [key, value] : values) {
    json.Key(key);
    json.String(value);
  }
  json.EndObject();
  return json.Release();
}

// The rows of `batch` whose `keep` byte is set.
Batch SelectRows(const Batch& batch, const std::vector<uint8_t>& keep) {
  std::vector<VectorPtr> columns;
  int64_t kept = 0;
  for (uint8_t k : keep) kept += k != 0;
  if (kept == batch.num_rows()) return batch;
  for (const VectorPtr& column : batch.columns()) {
    VectorBuilder builder(column->type(), kept);
    for (int64_t row = 0; row < batch.num_rows(); ++row) {
      if (keep[static_cast<size_t>(row)]) builder.AppendFrom(*column, row);
    }
    columns.push_back(builder.Finish());
  }
  return Batch(batch.schema(), std::move(columns), kept);
}

size_t LeftmostOffset(const sql::Expression& expression) {
  size_t offset = expression.position.offset;
  auto visit = [&](const sql::ExpressionPtr& child) {
    if (child) offset = std::min(offset, LeftmostOffset(*child));
  };
  for (const auto& child : expression.children) visit(child);
  visit(expression.case_operand);
  for (const auto& [when, then] : expression.when_clauses) {
    visit(when);
    visit(then);
  }
  visit(expression.else_result);
  return offset;
}

// The text of a CHECK or GENERATED ALWAYS AS expression as the user wrote it between the
// parentheses after CHECK / AS, which is what Delta stores; the canonical SQL of the AST when
// the text cannot be located.
std::string WrittenExpressionText(const sql::Statement& statement,
                                  const sql::Expression& expression) {
  const std::string& text = statement.source_text;
  size_t start = LeftmostOffset(expression);
  if (start < statement.position.offset || start - statement.position.offset >= text.size()) {
    return sql::ExpressionSql(expression);
  }
  size_t position = start - statement.position.offset;
  // Walk back over blanks and opening parentheses to the one that follows the keyword.
  size_t wrapper = std::string::npos;
  size_t cursor = position;
  while (cursor > 0) {
    char c = text[cursor - 1];
    if (c == '(') {
      wrapper = cursor - 1;
    } else if (!std::isspace(static_cast<unsigned char>(c))) {
      break;
    }
    --cursor;
  }
  size_t word_end = cursor;
  while (cursor > 0 && std::isalpha(static_cast<unsigned char>(text[cursor - 1]))) --cursor;
  std::string keyword = Upper(text.substr(cursor, word_end - cursor));
  if (wrapper == std::string::npos || (keyword != "CHECK" && keyword != "AS")) {
    return sql::ExpressionSql(expression);
  }
  int depth = 0;
  for (size_t i = wrapper; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\'' || c == '"' || c == '`') {
      size_t close = i + 1;
      while (close < text.size() && text[close] != c) close += text[close] == '\\' ? 2 : 1;
      i = close;
      continue;
    }
    if (c == '(') ++depth;
    if (c == ')' && --depth == 0) {
      std::string inner = text.substr(wrapper + 1, i - wrapper - 1);
      size_t first = inner.find_first_not_of(" \t\r\n");
      size_t last = inner.find_last_not_of(" \t\r\n");
      if (first == std::string::npos) break;
      return inner.substr(first, last - first + 1);
    }
  }
  return sql::ExpressionSql(expression);
}

// The text of a DEFAULT expression as the user wrote it (Spark stores it as CURRENT_DEFAULT): from
// the expression's first token to the comma, closing parenthesis, column option keyword or end
// of statement that ends it; the canonical SQL of the AST when the text cannot be located.
std::string WrittenDefaultText(const sql::Statement& statement, const sql::Expression& expression) {
  const std::string& text = statement.source_text;
  size_t start = LeftmostOffset(expression);
  if (start < statement.position.offset || start - statement.position.offset >= text.size()) {
    return sql::ExpressionSql(expression);
  }
  size_t position = start - statement.position.offset;
  auto keyword_at = [&](size_t at) {
    if (at > 0 && (std::isalnum(static_cast<unsigned char>(text[at - 1])) || text[at - 1] == '_')) {
      return false;
    }
    for (std::string_view word : {"COMMENT", "NOT", "GENERATED", "CONSTRAINT"}) {
      if (text.size() - at >= word.size() && Upper(text.substr(at, word.size())) == word &&
          (text.size() - at == word.size() ||
           !std::isalnum(static_cast<unsigned char>(text[at + word.size()])))) {
        return true;
      }
    }
    return false;
  };
  int depth = 0;
  size_t end = position;
  for (; end < text.size(); ++end) {
    char c = text[end];
    if (c == '\'' || c == '"' || c == '`') {
      size_t close = end + 1;
      while (close < text.size() && text[close] != c) close += text[close] == '\\' ? 2 : 1;
      end = std::min(close, text.size() - 1);
      continue;
    }
    if (c == '(') ++depth;
    if (c == ')' && depth-- == 0) break;
    if (depth == 0 && (c == ',' || c == ';' || keyword_at(end))) break;
  }
  std::string written = text.substr(position, end - position);
  size_t last = written.find_last_not_of(" \t\r\n");
  if (last == std::string::npos) return sql::ExpressionSql(expression);
  return written.substr(0, last + 1);
}

// Delta turns `delta.feature.<name>` properties into protocol features and keeps them out of the
// table's configuration. Removes them from `metadata` and returns the protocol the table needs
// for them and the rest of `metadata` on top of `current` (the protocol read; nullopt for a new
// table), or nullopt when there were none.
std::optional<log::Protocol> TakeFeatureProperties(log::Metadata& metadata,
                                                   const std::optional<log::Protocol>& current) {
  log::Protocol required = log::RequiredProtocol(metadata);
  size_t removed = std::erase_if(metadata.configuration, [](const auto& entry) {
    return entry.first.rfind("delta.feature.", 0) == 0;
  });
  if (removed == 0) return std::nullopt;
  return current ? log::MergeProtocols(*current, required) : required;
}

// Delta reads `delta.minReaderVersion` / `delta.minWriterVersion` set on a table as a request to
// upgrade its protocol to at least those versions (DeltaTable.upgradeTableProtocol sets them) and
// keeps them out of the table's configuration. Removes them from `metadata` and returns the
// protocol that supports both `current` and the versions asked for, or nullopt when none was
// set. Versions never go down; without writer version 7 the reader version stays at most 2, as
// Delta sanitises it.
std::optional<log::Protocol> TakeProtocolVersionProperties(log::Metadata& metadata,
                                                           const log::Protocol& current) {
  std::optional<int32_t> reader;
  std::optional<int32_t> writer;
  std::erase_if(metadata.configuration, [&](const auto& entry) {
    if (entry.first == "delta.minReaderVersion") {
      reader = std::stoi(entry.second);  // validated as 1 to 3 by ValidateTableProperty
      return true;
    }
    if (entry.first == "delta.minWriterVersion") {
      writer = std::stoi(entry.second);  // validated as 1 to 7
      return true;
    }
    return false;
  });
  if (!reader && !writer) return std::nullopt;
  log::Protocol requested{reader.value_or(1), writer.value_or(1), std::nullopt, std::nullopt};
  if (requested.min_writer_version >= 7) {
    requested.writer_features = std::vector<std::string>{};
    if (requested.min_reader_version >= 3) requested.reader_features = std::vector<std::string>{};
  } else {
    requested.min_reader_version = std::min(requested.min_reader_version, 2);
  }
  return log::MergeProtocols(current, requested);
}

// Column mapping (protocol "Column Mapping"): gives every field of `fields` without one, at any
// depth (struct fields inside structs, arrays and maps), a column id (after
// `delta.columnMapping.maxColumnId`, which it then raises) and a physical name: `col-<uuid>` for
// a new table, the field's own name when an existing table turns mapping on, so its data files
// stay readable. Ids go to a field before its nested fields, as Delta assigns them.
void AssignColumnMapping(std::vector<Field>& fields, log::StringMap& configuration,
                         bool keep_names) {
  constexpr std::string_view kMaxIdKey = "delta.columnMapping.maxColumnId";
  int64_t max_id = 0;
  if (const std::string* text = log::FindValue(configuration, kMaxIdKey)) {
    max_id = std::strtoll(text->c_str(), nullptr, 10);
  }
  std::function<void(std::vector<Field>&)> assign_fields;
  std::function<DataTypePtr(const DataTypePtr&)> assign_type = [&](const DataTypePtr& type) {
    switch (type->id()) {
      case TypeId::kStruct: {
        std::vector<Field> nested = type->fields();
        assign_fields(nested);
        return StructType(std::move(nested));
      }
      case TypeId::kList:
        return ListType(assign_type(type->element_type()), type->contains_null());
      case TypeId::kMap: {
        DataTypePtr key = assign_type(type->key_type());
        return MapType(std::move(key), assign_type(type->value_type()),
                       type->value_contains_null());
      }
      default:
        return type;
    }
  };
  assign_fields = [&](std::vector<Field>& list) {
    for (Field& field : list) {
      if (field.FindMetadata("delta.columnMapping.id") == nullptr) {
        field.metadata.emplace_back("delta.columnMapping.id", std::to_string(++max_id));
        field.metadata.emplace_back(
            "delta.columnMapping.physicalName",
            QuotedJson(keep_names ? field.name : "col-" + log::RandomUuid()));
      }
      field.type = assign_type(field.type);
    }
  };
  assign_fields(fields);
  std::erase_if(configuration, [&](const auto& entry) { return entry.first == kMaxIdKey; });
  configuration.emplace_back(std::string(kMaxIdKey), std::to_string(max_id));
}

// The advice Delta gives with a column rename or drop on a table without column mapping.
constexpr std::string_view kColumnMappingAdvice =
    "Please enable Column Mapping on your Delta table with mapping mode 'name': ALTER TABLE "
    "table_name SET TBLPROPERTIES ('delta.columnMapping.mode' = 'name'). If your table is not "
    "on the required protocol version it will be upgraded.";

// Refuses renaming or dropping table column `index` while a CHECK constraint or a generation
// expression reads it, as Delta does (the stored expressions would stop resolving).
void CheckNoDependents(const SchemaPtr& schema, const log::Metadata& metadata, size_t index) {
  const std::string& name = schema->field(index).name;
  std::string constraints;
  for (const auto& [constraint, text] : CheckConstraints(metadata)) {
    std::set<int> used;
    CollectColumns(*BindTableExpression(text, schema), used);
    if (used.count(static_cast<int>(index))) constraints += constraint + " -> " + text + "\n";
  }
  if (!constraints.empty()) {
    SILT_THROW(DELTA_CONSTRAINT_DEPENDENT_COLUMN_CHANGE,
               {{"columnName", name}, {"constraints", constraints}});
  }
  std::string generated;
  for (const Field& field : schema->fields()) {
    auto text = MetadataString(field, kGenerationExpressionKey);
    if (!text) continue;
    std::set<int> used;
    CollectColumns(*BindTableExpression(*text, schema), used);
    if (used.count(static_cast<int>(index))) generated += field.name + " -> " + *text + "\n";
  }
  if (!generated.empty()) {
    SILT_THROW(DELTA_GENERATED_COLUMNS_DEPENDENT_COLUMN_CHANGE,
               {{"columnName", name}, {"generatedColumns", generated}});
  }
}

// The index of top-level column `path` (one part; RENAME and DROP reach nested fields through
// EditNestedField), or UNRESOLVED_COLUMN.
size_t TopLevelColumn(const Schema& schema, const sql::QualifiedName& path) {
  if (path.size() != 1) {
    SILT_THROW(NOT_IMPLEMENTED, {{"feature", "Renaming or dropping a nested field"}});
  }
  int index = schema.FieldIndex(path[0], /*case_sensitive=*/false);
  if (index < 0) {
    std::string proposal;
    for (const Field& field : schema.fields())
      proposal += (proposal.empty() ? "`" : ", `") + field.name + "`";
    SILT_THROW(UNRESOLVED_COLUMN, {{"objectName", "`" + path[0] + "`"}, {"proposal", proposal}});
  }
  return static_cast<size_t>(index);
}

// Puts `field` among `siblings` where ADD COLUMNS ... FIRST | AFTER x says ("" is FIRST; nullopt
// the end). An AFTER naming no sibling is FIELD_NOT_FOUND, as Spark's analyzer reports it.
void InsertAtPosition(std::vector<Field>& siblings, Field field,
                      const std::optional<std::string>& position) {
  if (!position) {
    siblings.push_back(std::move(field));
    return;
  }
  size_t at = 0;
  if (!position->empty()) {
    bool found = false;
    for (size_t i = 0; i < siblings.size() && !found; ++i) {
      found = EqualsIgnoreCase(siblings[i].name, *position);
      at = i + 1;
    }
    if (!found) {
      std::string names;
      for (const Field& sibling : siblings) {
        names += (names.empty() ? "`" : ", `") + sibling.name + "`";
      }
      SILT_THROW(FIELD_NOT_FOUND, {{"fieldName", "`" + *position + "`"}, {"fields", names}});
    }
  }
  siblings.insert(siblings.begin() + static_cast<std::ptrdiff_t>(at), std::move(field));
}

// The table's fields with `edit` applied to the struct that holds nested field `path` (two parts
// or more, through struct fields): `edit(fields, index)` gets that struct's fields and the index
// of the field the last part names. A part that names no field, or a field that is not a struct,
// is FIELD_NOT_FOUND.
std::vector<Field> EditNestedField(const std::vector<Field>& fields, const sql::QualifiedName& path,
                                   size_t level,
                                   const std::function<void(std::vector<Field>&, size_t)>& edit) {
  std::vector<Field> edited = fields;
  size_t index = edited.size();
  for (size_t i = 0; i < edited.size(); ++i) {
    if (EqualsIgnoreCase(edited[i].name, path[level])) index = i;
  }
  if (index == edited.size()) {
    std::string names;
    for (const Field& field : fields) names += (names.empty() ? "`" : ", `") + field.name + "`";
    SILT_THROW(FIELD_NOT_FOUND, {{"fieldName", "`" + path[level] + "`"}, {"fields", names}});
  }
  if (level + 1 == path.size()) {
    edit(edited, index);
    return edited;
  }
  Field& parent = edited[index];
  if (parent.type->id() != TypeId::kStruct) {
    SILT_THROW(FIELD_NOT_FOUND,
               {{"fieldName", "`" + path[level + 1] + "`"},
                {"fields", "`" + parent.name + "` of type " + parent.type->ToString()}});
  }
  parent.type = StructType(EditNestedField(parent.type->fields(), path, level + 1, edit));
  return edited;
}

std::string DottedPath(const sql::QualifiedName& path) {
  std::string text;
  for (const std::string& part : path) text += (text.empty() ? "" : ".") + part;
  return text;
}

// What a write added to a table.
struct WrittenFiles {
  std::vector<log::AddFile> adds;
  int64_t rows = 0;
  int64_t bytes = 0;
};

// Writes batches (in the table's schema) as data files of the transaction's table as they come;
// no file is made before the first row.
class BatchFileWriter {
 public:
  BatchFileWriter(sql::SessionState& session, std::string location, const log::Metadata& metadata,
                  std::vector<Field> hidden_columns = {})
      : session_(session), location_(std::move(location)), metadata_(metadata) {
    options_.hidden_columns = std::move(hidden_columns);
    options_.max_rows_per_file = session.MaxRecordsPerFile();
  }

  void Write(const Batch& batch) {
    if (batch.num_rows() == 0) return;
    session_.cancellation().ThrowIfRequested();
    if (!writer_) {
      writer_ = log::DataFileWriter::Make(session_.fs(), location_, metadata_, options_);
    }
    writer_->Write(batch);
    written_.rows += batch.num_rows();
    session_.progress().AddWritten(0, batch.num_rows(), 0);
  }

  // Closes the files; what they hold.
  WrittenFiles Finish() {
    if (writer_) written_.adds = writer_->Finish();
    for (const auto& add : written_.adds) written_.bytes += add.size;
    return std::move(written_);
  }

 private:
  sql::SessionState& session_;
  std::string location_;
  const log::Metadata& metadata_;
  log::DataFileWriterOptions options_;
  std::unique_ptr<log::DataFileWriter> writer_;
  WrittenFiles written_;
};

// Writes `batches` (in the table's schema) as data files of the transaction's table.
WrittenFiles WriteFiles(sql::SessionState& session, const std::string& location,
                        const log::Metadata& metadata, const std::vector<Batch>& batches,
                        std::vector<Field> hidden_columns = {}) {
  BatchFileWriter writer(session, location, metadata, std::move(hidden_columns));
  for (const Batch& batch : batches) writer.Write(batch);
  return writer.Finish();
}

// ---- CREATE TABLE ----

}  // namespace

CreateTarget ResolveCreateTarget(sql::SessionState& session, const sql::Statement& statement) {
  const sql::QualifiedName& name = statement.name;
  CreateTarget target;
  if (name.size() == 2 && Lower(name[0]) == "delta" && name[1].find('/') != std::string::npos) {
    target.location = name[1];
    target.display_name = "delta.`" + name[1] + "`";
    target.external = true;
    target.exists = !session.fs()->List(name[1] + "/_delta_log").empty();
    return target;
  }
  std::string database;
  if (name.size() == 1) {
    database = session.current_database();
  } else if (name.size() == 2) {
    database = Lower(name[0]);
  } else if (name.size() == 3 && Lower(name[0]) == "spark_catalog") {
    database = Lower(name[1]);
  } else {
    SILT_THROW(INVALID_SCHEMA_OR_RELATION_NAME, {{"name", name.back()}});
  }
  target.table = Lower(name.back());
  sql::Catalog::CheckTableName(target.table);
  session.catalog().CheckDatabase(database);
  target.database = database;
  SILT_USER_CHECK(!target.table.empty() && target.table.find('/') == std::string::npos,
                  INVALID_SCHEMA_OR_RELATION_NAME, {{"name", ShortenedForMessage(name.back())}});
  target.display_name = "`spark_catalog`.`" + ShortenedForMessage(database) + "`.`" +
                        ShortenedForMessage(target.table) + "`";
  // A name is a table or a view: even CREATE OR REPLACE TABLE does not replace a view.
  if (session.catalog().FindView(database, target.table)) {
    if (statement.if_not_exists && !statement.or_replace && !statement.replace) {
      target.exists = true;
      return target;
    }
    SILT_THROW(TABLE_OR_VIEW_ALREADY_EXISTS, {{"relationName", target.display_name}});
  }
  std::optional<std::string> existing = session.catalog().TableLocation(database, target.table);
  if (existing) {
    target.exists = true;
    target.location = *existing;
    target.external = session.catalog().IsExternalTable(database, target.table);
    if (statement.location &&
        io::NormalizePath(*statement.location) != io::NormalizePath(*existing)) {
      // Replacing a table at another location is not something silt supports.
      if (statement.or_replace || statement.replace) {
        SILT_THROW(NOT_IMPLEMENTED, {{"feature", "REPLACE TABLE with a different LOCATION"}});
      }
    }
  } else if (statement.location) {
    target.location = *statement.location;
    target.external = true;
  } else {
    target.location = session.catalog().ManagedLocation(database, target.table);
  }
  return target;
}

namespace {

Field ColumnField(const sql::Statement& statement, const sql::ColumnDefinition& column) {
  Field field{column.name, column.type, column.nullable, {}};
  if (column.comment) field.metadata.emplace_back("comment", QuotedJson(*column.comment));
  if (column.generated_as) {
    field.metadata.emplace_back(std::string(kGenerationExpressionKey),
                                QuotedJson(WrittenExpressionText(statement, *column.generated_as)));
  }
  if (column.identity) {
    if (column.generated_as) SILT_THROW(DELTA_IDENTITY_COLUMNS_WITH_GENERATED_EXPRESSION, {});
    AddIdentityMetadata(field, *column.identity);
  }
  if (column.default_value) {
    SetColumnDefault(field, WrittenDefaultText(statement, *column.default_value), "CREATE TABLE");
  }
  return field;
}

// Table properties: TBLPROPERTIES plus the session's defaults for properties not given, each
// checked as Delta checks it, so that a value no later write could use fails the statement
// before anything is written.
log::StringMap TableProperties(const sql::SessionState& session, const sql::Statement& statement) {
  log::StringMap properties;
  for (const auto& [key, value] : statement.properties) {
    properties.push_back(log::ValidateTableProperty(key, value));
  }
  for (const auto& [key, value] : session.conf()) {
    if (key.rfind(kDefaultsPrefix, 0) != 0) continue;
    auto property = log::ValidateTableProperty("delta." + key.substr(kDefaultsPrefix.size()), value);
    if (!log::FindValue(properties, property.first)) properties.push_back(std::move(property));
  }
  return log::ValidateTableProperties(properties);
}

// Checks generated-column and CHECK expressions against the schema before anything is written.
void ValidateTableExpressions(const SchemaPtr& schema, const log::StringMap& properties) {
  for (const Field& field : schema->fields()) {
    if (auto text = MetadataString(field, kGenerationExpressionKey)) {
      expr::ExpressionPtr bound = BindTableExpression(*text, schema);
      if (!bound->deterministic()) {
        SILT_THROW(UNSUPPORTED_FEATURE,
                   {{"message", "non-deterministic generation expression " + *text}});
      }
      std::set<int> used;
      CollectColumns(*bound, used);
      for (int column : used) {
        if (MetadataString(schema->field(static_cast<size_t>(column)), kGenerationExpressionKey)) {
          SILT_THROW(UNSUPPORTED_FEATURE,
                     {{"message",
                       "A generated column cannot use another generated column: " + field.name}});
        }
      }
      if (!expr::CanStoreAssign(bound->type(), field.type)) {
        SILT_THROW(DATATYPE_MISMATCH, {{"sqlExpr", *text},
                                       {"message", "the generation expression of " + field.name +
                                                       " is " + SqlTypeName(*bound->type()) +
                                                       ", not " + SqlTypeName(*field.type)}});
      }
    }
  }
  log::Metadata metadata;
  metadata.configuration = properties;
  for (const auto& [name, text] : CheckConstraints(metadata)) {
    expr::ExpressionPtr bound = BindTableExpression(text, schema);
    if (bound->type()->id() != TypeId::kBoolean) {
      SILT_THROW(DATATYPE_MISMATCH, {{"sqlExpr", text},
                                     {"message", "a CHECK constraint must be BOOLEAN, not " +
                                                     SqlTypeName(*bound->type())}});
    }
  }
}

std::vector<std::pair<std::string, std::string>> CreateParameters(
    const CreateTarget& target, const sql::Statement& statement, const log::StringMap& properties,
    const std::vector<std::string>& clustering_columns) {
  return {{"isManaged", QuotedJson(target.external ? "false" : "true")},
          {"description", statement.comment ? QuotedJson(*statement.comment) : "null"},
          {"partitionBy", QuotedJson(JsonStringArray(statement.partition_columns))},
          {"clusterBy", QuotedJson(JsonStringArray(clustering_columns))},
          {"properties", QuotedJson(JsonStringObject(properties))}};
}

// Delta turns CLUSTER BY into the clustering feature itself and refuses the feature asked for by
// name, which would make a clustered table without clustering columns.
void CheckNoClusteringFeatureProperty(const std::vector<std::pair<std::string, std::string>>& given,
                                      bool altering) {
  for (const auto& [key, value] : given) {
    if (!EqualsIgnoreCase(key, "delta.feature.clustering")) continue;
    if (altering) {
      SILT_THROW(DELTA_ALTER_TABLE_SET_CLUSTERING_TABLE_FEATURE_NOT_ALLOWED,
                 {{"tableFeature", "clustering"}});
    }
    SILT_THROW(DELTA_CREATE_TABLE_SET_CLUSTERING_TABLE_FEATURE_NOT_ALLOWED,
               {{"tableFeature", "clustering"}});
  }
}

// The logical names of clustering columns as Delta lists them (DESCRIBE DETAIL, operation
// parameters): `a`, `s.f`, back-quoted parts where needed.
std::vector<std::string> ClusteringNames(const std::vector<log::ColumnPath>& columns) {
  std::vector<std::string> names;
  for (const log::ColumnPath& column : columns) names.push_back(log::ColumnPathName(column));
  return names;
}

std::string JoinedNames(const std::vector<std::string>& names, std::string_view separator) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : std::string(separator)) + name;
  return out;
}

}  // namespace

StatementResult ExecuteCreateTable(sql::SessionState& session, const sql::Statement& statement) {
  if (statement.source) return ExecuteShallowClone(session, statement);
  if (!statement.provider.empty() && Lower(statement.provider) != "delta") {
    SILT_THROW(UNSUPPORTED_FILE_FORMAT,
               {{"format", statement.provider},
                {"message", "silt creates Delta tables only (USING delta)"}});
  }
  CheckNoClusteringFeatureProperty(statement.properties, /*altering=*/false);
  CreateTarget target = ResolveCreateTarget(session, statement);
  bool replacing = statement.or_replace || statement.replace;
  if (target.exists && !replacing) {
    if (statement.if_not_exists) return {};
    SILT_THROW(TABLE_OR_VIEW_ALREADY_EXISTS, {{"relationName", target.display_name}});
  }
  if (!target.exists && statement.replace && !statement.or_replace) {
    SILT_THROW(TABLE_OR_VIEW_NOT_FOUND, {{"relationName", target.display_name}});
  }
  // The Delta log at a new location, e.g. LOCATION pointing at an existing table.
  bool location_has_log =
      !target.exists && !session.fs()->List(io::JoinPath(target.location, "_delta_log")).empty();
  if (target.database && !target.exists && location_has_log && !target.external) {
    SILT_THROW(TABLE_OR_VIEW_ALREADY_EXISTS, {{"relationName", target.display_name}});
  }

  std::vector<Field> fields;
  std::set<std::string> column_names;
  for (const auto& column : statement.columns) {
    // Spark's analyzer rejects a repeated name (case-insensitively) before Delta sees the schema.
    if (!column_names.insert(Lower(column.name)).second) {
      SILT_THROW(COLUMN_ALREADY_EXISTS, {{"columnName", "`" + Lower(column.name) + "`"}});
    }
    fields.push_back(ColumnField(statement, column));
  }
  // The query's rows are written as they are produced, after every check below.
  std::optional<QuerySource> source;
  if (statement.query) {
    // Spark's parser refuses a column list here, so identity columns (and generated columns
    // and defaults) cannot be declared in CTAS; and the query's columns come without the
    // metadata of the columns they read, so a CTAS or REPLACE TABLE AS SELECT from a table
    // with an identity column makes a plain column, without identity or high water mark, as
    // Delta does.
    SILT_USER_CHECK(statement.columns.empty(), UNSUPPORTED_FEATURE,
                    {{"message",
                      "Schema may not be specified in a Create Table As Select (CTAS) "
                      "statement"}});
    source = OpenQuery(session, *statement.query);
    for (const Field& field : source->schema()->fields()) {
      fields.push_back(Field{field.name, field.type, true, {}});
    }
  }
  log::StringMap properties = TableProperties(session, statement);
  {
    log::Metadata with_properties;
    with_properties.configuration = properties;
    if (log::GetColumnMappingMode(with_properties) != log::ColumnMappingMode::kNone) {
      AssignColumnMapping(fields, properties, /*keep_names=*/false);
    }
  }
  auto schema = std::make_shared<Schema>(fields);
  schema->CheckNoDuplicateNames();
  for (const auto& constraint : statement.constraints) {
    properties.emplace_back("delta.constraints." + Lower(constraint.name),
                            WrittenExpressionText(statement, *constraint.check));
  }
  ValidateTableExpressions(schema, properties);
  bool has_defaults = std::any_of(statement.columns.begin(), statement.columns.end(),
                                  [](const auto& column) { return column.default_value != nullptr; });
  if (has_defaults) {
    log::Metadata with_properties;
    with_properties.configuration = properties;
    CheckColumnDefaultsAllowed(log::RequiredProtocol(with_properties), "CREATE TABLE");
  }
  for (const std::string& column : statement.partition_columns) {
    int index = schema->FieldIndex(column, /*case_sensitive=*/false);
    if (index < 0) {
      SILT_THROW(DELTA_PARTITION_COLUMN_NOT_FOUND,
                 {{"columnName", column}, {"schemaMap", ToDeltaSchemaJson(*schema)}});
    }
    const Field& field = schema->field(static_cast<size_t>(index));
    if (IsIdentityColumn(field)) {
      SILT_THROW(DELTA_IDENTITY_COLUMNS_PARTITION_NOT_SUPPORTED, {{"colName", field.name}});
    }
  }

  if ((target.exists || location_has_log) && !replacing) {
    // Rows cannot be added to a table that CREATE TABLE ... AS SELECT did not create.
    if (statement.query) {
      SILT_THROW(TABLE_OR_VIEW_ALREADY_EXISTS,
                 {{"relationName", "delta.`" + target.location + "`"}});
    }
    // Adopting an existing table: the given schema (if any) must be the table's, and so must
    // the clustering columns when a schema or CLUSTER BY is given.
    auto snapshot = log::Snapshot::Load(session.fs(), target.location);
    if (!fields.empty() && !snapshot->schema().Equals(*schema)) {
      SILT_THROW(DELTA_CREATE_TABLE_SCHEME_MISMATCH, {{"path", target.location}});
    }
    if (!fields.empty() || statement.cluster_columns) {
      std::vector<std::string> existing =
          log::ClusteringColumnNames(snapshot->domain_metadata(), snapshot->schema());
      std::vector<std::string> specified;
      if (statement.cluster_columns) {
        specified = ClusteringNames(
            log::ValidateClusteringColumns(snapshot->metadata(), *statement.cluster_columns));
      }
      if (AsciiLower(JoinedNames(specified, ",")) != AsciiLower(JoinedNames(existing, ","))) {
        SILT_THROW(DELTA_CREATE_TABLE_WITH_DIFFERENT_CLUSTERING,
                   {{"path", target.location},
                    {"specifiedColumns", JoinedNames(specified, ",")},
                    {"existingColumns", JoinedNames(existing, ",")}});
      }
    }
    if (target.database) {
      session.catalog().RegisterExternalTable(*target.database, target.table, target.location);
    }
    return {};
  }

  log::Metadata metadata;
  metadata.description = statement.comment;
  metadata.schema_string = ToDeltaSchemaJson(*schema);
  std::vector<std::string> partition_columns;
  for (const std::string& column : statement.partition_columns) {
    partition_columns.push_back(
        schema->field(static_cast<size_t>(schema->FieldIndex(column, false))).name);
  }
  metadata.partition_columns = partition_columns;
  metadata.configuration = properties;
  std::optional<log::Protocol> old_protocol;
  if (target.exists || location_has_log) {
    old_protocol = log::Snapshot::Load(session.fs(), target.location)->protocol();
  }
  // CLUSTER BY: checked against the schema and its statistics, then the clustering feature (with
  // domainMetadata) in the protocol and the columns in the delta.clustering domain.
  std::optional<std::vector<log::ColumnPath>> clustering;
  if (statement.cluster_columns) {
    clustering = log::ValidateClusteringColumns(metadata, *statement.cluster_columns);
    metadata.configuration.emplace_back("delta.feature.clustering", "supported");
  } else if (old_protocol && log::IsClusteringSupported(*old_protocol) &&
             !metadata.partition_columns.empty()) {
    // A clustered table stays clustered (the feature cannot leave the protocol), and a table
    // cannot be both clustered and partitioned.
    SILT_THROW(DELTA_CLUSTERING_REPLACE_TABLE_WITH_PARTITIONED_TABLE, {});
  }
  std::optional<log::Protocol> feature_protocol = TakeFeatureProperties(metadata, old_protocol);

  std::unique_ptr<log::Transaction> txn;
  std::shared_ptr<const log::Snapshot> old_snapshot;
  if (target.exists || location_has_log) {
    old_snapshot = log::Snapshot::Load(session.fs(), target.location);
    txn = log::Transaction::Start(old_snapshot, EnforcedFeatures());
    // A replaced table keeps its id, as Delta's REPLACE does.
    metadata.id = old_snapshot->metadata().id;
    metadata.created_time = old_snapshot->metadata().created_time;
  } else {
    txn = log::Transaction::StartCreate(session.fs(), target.location, EnforcedFeatures());
  }
  txn->UpdateMetadata(metadata);
  if (feature_protocol) txn->UpdateProtocol(*feature_protocol);
  if (old_snapshot) {
    txn->RecordReadWholeTable();
    for (const auto& file : old_snapshot->files()) txn->RemoveLiveFile(file);
  }
  if (clustering) {
    std::vector<log::ColumnPath> physical;
    for (const log::ColumnPath& column : *clustering) {
      physical.push_back(log::PhysicalColumnPath(*schema, column));
    }
    txn->AddDomainMetadata(log::ClusteringDomain(physical));
  } else if (old_snapshot && log::PhysicalClusteringColumns(old_snapshot->domain_metadata())) {
    // A replaced clustered table without CLUSTER BY clusters by nothing, as Delta's REPLACE does.
    txn->AddDomainMetadata(log::ClusteringDomain({}));
  }

  expr::EvalContext context = session.MakeEvalContext();
  RowAssembler assembler(schema, metadata, target.display_name);
  std::vector<int> identity(schema->num_fields());
  for (size_t i = 0; i < identity.size(); ++i) identity[i] = static_cast<int>(i);
  BatchFileWriter writer(session, target.location, metadata);
  while (std::optional<Batch> batch = source ? source->Next() : std::nullopt) {
    if (batch->num_rows() == 0) continue;
    // The query's columns relabelled with the table's schema (same types in order).
    writer.Write(assembler.Assemble(Batch(schema, batch->columns(), batch->num_rows()), identity,
                                    context));
  }
  source.reset();  // the query's plan and memory, before the commit
  WrittenFiles written = writer.Finish();
  for (auto& add : written.adds) txn->Add(std::move(add));

  std::string operation;
  if (statement.query) {
    operation = replacing ? (statement.or_replace ? "CREATE OR REPLACE TABLE AS SELECT"
                                                  : "REPLACE TABLE AS SELECT")
                          : "CREATE TABLE AS SELECT";
  } else {
    operation = replacing ? (statement.or_replace ? "CREATE OR REPLACE TABLE" : "REPLACE TABLE")
                          : "CREATE TABLE";
  }
  log::StringMap metrics;
  if (statement.query) {
    metrics = {{"numFiles", std::to_string(written.adds.size())},
               {"numOutputRows", std::to_string(written.rows)},
               {"numOutputBytes", std::to_string(written.bytes)}};
  }
  txn->SetOperation(
      operation,
      CreateParameters(target, statement, properties,
                       clustering ? ClusteringNames(*clustering) : std::vector<std::string>{}),
      metrics);
  CommitCreatedTable(session, target, *txn);
  return {};
}

void CommitCreatedTable(sql::SessionState& session, const CreateTarget& target,
                        log::Transaction& txn) {
  // A new external table is registered before its commit and unregistered when the commit
  // fails: of two processes creating one name, the loser fails before its table exists, and a
  // statement whose commit landed never reports a failure afterwards.
  bool registering = target.database && target.external && !target.exists;
  if (registering) {
    session.catalog().RegisterExternalTable(*target.database, target.table, target.location);
  }
  try {
    txn.Commit(CommitOptionsFor(session));
  } catch (...) {
    if (registering) {
      try {
        session.catalog().DropTable(*target.database, target.table, /*if_exists=*/true);
      } catch (const Error&) {
        // The commit's error is the one to report.
      }
    }
    throw;
  }
}

// ---- INSERT ----

namespace {

// The INSERT's query, with the DEFAULT keyword in its VALUES rows replaced by the DEFAULT of the
// column each value goes to (NULL for a column without one). `computed(i)` says whether a
// by-position insert may leave table column i out.
sql::QueryPtr WithDefaultsResolved(const sql::QueryPtr& query,
                                   const std::vector<std::string>& column_names,
                                   const Schema& schema,
                                   const std::function<bool(size_t)>& computed) {
  if (query->kind != sql::QueryKind::kValues || query->values.empty()) return query;
  size_t arity = query->values[0].size();
  std::vector<int> targets(arity, -1);
  if (!column_names.empty()) {
    for (size_t j = 0; j < arity && j < column_names.size(); ++j) {
      targets[j] = schema.FieldIndex(column_names[j], /*case_sensitive=*/false);
    }
  } else if (arity == schema.num_fields()) {
    for (size_t j = 0; j < arity; ++j) targets[j] = static_cast<int>(j);
  } else {
    size_t j = 0;
    for (size_t i = 0; i < schema.num_fields() && j < arity; ++i) {
      if (!computed(i)) targets[j++] = static_cast<int>(i);
    }
  }
  auto resolved = std::make_shared<sql::Query>(*query);
  for (auto& row : resolved->values) {
    for (size_t j = 0; j < row.size(); ++j) {
      if (j < targets.size() && targets[j] >= 0) {
        row[j] = ResolveDefaultKeyword(row[j], schema.field(static_cast<size_t>(targets[j])));
      }
    }
  }
  return resolved;
}

// A column INSERT's PARTITION clause gives a value: `p = v` (Spark's static partition).
struct StaticPartition {
  size_t column;  // in the table schema
  sql::ExpressionPtr value;  // CAST(v AS <the column's type>)
};

// Checks INSERT's PARTITION clause against the table and returns its static partitions, the
// values cast to their columns' types as Spark casts them.
std::vector<StaticPartition> StaticPartitions(const sql::Statement& statement, const Schema& schema,
                                              const log::Metadata& metadata,
                                              const std::string& table_name) {
  std::vector<StaticPartition> statics;
  std::set<std::string> named;
  for (const auto& [column, value] : statement.insert_partitions) {
    int index = schema.FieldIndex(column, /*case_sensitive=*/false);
    bool partition = false;
    for (const std::string& name : metadata.partition_columns) {
      partition = partition || EqualsIgnoreCase(name, column);
    }
    if (index < 0 || !partition) SILT_THROW(NON_PARTITION_COLUMN, {{"columnName", "`" + column + "`"}});
    if (!named.insert(Lower(column)).second) SILT_THROW(DUPLICATE_KEY, {{"keyColumn", "`" + column + "`"}});
    if (!value) continue;
    auto cast = std::make_shared<sql::Expression>();
    cast->kind = sql::ExpressionKind::kCast;
    cast->position = value->position;
    cast->cast_type = schema.field(static_cast<size_t>(index)).type;
    cast->children = {value};
    statics.push_back({static_cast<size_t>(index), std::move(cast)});
  }
  if (statement.if_not_exists) {
    SILT_THROW(UNSUPPORTED_FEATURE,
               {{"message", "INSERT INTO " + table_name + " with IF NOT EXISTS in the PARTITION spec"}});
  }
  return statics;
}

bool IsStaticPartition(const std::vector<StaticPartition>& statics, size_t column) {
  for (const StaticPartition& partition : statics) {
    if (partition.column == column) return true;
  }
  return false;
}

// The table columns a by-position query of `arity` columns writes when the PARTITION clause
// gives some: the others in table order, without the generated ones when the query has
// fewer columns than that.
std::vector<std::string> ColumnsBesideStaticPartitions(const Schema& schema,
                                                      const std::vector<StaticPartition>& statics,
                                                      const std::function<bool(size_t)>& computed,
                                                      size_t arity) {
  std::vector<std::string> all;
  std::vector<std::string> written;
  for (size_t i = 0; i < schema.num_fields(); ++i) {
    if (IsStaticPartition(statics, i)) continue;
    all.push_back(schema.field(i).name);
    if (!computed(i)) written.push_back(schema.field(i).name);
  }
  return arity != all.size() && arity == written.size() ? written : all;
}

// The predicate `p <=> CAST(v AS type) AND ...` that a static-partition INSERT OVERWRITE
// replaces; nullptr without static partitions (the whole table is replaced).
sql::ExpressionPtr StaticPartitionPredicate(const Schema& schema,
                                            const std::vector<StaticPartition>& statics) {
  sql::ExpressionPtr predicate;
  for (const StaticPartition& partition : statics) {
    auto column = std::make_shared<sql::Expression>();
    column->kind = sql::ExpressionKind::kColumn;
    column->name = {schema.field(partition.column).name};
    auto equal = std::make_shared<sql::Expression>();
    equal->kind = sql::ExpressionKind::kBinary;
    equal->op = "<=>";
    equal->children = {std::move(column), partition.value};
    if (!predicate) {
      predicate = std::move(equal);
      continue;
    }
    auto both = std::make_shared<sql::Expression>();
    both->kind = sql::ExpressionKind::kBinary;
    both->op = "AND";
    both->children = {std::move(predicate), std::move(equal)};
    predicate = std::move(both);
  }
  return predicate;
}

// The partition a file belongs to: each partition column's value as canonical text (nullopt for
// NULL), so that values written differently (a timestamp with or without its fraction, by
// another writer) name the same partition.
using PartitionKey = std::vector<std::optional<std::string>>;
PartitionKey FilePartition(const Schema& schema, const log::Metadata& metadata,
                           const log::PartitionValueMap& values) {
  PartitionKey key;
  for (const std::string& column : metadata.partition_columns) {
    const Field& field = schema.field(static_cast<size_t>(schema.FieldIndex(column, false)));
    const std::string physical = log::PhysicalColumnPath(schema, {column}).at(0);
    const std::optional<std::string>* text = nullptr;
    for (const auto& [name, value] : values) {
      if (name == physical) text = &value;
    }
    std::optional<log::Scalar> value =
        text == nullptr ? std::nullopt : log::ParsePartitionValue(*field.type, *text, field.name);
    key.push_back(value ? std::optional(log::FormatPartitionValue(*field.type, *value))
                        : std::nullopt);
  }
  return key;
}

}  // namespace

StatementResult ExecuteInsert(sql::SessionState& session, const sql::Statement& statement) {
  DeltaTarget target = ResolveDeltaTarget(session, statement.name, statement.position, "INSERT");
  auto snapshot = log::Snapshot::Load(session.fs(), target.location);
  auto schema = std::make_shared<Schema>(snapshot->schema());
  // The table's metadata as this INSERT writes it: with the columns schema evolution adds.
  log::Metadata metadata = snapshot->metadata();
  bool schema_evolved = false;
  std::optional<RowAssembler> assembler;
  assembler.emplace(schema, metadata, target.display_name);
  // Generated and identity columns may be left out of a by-position insert.
  auto computed = [&](size_t i) {
    return assembler->IsGenerated(i) || IsIdentityColumn(schema->field(i));
  };

  // PARTITION (p = v): the query writes the other columns, and an overwrite replaces partition
  // p = v only. With spark.sql.sources.partitionOverwriteMode = dynamic, an overwrite of a
  // partitioned table whose clause leaves a partition column to the query replaces only the
  // partitions the query writes rows to (as Spark plans OverwritePartitionsDynamic).
  const std::vector<StaticPartition> statics =
      StaticPartitions(statement, *schema, metadata, target.display_name);
  const std::string overwrite_setting =
      session.GetConf("spark.sql.sources.partitionOverwriteMode").value_or("static");
  const std::string overwrite_mode = Lower(sql::UnquotedConfValue(overwrite_setting));
  if (overwrite_mode != "static" && overwrite_mode != "dynamic") {
    SILT_THROW(INVALID_CONF_VALUE, {{"confValue", overwrite_setting},
                                    {"confName", "spark.sql.sources.partitionOverwriteMode"},
                                    {"message", "Expected one of STATIC, DYNAMIC."}});
  }
  const bool dynamic_overwrite = statement.overwrite && !statement.replace_where &&
                                 overwrite_mode == "dynamic" &&
                                 metadata.partition_columns.size() > statics.size();
  std::vector<std::string> insert_columns = statement.column_names;
  for (const std::string& name : insert_columns) {
    int index = schema->FieldIndex(name, /*case_sensitive=*/false);
    if (index >= 0 && IsStaticPartition(statics, static_cast<size_t>(index))) {
      SILT_THROW(STATIC_PARTITION_COLUMN_IN_INSERT_COLUMN_LIST, {{"staticName", "`" + name + "`"}});
    }
  }
  const sql::QueryPtr& query = statement.query;
  if (!statics.empty() && insert_columns.empty() && !statement.by_name &&
      query->kind == sql::QueryKind::kValues && !query->values.empty()) {
    insert_columns =
        ColumnsBesideStaticPartitions(*schema, statics, computed, query->values[0].size());
  }

  // The query's rows are written as they are produced, after the checks below.
  QuerySource source =
      OpenQuery(session, *WithDefaultsResolved(query, insert_columns, *schema, computed));
  size_t source_columns = source.schema()->num_fields();
  if (statement.by_name) {
    for (const Field& column : source.schema()->fields()) {
      int index = schema->FieldIndex(column.name, /*case_sensitive=*/false);
      if (index >= 0 && IsStaticPartition(statics, static_cast<size_t>(index))) {
        SILT_THROW(STATIC_PARTITION_COLUMN_IN_INSERT_COLUMN_LIST,
                   {{"staticName", "`" + column.name + "`"}});
      }
      insert_columns.push_back(column.name);
    }
  } else if (!statics.empty() && insert_columns.empty()) {
    insert_columns = ColumnsBesideStaticPartitions(*schema, statics, computed, source_columns);
  }
  expr::EvalContext context = session.MakeEvalContext();
  std::vector<expr::ExpressionPtr> static_values;
  for (const StaticPartition& partition : statics) {
    sql::SchemaScope scope(std::make_shared<Schema>());
    sql::ExpressionBinder binder(scope);
    static_values.push_back(binder.Bind(*partition.value));
  }

  // A by-position query with columns past the table's: Delta keeps them by their names and, with
  // schema evolution (INSERT WITH SCHEMA EVOLUTION or
  // spark.databricks.delta.schema.autoMerge.enabled), they join the table after its columns;
  // without it the write's schema does not match the table's.
  const bool evolve = statement.schema_evolution ||
                      session.GetBoolConf("spark.databricks.delta.schema.autoMerge.enabled", false);
  // The query's columns the table lacks: past the table's (by position) or of other names (BY
  // NAME).
  std::vector<size_t> new_columns;
  if (statement.by_name) {
    for (size_t i = 0; i < source_columns; ++i) {
      if (schema->FieldIndex(source.schema()->field(i).name, /*case_sensitive=*/false) < 0) {
        new_columns.push_back(i);
      }
    }
  } else if (insert_columns.empty()) {
    for (size_t i = schema->num_fields(); i < source_columns; ++i) new_columns.push_back(i);
  }
  if (!new_columns.empty()) {
    if (!evolve) {
      SILT_THROW(DELTA_METADATA_MISMATCH,
                 {{"details", "The query writes columns the table does not have; enable schema "
                              "evolution (INSERT WITH SCHEMA EVOLUTION, or "
                              "spark.databricks.delta.schema.autoMerge.enabled = true) to add them. "
                              "Table schema: " + schema->AsStruct()->ToString() +
                              " Data schema: " + source.schema()->AsStruct()->ToString()}});
    }
    if (statement.replace_where) {
      SILT_THROW(NOT_IMPLEMENTED, {{"feature", "Schema evolution in INSERT ... REPLACE WHERE"}});
    }
    std::vector<Field> added;
    for (size_t i : new_columns) {
      const Field& column = source.schema()->field(i);
      bool taken = schema->FieldIndex(column.name, /*case_sensitive=*/false) >= 0;
      for (const Field& other : added) taken = taken || EqualsIgnoreCase(other.name, column.name);
      if (taken) {
        SILT_THROW(DELTA_DUPLICATE_COLUMNS_FOUND,
                   {{"coltype", "data"}, {"duplicateCols", "`" + column.name + "`"}});
      }
      if (column.type->id() == TypeId::kNull) {
        SILT_THROW(
            UNSUPPORTED_FEATURE,
            {{"message", "Adding the column " + column.name +
                             " of type VOID by schema evolution; cast its values to a type"}});
      }
      added.push_back(Field{column.name, column.type, true, {}});
    }
    if (log::GetColumnMappingMode(metadata) != log::ColumnMappingMode::kNone) {
      AssignColumnMapping(added, metadata.configuration, /*keep_names=*/false);
    }
    std::vector<Field> fields = schema->fields();
    fields.insert(fields.end(), added.begin(), added.end());
    schema = std::make_shared<Schema>(std::move(fields));
    metadata.schema_string = ToDeltaSchemaJson(*schema);
    assembler.emplace(schema, metadata, target.display_name);
    schema_evolved = true;
  }

  auto column_list = [](const Schema& s) {
    std::string text;
    for (const Field& field : s.fields()) text += (text.empty() ? "`" : ", `") + field.name + "`";
    return text;
  };
  std::vector<int> mapping(schema->num_fields(), -1);
  if (!insert_columns.empty()) {
    std::set<int> seen;
    for (size_t i = 0; i < insert_columns.size(); ++i) {
      int index = schema->FieldIndex(insert_columns[i], /*case_sensitive=*/false);
      if (index < 0) {
        std::string proposal;
        for (const Field& field : schema->fields())
          proposal += (proposal.empty() ? "`" : ", `") + field.name + "`";
        SILT_THROW(UNRESOLVED_COLUMN,
                   {{"objectName", "`" + insert_columns[i] + "`"}, {"proposal", proposal}});
      }
      if (!seen.insert(index).second) {
        SILT_THROW(COLUMN_ALREADY_EXISTS,
                   {{"columnName", "`" + Lower(insert_columns[i]) + "`"}});
      }
      mapping[static_cast<size_t>(index)] = static_cast<int>(i);
    }
    if (insert_columns.size() != source_columns) {
      SILT_THROW(
          INSERT_COLUMN_ARITY_MISMATCH,
          {{"tableName", target.display_name},
           {"reason", source_columns > insert_columns.size() ? "too many data columns"
                                                                     : "not enough data columns"},
           {"tableColumns",
            [&] {
              std::string text;
              for (const auto& name : insert_columns)
                text += (text.empty() ? "`" : ", `") + name + "`";
              return text;
            }()},
           {"dataColumns", column_list(*source.schema())}});
    }
  } else {
    size_t non_generated = 0;
    for (size_t i = 0; i < schema->num_fields(); ++i) non_generated += !computed(i);
    if (source_columns == schema->num_fields()) {
      for (size_t i = 0; i < mapping.size(); ++i) mapping[i] = static_cast<int>(i);
    } else if (source_columns == non_generated && non_generated < schema->num_fields()) {
      int next = 0;
      for (size_t i = 0; i < mapping.size(); ++i) {
        if (!computed(i)) mapping[i] = next++;
      }
    } else {
      SILT_THROW(INSERT_COLUMN_ARITY_MISMATCH,
                 {{"tableName", target.display_name},
                  {"reason", source_columns > schema->num_fields() ? "too many data columns"
                                                                   : "not enough data columns"},
                  {"tableColumns", column_list(*schema)},
                  {"dataColumns", column_list(*source.schema())}});
    }
  }

  // The static partition values follow the query's columns in each batch.
  for (size_t j = 0; j < statics.size(); ++j) {
    mapping[statics[j].column] = static_cast<int>(source_columns + j);
  }
  for (size_t i = 0; i < mapping.size(); ++i) {
    if (mapping[i] >= 0) CheckExplicitIdentityInsert(schema->field(i));
  }

  std::optional<std::string> replace_where_text;
  expr::ExpressionPtr replace_where;
  sql::ExpressionPtr replace_where_sql = statement.replace_where;
  if (statement.overwrite && !dynamic_overwrite && !statics.empty()) {
    replace_where_sql = StaticPartitionPredicate(*schema, statics);
  }
  if (replace_where_sql) {
    replace_where_text = sql::ExpressionSql(*replace_where_sql);
    sql::SchemaScope scope(schema);
    sql::ExpressionBinder binder(scope);
    replace_where = binder.BindPredicate(*replace_where_sql, "REPLACE WHERE");
  }

  IdentityValueGenerator identity(*schema);
  BatchFileWriter writer(session, target.location, metadata);
  while (std::optional<Batch> batch = source.Next()) {
    if (batch->num_rows() == 0) continue;
    if (!static_values.empty()) {
      std::vector<Field> fields = batch->schema()->fields();
      std::vector<VectorPtr> columns = batch->columns();
      for (size_t j = 0; j < static_values.size(); ++j) {
        columns.push_back(expr::Evaluate(*static_values[j], *batch, context));
        context.ThrowIfError();
        fields.push_back(Field{"partition " + std::to_string(j), columns.back()->type(), true, {}});
      }
      batch = Batch(std::make_shared<Schema>(std::move(fields)), std::move(columns),
                    batch->num_rows());
    }
    std::vector<int> batch_mapping = mapping;
    Batch completed = identity.WithGeneratedColumns(
        WithDefaultColumns(schema, *batch, batch_mapping, context), batch_mapping);
    Batch row_batch = assembler->Assemble(completed, batch_mapping, context);
    if (replace_where) {
      std::vector<uint8_t> matches = expr::EvaluateFilter(*replace_where, row_batch, context);
      context.ThrowIfError();
      if (std::find(matches.begin(), matches.end(), 0) != matches.end()) {
        SILT_THROW(DELTA_REPLACE_WHERE_MISMATCH, {{"replaceWhere", *replace_where_text}});
      }
    }
    writer.Write(row_batch);
  }
  source = QuerySource();  // the query's plan and memory, before the commit
  WrittenFiles written = writer.Finish();

  // INSERT INTO t REPLACE WHERE is an overwrite of the rows matching the predicate.
  bool overwrite = statement.overwrite || replace_where != nullptr;
  // A dynamic partition overwrite replaces the partitions it wrote files to.
  std::set<PartitionKey> written_partitions;
  if (dynamic_overwrite) {
    for (const log::AddFile& add : written.adds) {
      written_partitions.insert(FilePartition(*schema, metadata, add.partition_values));
    }
  }
  // A predicate on partition columns only decides for whole files from their partition values.
  dml::DmlTable partition_table;
  partition_table.target = target;
  partition_table.snapshot = snapshot;
  partition_table.schema = schema;
  const bool partition_only =
      replace_where != nullptr && dml::IsPartitionOnlyPredicate(partition_table, replace_where);
  auto txn = log::Transaction::Start(snapshot, EnforcedFeatures());
  // Generated identity values move their high water marks in this commit's metadata, so a
  // concurrent writer that generated from the same marks conflicts.
  log::Metadata updated_metadata = metadata;
  if (identity.UpdateHighWaterMarks(updated_metadata) || schema_evolved) {
    txn->UpdateMetadata(updated_metadata);
  }
  int64_t removed_files = 0;
  int64_t removed_bytes = 0;
  int64_t deleted_rows = 0;
  std::vector<Batch> kept_rows;
  std::vector<Field> copied_row_tracking;  // the materialized row tracking columns, if any
  if (overwrite) {
    txn->RecordReadWholeTable();
    // Under row tracking the rows REPLACE WHERE copies keep their ids and commit versions,
    // written to the materialized columns.
    const std::string* row_id_column =
        log::FindValue(metadata.configuration, log::kMaterializedRowIdColumnKey);
    const std::string* commit_version_column =
        log::FindValue(metadata.configuration, log::kMaterializedRowCommitVersionColumnKey);
    if (log::IsRowTrackingEnabled(snapshot->protocol(), metadata) && row_id_column != nullptr &&
        commit_version_column != nullptr) {
      copied_row_tracking = {Field{*row_id_column, LongType(), true, {}},
                             Field{*commit_version_column, LongType(), true, {}}};
    }
    std::vector<Field> copied_fields = schema->fields();
    copied_fields.insert(copied_fields.end(), copied_row_tracking.begin(), copied_row_tracking.end());
    auto copied_schema = std::make_shared<const Schema>(std::move(copied_fields));
    std::unique_ptr<log::TableScan> scan;
    if (replace_where) {
      log::ScanOptions scan_options;
      scan_options.file_metadata = !copied_row_tracking.empty();
      scan = log::TableScan::Make(snapshot, scan_options);
    }
    for (const auto& file : snapshot->files()) {
      txn->RecordReadFile(file);
      if (dynamic_overwrite &&
          !written_partitions.contains(FilePartition(*schema, metadata, file.partition_values))) {
        continue;
      }
      std::optional<bool> whole;
      if (partition_only) {
        whole = dml::EvaluateOnPartitionValues(partition_table, replace_where, file, context);
      }
      if (whole.has_value()) {
        if (!*whole) continue;
        deleted_rows += dml::LiveRowCount(partition_table, *session.fs(), file);
      } else if (replace_where) {
        // Rows outside the predicate survive: files without matching rows stay as they are,
        // the others are rewritten without the matching rows.
        std::vector<Batch> file_rows = scan->ReadFile(file);
        bool any_match = false;
        std::vector<Batch> survivors;
        for (const Batch& batch : file_rows) {
          std::vector<VectorPtr> table_columns(
              batch.columns().begin(), batch.columns().begin() + static_cast<long>(schema->num_fields()));
          Batch relabeled(schema, std::move(table_columns), batch.num_rows());
          std::vector<uint8_t> matches = expr::EvaluateFilter(*replace_where, relabeled, context);
          context.ThrowIfError();
          std::vector<uint8_t> keep(matches.size());
          for (size_t i = 0; i < matches.size(); ++i) {
            keep[i] = matches[i] == 0;
            if (matches[i]) {
              any_match = true;
              ++deleted_rows;
            }
          }
          Batch kept = SelectRows(relabeled, keep);
          if (!copied_row_tracking.empty() && kept.num_rows() > 0) {
            // `_metadata` ends with row_id and row_commit_version.
            const VectorPtr& file_metadata = batch.columns().back();
            size_t fields = file_metadata->type()->fields().size();
            std::vector<VectorPtr> columns = kept.columns();
            for (size_t field : {fields - 2, fields - 1}) {
              auto single = std::make_shared<const Schema>(
                  std::vector<Field>{Field{"v", LongType(), true, {}}});
              columns.push_back(SelectRows(Batch(single, {file_metadata->child(field)}, batch.num_rows()),
                                           keep)
                                    .column(0));
            }
            kept = Batch(copied_schema, std::move(columns), kept.num_rows());
          }
          if (kept.num_rows() > 0) survivors.push_back(std::move(kept));
        }
        if (!any_match) continue;
        if (!survivors.empty() && (log::IsFeatureActive("changeDataFeed", metadata))) {
          // Rows copied into new files would read as deleted and re-inserted without
          // change-data files, which this statement does not write yet.
          SILT_THROW(
              NOT_IMPLEMENTED,
              {{"feature", "REPLACE WHERE rewriting files of a table with the change data feed"}});
        }
        for (auto& batch : survivors) kept_rows.push_back(std::move(batch));
      }
      txn->RemoveLiveFile(file);
      removed_bytes += file.size;
      ++removed_files;
    }
  }
  WrittenFiles rewritten =
      WriteFiles(session, target.location, metadata, kept_rows, copied_row_tracking);
  for (auto& add : written.adds) txn->Add(std::move(add));
  for (auto& add : rewritten.adds) txn->Add(std::move(add));

  std::vector<std::pair<std::string, std::string>> parameters = {
      {"mode", QuotedJson(overwrite ? "Overwrite" : "Append")},
      {"partitionBy", QuotedJson(JsonStringArray(metadata.partition_columns))}};
  if (replace_where_text) {
    parameters.emplace_back("predicate", QuotedJson(JsonStringArray({*replace_where_text})));
  }
  log::StringMap metrics = {
      {"numFiles", std::to_string(written.adds.size() + rewritten.adds.size())},
      {"numOutputRows", std::to_string(written.rows + rewritten.rows)},
      {"numOutputBytes", std::to_string(written.bytes + rewritten.bytes)}};
  if (overwrite) {
    metrics.emplace_back("numRemovedFiles", std::to_string(removed_files));
    metrics.emplace_back("numRemovedBytes", std::to_string(removed_bytes));
  }
  if (replace_where_text) {
    metrics.emplace_back("numCopiedRows", std::to_string(rewritten.rows));
    metrics.emplace_back("numDeletedRows", std::to_string(deleted_rows));
    metrics.emplace_back("numAddedChangeFiles", "0");
  }
  txn->SetOperation("WRITE", std::move(parameters), std::move(metrics));
  txn->Commit(CommitOptionsFor(session));
  return {};
}

// ---- ALTER TABLE ----

// A field's JSON as a schema holds it: the one element of a one-field struct's "fields".
std::string FieldJson(const Field& field) {
  std::string struct_json = ToDeltaSchemaJson(Schema({field}));
  size_t start = struct_json.find('[');
  size_t end = struct_json.rfind(']');
  SILT_CHECK(start != std::string::npos && end > start, "unexpected schema JSON");
  return struct_json.substr(start + 1, end - start - 1);
}

StatementResult ExecuteAlterTable(sql::SessionState& session, const sql::Statement& statement) {
  DeltaTarget target =
      ResolveDeltaTarget(session, statement.name, statement.position, "ALTER TABLE");
  if (statement.alter_action == sql::AlterTableAction::kDropFeature) {
    // Dropping a reader-writer feature takes several commits of its own.
    DropFeatureOptions options;
    options.commit = CommitOptionsFor(session);
    options.enforced_features = EnforcedFeatures();
    DropTableFeature(session.fs(), target.location, statement.feature_name,
                     statement.truncate_history, options);
    return {};
  }
  auto snapshot = log::Snapshot::Load(session.fs(), target.location);
  log::Metadata metadata = snapshot->metadata();
  auto txn = log::Transaction::Start(snapshot, EnforcedFeatures());
  std::string operation;
  std::vector<std::pair<std::string, std::string>> parameters;
  auto schema = std::make_shared<Schema>(snapshot->schema());
  if (statement.alter_action == sql::AlterTableAction::kAlterColumn &&
      statement.alter_column_change == "TYPE" && statement.column_path.size() == 1) {
    int index = schema->FieldIndex(statement.column_path[0], /*case_sensitive=*/false);
    if (index >= 0 && IsIdentityColumn(schema->field(static_cast<size_t>(index)))) {
      SILT_THROW(DELTA_IDENTITY_COLUMNS_ALTER_COLUMN_NOT_SUPPORTED, {});
    }
  }

  switch (statement.alter_action) {
    case sql::AlterTableAction::kSetProperties: {
      CheckNoClusteringFeatureProperty(statement.properties, /*altering=*/true);
      log::StringMap set;
      for (const auto& [given_key, given_value] : statement.properties) {
        if (given_key == "clusteringColumns") {
          // Clustering columns live in the delta.clustering domain; ALTER TABLE CLUSTER BY
          // changes them.
          SILT_THROW(DELTA_CANNOT_MODIFY_TABLE_PROPERTY, {{"prop", given_key}});
        }
        if (Lower(given_key).rfind("delta.constraints.", 0) == 0) {
          SILT_THROW(UNSUPPORTED_FEATURE,
                     {{"message",
                       "Setting delta.constraints.* directly; use ALTER TABLE ADD CONSTRAINT"}});
        }
        auto [key, value] = log::ValidateTableProperty(given_key, given_value);
        if (key == "delta.columnMapping.mode") {
          log::Metadata requested;
          requested.configuration = {{key, value}};
          log::ColumnMappingMode from = log::GetColumnMappingMode(metadata);
          log::ColumnMappingMode to = log::GetColumnMappingMode(requested);
          if (from == log::ColumnMappingMode::kNone && to != log::ColumnMappingMode::kNone) {
            // Turning mapping on keeps every column's name as its physical name.
            std::vector<Field> fields = schema->fields();
            AssignColumnMapping(fields, metadata.configuration, /*keep_names=*/true);
            schema = std::make_shared<Schema>(fields);
            metadata.schema_string = ToDeltaSchemaJson(*schema);
          } else if (from != to) {
            SILT_THROW(NOT_IMPLEMENTED, {{"feature", "Changing the column mapping mode from " +
                                                         Lower(*log::FindValue(snapshot->metadata().configuration,
                                                                               "delta.columnMapping.mode")) +
                                                         " to " + Lower(value)}});
          }
        }
        bool replaced = false;
        for (auto& [existing_key, existing_value] : metadata.configuration) {
          if (existing_key == key) {
            existing_value = value;
            replaced = true;
          }
        }
        if (!replaced) metadata.configuration.emplace_back(key, value);
        set.emplace_back(key, value);
      }
      std::optional<log::Protocol> protocol = TakeFeatureProperties(metadata, snapshot->protocol());
      if (auto upgraded = TakeProtocolVersionProperties(metadata, protocol.value_or(snapshot->protocol()))) {
        protocol = upgraded;
      }
      if (protocol && *protocol != snapshot->protocol()) txn->UpdateProtocol(*protocol);
      // Enabling row tracking: every live file must have row ids and a commit version in the
      // version that turns it on, so files without them are recommitted (without data change)
      // and get fresh ones in this commit.
      const std::string* row_tracking = log::FindValue(metadata.configuration, "delta.enableRowTracking");
      if (row_tracking != nullptr && Lower(*row_tracking) == "true" &&
          !log::IsRowTrackingEnabled(snapshot->protocol(), snapshot->metadata())) {
        txn->RecordReadWholeTable();
        for (const log::AddFile& file : snapshot->files()) {
          if (file.base_row_id && file.default_row_commit_version) continue;
          log::AddFile backfilled = file;
          backfilled.data_change = false;
          txn->Add(std::move(backfilled));
        }
      }
      operation = "SET TBLPROPERTIES";
      parameters = {{"properties", QuotedJson(JsonStringObject(set))}};
      break;
    }
    case sql::AlterTableAction::kUnsetProperties: {
      for (const std::string& key : statement.property_keys) {
        auto it = std::find_if(metadata.configuration.begin(), metadata.configuration.end(),
                               [&](const auto& entry) { return entry.first == key; });
        if (it == metadata.configuration.end()) {
          if (statement.if_exists) continue;
          SILT_THROW(DELTA_UNSET_NON_EXISTENT_PROPERTY,
                     {{"property", key}, {"tableName", target.display_name}});
        }
        metadata.configuration.erase(it);
      }
      operation = "UNSET TBLPROPERTIES";
      parameters = {{"properties", QuotedJson(JsonStringArray(statement.property_keys))},
                    {"ifExists", QuotedJson(statement.if_exists ? "true" : "false")}};
      break;
    }
    case sql::AlterTableAction::kAddColumns: {
      std::vector<Field> fields = schema->fields();
      std::vector<Field> nested_added;  // named by their paths, as commitInfo records them
      std::vector<std::string> top_added;  // the names of the top-level columns added, in order
      for (const auto& column : statement.columns) {
        if (!column.parent_path.empty()) {
          // A field joins the struct at `parent_path`, at its end.
          if (column.generated_as || column.identity || column.default_value || !column.nullable) {
            SILT_THROW(
                UNSUPPORTED_FEATURE,
                {{"message", "Adding a nested field " + column.name +
                                 " that is NOT NULL, generated, an identity or has a DEFAULT"}});
          }
          Field field = ColumnField(statement, column);
          fields = EditNestedField(
              fields, column.parent_path, 0, [&](std::vector<Field>& siblings, size_t at) {
                Field& parent = siblings[at];
                if (parent.type->id() != TypeId::kStruct) {
                  SILT_THROW(FIELD_NOT_FOUND, {{"fieldName", "`" + column.name + "`"},
                                               {"fields", "`" + parent.name + "` of type " +
                                                              parent.type->ToString()}});
                }
                std::vector<Field> members = parent.type->fields();
                for (const Field& member : members) {
                  if (EqualsIgnoreCase(member.name, column.name)) {
                    SILT_THROW(COLUMN_ALREADY_EXISTS,
                               {{"columnName", "`" + Lower(column.name) + "`"}});
                  }
                }
                InsertAtPosition(members, field, column.position);
                parent.type = StructType(std::move(members));
              });
          sql::QualifiedName path = column.parent_path;
          path.push_back(column.name);
          field.name = DottedPath(path);
          nested_added.push_back(std::move(field));
          continue;
        }
        if (schema->FieldIndex(column.name, false) >= 0) {
          SILT_THROW(COLUMN_ALREADY_EXISTS, {{"columnName", "`" + Lower(column.name) + "`"}});
        }
        if (!column.nullable) {
          SILT_THROW(UNSUPPORTED_FEATURE, {{"message", "Adding a NOT NULL column " + column.name +
                                                           " to an existing table"}});
        }
        if (column.generated_as) {
          SILT_THROW(UNSUPPORTED_FEATURE, {{"message", "Adding a generated column " + column.name +
                                                           " to an existing table"}});
        }
        if (column.identity) {
          SILT_THROW(UNSUPPORTED_FEATURE, {{"message", "Adding an IDENTITY column " + column.name +
                                                           " to an existing table"}});
        }
        if (column.default_value) {
          SILT_THROW(WRONG_COLUMN_DEFAULTS_FOR_DELTA_ALTER_TABLE_ADD_COLUMN_NOT_SUPPORTED,
                     {{"commandType", "ALTER TABLE ADD COLUMNS"}});
        }
        InsertAtPosition(fields, ColumnField(statement, column), column.position);
        top_added.push_back(column.name);
      }
      // Under column mapping new columns get ids and physical names of their own.
      if (log::GetColumnMappingMode(metadata) != log::ColumnMappingMode::kNone) {
        AssignColumnMapping(fields, metadata.configuration, /*keep_names=*/false);
      }
      Schema updated(fields);
      updated.CheckNoDuplicateNames();
      metadata.schema_string = ToDeltaSchemaJson(updated);
      // Delta records each added column as {"column": <struct field JSON>}.
      JsonWriter added;
      added.BeginArray();
      // Each added column with its position, when one was given ("FIRST", "AFTER x").
      auto log_column = [&](const Field& logged, const sql::ColumnDefinition& column) {
        // The field's JSON is the one element of a one-field struct's "fields" array.
        std::string struct_json = ToDeltaSchemaJson(Schema({logged}));
        size_t start = struct_json.find('[');
        size_t end = struct_json.rfind(']');
        SILT_CHECK(start != std::string::npos && end > start, "unexpected schema JSON");
        added.BeginObject();
        added.Key("column");
        added.Raw(struct_json.substr(start + 1, end - start - 1));
        if (column.position) {
          added.Key("position");
          added.String(column.position->empty() ? "FIRST" : "AFTER " + *column.position);
        }
        added.EndObject();
      };
      std::vector<const sql::ColumnDefinition*> top_columns;
      std::vector<const sql::ColumnDefinition*> nested_columns;
      for (const auto& column : statement.columns) {
        (column.parent_path.empty() ? top_columns : nested_columns).push_back(&column);
      }
      for (size_t i = 0; i < top_added.size(); ++i) {
        for (const Field& field : fields) {
          if (field.name == top_added[i]) log_column(field, *top_columns[i]);
        }
      }
      for (size_t i = 0; i < nested_added.size(); ++i) log_column(nested_added[i], *nested_columns[i]);
      added.EndArray();
      operation = "ADD COLUMNS";
      parameters = {{"columns", QuotedJson(added.str())}};
      break;
    }
    case sql::AlterTableAction::kAddConstraint: {
      SILT_CHECK(!statement.constraints.empty(), "ADD CONSTRAINT without a constraint");
      const sql::CheckConstraint& constraint = statement.constraints[0];
      std::string key = "delta.constraints." + Lower(constraint.name);
      if (const std::string* old = log::FindValue(metadata.configuration, key)) {
        SILT_THROW(DELTA_CONSTRAINT_ALREADY_EXISTS,
                   {{"constraintName", Lower(constraint.name)}, {"oldConstraint", *old}});
      }
      std::string text = WrittenExpressionText(statement, *constraint.check);
      metadata.configuration.emplace_back(key, text);
      ValidateTableExpressions(schema, metadata.configuration);
      // Existing rows must satisfy the new constraint.
      expr::ExpressionPtr bound = BindTableExpression(text, schema);
      expr::EvalContext context = session.MakeEvalContext();
      int64_t violations = 0;
      auto scan = log::TableScan::Make(snapshot);
      txn->RecordReadWholeTable();
      for (const auto& file : snapshot->files()) {
        txn->RecordReadFile(file);
        for (const Batch& batch : scan->ReadFile(file)) {
          Batch relabeled(schema, batch.columns(), batch.num_rows());
          VectorPtr result = expr::Evaluate(*bound, relabeled, context);
          context.ThrowIfError();
          for (int64_t row = 0; row < relabeled.num_rows(); ++row) {
            if (result->IsNull(row) || !result->GetBool(row)) ++violations;
          }
        }
      }
      if (violations > 0) {
        SILT_THROW(DELTA_NEW_CHECK_CONSTRAINT_VIOLATION, {{"numRows", std::to_string(violations)},
                                                          {"tableName", target.display_name},
                                                          {"checkConstraint", text}});
      }
      operation = "ADD CONSTRAINT";
      parameters = {{"name", QuotedJson(Lower(constraint.name))}, {"expr", QuotedJson(text)}};
      break;
    }
    case sql::AlterTableAction::kDropConstraint: {
      std::string name = Lower(statement.constraint_name);
      std::string key = "delta.constraints." + name;
      const std::string* old = log::FindValue(snapshot->metadata().configuration, key);
      auto it = std::find_if(metadata.configuration.begin(), metadata.configuration.end(),
                             [&](const auto& entry) { return entry.first == key; });
      if (it == metadata.configuration.end()) {
        if (!statement.if_exists) {
          SILT_THROW(
              DELTA_CONSTRAINT_DOES_NOT_EXIST,
              {{"constraintName", name},
               {"tableName", target.display_name},
               {"config", "spark.databricks.delta.constraints.allowUnenforcedNotNull.enabled"},
               {"confValue", "true"}});
        }
      } else {
        metadata.configuration.erase(it);
      }
      operation = "DROP CONSTRAINT";
      parameters = {{"constraint", QuotedJson(name)}, {"expr", old ? QuotedJson(*old) : "null"}};
      break;
    }
    case sql::AlterTableAction::kRenameColumn: {
      // Under column mapping a rename changes only the logical name: files keep the physical one.
      if (log::GetColumnMappingMode(metadata) == log::ColumnMappingMode::kNone) {
        SILT_THROW(DELTA_UNSUPPORTED_RENAME_COLUMN, {{"advice", std::string(kColumnMappingAdvice)}});
      }
      if (statement.column_path.size() > 1) {
        // A nested field: only its logical name changes, in the struct that holds it.
        CheckNoDependents(schema, metadata, TopLevelColumn(*schema, {statement.column_path[0]}));
        std::vector<Field> fields = EditNestedField(
            schema->fields(), statement.column_path, 0,
            [&](std::vector<Field>& siblings, size_t at) {
              for (size_t i = 0; i < siblings.size(); ++i) {
                if (i != at && EqualsIgnoreCase(siblings[i].name, statement.new_name)) {
                  SILT_THROW(COLUMN_ALREADY_EXISTS,
                             {{"columnName", "`" + Lower(statement.new_name) + "`"}});
                }
              }
              siblings[at].name = statement.new_name;
            });
        sql::QualifiedName new_path = statement.column_path;
        new_path.back() = statement.new_name;
        metadata.schema_string = ToDeltaSchemaJson(Schema(fields));
        operation = "RENAME COLUMN";
        parameters = {{"oldColumnPath", QuotedJson(DottedPath(statement.column_path))},
                      {"newColumnPath", QuotedJson(DottedPath(new_path))}};
        break;
      }
      size_t index = TopLevelColumn(*schema, statement.column_path);
      std::string old_name = schema->field(index).name;
      int existing = schema->FieldIndex(statement.new_name, /*case_sensitive=*/false);
      if (existing >= 0 && static_cast<size_t>(existing) != index) {
        SILT_THROW(COLUMN_ALREADY_EXISTS, {{"columnName", "`" + Lower(statement.new_name) + "`"}});
      }
      CheckNoDependents(schema, metadata, index);
      std::vector<Field> fields = schema->fields();
      fields[index].name = statement.new_name;
      for (std::string& column : metadata.partition_columns) {
        if (column == old_name) column = statement.new_name;
      }
      metadata.schema_string = ToDeltaSchemaJson(Schema(fields));
      operation = "RENAME COLUMN";
      parameters = {{"oldColumnPath", QuotedJson(old_name)},
                    {"newColumnPath", QuotedJson(statement.new_name)}};
      break;
    }
    case sql::AlterTableAction::kDropColumns: {
      if (log::GetColumnMappingMode(metadata) == log::ColumnMappingMode::kNone) {
        SILT_THROW(DELTA_UNSUPPORTED_DROP_COLUMN, {{"advice", std::string(kColumnMappingAdvice)}});
      }
      std::vector<bool> dropped(schema->num_fields(), false);
      std::vector<std::string> names;
      std::vector<std::string> partitions;
      // Nested fields leave the struct that holds them; only the schema changes.
      std::vector<Field> nested_dropped = schema->fields();
      for (const sql::QualifiedName& path : statement.column_paths) {
        if (path.size() < 2) continue;
        CheckNoDependents(schema, metadata, TopLevelColumn(*schema, {path[0]}));
        nested_dropped =
            EditNestedField(nested_dropped, path, 0, [&](std::vector<Field>& siblings, size_t at) {
              if (siblings.size() == 1) {
                SILT_THROW(UNSUPPORTED_FEATURE,
                           {{"message",
                             "Dropping " + DottedPath(path) + ", the only field of its struct"}});
              }
              siblings.erase(siblings.begin() + static_cast<long>(at));
            });
        names.push_back(DottedPath(path));
      }
      auto nested_schema = std::make_shared<Schema>(nested_dropped);
      for (const sql::QualifiedName& path : statement.column_paths) {
        if (path.size() > 1) continue;
        int index = schema->FieldIndex(path.back(), /*case_sensitive=*/false);
        if (index < 0 && statement.if_exists && path.size() == 1) continue;
        size_t column = TopLevelColumn(*schema, path);
        const std::string& name = schema->field(column).name;
        if (std::find(metadata.partition_columns.begin(), metadata.partition_columns.end(),
                      name) != metadata.partition_columns.end()) {
          partitions.push_back(name);
        }
        CheckNoDependents(schema, metadata, column);
        dropped[column] = true;
        names.push_back(name);
      }
      if (!partitions.empty()) {
        std::string list;
        for (const auto& name : partitions) list += (list.empty() ? "" : ", ") + name;
        SILT_THROW(DELTA_UNSUPPORTED_DROP_PARTITION_COLUMN, {{"columnList", list}});
      }
      std::vector<std::string> clustering_dropped;
      if (auto physical = log::PhysicalClusteringColumns(snapshot->domain_metadata())) {
        for (const log::ColumnPath& column : log::LogicalClusteringColumns(*physical, *schema)) {
          if (std::find(names.begin(), names.end(), column[0]) != names.end()) {
            clustering_dropped.push_back(log::ColumnPathName(column));
          }
        }
      }
      if (!clustering_dropped.empty()) {
        SILT_THROW(DELTA_UNSUPPORTED_DROP_CLUSTERING_COLUMN,
                   {{"columnList", JoinedNames(clustering_dropped, ",")}});
      }
      std::vector<Field> fields;
      for (size_t i = 0; i < nested_schema->num_fields(); ++i) {
        if (!dropped[i]) fields.push_back(nested_schema->field(i));
      }
      if (fields.empty()) {
        SILT_THROW(UNSUPPORTED_FEATURE, {{"message", "Dropping every column of a table"}});
      }
      metadata.schema_string = ToDeltaSchemaJson(Schema(fields));
      operation = "DROP COLUMNS";
      parameters = {{"columns", QuotedJson(JsonStringArray(names))}};
      break;
    }
    case sql::AlterTableAction::kClusterBy: {
      const std::vector<log::ColumnPath>& requested = *statement.cluster_columns;
      std::vector<log::ColumnPath> columns;
      if (!requested.empty()) columns = log::ValidateClusteringColumns(metadata, requested);
      if (!metadata.partition_columns.empty()) {
        SILT_THROW(DELTA_ALTER_TABLE_CLUSTER_BY_ON_PARTITIONED_TABLE_NOT_ALLOWED, {});
      }
      bool clustered = log::IsClusteringSupported(snapshot->protocol());
      // CLUSTER BY NONE leaves a table that is not clustered as it is, committing nothing.
      if (columns.empty() && !clustered) return {};
      std::vector<std::string> old_names =
          log::ClusteringColumnNames(snapshot->domain_metadata(), *schema);
      std::vector<log::ColumnPath> physical;
      for (const log::ColumnPath& column : columns) {
        physical.push_back(log::PhysicalColumnPath(*schema, column));
      }
      if (!clustered) {
        // The table becomes clustered: the feature (and domainMetadata) join the protocol.
        metadata.configuration.emplace_back("delta.feature.clustering", "supported");
        std::optional<log::Protocol> protocol =
            TakeFeatureProperties(metadata, snapshot->protocol());
        if (protocol) txn->UpdateProtocol(*protocol);
        txn->UpdateMetadata(metadata);
      }
      txn->AddDomainMetadata(log::ClusteringDomain(physical));
      txn->SetOperation(
          "CLUSTER BY",
          {{"oldClusteringColumns", QuotedJson(JoinedNames(old_names, ","))},
           {"newClusteringColumns", QuotedJson(JoinedNames(ClusteringNames(columns), ","))}});
      txn->Commit(CommitOptionsFor(session));
      return {};
    }
    case sql::AlterTableAction::kAlterColumn: {
      if (statement.alter_column_change == "TYPE") {
        SILT_CHECK(!statement.columns.empty() && statement.columns[0].type, "TYPE without a type");
        ColumnTypeChange change = ChangeColumnType(
            *schema, statement.column_path, statement.columns[0].type,
            log::IsTypeWideningEnabled(snapshot->protocol(), metadata));
        if (change.type_changed) CheckNoDependents(schema, metadata, change.top_level_column);
        metadata.schema_string = ToDeltaSchemaJson(Schema(change.fields));
        operation = "CHANGE COLUMN";
        parameters = {{"column", QuotedJson(FieldJson(change.changed))}};
        break;
      }
      if (statement.alter_column_change == "COMMENT" ||
          statement.alter_column_change == "DROP NOT NULL") {
        // The column (or nested field) with its comment set, or made nullable. A path the
        // schema does not have is an unresolved column, as Spark resolves ALTER COLUMN's.
        Field changed;
        std::vector<Field> fields;
        try {
          fields = EditNestedField(
              schema->fields(), statement.column_path, 0, [&](std::vector<Field>& siblings, size_t at) {
                Field& field = siblings[at];
                if (statement.alter_column_change == "DROP NOT NULL") {
                  field.nullable = true;
                } else {
                  std::erase_if(field.metadata,
                                [](const auto& entry) { return entry.first == "comment"; });
                  field.metadata.emplace_back("comment", QuotedJson(statement.comment.value_or("")));
                }
                changed = field;
              });
        } catch (const Error& error) {
          if (error.error_class() != "FIELD_NOT_FOUND") throw;
          std::string proposal;
          for (const Field& field : schema->fields())
            proposal += (proposal.empty() ? "`" : ", `") + field.name + "`";
          std::string name;
          for (const std::string& part : statement.column_path)
            name += (name.empty() ? "`" : ".`") + part + "`";
          SILT_THROW(UNRESOLVED_COLUMN, {{"objectName", name}, {"proposal", proposal}});
        }
        metadata.schema_string = ToDeltaSchemaJson(Schema(fields));
        // Delta names a nested field by its path (`s.y`).
        sql::QualifiedName path = statement.column_path;
        path.back() = changed.name;
        changed.name = DottedPath(path);
        operation = "CHANGE COLUMN";
        parameters = {{"column", QuotedJson(FieldJson(changed))}};
        break;
      }
      if (statement.alter_column_change != "SET DEFAULT" &&
          statement.alter_column_change != "DROP DEFAULT") {
        SILT_THROW(NOT_IMPLEMENTED, {{"feature", "ALTER COLUMN " + statement.alter_column_change}});
      }
      if (statement.column_path.size() != 1) {
        SILT_THROW(NOT_IMPLEMENTED, {{"feature", "a DEFAULT on a nested field"}});
      }
      int index = schema->FieldIndex(statement.column_path[0], /*case_sensitive=*/false);
      if (index < 0) {
        std::string proposal;
        for (const Field& field : schema->fields())
          proposal += (proposal.empty() ? "`" : ", `") + field.name + "`";
        SILT_THROW(UNRESOLVED_COLUMN, {{"objectName", "`" + statement.column_path[0] + "`"},
                                       {"proposal", proposal}});
      }
      std::vector<Field> fields = schema->fields();
      Field& field = fields[static_cast<size_t>(index)];
      if (statement.alter_column_change == "SET DEFAULT") {
        CheckColumnDefaultsAllowed(snapshot->protocol(), "ALTER TABLE");
        SILT_CHECK(!statement.columns.empty() && statement.columns[0].default_value,
                   "SET DEFAULT without a value");
        SetColumnDefault(field, WrittenDefaultText(statement, *statement.columns[0].default_value),
                         "ALTER TABLE");
      } else {
        DropColumnDefault(field);
      }
      metadata.schema_string = ToDeltaSchemaJson(Schema(fields));
      // The changed column as Delta records it for CHANGE COLUMN.
      operation = "CHANGE COLUMN";
      parameters = {{"column", QuotedJson(FieldJson(field))}};
      break;
    }
    default:
      SILT_THROW(NOT_IMPLEMENTED, {{"feature", "this ALTER TABLE action"}});
  }
  txn->UpdateMetadata(metadata);
  txn->SetOperation(operation, std::move(parameters));
  txn->Commit(CommitOptionsFor(session));
  return {};
}

}  // namespace silt::commands::internal
