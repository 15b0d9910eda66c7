#pragma once

// The command line the table benchmarks share: `<name> [--rows N] [--threads T]`, and the thread
// count both engines run with.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "silt/base/thread_pool.h"

namespace silt::bench {

struct RowsAndThreads {
  int64_t rows = 10000000;  ///< rows of the main table
  int threads = 2;          ///< worker threads of silt and of DuckDB alike
};

/// Parses `--rows N` and `--threads T`; prints the usage or the error to stderr and returns
/// nullopt for anything else or a value that is not positive.
inline std::optional<RowsAndThreads> ParseRowsAndThreads(int argc, char** argv, const char* name) {
  RowsAndThreads parsed;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--rows" && i + 1 < argc) {
      parsed.rows = std::atoll(argv[++i]);
    } else if (arg == "--threads" && i + 1 < argc) {
      parsed.threads = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: %s [--rows N] [--threads T]\n", name);
      return std::nullopt;
    }
  }
  if (parsed.rows <= 0 || parsed.threads <= 0) {
    std::fprintf(stderr, "--rows and --threads must be positive\n");
    return std::nullopt;
  }
  return parsed;
}

/// Sizes silt's process-wide worker pool (ThreadPool::Default(), which every Session runs on) to
/// `threads` through SILT_THREADS, as DuckDB is given `threads`; child processes (`silt sql`)
/// inherit it. Call first thing in main, before anything starts the pool (it is sized once);
/// prints the sizes both sides use.
inline void PinSiltThreads(int threads) {
  ::setenv("SILT_THREADS", std::to_string(threads).c_str(), 1);
  std::printf("threads: silt %zu, duckdb %d\n", ThreadPool::DefaultThreadCount(), threads);
  std::fflush(stdout);
}

}  // namespace silt::bench
