#include "silt/sql/subplan_results.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "silt/exec/operators.h"
#include "silt/expr/expression.h"
#include "silt/vector/vector.h"

namespace silt::sql {
namespace {

// A batch of one BIGINT column holding `rows` values 0, 1, ...
Batch LongBatch(int64_t rows) {
  VectorBuilder builder(LongType(), rows);
  for (int64_t i = 0; i < rows; ++i) builder.AppendInt(i);
  auto schema = std::make_shared<Schema>(std::vector<Field>{{"v", LongType(), true, {}}});
  return Batch(schema, {builder.Finish()}, rows);
}

// VALUES `batches` grouped by their one column, with `function` of it.
LogicalPtr AggregateOver(const std::vector<Batch>& batches, const std::string& function) {
  auto values = std::make_shared<LogicalNode>();
  values->kind = LogicalKind::kValues;
  values->columns = {MakeLogicalColumn("v", LongType(), true)};
  values->batches = batches;
  auto aggregate = std::make_shared<LogicalNode>();
  aggregate->kind = LogicalKind::kAggregate;
  aggregate->children = {values};
  aggregate->expressions = {expr::Column(0, LongType(), true)};
  exec::AggregateCall call;
  call.function = function;
  call.arguments = {expr::Column(0, LongType(), true)};
  call.result_type = LongType();
  aggregate->aggregates = {call};
  aggregate->columns = {MakeLogicalColumn("v", LongType(), true), MakeLogicalColumn(function, LongType(), true)};
  return aggregate;
}

// Runs `op` (standing for `node`) through `results` to its end, or for `batches` batches only.
void Pull(SubplanResults& results, const LogicalPtr& node, exec::OperatorPtr op, int batches = -1) {
  results.Keep(node);
  exec::OperatorPtr recorded = results.Record(*node, std::move(op));
  exec::ExecContext context;
  for (int pulled = 0; batches < 0 || pulled < batches; ++pulled) {
    if (!recorded->Next(context)) break;
  }
}

exec::OperatorPtr Source(const std::vector<Batch>& batches) {
  return exec::MakeBatchSource(batches.front().schema(), batches);
}

TEST(SubplanResultsTest, SameSubplanComparesAttributesNotColumnIds) {
  std::vector<Batch> batches = {LongBatch(10)};
  LogicalPtr sum = AggregateOver(batches, "sum");
  EXPECT_TRUE(SameSubplan(*sum, *AggregateOver(batches, "sum")));
  EXPECT_FALSE(SameSubplan(*sum, *AggregateOver(batches, "max")));
  // VALUES of other batch objects are other rows, even when they hold the same values.
  EXPECT_FALSE(SameSubplan(*sum, *AggregateOver({LongBatch(10)}, "sum")));
}

TEST(SubplanResultsTest, AKeptOutputReplacesTheSameSubplan) {
  std::vector<Batch> batches = {LongBatch(10)};
  SubplanResults results;
  Pull(results, AggregateOver(batches, "sum"), Source({LongBatch(3), LongBatch(2)}));
  // The main query's copy: a projection over the same aggregate.
  LogicalPtr main = AggregateOver(batches, "sum");
  LogicalPtr project = MakeLogicalSelectColumns(main, {1});
  LogicalPtr reused = results.Reuse(project);
  ASSERT_NE(reused, project);
  const LogicalNode& values = *reused->children[0];
  EXPECT_EQ(values.kind, LogicalKind::kValues);
  ASSERT_EQ(values.batches.size(), 2u);
  EXPECT_EQ(values.batches[0].num_rows() + values.batches[1].num_rows(), 5);
  EXPECT_EQ(values.columns[1].id, main->columns[1].id);
  EXPECT_EQ(results.reused(), 1);
  // Another aggregate of the same input is computed.
  LogicalPtr other = AggregateOver(batches, "max");
  EXPECT_EQ(results.Reuse(other), other);
}

TEST(SubplanResultsTest, AnOutputNotReadToItsEndIsNotKept) {
  std::vector<Batch> batches = {LongBatch(10)};
  SubplanResults results;
  Pull(results, AggregateOver(batches, "sum"), Source({LongBatch(3), LongBatch(2)}), 1);
  LogicalPtr main = AggregateOver(batches, "sum");
  EXPECT_EQ(results.Reuse(main), main);
  EXPECT_EQ(results.reused(), 0);
}

TEST(SubplanResultsTest, AnOutputPastTheBudgetIsNotKept) {
  std::vector<Batch> batches = {LongBatch(10)};
  SubplanResults results;
  // Two batches of just over half the budget each.
  const int64_t rows = SubplanResults::kMaxBytes / 8 / 2 + 1024;
  Pull(results, AggregateOver(batches, "sum"), Source({LongBatch(rows), LongBatch(rows)}));
  LogicalPtr main = AggregateOver(batches, "sum");
  EXPECT_EQ(results.Reuse(main), main);
  // What the dropped output held is free again for the next one.
  LogicalPtr max = AggregateOver(batches, "max");
  Pull(results, max, Source({LongBatch(rows)}));
  EXPECT_NE(results.Reuse(AggregateOver(batches, "max")), nullptr);
  EXPECT_EQ(results.reused(), 1);
  // An empty output is kept, and read as no rows.
  SubplanResults empty;
  auto schema = LongBatch(0).schema();
  Pull(empty, AggregateOver(batches, "sum"), exec::MakeBatchSource(schema, {}));
  LogicalPtr reused = empty.Reuse(main);
  ASSERT_NE(reused, main);
  EXPECT_TRUE(reused->batches.empty());
}

}  // namespace
}  // namespace silt::sql
