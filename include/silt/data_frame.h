#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "silt/result.h"

namespace silt {

class Session;

/// A query that runs when asked: made by Session::Sql or Session::Table, run by Collect, Stream,
/// Count and Show. Making one parses and analyses the query (so a syntax error, a missing table or an
/// unknown column throws then, as in Spark): that reads the tables' logs but no rows, except for
/// uncorrelated scalar subqueries, which the planner evaluates. Each action then plans and runs
/// the query anew against the tables' current versions (a time-travel clause pins a version).
///
/// A DataFrame made from a statement that is not a query (CREATE, INSERT, DESCRIBE, SHOW, ...)
/// ran that statement when it was made, as Spark does; its actions return the statement's rows.
///
/// Cheap to copy; holds a reference to the session, which must outlive it. Not thread-safe (as
/// the Session): one action at a time per session.
class DataFrame {
 public:
  /// Runs the query and returns every row.
  Result Collect() const;
  /// Runs the query and returns its rows as they are produced (see ResultStream): for results
  /// too big to hold, or to act on the first rows early. A statement that ran when the
  /// DataFrame was made streams the rows it returned.
  ResultStream Stream() const;
  /// Runs the query and returns its number of rows (Spark's count(): it runs as
  /// SELECT count(*) FROM (query), so only the columns needed to count rows are read).
  int64_t Count() const;
  /// The columns as analysed when the DataFrame was made.
  const std::vector<ColumnInfo>& Schema() const;
  /// Runs the query and returns the text Spark's show(num_rows, truncate) prints: at most
  /// `num_rows` rows (only that many, plus one to know whether there are more, are produced), cells
  /// cut to `truncate` characters (0: never), "only showing top N rows" when rows were left out.
  std::string Show(int64_t num_rows = 20, int truncate = 20) const;

  /// The statement's source text.
  const std::string& sql() const;
  /// Makes the query a temporary view `name` of its session (CREATE OR REPLACE TEMP VIEW), as
  /// Spark's createOrReplaceTempView: in a foreachBatch function, SQL can then name the batch.
  void CreateOrReplaceTempView(const std::string& name) const;
  /// The session the DataFrame belongs to (in a foreachBatch function: the query's session).
  Session& session() const;

 private:
  friend struct api::Access;
  struct Impl;
  explicit DataFrame(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

  std::shared_ptr<const Impl> impl_;
};

}  // namespace silt
