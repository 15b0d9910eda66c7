#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "silt/exec/row_hash.h"

namespace silt::exec {

/// A set of distinct encoded keys, each numbered by insertion (its group id, 0, 1, ...). Open
/// addressing with linear probing over (hash tag, group id) slots; the key bytes live in one
/// arena. Not thread-safe; operators keep one per thread and merge.
class KeyTable {
 public:
  KeyTable();

  /// Writes the group id of every row of `keys` to `group_ids`, inserting unseen keys. Rows that
  /// created a group are appended to `inserted_rows` (when not null), in row order.
  void FindOrInsert(const EncodedKeys& keys, uint32_t* group_ids, std::vector<int64_t>* inserted_rows);
  /// FindOrInsert for rows `rows[0..count)` of `keys` only: group_ids[i] is the group of row
  /// rows[i]. Prefetches the slots and the stored keys ahead, for tables beyond the caches.
  void FindOrInsertRows(const EncodedKeys& keys, const uint32_t* rows, size_t count, uint32_t* group_ids);
  /// Makes room for `num_keys` keys of `key_bytes` bytes in all without growing while they are
  /// inserted (a table filled with a known number of keys, as a partition of a merge).
  void Reserve(size_t num_keys, size_t key_bytes);
  /// One key: its group id; `inserted` says whether it was new.
  uint32_t FindOrInsert(std::string_view key, uint64_t hash, bool* inserted);
  /// The group id of `key`, or -1.
  int64_t Find(std::string_view key, uint64_t hash) const;
  /// Find for every row of `keys` into `group_ids` (-1 when absent, and for rows whose `skip`
  /// byte is set when `skip` is not null). Prefetches ahead, so it beats a loop over Find on
  /// tables larger than the caches.
  void FindAll(const EncodedKeys& keys, const uint8_t* skip, int64_t* group_ids) const;

  /// Cache hints for callers that look keys up one at a time: the first slot for `hash`, and
  /// the stored key (or its offset) that slot points at. Issue them some keys ahead.
  void PrefetchSlot(uint64_t hash) const { __builtin_prefetch(&slots_[hash & mask_]); }
  void PrefetchStoredKey(uint64_t hash) const;

  size_t num_groups() const { return hashes_.size(); }
  /// The bytes the table holds (slots, keys, offsets and hashes, by capacity).
  int64_t MemoryBytes() const {
    return static_cast<int64_t>((slots_.capacity() + key_offsets_.capacity() + hashes_.capacity()) * sizeof(uint64_t) +
                                arena_.capacity());
  }
  /// An upper bound on how far MemoryBytes() may rise, counting the new and the old buffers
  /// while they are copied, while `num_keys` keys of `key_bytes` bytes in all are inserted. For
  /// callers that reserve memory before inserting rather than after the table has doubled.
  int64_t MaxGrowthBytes(size_t num_keys, size_t key_bytes) const;
  std::string_view key(uint32_t group) const {
    if (!variable_length_) {
      return {reinterpret_cast<const char*>(arena_.data()) + group * key_length_, key_length_};
    }
    return {reinterpret_cast<const char*>(arena_.data()) + key_offsets_[group],
            static_cast<size_t>(key_offsets_[group + 1] - key_offsets_[group])};
  }
  uint64_t hash(uint32_t group) const { return hashes_[group]; }
  /// The length of every key while all have one (0 for none or several).
  size_t fixed_key_length() const { return variable_length_ ? 0 : key_length_; }

 private:
  uint32_t Insert(std::string_view key, uint64_t hash, size_t slot);
  void Grow();
  void Rehash(size_t num_slots);  // a power of two

  std::vector<uint64_t> slots_;  // (hash >> 32) << 32 | (group id + 1); 0 = empty
  uint64_t mask_ = 0;
  std::vector<uint8_t> arena_;
  std::vector<uint64_t> key_offsets_;  // num_groups + 1
  std::vector<uint64_t> hashes_;
  // While every key has one length (fixed-width keys without NULLs), a key is found by its
  // group id alone, saving a cache miss on key_offsets_.
  size_t key_length_ = 0;
  bool variable_length_ = false;
};

}  // namespace silt::exec
