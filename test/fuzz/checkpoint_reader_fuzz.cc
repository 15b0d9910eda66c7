// Feeds arbitrary bytes to the Delta checkpoint reader as a classic Parquet checkpoint in an
// in-memory table and turns every row into actions (the descriptors of deletion vectors, partition
// values, statistics from stats_parsed, ...). Only silt::Error may escape, and never an internal
// error; a crash, a sanitizer report, another exception type, a hang or an out-of-memory is a
// finding.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "silt/base/check.h"
#include "silt/base/thread_pool.h"
#include "silt/io/file_system.h"
#include "silt/log/checkpoint_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static silt::ThreadPool pool(1);  // deterministic, and the fuzzer runs one input at a time
  try {
    auto fs = silt::io::MakeMemoryFileSystem();
    const std::string log_dir = "t/_delta_log";
    const std::string path = log_dir + "/00000000000000000001.checkpoint.parquet";
    fs->WriteFile(path, std::string_view(reinterpret_cast<const char*>(data), size));
    silt::log::Checkpoint checkpoint;
    checkpoint.version = 1;
    checkpoint.files.push_back(*fs->Stat(path));
    silt::log::ReadCheckpoint(*fs, log_dir, checkpoint, &pool);
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
