#include "silt/io/background_sync.h"

#include <utility>

namespace silt::io {

BackgroundSync::BackgroundSync(size_t num_threads, size_t max_pending)
    : num_threads_(num_threads == 0 ? 1 : num_threads),
      max_pending_(max_pending == 0 ? 1 : max_pending) {}

BackgroundSync::~BackgroundSync() {
  {
    std::unique_lock<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  for (std::thread& thread : threads_) thread.join();
}

void BackgroundSync::SyncAndClose(std::unique_ptr<OutputStream> stream) {
  std::unique_lock<std::mutex> lock(mutex_);
  while (threads_.size() < num_threads_) threads_.emplace_back([this] { Run(); });
  changed_.wait(lock, [&] { return pending_.size() < max_pending_; });
  pending_.push_back(std::move(stream));
  changed_.notify_all();
}

void BackgroundSync::Wait() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return pending_.empty() && in_progress_ == 0; });
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

void BackgroundSync::Run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    // Files still waiting when the owner goes are synced and closed before the threads end.
    changed_.wait(lock, [&] { return !pending_.empty() || stopping_; });
    if (pending_.empty()) return;
    std::unique_ptr<OutputStream> stream = std::move(pending_.front());
    pending_.pop_front();
    ++in_progress_;
    const bool failed = error_ != nullptr;
    lock.unlock();
    changed_.notify_all();  // room for one more
    // A stream whose sync failed is still closed, releasing its descriptor.
    std::exception_ptr error;
    try {
      if (!failed) stream->Sync();
    } catch (...) {
      error = std::current_exception();
    }
    try {
      stream->Close();
    } catch (...) {
      if (!error) error = std::current_exception();
    }
    stream.reset();
    lock.lock();
    if (error && !error_) error_ = error;
    --in_progress_;
    changed_.notify_all();
  }
}

}  // namespace silt::io
