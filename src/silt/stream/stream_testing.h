#pragma once

// A GoogleTest fixture for the streaming tests: the DML fixture's session over a temporary
// warehouse, plus helpers that run a streaming query into a Delta table or a function.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "silt/commands/dml_testing.h"
#include "silt/io/path.h"
#include "silt/sql/parser.h"
#include "silt/stream/delta_sink.h"
#include "silt/stream/stream_execution.h"
#include "silt/stream/streaming_table.h"

namespace silt::stream {

class StreamTest : public commands::DmlTest {
 protected:
  /// A streaming query over `query_sql` (which reads STREAM(...)) with its checkpoint at
  /// `checkpoint` (a folder name under the temporary folder).
  std::unique_ptr<StreamExecution> Make(const std::string& query_sql, std::unique_ptr<Sink> sink,
                                        const std::map<std::string, std::string>& options = {},
                                        TriggerKind trigger = TriggerKind::kAvailableNow,
                                        OutputMode mode = OutputMode::kAppend,
                                        const std::string& checkpoint = "checkpoint") {
    StreamSpec spec;
    spec.query = sql::ParseStatement(query_sql).query;
    spec.source = OpenStreamSource(*state_, *spec.query, StreamOptions(options));
    spec.sink = std::move(sink);
    spec.checkpoint_location = CheckpointPath(checkpoint);
    spec.trigger.kind = trigger;
    spec.output_mode = mode;
    return std::make_unique<StreamExecution>(*state_, std::move(spec));
  }

  /// A Delta sink into warehouse table `table`, which must exist.
  std::unique_ptr<Sink> SinkInto(const std::string& table, DeltaSinkOptions options = {}) {
    return MakeDeltaSink(fs_, Location(table), options);
  }

  /// Runs `query_sql` into `table` once (available-now unless told); returns its progress.
  std::vector<QueryProgress> RunInto(const std::string& table, const std::string& query_sql,
                                     const std::map<std::string, std::string>& options = {},
                                     TriggerKind trigger = TriggerKind::kAvailableNow,
                                     OutputMode mode = OutputMode::kAppend,
                                     const std::string& checkpoint = "checkpoint") {
    DeltaSinkOptions sink;
    sink.output_mode = mode;
    auto execution = Make(query_sql, SinkInto(table, sink), options, trigger, mode, checkpoint);
    execution->Run();
    return execution->RecentProgress();
  }

  std::string CheckpointPath(const std::string& name) const {
    return io::JoinPath(folder_.path(), name);
  }

  /// The error class `body` throws, or "no error".
  template <typename Body>
  static std::string ErrorOf(Body&& body) {
    try {
      body();
    } catch (const Error& error) {
      return std::string(error.error_class());
    }
    return "no error";
  }
};

}  // namespace silt::stream
