#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

namespace silt::stream {

// The steps of a micro-batch where crash tests stop the process (docs/streaming.md): the hook
// sees each step as it is reached. Production code never sets one.
inline constexpr std::string_view kAfterOffsetsWritten = "after_offsets_written";
inline constexpr std::string_view kDuringStateWrite = "during_state_write";
inline constexpr std::string_view kAfterStateWritten = "after_state_written";
inline constexpr std::string_view kAfterDataFilesWritten = "after_data_files_written";
inline constexpr std::string_view kAfterSinkCommit = "after_sink_commit";
inline constexpr std::string_view kAfterBatchCommitted = "after_batch_committed";
/// A file source has logged the files of its next batch (sources/0/<n>), before the batch's
/// offsets are written; the batch id reported is the log batch's.
inline constexpr std::string_view kAfterSourceLogWritten = "after_source_log_written";

/// Called at each step with its name and the batch id (process-wide; set before queries run).
using FaultHook = std::function<void(std::string_view step, int64_t batch_id)>;
void TestingSetFaultHook(FaultHook hook);

/// Reports reaching `step` of batch `batch_id` to the hook, if any.
void ReachFaultPoint(std::string_view step, int64_t batch_id);

}  // namespace silt::stream
