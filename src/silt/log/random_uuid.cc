#include "silt/log/random_uuid.h"

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <random>
#include <thread>

namespace silt::log {

namespace {

// The generator is per thread and remembers the process id it was seeded in: a fork copies the
// parent's generator state, and two children drawing the same "random" file names would collide.
struct ThreadGenerator {
  std::mt19937_64 engine;
  pid_t seeded_in = -1;
};

std::mt19937_64& Generator() {
  thread_local ThreadGenerator generator;
  pid_t pid = ::getpid();
  if (generator.seeded_in != pid) {
    std::random_device device;
    std::seed_seq seed{static_cast<uint64_t>(device()), static_cast<uint64_t>(device()),
                       static_cast<uint64_t>(
                           std::chrono::high_resolution_clock::now().time_since_epoch().count()),
                       static_cast<uint64_t>(pid),
                       static_cast<uint64_t>(std::hash<std::thread::id>()(std::this_thread::get_id()))};
    generator.engine.seed(seed);
    generator.seeded_in = pid;
  }
  return generator.engine;
}

}  // namespace

std::string RandomUuid() {
  std::mt19937_64& engine = Generator();
  uint64_t high = engine();
  uint64_t low = engine();
  high = (high & ~0xF000ull) | 0x4000ull;                        // version 4
  low = (low & ~(0xC000ull << 48)) | (0x8000ull << 48);          // RFC 4122 variant
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(36);
  auto append = [&](uint64_t value, int first_nibble, int count) {
    for (int i = 0; i < count; ++i) {
      int shift = 60 - 4 * (first_nibble + i);
      out.push_back(kHex[(value >> shift) & 0xF]);
    }
  };
  append(high, 0, 8);
  out.push_back('-');
  append(high, 8, 4);
  out.push_back('-');
  append(high, 12, 4);
  out.push_back('-');
  append(low, 0, 4);
  out.push_back('-');
  append(low, 4, 12);
  return out;
}

}  // namespace silt::log
