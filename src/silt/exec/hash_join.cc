#include <algorithm>
#include <array>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>

#include "silt/base/check.h"
#include "silt/base/thread_pool.h"
#include "silt/exec/hash_operators.h"
#include "silt/exec/hash_table.h"
#include "silt/exec/pull_on_workers_internal.h"
#include "silt/exec/operators.h"
#include "silt/exec/row_hash.h"
#include "silt/exec/spill_file.h"
#include "silt/expr/evaluator.h"
#include "silt/expr/type_coercion.h"
#include "silt/vector/integer_values.h"
#include "silt/vector/take.h"

namespace silt::exec {

namespace {

using expr::EvalContext;
using expr::ExpressionPtr;

constexpr int64_t kEncodeChunkRows = 64 * 1024;
// Rows ahead of the current one whose hash-table memory is prefetched.
constexpr int64_t kPrefetchDistance = 48;

// The values of an integer-like vector, widened to int64.
std::vector<int64_t> IntegerKeys(const Vector& keys) {
  std::vector<int64_t> out(static_cast<size_t>(keys.length()));
  VisitIntegerValues(keys, [&](const auto* values) { std::copy(values, values + keys.length(), out.begin()); });
  return out;
}

// The build side of a join on one integer-like key: open addressing over (key, first row)
// slots, so a probe costs one cache miss where the general KeyTable needs three.
class IntegerKeyIndex {
 public:
  static bool Supports(const DataType& type) { return IsIntegerLike(type.id()); }

  // Indexes the rows of `keys` whose `null_rows` byte is 0, chaining rows of one key through
  // `next` in row order.
  IntegerKeyIndex(const Vector& keys, const uint8_t* null_rows, int64_t* next) {
    const int64_t num_rows = keys.length();
    size_t capacity = 16;
    while (capacity < static_cast<size_t>(num_rows) * 2) capacity *= 2;
    slots_.assign(capacity, Slot{0, -1});
    mask_ = capacity - 1;
    std::vector<int64_t> values = IntegerKeys(keys);
    for (int64_t row = num_rows - 1; row >= 0; --row) {
      // The slots are rarely in the caches: fetch ahead (rows go last to first).
      if (row >= kPrefetchDistance) {
        __builtin_prefetch(&slots_[MixHash(static_cast<uint64_t>(values[row - kPrefetchDistance])) & mask_]);
      }
      if (null_rows[row]) continue;
      Slot& slot = SlotFor(values[row]);
      slot.key = values[row];
      next[row] = slot.head;
      slot.head = row;
      min_ = std::min(min_, values[row]);
      max_ = std::max(max_, values[row]);
    }
    // Keys within a range of at most kBitmapBitsPerRow bits per row, or of at most
    // kSmallBitmapBits, get an exact membership bitmap, small enough to stay in cache: a probe
    // key the build side lacks (most of them, in a selective join) is then answered without a
    // cache miss in the slots.
    if (min_ <= max_) {
      const uint64_t span = static_cast<uint64_t>(max_) - static_cast<uint64_t>(min_);
      if (span < kBitmapBitsPerRow * static_cast<uint64_t>(num_rows) || span < kSmallBitmapBits) {
        members_.assign(span / 64 + 1, 0);
        for (int64_t row = 0; row < num_rows; ++row) {
          if (null_rows[row]) continue;
          const uint64_t bit = static_cast<uint64_t>(values[row]) - static_cast<uint64_t>(min_);
          members_[bit >> 6] |= uint64_t{1} << (bit & 63);
        }
      }
    }
  }

  // For each row of `keys`: the first build row with an equal key, or -1 (also where `skip`).
  void FindAll(const Vector& keys, const uint8_t* skip, int64_t* heads) const {
    std::vector<int64_t> values = IntegerKeys(keys);
    const int64_t num_rows = keys.length();
    // First which rows may match (range and bitmap, both in cache): 0 = look up, -1 = no.
    for (int64_t i = 0; i < num_rows; ++i) heads[i] = skip[i] || !MayContain(values[i]) ? -1 : 0;
    for (int64_t i = 0; i < num_rows; ++i) {
      if (i + kPrefetchDistance < num_rows && heads[i + kPrefetchDistance] == 0) {
        __builtin_prefetch(&slots_[MixHash(values[i + kPrefetchDistance]) & mask_]);
      }
      if (heads[i] == 0) heads[i] = Find(values[i]);
    }
  }

 private:
  static constexpr uint64_t kBitmapBitsPerRow = 16;
  // 1 MiB: a bitmap this small stays in the second-level cache whatever the build side's rows.
  static constexpr uint64_t kSmallBitmapBits = uint64_t{1} << 23;

