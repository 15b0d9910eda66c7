#include <algorithm>
#include <array>
#include <atomic>
#include <deque>
#include <map>
#include <mutex>
#include <shared_mutex>

#include "silt/base/check.h"
#include "silt/base/thread_pool.h"
#include "silt/exec/accumulator.h"
#include "silt/exec/aggregate_kind_internal.h"
#include "silt/exec/filter_internal.h"
#include "silt/exec/hash_operators.h"
#include "silt/exec/hash_table.h"
#include "silt/exec/pull_on_workers_internal.h"
#include "silt/exec/row_hash.h"
#include "silt/exec/spill_file.h"
#include "silt/expr/evaluator.h"
#include "silt/vector/take.h"

namespace silt::exec {

namespace {

using expr::EvalContext;
using expr::ExpressionPtr;

// An aggregate call with its arguments cast to the resolved signature.
struct PreparedAggregate {
  AggregateCall call;
  std::vector<DataTypePtr> argument_types;
};

PreparedAggregate Prepare(AggregateCall call) {
  std::optional<AggregateKind> kind = AggregateKindOf(call.function);
  // first(x, true) / last(x, true): the flag is the second argument in the call form.
  if (kind && (*kind == AggregateKind::kFirst || *kind == AggregateKind::kLast || *kind == AggregateKind::kAnyValue) &&
      call.arguments.size() == 2) {
    const expr::Expression& flag = *call.arguments[1];
    SILT_USER_CHECK(flag.kind() == expr::ExpressionKind::kLiteral && flag.type()->id() == TypeId::kBoolean,
                    DATATYPE_MISMATCH,
                    {{"sqlExpr", "\"" + call.function + "\""},
                     {"message", "The ignoreNulls argument must be a boolean constant."}});
    call.ignore_nulls = call.ignore_nulls || (!flag.literal().is_null() && flag.literal().GetBool());
    call.arguments.resize(1);
  }
  std::vector<DataTypePtr> types;
  for (const ExpressionPtr& argument : call.arguments) types.push_back(argument->type());
  AggregateSignature signature = ResolveAggregate(call.function, types, call.distinct);
  for (size_t i = 0; i < call.arguments.size(); ++i) {
    if (!call.arguments[i]->type()->Equals(*signature.argument_types[i])) {
      call.arguments[i] = expr::Cast(call.arguments[i], signature.argument_types[i]);
    }
  }
  // The accumulators produce the resolved type; a caller's type that differs (e.g. only in an
  // array's containsNull) must not make the output disagree with the schema.
  if (!call.result_type || !call.result_type->Equals(*signature.result_type)) {
    call.result_type = signature.result_type;
    call.nullable = signature.nullable;
  }
  return {std::move(call), std::move(signature.argument_types)};
}

// Subexpressions that several aggregate arguments share, as Spark's subexpression elimination
// finds them (TPC-H Q01's l_extendedprice * (1 - l_discount) feeds two sums): each is computed
// once per slice and appended to it as a column, which the arguments then read. Only
// subexpressions that their argument computes for every row are shared (reached from it through
// arithmetic and casts alone, never through CASE, AND, OR or a function's arguments), so they
// are computed for the same rows, with the same errors, as before.
struct CommonArguments {
  // Each over the input's columns and those of the common expressions before it.
  std::vector<ExpressionPtr> expressions;
  // schemas[j]: the input's fields then those of the first j common expressions.
  std::vector<SchemaPtr> schemas;
  // Per aggregate: its arguments over the input and every common column.
  std::vector<std::vector<ExpressionPtr>> arguments;
};

bool Shareable(const expr::Expression& expression) {
  return (expression.kind() == expr::ExpressionKind::kArithmetic ||
          expression.kind() == expr::ExpressionKind::kCast) &&
         expression.deterministic();
}

std::string SharingKey(const expr::Expression& expression) {
  return expression.ToString() + " " + expression.type()->ToString();
}

void CountShareable(const ExpressionPtr& expression, std::map<std::string, int>& counts) {
  if (!Shareable(*expression)) return;
  ++counts[SharingKey(*expression)];
  for (const ExpressionPtr& child : expression->children()) CountShareable(child, counts);
}

// The outermost shareable subexpressions of `expression` met more than once.
void ChooseShared(const ExpressionPtr& expression, const std::map<std::string, int>& counts,
                  std::map<std::string, ExpressionPtr>& chosen) {
  if (!Shareable(*expression)) return;
  std::string key = SharingKey(*expression);
  if (counts.at(key) > 1) {
    chosen.emplace(std::move(key), expression);
    return;
  }
  for (const ExpressionPtr& child : expression->children()) ChooseShared(child, counts, chosen);
}

// `expression` with every subexpression found in `columns` read from that column instead.
ExpressionPtr ReadShared(const ExpressionPtr& expression, const std::map<std::string, int>& columns) {
  if (Shareable(*expression)) {
    auto found = columns.find(SharingKey(*expression));
    if (found != columns.end()) return expr::Column(found->second, expression->type(), expression->nullable());
  }
  if (expression->children().empty()) return expression;
  std::vector<ExpressionPtr> children;
  bool changed = false;
  for (const ExpressionPtr& child : expression->children()) {
    children.push_back(ReadShared(child, columns));
    changed = changed || children.back() != child;
  }
  return changed ? expression->WithChildren(std::move(children)) : expression;
}

CommonArguments FindCommonArguments(const SchemaPtr& input, const std::vector<PreparedAggregate>& aggregates) {
  std::map<std::string, int> counts;
  for (const PreparedAggregate& aggregate : aggregates) {
    for (const ExpressionPtr& argument : aggregate.call.arguments) CountShareable(argument, counts);
  }
  std::map<std::string, ExpressionPtr> chosen;
  for (const PreparedAggregate& aggregate : aggregates) {
    for (const ExpressionPtr& argument : aggregate.call.arguments) ChooseShared(argument, counts, chosen);
  }
  // Inner ones first (a subexpression prints shorter than any expression holding it), so that
  // an outer one reads the inner one's column.
  std::vector<std::pair<std::string, ExpressionPtr>> ordered(chosen.begin(), chosen.end());
  std::stable_sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) {
    return a.second->ToString().size() < b.second->ToString().size();
  });
  CommonArguments common;
  std::vector<Field> fields = input->fields();
  common.schemas.push_back(input);
  std::map<std::string, int> columns;
  for (const auto& [key, expression] : ordered) {
    common.expressions.push_back(ReadShared(expression, columns));
    columns.emplace(key, static_cast<int>(fields.size()));
    fields.push_back({"shared" + std::to_string(common.expressions.size()), expression->type(),
                      expression->nullable(), {}});
    common.schemas.push_back(std::make_shared<const Schema>(fields));
  }
  for (const PreparedAggregate& aggregate : aggregates) {
    std::vector<ExpressionPtr> arguments;
    for (const ExpressionPtr& argument : aggregate.call.arguments) {
      arguments.push_back(ReadShared(argument, columns));
    }
    common.arguments.push_back(std::move(arguments));
  }
  return common;
}

