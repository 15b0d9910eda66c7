// OPTIMIZE t [FULL] [WHERE partition-predicate] [ZORDER BY (cols)]: resolves the table, checks and
// binds the partition predicate, reads the session's OPTIMIZE settings and runs log::Optimize
// (which clusters a clustered table), then returns Spark's one-row result (`path`, `metrics`
// struct of Delta's OptimizeMetrics).

#include <cctype>
#include <functional>

#include "silt/base/check.h"
#include "silt/commands/dml_support.h"
#include "silt/commands/statement_internal.h"
#include "silt/log/clustering.h"
#include "silt/log/file_rewrite.h"
#include "silt/log/optimize.h"
#include "silt/log/table_properties.h"
#include "silt/sql/optimizer.h"

namespace silt::commands::internal {
namespace {

// Spark's checks of an OPTIMIZE predicate, made on the SQL text before binding as Delta does:
// no subqueries, and only partition columns (an unknown column is a non-partition reference).
void CheckPartitionPredicate(const sql::Expression& node,
                             const std::vector<std::string>& partitions) {
  if (node.kind == sql::ExpressionKind::kScalarSubquery ||
      node.kind == sql::ExpressionKind::kExists || node.subquery) {
    SILT_THROW(DELTA_UNSUPPORTED_SUBQUERY_IN_PARTITION_PREDICATES, {});
  }
  if (node.kind == sql::ExpressionKind::kColumn && !node.name.empty()) {
    const std::string& column = node.name.back();
    bool is_partition = false;
    for (const std::string& partition : partitions) {
      is_partition = is_partition || Lower(partition) == Lower(column);
    }
    if (!is_partition) {
      std::string list;
      for (size_t i = 0; i < partitions.size(); ++i) list += (i ? ", " : "") + partitions[i];
      SILT_THROW(DELTA_NON_PARTITION_COLUMN_REFERENCE,
                 {{"columnName", column}, {"columnList", list}});
    }
  }
  auto visit = [&](const sql::ExpressionPtr& child) {
    if (child) CheckPartitionPredicate(*child, partitions);
  };
  for (const auto& child : node.children) visit(child);
  visit(node.case_operand);
  for (const auto& [when, then] : node.when_clauses) {
    visit(when);
    visit(then);
  }
  visit(node.else_result);
  visit(node.filter);
}

int64_t ByteConf(const sql::SessionState& session, std::string_view key, int64_t default_value) {
  std::optional<std::string> text = session.GetConf(std::string(key));
  if (!text) return default_value;
  std::optional<int64_t> bytes = log::ParseByteSize(*text);
  if (!bytes) {
    SILT_THROW(INVALID_CONF_VALUE, {{"confValue", *text},
                                    {"confName", std::string(key)},
                                    {"message", "It should be a size in bytes."}});
  }
  return *bytes;
}

double RatioConf(const sql::SessionState& session, std::string_view key, double default_value) {
  std::optional<std::string> text = session.GetConf(std::string(key));
  if (!text) return default_value;
  try {
    size_t used = 0;
    double value = std::stod(*text, &used);
    if (used == text->size() && value >= 0 && value <= 1) return value;
  } catch (const std::exception&) {
  }
  SILT_THROW(INVALID_CONF_VALUE, {{"confValue", *text},
                                  {"confName", std::string(key)},
                                  {"message", "It should be a number between 0 and 1."}});
}

DataTypePtr FileSizeMetricsType() {
  return StructType({Field{"min", LongType(), true, {}}, Field{"max", LongType(), true, {}},
                     Field{"avg", DoubleType(), false, {}},
                     Field{"totalFiles", LongType(), false, {}},
                     Field{"totalSize", LongType(), false, {}}});
}

DataTypePtr ZOrderFileStatsType() {
  return StructType({Field{"num", LongType(), false, {}}, Field{"size", LongType(), false, {}}});
}

// Delta's OptimizeMetrics, the fields silt fills, in Delta's order.
DataTypePtr OptimizeMetricsType() {
  DataTypePtr zorder_stats = StructType({
      Field{"strategyName", StringType(), true, {}},
      Field{"inputCubeFiles", ZOrderFileStatsType(), true, {}},
      Field{"inputOtherFiles", ZOrderFileStatsType(), true, {}},
      Field{"inputNumCubes", LongType(), false, {}},
      Field{"mergedFiles", ZOrderFileStatsType(), true, {}},
      Field{"numOutputCubes", LongType(), false, {}},
      Field{"mergedNumCubes", LongType(), true, {}},
  });
  DataTypePtr clustering_file_stats =
      StructType({Field{"numFiles", LongType(), false, {}}, Field{"size", LongType(), false, {}}});
  DataTypePtr clustering_stats = StructType({
      Field{"inputZCubeFiles", clustering_file_stats, true, {}},
      Field{"inputOtherFiles", clustering_file_stats, true, {}},
      Field{"inputNumZCubes", LongType(), false, {}},
      Field{"mergedFiles", clustering_file_stats, true, {}},
      Field{"numOutputZCubes", LongType(), false, {}},
  });
  DataTypePtr deletion_vector_stats = StructType({
      Field{"numDeletionVectorsRemoved", LongType(), false, {}},
      Field{"numDeletionVectorRowsRemoved", LongType(), false, {}},
  });
  return StructType({
      Field{"numFilesAdded", LongType(), false, {}},
      Field{"numFilesRemoved", LongType(), false, {}},
      Field{"filesAdded", FileSizeMetricsType(), true, {}},
      Field{"filesRemoved", FileSizeMetricsType(), true, {}},
      Field{"partitionsOptimized", LongType(), false, {}},
      Field{"zOrderStats", zorder_stats, true, {}},
      Field{"clusteringStats", clustering_stats, true, {}},
      Field{"numBins", LongType(), false, {}},
      Field{"numBatches", LongType(), false, {}},
      Field{"totalConsideredFiles", LongType(), false, {}},
      Field{"totalFilesSkipped", LongType(), false, {}},
      Field{"preserveInsertionOrder", BooleanType(), false, {}},
      Field{"numFilesSkippedToReduceWriteAmplification", LongType(), false, {}},
      Field{"numBytesSkippedToReduceWriteAmplification", LongType(), false, {}},
      Field{"startTimeMs", LongType(), false, {}},
      Field{"endTimeMs", LongType(), false, {}},
      Field{"totalClusterParallelism", LongType(), false, {}},
      Field{"deletionVectorStats", deletion_vector_stats, true, {}},
      Field{"numTableColumns", LongType(), false, {}},
      Field{"numTableColumnsWithStats", LongType(), false, {}},
  });
}

void AppendOptional(VectorBuilder& builder, const std::optional<int64_t>& value) {
  if (value) {
    builder.AppendInt(*value);
  } else {
    builder.AppendNull();
  }
}

void AppendFileSizeMetrics(VectorBuilder& builder, const log::FileSizeMetrics& metrics) {
  AppendOptional(builder.child(0), metrics.min);
  AppendOptional(builder.child(1), metrics.max);
  builder.child(2).AppendDouble(metrics.avg);
  builder.child(3).AppendInt(metrics.total_files);
  builder.child(4).AppendInt(metrics.total_size);
  builder.AppendStruct();
}

void AppendZOrderFileStats(VectorBuilder& builder, int64_t num, int64_t size) {
  builder.child(0).AppendInt(num);
  builder.child(1).AppendInt(size);
  builder.AppendStruct();
}

void AppendMetrics(VectorBuilder& builder, const log::OptimizeMetrics& m) {
  size_t i = 0;
  auto next = [&]() -> VectorBuilder& { return builder.child(i++); };
  next().AppendInt(m.num_files_added);
  next().AppendInt(m.num_files_removed);
  AppendFileSizeMetrics(next(), m.files_added);
  AppendFileSizeMetrics(next(), m.files_removed);
  next().AppendInt(m.partitions_optimized);
  VectorBuilder& zorder = next();
  if (m.zorder) {
    // silt keeps no Z-cubes: every input file is an "other" file, all of them are merged.
    zorder.child(0).AppendString("all");
    AppendZOrderFileStats(zorder.child(1), 0, 0);
    AppendZOrderFileStats(zorder.child(2), m.zorder_merged_files, m.zorder_merged_bytes);
    zorder.child(3).AppendInt(0);
    AppendZOrderFileStats(zorder.child(4), m.zorder_merged_files, m.zorder_merged_bytes);
    zorder.child(5).AppendInt(m.zorder_output_cubes);
    zorder.child(6).AppendNull();
    zorder.AppendStruct();
  } else {
    zorder.AppendNull();
  }
  VectorBuilder& clustering = next();
  if (m.clustering) {
    AppendZOrderFileStats(clustering.child(0), m.clustering_input_cube_files,
                          m.clustering_input_cube_bytes);
    AppendZOrderFileStats(clustering.child(1), m.clustering_input_other_files,
                          m.clustering_input_other_bytes);
    clustering.child(2).AppendInt(m.clustering_input_cubes);
    AppendZOrderFileStats(clustering.child(3), m.clustering_merged_files,
                          m.clustering_merged_bytes);
    clustering.child(4).AppendInt(m.clustering_output_cubes);
    clustering.AppendStruct();
  } else {
    clustering.AppendNull();
  }
  next().AppendInt(m.num_bins);
  next().AppendInt(m.num_batches);
  next().AppendInt(m.total_considered_files);
  next().AppendInt(m.total_files_skipped);
  next().AppendBool(false);
  next().AppendInt(0);
  next().AppendInt(0);
  next().AppendInt(m.start_time_ms);
  next().AppendInt(m.end_time_ms);
  next().AppendInt(m.total_cluster_parallelism);
  VectorBuilder& deletion_vectors = next();
  if (m.num_deletion_vectors_removed > 0) {
    deletion_vectors.child(0).AppendInt(m.num_deletion_vectors_removed);
    deletion_vectors.child(1).AppendInt(m.num_deletion_vector_rows_removed);
    deletion_vectors.AppendStruct();
  } else {
    deletion_vectors.AppendNull();
  }
  next().AppendInt(m.num_table_columns);
  next().AppendInt(m.num_table_columns_with_stats);
  builder.AppendStruct();
}

}  // namespace

StatementResult ExecuteOptimize(sql::SessionState& session, const sql::Statement& statement) {
  const std::string operation = statement.apply_purge ? "REORG" : "OPTIMIZE";
  dml::DmlTable table;
  table.target = ResolveDeltaTarget(session, statement.name, statement.position, operation);
  table.snapshot = log::Snapshot::Load(session.fs(), table.target.location);
  table.schema = std::make_shared<Schema>(table.snapshot->schema());
  const log::Metadata& metadata = table.metadata();

  log::OptimizeOptions options;
  // REORG TABLE ... APPLY (PURGE) rewrites the files with deletion vectors and, under column
  // mapping, those still holding dropped columns.
  options.purge = statement.apply_purge;
  // A clustered table is clustered by OPTIMIZE, which takes neither a predicate nor ZORDER BY.
  if (!statement.apply_purge && log::IsClusteringSupported(table.snapshot->protocol())) {
    if (statement.where) {
      SILT_THROW(DELTA_CLUSTERING_WITH_PARTITION_PREDICATE,
                 {{"predicates", dml::ConditionSql(*statement.where)}});
    }
    if (!statement.column_names.empty()) {
      std::string columns;
      for (const std::string& column : statement.column_names) {
        columns += (columns.empty() ? "" : ", ") + column;
      }
      SILT_THROW(DELTA_CLUSTERING_WITH_ZORDER_BY, {{"zOrderBy", columns}});
    }
    if (auto physical = log::PhysicalClusteringColumns(table.snapshot->domain_metadata())) {
      options.clustering_columns = log::LogicalClusteringColumns(*physical, *table.schema);
    }
  }
  if (statement.extended && options.clustering_columns.empty()) {
    SILT_THROW(DELTA_OPTIMIZE_FULL_NOT_SUPPORTED, {});
  }
  options.full = statement.extended;
  options.clustering_min_cube_size =
      ByteConf(session, log::kOptimizeClusteringMinCubeSizeKey, options.clustering_min_cube_size);
  options.clustering_target_cube_size = ByteConf(session, log::kOptimizeClusteringTargetCubeSizeKey,
                                                 options.clustering_target_cube_size);
  expr::EvalContext context = session.MakeEvalContext();
  if (statement.where) {
    CheckPartitionPredicate(*statement.where, metadata.partition_columns);
    expr::ExpressionPtr predicate = dml::BindTablePredicate(table, *statement.where, "", "WHERE");
    options.read_predicates = sql::DeriveScanPredicates(predicate, *table.schema);
    options.predicate_sql.push_back(dml::ConditionSql(*statement.where));
    options.partition_filter = [&table, predicate, context](const log::AddFile& file) {
      return dml::EvaluateOnPartitionValues(table, predicate, file, context).value_or(false);
    };
  }
  if (options.purge) {
    for (const log::AddFile& file :
         log::FilesWithDroppedColumns(table.snapshot, options.partition_filter)) {
      options.purge_paths.insert(file.path);
    }
  }
  options.zorder_columns = statement.column_names;
  options.min_file_size = ByteConf(session, log::kOptimizeMinFileSizeKey, options.min_file_size);
  options.max_file_size = ByteConf(session, log::kOptimizeMaxFileSizeKey, options.max_file_size);
  if (const std::string* target = log::FindValue(metadata.configuration, "delta.targetFileSize")) {
    std::optional<int64_t> bytes = log::ParseByteSize(*target);
    if (!bytes || *bytes <= 0) {
      SILT_THROW(INVALID_CONFIGURATION, {{"value", *target},
                                         {"key", "delta.targetFileSize"},
                                         {"reason", "expected a size in bytes"}});
    }
    options.max_file_size = *bytes;
  }
  options.max_deleted_rows_ratio =
      RatioConf(session, log::kOptimizeMaxDeletedRowsRatioKey, options.max_deleted_rows_ratio);
  options.check_zorder_column_stats =
      session.GetBoolConf(std::string(log::kOptimizeZOrderStatsCheckKey), true);
  options.enforced_features = EnforcedFeatures();
  options.pool = &session.pool();
  options.commit = CommitOptionsFor(session);
  options.progress = &session.progress();

  log::OptimizeResult optimized = log::Optimize(table.snapshot, options);

  ResultBuilder result(
      {Field{"path", StringType(), true, {}}, Field{"metrics", OptimizeMetricsType(), true, {}}});
  result.column(0).AppendString(table.target.location);
  AppendMetrics(result.column(1), optimized.metrics);
  return result.Finish();
}

}  // namespace silt::commands::internal
