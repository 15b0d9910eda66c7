#include "silt/exec/group_top_rows.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>
#include <exception>
#include <functional>
#include <limits>
#include <mutex>

#include "silt/base/check.h"
#include "silt/exec/hash_table.h"
#include "silt/exec/memory.h"
#include "silt/exec/pull_on_workers_internal.h"
#include "silt/exec/row_compare.h"
#include "silt/exec/row_hash.h"
#include "silt/exec/sort_window.h"
#include "silt/exec/spill_file.h"
#include "silt/vector/take.h"

namespace silt::exec {

namespace {

// The chunk index of a row that still lives in the batch being consumed.
constexpr uint32_t kPendingChunk = std::numeric_limits<uint32_t>::max();

// A single ORDER BY key of a fixed-width type is compared through an order word: the NULL rank
// above 64 bits of the value mapped so that unsigned order is the key's order (direction
// included). Comparing kept rows then reads no chunk, whose values are scattered in memory.
using OrderWord = unsigned __int128;

bool HasOrderWord(TypeId id) {
  switch (id) {
    case TypeId::kBoolean:
    case TypeId::kByte:
    case TypeId::kShort:
    case TypeId::kInteger:
    case TypeId::kYearMonthInterval:
    case TypeId::kDate:
    case TypeId::kLong:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kDayTimeInterval:
    case TypeId::kFloat:
    case TypeId::kDouble:
      return true;
    default:
      return false;
  }
}

// Spark's order of doubles: -0.0 equals 0.0, NaN (any payload) above every number.
uint64_t DoubleBits(double value) {
  if (std::isnan(value)) return ~uint64_t{0};
  if (value == 0) value = 0;
  const uint64_t bits = std::bit_cast<uint64_t>(value);
  return (bits >> 63) != 0 ? ~bits : bits | (uint64_t{1} << 63);
}

// The order words of rows [0, num_rows) of `column` under `key` into `out`.
void ComputeOrderWords(const Vector& column, int64_t num_rows, const SortKey& key,
                       std::vector<OrderWord>& out) {
  out.resize(static_cast<size_t>(num_rows));
  constexpr uint64_t kSignBit = uint64_t{1} << 63;
  auto fill = [&](auto value_bits) {
    const uint64_t flip = key.ascending ? 0 : ~uint64_t{0};
    const OrderWord value_rank = static_cast<OrderWord>(key.nulls_first ? 1 : 0) << 64;
    const OrderWord null_word = static_cast<OrderWord>(key.nulls_first ? 0 : 1) << 64;
    const bool has_nulls = column.null_count() != 0;
    for (int64_t r = 0; r < num_rows; ++r) {
      out[static_cast<size_t>(r)] =
          has_nulls && column.IsNull(r) ? null_word : (value_rank | (value_bits(r) ^ flip));
    }
  };
  switch (column.type_id()) {
    case TypeId::kBoolean:
      fill([&](int64_t r) { return static_cast<uint64_t>(column.GetBool(r)); });
      break;
    case TypeId::kByte: {
      const int8_t* values = column.values<int8_t>();
      fill([&](int64_t r) {
        return static_cast<uint64_t>(static_cast<int64_t>(values[r])) ^ kSignBit;
      });
      break;
    }
    case TypeId::kShort: {
      const int16_t* values = column.values<int16_t>();
      fill([&](int64_t r) {
        return static_cast<uint64_t>(static_cast<int64_t>(values[r])) ^ kSignBit;
      });
      break;
    }
    case TypeId::kInteger:
    case TypeId::kYearMonthInterval:
    case TypeId::kDate: {
      const int32_t* values = column.values<int32_t>();
      fill([&](int64_t r) {
        return static_cast<uint64_t>(static_cast<int64_t>(values[r])) ^ kSignBit;
      });
      break;
    }
    case TypeId::kLong:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kDayTimeInterval: {
      const int64_t* values = column.values<int64_t>();
      fill([&](int64_t r) { return static_cast<uint64_t>(values[r]) ^ kSignBit; });
      break;
    }
    case TypeId::kFloat: {
      const float* values = column.values<float>();
      fill([&](int64_t r) { return DoubleBits(static_cast<double>(values[r])); });
      break;
    }
    case TypeId::kDouble: {
      const double* values = column.values<double>();
      fill([&](int64_t r) { return DoubleBits(values[r]); });
      break;
    }
    default:
      SILT_CHECK(false, "no order word for type " + column.type()->ToString());
  }
}

// One kept row: where its values live, its order word (when the ORDER BY has one), and when it
// arrived (batch sequence << 32 | row), which breaks ties between rows equal on every key.
struct KeptRow {
  OrderWord word = 0;
  uint32_t chunk = 0;
  uint32_t row = 0;
  uint64_t arrival = 0;
};

// The rows of one batch whose keys hash to one shard: their rows in the batch (whose encoded
// partition keys the worker holds) and order words (when used), gathered so that a table reads
// them in sequence.
struct ShardRows {
  std::vector<uint32_t> rows;
  std::vector<OrderWord> words;