  bool MayContain(int64_t key) const {
    if (key < min_ || key > max_) return false;
    if (members_.empty()) return true;
    const uint64_t bit = static_cast<uint64_t>(key) - static_cast<uint64_t>(min_);
    return (members_[bit >> 6] >> (bit & 63)) & 1;
  }

  struct Slot {
    int64_t key;
    int64_t head;  // -1 = empty
  };

  Slot& SlotFor(int64_t key) {
    size_t index = MixHash(static_cast<uint64_t>(key)) & mask_;
    while (slots_[index].head >= 0 && slots_[index].key != key) index = (index + 1) & mask_;
    return slots_[index];
  }
  int64_t Find(int64_t key) const {
    size_t index = MixHash(static_cast<uint64_t>(key)) & mask_;
    while (slots_[index].head >= 0) {
      if (slots_[index].key == key) return slots_[index].head;
      index = (index + 1) & mask_;
    }
    return -1;
  }

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  // The smallest and largest key (min_ > max_ when there is none) and, for a narrow range, a
  // bit per key in [min_, max_].
  int64_t min_ = std::numeric_limits<int64_t>::max();
  int64_t max_ = std::numeric_limits<int64_t>::min();
  std::vector<uint64_t> members_;
};

bool KeepsLeftOnly(JoinType type) { return type == JoinType::kLeftSemi || type == JoinType::kLeftAnti; }

// The join's output columns (as JoinOutputSchema in operators.h): left then right, the outer
// sides' columns nullable; semi and anti joins keep the left columns only.
SchemaPtr HashJoinSchema(const Schema& left, const Schema& right, JoinType type) {
  std::vector<Field> fields;
  const bool left_nullable = type == JoinType::kRightOuter || type == JoinType::kFullOuter;
  const bool right_nullable = type == JoinType::kLeftOuter || type == JoinType::kFullOuter;
  for (const Field& field : left.fields()) {
    fields.push_back(field);
    fields.back().nullable = field.nullable || left_nullable;
  }
  if (!KeepsLeftOnly(type)) {
    for (const Field& field : right.fields()) {
      fields.push_back(field);
      fields.back().nullable = field.nullable || right_nullable;
    }
  }
  return std::make_shared<Schema>(std::move(fields));
}

// Per row: whether a key that is not null-safe is NULL (such a row matches nothing).
std::vector<uint8_t> NullKeyRows(const std::vector<VectorPtr>& keys, const std::vector<bool>& null_safe,
                                 int64_t num_rows) {
  std::vector<uint8_t> null_rows(static_cast<size_t>(num_rows), 0);
  for (size_t k = 0; k < keys.size(); ++k) {
    if (null_safe[k] || keys[k]->null_count() == 0) continue;
    for (int64_t i = 0; i < num_rows; ++i) null_rows[i] |= keys[k]->IsNull(i);
  }
  return null_rows;
}

// Grace partitioning (HashJoinOperator::Partition): levels use hash bits 63..60, 59..56, ...
constexpr int kSpillPartitionBits = 4;
constexpr size_t kSpillPartitions = size_t{1} << kSpillPartitionBits;
constexpr int kMaxSpillDepth = 6;

size_t SpillPartitionOf(uint64_t hash, int depth) {
  return static_cast<size_t>(hash >> (64 - kSpillPartitionBits * (depth + 1))) & (kSpillPartitions - 1);
}

// Bytes of index per build row beside the rows themselves: the chain, the slot and the key.
constexpr int64_t kIndexBytesPerBuildRow = 40;

class HashJoinOperator final : public Operator {
 public:
  HashJoinOperator(OperatorPtr left, OperatorPtr right, HashJoinSpec spec, int depth = 0)
      : Operator(HashJoinSchema(*left->schema(), *right->schema(), spec.type)),
        left_(std::move(left)),
        right_(std::move(right)),
        spec_(std::move(spec)),
        depth_(depth) {
    SILT_CHECK(spec_.type != JoinType::kCross, "a hash join needs equi-join keys; cross joins use nested loops");
    SILT_CHECK(!spec_.left_keys.empty() && spec_.left_keys.size() == spec_.right_keys.size(),
               "a hash join needs pairs of keys");
    spec_.null_safe.resize(spec_.left_keys.size(), false);
    for (size_t k = 0; k < spec_.left_keys.size(); ++k) {
      const DataTypePtr& left_type = spec_.left_keys[k]->type();
      const DataTypePtr& right_type = spec_.right_keys[k]->type();
      if (left_type->Equals(*right_type)) continue;
      std::optional<DataTypePtr> common = expr::ComparisonType(left_type, right_type);
      SILT_USER_CHECK(common.has_value(), DATATYPE_MISMATCH,
                      {{"sqlExpr", "\"" + spec_.left_keys[k]->ToString() + " = " + spec_.right_keys[k]->ToString() + "\""},
                       {"message", "the join keys have incomparable types " + left_type->ToString() + " and " +
                                       right_type->ToString() + "."}});
      spec_.left_keys[k] = expr::CastIfNeeded(spec_.left_keys[k], *common);
      spec_.right_keys[k] = expr::CastIfNeeded(spec_.right_keys[k], *common);
    }
    SILT_CHECK(!spec_.build_left || (KeepsLeftOnly(spec_.type) && !spec_.null_aware_anti),
               "only semi and anti joins (not NOT IN) build their left side");
  }

