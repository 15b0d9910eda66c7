#pragma once

#include <memory>
#include <string>
#include <vector>

#include "silt/io/file_system.h"
#include "silt/stream/sink.h"

namespace silt::stream {

/// How the Delta sink writes.
struct DeltaSinkOptions {
  OutputMode output_mode = OutputMode::kAppend;
  /// The table's partition columns when the sink creates it (partitionBy); a table that exists
  /// keeps its own, and a different list fails with DELTA_METADATA_MISMATCH.
  std::vector<std::string> partition_by;
  /// mergeSchema: columns the batch has and the table lacks are added to the table's schema in
  /// the batch's commit; without it they fail the batch with DELTA_METADATA_MISMATCH.
  bool merge_schema = false;
  /// The most rows a written file holds (`maxRecordsPerFile`; 0: no limit).
  int64_t max_rows_per_file = 0;
};

/// A Delta table as a streaming sink, as Delta's DeltaSink writes one: each batch is one commit
/// ("STREAMING UPDATE", with outputMode, queryId and epochId) that carries a `txn` action
/// (appId = the query id, version = the batch id), so a batch replayed after a crash finds its
/// own commit and writes nothing: exactly once. Append adds the batch's rows; complete replaces
/// the table's rows with them; update is refused (DELTA_UNSUPPORTED_OUTPUT_MODE). Columns are
/// matched by name; a table column the batch lacks is written as NULL. The table must exist
/// (MakeDeltaSink's caller creates it before the first batch).
std::unique_ptr<Sink> MakeDeltaSink(std::shared_ptr<io::FileSystem> fs, std::string table_root,
                                    DeltaSinkOptions options);

}  // namespace silt::stream
