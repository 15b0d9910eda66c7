// Feeds arbitrary bytes to the Parquet reader as an in-memory file and reads every column of
// every row group. Only silt::Error may escape the reader; anything else (a crash, a sanitizer
// report, an uncaught exception of another type, a hang or an out-of-memory) is a finding.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "silt/base/check.h"
#include "silt/io/file_system.h"
#include "silt/parquet/reader.h"

namespace {

// A read-only file over the fuzzer's buffer, without copying it.
class BytesFile final : public silt::io::RandomAccessFile {
 public:
  BytesFile(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint64_t Size() const override { return size_; }
  size_t ReadAt(uint64_t offset, size_t length, void* out) override {
    if (offset >= size_) return 0;
    size_t available = static_cast<size_t>(size_ - offset);
    size_t count = length < available ? length : available;
    if (count > 0) std::memcpy(out, data_ + offset, count);
    return count;
  }
  const std::string& path() const override { return path_; }

 private:
  const uint8_t* data_;
  size_t size_;
  std::string path_ = "fuzz.parquet";
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    auto reader = silt::parquet::FileReader::Open(std::make_shared<BytesFile>(data, size));
    silt::parquet::ReadOptions options;
    options.max_parallelism = 1;  // deterministic, and the fuzzer runs one input at a time
    reader->Read(options);
    // Statistics-based skipping reads the footer's min/max of every top-level column.
    for (const silt::Field& field : reader->schema().fields()) {
      silt::parquet::ReadOptions predicate;
      silt::parquet::StatsLiteral literal;
      literal.int_value = 1;
      literal.string_value = "m";
      predicate.predicates.push_back(
          {field.name, silt::parquet::ColumnPredicate::Op::kGreater, literal});
      reader->SelectRowGroups(predicate);
    }
  } catch (const silt::Error& error) {
    // Expected for malformed input, except an internal error: bad input must be reported as
    // such, never trip an invariant check.
    if (error.error_class() == "INTERNAL_ERROR") {
      std::fprintf(stderr, "%s\n", error.what());
      std::abort();
    }
  }
  return 0;
}
