#include "silt/base/large_stack.h"

#include <gtest/gtest.h>

#include <pthread.h>

#include <stdexcept>

namespace silt {
namespace {

// Recurses `levels` times with a frame of about 4 KiB each.
int Recurse(int levels) {
  volatile char frame[4096];
  frame[0] = static_cast<char>(levels);
  if (levels == 0) return frame[0];
  return Recurse(levels - 1) + frame[0] - static_cast<char>(levels) + 1;
}

TEST(LargeStackTest, RunsDeeperThanAThreadsDefaultStack) {
  // 64 MiB of frames: more than the 8 MiB a thread gets by default.
  int result = 0;
  RunOnLargeStack(size_t{128} << 20, [&] { result = Recurse(16 * 1024); });
  EXPECT_EQ(result, 16 * 1024);
}

TEST(LargeStackTest, RethrowsTheBodysException) {
  EXPECT_THROW(RunOnLargeStack(size_t{16} << 20, [] { throw std::runtime_error("inside"); }),
               std::runtime_error);
}

TEST(LargeStackTest, NestedCallsRunOnTheSameThread) {
  pthread_t outer{};
  pthread_t inner{};
  RunOnLargeStack(size_t{16} << 20, [&] {
    outer = pthread_self();
    RunOnLargeStack(size_t{8} << 20, [&] { inner = pthread_self(); });
  });
  EXPECT_TRUE(pthread_equal(outer, inner));
  EXPECT_FALSE(pthread_equal(outer, pthread_self()));
}

}  // namespace
}  // namespace silt