  // Every join type probes on the pulling threads; right and full outer joins emit their
  // unmatched build rows, and semi and anti joins that build their left side emit it, once the
  // last probe is done.
  bool EnableParallelNext() override {
    parallel_ = probe_input().EnableParallelNext();
    return parallel_;
  }

  std::optional<Batch> Next(ExecContext& context) override {
    if (parallel_) return NextProbedHere(context);
    if (!built_) {
      Build(context);
      built_ = true;
    }
    if (grace_) return NextGrace(context);
    while (pending_.empty()) {
      if (probe_done_) {
        if (!build_rows_emitted_) {
          build_rows_emitted_ = true;
          EmitBuildRows();
          continue;
        }
        return std::nullopt;
      }
      ProbeSome(context);
    }
    Batch batch = std::move(pending_.front());
    pending_.pop_front();
    return batch;
  }

  std::string Describe() const override {
    auto list = [](const std::vector<ExpressionPtr>& keys) {
      std::string out = "[";
      for (size_t k = 0; k < keys.size(); ++k) out += (k ? ", " : "") + keys[k]->ToString();
      return out + "]";
    };
    std::string out = "HashJoin " + JoinTypeName(spec_.type) + " " + list(spec_.left_keys) + " = " + list(spec_.right_keys);
    if (spec_.residual) out += " AND " + spec_.residual->ToString();
    if (spec_.null_aware_anti) out += " (null aware)";
    if (spec_.build_left) out += " (build left)";
    if (!spec_.runtime_filters.empty()) {  // one number per join, whatever its keys
      out += " (runtime filter #" + std::to_string(spec_.runtime_filters[0].filter->join_id()) + ")";
    }
    return out;
  }
  std::vector<const Operator*> children() const override { return {left_.get(), right_.get()}; }

 private:
  // The input whose hash table is built (the right one unless build_left) and the one streamed
  // through it, with their keys.
  Operator& build_input() const { return spec_.build_left ? *left_ : *right_; }
  Operator& probe_input() const { return spec_.build_left ? *right_ : *left_; }
  const std::vector<ExpressionPtr>& build_keys() const {
    return spec_.build_left ? spec_.left_keys : spec_.right_keys;
  }
  const std::vector<ExpressionPtr>& probe_keys() const {
    return spec_.build_left ? spec_.right_keys : spec_.left_keys;
  }

  // Next() under parallel pulls: the first caller builds (the others wait for it), then each
  // caller pulls a probe batch and joins it itself. The end is reported only once the probe
  // side is exhausted, no caller is still probing and every output batch was handed out.
  std::optional<Batch> NextProbedHere(ExecContext& context) {
    // A failed build fails every caller the same way (call_once alone would retry it).
    std::call_once(build_once_, [&] {
      try {
        Build(context);
      } catch (...) {
        build_error_ = std::current_exception();
      }
    });
    if (build_error_) std::rethrow_exception(build_error_);
    if (grace_) {
      std::lock_guard<std::mutex> lock(grace_mutex_);
      return NextGrace(context);
    }
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(probe_mutex_);
        for (;;) {
          if (!pending_.empty()) {
            Batch batch = std::move(pending_.front());
            pending_.pop_front();
            return batch;
          }
          if (!probe_done_) break;
          if (probing_ == 0) {
            if (build_rows_emitted_) return std::nullopt;
            build_rows_emitted_ = true;
            EmitBuildRows();
            continue;
          }
          probe_changed_.wait(lock);
        }
        ++probing_;
      }
      std::optional<Batch> input;
      std::vector<Batch> output;
      try {
        input = probe_input().Next(context);
        if (input) ProbeBatch(*input, context.eval, output);
      } catch (...) {
        std::lock_guard<std::mutex> lock(probe_mutex_);
        --probing_;
        probe_changed_.notify_all();
        throw;
      }
      std::lock_guard<std::mutex> lock(probe_mutex_);
      --probing_;
      if (!input) probe_done_ = true;
      std::optional<Batch> first;
      for (Batch& batch : output) {
        if (!first) {
          first = std::move(batch);
        } else {
          pending_.push_back(std::move(batch));
        }
      }
      probe_changed_.notify_all();
      if (first) return first;
    }
  }