  void Clear() {
    rows.clear();
    words.clear();
  }
};

// The best rows of the groups (window partitions) whose keys hash to one shard. Rows that win
// a place are copied out of their batch into a chunk (one per batch); rows displaced later leave
// garbage in their chunk, which MaybeCompact() reclaims. Not thread-safe.
class TopRowsTable {
 public:
  TopRowsTable(const std::vector<SortKey>& order_by, size_t limit, bool use_order_words)
      : order_by_(order_by), limit_(limit), use_order_words_(use_order_words) {}

  // Offers `shard`'s rows of `batch`, the `sequence`-th batch of the input, whose encoded
  // partition keys are `keys`. `arrivals` (when given) are the rows' arrival stamps, read back
  // from a spill file, instead of stamps made of `sequence`.
  void Consume(const Batch& batch, uint64_t sequence, const EncodedKeys& keys,
               const ShardRows& shard, const int64_t* arrivals = nullptr) {
    pending_columns_ = &batch.columns();
    touched_groups_.clear();
    const uint64_t sequence_bits = sequence << 32;
    const size_t num_rows = shard.rows.size();
    groups_.resize(num_rows);
    keys_.FindOrInsertRows(keys, shard.rows.data(), num_rows, groups_.data());
    GrowGroups();
    // A group's kept rows are rarely in the caches: fetch them ahead.
    constexpr size_t kPrefetchDistance = 16;
    for (size_t i = 0; i < num_rows; ++i) {
      if (i + kPrefetchDistance < num_rows) {
        const uint32_t ahead = groups_[i + kPrefetchDistance];
        if (limit_ == 1) {
          __builtin_prefetch(&rows_[ahead]);
        } else {
          __builtin_prefetch(&slot_offsets_[ahead]);
        }
        __builtin_prefetch(&counts_[ahead]);
      }
      const uint32_t row = shard.rows[i];
      const KeptRow candidate{
          use_order_words_ ? shard.words[i] : 0, kPendingChunk, row,
          arrivals != nullptr ? static_cast<uint64_t>(arrivals[row]) : (sequence_bits | row)};
      if (Offer(groups_[i], candidate)) touched_groups_.push_back(groups_[i]);
    }

    // Copy the rows of this batch that are still kept into a new chunk. A group listed twice
    // has no pending rows left the second time.
    take_.clear();
    const uint32_t chunk = static_cast<uint32_t>(chunks_.size());
    for (uint32_t group : touched_groups_) {
      KeptRow* kept = KeptOf(group);
      for (uint32_t i = 0; i < counts_[group]; ++i) {
        if (kept[i].chunk != kPendingChunk) continue;
        take_.push_back(kept[i].row);
        kept[i].chunk = chunk;
        kept[i].row = static_cast<uint32_t>(take_.size() - 1);
      }
    }
    pending_columns_ = nullptr;
    if (!take_.empty()) {
      chunks_.push_back(Gather(batch.columns(), take_));
      chunk_live_.push_back(take_.size());
      chunk_size_.push_back(take_.size());
      chunk_bytes_.push_back(ColumnBytes(chunks_.back()));
      stored_rows_ += take_.size();
      stored_bytes_ += chunk_bytes_.back();
    }
    MaybeCompact();
  }

  // The bytes the table holds: its chunks, slots and key table (by capacity).
  int64_t MemoryBytes() const {
    return stored_bytes_ + keys_.MemoryBytes() +
           static_cast<int64_t>(rows_.capacity() * sizeof(KeptRow) +
                                slot_offsets_.capacity() * sizeof(size_t) +
                                counts_.capacity() * sizeof(uint32_t));
  }

  // An upper bound on how far MemoryBytes() may rise, counting the buffers that grow beside
  // their old ones while they copy, while `num_rows` rows with `key_bytes` bytes of encoded keys
  // and `value_bytes` bytes of values are offered: the key table, the per-group arrays
  // GrowGroups() doubles, the slots groups take above a limit of 1, and the new chunk.
  int64_t MaxGrowthBytes(size_t num_rows, size_t key_bytes, int64_t value_bytes) const {
    int64_t bytes = keys_.MaxGrowthBytes(num_rows, key_bytes) + value_bytes;
    const size_t groups = keys_.num_groups();
    if (groups + num_rows > counts_.size()) {
      const size_t capacity = std::max(groups + num_rows, counts_.size() * 2);
      bytes += static_cast<int64_t>(
          capacity * (sizeof(uint32_t) + (limit_ == 1 ? sizeof(KeptRow) : sizeof(size_t))));
    }
    if (limit_ > 1 && rows_.size() + 2 * num_rows > rows_.capacity()) {
      size_t grown = std::max<size_t>(rows_.capacity(), 1);
      while (grown < rows_.size() + 2 * num_rows) grown *= 2;
      bytes += static_cast<int64_t>(grown * sizeof(KeptRow));
    }
    return bytes;
  }

