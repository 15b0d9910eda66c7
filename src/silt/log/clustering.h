#pragma once

// Liquid clustering (protocol "Clustered Table"): a table whose protocol lists the `clustering`
// writer feature keeps its clustering columns in the `delta.clustering` domain, as physical-name
// paths (`{"clusteringColumns":[["a"],["s","f"]]}`), and OPTIMIZE rewrites its files ordered by
// a curve over those columns, marking each file it wrote with `clusteringProvider` = "liquid"
// and the ZCube it belongs to in the `ZCUBE_ID` / `ZCUBE_ZORDER_BY` tags, as Delta does.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "silt/log/actions.h"
#include "silt/types/data_type.h"

namespace silt::log {

inline constexpr std::string_view kClusteringDomain = "delta.clustering";
/// The `clusteringProvider` of files OPTIMIZE clustered (Delta's liquid clustering).
inline constexpr std::string_view kLiquidClusteringProvider = "liquid";
/// Tags of a clustered file: the id of the OPTIMIZE job (ZCube) that wrote it, and the logical
/// clustering columns of that job as a JSON array of names.
inline constexpr std::string_view kZCubeIdTag = "ZCUBE_ID";
inline constexpr std::string_view kZCubeZOrderByTag = "ZCUBE_ZORDER_BY";
/// Delta's limit on the number of clustering columns.
inline constexpr int kMaxClusteringColumns = 4;

/// A column as a path of names from the top of the schema: {"s", "f"} for `s.f`.
using ColumnPath = std::vector<std::string>;

/// True when `protocol` supports the `clustering` writer feature (the table is clustered).
bool IsClusteringSupported(const Protocol& protocol);

/// The `delta.clustering` domain holding `physical_columns` (physical-name paths).
DomainMetadata ClusteringDomain(const std::vector<ColumnPath>& physical_columns);

/// The physical-name paths of a `delta.clustering` domain's configuration (each a list of names,
/// or a single name). Throws DELTA_INVALID_LOG_ENTRY when the configuration has no
/// `clusteringColumns` array.
std::vector<ColumnPath> ParseClusteringDomain(const DomainMetadata& domain);

/// The physical clustering columns recorded in `domains` (a snapshot's live domain metadata), or
/// nullopt when there is no `delta.clustering` domain.
std::optional<std::vector<ColumnPath>> PhysicalClusteringColumns(
    const std::map<std::string, DomainMetadata>& domains);

/// `physical_columns` as logical paths (field names) of `schema`. A physical name the schema does
/// not have throws DELTA_INVALID_LOG_ENTRY.
std::vector<ColumnPath> LogicalClusteringColumns(const std::vector<ColumnPath>& physical_columns,
                                                 const Schema& schema);

/// The logical clustering columns of the table `domains` and `schema` describe, spelled as
/// ColumnPathName does; empty for a table without clustering columns.
std::vector<std::string> ClusteringColumnNames(const std::map<std::string, DomainMetadata>& domains,
                                               const Schema& schema);

/// The physical-name path of logical column `logical` of `schema` (names matched without regard
/// to case; the physical name is the field's `delta.columnMapping.physicalName`, else its name).
/// Throws UNRESOLVED_COLUMN when the schema has no such column.
ColumnPath PhysicalColumnPath(const Schema& schema, const ColumnPath& logical);

/// `logical` spelled as Spark prints a column reference: parts joined with `.`, each back-quoted
/// when it is not a plain identifier (`a b`.c).
std::string ColumnPathName(const ColumnPath& logical);

/// Checks clustering columns for a table with `metadata` (schema and properties), as Delta does
/// at CREATE TABLE, ALTER TABLE CLUSTER BY and CTAS, in Delta's order: at most four
/// (DELTA_CLUSTER_BY_INVALID_NUM_COLUMNS), each in the schema (UNRESOLVED_COLUMN), none twice
/// (DELTA_DUPLICATE_COLUMNS_FOUND), and each a column with min/max statistics: of a type data
/// skipping supports (DELTA_CLUSTERING_COLUMNS_DATATYPE_NOT_SUPPORTED) and among the first
/// `delta.dataSkippingNumIndexedCols` leaf columns (DELTA_CLUSTERING_COLUMN_MISSING_STATS).
/// Returns the columns with the schema's spelling of each name.
std::vector<ColumnPath> ValidateClusteringColumns(const Metadata& metadata,
                                                  const std::vector<ColumnPath>& logical);

}  // namespace silt::log