  // Every batch of the build side: pulled on several threads when the child allows it (each
  // decodes its own row groups), else on this one. Build rows come in no particular order then,
  // as a parallel scan's batches do anyway.
  std::vector<Batch> PullBuildSide(ExecContext& context) {
    // Only a child that decodes on the pulling threads is worth pulling on several.
    Operator& input = build_input();
    const bool parallel = context.Parallelism() > 1 && input.EnableParallelNext();
    const size_t parallelism = parallel ? context.Parallelism() : 1;
    // Each batch's memory is reserved as it arrives; once the limit says no, the build side is
    // partitioned to disk instead (StartGrace), under the same lock.
    std::vector<Batch> batches;
    std::mutex mutex;
    PullOnWorkers(input, context, parallelism, parallel,
                  [&](size_t, Batch& batch, uint64_t, ExecContext& worker_context) {
                    std::lock_guard<std::mutex> lock(mutex);
                    if (!grace_) {
                      if (reservation_->TryGrow(MemoryBytes(batch))) {
                        batches.push_back(std::move(batch));
                        return;
                      }
                      StartGrace(batches, worker_context);
                    }
                    Partition(batch, true, worker_context);
                  });
    return batches;
  }

  void Build(ExecContext& context) {
    reservation_ = std::make_unique<MemoryReservation>(context.memory, "HashJoin");
    std::vector<Batch> batches = PullBuildSide(context);
    const int64_t held_bytes = reservation_->used();
    if (!grace_) {
      // The rows once more (concatenated) and their index.
      int64_t rows = 0;
      for (const Batch& batch : batches) rows += batch.num_rows();
      if (!reservation_->TryGrow(held_bytes + rows * kIndexBytesPerBuildRow)) StartGrace(batches, context);
    }
    if (grace_) {
      PartitionProbeSide(context);
      return;
    }
    const SchemaPtr& build_schema = build_input().schema();
    if (batches.empty()) {
      std::vector<VectorPtr> columns;
      for (const Field& field : build_schema->fields()) {
        columns.push_back(Vector::MakeAllNull(field.type, 0));
      }
      build_ = Batch(build_schema, std::move(columns), 0);
    } else {
      build_ = ConcatenateBatches(batches);
    }
    batches.clear();
    reservation_->Shrink(held_bytes);
    const int64_t num_rows = build_.num_rows();
    std::vector<VectorPtr> keys;
    for (const ExpressionPtr& key : build_keys()) {
      keys.push_back(expr::Evaluate(*key, build_, context.eval));
    }
    std::vector<uint8_t> null_rows = NullKeyRows(keys, spec_.null_safe, num_rows);
    for (int64_t i = 0; i < num_rows; ++i) build_has_null_key_ |= null_rows[i] != 0;
    // Every build row is here: the probe side's scan may now skip the rows no key matches. The
    // sets' memory is the join's until the query ends (a set the limit refuses is not made).
    if (num_rows <= kMaxRuntimeFilterKeys) {
      auto reserve = [this](int64_t bytes) { return reservation_->TryGrow(bytes); };
      for (const HashJoinSpec::RuntimeFilter& runtime : spec_.runtime_filters) {
        if (auto set = log::JoinKeySet::Make(*keys[runtime.key], null_rows.data(), reserve)) {
          runtime.filter->Publish(std::move(set));
        }
      }
    }

    next_.assign(static_cast<size_t>(num_rows), -1);
    if (keys.size() == 1 && !spec_.null_safe[0] && IntegerKeyIndex::Supports(*keys[0]->type())) {
      integer_index_ = std::make_unique<IntegerKeyIndex>(*keys[0], null_rows.data(), next_.data());
    } else {
      BuildKeyTable(keys, null_rows, context);
    }
    if (spec_.type == JoinType::kRightOuter || spec_.type == JoinType::kFullOuter ||
        spec_.build_left) {
      build_matched_ = std::make_unique<std::atomic<uint8_t>[]>(static_cast<size_t>(std::max<int64_t>(num_rows, 1)));
      for (int64_t i = 0; i < num_rows; ++i) build_matched_[i].store(0, std::memory_order_relaxed);
    }
  }

