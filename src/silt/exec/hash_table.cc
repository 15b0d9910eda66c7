#include "silt/exec/hash_table.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "silt/base/check.h"

namespace silt::exec {

namespace {

constexpr size_t kInitialSlots = 1024;
// Rows ahead whose slot is prefetched while the current row is looked up.
constexpr int64_t kPrefetchDistance = 16;

inline bool KeyEquals(std::string_view a, std::string_view b) { return KeyBytesEqual(a, b); }

}  // namespace

KeyTable::KeyTable() : slots_(kInitialSlots, 0), mask_(kInitialSlots - 1), key_offsets_{0} {}

uint32_t KeyTable::Insert(std::string_view key, uint64_t hash, size_t slot) {
  SILT_USER_CHECK(hashes_.size() < std::numeric_limits<uint32_t>::max() - 1, EXEC_MEMORY_LIMIT_EXCEEDED,
                  {{"operator", "hash table"}, {"limit", "2^32 keys"}});
  uint32_t group = static_cast<uint32_t>(hashes_.size());
  if (group == 0) {
    key_length_ = key.size();
  } else if (key.size() != key_length_) {
    variable_length_ = true;
  }
  slots_[slot] = (hash & 0xFFFFFFFF00000000ULL) | (static_cast<uint64_t>(group) + 1);
  arena_.insert(arena_.end(), key.begin(), key.end());
  key_offsets_.push_back(arena_.size());
  hashes_.push_back(hash);
  if (hashes_.size() * 2 > slots_.size()) Grow();
  return group;
}

int64_t KeyTable::MaxGrowthBytes(size_t num_keys, size_t key_bytes) const {
  // A vector that must grow allocates at most doubling steps past what it needs, and holds its
  // old buffer while it copies.
  auto vector_growth = [](size_t size, size_t capacity, size_t added,
                          size_t element_bytes) -> int64_t {
    if (size + added <= capacity) return 0;
    size_t grown = std::max<size_t>(capacity, 1);
    while (grown < size + added) grown *= 2;
    return static_cast<int64_t>(grown * element_bytes);
  };
  int64_t bytes =
      vector_growth(hashes_.size(), hashes_.capacity(), num_keys, sizeof(uint64_t)) +
      vector_growth(key_offsets_.size(), key_offsets_.capacity(), num_keys, sizeof(uint64_t)) +
      vector_growth(arena_.size(), arena_.capacity(), key_bytes, 1);
  size_t slots = slots_.size();
  while ((hashes_.size() + num_keys) * 2 > slots) slots *= 2;
  // Grow() doubles one step at a time: every larger array is allocated beside the last.
  for (size_t step = slots_.size() * 2; step <= slots; step *= 2)
    bytes += static_cast<int64_t>(step * sizeof(uint64_t));
  return bytes;
}

void KeyTable::Reserve(size_t num_keys, size_t key_bytes) {
  hashes_.reserve(hashes_.size() + num_keys);
  key_offsets_.reserve(key_offsets_.size() + num_keys);
  arena_.reserve(arena_.size() + key_bytes);
  size_t slots = slots_.size();
  // Insert grows once more than half the slots are taken.
  while ((hashes_.size() + num_keys) * 2 > slots) slots *= 2;
  if (slots != slots_.size()) Rehash(slots);
}

void KeyTable::Grow() { Rehash(slots_.size() * 2); }

void KeyTable::Rehash(size_t num_slots) {
  std::vector<uint64_t> slots(num_slots, 0);
  uint64_t mask = slots.size() - 1;
  const uint32_t num_groups = static_cast<uint32_t>(hashes_.size());
  for (uint32_t group = 0; group < num_groups; ++group) {
    if (group + kPrefetchDistance < num_groups) __builtin_prefetch(&slots[hashes_[group + kPrefetchDistance] & mask]);
    uint64_t hash = hashes_[group];
    size_t slot = hash & mask;
    while (slots[slot] != 0) slot = (slot + 1) & mask;
    slots[slot] = (hash & 0xFFFFFFFF00000000ULL) | (static_cast<uint64_t>(group) + 1);
  }
  slots_.swap(slots);
  mask_ = mask;
}

uint32_t KeyTable::FindOrInsert(std::string_view key, uint64_t hash, bool* inserted) {
  const uint64_t tag = hash & 0xFFFFFFFF00000000ULL;
  size_t slot = hash & mask_;
  while (true) {
    uint64_t entry = slots_[slot];
    if (entry == 0) {
      *inserted = true;
      return Insert(key, hash, slot);
    }
    if ((entry & 0xFFFFFFFF00000000ULL) == tag) {
      uint32_t group = static_cast<uint32_t>(entry & 0xFFFFFFFFULL) - 1;
      if (KeyEquals(this->key(group), key)) {
        *inserted = false;
        return group;
      }
    }
    slot = (slot + 1) & mask_;
  }
}

void KeyTable::FindOrInsert(const EncodedKeys& keys, uint32_t* group_ids, std::vector<int64_t>* inserted_rows) {
  const int64_t num_rows = keys.num_rows();
  // Two stages ahead, as FindAll: the slot of row + 16, then the stored key its slot points at
  // for row + 8 (tables of many groups do not fit in the caches).
  constexpr int64_t kKeyPrefetchDistance = kPrefetchDistance / 2;
  for (int64_t row = 0; row < num_rows; ++row) {
    if (row + kPrefetchDistance < num_rows) __builtin_prefetch(&slots_[keys.hashes[row + kPrefetchDistance] & mask_]);
    if (row + kKeyPrefetchDistance < num_rows) PrefetchStoredKey(keys.hashes[row + kKeyPrefetchDistance]);
    bool inserted = false;
    group_ids[row] = FindOrInsert(keys.key(row), keys.hashes[row], &inserted);
    if (inserted && inserted_rows) inserted_rows->push_back(row);
  }
}

void KeyTable::PrefetchStoredKey(uint64_t hash) const {
  uint64_t entry = slots_[hash & mask_];
  if (entry == 0) return;
  uint32_t group = static_cast<uint32_t>(entry & 0xFFFFFFFFULL) - 1;
  __builtin_prefetch(variable_length_ ? static_cast<const void*>(&key_offsets_[group])
                                      : static_cast<const void*>(arena_.data() + group * key_length_));
}

void KeyTable::FindOrInsertRows(const EncodedKeys& keys, const uint32_t* rows, size_t count,
                                uint32_t* group_ids) {
  // Two stages ahead, as FindAll: the slot of row i + 16, then the stored key its slot points
  // at for row i + 8.
  constexpr size_t kKeyPrefetchDistance = kPrefetchDistance / 2;
  for (size_t i = 0; i < count; ++i) {
    if (i + kPrefetchDistance < count) {
      __builtin_prefetch(&slots_[keys.hashes[rows[i + kPrefetchDistance]] & mask_]);
    }
    if (i + kKeyPrefetchDistance < count) PrefetchStoredKey(keys.hashes[rows[i + kKeyPrefetchDistance]]);
    bool inserted = false;
    const uint32_t row = rows[i];
    group_ids[i] = FindOrInsert(keys.key(row), keys.hashes[row], &inserted);
  }
}

int64_t KeyTable::Find(std::string_view key, uint64_t hash) const {
  const uint64_t tag = hash & 0xFFFFFFFF00000000ULL;
  size_t slot = hash & mask_;
  while (true) {
    uint64_t entry = slots_[slot];
    if (entry == 0) return -1;
    if ((entry & 0xFFFFFFFF00000000ULL) == tag) {
      uint32_t group = static_cast<uint32_t>(entry & 0xFFFFFFFFULL) - 1;
      if (KeyEquals(this->key(group), key)) return group;
    }
    slot = (slot + 1) & mask_;
  }
}

void KeyTable::FindAll(const EncodedKeys& keys, const uint8_t* skip, int64_t* group_ids) const {
  const int64_t num_rows = keys.num_rows();
  // Two stages ahead: the slot of row + 16, then the key bytes its slot points at for row + 8
  // (large build sides do not fit in the caches, and each stage would otherwise miss).
  constexpr int64_t kKeyPrefetchDistance = kPrefetchDistance / 2;
  for (int64_t row = 0; row < num_rows; ++row) {
    if (row + kPrefetchDistance < num_rows) __builtin_prefetch(&slots_[keys.hashes[row + kPrefetchDistance] & mask_]);
    if (row + kKeyPrefetchDistance < num_rows) {
      uint64_t entry = slots_[keys.hashes[row + kKeyPrefetchDistance] & mask_];
      if (entry != 0) {
        uint32_t group = static_cast<uint32_t>(entry & 0xFFFFFFFFULL) - 1;
        __builtin_prefetch(variable_length_ ? static_cast<const void*>(&key_offsets_[group])
                                            : static_cast<const void*>(arena_.data() + group * key_length_));
      }
    }
    group_ids[row] = skip != nullptr && skip[row] ? -1 : Find(keys.key(row), keys.hashes[row]);
  }
}

}  // namespace silt::exec
