#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "silt/base/testing_error_class.h"
#include "silt/base/thread_pool.h"
#include "silt/error.h"
#include "silt/exec/group_top_rows.h"
#include "silt/exec/hash_operators.h"
#include "silt/exec/memory.h"
#include "silt/exec/operators.h"
#include "silt/exec/sort_window.h"
#include "silt/exec/spill_file.h"
#include "silt/exec/test_source_internal.h"
#include "silt/expr/test_batch_internal.h"
#include "silt/io/testing_temporary_folder.h"
#include "silt/vector/batch.h"
#include "silt/vector/take.h"

namespace silt::exec {
namespace {

using expr::testing::IntColumn;
using expr::testing::StringColumn;
using exec::testing::TestSource;

constexpr int64_t kMiB = int64_t{1} << 20;

Batch BatchOf(const std::vector<VectorPtr>& columns) {
  std::vector<Field> fields;
  for (size_t i = 0; i < columns.size(); ++i) {
    fields.push_back(Field{"c" + std::to_string(i), columns[i]->type(), true, {}});
  }
  return Batch(std::make_shared<Schema>(std::move(fields)), columns, columns.empty() ? 0 : columns[0]->length());
}

// Every row of `batches` as text, one string per row.
std::vector<std::string> RowsOf(const std::vector<Batch>& batches) {
  std::vector<std::string> rows;
  for (const Batch& batch : batches) {
    for (int64_t r = 0; r < batch.num_rows(); ++r) {
      std::string row;
      for (size_t c = 0; c < batch.num_columns(); ++c) row += (c ? "|" : "") + batch.column(c)->ValueToString(r);
      rows.push_back(row);
    }
  }
  return rows;
}

// `num_batches` batches of `rows_per_batch` rows: a key with many duplicates and some NULLs, a
// string payload, and the row's input position (which shows whether a sort kept ties in order).
std::vector<Batch> RandomInput(int num_batches, int64_t rows_per_batch, uint32_t seed,
                               uint32_t num_keys = 5000) {
  std::mt19937 random(seed);
  std::vector<Batch> batches;
  int64_t position = 0;
  for (int b = 0; b < num_batches; ++b) {
    std::vector<std::optional<int64_t>> keys, positions;
    std::vector<std::optional<std::string>> payloads;
    for (int64_t r = 0; r < rows_per_batch; ++r) {
      uint32_t draw = random();
      keys.push_back(draw % 97 == 0 ? std::nullopt : std::optional<int64_t>(draw % num_keys));
      payloads.push_back("payload-" + std::to_string(random() % 100000));
      positions.push_back(position++);
    }
    batches.push_back(BatchOf({IntColumn(LongType(), keys), StringColumn(payloads), IntColumn(LongType(), positions)}));
  }
  return batches;
}

std::vector<Batch> RunSort(const std::vector<Batch>& input, ExecContext& context,
                           std::optional<int64_t> limit = std::nullopt, int64_t offset = 0) {
  OperatorPtr sort = MakeSort(std::make_unique<TestSource>(input.front().schema(), input),
                              {SortKey{0, false, false}, SortKey{1, true, true}}, limit, offset);
  return Collect(*sort, context);
}

TEST(SpillFileTest, ReadsBackEveryLayoutAsWritten) {
  io::TestingTemporaryFolder folder;
  QueryMemory memory(kMiB, folder.path());
  ExecCounters counters;
  VectorBuilder lists(ListType(IntegerType()));
  for (int r = 0; r < 5; ++r) {
    if (r == 2) {
      lists.AppendNull();
      continue;
    }
    for (int e = 0; e < r; ++e) lists.child(0).AppendInt(e);
    lists.FinishList();
  }
  VectorBuilder structs(StructType({Field{"x", IntegerType(), true, {}}, Field{"s", StringType(), true, {}}}));
  for (int r = 0; r < 5; ++r) {
    structs.child(0).AppendInt(r * 10);
    structs.child(1).AppendString(std::string(static_cast<size_t>(r), 'z'));
    structs.AppendStruct();
  }
  Batch batch = BatchOf({IntColumn(IntegerType(), {1, std::nullopt, 3, 4, 5}),
                         StringColumn({"a", "", std::nullopt, "dddd", "e"}), lists.Finish(), structs.Finish()});
  std::string path;
  {
    SpillFile file(memory, batch.schema(), &counters);
    file.Append(batch);
    file.Append(batch.Slice(2, 3));  // a slice is written from its own start
    file.Append(batch.Slice(0, 0));  // nothing
    std::optional<Batch> first = file.ReadNext();
    ASSERT_TRUE(first.has_value());
    EXPECT_EQ(RowsOf({*first}), RowsOf({batch}));
    std::optional<Batch> second = file.ReadNext();
    ASSERT_TRUE(second.has_value());
    EXPECT_EQ(RowsOf({*second}), RowsOf({batch.Slice(2, 3)}));
    EXPECT_FALSE(file.ReadNext().has_value());
    EXPECT_EQ(file.num_rows(), 8);
    path = memory.spill_folder();
    EXPECT_FALSE(std::filesystem::is_empty(path));
  }
  EXPECT_EQ(counters.spill_files.load(), 1);
  EXPECT_GT(counters.spill_bytes.load(), 0);
  EXPECT_TRUE(std::filesystem::is_empty(path));  // the file went with its object
}

// A scan returns a row group as slices of one set of buffers, the first starting at row 0: each
// slice is written with its own rows only, not with the buffers it shares with the others.
TEST(SpillFileTest, SliceAtTheStartIsWrittenWithItsOwnRowsOnly) {
  io::TestingTemporaryFolder folder;
  QueryMemory memory(64 * kMiB, folder.path());
  constexpr int64_t kRows = 100000;
  std::vector<std::optional<int64_t>> longs;
  std::vector<std::optional<std::string>> strings;
  for (int64_t r = 0; r < kRows; ++r) {
    longs.push_back(r);
    strings.push_back(r % 7 == 0 ? std::nullopt : std::optional<std::string>("value-" + std::to_string(r)));
  }
  VectorBuilder lists(ListType(IntegerType()));
  for (int64_t r = 0; r < kRows; ++r) {
    for (int e = 0; e < 3; ++e) lists.child(0).AppendInt(e);
    lists.FinishList();
  }
  Batch whole = BatchOf({IntColumn(LongType(), longs), StringColumn(strings), lists.Finish()});
  for (int64_t length : {int64_t{1000}, int64_t{10}}) {
    SCOPED_TRACE(length);
    ExecCounters counters;
    SpillFile file(memory, whole.schema(), &counters);
    Batch first = whole.Slice(0, length);
    file.Append(first);
    file.FinishWriting();
    // 8 bytes of long, up to 12 of string with its offset and 16 of list (offset and three
    // ints) a row, besides a few hundred bytes of lengths and counts: far from the whole batch.
    EXPECT_LT(file.num_bytes(), length * 40 + 1024);
    std::optional<Batch> back = file.ReadNext();
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(RowsOf({*back}), RowsOf({first}));
  }
}

TEST(MemoryReservationTest, ReservesWithinTheLimitAndReturnsWhatItHeld) {
  auto memory = std::make_shared<QueryMemory>(64 * kMiB, "/nonexistent");
  {
    MemoryReservation sort(memory, "Sort");
    EXPECT_TRUE(sort.TryGrow(10));
    EXPECT_GE(memory->reserved(), 10);  // a whole chunk
    EXPECT_TRUE(sort.TryGrow(60 * kMiB));
    MemoryReservation join(memory, "HashJoin");
    EXPECT_FALSE(join.TryGrow(8 * kMiB));  // past the limit: nothing counted
    EXPECT_EQ(join.used(), 0);
    EXPECT_EQ(ErrorClassOf([&] { join.Grow(8 * kMiB); }), "EXEC_MEMORY_LIMIT_EXCEEDED");
    try {
      join.Grow(8 * kMiB);
    } catch (const Error& error) {
      EXPECT_THAT(error.what(), ::testing::HasSubstr("HashJoin"));
      EXPECT_THAT(error.what(), ::testing::HasSubstr(std::to_string(64 * kMiB)));
    }
    sort.Shrink(60 * kMiB);
    EXPECT_TRUE(join.TryGrow(8 * kMiB));  // what the sort gave back
  }
  EXPECT_EQ(memory->reserved(), 0);
  EXPECT_GE(memory->peak(), 60 * kMiB);
}

TEST(ExternalSortTest, SpilledSortEqualsTheInMemorySortAndRemovesItsFiles) {
  std::vector<Batch> input = RandomInput(40, 5000, 7);  // 200k rows, about 6 MB
  ExecContext unlimited;
  std::vector<std::string> expected = RowsOf(RunSort(input, unlimited));
  ASSERT_EQ(expected.size(), 200000u);
  EXPECT_EQ(unlimited.counters->spill_files.load(), 0);

  io::TestingTemporaryFolder folder;
  std::string spill_folder;
  {
    ExecContext limited;
    limited.memory = std::make_shared<QueryMemory>(1 * kMiB, folder.path());
    EXPECT_EQ(RowsOf(RunSort(input, limited)), expected);
    EXPECT_GT(limited.counters->spill_files.load(), 2);
    spill_folder = limited.memory->spill_folder();
    EXPECT_FALSE(spill_folder.empty());
  }
  EXPECT_FALSE(std::filesystem::exists(spill_folder));
  EXPECT_TRUE(std::filesystem::is_empty(folder.path()));
}

TEST(ExternalSortTest, ManyRunsMergeInSeveralPasses) {
  std::vector<Batch> input = RandomInput(60, 5000, 11);  // 300k rows, about 10 MB
  ExecContext unlimited;
  std::vector<std::string> expected = RowsOf(RunSort(input, unlimited));
  io::TestingTemporaryFolder folder;
  ExecContext limited;
  // Runs of about 512 KB, and a merge reads 16 at once: the first 16 runs merge into one first.
  limited.memory = std::make_shared<QueryMemory>(kMiB / 2, folder.path());
  EXPECT_EQ(RowsOf(RunSort(input, limited)), expected);
  EXPECT_GT(limited.counters->spill_files.load(), 17);  // runs plus a merged run
}

TEST(ExternalSortTest, TopNWhoseRowsDoNotFitSortsExternally) {
  std::vector<Batch> input = RandomInput(40, 5000, 3);
  ExecContext unlimited;
  std::vector<std::string> expected = RowsOf(RunSort(input, unlimited, 150000, 1000));
  ASSERT_EQ(expected.size(), 150000u);
  io::TestingTemporaryFolder folder;
  ExecContext limited;
  limited.memory = std::make_shared<QueryMemory>(1 * kMiB, folder.path());
  EXPECT_EQ(RowsOf(RunSort(input, limited, 150000, 1000)), expected);
  EXPECT_GT(limited.counters->spill_files.load(), 0);

  // A small top-N stays in memory under the same limit.
  ExecContext small;
  small.memory = std::make_shared<QueryMemory>(1 * kMiB, folder.path());
  EXPECT_EQ(RowsOf(RunSort(input, small, 10)), RowsOf(RunSort(input, unlimited, 10)));
  EXPECT_EQ(small.counters->spill_files.load(), 0);
}

TEST(ExternalSortTest, FailsWithTheClassWhenEvenTheMergeDoesNotFit) {
  std::vector<Batch> input = RandomInput(4, 5000, 5);
  io::TestingTemporaryFolder folder;
  ExecContext limited;
  limited.memory = std::make_shared<QueryMemory>(1000, folder.path());
  EXPECT_EQ(ErrorClassOf([&] { RunSort(input, limited); }), "EXEC_MEMORY_LIMIT_EXCEEDED");
}

// Cancels the statement once it has handed out `cancel_after` batches.
class CancellingSource final : public Operator {
 public:
  CancellingSource(std::vector<Batch> batches, Cancellation& cancellation, size_t cancel_after)
      : Operator(batches.front().schema()),
        batches_(std::move(batches)),
        cancellation_(cancellation),
        cancel_after_(cancel_after) {}
  std::optional<Batch> Next(ExecContext& context) override {
    if (next_ == cancel_after_) cancellation_.Cancel();
    ThrowIfCanceled(context.cancellation);
    if (next_ >= batches_.size()) return std::nullopt;
    return batches_[next_++];
  }
  std::string Describe() const override { return "CancellingSource"; }