// The groups one thread has seen: their keys, key values and aggregate states.
class GroupTable {
 public:
  GroupTable(const std::vector<ExpressionPtr>& keys, const std::vector<PreparedAggregate>& aggregates,
             const CommonArguments& common)
      : keys_(keys), aggregates_(aggregates), common_(common) {
    for (const ExpressionPtr& key : keys_) key_builders_.push_back(std::make_unique<VectorBuilder>(key->type()));
    for (const PreparedAggregate& aggregate : aggregates_) {
      accumulators_.push_back(MakeAccumulator(aggregate.call, aggregate.argument_types));
    }
    // An aggregate whose running state an earlier one keeps (avg(x) beside sum(x)) reads that
    // state instead of updating its own.
    shares_state_.assign(aggregates_.size(), false);
    for (size_t a = 0; a < aggregates_.size(); ++a) {
      for (size_t b = 0; b < a && !shares_state_[a]; ++b) {
        if (!shares_state_[b] && SameUnfilteredInput(aggregates_[a], aggregates_[b])) {
          shares_state_[a] = accumulators_[a]->ShareStateOf(*accumulators_[b]);
        }
      }
    }
    if (keys_.empty()) {
      // A global aggregate has exactly one group, also for empty input.
      bool inserted = false;
      table_.FindOrInsert(std::string_view(), HashBytes(nullptr, 0), &inserted);
      ResizeStates();
    }
  }

  // Slices of at most this many rows are grouped and aggregated at a time, so that the
  // arguments' intermediate vectors (16 bytes a row for decimals) stay in the core's cache
  // instead of each pass over a whole scan batch going to memory.
  static constexpr int64_t kSliceRows = 4096;

  // Aggregates the rows of `batch` that `selection` keeps (every row when it is empty). With a
  // selection, the keys and arguments must be EvaluableUnderSelection.
  void Consume(const Batch& batch, const std::vector<uint8_t>& selection, EvalContext& context) {
    const uint8_t* selected = selection.empty() ? nullptr : selection.data();
    if (batch.num_rows() <= kSliceRows) {
      ConsumeSlice(batch, selected, context);
      return;
    }
    for (int64_t start = 0; start < batch.num_rows(); start += kSliceRows) {
      ConsumeSlice(batch.Slice(start, std::min(kSliceRows, batch.num_rows() - start)),
                   selected == nullptr ? nullptr : selected + start, context);
    }
  }

  void ConsumeSlice(const Batch& batch, const uint8_t* selection, EvalContext& context) {
    const int64_t num_rows = batch.num_rows();
    if (selection != nullptr) {
      int64_t kept = 0;
      for (int64_t row = 0; row < num_rows; ++row) kept += selection[row] != 0;
      if (kept == 0) return;
      if (kept == num_rows) selection = nullptr;
    }
    // Rows outside the selection keep whatever group groups_ held for them: a valid group (the
    // table never shrinks, and some selected row has made one), which no accumulator updates
    // for an unselected row.
    groups_.resize(static_cast<size_t>(num_rows));
    if (keys_.empty()) {
      std::fill(groups_.begin(), groups_.end(), 0);
    } else {
      std::vector<VectorPtr> key_values;
      for (const ExpressionPtr& key : keys_) {
        key_values.push_back(expr::EvaluateMasked(*key, batch, context, expr::RowMask{selection}));
        context.ThrowIfError();
      }
      if (key_values.size() == 1 && key_values[0]->dictionary_codes() != nullptr) {
        GroupByDictionary(*key_values[0], num_rows, selection);
        ResizeStates();
        UpdateAccumulators(batch, num_rows, selection, context);
        return;
      }
      if (GroupByDictionaries(key_values, num_rows, selection)) {
        ResizeStates();
        UpdateAccumulators(batch, num_rows, selection, context);
        return;
      }
      if (selection != nullptr) {
        // Hashing inserts a group for every row: only the selected ones may go in.
        ConsumeSlice(SelectRows(batch, std::vector<uint8_t>(selection, selection + num_rows)), nullptr,
                     context);
        return;
      }
      inserted_.clear();
      if (key_values.size() != 1 || !GroupByValueRuns(*key_values[0], num_rows)) {
        EncodeKeys(key_values, num_rows, encoded_);
        if (!GroupByRuns(num_rows)) table_.FindOrInsert(encoded_, groups_.data(), &inserted_);
      }
      for (size_t k = 0; k < key_values.size(); ++k) AppendKeys(*key_values[k], *key_builders_[k]);
      ResizeStates();
    }
    UpdateAccumulators(batch, num_rows, selection, context);
  }

