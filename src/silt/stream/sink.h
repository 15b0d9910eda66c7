#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "silt/sql/ast.h"
#include "silt/sql/session_state.h"
#include "silt/vector/batch.h"

namespace silt::stream {

/// Spark's output modes. Persisted in commitInfo as "Append" / "Complete" / "Update".
enum class OutputMode { kAppend, kComplete, kUpdate };

/// "append", "complete" or "update" in any case; INVALID_STREAMING_OPTION otherwise.
OutputMode ParseOutputMode(std::string_view text);
/// "Append", "Complete", "Update".
std::string_view OutputModeName(OutputMode mode);

/// One micro-batch as a sink sees it: its id, the query's id, and the batch's query, which
/// reads exactly the batch's input (a pinned stream input of `session`).
struct BatchContext {
  sql::SessionState* session = nullptr;
  int64_t batch_id = 0;
  std::string query_id;
  /// The batch's query as SQL text (it names the stream input, registered in the session while
  /// the batch runs) and as parsed.
  std::string query_sql;
  sql::QueryPtr query;
  OutputMode output_mode = OutputMode::kAppend;

  /// Runs the query: its rows and output schema.
  std::vector<Batch> Run(SchemaPtr* schema) const;
};

/// Where a streaming query's batches go (Spark's Sink). AddBatch must be idempotent per batch
/// id: recovery calls it again for a batch whose commit marker is missing, and the sink must
/// recognise a batch it already committed (the Delta sink's `txn` action) or the user must (a
/// foreachBatch function writing with txnAppId / txnVersion).
class Sink {
 public:
  virtual ~Sink() = default;
  /// For progress reports, e.g. "DeltaSink[/path/to/table]".
  virtual std::string Describe() const = 0;
  /// Writes the batch. Returns the rows written, or nullopt when the sink cannot tell.
  virtual std::optional<int64_t> AddBatch(const BatchContext& batch) = 0;
};

/// foreachBatch: calls `function` with the batch's query text (which the caller turns into a
/// DataFrame over the session) and the batch id.
using ForEachBatchFunction = std::function<void(const BatchContext& batch)>;
std::unique_ptr<Sink> MakeForEachBatchSink(ForEachBatchFunction function);

}  // namespace silt::stream
