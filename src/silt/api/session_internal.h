#pragma once

// Access to the engine behind the public API, for the code built with silt (the shell, tests,
// benchmarks, the layers of src/silt/api): the rows of a statement as batches, and the session
// state. Not installed; programs outside silt use include/silt/ only.

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "silt/result.h"
#include "silt/session.h"
#include "silt/base/progress.h"
#include "silt/types/time_zone.h"
#include "silt/vector/batch.h"

namespace silt {

namespace sql {
class SessionState;
struct Statement;
}  // namespace sql

/// The rows one statement returned (none for statements that return nothing), as batches.
class StatementOutput {
 public:
  StatementOutput() = default;
  StatementOutput(SchemaPtr schema, std::vector<Batch> batches, std::string statement_text,
                  std::shared_ptr<const TimeZone> time_zone = nullptr)
      : schema_(std::move(schema)),
        batches_(std::move(batches)),
        text_(std::move(statement_text)),
        time_zone_(std::move(time_zone)) {}
  /// False for statements that return nothing (CREATE TABLE, INSERT, SET key=value, ...).
  bool has_rows() const { return schema_ != nullptr; }
  const SchemaPtr& schema() const { return schema_; }
  const std::vector<Batch>& batches() const { return batches_; }
  int64_t num_rows() const;
  /// The rows as Spark shows them: TIMESTAMP values as wall-clock time of the session time zone
  /// in effect when the statement ran (batches() keeps the instants, in UTC). For printing only.
  std::vector<Batch> DisplayBatches() const;
  /// The zone DisplayBatches shows timestamps in; null for statements without rows.
  const std::shared_ptr<const TimeZone>& time_zone() const { return time_zone_; }
  /// The statement's source text.
  const std::string& statement_text() const { return text_; }

 private:
  SchemaPtr schema_;
  std::vector<Batch> batches_;
  std::string text_;
  std::shared_ptr<const TimeZone> time_zone_;
};

namespace api {

/// The engine state behind `session`, for layers built on it.
sql::SessionState& StateOf(Session& session);

/// As Session::Execute, returning the last statement's batches.
StatementOutput RunStatements(Session& session, std::string_view sql);
/// As Session::Execute, calling `on_output` after each statement (the shell prints as it goes).
void RunStatementsEach(Session& session, std::string_view sql,
                       const std::function<void(const StatementOutput&)>& on_output);

/// Runs one parsed statement in `session`.
StatementOutput RunStatement(Session& session, const sql::Statement& statement);

/// The batches behind a public Result, and a Result over batches.
const StatementOutput& OutputOf(const Result& result);
Result MakeResult(StatementOutput output);

/// Friend of the public classes: reaches their private parts for the functions above.
/// The session's file system wrapper that records the files a running statement creates (so a
/// cancelled statement can remove them) and counts what it writes (defined in session.cc).
class StatementFiles;

/// What the running statement has done so far (files, rows and bytes read and written, elapsed
/// time). Between statements, running is false and the counters keep the last statement's
/// totals. Safe from any thread, e.g. a progress timer.
ProgressSnapshot StatementProgress(const Session& session);

struct Access {
  static sql::SessionState& State(Session& session);
  static StatementFiles& Files(Session& session);
  static const StatementOutput& Output(const Result& result);
  static Result Make(StatementOutput output);
  static DataFrame MakeDataFrame(Session& session, std::string_view sql);
};

}  // namespace api
}  // namespace silt