  void BuildKeyTable(const std::vector<VectorPtr>& keys, const std::vector<uint8_t>& null_rows, ExecContext& context) {
    const int64_t num_rows = build_.num_rows();
    // Encode in chunks on the worker threads, then insert on this one.
    const size_t num_chunks = static_cast<size_t>((num_rows + kEncodeChunkRows - 1) / kEncodeChunkRows);
    std::vector<EncodedKeys> chunks(num_chunks);
    context.Pool().ParallelFor(
        num_chunks,
        [&](size_t c) {
          int64_t start = static_cast<int64_t>(c) * kEncodeChunkRows;
          int64_t length = std::min(kEncodeChunkRows, num_rows - start);
          std::vector<VectorPtr> slices;
          for (const VectorPtr& key : keys) slices.push_back(key->Slice(start, length));
          EncodeKeys(slices, length, chunks[c]);
        },
        context.Parallelism());
    // Rows are inserted last to first so that each key's chain lists its rows in input order.
    for (size_t c = num_chunks; c-- > 0;) {
      const int64_t start = static_cast<int64_t>(c) * kEncodeChunkRows;
      const EncodedKeys& chunk = chunks[c];
      for (int64_t i = chunk.num_rows() - 1; i >= 0; --i) {
        const int64_t row = start + i;
        if (null_rows[row]) continue;
        bool inserted = false;
        uint32_t group = table_.FindOrInsert(chunk.key(i), chunk.hashes[i], &inserted);
        if (inserted) heads_.push_back(-1);
        next_[row] = heads_[group];
        heads_[group] = row;
      }
      chunks[c] = EncodedKeys();
    }
  }

  // Pulls up to Parallelism() probe batches and joins them on the worker threads.
  void ProbeSome(ExecContext& context) {
    const size_t parallelism = std::max<size_t>(1, context.Parallelism());
    std::vector<Batch> inputs;
    while (inputs.size() < parallelism) {
      std::optional<Batch> batch = probe_input().Next(context);
      if (!batch) {
        probe_done_ = true;
        break;
      }
      inputs.push_back(std::move(*batch));
    }
    if (inputs.empty()) return;
    std::vector<std::vector<Batch>> outputs(inputs.size());
    if (inputs.size() == 1) {
      ProbeBatch(inputs[0], context.eval, outputs[0]);
    } else {
      std::vector<EvalContext> contexts(inputs.size(), context.eval);
      context.Pool().ParallelFor(
          inputs.size(), [&](size_t i) { ProbeBatch(inputs[i], contexts[i], outputs[i]); }, parallelism);
    }
    for (auto& output : outputs) {
      for (Batch& batch : output) pending_.push_back(std::move(batch));
    }
  }

  // For each row of `keys` (the probe keys of one batch): the first build row with an equal key,
  // or -1 (also where `null_rows`).
  std::vector<int64_t> FirstMatches(const std::vector<VectorPtr>& keys,
                                    const std::vector<uint8_t>& null_rows) const {
    const int64_t num_rows = static_cast<int64_t>(null_rows.size());
    std::vector<int64_t> first_match(static_cast<size_t>(num_rows), -1);
    if (integer_index_) {
      integer_index_->FindAll(*keys[0], null_rows.data(), first_match.data());
      return first_match;
    }
    EncodedKeys encoded;
    EncodeKeys(keys, num_rows, encoded);
    std::vector<int64_t> groups(static_cast<size_t>(num_rows));
    table_.FindAll(encoded, null_rows.data(), groups.data());
    for (int64_t i = 0; i < num_rows; ++i) {
      if (i + kPrefetchDistance < num_rows && groups[i + kPrefetchDistance] >= 0) {
        __builtin_prefetch(&heads_[groups[i + kPrefetchDistance]]);
      }
      if (groups[i] >= 0) first_match[i] = heads_[groups[i]];
    }
    return first_match;
  }

  // A batch of `pairs` rows: the left input's columns of `left_rows` of `left`, then the right
  // input's of `right_rows` of `right`, all nullable, for the residual condition.
  static Batch PairBatch(const Batch& left, const std::vector<int64_t>& left_rows,
                         const Batch& right, const std::vector<int64_t>& right_rows) {
    const int64_t pairs = static_cast<int64_t>(left_rows.size());
    std::vector<VectorPtr> columns;
    std::vector<Field> fields;
    for (const Batch* side : {&left, &right}) {
      const std::vector<int64_t>& rows = side == &left ? left_rows : right_rows;
      for (size_t c = 0; c < side->num_columns(); ++c) {
        columns.push_back(TakeRows(*side->column(c), rows.data(), pairs));
        fields.push_back(side->schema()->field(c));
        fields.back().nullable = true;
      }
    }
    return Batch(std::make_shared<Schema>(std::move(fields)), std::move(columns), pairs);
  }

