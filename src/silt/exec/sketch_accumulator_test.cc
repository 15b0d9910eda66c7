#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "silt/exec/accumulator.h"
#include "silt/exec/aggregate_function.h"
#include "silt/expr/scalar.h"
#include "silt/expr/test_batch_internal.h"

namespace silt::exec {
namespace {

using expr::testing::IntColumn;

// histogram_numeric(col, bins) over INT values, prepared as the binder prepares it.
AggregateCall HistogramCall(int bins) {
  AggregateCall call;
  call.function = "histogram_numeric";
  call.arguments = {expr::Column(0, IntegerType()), expr::Literal(expr::Scalar::Integer(bins))};
  call.result_type = ResolveAggregate("histogram_numeric", {IntegerType(), IntegerType()}, false).result_type;
  return call;
}

std::unique_ptr<Accumulator> Filled(const AggregateCall& call, const std::vector<int>& values) {
  std::unique_ptr<Accumulator> accumulator = MakeAccumulator(call, {IntegerType(), IntegerType()});
  accumulator->Resize(1);
  std::vector<std::optional<int64_t>> cells(values.begin(), values.end());
  std::vector<uint32_t> groups(values.size(), 0);
  expr::EvalContext context;
  accumulator->Update({IntColumn(IntegerType(), cells)}, groups.data(), nullptr, static_cast<int64_t>(values.size()),
                      context);
  return accumulator;
}

std::string Result(Accumulator& accumulator) {
  expr::EvalContext context;
  return expr::Scalar::FromVector(*accumulator.Finalize(1, context), 0).ToString();
}

// The fifty values of Spark's group-by.sql histogram query (36 is replaced by a second 3).
std::vector<int> FiftyValues() {
  std::vector<int> values;
  for (int v = 1; v <= 50; ++v) values.push_back(v == 36 ? 3 : v);
  return values;
}

// Spark evaluates that query's VALUES in two partitions of 25 rows, each building a partial
// histogram; the final aggregate copies the first and merges the second into it (Algorithm 2).
// Its golden answers (sql-tests/results/group-by.sql.out) are those of the merge.
TEST(HistogramNumericTest, MergingPartialHistogramsGivesSparksAnswer) {
  const std::vector<int> values = FiftyValues();
  const std::vector<int> first(values.begin(), values.begin() + 25), second(values.begin() + 25, values.end());
  const std::vector<std::pair<int, std::string>> expected = {
      {2, "[{12, 26.0}, {38, 24.0}]"},
      {3, "[{9, 20.0}, {25, 11.0}, {40, 19.0}]"},
      {10, "[{3, 6.0}, {8, 6.0}, {13, 4.0}, {17, 3.0}, {20, 4.0}, {25, 6.0}, {31, 7.0}, {39, 5.0}, {43, 4.0}, "
           "{48, 5.0}]"}};
  for (const auto& [bins, answer] : expected) {
    AggregateCall call = HistogramCall(bins);
    std::unique_ptr<Accumulator> total = MakeAccumulator(call, {IntegerType(), IntegerType()});
    total->Resize(1);
    const uint32_t group_map[] = {0};
    expr::EvalContext context;
    for (const std::vector<int>* part : {&first, &second}) {
      std::unique_ptr<Accumulator> partial = Filled(call, *part);
      total->Merge(*partial, group_map, 1, context);
    }
    EXPECT_EQ(Result(*total), answer) << bins << " bins";
  }
}

// In one pass the same values give the streaming algorithm's own answer (one partition).
TEST(HistogramNumericTest, OnePassTrimsTheClosestBins) {
  std::unique_ptr<Accumulator> accumulator = Filled(HistogramCall(2), FiftyValues());
  EXPECT_EQ(Result(*accumulator), "[{17, 36.0}, {43, 14.0}]");
}

}  // namespace
}  // namespace silt::exec