  // Hands every kept row to `emit` as columns of the input followed by the rows' arrival
  // stamps (LONG), a chunk at a time, and empties the table.
  void Drain(const std::function<void(std::vector<VectorPtr>)>& emit) {
    std::vector<std::vector<int64_t>> rows(chunks_.size());
    std::vector<std::vector<int64_t>> arrivals(chunks_.size());
    for (size_t group = 0; group < counts_.size() && group < keys_.num_groups(); ++group) {
      const KeptRow* kept = KeptOf(static_cast<uint32_t>(group));
      for (uint32_t i = 0; i < counts_[group]; ++i) {
        rows[kept[i].chunk].push_back(kept[i].row);
        arrivals[kept[i].chunk].push_back(static_cast<int64_t>(kept[i].arrival));
      }
    }
    for (size_t c = 0; c < chunks_.size(); ++c) {
      if (rows[c].empty()) continue;
      std::vector<VectorPtr> columns = Gather(chunks_[c], rows[c]);
      const int64_t n = static_cast<int64_t>(rows[c].size());
      BufferPtr values = Buffer::Allocate(static_cast<size_t>(n) * sizeof(int64_t));
      std::copy(arrivals[c].begin(), arrivals[c].end(), values->as<int64_t>());
      columns.push_back(Vector::Make(LongType(), n, {nullptr, values}, {}, 0));
      chunks_[c] = {};
      emit(std::move(columns));
    }
  }

  // Splits the kept rows by chunk (their rows and row numbers) for TakeOutput().
  void PrepareOutput() {
    output_rows_.assign(chunks_.size(), {});
    output_numbers_.assign(chunks_.size(), {});
    for (size_t group = 0; group < counts_.size(); ++group) {
      const KeptRow* kept = KeptOf(static_cast<uint32_t>(group));
      for (uint32_t i = 0; i < counts_[group]; ++i) {
        output_rows_[kept[i].chunk].push_back(kept[i].row);
        output_numbers_[kept[i].chunk].push_back(static_cast<int32_t>(i + 1));
      }
    }
    rows_ = {};
    slot_offsets_ = {};
    counts_ = {};
    keys_ = KeyTable();
  }

  size_t num_chunks() const { return chunks_.size(); }

  // The kept rows of chunk `c` followed by their row numbers (no columns when none are kept);
  // frees the chunk.
  std::vector<VectorPtr> TakeOutput(size_t c) {
    std::vector<VectorPtr> columns;
    std::vector<int64_t>& rows = output_rows_[c];
    if (!rows.empty()) {
      columns = Gather(chunks_[c], rows);
      const int64_t n = static_cast<int64_t>(rows.size());
      BufferPtr values = Buffer::Allocate(static_cast<size_t>(n) * sizeof(int32_t));
      std::copy(output_numbers_[c].begin(), output_numbers_[c].end(), values->as<int32_t>());
      columns.push_back(Vector::Make(IntegerType(), n, {nullptr, values}, {}, 0));
    }
    chunks_[c] = {};
    output_rows_[c] = {};
    output_numbers_[c] = {};
    return columns;
  }

 private:
  static int64_t ColumnBytes(const std::vector<VectorPtr>& columns) {
    int64_t bytes = 0;
    for (const VectorPtr& column : columns) bytes += exec::MemoryBytes(*column);
    return bytes;
  }

  static std::vector<VectorPtr> Gather(const std::vector<VectorPtr>& columns,
                                       const std::vector<int64_t>& rows) {
    std::vector<VectorPtr> out;
    out.reserve(columns.size());
    for (const VectorPtr& column : columns) out.push_back(TakeRows(*column, rows));
    return out;
  }

  const std::vector<VectorPtr>& ColumnsOf(uint32_t chunk) const {
    return chunk == kPendingChunk ? *pending_columns_ : chunks_[chunk];
  }

  // Orders rows by the ORDER BY keys, then by arrival (batches of several threads reach a table
  // in any order).
  int Compare(const KeptRow& a, const KeptRow& b) const {
    const int c = use_order_words_ ? (a.word < b.word ? -1 : (a.word > b.word ? 1 : 0))
                                   : CompareRows(ColumnsOf(a.chunk), a.row, ColumnsOf(b.chunk),
                                                 b.row, order_by_);
    if (c != 0) return c;
    return a.arrival < b.arrival ? -1 : (a.arrival > b.arrival ? 1 : 0);
  }

