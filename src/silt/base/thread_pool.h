#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

namespace silt {

/// A fixed set of worker threads running submitted tasks in FIFO order.
/// Thread-safe: any thread may submit. Destruction waits for queued tasks to finish.
class ThreadPool {
 public:
  /// Starts `num_threads` workers (at least one).
  explicit ThreadPool(size_t num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  /// The process-wide pool, sized by DefaultThreadCount().
  static ThreadPool& Default();
  /// The machine's hardware threads, or the SILT_THREADS environment variable when set (>= 1).
  static size_t DefaultThreadCount();

  size_t num_threads() const { return workers_.size(); }

  /// Queues `task`; the future carries its result or exception.
  template <typename F>
  auto Submit(F&& task) -> std::future<decltype(task())> {
    using R = decltype(task());
    auto packaged = std::make_shared<std::packaged_task<R()>>(std::forward<F>(task));
    std::future<R> result = packaged->get_future();
    Enqueue([packaged] { (*packaged)(); });
    return result;
  }

  /// Runs `body(i)` for i in [0, count) on up to `max_parallelism` threads (0 = the pool size),
  /// the calling thread included, and returns when all are done. The first exception thrown by
  /// any call is rethrown here after the others finish; later indexes may be skipped once one
  /// has thrown. Safe to call from inside a pool task (the caller works too, so no deadlock).
  void ParallelFor(size_t count, const std::function<void(size_t)>& body,
                   size_t max_parallelism = 0);

 private:
  void Enqueue(std::function<void()> task);
  void WorkerLoop();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace silt