  void UpdateAccumulators(const Batch& input, int64_t num_rows, const uint8_t* selection, EvalContext& context) {
    std::vector<VectorPtr> arguments;
    const expr::RowMask mask{selection};
    Batch batch = input;
    for (size_t j = 0; j < common_.expressions.size(); ++j) {
      std::vector<VectorPtr> columns = batch.columns();
      columns.push_back(expr::EvaluateMasked(*common_.expressions[j], batch, context, mask));
      context.ThrowIfError();
      batch = Batch(common_.schemas[j + 1], std::move(columns), num_rows);
    }
    for (size_t a = 0; a < aggregates_.size(); ++a) {
      if (shares_state_[a]) continue;
      const AggregateCall& call = aggregates_[a].call;
      arguments.clear();
      for (const ExpressionPtr& argument : common_.arguments[a]) {
        arguments.push_back(expr::EvaluateMasked(*argument, batch, context, mask));
        context.ThrowIfError();
      }
      const uint8_t* selected = selection;
      std::vector<uint8_t> filtered;
      if (call.filter) {
        filtered = FilterRows(*call.filter, batch, selection, context);
        selected = filtered.data();
      }
      accumulators_[a]->Update(arguments, groups_.data(), selected, num_rows, context);
    }
  }

  // The rows where `filter` is TRUE, of those `selection` keeps (all when null).
  static std::vector<uint8_t> FilterRows(const expr::Expression& filter, const Batch& batch,
                                         const uint8_t* selection, EvalContext& context) {
    if (selection == nullptr) return expr::EvaluateFilter(filter, batch, context);
    VectorPtr result = expr::EvaluateMasked(filter, batch, context, expr::RowMask{selection});
    context.ThrowIfError();
    std::vector<uint8_t> rows(static_cast<size_t>(batch.num_rows()));
    for (int64_t row = 0; row < batch.num_rows(); ++row) {
      rows[static_cast<size_t>(row)] = selection[row] != 0 && result->IsValid(row) && result->GetBool(row);
    }
    return rows;
  }

  // Moves `other`'s groups into this table.
  void Merge(GroupTable& other, EvalContext& context) {
    std::vector<VectorPtr> other_keys;
    for (auto& builder : other.key_builders_) other_keys.push_back(builder->Finish());
    const size_t other_groups = other.table_.num_groups();
    std::vector<uint32_t> group_map(other_groups);
    new_groups_.clear();
    constexpr uint32_t kSlotAhead = 16;
    constexpr uint32_t kKeyAhead = 8;
    for (uint32_t g = 0; g < other_groups; ++g) {
      // Both tables are large when there are many groups: fetch ahead.
      if (g + kSlotAhead < other_groups) table_.PrefetchSlot(other.table_.hash(g + kSlotAhead));
      if (g + kKeyAhead < other_groups) table_.PrefetchStoredKey(other.table_.hash(g + kKeyAhead));
      bool inserted = false;
      group_map[g] = table_.FindOrInsert(other.table_.key(g), other.table_.hash(g), &inserted);
      if (inserted) new_groups_.push_back(g);
    }
    // The new groups' key values, gathered together.
    for (size_t k = 0; k < other_keys.size(); ++k) {
      VectorPtr values = TakeRows(*other_keys[k], new_groups_);
      key_builders_[k]->AppendRange(*values, 0, values->length());
    }
    ResizeStates();
    for (size_t a = 0; a < accumulators_.size(); ++a) {
      if (shares_state_[a]) continue;
      accumulators_[a]->Merge(*other.accumulators_[a], group_map.data(), other_groups, context);
    }
  }

  // Whether every aggregate's state merges group by group (Accumulator::MergesGroups), so that
  // the groups of this table may be merged into several tables at once (MergePartition).
  bool MergesGroups() const {
    for (size_t a = 0; a < accumulators_.size(); ++a) {
      if (!shares_state_[a] && !accumulators_[a]->MergesGroups()) return false;
    }
    return true;
  }

  // This table's groups ready to be merged partition by partition: its key columns (the table
  // takes no more rows) and, per partition of `partition_of(hash)`, its groups in order.
  struct Parts {
    std::vector<VectorPtr> keys;
    std::vector<std::vector<uint32_t>> groups;
  };
  template <typename PartitionOf>
  Parts Split(size_t num_partitions, PartitionOf partition_of) {
    Parts parts;
    for (auto& builder : key_builders_) parts.keys.push_back(builder->Finish());
    const uint32_t num_groups = static_cast<uint32_t>(table_.num_groups());
    std::vector<uint32_t> sizes(num_partitions, 0);
    for (uint32_t g = 0; g < num_groups; ++g) ++sizes[partition_of(table_.hash(g))];
    parts.groups.resize(num_partitions);
    for (size_t p = 0; p < num_partitions; ++p) parts.groups[p].reserve(sizes[p]);
    for (uint32_t g = 0; g < num_groups; ++g) parts.groups[partition_of(table_.hash(g))].push_back(g);
    return parts;
  }

  // Makes room for `num_groups` groups of keys of `key_length` bytes (0: unknown) in the key
  // table, which then takes them without growing.
  void Reserve(size_t num_groups, size_t key_length) { table_.Reserve(num_groups, num_groups * key_length); }
  size_t fixed_key_length() const { return table_.fixed_key_length(); }

  // Merges `other`'s groups of one partition of Split: those that `base` holds into base's
  // states, the others into this table. `base`'s keys are only looked up and only its states of
  // this partition's groups are written, which the merges of other partitions do not touch, so
  // that the partitions merge on several threads at once; `other` is only read.
  void MergePartition(GroupTable& base, GroupTable& other, const Parts& other_parts, size_t partition,
                      EvalContext& context) {
    const std::vector<uint32_t>& groups = other_parts.groups[partition];
    const size_t count = groups.size();
    base_sources_.clear();
    base_targets_.clear();
    own_sources_.clear();
    own_targets_.clear();
    new_groups_.clear();
    // base's table is large when there are many groups: fetch ahead.
    constexpr size_t kSlotAhead = 16;
    constexpr size_t kKeyAhead = 8;
    for (size_t i = 0; i < count; ++i) {
      if (i + kSlotAhead < count) base.table_.PrefetchSlot(other.table_.hash(groups[i + kSlotAhead]));
      if (i + kKeyAhead < count) base.table_.PrefetchStoredKey(other.table_.hash(groups[i + kKeyAhead]));
      const uint32_t g = groups[i];
      const std::string_view key = other.table_.key(g);
      const uint64_t hash = other.table_.hash(g);
      const int64_t found = base.table_.Find(key, hash);
      if (found >= 0) {
        base_sources_.push_back(g);
        base_targets_.push_back(static_cast<uint32_t>(found));
        continue;
      }
      bool inserted = false;
      own_sources_.push_back(g);
      own_targets_.push_back(table_.FindOrInsert(key, hash, &inserted));
      if (inserted) new_groups_.push_back(g);
    }
    // The new groups' key values, gathered together.
    for (size_t k = 0; k < other_parts.keys.size(); ++k) {
      VectorPtr values = TakeRows(*other_parts.keys[k], new_groups_);
      key_builders_[k]->AppendRange(*values, 0, values->length());
    }
    ResizeStates();
    for (size_t a = 0; a < accumulators_.size(); ++a) {
      if (shares_state_[a]) continue;
      Accumulator& source = *other.accumulators_[a];
      base.accumulators_[a]->MergeGroups(source, base_sources_.data(), base_targets_.data(), base_sources_.size(),
                                         context);
      accumulators_[a]->MergeGroups(source, own_sources_.data(), own_targets_.data(), own_sources_.size(), context);
    }
  }

