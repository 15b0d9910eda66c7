#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "silt/exec/memory.h"
#include "silt/vector/batch.h"

namespace silt::io {
class OutputStream;
class RandomAccessFile;
}  // namespace silt::io

namespace silt::exec {

struct ExecCounters;

/// Batches moved out of memory: written once, in order, then read back once, in the same order.
/// The file lives in the query's spill folder (QueryMemory) and is deleted when this object is
/// destroyed. The format (docs/format/spill_file.md) is the vectors' own buffers, so writing and
/// reading copy bytes without converting values. Not thread-safe.
class SpillFile {
 public:
  /// Creates a file for batches of `schema` in `memory`'s spill folder; counts it and the bytes
  /// written in `counters` (may be null). Throws IO_ERROR when it cannot be created.
  SpillFile(QueryMemory& memory, SchemaPtr schema, ExecCounters* counters);
  ~SpillFile();
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;

  /// Appends a batch of the file's schema (zero rows: nothing). Before FinishWriting only.
  void Append(const Batch& batch);
  /// Flushes and closes the file for writing; reads may start.
  void FinishWriting();
  /// The next batch, in the order written, or nullopt after the last. Calls FinishWriting
  /// first when it was not called. Throws IO_ERROR when the file cannot be read back.
  std::optional<Batch> ReadNext();

  const SchemaPtr& schema() const { return schema_; }
  int64_t num_rows() const { return num_rows_; }
  int64_t num_bytes() const { return num_bytes_; }

 private:
  struct TypeTree {
    DataTypePtr type;
    std::vector<TypeTree> children;
  };
  static TypeTree TreeOf(const Vector& vector);
  void Flush();

  std::string path_;
  SchemaPtr schema_;
  ExecCounters* counters_;
  std::vector<TypeTree> column_types_;  // the vectors' type trees (children included)
  std::unique_ptr<io::OutputStream> output_;
  std::unique_ptr<io::RandomAccessFile> input_;
  std::string pending_;  // encoded blocks not yet written
  uint64_t read_offset_ = 0;
  int64_t num_rows_ = 0;
  int64_t num_bytes_ = 0;
};

class Operator;

/// An operator that returns the batches of `file` (its schema), and deletes the file once they
/// have all been read or the operator is destroyed. For operators that spill their input and
/// process it again from disk.
std::unique_ptr<Operator> MakeSpillFileSource(std::unique_ptr<SpillFile> file);

}  // namespace silt::exec