  // Puts `candidate` among `group`'s kept rows if it is among the best `limit_`; returns
  // whether it was kept.
  bool Offer(uint32_t group, const KeptRow& candidate) {
    uint32_t count = counts_[group];
    if (limit_ > 1 && count < limit_ && (count & (count - 1)) == 0) Reserve(group, count);
    KeptRow* kept = KeptOf(group);
    if (count == limit_) {
      if (Compare(candidate, kept[count - 1]) > 0) return false;
      Release(kept[count - 1].chunk);
      --count;
    } else {
      ++live_rows_;
    }
    uint32_t position = count;
    while (position > 0 && Compare(candidate, kept[position - 1]) < 0) {
      kept[position] = kept[position - 1];
      --position;
    }
    kept[position] = candidate;
    counts_[group] = count + 1;
    return true;
  }

  // A kept row of `chunk` was displaced.
  void Release(uint32_t chunk) {
    if (chunk == kPendingChunk) return;
    if (--chunk_live_[chunk] == 0) {
      stored_rows_ -= chunk_size_[chunk];
      stored_bytes_ -= chunk_bytes_[chunk];
      chunk_size_[chunk] = 0;
      chunk_bytes_[chunk] = 0;
      chunks_[chunk] = {};
    }
  }

  // The kept rows of `group`, best first.
  KeptRow* KeptOf(uint32_t group) {
    return limit_ == 1 ? &rows_[group] : &rows_[slot_offsets_[group]];
  }

  // With a limit above 1, a group's slots grow 1, 2, 4, ... up to the limit as its rows arrive
  // (moving to the end of rows_), so groups with few rows do not take `limit_` slots each.
  // Makes room for one more row of `group`, which has `count` rows: a power of two (or zero)
  // below the limit.
  void Reserve(uint32_t group, uint32_t count) {
    const size_t capacity = count == 0 ? 1 : std::min<size_t>(limit_, size_t{count} * 2);
    const size_t offset = rows_.size();
    rows_.resize(offset + capacity);
    if (count > 0) std::copy_n(&rows_[slot_offsets_[group]], count, &rows_[offset]);
    slot_offsets_[group] = offset;
  }

  void GrowGroups() {
    const size_t num_groups = keys_.num_groups();
    if (counts_.size() >= num_groups) return;
    const size_t capacity = std::max(num_groups, counts_.size() * 2);
    counts_.resize(capacity, 0);
    if (limit_ == 1) {
      rows_.resize(capacity);
    } else {
      slot_offsets_.resize(capacity, 0);
    }
  }

  // Displaced rows may take as much room as twice the kept ones (plus some slack) before the
  // chunks that are mostly garbage are copied again, which keeps the copying linear in the input.
  void MaybeCompact() {
    constexpr size_t kGarbageSlack = 4096;
    const size_t garbage = stored_rows_ - live_rows_;
    if (garbage <= 2 * live_rows_ + kGarbageSlack) return;
    std::vector<std::vector<KeptRow*>> moved(chunks_.size());
    for (size_t group = 0; group < keys_.num_groups(); ++group) {
      KeptRow* kept = KeptOf(static_cast<uint32_t>(group));
      for (uint32_t i = 0; i < counts_[group]; ++i) {
        const uint32_t c = kept[i].chunk;
        if (chunk_live_[c] * 2 < chunk_size_[c]) moved[c].push_back(&kept[i]);
      }
    }
    std::vector<int64_t> rows;
    for (size_t c = 0; c < moved.size(); ++c) {
      if (moved[c].empty()) continue;
      rows.clear();
      for (KeptRow* row : moved[c]) {
        rows.push_back(row->row);
        row->row = static_cast<uint32_t>(rows.size() - 1);
      }
      chunks_[c] = Gather(chunks_[c], rows);
      stored_rows_ -= chunk_size_[c] - rows.size();
      chunk_size_[c] = rows.size();
      stored_bytes_ -= chunk_bytes_[c];
      chunk_bytes_[c] = ColumnBytes(chunks_[c]);
      stored_bytes_ += chunk_bytes_[c];
    }
  }

  const std::vector<SortKey>& order_by_;
  size_t limit_;
  bool use_order_words_;

  KeyTable keys_;
  // Limit 1: the kept row of group g at g. Otherwise each group's slots start at its
  // slot_offsets_ entry; slots left behind when a group grows are not reused.
  std::vector<KeptRow> rows_;
  std::vector<size_t> slot_offsets_;
  std::vector<uint32_t> counts_;  // kept rows per group (capacity may exceed the groups)
  size_t live_rows_ = 0;          // sum of counts_

  std::vector<std::vector<VectorPtr>> chunks_;  // a chunk without live rows has no columns
  std::vector<size_t> chunk_live_;
  std::vector<size_t> chunk_size_;
  std::vector<int64_t> chunk_bytes_;
  size_t stored_rows_ = 0;    // sum of chunk_size_
  int64_t stored_bytes_ = 0;  // sum of chunk_bytes_

