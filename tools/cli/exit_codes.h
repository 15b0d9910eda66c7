#pragma once

#include "silt/error.h"

namespace silt::cli {

/// Process exit codes. Persisted in users' scripts; never renumber.
enum ExitCode : int {
  kExitOk = 0,
  kExitUserError = 1,    ///< bad SQL or input, violated constraint, unsupported feature
  kExitUsage = 2,        ///< bad command line
  kExitConflict = 3,     ///< lost a commit race (retryable)
  kExitStorage = 4,      ///< I/O failure or corrupt file
  kExitInternal = 70,    ///< a bug in silt (EX_SOFTWARE)
  kExitInterrupted = 130,  ///< cancelled by Ctrl-C (128 + SIGINT, as shells report it)
};

/// What each exit code means, for the manual page. One entry per ExitCode, in order.
struct ExitCodeMeaning {
  ExitCode code;
  const char* meaning;
};
inline constexpr ExitCodeMeaning kExitCodeMeanings[] = {
    {kExitOk, "Success."},
    {kExitUserError,
     "User error: bad SQL or input, a violated constraint, or a feature silt does not support."},
    {kExitUsage, "Usage error: a bad command line."},
    {kExitConflict,
     "Commit conflict: another writer committed first; the operation may be retried."},
    {kExitStorage, "I/O failure or corrupt data: a file could not be read or written, or a log, "
                   "checkpoint or data file is invalid."},
    {kExitInternal, "Internal error: a bug in silt."},
};

/// The exit code for an error of `category`.
inline int ExitCodeFor(ErrorCategory category) {
  switch (category) {
    case ErrorCategory::kUser:
    case ErrorCategory::kUnsupported:
      return kExitUserError;
    case ErrorCategory::kConcurrentModification:
      return kExitConflict;
    case ErrorCategory::kIo:
    case ErrorCategory::kCorruption:
      return kExitStorage;
    case ErrorCategory::kInternal:
      return kExitInternal;
  }
  return kExitInternal;
}

/// The exit code for `error`: kExitInterrupted for a cancelled statement, else by category.
inline int ExitCodeFor(const Error& error) {
  if (error.error_class() == "OPERATION_CANCELED") return kExitInterrupted;
  return ExitCodeFor(error.category());
}

}  // namespace silt::cli