  // The key columns then one column per aggregate, one row per group.
  std::vector<VectorPtr> Finish(EvalContext& context) {
    std::vector<VectorPtr> columns;
    for (auto& builder : key_builders_) columns.push_back(builder->Finish());
    for (auto& accumulator : accumulators_) columns.push_back(accumulator->Finalize(table_.num_groups(), context));
    return columns;
  }

  size_t num_groups() const { return table_.num_groups(); }
  const KeyTable& key_table() const { return table_; }

  /// An estimate of the memory the groups hold: the key table, the key values (about as many
  /// bytes again) and a few words of state per aggregate and group. States that grow with their
  /// input (collect_list, DISTINCT) are not seen.
  int64_t MemoryBytes() const {
    return 2 * table_.MemoryBytes() + static_cast<int64_t>(table_.num_groups() * 16 * accumulators_.size());
  }

 private:
  // A group's key value is its first row's, with -0.0 shown as 0.0 (Spark normalises floating
  // grouping keys).
  void AppendKeys(const Vector& values, VectorBuilder& builder) const {
    const TypeId type = values.type_id();
    for (int64_t row : inserted_) {
      if (type == TypeId::kDouble && values.IsValid(row) && values.values<double>()[row] == 0) {
        builder.AppendDouble(0.0);
      } else if (type == TypeId::kFloat && values.IsValid(row) && values.values<float>()[row] == 0) {
        builder.AppendFloat(0.0f);
      } else {
        builder.AppendFrom(values, row);
      }
    }
  }

  // groups_ for a single string key decoded from a dictionary: each distinct entry is encoded
  // and looked up once per dictionary (the first time a row uses it), every row then takes its
  // entry's group. Same groups and keys as the encoded path. Rows outside `selection` (when
  // not null) are skipped.
  void GroupByDictionary(const Vector& values, int64_t num_rows, const uint8_t* selection) {
    const DictionaryCodes& codes = *values.dictionary_codes();
    if (codes.dictionary != dictionary_) {
      // A new dictionary: its entries are encoded together, and looked up as rows use them.
      dictionary_ = codes.dictionary;
      entry_groups_.assign(static_cast<size_t>(dictionary_->length()), kNoGroup);
      EncodeKeys({dictionary_}, dictionary_->length(), dictionary_keys_);
    }
    const int32_t* code = codes.codes->as<int32_t>() + values.offset();
    const bool has_nulls = values.null_count() > 0;
    for (int64_t row = 0; row < num_rows; ++row) {
      if (selection != nullptr && selection[row] == 0) continue;
      uint32_t* group = &groups_[static_cast<size_t>(row)];
      if (has_nulls && values.IsNull(row)) {
        if (null_group_ == kNoGroup) {
          EncodedKeys null_key;
          EncodeKeys({values.Slice(row, 1)}, 1, null_key);
          null_group_ = GroupOfKey(null_key, 0, values, row);
        }
        *group = null_group_;
        continue;
      }
      const int32_t entry = code[row];
      uint32_t& entry_group = entry_groups_[static_cast<size_t>(entry)];
      if (entry_group == kNoGroup) entry_group = GroupOfKey(dictionary_keys_, entry, *dictionary_, entry);
      *group = entry_group;
    }
  }

  // groups_ for several keys that all come with dictionary codes and whose dictionaries (each
  // with one more entry for NULL) combine into at most kMaxCombinations: a row's combination of
  // codes indexes a table of groups, filled the first time a combination is met by looking its
  // row's encoded keys up. Same groups and keys as the encoded path; rows outside `selection`
  // (when not null) are skipped. False (nothing done) for other keys.
  bool GroupByDictionaries(const std::vector<VectorPtr>& key_values, int64_t num_rows, const uint8_t* selection) {
    constexpr size_t kMaxCombinations = size_t{1} << 16;
    size_t combinations = 1;
    for (const VectorPtr& values : key_values) {
      const DictionaryCodes* codes = values->dictionary_codes();
      // Floating keys group -0.0 with 0.0 (AppendKeys), which the key's first row alone does not.
      if (codes == nullptr || values->type_id() == TypeId::kDouble ||
          values->type_id() == TypeId::kFloat) {
        return false;
      }
      combinations *= static_cast<size_t>(codes->dictionary->length()) + 1;
      if (combinations > kMaxCombinations) return false;
    }
    bool same = dictionaries_.size() == key_values.size();
    for (size_t k = 0; same && k < key_values.size(); ++k) {
      same = dictionaries_[k] == key_values[k]->dictionary_codes()->dictionary;
    }
    if (!same) {
      // New dictionaries: the combinations are looked up again as rows use them.
      dictionaries_.clear();
      strides_.clear();
      size_t stride = 1;
      for (const VectorPtr& values : key_values) {
        dictionaries_.push_back(values->dictionary_codes()->dictionary);
        strides_.push_back(static_cast<uint32_t>(stride));
        stride *= static_cast<size_t>(dictionaries_.back()->length()) + 1;
      }
      combination_groups_.assign(combinations, kNoGroup);
    }
    combination_.assign(static_cast<size_t>(num_rows), 0);
    for (size_t k = 0; k < key_values.size(); ++k) {
      const Vector& values = *key_values[k];
      const int32_t* code = values.dictionary_codes()->codes->as<int32_t>() + values.offset();
      const uint32_t stride = strides_[k];
      uint32_t* out = combination_.data();
      if (values.null_count() == 0) {
        for (int64_t row = 0; row < num_rows; ++row) {
          out[row] += static_cast<uint32_t>(code[row]) * stride;
        }
      } else {
        const auto null_code = static_cast<uint32_t>(dictionaries_[k]->length());
        for (int64_t row = 0; row < num_rows; ++row) {
          out[row] += (values.IsNull(row) ? null_code : static_cast<uint32_t>(code[row])) * stride;
        }
      }
    }
    for (int64_t row = 0; row < num_rows; ++row) {
      if (selection != nullptr && selection[row] == 0) continue;
      uint32_t& group = combination_groups_[combination_[static_cast<size_t>(row)]];
      if (group == kNoGroup) {
        std::vector<VectorPtr> row_keys;
        for (const VectorPtr& values : key_values) row_keys.push_back(values->Slice(row, 1));
        EncodedKeys key;
        EncodeKeys(row_keys, 1, key);
        bool inserted = false;
        group = table_.FindOrInsert(key.key(0), key.hashes[0], &inserted);
        if (inserted) {
          for (size_t k = 0; k < key_values.size(); ++k) {
            key_builders_[k]->AppendFrom(*key_values[k], row);
          }
        }
      }
      groups_[static_cast<size_t>(row)] = group;
    }
    return true;
  }