  // Consume() scratch.
  const std::vector<VectorPtr>* pending_columns_ = nullptr;
  std::vector<uint32_t> groups_;
  std::vector<uint32_t> touched_groups_;  // groups that kept a row of the batch
  std::vector<int64_t> take_;

  std::vector<std::vector<int64_t>> output_rows_;
  std::vector<std::vector<int32_t>> output_numbers_;
};

// Groups are spread over this many tables by hash: each table is small enough to stay in the
// caches while a batch's rows for it are offered, and threads work on different tables at once.
constexpr int kShardBits = 4;
constexpr size_t kNumShards = size_t{1} << kShardBits;

// The shard of a key hash: its top bits (the tables use the low bits for slots).
inline size_t ShardOf(uint64_t hash) { return static_cast<size_t>(hash >> (64 - kShardBits)); }

// Past the memory limit, kept and arriving rows go to this many spill files by bits of their
// key hash that neither the shards nor the tables' slots use, then each file is processed alone.
constexpr size_t kSpillPartitions = 16;
inline size_t SpillPartitionOf(uint64_t hash) {
  return static_cast<size_t>((hash >> 32) % kSpillPartitions);
}

class GroupTopRowsOperator final : public Operator {
 public:
  GroupTopRowsOperator(OperatorPtr child, std::vector<int> partition_by,
                       std::vector<SortKey> order_by, size_t limit, SchemaPtr schema)
      : Operator(std::move(schema)),
        child_(std::move(child)),
        partition_by_(std::move(partition_by)),
        order_by_(std::move(order_by)),
        limit_(limit),
        use_order_words_(
            order_by_.size() == 1 &&
            HasOrderWord(
                child_->schema()->field(static_cast<size_t>(order_by_[0].column)).type->id())) {}

  // A failure leaves the tables half built: every later call rethrows it (a consumer's other
  // workers may still pull once).
  std::optional<Batch> Next(ExecContext& context) override {
    if (failure_) std::rethrow_exception(failure_);
    try {
      return NextBatch(context);
    } catch (...) {
      failure_ = std::current_exception();
      throw;
    }
  }

  std::optional<Batch> NextBatch(ExecContext& context) {
    if (!consumed_) {
      Consume(context);
      consumed_ = true;
    }
    // Chunks hold few kept rows each when most rows were displaced: small ones are combined.
    std::vector<Batch> small;
    int64_t small_rows = 0;
    while (next_table_ < tables_.size() || LoadNextPartition(context)) {
      TopRowsTable& table = *tables_[next_table_];
      if (next_chunk_ >= table.num_chunks()) {
        tables_[next_table_++].reset();
        next_chunk_ = 0;
        continue;
      }
      std::vector<VectorPtr> columns = table.TakeOutput(next_chunk_++);
      if (columns.empty()) continue;
      // Rows read back from spill files carry their arrival stamps before the row number.
      if (spilling_)
        columns.erase(columns.begin() +
                      static_cast<std::ptrdiff_t>(child_->schema()->num_fields()));
      const int64_t num_rows = columns[0]->length();
      Batch batch(schema(), std::move(columns), num_rows);
      if (num_rows >= kTargetBatchRows / 4 && small.empty()) return batch;
      small.push_back(std::move(batch));
      small_rows += num_rows;
      if (small_rows >= kTargetBatchRows / 4) break;
    }
    if (small.empty()) return std::nullopt;
    return ConcatenateBatches(small);
  }

  std::string Describe() const override {
    const Schema& input = *child_->schema();
    auto column_text = [&](int column) {
      return input.field(static_cast<size_t>(column)).name + "#" + std::to_string(column);
    };
    std::string text =
        "GroupTopRows [row_number() AS " + schema()->fields().back().name + "], [partition: ";
    for (size_t p = 0; p < partition_by_.size(); ++p) {
      text += (p > 0 ? ", " : "") + column_text(partition_by_[p]);
    }
    text += "], [order: ";
    for (size_t o = 0; o < order_by_.size(); ++o) {
      const SortKey& key = order_by_[o];
      text += (o > 0 ? ", " : "") + column_text(key.column) + (key.ascending ? " ASC" : " DESC") +
              (key.nulls_first ? " NULLS FIRST" : " NULLS LAST");
    }
    return text + "], [limit: " + std::to_string(limit_) + "]";
  }

  std::vector<const Operator*> children() const override { return {child_.get()}; }

 private:
  // One thread's scratch for the batch it offers.
  struct Worker {
    std::vector<VectorPtr> partition_values;
    EncodedKeys keys;
    std::vector<OrderWord> words;
    std::array<ShardRows, kNumShards> shards;
  };

