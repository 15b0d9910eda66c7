#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "silt/exec/operator.h"
#include "silt/sql/ast.h"
#include "silt/sql/logical_plan.h"
#include "silt/sql/session_state.h"

/// Spark's analysis of a query: resolves tables (catalog tables, paths, time travel, temp views,
/// CTEs), names, aggregates, windows, generators and subqueries, and produces a logical plan
/// whose root outputs the query's columns with the names Spark gives them.
namespace silt::sql {

class QueryBinder {
 public:
  /// `context` runs uncorrelated scalar, IN and EXISTS subqueries that cannot become joins.
  QueryBinder(SessionState& session, exec::ExecContext& context);
  ~QueryBinder();
  QueryBinder(const QueryBinder&) = delete;
  QueryBinder& operator=(const QueryBinder&) = delete;

  /// The logical plan of `query`. Throws the analysis error classes, positioned at the text.
  LogicalPtr Bind(const Query& query);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace silt::sql