  // groups_ and inserted_ for a single fixed-width key without NULLs whose rows come in runs of
  // equal values (a table written in key order, TPC-H's line items by order): the runs are found
  // on the values themselves, and only the first row of each run is encoded and looked up. Equal
  // bytes are equal keys; keys that group together with different bytes (-0.0 and 0.0) only
  // make two runs that find the same group. False (nothing done) for other keys, or when fewer
  // than a quarter of the rows continue a run.
  bool GroupByValueRuns(const Vector& values, int64_t num_rows) {
    if (values.null_count() != 0 || values.dictionary_codes() != nullptr) return false;
    bool runs = false;
    switch (values.type()->FixedWidth()) {
      case 4: runs = FindValueRuns(values.values<uint32_t>(), num_rows); break;
      case 8: runs = FindValueRuns(values.values<uint64_t>(), num_rows); break;
      case 16: runs = FindValueRuns(values.values<unsigned __int128>(), num_rows); break;
      default: return false;
    }
    if (!runs) return false;
    run_rows_.assign(run_starts_.begin(), run_starts_.end());
    EncodeKeys({TakeRows(values, run_rows_)}, static_cast<int64_t>(run_rows_.size()), encoded_);
    run_groups_.resize(run_starts_.size());
    run_inserted_.clear();
    table_.FindOrInsert(encoded_, run_groups_.data(), &run_inserted_);
    for (int64_t run : run_inserted_) inserted_.push_back(run_starts_[static_cast<size_t>(run)]);
    for (size_t run = 0; run < run_starts_.size(); ++run) {
      const int64_t end = run + 1 < run_starts_.size() ? run_starts_[run + 1] : num_rows;
      std::fill(groups_.begin() + run_starts_[run], groups_.begin() + end, run_groups_[run]);
    }
    return true;
  }

  // run_starts_: the first row of each run of equal values, when at least a quarter of the rows
  // continue a run (false otherwise).
  template <typename T>
  bool FindValueRuns(const T* values, int64_t num_rows) {
    int64_t continuing = 0;
    for (int64_t row = 1; row < num_rows; ++row) continuing += values[row] == values[row - 1];
    if (continuing * 4 < num_rows) return false;
    run_starts_.clear();
    for (int64_t row = 0; row < num_rows; ++row) {
      if (row == 0 || values[row] != values[row - 1]) run_starts_.push_back(static_cast<uint32_t>(row));
    }
    return true;
  }

  // groups_ and inserted_ for encoded_ when its rows come in runs of equal keys (input sorted or
  // clustered by the key, as a table written in key order gives): the first row of each run is
  // looked up and the others take its group. False (nothing done) when fewer than a quarter of
  // the rows continue a run, where the plain lookup of every row costs less.
  bool GroupByRuns(int64_t num_rows) {
    const uint64_t* hashes = encoded_.hashes.data();
    int64_t continuing = 0;
    for (int64_t row = 1; row < num_rows; ++row) continuing += hashes[row] == hashes[row - 1];
    if (continuing * 4 < num_rows) return false;
    run_starts_.clear();
    for (int64_t row = 0; row < num_rows; ++row) {
      if (row == 0 || hashes[row] != hashes[row - 1] || !KeyBytesEqual(encoded_.key(row), encoded_.key(row - 1))) {
        run_starts_.push_back(static_cast<uint32_t>(row));
      }
    }
    run_groups_.resize(run_starts_.size());
    const uint32_t groups_before = static_cast<uint32_t>(table_.num_groups());
    table_.FindOrInsertRows(encoded_, run_starts_.data(), run_starts_.size(), run_groups_.data());
    // Groups are numbered as they are created: a run whose group is the next number made it.
    uint32_t next_group = groups_before;
    for (size_t run = 0; run < run_starts_.size(); ++run) {
      if (run_groups_[run] == next_group) {
        inserted_.push_back(run_starts_[run]);
        ++next_group;
      }
      const int64_t end = run + 1 < run_starts_.size() ? run_starts_[run + 1] : num_rows;
      std::fill(groups_.begin() + run_starts_[run], groups_.begin() + end, run_groups_[run]);
    }
    return true;
  }

  // The group of key `key` of `keys`, created when new with the value of row `row` of
  // `values` (the only key column).
  uint32_t GroupOfKey(const EncodedKeys& keys, int64_t key, const Vector& values, int64_t row) {
    bool inserted = false;
    uint32_t group = table_.FindOrInsert(keys.key(key), keys.hashes[static_cast<size_t>(key)], &inserted);
    if (inserted) key_builders_[0]->AppendFrom(values, row);
    return group;
  }

