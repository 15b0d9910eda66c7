// Expand: every input row once per projection, serially and under the parallel pulls of a hash
// aggregation (as GROUP BY ROLLUP runs).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "silt/base/thread_pool.h"
#include "silt/exec/hash_operators.h"
#include "silt/exec/operators.h"
#include "silt/exec/test_source_internal.h"

namespace silt::exec {
namespace {

using ::testing::ElementsAre;

expr::ExpressionPtr Col(int index) { return expr::Column(index, LongType()); }
expr::ExpressionPtr Long(int64_t value) { return expr::Literal(expr::Scalar::Long(value)); }
expr::ExpressionPtr NullLong() { return expr::Literal(expr::Scalar::Null(LongType())); }

// A batch of two BIGINT columns (k, v) with rows [begin, end): k = i % 3, v = i.
Batch KeyValueBatch(int64_t begin, int64_t end) {
  VectorBuilder keys(LongType());
  VectorBuilder values(LongType());
  for (int64_t i = begin; i < end; ++i) {
    keys.AppendInt(i % 3);
    values.AppendInt(i);
  }
  auto schema = std::make_shared<const Schema>(
      std::vector<Field>{Field{"k", LongType(), false, {}}, Field{"v", LongType(), false, {}}});
  return Batch(schema, {keys.Finish(), values.Finish()}, end - begin);
}

// ROLLUP (k): (k, v, 0) and (NULL, v, 1) for every row.
std::vector<std::vector<expr::ExpressionPtr>> RollupProjections() {
  return {{Col(0), Col(1), Long(0)}, {NullLong(), Col(1), Long(1)}};
}

std::vector<std::string> RowsOf(const std::vector<Batch>& batches) {
  std::vector<std::string> rows;
  for (const Batch& batch : batches) {
    for (int64_t row = 0; row < batch.num_rows(); ++row) {
      std::string text;
      for (size_t c = 0; c < batch.num_columns(); ++c) {
        text += (c > 0 ? "," : "") + batch.column(c)->ValueToString(row);
      }
      rows.push_back(text);
    }
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

TEST(ExpandTest, EmitsEveryRowOncePerProjection) {
  Batch input = KeyValueBatch(0, 3);
  auto source = std::make_unique<testing::TestSource>(
      input.schema(), std::vector<Batch>{input, KeyValueBatch(3, 4)});
  OperatorPtr expand = MakeExpand(std::move(source), RollupProjections(), {"k", "v", "gid"});
  EXPECT_TRUE(expand->schema()->field(0).nullable);  // NULL in the second projection
  EXPECT_FALSE(expand->schema()->field(2).nullable);
  EXPECT_EQ(expand->Describe(), "Expand [[k#0, v#1, 0], [NULL, v#1, 1]], [k, v, gid]");
  ExecContext context;
  std::vector<Batch> batches = Collect(*expand, context);
  EXPECT_EQ(batches.size(), 4u);  // one batch per (input batch, projection)
  EXPECT_THAT(RowsOf(batches), ElementsAre("0,0,0", "0,3,0", "1,1,0", "2,2,0", "NULL,0,1",
                                           "NULL,1,1", "NULL,2,1", "NULL,3,1"));
}

// Hands out its batches to parallel pulls, taking its time over the last one, so that another
// worker sees the end while the last batch is still on its way.
class SlowLastBatchSource final : public Operator {
 public:
  explicit SlowLastBatchSource(std::vector<Batch> batches)
      : Operator(batches.front().schema()), batches_(std::move(batches)) {}
  std::optional<Batch> Next(ExecContext&) override {
    const size_t next = next_.fetch_add(1);
    if (next >= batches_.size()) return std::nullopt;
    if (next + 1 == batches_.size()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    return batches_[next];
  }
  bool EnableParallelNext() override { return true; }
  std::string Describe() const override { return "SlowLastBatchSource"; }

 private:
  std::vector<Batch> batches_;
  std::atomic<size_t> next_{0};
};

// A parallel consumer stops every worker at the first end of input it sees: Expand returns the
// end only once the projections of the last batch are all handed out.
TEST(ExpandTest, ReturnsTheEndOnlyAfterEveryProjection) {
  std::vector<Batch> batches;
  for (int64_t begin = 0; begin < 40; begin += 10)
    batches.push_back(KeyValueBatch(begin, begin + 10));
  ThreadPool pool(2);
  ExecContext context;
  context.pool = &pool;
  context.parallelism = 2;
  OperatorPtr expand = MakeExpand(std::make_unique<SlowLastBatchSource>(batches),
                                  RollupProjections(), {"k", "v", "gid"});
  AggregateCall count;
  count.function = "count";
  count.result_type = LongType();
  count.nullable = false;
  OperatorPtr aggregate =
      MakeHashAggregate(std::move(expand), {Col(2)}, {"gid"}, {count}, {"count"});
  EXPECT_THAT(RowsOf(Collect(*aggregate, context)), ElementsAre("0,40", "1,40"));
}

TEST(ExpandTest, ProjectionsMustAgreeOnTypes) {
  Batch input = KeyValueBatch(0, 1);
  auto source = std::make_unique<testing::TestSource>(input.schema(), std::vector<Batch>{input});
  std::vector<std::vector<expr::ExpressionPtr>> projections = {
      {Col(0)}, {expr::Literal(expr::Scalar::Integer(1))}};
  EXPECT_THROW(MakeExpand(std::move(source), projections, {"k"}), Error);
}

// The rollup's sums under a hash aggregation with parallel pulls equal the serial ones.
TEST(ExpandTest, FeedsAParallelHashAggregation) {
  std::vector<Batch> batches;
  for (int64_t begin = 0; begin < 200000; begin += 500)
    batches.push_back(KeyValueBatch(begin, begin + 500));
  std::map<std::string, std::pair<int64_t, int64_t>> expected_groups;  // key -> (count, sum)
  for (int64_t i = 0; i < 200000; ++i) {
    for (const std::string& key : {std::to_string(i % 3) + ",0", std::string("NULL,1")}) {
      ++expected_groups[key].first;
      expected_groups[key].second += i;
    }
  }
  std::vector<std::string> expected;
  for (const auto& [key, group] : expected_groups) {
    expected.push_back(key + "," + std::to_string(group.first) + "," +
                       std::to_string(group.second));
  }
  std::sort(expected.begin(), expected.end());
  // The workers stop at the first end of input they see: an end returned while another worker
  // still holds untaken projections would lose rows, now and then. Repeat to catch it.
  for (int round = 0; round < 20; ++round) {
    for (bool parallel_source : {false, true}) {
      SCOPED_TRACE(parallel_source ? "parallel pulls" : "serialised pulls");
      ThreadPool pool(2);
      ExecContext context;
      context.pool = &pool;
      context.parallelism = 2;
      auto source =
          std::make_unique<testing::TestSource>(batches.front().schema(), batches, parallel_source);
      testing::TestSource* source_view = source.get();
      OperatorPtr expand = MakeExpand(std::move(source), RollupProjections(), {"k", "v", "gid"});
      AggregateCall count;
      count.function = "count";
      count.result_type = LongType();
      count.nullable = false;
      AggregateCall sum;
      sum.function = "sum";
      sum.arguments = {Col(1)};
      sum.result_type = LongType();
      OperatorPtr aggregate = MakeHashAggregate(std::move(expand), {Col(0), Col(2)}, {"k", "gid"},
                                                {count, sum}, {"count", "sum"});
      EXPECT_THAT(RowsOf(Collect(*aggregate, context)), ::testing::ElementsAreArray(expected));
      EXPECT_EQ(source_view->parallel_pulls(), parallel_source);
    }
  }
}

}  // namespace
}  // namespace silt::exec