  // A semi or anti join that built its left side: marks the build rows that `probe` (a batch of
  // the right side) matches. A build row matched once needs no other pair, so its chains and
  // pairs are skipped; without a residual condition a key's rows are all marked at once, from
  // the first, so that a marked first row means the whole chain is (or is being) marked.
  void MarkMatches(const Batch& probe, EvalContext& context) const {
    const int64_t num_rows = probe.num_rows();
    if (build_.num_rows() == 0) return;
    std::vector<VectorPtr> keys;
    for (const ExpressionPtr& key : probe_keys()) {
      keys.push_back(expr::Evaluate(*key, probe, context));
    }
    std::vector<uint8_t> null_rows = NullKeyRows(keys, spec_.null_safe, num_rows);
    std::vector<int64_t> first_match = FirstMatches(keys, null_rows);
    auto matched = [&](int64_t row) {
      return build_matched_[row].load(std::memory_order_relaxed) != 0;
    };
    auto mark = [&](int64_t row) { build_matched_[row].store(1, std::memory_order_relaxed); };
    if (!spec_.residual) {
      for (int64_t i = 0; i < num_rows; ++i) {
        const int64_t head = first_match[i];
        if (head < 0 || matched(head)) continue;
        for (int64_t row = head; row >= 0; row = next_[row]) mark(row);
      }
      return;
    }
    std::vector<int64_t> probe_rows;
    std::vector<int64_t> build_rows;
    for (int64_t i = 0; i < num_rows; ++i) {
      for (int64_t row = first_match[i]; row >= 0; row = next_[row]) {
        if (matched(row)) continue;
        probe_rows.push_back(i);
        build_rows.push_back(row);
      }
    }
    if (probe_rows.empty()) return;
    std::vector<uint8_t> keep = expr::EvaluateFilter(
        *spec_.residual, PairBatch(build_, build_rows, probe, probe_rows), context);
    for (size_t p = 0; p < build_rows.size(); ++p) {
      if (keep[p]) mark(build_rows[p]);
    }
  }

  void ProbeBatch(const Batch& probe, EvalContext& context, std::vector<Batch>& out) const {
    if (spec_.build_left) {
      MarkMatches(probe, context);
      return;
    }
    const int64_t num_rows = probe.num_rows();
    const JoinType type = spec_.type;
    const bool build_empty = build_.num_rows() == 0;
    if (spec_.null_aware_anti && !build_empty && build_has_null_key_) return;  // NOT IN over a NULL: no row

    std::vector<VectorPtr> keys;
    for (const ExpressionPtr& key : probe_keys()) {
      keys.push_back(expr::Evaluate(*key, probe, context));
    }
    std::vector<uint8_t> null_rows = NullKeyRows(keys, spec_.null_safe, num_rows);
    // The first build row of each probe row's key (-1: no match).
    std::vector<int64_t> first_match = FirstMatches(keys, null_rows);

    // Candidate pairs (probe row, build row) in probe row order.
    std::vector<int64_t> probe_rows;
    std::vector<int64_t> build_rows;
    const bool need_pairs = !KeepsLeftOnly(type) || spec_.residual != nullptr;
    if (need_pairs) {
      probe_rows.reserve(static_cast<size_t>(num_rows));
      build_rows.reserve(static_cast<size_t>(num_rows));
      for (int64_t i = 0; i < num_rows; ++i) {
        if (i + kPrefetchDistance < num_rows && first_match[i + kPrefetchDistance] >= 0) {
          __builtin_prefetch(&next_[first_match[i + kPrefetchDistance]]);
        }
        for (int64_t row = first_match[i]; row >= 0; row = next_[row]) {
          probe_rows.push_back(i);
          build_rows.push_back(row);
        }
      }
    }

    if (spec_.residual && !probe_rows.empty()) {
      std::vector<uint8_t> keep = expr::EvaluateFilter(
          *spec_.residual, PairBatch(probe, probe_rows, build_, build_rows), context);
      size_t kept = 0;
      for (size_t p = 0; p < probe_rows.size(); ++p) {
        if (!keep[p]) continue;
        probe_rows[kept] = probe_rows[p];
        build_rows[kept] = build_rows[p];
        ++kept;
      }
      probe_rows.resize(kept);
      build_rows.resize(kept);
    }

    if (KeepsLeftOnly(type)) {
      std::vector<uint8_t> matched(static_cast<size_t>(num_rows), 0);
      if (need_pairs) {
        for (int64_t row : probe_rows) matched[row] = 1;
      } else {
        for (int64_t i = 0; i < num_rows; ++i) matched[i] = first_match[i] >= 0;
      }
      std::vector<int64_t> rows;
      const bool want_matched = type == JoinType::kLeftSemi;
      for (int64_t i = 0; i < num_rows; ++i) {
        if ((matched[i] != 0) != want_matched) continue;
        // NOT IN: a NULL probe key is unknown against a non-empty build side, so the row goes.
        if (spec_.null_aware_anti && !build_empty && null_rows[i]) continue;
        rows.push_back(i);
      }
      if (rows.empty()) return;
      std::vector<VectorPtr> columns;
      for (size_t c = 0; c < probe.num_columns(); ++c) {
        columns.push_back(static_cast<int64_t>(rows.size()) == num_rows
                              ? probe.column(c)
                              : TakeRows(*probe.column(c), rows.data(), static_cast<int64_t>(rows.size())));
      }
      Emit(std::move(columns), static_cast<int64_t>(rows.size()), out);
      return;
    }

    if (build_matched_) {
      for (int64_t row : build_rows) build_matched_[row].store(1, std::memory_order_relaxed);
    }
    if (type == JoinType::kLeftOuter || type == JoinType::kFullOuter) {
      // Interleave each unmatched probe row (with NULLs) at its place in probe order.
      std::vector<int64_t> all_probe, all_build;
      all_probe.reserve(probe_rows.size() + static_cast<size_t>(num_rows));
      all_build.reserve(probe_rows.size() + static_cast<size_t>(num_rows));
      size_t p = 0;
      for (int64_t i = 0; i < num_rows; ++i) {
        if (p < probe_rows.size() && probe_rows[p] == i) {
          while (p < probe_rows.size() && probe_rows[p] == i) {
            all_probe.push_back(i);
            all_build.push_back(build_rows[p]);
            ++p;
          }
        } else {
          all_probe.push_back(i);
          all_build.push_back(-1);
        }
      }
      probe_rows.swap(all_probe);
      build_rows.swap(all_build);
    }
    if (probe_rows.empty()) return;
    const int64_t total = static_cast<int64_t>(probe_rows.size());
    for (int64_t start = 0; start < total; start += kTargetBatchRows) {
      int64_t length = std::min(kTargetBatchRows, total - start);
      std::vector<VectorPtr> columns;
      for (size_t c = 0; c < probe.num_columns(); ++c) {
        columns.push_back(TakeRows(*probe.column(c), probe_rows.data() + start, length));
      }
      for (size_t c = 0; c < build_.num_columns(); ++c) {
        columns.push_back(TakeRows(*build_.column(c), build_rows.data() + start, length));
      }
      Emit(std::move(columns), length, out);
    }
  }

