#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "silt/data_frame.h"
#include "silt/error.h"
#include "silt/result.h"
#include "silt/streaming.h"

namespace silt {

/// How a Session starts.
struct SessionOptions {
  /// The warehouse folder for named tables; empty = $SILT_WAREHOUSE, else "./silt-warehouse".
  std::string warehouse;
  /// Initial options, as `--conf key=value` or `SET key=value` would set them.
  std::map<std::string, std::string> conf;
};

/// A SQL session: the entry point of the C++ API. It holds the current database, temporary views
/// and options (spark.sql.session.timeZone, spark.sql.ansi.enabled, Delta's defaults) of one
/// user. One statement at a time (not thread-safe); several sessions, in one process or many,
/// may share a warehouse: Delta's commit protocol keeps their writes consistent.
///
/// Every method throws silt::Error on failure: the class names the condition (Delta's or Spark's
/// name where one exists), the category says whether retrying may help.
class Session {
 public:
  /// Opens a session over `options.warehouse`. Touches no file: the folder appears with the
  /// first table or database written into it.
  explicit Session(SessionOptions options = {});
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  /// Runs every `;`-separated statement of `sql` now, in order, and returns the last one's rows.
  /// The whole text is parsed first: a syntax error anywhere runs nothing. The first failing
  /// statement throws; the statements before it stay committed. Text without a statement throws
  /// PARSE_EMPTY_STATEMENT.
  Result Execute(std::string_view sql);
  /// As Execute, but the last statement's rows come as a ResultStream, as they are produced:
  /// the statements before it run now, a last query is planned now and runs as the stream is
  /// read (any other last statement runs now, and the stream returns its rows).
  ResultStream ExecuteStream(std::string_view sql);

  /// One statement, as Spark's spark.sql(): a query becomes a DataFrame that runs when asked;
  /// any other statement runs now (see DataFrame). Throws PARSE_SYNTAX_ERROR for text that is not
  /// exactly one statement, and the analysis errors (TABLE_OR_VIEW_NOT_FOUND,
  /// UNRESOLVED_COLUMN, ...) of a query.
  DataFrame Sql(std::string_view sql);
  /// Every row of the table or view `name`, a Spark multi-part identifier ("t", "db.t",
  /// "`odd name`", "delta.`/path/to/table`"), as Spark's spark.table(). Throws
  /// TABLE_OR_VIEW_NOT_FOUND when there is none, INVALID_PARAMETER_VALUE for a malformed name.
  DataFrame Table(std::string_view name);

  /// Reads a table as a stream (Spark's spark.readStream): see streaming.h.
  DataStreamReader ReadStream() { return DataStreamReader(*this); }
  /// Cancels the statement running on this session. Safe from any thread and from a signal
  /// handler. The statement stops at its next check (between batches and files, and before it
  /// commits), commits nothing, removes the data files it wrote, and Execute throws
  /// OPERATION_CANCELED; the statements of the same call after it do not run. A ResultStream of
  /// the session that is still producing rows stops too (its Next throws OPERATION_CANCELED).
  /// Without a running statement it does nothing: each Execute call starts uncancelled.
  void Cancel() noexcept;

  /// Sets an option, as `--conf key=value` does: a bad value of an option silt reads
  /// (INVALID_CONFIGURATION) is reported by the first statement that reads it.
  void SetConf(const std::string& key, const std::string& value);
  /// The option's value, or nullopt when it was never set.
  std::optional<std::string> GetConf(const std::string& key) const;
  /// The warehouse folder of named tables.
  const std::string& warehouse() const;

 private:
  friend struct api::Access;
  struct Impl;
  // Shared with the ResultStreams of the session, which may outlive it.
  std::shared_ptr<Impl> impl_;
};

}  // namespace silt
