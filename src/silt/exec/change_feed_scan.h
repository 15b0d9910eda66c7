#pragma once

#include <memory>
#include <string>
#include <vector>

#include "silt/exec/operator.h"
#include "silt/expr/expression.h"
#include "silt/log/change_feed.h"

namespace silt::exec {

/// A read of a table's change data feed (`table_changes`).
struct ChangeFeedScanSpec {
  std::shared_ptr<const log::ChangeFeed> feed;
  /// Output columns as indexes into feed->schema() (the table's columns, then _change_type,
  /// _commit_version, _commit_timestamp); empty = all.
  std::vector<int> columns;
  /// Optional row filter over the output columns, evaluated on the worker that decoded the rows.
  expr::ExpressionPtr filter;
  /// Conjuncts (over feed->schema() column names) that skip change files and row groups that
  /// cannot hold a matching row; see ChangeFeed::MakeReader.
  std::vector<log::ScanPredicate> predicates;
  /// For EXPLAIN: the table's name or path.
  std::string table_name;
};

/// Reads the change files of `spec.feed` in parallel through ScanStream (row groups spread over
/// the workers, bounded buffering), producing the chosen columns. Batches come in no particular
/// order. Counts each change file opened in ExecCounters::files_scanned and each one skipped by
/// the predicates in files_pruned. Next throws the first
/// error of any worker (DELTA_CHANGE_DATA_FILE_NOT_FOUND for a file that is gone, Parquet and
/// evaluation errors).
OperatorPtr MakeChangeFeedScan(ChangeFeedScanSpec spec);

}  // namespace silt::exec
