#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "silt/io/file_system.h"

namespace silt::io {

/// Makes finished output files durable on threads of its own: a writer hands over a file it
/// has written and goes on with its next one while the disk catches up, instead of waiting in
/// fsync with its core idle. Sleeping in fsync costs those threads no CPU, so a statement that
/// writes many files keeps its pool busy. On an object store, where closing a file uploads its
/// last part, the uploads go on there too, `num_threads` at once.
///
/// Wait() returns once every file handed over is synced and closed, and rethrows the first
/// failure: whoever names the files in a commit must call it first, so that a commit never
/// references a file a power loss could take away. At most `max_pending` files wait at a time
/// besides those being synced (each holds a descriptor and what it buffers, an object store's
/// last part); SyncAndClose blocks while that many do. Thread-safe.
class BackgroundSync {
 public:
  explicit BackgroundSync(size_t num_threads = 1, size_t max_pending = 4);
  /// Waits for the files handed over, swallowing failures (the statement is failing already,
  /// or Wait reported them).
  ~BackgroundSync();
  BackgroundSync(const BackgroundSync&) = delete;
  BackgroundSync& operator=(const BackgroundSync&) = delete;

  /// Syncs and then closes `stream` on a sync thread. After a failure, further streams are
  /// closed without being synced (Wait throws anyway).
  void SyncAndClose(std::unique_ptr<OutputStream> stream);
  /// Blocks until every stream handed over is synced and closed; throws the first failure (once).
  void Wait();

 private:
  void Run();

  const size_t num_threads_;
  const size_t max_pending_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::unique_ptr<OutputStream>> pending_;
  size_t in_progress_ = 0;
  bool stopping_ = false;
  std::exception_ptr error_;
  std::vector<std::thread> threads_;  // started with the first stream
};

}  // namespace silt::io