  // Offers `batch` to the tables its rows hash to; `first_shard` staggers the threads. Once the
  // operator spills, the batch goes to the spill files instead.
  void Offer(const Batch& batch, uint64_t sequence, Worker& worker, size_t first_shard) {
    const int64_t num_rows = batch.num_rows();
    SILT_CHECK(num_rows <= std::numeric_limits<uint32_t>::max(), "batch too large for top rows");
    if (spilling_.load(std::memory_order_acquire)) {
      BufferPtr stamps = Buffer::Allocate(static_cast<size_t>(num_rows) * sizeof(int64_t));
      for (int64_t r = 0; r < num_rows; ++r) {
        stamps->as<int64_t>()[r] =
            static_cast<int64_t>((sequence << 32) | static_cast<uint64_t>(r));
      }
      std::vector<VectorPtr> columns = batch.columns();
      columns.push_back(Vector::Make(LongType(), num_rows, {nullptr, stamps}, {}, 0));
      SpillRows(std::move(columns), num_rows);
      return;
    }
    bool over_limit = false;
    worker.partition_values.clear();
    for (int column : partition_by_) {
      worker.partition_values.push_back(batch.column(static_cast<size_t>(column)));
    }
    EncodeKeys(worker.partition_values, num_rows, worker.keys);
    if (use_order_words_) {
      ComputeOrderWords(*batch.column(static_cast<size_t>(order_by_[0].column)), num_rows,
                        order_by_[0], worker.words);
    }
    for (ShardRows& shard : worker.shards) shard.Clear();
    for (int64_t r = 0; r < num_rows; ++r) {
      ShardRows& shard = worker.shards[ShardOf(worker.keys.hashes[static_cast<size_t>(r)])];
      shard.rows.push_back(static_cast<uint32_t>(r));
      if (use_order_words_) shard.words.push_back(worker.words[static_cast<size_t>(r)]);
    }
    // A table's growth is reserved before its rows go in (a table that doubles holds both
    // sizes while it copies); the rows of a table refused go to the spill files instead.
    const double key_bytes_per_row =
        static_cast<double>(worker.keys.bytes.size()) / static_cast<double>(num_rows);
    const double value_bytes_per_row =
        static_cast<double>(MemoryBytes(batch)) / static_cast<double>(num_rows);
    std::vector<int64_t> refused;
    // Tables another thread holds are visited last.
    std::array<bool, kNumShards> done{};
    for (int pass = 0; pass < 2; ++pass) {
      for (size_t i = 0; i < kNumShards; ++i) {
        const size_t p = (first_shard + i) % kNumShards;
        if (done[p] || worker.shards[p].rows.empty()) continue;
        std::unique_lock<std::mutex> lock(table_mutexes_[p], std::defer_lock);
        if (pass == 0) {
          if (!lock.try_lock()) continue;
        } else {
          lock.lock();
        }
        done[p] = true;
        const ShardRows& shard = worker.shards[p];
        const auto shard_rows = static_cast<double>(shard.rows.size());
        const int64_t growth = tables_[p]->MaxGrowthBytes(
            shard.rows.size(), static_cast<size_t>(key_bytes_per_row * shard_rows) + 1,
            static_cast<int64_t>(value_bytes_per_row * shard_rows) + 1);
        if (!ReserveGrowth(p, growth)) {
          refused.insert(refused.end(), shard.rows.begin(), shard.rows.end());
          over_limit = true;
          continue;
        }
        tables_[p]->Consume(batch, sequence, worker.keys, shard);
        over_limit = !Account(p) || over_limit;
      }
    }
    if (over_limit) StartSpilling();
    if (!refused.empty()) {
      std::sort(refused.begin(), refused.end());
      const auto n = static_cast<int64_t>(refused.size());
      BufferPtr stamps = Buffer::Allocate(refused.size() * sizeof(int64_t));
      for (size_t r = 0; r < refused.size(); ++r) {
        stamps->as<int64_t>()[r] =
            static_cast<int64_t>((sequence << 32) | static_cast<uint64_t>(refused[r]));
      }
      std::vector<VectorPtr> columns = TakeBatchRows(batch, refused).columns();
      columns.push_back(Vector::Make(LongType(), n, {nullptr, stamps}, {}, 0));
      SpillRows(std::move(columns), n);
    }
  }

  // Reserves `growth` bytes for table `p` before rows go in (called under the table's lock);
  // Account() then settles what it counts to what the table holds.
  bool ReserveGrowth(size_t p, int64_t growth) {
    std::lock_guard<std::mutex> lock(memory_mutex_);
    if (growth > 0 && !reservation_->TryGrow(growth)) return false;
    table_bytes_[p] += std::max<int64_t>(growth, 0);
    return true;
  }

