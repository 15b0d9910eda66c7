#include "silt/base/large_stack.h"

#include <pthread.h>

#include <exception>

namespace silt {
namespace {

// The stack size of the RunOnLargeStack body this thread runs, or 0.
thread_local size_t current_stack_bytes = 0;

struct Job {
  const std::function<void()>* body;
  size_t stack_bytes;
  std::exception_ptr error;
};

void* RunJob(void* argument) {
  auto* job = static_cast<Job*>(argument);
  current_stack_bytes = job->stack_bytes;
  try {
    (*job->body)();
  } catch (...) {
    job->error = std::current_exception();
  }
  return nullptr;
}

}  // namespace

void RunOnLargeStack(size_t stack_bytes, const std::function<void()>& body) {
  if (current_stack_bytes >= stack_bytes) {
    body();
    return;
  }
  Job job{&body, stack_bytes, nullptr};
  pthread_attr_t attributes;
  if (pthread_attr_init(&attributes) != 0) {
    body();
    return;
  }
  pthread_t thread;
  bool started = pthread_attr_setstacksize(&attributes, stack_bytes) == 0 &&
                 pthread_create(&thread, &attributes, &RunJob, &job) == 0;
  pthread_attr_destroy(&attributes);
  if (!started) {
    // Without a thread (address space or thread limits), the statement still runs; only the
    // depth it can reach is smaller.
    body();
    return;
  }
  pthread_join(thread, nullptr);
  if (job.error) std::rethrow_exception(job.error);
}

}  // namespace silt