  // Once every probe is done: the unmatched build rows of a right or full outer join (with NULL
  // left columns), the matched (semi) or unmatched (anti) left rows of a join that built its
  // left side.
  void EmitBuildRows() {
    if (!build_matched_) return;
    const bool want_matched = spec_.build_left && spec_.type == JoinType::kLeftSemi;
    std::vector<int64_t> rows;
    for (int64_t i = 0; i < build_.num_rows(); ++i) {
      if ((build_matched_[i].load(std::memory_order_relaxed) != 0) == want_matched) {
        rows.push_back(i);
      }
    }
    const int64_t total = static_cast<int64_t>(rows.size());
    const Schema& left_schema = *left_->schema();
    for (int64_t start = 0; start < total; start += kTargetBatchRows) {
      int64_t length = std::min(kTargetBatchRows, total - start);
      std::vector<VectorPtr> columns;
      if (!spec_.build_left) {
        for (const Field& field : left_schema.fields()) {
          columns.push_back(Vector::MakeAllNull(field.type, length));
        }
      }
      for (size_t c = 0; c < build_.num_columns(); ++c) {
        columns.push_back(TakeRows(*build_.column(c), rows.data() + start, length));
      }
      Emit(std::move(columns), length, pending_);
    }
  }

  // Grace hash join, when the build side does not fit in the query's memory: both sides are
  // written to kSpillPartitions files by bits of their key hash (equal keys hash alike on both
  // sides, having one type), and each pair of files is joined by a nested join one level deeper,
  // which partitions again by the next bits when its build side still does not fit. Every join
  // type is answered partition by partition: a row can only match rows of its own partition.
  // NOT IN needs the whole build side: its NULL keys are seen while partitioning it.

  // Writes `batch` (of the build side when `build`, else the probe side) to the partition files.
  void Partition(const Batch& batch, bool build, ExecContext& context) {
    const int64_t num_rows = batch.num_rows();
    std::vector<VectorPtr> keys;
    for (const ExpressionPtr& key : build ? build_keys() : probe_keys()) {
      keys.push_back(expr::Evaluate(*key, batch, context.eval));
    }
    std::vector<uint8_t> null_rows = NullKeyRows(keys, spec_.null_safe, num_rows);
    EncodedKeys encoded;
    EncodeKeys(keys, num_rows, encoded);
    std::array<std::vector<int64_t>, kSpillPartitions> rows;
    for (int64_t i = 0; i < num_rows; ++i) {
      if (null_rows[i] != 0) {
        if (build) build_has_null_key_ = true;
        // NOT IN against a build side that is not empty: a NULL probe key keeps no row. A probe
        // row that matches nothing changes nothing when the build side is the left one.
        if (!build && (spec_.null_aware_anti || spec_.build_left)) continue;
      }
      rows[SpillPartitionOf(encoded.hashes[static_cast<size_t>(i)], depth_)].push_back(i);
    }
    auto& files = build ? build_partitions_ : probe_partitions_;
    for (size_t p = 0; p < kSpillPartitions; ++p) {
      if (rows[p].empty()) continue;
      if (!files[p]) files[p] = std::make_unique<SpillFile>(*context.memory, batch.schema(), context.counters.get());
      files[p]->Append(TakeBatchRows(batch, rows[p]));
    }
  }