  // Counts table `p`'s bytes in the operator's reservation (called under the table's lock);
  // false when the query's budget refuses them (the table keeps its rows until it is drained).
  bool Account(size_t p) {
    const int64_t bytes = tables_[p]->MemoryBytes();
    std::lock_guard<std::mutex> lock(memory_mutex_);
    const int64_t delta = bytes - table_bytes_[p];
    if (delta > 0 && !reservation_->TryGrow(delta)) return false;
    if (delta < 0) reservation_->Shrink(-delta);
    table_bytes_[p] = bytes;
    return true;
  }

  // Counts table `p` as empty (called under the table's lock).
  void Unaccount(size_t p) {
    std::lock_guard<std::mutex> lock(memory_mutex_);
    reservation_->Shrink(table_bytes_[p]);
    table_bytes_[p] = 0;
  }

  // Switches to spilling: later batches go to the spill files, and every table hands its kept
  // rows there too. A batch another worker is offering meanwhile may still land in a table;
  // the tables are drained again when the input ends.
  void StartSpilling() {
    std::lock_guard<std::mutex> lock(spill_mutex_);
    if (spilling_.load(std::memory_order_acquire)) return;
    std::vector<Field> fields = child_->schema()->fields();
    fields.push_back(Field{"arrival", LongType(), false, {}});
    spill_schema_ = std::make_shared<Schema>(std::move(fields));
    for (size_t i = 0; i < kSpillPartitions; ++i) {
      spill_files_.push_back(std::make_unique<SpillFile>(*memory_, spill_schema_, counters_));
    }
    spilling_.store(true, std::memory_order_release);
    for (size_t p = 0; p < kNumShards; ++p) {
      std::lock_guard<std::mutex> table_lock(table_mutexes_[p]);
      DrainTable(p);
    }
  }

  // Moves table `p`'s kept rows to the spill files and frees it (caller holds its lock).
  void DrainTable(size_t p) {
    tables_[p]->Drain([&](std::vector<VectorPtr> columns) {
      const int64_t num_rows = columns[0]->length();
      SpillRows(std::move(columns), num_rows);
    });
    tables_[p] = std::make_unique<TopRowsTable>(order_by_, limit_, use_order_words_);
    Unaccount(p);
  }

  // Appends rows (the input's columns, then their arrival stamps) to the spill files their
  // partition keys hash to.
  void SpillRows(std::vector<VectorPtr> columns, int64_t num_rows) {
    std::vector<VectorPtr> partition_values;
    for (int column : partition_by_)
      partition_values.push_back(columns[static_cast<size_t>(column)]);
    EncodedKeys keys;
    EncodeKeys(partition_values, num_rows, keys);
    std::array<std::vector<int64_t>, kSpillPartitions> rows;
    for (int64_t r = 0; r < num_rows; ++r) {
      rows[SpillPartitionOf(keys.hashes[static_cast<size_t>(r)])].push_back(r);
    }
    Batch batch(spill_schema_, std::move(columns), num_rows);
    for (size_t i = 0; i < kSpillPartitions; ++i) {
      if (rows[i].empty()) continue;
      Batch part = TakeBatchRows(batch, rows[i]);
      std::lock_guard<std::mutex> lock(spill_file_mutexes_[i]);
      spill_files_[i]->Append(part);
    }
  }

  // After a spill: replaces the tables with one holding the best rows of the next spill file,
  // ready for output; false when no file is left. A file whose kept rows do not fit fails with
  // EXEC_MEMORY_LIMIT_EXCEEDED.
  bool LoadNextPartition(ExecContext& context) {
    if (!spilling_ || next_partition_ >= spill_files_.size()) return false;
    std::unique_ptr<SpillFile> file = std::move(spill_files_[next_partition_++]);
    tables_.clear();
    tables_.push_back(std::make_unique<TopRowsTable>(order_by_, limit_, use_order_words_));
    reservation_->Clear();
    table_bytes_.fill(0);
    TopRowsTable& table = *tables_[0];
    const size_t arrival_column = child_->schema()->num_fields();
    Worker worker;
    ShardRows& all = worker.shards[0];
    while (std::optional<Batch> batch = file->ReadNext()) {
      ThrowIfCanceled(context.cancellation);
      const int64_t num_rows = batch->num_rows();
      worker.partition_values.clear();
      for (int column : partition_by_)
        worker.partition_values.push_back(batch->column(static_cast<size_t>(column)));
      EncodeKeys(worker.partition_values, num_rows, worker.keys);
      all.Clear();
      for (int64_t r = 0; r < num_rows; ++r) all.rows.push_back(static_cast<uint32_t>(r));
      if (use_order_words_) {
        ComputeOrderWords(*batch->column(static_cast<size_t>(order_by_[0].column)), num_rows,
                          order_by_[0], all.words);
      }
      table.Consume(*batch, 0, worker.keys, all, batch->column(arrival_column)->values<int64_t>());
      if (!Account(0)) ThrowMemoryLimitExceeded(*memory_, "GroupTopRows");
    }
    file.reset();
    table.PrepareOutput();
    next_table_ = 0;
    next_chunk_ = 0;
    return true;
  }

