#include "object_arenas.h"

#include <Python.h>
#include <sys/mman.h>

#include <cstdint>
#include <mutex>
#include <unordered_set>

namespace silt::python {
namespace {

constexpr size_t kHugePage = size_t{2} << 20;

// The allocator installed once, at the first scope, in front of the one that was there. Its
// state is only touched under the GIL; the mutex guards against an extension that calls
// pymalloc without it.
struct ArenaState {
  std::mutex mutex;
  PyObjectArenaAllocator previous{};
  int scopes = 0;
  size_t arena_size = 0;           // pymalloc's arena size, seen at the first request
  char* spare = nullptr;           // the unused half of the last huge block
  std::unordered_set<void*> ours;  // arenas handed out from huge blocks, by address
};

ArenaState& State() {
  static ArenaState* state = new ArenaState();  // never destroyed: arenas outlive exit
  return *state;
}

// A fresh 2 MiB-aligned block of kHugePage bytes advised as a huge page, or nullptr.
char* MapHugeBlock() {
  void* raw = mmap(nullptr, 2 * kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  auto start = reinterpret_cast<uintptr_t>(raw);
  uintptr_t aligned = (start + kHugePage - 1) & ~(kHugePage - 1);
  if (aligned > start) munmap(raw, aligned - start);
  uintptr_t end = start + 2 * kHugePage;
  if (end > aligned + kHugePage) {
    munmap(reinterpret_cast<void*>(aligned + kHugePage), end - (aligned + kHugePage));
  }
  auto* block = reinterpret_cast<char*>(aligned);
  madvise(block, kHugePage, MADV_HUGEPAGE);  // a hint: without huge pages it is plain memory
  return block;
}

void* Allocate(void* context, size_t size) {
  ArenaState& state = *static_cast<ArenaState*>(context);
  std::lock_guard<std::mutex> lock(state.mutex);
  // Huge blocks only inside a scope and for arenas that tile a huge page.
  if (state.scopes == 0 || size == 0 || kHugePage % size != 0 || size < (size_t{256} << 10)) {
    return state.previous.alloc(state.previous.ctx, size);
  }
  if (state.arena_size != size) state.spare = nullptr;  // one size per block
  state.arena_size = size;
  char* arena = state.spare;
  if (arena == nullptr) arena = MapHugeBlock();
  if (arena == nullptr) return state.previous.alloc(state.previous.ctx, size);
  // The next arena of the same block, unless this one ends it.
  char* next = arena + size;
  state.spare = (reinterpret_cast<uintptr_t>(next) & (kHugePage - 1)) != 0 ? next : nullptr;
  state.ours.insert(arena);
  return arena;
}

void Free(void* context, void* arena, size_t size) {
  ArenaState& state = *static_cast<ArenaState*>(context);
  std::lock_guard<std::mutex> lock(state.mutex);
  if (state.ours.erase(arena) != 0) {
    munmap(arena, size);  // the part of its block; the block goes when all its arenas have
    return;
  }
  state.previous.free(state.previous.ctx, arena, size);
}

}  // namespace

HugeObjectArenas::HugeObjectArenas() {
  ArenaState& state = State();
  std::lock_guard<std::mutex> lock(state.mutex);
  if (state.previous.alloc == nullptr) {
    PyObject_GetArenaAllocator(&state.previous);
    PyObjectArenaAllocator ours{&state, Allocate, Free};
    PyObject_SetArenaAllocator(&ours);
  }
  ++state.scopes;
}

HugeObjectArenas::~HugeObjectArenas() {
  ArenaState& state = State();
  std::lock_guard<std::mutex> lock(state.mutex);
  --state.scopes;
}

}  // namespace silt::python
