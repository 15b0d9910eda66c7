#include "silt/base/thread_pool.h"

#include <atomic>
#include <cstdlib>
#include <memory>
#include <string>

namespace silt {

ThreadPool::ThreadPool(size_t num_threads) {
  if (num_threads == 0) num_threads = 1;
  workers_.reserve(num_threads);
  for (size_t i = 0; i < num_threads; ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& worker : workers_) worker.join();
}

size_t ThreadPool::DefaultThreadCount() {
  if (const char* env = std::getenv("SILT_THREADS"); env != nullptr) {
    long n = std::strtol(env, nullptr, 10);
    if (n >= 1) return static_cast<size_t>(n);
  }
  unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : hw;
}

ThreadPool& ThreadPool::Default() {
  static ThreadPool pool(DefaultThreadCount());
  return pool;
}

void ThreadPool::Enqueue(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(std::move(task));
  }
  wake_.notify_one();
}

void ThreadPool::WorkerLoop() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping and drained
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task();
  }
}

void ThreadPool::ParallelFor(size_t count, const std::function<void(size_t)>& body,
                             size_t max_parallelism) {
  if (count == 0) return;
  size_t parallelism = max_parallelism == 0 ? num_threads() : max_parallelism;
  if (parallelism > count) parallelism = count;
  if (parallelism <= 1) {
    for (size_t i = 0; i < count; ++i) body(i);
    return;
  }

  // Helpers hold the state through shared_ptr copies. The caller waits only for helpers that
  // have started: one still queued (behind a busy pool, or behind other ParallelFor callers) finds
  // every index claimed when it finally runs and returns without touching `body`. Never waiting
  // on queued tasks is what makes nested calls from pool threads deadlock-free.
  struct State {
    std::atomic<size_t> next{0};
    std::atomic<bool> failed{false};
    std::mutex mutex;
    std::condition_variable idle;
    size_t running = 0;
    std::exception_ptr error;
  };
  auto state = std::make_shared<State>();
  auto drain = [count](State& s, const std::function<void(size_t)>& fn) {
    for (;;) {
      size_t i = s.next.fetch_add(1);
      if (i >= count || s.failed.load()) return;
      try {
        fn(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(s.mutex);
        if (!s.error) s.error = std::current_exception();
        s.failed = true;
      }
    }
  };
  const std::function<void(size_t)>* body_ptr = &body;
  for (size_t h = 0; h + 1 < parallelism; ++h) {
    Enqueue([state, drain, body_ptr, count] {
      {
        std::lock_guard<std::mutex> lock(state->mutex);
        if (state->next.load() >= count) return;  // caller may already be gone
        ++state->running;
      }
      drain(*state, *body_ptr);
      std::lock_guard<std::mutex> lock(state->mutex);
      if (--state->running == 0) state->idle.notify_all();
    });
  }
  drain(*state, body);
  std::unique_lock<std::mutex> lock(state->mutex);
  state->next.store(count);  // after a failure indexes may remain; no helper may start now
  state->idle.wait(lock, [&] { return state->running == 0; });
  if (state->error) std::rethrow_exception(state->error);
}

}  // namespace silt
