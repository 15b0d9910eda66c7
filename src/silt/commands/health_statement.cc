// DESCRIBE HEALTH t: the key numbers of a table's health (table_health.h) as one row, beside
// DESCRIBE DETAIL's one row of what the table is. `silt report` shows the whole report.

#include <optional>
#include <string>
#include <vector>

#include "silt/commands/statement_internal.h"
#include "silt/commands/table_health.h"

namespace silt::commands::internal {
namespace {

Field LongField(std::string name) { return Field{std::move(name), LongType(), true, {}}; }

void AppendOptionalInt(VectorBuilder& builder, const std::optional<int64_t>& value) {
  if (value) {
    builder.AppendInt(*value);
  } else {
    builder.AppendNull();
  }
}

// Milliseconds as a TIMESTAMP value (microseconds), NULL when absent.
void AppendOptionalTimestamp(VectorBuilder& builder, const std::optional<int64_t>& ms) {
  AppendOptionalInt(builder, ms ? std::optional<int64_t>(*ms * 1000) : std::nullopt);
}

}  // namespace

StatementResult ExecuteDescribeHealth(sql::SessionState& session, const sql::Statement& statement) {
  DeltaTarget target =
      ResolveDeltaTarget(session, statement.name, statement.position, "DESCRIBE HEALTH");
  TableHealth health = ComputeTableHealth(session.fs(), target.location);

  ResultBuilder result({Field{"location", StringType(), true, {}},
                        LongField("version"),
                        LongField("numFiles"),
                        LongField("sizeInBytes"),
                        LongField("numRows"),
                        LongField("smallFileThreshold"),
                        LongField("numSmallFiles"),
                        Field{"smallFilesShare", DoubleType(), true, {}},
                        LongField("numPartitions"),
                        LongField("largestPartitionSizeInBytes"),
                        LongField("medianPartitionSizeInBytes"),
                        LongField("numFilesWithDeletionVectors"),
                        LongField("numRowsDeletedByDeletionVectors"),
                        LongField("numDenseDeletionVectorFiles"),
                        LongField("numChangeDataFiles"),
                        LongField("changeDataSizeInBytes"),
                        Field{"lastOptimize", TimestampType(), true, {}},
                        Field{"lastVacuum", TimestampType(), true, {}},
                        LongField("lastCheckpointVersion"),
                        LongField("commitsSinceCheckpoint"),
                        LongField("numFilesToVacuum"),
                        LongField("vacuumSizeInBytes"),
                        Field{"advice", ListType(StringType()), true, {}}});
  size_t column = 0;
  result.column(column++).AppendString(health.location);
  result.column(column++).AppendInt(health.version);
  result.column(column++).AppendInt(health.num_files);
  result.column(column++).AppendInt(health.size_bytes);
  AppendOptionalInt(result.column(column++), health.num_rows);
  result.column(column++).AppendInt(health.small_file_bytes);
  result.column(column++).AppendInt(health.small_files);
  result.column(column++).AppendDouble(
      health.num_files == 0 ? 0.0 : static_cast<double>(health.small_files) / health.num_files);
  result.column(column++).AppendInt(static_cast<int64_t>(health.partitions.size()));
  result.column(column++).AppendInt(health.partitions.empty() ? 0 : health.partitions[0].bytes);
  result.column(column++).AppendInt(health.median_partition_bytes);
  result.column(column++).AppendInt(static_cast<int64_t>(health.deletion_vectors.size()));
  result.column(column++).AppendInt(health.deleted_rows);
  result.column(column++).AppendInt(health.dense_deletion_vector_files);
  result.column(column++).AppendInt(health.change_data_files);
  result.column(column++).AppendInt(health.change_data_bytes);
  AppendOptionalTimestamp(result.column(column++), health.last_optimize_ms);
  AppendOptionalTimestamp(result.column(column++), health.last_vacuum_ms);
  AppendOptionalInt(result.column(column++), health.last_checkpoint_version);
  result.column(column++).AppendInt(health.commits_since_checkpoint);
  AppendOptionalInt(result.column(column++),
                    health.vacuum ? std::optional<int64_t>(health.vacuum->files) : std::nullopt);
  AppendOptionalInt(result.column(column++),
                    health.vacuum ? std::optional<int64_t>(health.vacuum->bytes) : std::nullopt);
  VectorBuilder& advice = result.column(column++);
  for (const HealthAdvice& item : health.advice) advice.child(0).AppendString(item.message);
  advice.FinishList();
  return result.Finish();
}

}  // namespace silt::commands::internal