  // Switches to the grace join: `held` (build batches pulled so far) and every build batch
  // after them go to the partition files.
  void StartGrace(std::vector<Batch>& held, ExecContext& context) {
    if (depth_ >= kMaxSpillDepth) ThrowMemoryLimitExceeded(*context.memory, "HashJoin");
    grace_ = true;
    for (const Batch& batch : held) Partition(batch, true, context);
    held.clear();
    reservation_->Clear();
  }

  // Partitions the probe side, after the build side was partitioned.
  void PartitionProbeSide(ExecContext& context) {
    if (spec_.null_aware_anti && build_has_null_key_) return;  // NOT IN over a NULL: no row
    while (std::optional<Batch> batch = probe_input().Next(context)) {
      Partition(*batch, false, context);
    }
  }

  // The output of the grace join: the partitions' joins, one after the other.
  std::optional<Batch> NextGrace(ExecContext& context) {
    while (true) {
      if (partition_join_) {
        if (std::optional<Batch> batch = partition_join_->Next(context)) return batch;
        partition_join_.reset();
      }
      size_t& p = next_partition_;
      while (p < kSpillPartitions && !build_partitions_[p] && !probe_partitions_[p]) ++p;
      if (p == kSpillPartitions) return std::nullopt;
      auto side = [](std::unique_ptr<SpillFile>& file, const SchemaPtr& schema) {
        if (!file) return MakeBatchSource(schema, {});
        return MakeSpillFileSource(std::move(file));
      };
      auto& left_files = spec_.build_left ? build_partitions_ : probe_partitions_;
      auto& right_files = spec_.build_left ? probe_partitions_ : build_partitions_;
      OperatorPtr left = side(left_files[p], left_->schema());
      OperatorPtr right = side(right_files[p], right_->schema());
      ++p;
      HashJoinSpec spec = spec_;
      spec.null_aware_anti = false;  // settled while partitioning
      spec.runtime_filters.clear();  // a partition holds some of the keys only
      partition_join_ = std::make_unique<HashJoinOperator>(std::move(left), std::move(right), std::move(spec), depth_ + 1);
    }
  }

  template <typename Sink>
  void Emit(std::vector<VectorPtr> columns, int64_t num_rows, Sink& sink) const {
    sink.emplace_back(schema(), std::move(columns), num_rows);
  }

  OperatorPtr left_;
  OperatorPtr right_;
  HashJoinSpec spec_;
  int depth_;  // 0, or how many times both sides were partitioned to spill files
  std::unique_ptr<MemoryReservation> reservation_;  // the build side and its index

  // The grace join (StartGrace): the partition files of each side, the partition being joined
  // and the next one. Under parallel pulls, grace_mutex_ serialises NextGrace.
  bool grace_ = false;
  std::array<std::unique_ptr<SpillFile>, kSpillPartitions> build_partitions_;
  std::array<std::unique_ptr<SpillFile>, kSpillPartitions> probe_partitions_;
  std::unique_ptr<Operator> partition_join_;
  size_t next_partition_ = 0;
  std::mutex grace_mutex_;

  bool built_ = false;
  Batch build_;
  KeyTable table_;
  std::vector<int64_t> heads_;  // per distinct build key: its first build row
  std::vector<int64_t> next_;   // per build row: the next row of the same key, or -1
  std::unique_ptr<IntegerKeyIndex> integer_index_;  // replaces table_ and heads_ for one integer key
  bool build_has_null_key_ = false;
  // Per build row: whether a probe row matched it (right and full outer joins, and joins that
  // build their left side).
  std::unique_ptr<std::atomic<uint8_t>[]> build_matched_;

  bool probe_done_ = false;
  bool build_rows_emitted_ = false;  // EmitBuildRows ran
  std::deque<Batch> pending_;

  // Parallel pulls (EnableParallelNext): pending_, probe_done_ and build_rows_emitted_ are then
  // guarded by probe_mutex_, and probing_ counts the callers between pulling and handing out.
  bool parallel_ = false;
  std::once_flag build_once_;
  std::exception_ptr build_error_;  // set once, inside build_once_
  std::mutex probe_mutex_;
  std::condition_variable probe_changed_;
  size_t probing_ = 0;
};

}  // namespace

OperatorPtr MakeHashJoin(OperatorPtr left, OperatorPtr right, HashJoinSpec spec) {
  SILT_CHECK(left != nullptr && right != nullptr, "hash join without inputs");
  return std::make_unique<HashJoinOperator>(std::move(left), std::move(right), std::move(spec));
}

}  // namespace silt::exec
