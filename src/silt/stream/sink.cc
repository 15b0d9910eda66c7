#include "silt/stream/sink.h"

#include "silt/base/ascii.h"
#include "silt/base/check.h"
#include "silt/commands/statement_executor.h"

namespace silt::stream {

OutputMode ParseOutputMode(std::string_view text) {
  std::string lower = AsciiLower(text);
  if (lower == "append") return OutputMode::kAppend;
  if (lower == "complete") return OutputMode::kComplete;
  if (lower == "update") return OutputMode::kUpdate;
  SILT_THROW(INVALID_STREAMING_OPTION, {{"value", std::string(text)},
                                        {"option", "outputMode"},
                                        {"reason", "expected append, complete or update"}});
}

std::string_view OutputModeName(OutputMode mode) {
  switch (mode) {
    case OutputMode::kAppend:
      return "Append";
    case OutputMode::kComplete:
      return "Complete";
    case OutputMode::kUpdate:
      return "Update";
  }
  return "Append";
}

std::vector<Batch> BatchContext::Run(SchemaPtr* schema) const {
  sql::Statement statement;
  statement.kind = sql::StatementKind::kQuery;
  statement.query = query;
  statement.source_text = query_sql;
  commands::StatementResult result = commands::ExecuteStatement(*session, statement);
  if (schema != nullptr) *schema = result.schema;
  return std::move(result.batches);
}

namespace {

class ForEachBatchSink final : public Sink {
 public:
  explicit ForEachBatchSink(ForEachBatchFunction function) : function_(std::move(function)) {}
  std::string Describe() const override { return "ForeachBatchSink"; }
  std::optional<int64_t> AddBatch(const BatchContext& batch) override {
    function_(batch);
    return std::nullopt;
  }

 private:
  ForEachBatchFunction function_;
};

}  // namespace

std::unique_ptr<Sink> MakeForEachBatchSink(ForEachBatchFunction function) {
  return std::make_unique<ForEachBatchSink>(std::move(function));
}

}  // namespace silt::stream
