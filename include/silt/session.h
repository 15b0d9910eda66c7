#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "silt/base/progress.h"
#include "silt/error.h"
#include "silt/types/time_zone.h"
#include "silt/vector/batch.h"

namespace silt {

namespace sql {
class SessionState;
}

/// How a Session starts.
struct SessionOptions {
  /// The warehouse folder for named tables; empty = $SILT_WAREHOUSE, else "./silt-warehouse".
  std::string warehouse;
  /// Initial options, as `--conf key=value` or `SET key=value` would set them.
  std::map<std::string, std::string> conf;
};

/// The rows one statement returned (none for statements that return nothing).
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
  /// The statement's source text.
  const std::string& statement_text() const { return text_; }

 private:
  SchemaPtr schema_;
  std::vector<Batch> batches_;
  std::string text_;
  std::shared_ptr<const TimeZone> time_zone_;
};

/// A SQL session: the entry point of the C++ API, and what the shell and Python module drive.
/// One statement at a time (not thread-safe); several sessions may share a warehouse.
class Session {
 public:
  explicit Session(SessionOptions options = {});
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  /// Runs every `;`-separated statement of `sql` in order and returns the last one's output.
  /// The first failing statement throws; the statements before it stay committed.
  StatementOutput Sql(std::string_view sql);
  /// As Sql, calling `on_output` after each statement (the shell prints as it goes).
  void SqlEach(std::string_view sql, const std::function<void(const StatementOutput&)>& on_output);

  /// Cancels the statement running on this session. Safe from any thread and from a signal
  /// handler. The statement stops at its next check (between batches and files, and before it
  /// commits), commits nothing, removes the data files it wrote, and Sql/SqlEach throw
  /// OPERATION_CANCELED; the statements of the same call after it do not run. Without a running
  /// statement it does nothing: each Sql/SqlEach call starts uncancelled.
  void Cancel() noexcept;
  /// What the running statement has done so far (files, rows and bytes read and written, elapsed
  /// time). Between statements, running is false and the counters keep the last statement's
  /// totals. Safe from any thread, e.g. a progress timer.
  ProgressSnapshot StatementProgress() const;

  void SetConf(const std::string& key, const std::string& value);
  std::optional<std::string> GetConf(const std::string& key) const;
  const std::string& warehouse() const;

  /// The engine state behind the session, for layers built on it (DeltaTable, DataFrame).
  sql::SessionState& state() { return *state_; }

 private:
  class StatementFiles;

  std::unique_ptr<sql::SessionState> state_;
  std::shared_ptr<StatementFiles> files_;  // the data files the running statement created
};

}  // namespace silt