 private:
  std::vector<Batch> batches_;
  Cancellation& cancellation_;
  size_t cancel_after_;
  size_t next_ = 0;
};

TEST(ExternalSortTest, CancellationDuringASpillLeavesNoFiles) {
  std::vector<Batch> input = RandomInput(40, 5000, 9);
  io::TestingTemporaryFolder folder;
  Cancellation cancellation;
  int64_t files_written = 0;
  {
    ExecContext context;
    context.cancellation = &cancellation;
    context.memory = std::make_shared<QueryMemory>(1 * kMiB, folder.path());
    OperatorPtr sort = MakeSort(std::make_unique<CancellingSource>(input, cancellation, 30), {SortKey{0, true, true}});
    EXPECT_EQ(ErrorClassOf([&] { Collect(*sort, context); }), "OPERATION_CANCELED");
    files_written = context.counters->spill_files.load();
  }
  EXPECT_GT(files_written, 0);
  EXPECT_TRUE(std::filesystem::is_empty(folder.path()));
}

// GROUP BY the key (column 0) with count, sum, min of the payload and count(DISTINCT), on
// `parallelism` threads; rows sorted as text.
std::vector<std::string> RunAggregate(const std::vector<Batch>& input, ExecContext& context, size_t parallelism) {
  ThreadPool pool(2);
  context.pool = &pool;
  context.parallelism = parallelism;
  auto column = [&](int index) { return expr::Column(index, input.front().column(static_cast<size_t>(index))->type()); };
  auto call = [](std::string function, std::vector<expr::ExpressionPtr> arguments, bool distinct = false) {
    AggregateCall aggregate;
    aggregate.function = std::move(function);
    aggregate.arguments = std::move(arguments);
    aggregate.distinct = distinct;
    return aggregate;
  };
  std::vector<AggregateCall> calls;
  calls.push_back(call("count", {}));
  calls.push_back(call("sum", {column(2)}));
  calls.push_back(call("min", {column(1)}));
  calls.push_back(call("count", {column(1)}, true));
  OperatorPtr aggregate = MakeHashAggregate(std::make_unique<TestSource>(input.front().schema(), input, true),
                                            {column(0)}, {"k"}, std::move(calls), {"n", "s", "m", "d"});
  std::vector<std::string> rows = RowsOf(Collect(*aggregate, context));
  std::sort(rows.begin(), rows.end());
  context.pool = nullptr;
  return rows;
}

// Input with many groups: the key is the row's position divided by `rows_per_group`.
std::vector<Batch> ManyGroups(int num_batches, int64_t rows_per_batch, int64_t rows_per_group) {
  std::mt19937 random(17);
  std::vector<Batch> batches;
  int64_t position = 0;
  for (int b = 0; b < num_batches; ++b) {
    std::vector<std::optional<int64_t>> keys, values;
    std::vector<std::optional<std::string>> payloads;
    for (int64_t r = 0; r < rows_per_batch; ++r, ++position) {
      // Groups are spread over the input: a group's rows arrive in several batches.
      int64_t group = (position * 7919) % (num_batches * rows_per_batch) / rows_per_group;
      keys.push_back(group % 1000 == 999 ? std::nullopt : std::optional<int64_t>(group));
      payloads.push_back("p" + std::to_string(random() % 50));
      values.push_back(position);
    }
    batches.push_back(BatchOf({IntColumn(LongType(), keys), StringColumn(payloads), IntColumn(LongType(), values)}));
  }
  return batches;
}

TEST(SpillingAggregateTest, PartitionedAggregationEqualsTheInMemoryOne) {
  std::vector<Batch> input = ManyGroups(40, 5000, 2);  // 100k groups
  for (size_t parallelism : {size_t{1}, size_t{2}}) {
    ExecContext unlimited;
    std::vector<std::string> expected = RunAggregate(input, unlimited, parallelism);
    EXPECT_EQ(expected.size(), 100000u - 100u + 1u);  // the NULL key is one group
    EXPECT_EQ(unlimited.counters->spill_files.load(), 0);
    io::TestingTemporaryFolder folder;
    ExecContext limited;
    limited.memory = std::make_shared<QueryMemory>(2 * kMiB, folder.path());
    EXPECT_EQ(RunAggregate(input, limited, parallelism), expected) << "parallelism " << parallelism;
    EXPECT_GT(limited.counters->spill_files.load(), 0);
  }
}

TEST(SpillingDistinctTest, PartitionedDistinctEqualsTheInMemoryOne) {
  std::vector<Batch> input = ManyGroups(40, 5000, 2);
  // The distinct rows of (key, payload).
  std::vector<Batch> pairs;
  for (const Batch& batch : input) pairs.push_back(BatchOf({batch.column(0), batch.column(1)}));
  auto run = [&](ExecContext& context) {
    OperatorPtr distinct = MakeDistinct(std::make_unique<TestSource>(pairs.front().schema(), pairs));
    std::vector<std::string> rows = RowsOf(Collect(*distinct, context));
    std::sort(rows.begin(), rows.end());
    return rows;
  };
  ExecContext unlimited;
  std::vector<std::string> expected = run(unlimited);
  io::TestingTemporaryFolder folder;
  ExecContext limited;
  limited.memory = std::make_shared<QueryMemory>(1 * kMiB, folder.path());
  EXPECT_EQ(run(limited), expected);
  EXPECT_GT(limited.counters->spill_files.load(), 0);
}

// INTERSECT and EXCEPT, with and without ALL, whose tables do not fit: a right side larger than
// the limit, and a right side that fits beside a left side whose rows EXCEPT returns do not.
TEST(SpillingSetOperationTest, PartitionedSetOperationsEqualTheInMemoryOnes) {
  // (key, payload) rows, with repeats inside each side and rows on both sides.
  std::vector<Batch> pairs;
  for (const Batch& batch : ManyGroups(40, 5000, 2))
    pairs.push_back(BatchOf({batch.column(0), batch.column(1)}));
  const std::vector<Batch> left = pairs;
  const std::vector<Batch> large_right(pairs.begin() + 10, pairs.begin() + 35);
  const std::vector<Batch> small_right(pairs.begin() + 38, pairs.end());
  for (const std::vector<Batch>* right : {&large_right, &small_right}) {
    for (SetOperation operation : {SetOperation::kIntersect, SetOperation::kExcept}) {
      for (bool all : {false, true}) {
        SCOPED_TRACE(std::string(operation == SetOperation::kIntersect ? "INTERSECT" : "EXCEPT") +
                     (all ? " ALL" : "") +
                     (right == &large_right ? ", large right" : ", small right"));
        auto run = [&](ExecContext& context) {
          OperatorPtr op = MakeSetOperation(
              std::make_unique<TestSource>(left.front().schema(), left),
              std::make_unique<TestSource>(right->front().schema(), *right), operation, all);
          std::vector<std::string> rows = RowsOf(Collect(*op, context));
          std::sort(rows.begin(), rows.end());
          return rows;
        };
        ExecContext unlimited;
        std::vector<std::string> expected = run(unlimited);
        EXPECT_FALSE(expected.empty());
        io::TestingTemporaryFolder folder;
        ExecContext limited;
        limited.memory = std::make_shared<QueryMemory>(1 * kMiB, folder.path());
        EXPECT_EQ(run(limited), expected);
        EXPECT_GT(limited.counters->spill_files.load(), 0);
        EXPECT_LE(limited.memory->peak(), 1 * kMiB);
      }
    }
  }
}

// A side of a join: `num_rows` rows whose key (column 0) repeats about `repeats` times, with
// some NULL keys, and a value column.
std::vector<Batch> JoinSide(int64_t num_rows, int64_t repeats, uint32_t seed) {
  std::mt19937 random(seed);
  std::vector<Batch> batches;
  for (int64_t start = 0; start < num_rows; start += 4096) {
    std::vector<std::optional<int64_t>> keys, values;
    for (int64_t r = start; r < std::min(num_rows, start + 4096); ++r) {
      uint32_t draw = random();
      keys.push_back(draw % 211 == 0 ? std::nullopt : std::optional<int64_t>(draw % (num_rows / repeats)));
      values.push_back(static_cast<int64_t>(random() % 1000));
    }
    batches.push_back(BatchOf({IntColumn(LongType(), keys), IntColumn(LongType(), values)}));
  }
  return batches;
}

std::vector<std::string> RunJoin(const std::vector<Batch>& left, const std::vector<Batch>& right, HashJoinSpec spec,
                                 ExecContext& context) {
  ThreadPool pool(2);
  context.pool = &pool;
  context.parallelism = 2;
  OperatorPtr join = MakeHashJoin(std::make_unique<TestSource>(left.front().schema(), left, true),
                                  std::make_unique<TestSource>(right.front().schema(), right, true), std::move(spec));
  std::vector<std::string> rows = RowsOf(Collect(*join, context));
  std::sort(rows.begin(), rows.end());
  context.pool = nullptr;
  return rows;
}

TEST(GraceHashJoinTest, EveryJoinTypeEqualsTheInMemoryJoin) {
  std::vector<Batch> left = JoinSide(60000, 2, 21);
  std::vector<Batch> right = JoinSide(80000, 4, 22);
  auto key = [] { return expr::Column(0, LongType()); };
  struct Case {
    JoinType type;
    bool residual;
    bool null_aware;
    bool build_left = false;
  };
  for (Case c :
       {Case{JoinType::kInner, false, false}, Case{JoinType::kLeftOuter, false, false},
        Case{JoinType::kRightOuter, false, false}, Case{JoinType::kFullOuter, true, false},
        Case{JoinType::kLeftSemi, true, false}, Case{JoinType::kLeftAnti, false, false},
        Case{JoinType::kLeftAnti, false, true}, Case{JoinType::kInner, true, false},
        Case{JoinType::kLeftSemi, false, false, true}, Case{JoinType::kLeftSemi, true, false, true},
        Case{JoinType::kLeftAnti, false, false, true},
        Case{JoinType::kLeftAnti, true, false, true}}) {
    HashJoinSpec spec;
    spec.type = c.type;
    spec.left_keys = {key()};
    spec.right_keys = {key()};
    spec.null_aware_anti = c.null_aware;
    if (c.residual) {
      // left.value < right.value
      spec.residual = expr::Compare(expr::ComparisonOperator::kLess, expr::Column(1, LongType()),
                                    expr::Column(3, LongType()));
    }
    // NOT IN over a side without NULL keys (with one, no row qualifies in either run).
    std::vector<Batch> build = right;
    if (c.null_aware) {
      build = JoinSide(80000, 4, 23);
      for (Batch& batch : build) {
        std::vector<std::optional<int64_t>> keys;
        for (int64_t r = 0; r < batch.num_rows(); ++r) keys.push_back(r % 3 == 0 ? 2 * r : 2 * r + 1);
        batch = BatchOf({IntColumn(LongType(), keys), batch.column(1)});
      }
    }
    SCOPED_TRACE(JoinTypeName(c.type) + (c.residual ? " with residual" : "") +
                 (c.null_aware ? " null aware" : "") +
                 (c.build_left ? " building the left side" : ""));
    // The answer of the join that builds its right side, in memory.
    ExecContext unlimited;
    std::vector<std::string> expected = RunJoin(left, build, spec, unlimited);
    EXPECT_EQ(unlimited.counters->spill_files.load(), 0);
    if (c.build_left) {
      spec.build_left = true;
      ExecContext unlimited_left;
      EXPECT_EQ(RunJoin(left, build, spec, unlimited_left), expected);
      EXPECT_EQ(unlimited_left.counters->spill_files.load(), 0);
    }
    io::TestingTemporaryFolder folder;
    ExecContext limited;
    limited.memory = std::make_shared<QueryMemory>(1 * kMiB, folder.path());
    EXPECT_EQ(RunJoin(left, build, spec, limited), expected);
    EXPECT_GT(limited.counters->spill_files.load(), 0);
  }
}

TEST(GraceHashJoinTest, ASemiJoinThatBuildsItsSmallLeftSideHoldsOnlyThatSide) {
  // 3,000 left rows fit in 1 MiB, 200,000 right rows do not.
  std::vector<Batch> left = JoinSide(3000, 1, 31);
  std::vector<Batch> right = JoinSide(200000, 50, 32);
  for (JoinType type : {JoinType::kLeftSemi, JoinType::kLeftAnti}) {
    SCOPED_TRACE(JoinTypeName(type));
    HashJoinSpec spec;
    spec.type = type;
    spec.left_keys = {expr::Column(0, LongType())};
    spec.right_keys = {expr::Column(0, LongType())};
    io::TestingTemporaryFolder folder;
    ExecContext right_built;
    right_built.memory = std::make_shared<QueryMemory>(1 * kMiB, folder.path());
    std::vector<std::string> expected = RunJoin(left, right, spec, right_built);
    EXPECT_GT(right_built.counters->spill_files.load(), 0);
    spec.build_left = true;
    ExecContext left_built;
    left_built.memory = std::make_shared<QueryMemory>(1 * kMiB, folder.path());
    EXPECT_EQ(RunJoin(left, right, spec, left_built), expected);
    EXPECT_EQ(left_built.counters->spill_files.load(), 0);
  }
}

TEST(GraceHashJoinTest, OnlyAJoinHoldingItsWholeBuildSidePublishesItsKeys) {
  std::vector<Batch> left = JoinSide(60000, 2, 41);
  std::vector<Batch> right = JoinSide(80000, 4, 42);
  auto run = [&](ExecContext& context) {
    HashJoinSpec spec;
    spec.left_keys = {expr::Column(0, LongType())};
    spec.right_keys = {expr::Column(0, LongType())};
    auto filter = std::make_shared<log::JoinKeyFilter>("k");
    spec.runtime_filters = {HashJoinSpec::RuntimeFilter{0, filter}};
    RunJoin(left, right, spec, context);
    return filter->Current();
  };
  // In memory: every build key, and none of the NULLs.
  ExecContext unlimited;
  std::shared_ptr<const log::JoinKeySet> keys = run(unlimited);
  ASSERT_NE(keys, nullptr);
  int64_t non_null = 0;
  for (const Batch& batch : right) non_null += batch.num_rows() - batch.column(0)->null_count();
  EXPECT_EQ(keys->num_keys(), non_null);
  for (const Batch& batch : right) {
    std::vector<uint8_t> keep(static_cast<size_t>(batch.num_rows()), 1);
    keys->KeepMembers(*batch.column(0), keep.data());
    for (int64_t r = 0; r < batch.num_rows(); ++r) {
      if (batch.column(0)->IsValid(r)) {
        ASSERT_EQ(keep[static_cast<size_t>(r)], 1) << r;
      }
    }
  }
  // Spilled: the partitions' joins each hold some keys only, and publish none of them.
  io::TestingTemporaryFolder folder;
  ExecContext limited;
  limited.memory = std::make_shared<QueryMemory>(1 * kMiB, folder.path());
  EXPECT_EQ(run(limited), nullptr);
  EXPECT_GT(limited.counters->spill_files.load(), 0);
}

TEST(GraceHashJoinTest, FailsWithTheClassWhenOneKeyDoesNotFit) {
  // Every build row has the same key: partitioning never makes the build side smaller.
  std::vector<Batch> right;
  for (int b = 0; b < 20; ++b) {
    right.push_back(BatchOf({IntColumn(LongType(), std::vector<std::optional<int64_t>>(4096, 7)),
                             IntColumn(LongType(), std::vector<std::optional<int64_t>>(4096, b))}));
  }
  std::vector<Batch> left = JoinSide(1000, 1, 5);
  HashJoinSpec spec;
  spec.left_keys = {expr::Column(0, LongType())};
  spec.right_keys = {expr::Column(0, LongType())};
  io::TestingTemporaryFolder folder;
  ExecContext limited;
  limited.memory = std::make_shared<QueryMemory>(256 * 1024, folder.path());
  EXPECT_EQ(ErrorClassOf([&] { RunJoin(left, right, spec, limited); }), "EXEC_MEMORY_LIMIT_EXCEEDED");
}

std::vector<std::string> RunWindow(const std::vector<Batch>& input, ExecContext& context) {
  WindowCall row_number;
  row_number.function = "row_number";
  row_number.result_type = IntegerType();
  WindowCall running_sum;
  running_sum.function = "sum";
  running_sum.arguments = {expr::Column(2, LongType())};
  running_sum.result_type = LongType();
  WindowFrame frame;  // ROWS BETWEEN 2 PRECEDING AND CURRENT ROW
  frame.start = WindowFrame::Bound{WindowFrame::BoundKind::kPreceding, expr::Scalar::Long(2)};
  running_sum.frame = frame;
  OperatorPtr window = MakeWindow(std::make_unique<TestSource>(input.front().schema(), input),
                                  WindowOrdering{{0}, {SortKey{1, true, true}}}, {row_number, running_sum},
                                  {"rn", "s"});
  return RowsOf(Collect(*window, context));
}

TEST(SpillingWindowTest, WindowOverSortedRunsEqualsTheInMemoryWindow) {
  // Partitions by key (about 40 rows each), ordered by payload, ties in input order.
  std::vector<Batch> input = RandomInput(40, 5000, 13);
  ExecContext unlimited;
  std::vector<std::string> expected = RunWindow(input, unlimited);
  ASSERT_EQ(expected.size(), 200000u);
  io::TestingTemporaryFolder folder;
  ExecContext limited;
  limited.memory = std::make_shared<QueryMemory>(1 * kMiB, folder.path());
  EXPECT_EQ(RunWindow(input, limited), expected);  // same rows in the same order
  EXPECT_GT(limited.counters->spill_files.load(), 0);
}

TEST(SpillingWindowTest, FailsWithTheClassWhenOnePartitionDoesNotFit) {
  std::vector<Batch> input = RandomInput(40, 5000, 13);
  for (Batch& batch : input) {  // one partition
    batch = BatchOf({IntColumn(LongType(), std::vector<std::optional<int64_t>>(5000, 1)), batch.column(1),
                     batch.column(2)});
  }
  io::TestingTemporaryFolder folder;
  ExecContext limited;
  limited.memory = std::make_shared<QueryMemory>(1 * kMiB, folder.path());
  EXPECT_EQ(ErrorClassOf([&] { RunWindow(input, limited); }), "EXEC_MEMORY_LIMIT_EXCEEDED");
}

// The first `limit` rows of each key's partition, ordered by payload (compared row by row) or
// by position descending (compared through order words), sorted as text.
std::vector<std::string> RunGroupTopRows(const std::vector<Batch>& input, ExecContext& context,
                                         int64_t limit, SortKey order) {
  OperatorPtr top = MakeGroupTopRows(std::make_unique<TestSource>(input.front().schema(), input),
                                     {0}, {order}, limit, "rn");
  std::vector<std::string> rows = RowsOf(Collect(*top, context));
  std::sort(rows.begin(), rows.end());
  return rows;
}

TEST(SpillingGroupTopRowsTest, SpilledTopRowsEqualTheInMemoryOnes) {
  // About 180,000 keys: the kept rows and their tables take tens of MB, against a 16 MB limit
  // (a sixteenth of them at a time fits). Payloads tie
  // often, so the rows kept show whether ties still go to the earlier row.
  std::vector<Batch> input = RandomInput(60, 8192, 29, 200000);
  for (int64_t limit : {1, 3}) {
    for (SortKey order : {SortKey{1, true, true}, SortKey{2, false, false}}) {
      SCOPED_TRACE("limit " + std::to_string(limit) + ", column " + std::to_string(order.column));
      ExecContext unlimited;
      std::vector<std::string> expected = RunGroupTopRows(input, unlimited, limit, order);
      io::TestingTemporaryFolder folder;
      ExecContext limited;
      limited.memory = std::make_shared<QueryMemory>(16 * kMiB, folder.path());
      EXPECT_EQ(RunGroupTopRows(input, limited, limit, order), expected);
      EXPECT_GT(limited.counters->spill_files.load(), 0);
      EXPECT_EQ(limited.memory->reserved(), 0);
    }
  }
}

TEST(SpillingGroupTopRowsTest, FailsWithTheClassWhenOnePartitionDoesNotFit) {
  std::vector<Batch> input = RandomInput(60, 8192, 29, 200000);
  io::TestingTemporaryFolder folder;
  ExecContext limited;
  limited.memory = std::make_shared<QueryMemory>(kMiB, folder.path());
  EXPECT_EQ(ErrorClassOf([&] {
              RunGroupTopRows(input, limited, 3, SortKey{1, true, true});
            }),
            "EXEC_MEMORY_LIMIT_EXCEEDED");
}

TEST(NestedLoopJoinMemoryTest, HeldSideCountsAgainstTheLimit) {
  std::vector<Batch> right = RandomInput(40, 5000, 3);
  std::vector<Batch> left = {TakeBatchRows(right[0], {0, 1})};
  auto run = [&](ExecContext& context) {
    OperatorPtr join = MakeNestedLoopJoin(std::make_unique<TestSource>(left[0].schema(), left),
                                          std::make_unique<TestSource>(right[0].schema(), right),
                                          JoinType::kCross, nullptr);
    return RowsOf(Collect(*join, context)).size();
  };
  ExecContext unlimited;
  EXPECT_EQ(run(unlimited), 400000u);
  io::TestingTemporaryFolder folder;
  ExecContext limited;
  limited.memory = std::make_shared<QueryMemory>(1 * kMiB, folder.path());
  EXPECT_EQ(ErrorClassOf([&] { run(limited); }), "EXEC_MEMORY_LIMIT_EXCEEDED");
}

}  // namespace
}  // namespace silt::exec
