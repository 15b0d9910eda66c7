#pragma once

// What a hash join's build keys allow of one column of the scan on its probe side.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "silt/parquet/reader.h"
#include "silt/log/partition_values.h"
#include "silt/vector/vector.h"

namespace silt::log {

/// The distinct non-NULL keys of a hash join's build side, as the scan of its probe side tests
/// values against them: their smallest and largest (to skip files and row groups by
/// statistics) and a membership test. Integer-like keys (byte to bigint, date, timestamps) whose
/// range is narrow enough (kMaxBitmapBits, and at most kBitmapBitsPerKey per key past
/// kSmallBitmapBits) are held exactly as a bitmap over [min, max]; other integer keys and
/// strings in a blocked Bloom filter of their hash, which may let through a value the build
/// lacks (about one in a thousand) and never drops one it holds. Immutable once made, apart from
/// the counts of values tested and passed, which decide Selective(). Shared between threads.
class JoinKeySet final : public parquet::ValueSet {
 public:
  /// The keys of the rows of `keys` that are not NULL and whose `skip` byte is 0 (`skip` may be
  /// null); nullptr for a type the set cannot hold (only integer-like types and strings), or
  /// when `reserve` (if given) refuses the bytes of its bitmap or Bloom filter, which it is
  /// asked for before they are allocated.
  static std::shared_ptr<const JoinKeySet> Make(const Vector& keys, const uint8_t* skip,
                                                const std::function<bool(int64_t)>& reserve = {});
  /// Whether keys of `type` can be held.
  static bool Supports(const DataType& type);

  /// Integer-like keys (compared as int64), else strings.
  bool integer() const { return integer_; }
  /// How many keys were added (duplicates counted).
  int64_t num_keys() const { return num_keys_; }
  /// Whether membership is exact (a bitmap), not a Bloom filter.
  bool exact() const { return !bitmap_.empty() || num_keys_ == 0; }
  /// The smallest and largest key: int64 for integer keys, a string for strings; nullopt when
  /// there is none (then nothing is a member).
  const std::optional<Scalar>& min() const { return min_; }
  const std::optional<Scalar>& max() const { return max_; }

  /// Whether `value` (int64 for integer keys, a string for strings) may be a key; true for a
  /// value of another kind, which the set cannot test.
  bool Contains(const Scalar& value) const;
  void KeepMembers(const Vector& values, uint8_t* keep) const override;

  /// Whether testing rows still pays: false once more than kSampleRows values were tested and
  /// more than kMaxPassShare of them passed (then it stays false). The statistics of its range
  /// still skip row groups.
  bool Selective() const;

  static constexpr uint64_t kSmallBitmapBits = uint64_t{1} << 23;  // 1 MiB
  static constexpr uint64_t kBitmapBitsPerKey = 64;
  static constexpr uint64_t kMaxBitmapBits = uint64_t{1} << 26;    // 8 MiB
  static constexpr int64_t kSampleRows = 1 << 17;
  static constexpr double kMaxPassShare = 0.7;

 private:
  JoinKeySet() = default;
  bool MayContainInteger(int64_t value) const;
  bool MayContainHash(uint64_t hash) const;
  void AddHash(uint64_t hash);
  void Count(int64_t tested, int64_t passed) const;

  bool integer_ = true;
  int64_t num_keys_ = 0;
  std::optional<Scalar> min_;
  std::optional<Scalar> max_;
  int64_t min_integer_ = 0;
  int64_t max_integer_ = -1;
  std::vector<uint64_t> bitmap_;  // bit k: min_integer_ + k is a key
  // Blocks of eight 32-bit words; a key sets one bit in each word of the block its hash picks.
  std::vector<uint32_t> bloom_;
  uint64_t block_mask_ = 0;
  mutable std::atomic<int64_t> tested_{0};
  mutable std::atomic<int64_t> passed_{0};
  mutable std::atomic<bool> given_up_{false};
};

/// A runtime join filter: created when a query is planned for one column of a Delta scan on the
/// probe side of a hash join (reached through projections and filters that keep the column as
/// it is, and joins that pass its rows through), empty until the join's build side is complete
/// and publishes its keys. The scan reads it as it reads each file and row group: rows read
/// before it is published are simply not filtered (the join drops them), so any timing is
/// correct. Shared between threads.
class JoinKeyFilter {
 public:
  explicit JoinKeyFilter(std::string column) : column_(std::move(column)) {}

  /// The scan column (logical name) the join's probe key reads.
  const std::string& column() const { return column_; }
  /// The number EXPLAIN gives the join that publishes it.
  int join_id() const { return join_id_; }
  void set_join_id(int id) { join_id_ = id; }

  /// Publishes the build side's keys, once.
  void Publish(std::shared_ptr<const JoinKeySet> keys) {
    std::lock_guard lock(mutex_);
    keys_ = std::move(keys);
  }
  /// The keys published; nullptr before.
  std::shared_ptr<const JoinKeySet> Current() const {
    std::lock_guard lock(mutex_);
    return keys_;
  }

 private:
  const std::string column_;
  int join_id_ = 0;
  mutable std::mutex mutex_;
  std::shared_ptr<const JoinKeySet> keys_;
};

}  // namespace silt::log