  // Whether two aggregates read the same argument values on every row: the same argument
  // expression (built without function calls, so certainly deterministic) and type, neither
  // with FILTER or DISTINCT.
  static bool SameUnfilteredInput(const PreparedAggregate& a, const PreparedAggregate& b) {
    if (a.call.filter || b.call.filter || a.call.distinct || b.call.distinct) return false;
    if (a.call.arguments.size() != 1 || b.call.arguments.size() != 1) return false;
    return WithoutCalls(*a.call.arguments[0]) && a.argument_types[0]->Equals(*b.argument_types[0]) &&
           a.call.arguments[0]->ToString() == b.call.arguments[0]->ToString();
  }
  static bool WithoutCalls(const expr::Expression& expression) {
    if (expression.kind() == expr::ExpressionKind::kCall) return false;
    for (const ExpressionPtr& child : expression.children()) {
      if (!WithoutCalls(*child)) return false;
    }
    return true;
  }

  void ResizeStates() {
    for (auto& accumulator : accumulators_) accumulator->Resize(table_.num_groups());
  }

  const std::vector<ExpressionPtr>& keys_;
  const std::vector<PreparedAggregate>& aggregates_;
  const CommonArguments& common_;
  KeyTable table_;
  std::vector<std::unique_ptr<VectorBuilder>> key_builders_;
  std::vector<std::unique_ptr<Accumulator>> accumulators_;
  std::vector<bool> shares_state_;  // per aggregate: reads an earlier one's state
  EncodedKeys encoded_;
  std::vector<uint32_t> groups_;
  std::vector<int64_t> inserted_;
  // GroupByDictionary: the last dictionary seen (kept alive here so that its address
  // identifies it), its encoded entries, the group of each entry, and the NULL key's group.
  static constexpr uint32_t kNoGroup = UINT32_MAX;
  VectorPtr dictionary_;
  EncodedKeys dictionary_keys_;
  std::vector<uint32_t> entry_groups_;
  uint32_t null_group_ = kNoGroup;
  // GroupByDictionaries: the dictionaries of the last batch (kept alive for their addresses),
  // each key's stride in a combination, the group of each combination, and each row's.
  std::vector<VectorPtr> dictionaries_;
  std::vector<uint32_t> strides_;
  std::vector<uint32_t> combination_groups_;
  std::vector<uint32_t> combination_;
  // MergePartition: the merged groups that base holds and their groups there, and the others
  // and their groups here.
  std::vector<uint32_t> base_sources_;
  std::vector<uint32_t> base_targets_;
  std::vector<uint32_t> own_sources_;
  std::vector<uint32_t> own_targets_;
  std::vector<int64_t> new_groups_;  // the merged groups that made one here, in order
  // GroupByRuns and GroupByValueRuns: the first row of each run of equal keys and the run's
  // group; GroupByValueRuns: the first rows again for TakeRows, and the runs that made a group.
  std::vector<uint32_t> run_starts_;
  std::vector<uint32_t> run_groups_;
  std::vector<int64_t> run_rows_;
  std::vector<int64_t> run_inserted_;
};

SchemaPtr AggregateSchema(const std::vector<ExpressionPtr>& keys, const std::vector<std::string>& key_names,
                          const std::vector<PreparedAggregate>& aggregates,
                          const std::vector<std::string>& aggregate_names) {
  SILT_CHECK(keys.size() == key_names.size(), "one name per group key");
  SILT_CHECK(aggregates.size() == aggregate_names.size(), "one name per aggregate");
  std::vector<Field> fields;
  for (size_t k = 0; k < keys.size(); ++k) fields.push_back({key_names[k], keys[k]->type(), keys[k]->nullable(), {}});
  for (size_t a = 0; a < aggregates.size(); ++a) {
    fields.push_back({aggregate_names[a], aggregates[a].call.result_type, aggregates[a].call.nullable, {}});
  }
  return std::make_shared<Schema>(std::move(fields));
}

std::vector<PreparedAggregate> PrepareAll(std::vector<AggregateCall> calls) {
  std::vector<PreparedAggregate> prepared;
  for (AggregateCall& call : calls) prepared.push_back(Prepare(std::move(call)));
  return prepared;
}

// Spilling: when the groups no longer fit in the query's memory, the tables stop taking new
// groups. Rows of groups already held still update them; every other row is written to one of
// kSpillPartitions files by bits of its key hash. The groups held are returned first, then each
// file is aggregated on its own by a nested operator one level deeper (which partitions by the
// next bits when its share is still too large). A group is thus either held from the start or
// lives entirely in one file, and never comes out twice.
constexpr int kSpillPartitionBits = 4;
constexpr size_t kSpillPartitions = size_t{1} << kSpillPartitionBits;
// Levels use hash bits 63..60, 59..56, ...; the key table's slot tags use bits 63..32 and stay
// useful within a partition for as many levels.
constexpr int kMaxSpillDepth = 6;

size_t SpillPartitionOf(uint64_t hash, int depth) {
  return static_cast<size_t>(hash >> (64 - kSpillPartitionBits * (depth + 1))) & (kSpillPartitions - 1);
}

// The threads' tables merge in partitions of their groups by these hash bits (those the next
// level would spill by, which vary within this level's groups), each partition on one thread,
// once the tables after the first hold this many groups together.
constexpr size_t kMergePartitions = kSpillPartitions;
constexpr size_t kMinPartitionedMergeGroups = size_t{1} << 15;

size_t MergePartitionOf(uint64_t hash, int depth) { return SpillPartitionOf(hash, depth); }

// A global aggregate (no keys) holds one group, which cannot spill: its first bytes are part of
// the fixed margin the limit does not count (as spill files' buffers are), so that it cannot fail
// for want of the few kilobytes its group takes after an operator below it, which spills, has
// reserved all of the limit. States that grow with the rows (collect_list, percentiles) still
// count past them.
constexpr int64_t kUncountedGlobalGroupBytes = int64_t{64} << 10;

