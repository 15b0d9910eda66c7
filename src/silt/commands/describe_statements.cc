// DESCRIBE, DESCRIBE DETAIL, DESCRIBE HISTORY and the SHOW statements about one table.

#include <algorithm>
#include <set>

#include "silt/base/check.h"
#include "silt/commands/statement_internal.h"
#include "silt/exec/text_format.h"
#include "silt/expr/evaluator.h"
#include "silt/io/file_system.h"
#include "silt/log/clustering.h"
#include "silt/log/log_segment.h"
#include "silt/log/table_features.h"
#include "silt/sql/expression_binder.h"
#include "silt/sql/planner.h"
#include "silt/types/schema_json.h"

namespace silt::commands::internal {
namespace {

Field StringField(std::string name, bool nullable = true) {
  return Field{std::move(name), StringType(), nullable, {}};
}

std::optional<std::string> FieldComment(const Field& field) {
  const std::string* raw = field.FindMetadata("comment");
  if (raw == nullptr) return std::nullopt;
  exec::JsonValue value = exec::ParseJson(*raw);
  if (value.kind != exec::JsonValue::Kind::kString) return std::nullopt;
  return value.text;
}

// `spark_catalog.db.t` for catalog tables, as Spark names them in DESCRIBE output.
std::optional<std::string> CatalogName(const DeltaTarget& target) {
  if (target.identifier.size() != 2) return std::nullopt;
  return "spark_catalog." + target.identifier[0] + "." + target.identifier[1];
}

void AppendStringMap(VectorBuilder& builder,
                     const std::vector<std::pair<std::string, std::string>>& entries) {
  VectorBuilder& entry = builder.child(0);
  for (const auto& [key, value] : entries) {
    entry.child(0).AppendString(key);
    entry.child(1).AppendString(value);
    entry.AppendStruct();
  }
  builder.FinishList();
}

void AppendStringList(VectorBuilder& builder, const std::vector<std::string>& values) {
  for (const auto& value : values) builder.child(0).AppendString(value);
  builder.FinishList();
}

std::vector<std::string> TableFeatureNames(const log::Protocol& protocol) {
  std::set<std::string> names;
  for (const auto& name : log::EffectiveReaderFeatures(protocol)) names.insert(name);
  for (const auto& name : log::EffectiveWriterFeatures(protocol)) names.insert(name);
  return {names.begin(), names.end()};
}

// Spark's "[k1=v1,k2=v2]" rendering of table properties, sorted by key.
std::string PropertiesText(log::StringMap properties) {
  std::sort(properties.begin(), properties.end());
  std::string text = "[";
  for (size_t i = 0; i < properties.size(); ++i) {
    if (i > 0) text += ",";
    text += properties[i].first + "=" + properties[i].second;
  }
  return text + "]";
}

// The properties Spark shows for a Delta table: its configuration plus the protocol versions.
log::StringMap ShownProperties(const log::Snapshot& snapshot) {
  log::StringMap properties = snapshot.metadata().configuration;
  properties.emplace_back("delta.minReaderVersion",
                          std::to_string(snapshot.protocol().min_reader_version));
  properties.emplace_back("delta.minWriterVersion",
                          std::to_string(snapshot.protocol().min_writer_version));
  std::sort(properties.begin(), properties.end());
  return properties;
}

// DESCRIBE [EXTENDED] of a permanent view: the columns it stored, and with EXTENDED Spark's
// "Detailed Table Information" rows for a view.
void DescribePermanentView(const sql::StoredView& view, bool extended, ResultBuilder& result) {
  Schema schema = ParseDeltaSchema(view.schema_json);
  for (const Field& field : schema.fields()) {
    result.AddStringRow({field.name, field.type->ToString(), FieldComment(field)});
  }
  if (!extended) return;
  result.AddStringRow({"", "", ""});
  result.AddStringRow({"# Detailed Table Information", "", ""});
  result.AddStringRow({"Catalog", "spark_catalog", ""});
  result.AddStringRow({"Database", view.database, ""});
  result.AddStringRow({"Table", view.name, ""});
  if (view.comment) result.AddStringRow({"Comment", *view.comment, ""});
  result.AddStringRow({"Type", "VIEW", ""});
  result.AddStringRow({"View Text", view.text, ""});
  result.AddStringRow({"View Original Text", view.text, ""});
  result.AddStringRow(
      {"View Catalog and Namespace", "spark_catalog." + view.resolution_database, ""});
  std::string columns = "[";
  for (size_t i = 0; i < view.query_columns.size(); ++i) {
    columns += (i > 0 ? ", " : "") + view.query_columns[i];
  }
  result.AddStringRow({"View Query Output Columns", columns + "]", ""});
  if (!view.properties.empty()) {
    result.AddStringRow({"Table Properties", PropertiesText(view.properties), ""});
  }
}

}  // namespace

StatementResult ExecuteDescribeTable(sql::SessionState& session, const sql::Statement& statement) {
  ResultBuilder result({StringField("col_name", false), StringField("data_type", false),
                        StringField("comment", true)});
  sql::TableSource source = session.ResolveTable(statement.name, statement.position);
  if (source.kind == sql::TableSource::Kind::kView && source.view->stored != nullptr) {
    DescribePermanentView(*source.view->stored, statement.extended, result);
    return result.Finish();
  }
  if (source.kind == sql::TableSource::Kind::kView) {
    exec::ExecContext context;
    context.eval = session.MakeEvalContext();
    sql::PlannedQuery planned = sql::PlanQuery(session, *source.view->query, context);
    for (size_t i = 0; i < planned.schema->num_fields(); ++i) {
      const Field& field = planned.schema->field(i);
      std::string name =
          i < source.view->column_names.size() ? source.view->column_names[i] : field.name;
      result.AddStringRow({name, field.type->ToString(), std::nullopt});
    }
    return result.Finish();
  }
  DeltaTarget target =
      ResolveDeltaTarget(session, statement.name, statement.position, "DESCRIBE TABLE");
  auto snapshot = log::Snapshot::Load(session.fs(), target.location);
  const Schema& schema = snapshot->schema();
  for (const Field& field : schema.fields()) {
    result.AddStringRow({field.name, field.type->ToString(), FieldComment(field)});
  }
  const auto& partitions = snapshot->metadata().partition_columns;
  if (!partitions.empty()) {
    result.AddStringRow({"# Partition Information", "", ""});
    result.AddStringRow({"# col_name", "data_type", "comment"});
    for (const std::string& column : partitions) {
      int index = schema.FieldIndex(column);
      if (index < 0) continue;
      const Field& field = schema.field(static_cast<size_t>(index));
      result.AddStringRow({field.name, field.type->ToString(), FieldComment(field)});
    }
  }
  std::optional<std::vector<log::ColumnPath>> clustering =
      log::PhysicalClusteringColumns(snapshot->domain_metadata());
  if (clustering && !clustering->empty()) {
    // Spark lists each clustering column with the type and comment of the (nested) field.
    result.AddStringRow({"# Clustering Information", "", ""});
    result.AddStringRow({"# col_name", "data_type", "comment"});
    for (const log::ColumnPath& column : log::LogicalClusteringColumns(*clustering, schema)) {
      const Field* field = nullptr;
      const std::vector<Field>* level = &schema.fields();
      for (const std::string& name : column) {
        auto it = std::find_if(level->begin(), level->end(),
                               [&](const Field& candidate) { return candidate.name == name; });
        if (it == level->end()) break;
        field = &*it;
        level = &field->type->fields();
      }
      if (field == nullptr) continue;
      result.AddStringRow(
          {log::ColumnPathName(column), field->type->ToString(), FieldComment(*field)});
    }
  }
  if (statement.extended) {
    result.AddStringRow({"", "", ""});
    result.AddStringRow({"# Detailed Table Information", "", ""});
    if (auto name = CatalogName(target)) result.AddStringRow({"Name", *name, ""});
    if (snapshot->metadata().description) {
      result.AddStringRow({"Comment", *snapshot->metadata().description, ""});
    }
    bool external = target.identifier.size() != 2 ||
                    session.catalog().IsExternalTable(target.identifier[0], target.identifier[1]);
    result.AddStringRow({"Type", external ? "EXTERNAL" : "MANAGED", ""});
    result.AddStringRow({"Location", target.location, ""});
    result.AddStringRow({"Provider", "delta", ""});
    result.AddStringRow({"Table Properties", PropertiesText(ShownProperties(*snapshot)), ""});
  }
  return result.Finish();
}

StatementResult ExecuteDescribeDetail(sql::SessionState& session, const sql::Statement& statement) {
  DeltaTarget target =
      ResolveDeltaTarget(session, statement.name, statement.position, "DESCRIBE DETAIL");
  auto snapshot = log::Snapshot::Load(session.fs(), target.location);
  const log::Metadata& metadata = snapshot->metadata();
  auto string_list = ListType(StringType());
  auto string_map = MapType(StringType(), StringType());
  ResultBuilder result(
      {StringField("format"), StringField("id"), StringField("name"), StringField("description"),
       StringField("location"), Field{"createdAt", TimestampType(), true, {}},
       Field{"lastModified", TimestampType(), true, {}},
       Field{"partitionColumns", string_list, true, {}},
       Field{"clusteringColumns", string_list, true, {}}, Field{"numFiles", LongType(), true, {}},
       Field{"sizeInBytes", LongType(), true, {}}, Field{"properties", string_map, true, {}},
       Field{"minReaderVersion", IntegerType(), true, {}},
       Field{"minWriterVersion", IntegerType(), true, {}},
       Field{"tableFeatures", string_list, true, {}},
       Field{"statistics", MapType(StringType(), LongType()), true, {}}});
  result.column(0).AppendString("delta");
  result.column(1).AppendString(metadata.id);
  if (auto name = CatalogName(target)) {
    result.column(2).AppendString(*name);
  } else {
    result.column(2).AppendNull();
  }
  if (metadata.description) {
    result.column(3).AppendString(*metadata.description);
  } else {
    result.column(3).AppendNull();
  }
  result.column(4).AppendString(target.location);
  if (metadata.created_time) {
    result.column(5).AppendInt(*metadata.created_time * 1000);
  } else {
    result.column(5).AppendNull();
  }
  result.column(6).AppendInt(snapshot->timestamp_ms() * 1000);
  AppendStringList(result.column(7), metadata.partition_columns);
  AppendStringList(result.column(8),
                   log::ClusteringColumnNames(snapshot->domain_metadata(), snapshot->schema()));
  int64_t size = 0;
  int64_t deletion_vectors = 0;
  int64_t deleted_rows = 0;
  for (const auto& file : snapshot->files()) {
    size += file.size;
    if (file.deletion_vector) {
      ++deletion_vectors;
      deleted_rows += file.deletion_vector->cardinality;
    }
  }
  result.column(9).AppendInt(static_cast<int64_t>(snapshot->files().size()));
  result.column(10).AppendInt(size);
  log::StringMap properties = metadata.configuration;
  std::sort(properties.begin(), properties.end());
  AppendStringMap(result.column(11), properties);
  result.column(12).AppendInt(snapshot->protocol().min_reader_version);
  result.column(13).AppendInt(snapshot->protocol().min_writer_version);
  AppendStringList(result.column(14), TableFeatureNames(snapshot->protocol()));
  VectorBuilder& statistics = result.column(15).child(0);
  statistics.child(0).AppendString("numRowsDeletedByDeletionVectors");
  statistics.child(1).AppendInt(deleted_rows);
  statistics.AppendStruct();
  statistics.child(0).AppendString("numDeletionVectors");
  statistics.child(1).AppendInt(deletion_vectors);
  statistics.AppendStruct();
  result.column(15).FinishList();
  return result.Finish();
}

StatementResult ExecuteDescribeHistory(sql::SessionState& session,
                                       const sql::Statement& statement) {
  DeltaTarget target =
      ResolveDeltaTarget(session, statement.name, statement.position, "DESCRIBE HISTORY");
  std::optional<int64_t> limit;
  if (statement.limit) {
    expr::Scalar value = sql::EvaluateConstant(*statement.limit, "DESCRIBE HISTORY LIMIT",
                                               session.MakeEvalContext());
    std::string text = value.ToString();
    try {
      limit = std::stoll(text);
    } catch (const std::exception&) {
      limit.reset();
    }
    if (!limit || *limit < 0) {
      SILT_THROW(INVALID_LIMIT_LIKE_EXPRESSION,
                 {{"expr", text}, {"message", "expected a non-negative integer"}});
    }
  }
  std::vector<log::CommitFile> commits = log::ListCommits(*session.fs(), target.location);
  if (commits.empty()) SILT_THROW(DELTA_MISSING_DELTA_TABLE, {{"tableName", target.display_name}});
  std::reverse(commits.begin(), commits.end());
  if (limit && static_cast<size_t>(*limit) < commits.size())
    commits.resize(static_cast<size_t>(*limit));

  auto string_map = MapType(StringType(), StringType());
  auto job = StructType(
      {Field{"jobId", StringType(), true, {}}, Field{"jobName", StringType(), true, {}},
       Field{"jobRunId", StringType(), true, {}}, Field{"runId", StringType(), true, {}},
       Field{"jobOwnerId", StringType(), true, {}}, Field{"triggerType", StringType(), true, {}}});
  auto notebook = StructType({Field{"notebookId", StringType(), true, {}}});
  ResultBuilder result(
      {Field{"version", LongType(), true, {}}, Field{"timestamp", TimestampType(), true, {}},
       StringField("userId"), StringField("userName"), StringField("operation"),
       Field{"operationParameters", string_map, true, {}}, Field{"job", job, true, {}},
       Field{"notebook", notebook, true, {}}, StringField("clusterId"),
       Field{"readVersion", LongType(), true, {}}, StringField("isolationLevel"),
       Field{"isBlindAppend", BooleanType(), true, {}},
       Field{"operationMetrics", string_map, true, {}}, StringField("userMetadata"),
       StringField("engineInfo")});
  for (const log::CommitFile& commit : commits) {
    std::optional<log::CommitInfo> info;
    for (const log::Action& action :
         log::ParseActions(session.fs()->ReadFile(commit.file.path), commit.file.path)) {
      if (const auto* found = std::get_if<log::CommitInfo>(&action)) info = *found;
    }
    result.column(0).AppendInt(commit.version);
    int64_t timestamp_ms = commit.file.modification_time_ms;
    if (info && info->in_commit_timestamp) {
      timestamp_ms = *info->in_commit_timestamp;
    } else if (info && info->timestamp) {
      timestamp_ms = *info->timestamp;
    }
    result.column(1).AppendInt(timestamp_ms * 1000);
    result.column(2).AppendNull();
    result.column(3).AppendNull();
    if (info && info->operation) {
      result.column(4).AppendString(*info->operation);
    } else {
      result.column(4).AppendNull();
    }
    if (info) {
      // Parameters are stored as JSON values; strings are shown without their quotes.
      std::vector<std::pair<std::string, std::string>> parameters;
      for (const auto& [key, raw] : info->operation_parameters) {
        std::string value = raw;
        try {
          exec::JsonValue parsed = exec::ParseJson(raw);
          if (parsed.kind == exec::JsonValue::Kind::kString) value = parsed.text;
        } catch (const Error&) {
        }
        parameters.emplace_back(key, value);
      }
      AppendStringMap(result.column(5), parameters);
    } else {
      result.column(5).AppendNull();
    }
    result.column(6).AppendNull();
    result.column(7).AppendNull();
    result.column(8).AppendNull();
    if (info && info->read_version) {
      result.column(9).AppendInt(*info->read_version);
    } else {
      result.column(9).AppendNull();
    }
    if (info && info->isolation_level) {
      result.column(10).AppendString(*info->isolation_level);
    } else {
      result.column(10).AppendNull();
    }
    if (info && info->is_blind_append) {
      result.column(11).AppendBool(*info->is_blind_append);
    } else {
      result.column(11).AppendNull();
    }
    if (info) {
      AppendStringMap(result.column(12), info->operation_metrics);
    } else {
      result.column(12).AppendNull();
    }
    std::optional<std::string> user_metadata;
    if (info) {
      exec::JsonValue raw = exec::ParseJson(info->raw_json);
      if (const exec::JsonValue* value = raw.Find("userMetadata");
          value != nullptr && value->kind == exec::JsonValue::Kind::kString) {
        user_metadata = value->text;
      }
    }
    if (user_metadata) {
      result.column(13).AppendString(*user_metadata);
    } else {
      result.column(13).AppendNull();
    }
    if (info && info->engine_info) {
      result.column(14).AppendString(*info->engine_info);
    } else {
      result.column(14).AppendNull();
    }
  }
  return result.Finish();
}

StatementResult ExecuteShowTableProperties(sql::SessionState& session,
                                           const sql::Statement& statement) {
  DeltaTarget target =
      ResolveDeltaTarget(session, statement.name, statement.position, "SHOW TBLPROPERTIES");
  auto snapshot = log::Snapshot::Load(session.fs(), target.location);
  log::StringMap properties = ShownProperties(*snapshot);
  if (!statement.property_keys.empty()) {
    ResultBuilder result({StringField("key", false), StringField("value", false)});
    for (const std::string& key : statement.property_keys) {
      const std::string* value = log::FindValue(properties, key);
      result.AddStringRow(
          {key,
           value ? *value : "Table " + target.display_name + " does not have property: " + key});
    }
    return result.Finish();
  }
  ResultBuilder result({StringField("key", false), StringField("value", false)});
  for (const auto& [key, value] : properties) result.AddStringRow({key, value});
  return result.Finish();
}

StatementResult ExecuteShowCreateTable(sql::SessionState& session,
                                       const sql::Statement& statement) {
  DeltaTarget target =
      ResolveDeltaTarget(session, statement.name, statement.position, "SHOW CREATE TABLE");
  auto snapshot = log::Snapshot::Load(session.fs(), target.location);
  const log::Metadata& metadata = snapshot->metadata();
  std::string name = CatalogName(target).value_or("delta.`" + target.location + "`");
  std::string text = "CREATE TABLE " + name + " (\n";
  const Schema& schema = snapshot->schema();
  for (size_t i = 0; i < schema.num_fields(); ++i) {
    const Field& field = schema.field(i);
    text += "  " + field.name + " " + [&] {
      std::string type = field.type->ToString();
      std::transform(type.begin(), type.end(), type.begin(),
                     [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
      return type;
    }();
    if (!field.nullable) text += " NOT NULL";
    const std::string* generation = field.FindMetadata("delta.generationExpression");
    if (generation != nullptr) {
      exec::JsonValue value = exec::ParseJson(*generation);
      text += " GENERATED ALWAYS AS (" + value.text + ")";
    }
    if (auto comment = FieldComment(field)) {
      std::string escaped;
      for (char c : *comment) escaped += c == '\'' ? std::string("\\'") : std::string(1, c);
      text += " COMMENT '" + escaped + "'";
    }
    text += i + 1 < schema.num_fields() ? ",\n" : "";
  }
  std::vector<std::pair<std::string, std::string>> constraints = CheckConstraints(metadata);
  for (const auto& [constraint, expression] : constraints) {
    text += ",\n  CONSTRAINT " + constraint + " CHECK (" + expression + ")";
  }
  text += ")\nUSING delta\n";
  if (!metadata.partition_columns.empty()) {
    text += "PARTITIONED BY (";
    for (size_t i = 0; i < metadata.partition_columns.size(); ++i) {
      text += (i > 0 ? ", " : "") + metadata.partition_columns[i];
    }
    text += ")\n";
  }
  std::vector<std::string> clustering =
      log::ClusteringColumnNames(snapshot->domain_metadata(), schema);
  if (!clustering.empty()) {
    text += "CLUSTER BY (";
    for (size_t i = 0; i < clustering.size(); ++i) text += (i > 0 ? ", " : "") + clustering[i];
    text += ")\n";
  }
  if (metadata.description) text += "COMMENT '" + *metadata.description + "'\n";
  bool external = target.identifier.size() != 2 ||
                  session.catalog().IsExternalTable(target.identifier[0], target.identifier[1]);
  if (external) text += "LOCATION '" + target.location + "'\n";
  log::StringMap properties;
  for (const auto& [key, value] : ShownProperties(*snapshot)) {
    if (key.rfind("delta.constraints.", 0) != 0) properties.emplace_back(key, value);
  }
  if (!properties.empty()) {
    text += "TBLPROPERTIES (\n";
    for (size_t i = 0; i < properties.size(); ++i) {
      text += "  '" + properties[i].first + "' = '" + properties[i].second + "'" +
              (i + 1 < properties.size() ? ",\n" : ")\n");
    }
  }
  ResultBuilder result({StringField("createtab_stmt", false)});
  result.AddStringRow({text});
  return result.Finish();
}

StatementResult ExecuteShowColumns(sql::SessionState& session, const sql::Statement& statement) {
  const sql::QualifiedName& name = statement.name;
  ResultBuilder result({StringField("col_name", false)});
  sql::TableSource source = session.ResolveTable(name, statement.position);
  if (source.kind == sql::TableSource::Kind::kView && source.view->stored != nullptr) {
    Schema columns = ParseDeltaSchema(source.view->stored->schema_json);
    for (const Field& field : columns.fields()) {
      result.AddStringRow({field.name});
    }
    return result.Finish();
  }
  if (source.kind == sql::TableSource::Kind::kView) {
    exec::ExecContext context;
    context.eval = session.MakeEvalContext();
    sql::PlannedQuery planned = sql::PlanQuery(session, *source.view->query, context);
    for (const Field& field : planned.schema->fields()) result.AddStringRow({field.name});
    return result.Finish();
  }
  DeltaTarget target = ResolveDeltaTarget(session, name, statement.position, "SHOW COLUMNS");
  auto snapshot = log::Snapshot::Load(session.fs(), target.location);
  for (const Field& field : snapshot->schema().fields()) result.AddStringRow({field.name});
  return result.Finish();
}

}  // namespace silt::commands::internal
