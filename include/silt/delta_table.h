#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "silt/data_frame.h"
#include "silt/result.h"
#include "silt/session.h"

namespace silt {

/// What a MERGE reads its rows from: a table or view by name, a Delta table by path, or a query.
/// Give it an alias to name its columns in conditions and expressions (`s.id`); without one, a
/// named table's columns are qualified by its name, and a path table's and a query's columns
/// only by column name (so give those an alias whenever the target has the same columns).
class MergeSource {
 public:
  /// A table or view: a Spark multi-part identifier such as `updates`, `db.updates` or
  /// "`odd name`" (back quotes, doubled inside, around parts that are not plain identifiers).
  static MergeSource Table(std::string name);
  /// The Delta table stored at `path` (read as delta.`path`; as in Spark, a path ending in
  /// `@v<n>` or `@<yyyyMMddHHmmssSSS>` is read as that version of the table before it).
  static MergeSource Path(std::string path);
  /// The rows of one Spark SQL query, e.g. "SELECT * FROM updates QUALIFY ...".
  static MergeSource Query(std::string sql);

  /// Returns a copy that the merge condition and clauses name `alias` (any text; it is quoted).
  MergeSource Alias(std::string alias) const;

  /// The source as it appears after USING in the generated statement, alias included.
  /// Throws PARSE_SYNTAX_ERROR / INVALID_PARAMETER_VALUE for a malformed name or query.
  std::string ToSql() const;

 private:
  enum class Kind { kTable, kPath, kQuery };
  MergeSource(Kind kind, std::string text) : kind_(kind), text_(std::move(text)) {}

  Kind kind_;
  std::string text_;
  std::string alias_;
};

/// Builds one MERGE INTO statement clause by clause, as delta-spark's DeltaMergeBuilder does.
/// Conditions and values are Spark SQL expression text; `set`/`values` keys are target column
/// names (multi-part for nested fields: "address.city"; back-quoted when odd: "`a b`"). Clauses
/// keep the order they were added in: within each group (MATCHED, NOT MATCHED, NOT MATCHED BY
/// SOURCE) the first whose condition holds wins, and only the last of a group may omit its
/// condition. Nothing runs before Execute(). Holds a reference to the session it came from.
class MergeBuilder {
 public:
  /// WHEN MATCHED [AND condition] THEN UPDATE SET key = value, ...
  MergeBuilder& WhenMatchedUpdate(std::map<std::string, std::string> set,
                                  std::string condition = "");
  /// WHEN MATCHED [AND condition] THEN UPDATE SET * (columns mapped by name).
  MergeBuilder& WhenMatchedUpdateAll(std::string condition = "");
  /// WHEN MATCHED [AND condition] THEN DELETE
  MergeBuilder& WhenMatchedDelete(std::string condition = "");
  /// WHEN NOT MATCHED [AND condition] THEN INSERT (keys) VALUES (values); columns not named get
  /// NULL or their generated value.
  MergeBuilder& WhenNotMatchedInsert(std::map<std::string, std::string> values,
                                     std::string condition = "");
  /// WHEN NOT MATCHED [AND condition] THEN INSERT * (columns mapped by name).
  MergeBuilder& WhenNotMatchedInsertAll(std::string condition = "");
  /// WHEN NOT MATCHED BY SOURCE [AND condition] THEN UPDATE SET key = value, ...
  MergeBuilder& WhenNotMatchedBySourceUpdate(std::map<std::string, std::string> set,
                                             std::string condition = "");
  /// WHEN NOT MATCHED BY SOURCE [AND condition] THEN DELETE
  MergeBuilder& WhenNotMatchedBySourceDelete(std::string condition = "");
  /// MERGE WITH SCHEMA EVOLUTION: source columns the target lacks are added by `*` clauses.
  MergeBuilder& WithSchemaEvolution();

  /// The MERGE statement Execute() runs. Throws as Execute() does for malformed input.
  std::string StatementText() const;
  /// Runs the merge in one commit and returns one row: num_affected_rows, num_updated_rows,
  /// num_deleted_rows, num_inserted_rows. Throws the engine's errors (e.g.
  /// DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE, DELTA_MERGE_MISSING_WHEN when no
  /// clause was added); nothing is committed then. The builder may be executed again.
  Result Execute();

 private:
  friend class DeltaTable;
  struct Clause {
    std::string group;      // "MATCHED", "NOT MATCHED", "NOT MATCHED BY SOURCE"
    std::string condition;  // rendered; empty when the clause has none
    std::string action;     // the SQL after THEN, already rendered
  };
  MergeBuilder(Session& session, std::string target, MergeSource source, std::string condition)
      : session_(&session),
        target_(std::move(target)),
        source_(std::move(source)),
        condition_(std::move(condition)) {}
  MergeBuilder& AddClause(std::string group, std::string condition, std::string action);