class HashAggregateOperator final : public Operator {
 public:
  HashAggregateOperator(SchemaPtr schema, OperatorPtr child, std::vector<ExpressionPtr> keys,
                        std::vector<PreparedAggregate> aggregates, int depth)
      : Operator(std::move(schema)),
        child_(std::move(child)),
        keys_(std::move(keys)),
        aggregates_(std::move(aggregates)),
        common_(FindCommonArguments(child_->schema(), aggregates_)),
        depth_(depth) {}

  std::optional<Batch> Next(ExecContext& context) override {
    if (!aggregated_) {
      Aggregate(context);
      aggregated_ = true;
    }
    while (true) {
      if (!pending_.empty()) {
        Batch batch = std::move(pending_.front());
        pending_.pop_front();
        return batch;
      }
      if (partition_) {
        if (std::optional<Batch> batch = partition_->Next(context)) return batch;
        partition_.reset();
      }
      while (next_partition_ < kSpillPartitions && !partitions_[next_partition_]) ++next_partition_;
      if (next_partition_ == kSpillPartitions) return std::nullopt;
      std::unique_ptr<SpillFile> file = std::move(partitions_[next_partition_++]);
      file->FinishWriting();
      partition_ = std::make_unique<HashAggregateOperator>(schema(), MakeSpillFileSource(std::move(file)), keys_,
                                                           aggregates_, depth_ + 1);
    }
  }

  std::string Describe() const override {
    std::string out = "HashAggregate(keys=[";
    for (size_t k = 0; k < keys_.size(); ++k) out += (k ? ", " : "") + keys_[k]->ToString();
    out += "], functions=[";
    for (size_t a = 0; a < aggregates_.size(); ++a) out += (a ? ", " : "") + aggregates_[a].call.ToString();
    return out + "])";
  }
  std::vector<const Operator*> children() const override { return {child_.get()}; }

 private:
  void Aggregate(ExecContext& context) {
    const size_t parallelism = std::max<size_t>(1, context.Parallelism());
    std::vector<std::unique_ptr<GroupTable>> tables;
    std::vector<std::unique_ptr<MemoryReservation>> reservations;
    for (size_t t = 0; t < parallelism; ++t) {
      tables.push_back(std::make_unique<GroupTable>(keys_, aggregates_, common_));
      reservations.push_back(std::make_unique<MemoryReservation>(context.memory, "HashAggregate"));
    }
    // Workers aggregate under a shared lock while the groups fit; once a worker finds they do
    // not, batches are taken one at a time under the exclusive lock, which also waits for the
    // batches still being aggregated, so the tables no longer change when they are looked up.
    std::shared_mutex mode;
    std::atomic<bool> spilling{false};
    // Every worker aggregates the batches it pulls into its own table; the tables are merged
    // at the end. A child that allows parallel pulls decodes on the workers. When every key and
    // argument may be computed for the rows a filter drops, the filter below marks the rows it
    // keeps instead of gathering them (Operator::NextSelected).
    const bool parallel_child = parallelism > 1 && child_->EnableParallelNext();
    auto consume = [&](size_t worker, SelectedBatch& input, ExecContext& worker_context) {
      if (!spilling.load(std::memory_order_acquire)) {
        std::shared_lock<std::shared_mutex> lock(mode);
        if (!spilling.load(std::memory_order_acquire)) {
          tables[worker]->Consume(input.batch, input.selection, worker_context.eval);
          MemoryReservation& reservation = *reservations[worker];
          int64_t growth = tables[worker]->MemoryBytes() - reservation.used() -
                           (keys_.empty() ? kUncountedGlobalGroupBytes : 0);
          if (growth > 0 && !reservation.TryGrow(growth)) {
            if (keys_.empty() || depth_ >= kMaxSpillDepth) {
              ThrowMemoryLimitExceeded(*context.memory, "HashAggregate");
            }
            spilling.store(true, std::memory_order_release);
          }
          return;
        }
      }
      std::unique_lock<std::shared_mutex> lock(mode);
      if (!input.selection.empty()) input.batch = SelectRows(input.batch, input.selection);
      ConsumeOrSpill(tables, input.batch, worker_context);
    };
    if (InputsEvaluableUnderSelection()) {
      PullSelectedOnWorkers(*child_, context, parallelism, parallel_child,
                            [&](size_t worker, SelectedBatch& input, uint64_t, ExecContext& worker_context) {
                              consume(worker, input, worker_context);
                            });
    } else {
      PullOnWorkers(*child_, context, parallelism, parallel_child,
                    [&](size_t worker, Batch& batch, uint64_t, ExecContext& worker_context) {
                      SelectedBatch input{std::move(batch), {}};
                      consume(worker, input, worker_context);
                    });
    }
    if (MergeByPartition(tables)) {
      MergePartitioned(tables, context);
      return;
    }
    for (size_t t = 1; t < parallelism; ++t) {
      tables[0]->Merge(*tables[t], context.eval);
      tables[t].reset();
    }
    EmitGroups(*tables[0], context.eval, pending_);
  }

  // Whether the threads' tables merge partition by partition on all threads
  // (MergePartitioned) rather than into the first table on this one: with keys, enough groups
  // beyond the first table's for the partitions' tables to pay, and every aggregate's state
  // merging group by group.
  bool MergeByPartition(const std::vector<std::unique_ptr<GroupTable>>& tables) const {
    if (keys_.empty() || tables.size() < 2) return false;
    size_t groups = 0;
    for (size_t t = 1; t < tables.size(); ++t) groups += tables[t]->num_groups();
    return groups >= kMinPartitionedMergeGroups && tables[0]->MergesGroups();
  }

