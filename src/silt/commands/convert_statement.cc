// CONVERT TO DELTA parquet.`path` [NO STATISTICS] [PARTITIONED BY (col type, ...)]: works out
// what the name refers to as Delta's command does, then runs log::ConvertToDelta on the folder.
// Like Spark's command it returns no rows, and converting a Delta table does nothing.

#include "silt/base/check.h"
#include "silt/commands/statement_internal.h"
#include "silt/log/convert_to_delta.h"

namespace silt::commands::internal {
namespace {

constexpr std::string_view kDefaultsPrefix = "spark.databricks.delta.properties.defaults.";

bool IsNotFound(const Error& error) {
  return error.error_class() == "TABLE_OR_VIEW_NOT_FOUND" ||
         error.error_class() == "SCHEMA_NOT_FOUND";
}

std::string NameText(const sql::QualifiedName& name) {
  std::string text;
  for (size_t i = 0; i < name.size(); ++i) text += (i ? "." : "") + name[i];
  return text;
}

}  // namespace

StatementResult ExecuteConvertToDelta(sql::SessionState& session, const sql::Statement& statement) {
  const sql::QualifiedName& name = statement.name;
  SILT_CHECK(!name.empty(), "CONVERT TO DELTA without a name");
  std::string format = name.size() == 2 ? Lower(name[0]) : "";
  bool is_path = name.size() == 2 && name[1].find('/') != std::string::npos;
  if (format == "parquet" && (is_path || !session.catalog().DatabaseExists(format))) {
    log::ConvertOptions options;
    for (const sql::ColumnDefinition& column : statement.columns) {
      options.partition_columns.push_back(Field{column.name, column.type, true, {}});
    }
    bool no_statistics = false;
    for (const auto& [key, value] : statement.properties) {
      no_statistics = no_statistics || (key == "statistics" && value == "false");
    }
    options.collect_stats =
        !no_statistics && session.GetBoolConf("spark.databricks.delta.stats.collect", true);
    // A new table gets the session's default table properties, as CREATE TABLE does.
    for (const auto& [key, value] : session.conf()) {
      if (key.rfind(kDefaultsPrefix, 0) != 0) continue;
      options.properties.emplace_back("delta." + key.substr(kDefaultsPrefix.size()), value);
    }
    options.pool = &session.pool();
    log::ConvertToDelta(session.fs(), name[1], options);
    return {};
  }
  bool other_format = format == "json" || format == "csv" || format == "text" || format == "orc" ||
                      format == "avro" || format == "iceberg";
  if (other_format && (is_path || !session.catalog().DatabaseExists(format))) {
    SILT_THROW(DELTA_CONVERT_NON_PARQUET_TABLE,
               {{"sourceName", format}, {"tableId", format + ".`" + name[1] + "`"}});
  }
  // A table name (or delta.`path`): silt's catalog holds only Delta tables, so an existing
  // table is already converted; otherwise Delta reads the first part as the source format.
  sql::TableSource source;
  try {
    source = session.ResolveTable(name, statement.position);
  } catch (const Error& error) {
    if (!IsNotFound(error)) throw;
    if (name.size() == 1) SILT_THROW(DELTA_MISSING_PROVIDER_FOR_CONVERT, {{"path", name[0]}});
    SILT_THROW(DELTA_CONVERT_NON_PARQUET_TABLE,
               {{"sourceName", name[0]}, {"tableId", NameText(name)}});
  }
  if (source.kind == sql::TableSource::Kind::kView) {
    SILT_THROW(
        DELTA_OPERATION_NOT_ALLOWED_DETAIL,
        {{"operation", "Converting a view to a Delta table"}, {"tableName", source.display_name}});
  }
  SILT_CHECK(source.kind == sql::TableSource::Kind::kDelta, "catalog table that is not Delta");
  return {};
}

}  // namespace silt::commands::internal
