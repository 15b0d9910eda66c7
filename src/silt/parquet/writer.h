#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "silt/io/file_system.h"
#include "silt/parquet/metadata.h"
#include "silt/vector/batch.h"

namespace silt {
class ThreadPool;
}

namespace silt::parquet {

struct WriterOptions {
  CompressionCodec codec = CompressionCodec::kSnappy;  ///< As Spark and delta-rs write.
  int compression_level = 0;                           ///< 0 = the codec's default.
  int64_t row_group_bytes = 128ll << 20;    ///< Target uncompressed bytes per row group.
  int64_t row_group_max_rows = 1ll << 18;   ///< Upper bound of rows per row group.
  int64_t page_bytes = 1ll << 20;           ///< Target uncompressed bytes per data page.
  bool dictionary = true;                   ///< Try dictionary encoding first.
  int64_t dictionary_page_bytes = 1ll << 20;  ///< Fall back to PLAIN beyond this.
  size_t statistics_truncate_bytes = 64;    ///< Longer string/binary min/max are truncated
                                            ///< to still-valid bounds.
  bool write_field_ids = false;  ///< From field metadata "parquet.field.id".
  std::vector<KeyValue> key_value_metadata;
  /// Pool for encoding columns in parallel; nullptr = ThreadPool::Default().
  ThreadPool* pool = nullptr;
  size_t max_parallelism = 0;
};

/// Writes batches of one schema as a Parquet file: timestamps as INT64 µs (UTC-adjusted for
/// timestamp, not for timestamp_ntz), decimals in INT32/INT64/FIXED_LEN_BYTE_ARRAY by precision,
/// three-level LISTs and MAPs, `created_by` "silt version <v>". Not thread-safe.
class FileWriter {
 public:
  static std::unique_ptr<FileWriter> Open(std::unique_ptr<io::OutputStream> out, Schema schema,
                                          WriterOptions options = {});
  virtual ~FileWriter() = default;

  /// Buffers `batch` (its schema must equal the writer's) and flushes full row groups.
  virtual void Write(const Batch& batch) = 0;
  /// Flushes, writes the footer, closes the stream, and returns the footer.
  virtual FileMetaData Close() = 0;
  /// Bytes written so far (the file's size once closed).
  virtual uint64_t bytes_written() const = 0;
};

}  // namespace silt::parquet