  Session* session_;
  std::string target_;  // rendered, alias included
  MergeSource source_;
  std::string condition_;
  std::vector<Clause> clauses_;
  bool schema_evolution_ = false;
};

/// An OPTIMIZE being built: `Where` limits it to partitions, then one of the Execute calls runs
/// it and returns Delta's result row (path, metrics).
class OptimizeBuilder {
 public:
  /// Only the partitions matching `partition_filter` (a predicate on partition columns).
  OptimizeBuilder& Where(std::string partition_filter);
  /// Bin-packs small files (OPTIMIZE t [WHERE ...]).
  Result ExecuteCompaction();
  /// Rewrites the files sorted by the Z-order of `columns` (OPTIMIZE ... ZORDER BY (...)).
  /// Throws INVALID_PARAMETER_VALUE when `columns` is empty.
  Result ExecuteZOrderBy(const std::vector<std::string>& columns);
  /// The OPTIMIZE statement the builder runs (without ZORDER BY).
  std::string StatementText() const;

 private:
  friend class DeltaTable;
  OptimizeBuilder(Session& session, std::string table)
      : session_(&session), table_(std::move(table)) {}

  Session* session_;
  std::string table_;
  std::string where_;
};

/// A Delta table, for programs that drive silt from C++ rather than SQL text: the operations of
/// delta-spark's DeltaTable. Each call generates the equivalent SQL statement (identifiers
/// back-quoted, paths escaped) and runs it through the session, so behaviour, metrics and error
/// classes are the SQL engine's. Cheap to copy; holds a reference to the session, which must
/// outlive it. Not thread-safe (as the Session).
class DeltaTable {
 public:
  /// The Delta table stored at `path`. Throws DELTA_MISSING_DELTA_TABLE when there is none.
  static DeltaTable ForPath(Session& session, const std::string& path);
  /// The table `name`, a Spark multi-part identifier ("t", "db.t", "`odd name`"). Throws
  /// TABLE_OR_VIEW_NOT_FOUND when the catalog has no such table, PARSE_SYNTAX_ERROR for a
  /// malformed name, and the engine's error when it is not a Delta table.
  static DeltaTable ForName(Session& session, const std::string& name);

  /// Returns a copy whose operations name the table `alias` in conditions (`t.id`).
  DeltaTable Alias(std::string alias) const;

  /// Starts a MERGE of `source` into this table on `condition` (Spark SQL text).
  MergeBuilder Merge(MergeSource source, std::string condition) const;
  /// UPDATE ... SET key = value, ... [WHERE condition]; returns num_affected_rows.
  /// Throws INVALID_PARAMETER_VALUE when `set` is empty.
  Result Update(const std::map<std::string, std::string>& set,
                const std::string& condition = "") const;
  /// DELETE FROM ... [WHERE condition]; returns num_affected_rows.
  Result Delete(const std::string& condition = "") const;
  /// DESCRIBE HISTORY, newest commit first; `limit` 0 returns every commit.
  Result History(int64_t limit = 0) const;
  /// The table's rows as a DataFrame (delta-spark's toDF()): SELECT * of the version current when
  /// an action runs.
  DataFrame ToDF() const;
  /// Every row of the current version (SELECT *), read now.
  Result ToRows() const;
  /// DESCRIBE DETAIL: one row of format, location, sizes, properties, protocol versions.
  Result Detail() const;

  /// RESTORE TABLE ... TO VERSION AS OF `version`; returns Delta's restore metrics row.
  Result RestoreToVersion(int64_t version) const;
  /// RESTORE TABLE ... TO TIMESTAMP AS OF `timestamp` (a timestamp or date string, read in the
  /// session time zone).
  Result RestoreToTimestamp(const std::string& timestamp) const;
  /// VACUUM with the table's retention (`delta.deletedFileRetentionDuration`, 7 days), or
  /// RETAIN `retention_hours` HOURS.
  Result Vacuum() const;
  Result Vacuum(double retention_hours) const;
  /// Starts an OPTIMIZE of this table (delta-spark's `optimize()`).
  OptimizeBuilder Optimize() const;

  /// CONVERT TO DELTA `identifier` (Spark SQL text, e.g. parquet.`/data/events`), with the
  /// partition columns as a DDL string ("day DATE, region STRING") when the folder is
  /// partitioned; returns the converted table.
  static DeltaTable ConvertToDelta(Session& session, const std::string& identifier,
                                   const std::string& partition_schema = "");

  /// The table as the generated statements name it (without the alias).
  const std::string& table_sql() const { return table_; }

 private:
  DeltaTable(Session& session, std::string table) : session_(&session), table_(std::move(table)) {}
  std::string TargetSql() const;

  Session* session_;
  std::string table_;
  std::string alias_;
};

}  // namespace silt
