#pragma once

// Access to the engine behind the public API, for the code built with silt (the shell, tests,
// benchmarks, the layers of src/silt/api): the rows of a statement as batches, and the session
// state. Not installed; programs outside silt use include/silt/ only.

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
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

class StatementStream;

/// As Session::Execute, returning the last statement's batches.
StatementOutput RunStatements(Session& session, std::string_view sql);
/// As Session::Execute, calling `on_output` after each statement (the shell prints as it goes).
void RunStatementsEach(Session& session, std::string_view sql,
                       const std::function<void(const StatementOutput&)>& on_output);

/// As Session::Execute, calling `on_statement` with each statement's stream (the shell prints
/// rows as they come); a stream left unread is closed when the callback returns.
void RunStatementsStreamed(Session& session, std::string_view sql,
                           const std::function<void(StatementStream&)>& on_statement);

/// As Session::ExecuteStream: runs every statement of `sql` but the last, and opens the last.
std::unique_ptr<StatementStream> StreamStatements(Session& session, std::string_view sql);

/// Hands the session's settings as they are now to its object stores (a statement's start: a
/// SET of spark.hadoop.fs.s3a.endpoint applies to the statements after it).
void ShareStoreSettings(Session& session);

/// Runs one parsed statement in `session`.
StatementOutput RunStatement(Session& session, const sql::Statement& statement);

/// One statement's rows as they are produced: the engine side of ResultStream, for the shell
/// and the Python module. A query is planned when the stream opens and pulled on a producer
/// thread of its own (with the statement stack), which runs at most kPrefetchBatches batches
/// ahead of the reader; any other statement runs to its end when the stream opens, and its rows
/// are read from memory. The stream keeps the session's state alive. One thread at a time calls
/// Next, Drain and Close; Cancel may be called from any thread.
class StatementStream {
 public:
  /// Batches the producer may hold ready beyond the one the reader has.
  static constexpr size_t kPrefetchBatches = 2;

  /// Opens `statement` in `session`. Throws what planning (or running, for a statement that is
  /// not a query) throws.
  static std::unique_ptr<StatementStream> Open(Session& session, const sql::Statement& statement);
  /// A stream of rows already made.
  static std::unique_ptr<StatementStream> OfRows(StatementOutput output);
  /// Closes the stream.
  ~StatementStream();
  StatementStream(const StatementStream&) = delete;
  StatementStream& operator=(const StatementStream&) = delete;

  /// Null for a statement that returns nothing.
  const SchemaPtr& schema() const { return schema_; }
  bool has_rows() const { return schema_ != nullptr; }
  const std::string& statement_text() const { return text_; }
  /// The zone the statement's timestamps display in (as StatementOutput::time_zone).
  const std::shared_ptr<const TimeZone>& time_zone() const { return time_zone_; }

  /// The next batch (never empty), or nullopt at the end and after Close. Throws the query's
  /// error once the batches before it were read, and OPERATION_CANCELED after Cancel or the
  /// session's Cancel; the stream is closed then.
  std::optional<Batch> Next();
  /// Waits until Next would return without waiting (a batch is ready, the query has ended, the
  /// stream was closed or cancelled), at most `timeout`; returns whether it would. For readers
  /// that watch for something else meanwhile (Python's signal handlers).
  bool WaitReady(std::chrono::milliseconds timeout);
  /// Every remaining batch, as one output; the producer no longer waits for the reader.
  StatementOutput Drain();
  /// Asks the query to stop: the next Next throws OPERATION_CANCELED.
  void Cancel() noexcept;
  /// Stops the query when it still runs and joins its thread; the plan, its memory and spill
  /// files are released when this returns.
  void Close();

 private:
  struct Producer;
  StatementStream() = default;

  SchemaPtr schema_;
  std::string text_;
  std::shared_ptr<const TimeZone> time_zone_;
  // A statement that is not a query: its rows, and the next to return.
  std::vector<Batch> batches_;
  size_t next_ = 0;
  std::atomic<bool> rows_canceled_{false};
  // A query: the thread that produces its batches; null for other statements.
  std::unique_ptr<Producer> producer_;
};

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
  /// The session's state, owned with the session's other parts (which it keeps alive).
  static std::shared_ptr<sql::SessionState> SharedState(Session& session);
  static ResultStream MakeStream(std::unique_ptr<StatementStream> stream);
};

}  // namespace api
}  // namespace silt