  // Merges the other threads' tables into the first one on all threads: their groups are split
  // into partitions by hash, and each partition's groups merge into the first table's states
  // where it holds the group, into a table of the partition's own otherwise (partitions hold
  // different groups, so no two threads write one state). The first table's groups are returned
  // first, then each partition's, as the single table's were.
  void MergePartitioned(std::vector<std::unique_ptr<GroupTable>>& tables, ExecContext& context) {
    const size_t parallelism = std::max<size_t>(1, context.Parallelism());
    std::vector<GroupTable::Parts> parts(tables.size());
    context.Pool().ParallelFor(
        tables.size() - 1,
        [&](size_t i) {
          parts[i + 1] = tables[i + 1]->Split(kMergePartitions,
                                              [depth = depth_](uint64_t hash) { return MergePartitionOf(hash, depth); });
        },
        parallelism);
    std::vector<std::unique_ptr<GroupTable>> merged(kMergePartitions);
    std::vector<EvalContext> contexts(kMergePartitions + 1, context.eval);
    context.Pool().ParallelFor(
        kMergePartitions,
        [&](size_t p) {
          merged[p] = std::make_unique<GroupTable>(keys_, aggregates_, common_);
          // At most the partition's groups of the other tables: room for them all at once.
          size_t groups = 0;
          size_t key_length = 0;
          for (size_t t = 1; t < tables.size(); ++t) {
            groups += parts[t].groups[p].size();
            key_length = std::max(key_length, tables[t]->fixed_key_length());
          }
          merged[p]->Reserve(groups, key_length);
          for (size_t t = 1; t < tables.size(); ++t) {
            merged[p]->MergePartition(*tables[0], *tables[t], parts[t], p, contexts[p]);
          }
        },
        parallelism);
    parts.clear();
    tables.resize(1);
    std::vector<std::deque<Batch>> outputs(kMergePartitions + 1);
    context.Pool().ParallelFor(
        kMergePartitions + 1,
        [&](size_t i) {
          EmitGroups(i == 0 ? *tables[0] : *merged[i - 1], contexts[i], outputs[i]);
          if (i > 0) merged[i - 1].reset();
        },
        parallelism);
    for (auto& output : outputs) {
      for (Batch& batch : output) pending_.push_back(std::move(batch));
    }
  }

  // Appends `table`'s groups to `out` as batches of at most kTargetBatchRows rows.
  void EmitGroups(GroupTable& table, EvalContext& context, std::deque<Batch>& out) const {
    std::vector<VectorPtr> columns = table.Finish(context);
    const int64_t num_groups = static_cast<int64_t>(table.num_groups());
    for (int64_t start = 0; start < num_groups; start += kTargetBatchRows) {
      int64_t length = std::min(kTargetBatchRows, num_groups - start);
      std::vector<VectorPtr> slice;
      for (const VectorPtr& column : columns) {
        slice.push_back(start == 0 && length == num_groups ? column : column->Slice(start, length));
      }
      out.emplace_back(schema(), std::move(slice), length);
    }
  }

  bool InputsEvaluableUnderSelection() const {
    for (const ExpressionPtr& key : keys_) {
      if (!EvaluableUnderSelection(*key)) return false;
    }
    for (const PreparedAggregate& aggregate : aggregates_) {
      if (aggregate.call.filter && !EvaluableUnderSelection(*aggregate.call.filter)) return false;
      for (const ExpressionPtr& argument : aggregate.call.arguments) {
        if (!EvaluableUnderSelection(*argument)) return false;
      }
    }
    return true;
  }

  // After the tables stopped taking groups: rows of a group some table holds update that table,
  // the others go to the spill partitions.
  void ConsumeOrSpill(std::vector<std::unique_ptr<GroupTable>>& tables, const Batch& batch, ExecContext& context) {
    const int64_t num_rows = batch.num_rows();
    std::vector<VectorPtr> key_values;
    for (const ExpressionPtr& key : keys_) key_values.push_back(expr::Evaluate(*key, batch, context.eval));
    EncodeKeys(key_values, num_rows, encoded_);
    std::vector<uint8_t> taken(static_cast<size_t>(num_rows), 0);
    std::vector<int64_t> group_ids(static_cast<size_t>(num_rows));
    std::vector<int64_t> rows;
    for (auto& table : tables) {
      table->key_table().FindAll(encoded_, taken.data(), group_ids.data());
      rows.clear();
      for (int64_t r = 0; r < num_rows; ++r) {
        if (group_ids[static_cast<size_t>(r)] >= 0) {
          rows.push_back(r);
          taken[static_cast<size_t>(r)] = 1;
        }
      }
      if (!rows.empty()) table->Consume(TakeBatchRows(batch, rows), {}, context.eval);
    }
    std::array<std::vector<int64_t>, kSpillPartitions> spilled;
    for (int64_t r = 0; r < num_rows; ++r) {
      if (!taken[static_cast<size_t>(r)]) {
        spilled[SpillPartitionOf(encoded_.hashes[static_cast<size_t>(r)], depth_)].push_back(r);
      }
    }
    for (size_t p = 0; p < kSpillPartitions; ++p) {
      if (spilled[p].empty()) continue;
      if (!partitions_[p]) {
        partitions_[p] = std::make_unique<SpillFile>(*context.memory, child_->schema(), context.counters.get());
      }
      partitions_[p]->Append(TakeBatchRows(batch, spilled[p]));
    }
  }

  OperatorPtr child_;
  std::vector<ExpressionPtr> keys_;
  std::vector<PreparedAggregate> aggregates_;
  CommonArguments common_;  // the shared subexpressions of aggregates_' arguments
  int depth_;  // 0, or how many times the rows were partitioned to spill files
  bool aggregated_ = false;
  std::deque<Batch> pending_;
  EncodedKeys encoded_;  // ConsumeOrSpill, under the exclusive lock
  std::array<std::unique_ptr<SpillFile>, kSpillPartitions> partitions_;
  size_t next_partition_ = 0;
  std::unique_ptr<Operator> partition_;  // aggregates the partition being returned
};

}  // namespace

OperatorPtr MakeHashAggregate(OperatorPtr child, std::vector<expr::ExpressionPtr> keys,
                              std::vector<std::string> key_names, std::vector<AggregateCall> aggregates,
                              std::vector<std::string> aggregate_names) {
  SILT_CHECK(child != nullptr, "hash aggregate without input");
  std::vector<PreparedAggregate> prepared = PrepareAll(std::move(aggregates));
  SchemaPtr schema = AggregateSchema(keys, key_names, prepared, aggregate_names);
  return std::make_unique<HashAggregateOperator>(std::move(schema), std::move(child), std::move(keys),
                                                 std::move(prepared), 0);
}

}  // namespace silt::exec