  void Consume(ExecContext& context) {
    memory_ = context.memory;
    counters_ = context.counters.get();
    reservation_ = std::make_unique<MemoryReservation>(memory_, "GroupTopRows");
    for (size_t p = 0; p < kNumShards; ++p) {
      tables_.push_back(std::make_unique<TopRowsTable>(order_by_, limit_, use_order_words_));
    }
    // A child that allows parallel pulls decodes on the offering threads, so every thread
    // offers rows. Otherwise half the threads offer rows and the others stay free for the
    // child, whose scan decodes on the pool (with two threads, one offering thread beats two
    // contending with the scan).
    const bool parallel_child = context.Parallelism() > 1 && child_->EnableParallelNext();
    const size_t parallelism =
        parallel_child ? context.Parallelism() : std::max<size_t>(1, context.Parallelism() / 2);
    std::vector<Worker> workers(parallelism);
    // Every worker offers the batches it pulls to the tables; batches are numbered as their
    // pulls return (in the child's order when pulled under a lock, so ties are broken as one
    // thread would break them; a parallel scan's batch order is not deterministic anyway).
    PullOnWorkers(*child_, context, parallelism, parallel_child,
                  [&](size_t worker, Batch& batch, uint64_t sequence, ExecContext&) {
                    Offer(batch, sequence, workers[worker], worker * kNumShards / parallelism);
                  });
    if (spilling_) {
      // What reached the tables after they were drained goes to the files too; the files are
      // then processed one at a time (LoadNextPartition).
      for (size_t p = 0; p < kNumShards; ++p) DrainTable(p);
      tables_.clear();
      for (auto& file : spill_files_) file->FinishWriting();
      return;
    }
    for (auto& table : tables_) table->PrepareOutput();
  }

  OperatorPtr child_;
  std::vector<int> partition_by_;
  std::vector<SortKey> order_by_;
  size_t limit_;
  bool use_order_words_;
  std::vector<std::unique_ptr<TopRowsTable>> tables_;  // one per shard
  std::array<std::mutex, kNumShards> table_mutexes_;
  // Memory: the tables' bytes count against the query's limit, in one reservation. When one is
  // refused the operator spills: the kept rows and the rest of the input go to kSpillPartitions
  // files by key hash (with their arrival stamps, so ties still go to the earlier row), each
  // processed alone at the end.
  std::shared_ptr<QueryMemory> memory_;
  ExecCounters* counters_ = nullptr;
  std::mutex memory_mutex_;
  std::unique_ptr<MemoryReservation> reservation_;  // guarded by memory_mutex_
  std::array<int64_t, kNumShards> table_bytes_{};   // what each table counts there
  std::atomic<bool> spilling_{false};
  std::mutex spill_mutex_;
  SchemaPtr spill_schema_;
  std::vector<std::unique_ptr<SpillFile>> spill_files_;
  std::array<std::mutex, kSpillPartitions> spill_file_mutexes_;
  size_t next_partition_ = 0;
  bool consumed_ = false;
  std::exception_ptr failure_;
  size_t next_table_ = 0;
  size_t next_chunk_ = 0;
};

}  // namespace

OperatorPtr MakeGroupTopRows(OperatorPtr child, std::vector<int> partition_by,
                             std::vector<SortKey> order_by, int64_t limit,
                             std::string row_number_name) {
  SILT_CHECK(child != nullptr, "group top rows without input");
  SILT_CHECK(limit >= 1 && limit <= std::numeric_limits<int32_t>::max(),
             "group top rows limit out of range");
  const Schema& input = *child->schema();
  for (int column : partition_by) {
    SILT_CHECK(column >= 0 && static_cast<size_t>(column) < input.num_fields(),
               "partition column out of range");
    CheckOrderable(*input.field(static_cast<size_t>(column)).type, "window partition");
  }
  for (const SortKey& key : order_by) {
    SILT_CHECK(key.column >= 0 && static_cast<size_t>(key.column) < input.num_fields(),
               "order column out of range");
    CheckOrderable(*input.field(static_cast<size_t>(key.column)).type, "window order");
  }
  std::vector<Field> fields = input.fields();
  fields.push_back(Field{std::move(row_number_name), IntegerType(), false, {}});
  auto schema = std::make_shared<Schema>(std::move(fields));
  return std::make_unique<GroupTopRowsOperator>(std::move(child), std::move(partition_by),
                                                std::move(order_by), static_cast<size_t>(limit),
                                                std::move(schema));
}

}  // namespace silt::exec
