#include "silt/base/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

namespace silt {
namespace {

TEST(ThreadPoolTest, SubmitReturnsResults) {
  ThreadPool pool(2);
  auto a = pool.Submit([] { return 40; });
  auto b = pool.Submit([] { return 2; });
  EXPECT_EQ(a.get() + b.get(), 42);
}

TEST(ThreadPoolTest, SubmitPropagatesExceptions) {
  ThreadPool pool(1);
  auto f = pool.Submit([]() -> int { throw std::runtime_error("boom"); });
  EXPECT_THROW(f.get(), std::runtime_error);
}

TEST(ThreadPoolTest, ParallelForVisitsEveryIndexOnce) {
  ThreadPool pool(3);
  std::vector<std::atomic<int>> seen(1000);
  pool.ParallelFor(seen.size(), [&](size_t i) { seen[i]++; });
  for (auto& s : seen) EXPECT_EQ(s.load(), 1);
}

TEST(ThreadPoolTest, ParallelForRethrowsFirstError) {
  ThreadPool pool(2);
  EXPECT_THROW(pool.ParallelFor(100,
                                [](size_t i) {
                                  if (i == 17) throw std::runtime_error("bad index");
                                }),
               std::runtime_error);
}

TEST(ThreadPoolTest, NestedParallelForDoesNotDeadlock) {
  ThreadPool pool(2);
  std::atomic<int> total{0};
  pool.ParallelFor(8, [&](size_t) { pool.ParallelFor(8, [&](size_t) { total++; }); });
  EXPECT_EQ(total.load(), 64);
}

TEST(ThreadPoolTest, DefaultThreadCountIsPositive) {
  EXPECT_GE(ThreadPool::DefaultThreadCount(), 1u);
  EXPECT_GE(ThreadPool::Default().num_threads(), 1u);
}

}  // namespace
}  // namespace silt
