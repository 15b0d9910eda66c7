// The row-wise operators: batch source, range, filter, project, limit, union, generate and the
// nested-loop join (every join type, NULLs in keys and conditions).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>

#include "silt/base/testing_error_class.h"
#include "silt/error.h"
#include "silt/exec/operators.h"

namespace silt::exec {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

using OptionalInts = std::vector<std::optional<int64_t>>;

VectorPtr Longs(const OptionalInts& values) {
  VectorBuilder builder(LongType());
  for (const auto& value : values) {
    if (value) {
      builder.AppendInt(*value);
    } else {
      builder.AppendNull();
    }
  }
  return builder.Finish();
}

// A batch of BIGINT columns named `names`.
Batch LongBatch(const std::vector<std::string>& names, const std::vector<OptionalInts>& columns) {
  std::vector<Field> fields;
  std::vector<VectorPtr> vectors;
  for (size_t i = 0; i < names.size(); ++i) {
    fields.push_back(Field{names[i], LongType(), true, {}});
    vectors.push_back(Longs(columns[i]));
  }
  int64_t rows = columns.empty() ? 0 : static_cast<int64_t>(columns[0].size());
  return Batch(std::make_shared<const Schema>(std::move(fields)), std::move(vectors), rows);
}

OperatorPtr Source(const Batch& batch) { return MakeBatchSource(batch.schema(), {batch}); }

// Every row as "v1,v2,..." (NULL as "NULL").
std::vector<std::string> RowsOf(Operator& op) {
  ExecContext context;
  std::vector<std::string> rows;
  for (const Batch& batch : Collect(op, context)) {
    EXPECT_GT(batch.num_rows(), 0);
    EXPECT_TRUE(batch.schema()->Equals(*op.schema()));
    for (int64_t row = 0; row < batch.num_rows(); ++row) {
      std::string text;
      for (size_t c = 0; c < batch.num_columns(); ++c) {
        if (c > 0) text += ",";
        text += batch.column(c)->ValueToString(row);
      }
      rows.push_back(text);
    }
  }
  return rows;
}

expr::ExpressionPtr Col(int index) { return expr::Column(index, LongType()); }
expr::ExpressionPtr Long(int64_t value) { return expr::Literal(expr::Scalar::Long(value)); }

// Counts the batches its child was asked for.
class CountingOperator final : public Operator {
 public:
  explicit CountingOperator(OperatorPtr child, int* pulls)
      : Operator(child->schema()), child_(std::move(child)), pulls_(pulls) {}
  std::optional<Batch> Next(ExecContext& context) override {
    ++*pulls_;
    return child_->Next(context);
  }
  std::string Describe() const override { return "Counting"; }

 private:
  OperatorPtr child_;
  int* pulls_;
};

TEST(BatchSourceTest, ReturnsBatchesSkippingEmptyOnes) {
  Batch first = LongBatch({"a", "b"}, {{1, 2}, {3, std::nullopt}});
  Batch empty = LongBatch({"a", "b"}, {{}, {}});
  OperatorPtr source = MakeBatchSource(first.schema(), {first, empty, first.Slice(1, 1)});
  EXPECT_EQ(source->Describe(), "LocalTableScan [a, b]");
  EXPECT_THAT(RowsOf(*source), ElementsAre("1,3", "2,NULL", "2,NULL"));
}

TEST(RangeTest, ProducesSparkRanges) {
  OperatorPtr range = MakeRange(0, 5, 1);
  EXPECT_EQ(range->Describe(), "Range (0, 5, step=1)");
  EXPECT_EQ(range->schema()->field(0).name, "id");
  EXPECT_FALSE(range->schema()->field(0).nullable);
  EXPECT_THAT(RowsOf(*range), ElementsAre("0", "1", "2", "3", "4"));
  EXPECT_THAT(RowsOf(*MakeRange(10, 0, -3)), ElementsAre("10", "7", "4", "1"));
  EXPECT_THAT(RowsOf(*MakeRange(5, 0, 1)), IsEmpty());
  EXPECT_THAT(RowsOf(*MakeRange(3, 3, -1)), IsEmpty());
  EXPECT_THAT(RowsOf(*MakeRange(INT64_MIN, INT64_MAX, INT64_MAX)),
              ElementsAre(std::to_string(INT64_MIN), "-1", std::to_string(INT64_MAX - 1)));
}

TEST(RangeTest, LargeRangesComeInTargetSizedBatches) {
  OperatorPtr range = MakeRange(0, 3 * kTargetBatchRows + 7, 1, "n");
  ExecContext context;
  std::vector<Batch> batches = Collect(*range, context);
  ASSERT_EQ(batches.size(), 4u);
  EXPECT_EQ(batches[0].num_rows(), kTargetBatchRows);
  EXPECT_EQ(batches[3].num_rows(), 7);
  EXPECT_EQ(batches[3].column(0)->values<int64_t>()[6], 3 * kTargetBatchRows + 6);
  EXPECT_EQ(range->schema()->field(0).name, "n");
}

TEST(RangeTest, ZeroStepIsAnError) {
  EXPECT_EQ(ErrorClassOf([] { MakeRange(0, 10, 0); }), "INVALID_PARAMETER_VALUE");
}

TEST(FilterTest, KeepsRowsWhereThePredicateIsTrue) {
  Batch input = LongBatch({"a", "b"}, {{1, 2, std::nullopt, 4}, {10, 20, 30, 40}});
  OperatorPtr filter =
      MakeFilter(Source(input), expr::Compare(expr::ComparisonOperator::kGreater, Col(0), Long(1)));
  EXPECT_EQ(filter->Describe(), "Filter (a#0 > 1)");
  ASSERT_EQ(filter->children().size(), 1u);
  EXPECT_THAT(RowsOf(*filter), ElementsAre("2,20", "4,40"));  // NULL > 1 is not TRUE
}

TEST(FilterTest, RowErrorsSurface) {
  Batch input = LongBatch({"a"}, {{1, 0}});
  auto quotient = expr::Arithmetic(expr::ArithmeticOperator::kDivide, Long(1), Col(0));
  OperatorPtr filter = MakeFilter(
      Source(input), expr::Compare(expr::ComparisonOperator::kGreater, quotient,
                                   expr::Literal(expr::Scalar::Double(0))));
  EXPECT_EQ(ErrorClassOf([&] { RowsOf(*filter); }), "DIVIDE_BY_ZERO");
}

TEST(ProjectTest, ComputesExpressionsAndPassesColumnsThrough) {
  Batch input = LongBatch({"a", "b"}, {{1, 2}, {10, std::nullopt}});
  auto plus_one = expr::Arithmetic(expr::ArithmeticOperator::kAdd, Col(1), Long(1));
  OperatorPtr project = MakeProject(Source(input), {Col(0), plus_one}, {"a", "c"});
  EXPECT_EQ(project->Describe(), "Project [a#0, (b#1 + 1) AS c]");
  EXPECT_EQ(project->schema()->field(1).name, "c");
  ExecContext context;
  std::optional<Batch> batch = project->Next(context);
  ASSERT_TRUE(batch.has_value());
  EXPECT_EQ(batch->column(0).get(), input.column(0).get());  // not copied
  EXPECT_EQ(batch->column(1)->ValueToString(0), "11");
  EXPECT_TRUE(batch->column(1)->IsNull(1));
  OperatorPtr renamed = MakeProject(Source(input), {Col(1)}, {"x"});
  EXPECT_EQ(renamed->Describe(), "Project [b#1 AS x]");
}

TEST(LimitTest, StopsPullingOnceSatisfied) {
  Batch batch = LongBatch({"a"}, {{1, 2, 3}});
  int pulls = 0;
  auto source = std::make_unique<CountingOperator>(
      MakeBatchSource(batch.schema(), {batch, batch, batch, batch}), &pulls);
  OperatorPtr limit = MakeLimit(std::move(source), 4);
  EXPECT_EQ(limit->Describe(), "Limit 4");
  EXPECT_THAT(RowsOf(*limit), ElementsAre("1", "2", "3", "1"));
  EXPECT_EQ(pulls, 2);
}

TEST(LimitTest, OffsetSkipsRowsAcrossBatches) {
  Batch batch = LongBatch({"a"}, {{1, 2, 3}});
  EXPECT_THAT(RowsOf(*MakeLimit(MakeBatchSource(batch.schema(), {batch, batch}), 2, 4)),
              ElementsAre("2", "3"));
  EXPECT_THAT(RowsOf(*MakeLimit(MakeBatchSource(batch.schema(), {batch, batch}), std::nullopt, 5)),
              ElementsAre("3"));
  EXPECT_THAT(RowsOf(*MakeLimit(Source(batch), 0)), IsEmpty());
  EXPECT_THAT(RowsOf(*MakeLimit(Source(batch), 10, 3)), IsEmpty());
}

TEST(UnionAllTest, ConcatenatesChildrenUnderTheUnionSchema) {
  Batch left = LongBatch({"a"}, {{1, 2}});
  Batch right = LongBatch({"b"}, {{std::nullopt}});
  std::vector<OperatorPtr> children;
  children.push_back(Source(left));
  children.push_back(MakeBatchSource(right.schema(), {}));
  children.push_back(Source(right));
  OperatorPtr union_all = MakeUnionAll(std::move(children), left.schema());
  EXPECT_EQ(union_all->Describe(), "Union");
  EXPECT_EQ(union_all->children().size(), 3u);
  EXPECT_THAT(RowsOf(*union_all), ElementsAre("1", "2", "NULL"));
}

// One BIGINT id column and an ARRAY<BIGINT> column: [1, 2], NULL, [], [NULL].
Batch ArrayBatch() {
  VectorBuilder arrays(ListType(LongType()));
  arrays.child(0).AppendInt(1);
  arrays.child(0).AppendInt(2);
  arrays.FinishList();
  arrays.AppendNull();
  arrays.FinishList();
  arrays.child(0).AppendNull();
  arrays.FinishList();
  auto schema = std::make_shared<const Schema>(std::vector<Field>{
      Field{"id", LongType(), true, {}}, Field{"arr", ListType(LongType()), true, {}}});
  return Batch(schema, {Longs({1, 2, 3, 4}), arrays.Finish()}, 4);
}

TEST(GenerateTest, ExplodeAndPosExplodeOfArrays) {
  Batch input = ArrayBatch();
  auto array = expr::Column(1, ListType(LongType()));
  GenerateSpec explode;
  explode.input = array;
  OperatorPtr generate = MakeGenerate(Source(input), explode);
  EXPECT_EQ(generate->Describe(), "Generate explode(arr#1)");
  EXPECT_EQ(generate->schema()->field(2).name, "col");
  EXPECT_THAT(RowsOf(*generate), ElementsAre("1,[1, 2],1", "1,[1, 2],2", "4,[NULL],NULL"));

  GenerateSpec outer = explode;
  outer.outer = true;
  EXPECT_THAT(RowsOf(*MakeGenerate(Source(input), outer)),
              ElementsAre("1,[1, 2],1", "1,[1, 2],2", "2,NULL,NULL", "3,[],NULL", "4,[NULL],NULL"));

  GenerateSpec positions = outer;
  positions.kind = GenerateSpec::Kind::kPosExplode;
  positions.names = {"p", "v"};
  OperatorPtr posexplode = MakeGenerate(Source(input), positions);
  EXPECT_EQ(posexplode->schema()->field(2).name, "p");
  EXPECT_EQ(posexplode->schema()->field(2).type->id(), TypeId::kInteger);
  EXPECT_THAT(RowsOf(*posexplode), ElementsAre("1,[1, 2],0,1", "1,[1, 2],1,2", "2,NULL,NULL,NULL",
                                               "3,[],NULL,NULL", "4,[NULL],0,NULL"));
}

TEST(GenerateTest, ExplodeOfMapsAndInlineOfStructs) {
  VectorBuilder maps(MapType(StringType(), LongType()));
  VectorBuilder& entries = maps.child(0);
  entries.child(0).AppendString("a");
  entries.child(1).AppendInt(1);
  entries.AppendStruct();
  entries.child(0).AppendString("b");
  entries.child(1).AppendNull();
  entries.AppendStruct();
  maps.FinishList();
  auto struct_type = StructType({Field{"x", LongType(), true, {}}, Field{"y", StringType(), true, {}}});
  VectorBuilder structs(ListType(struct_type));
  VectorBuilder& element = structs.child(0);
  element.child(0).AppendInt(7);
  element.child(1).AppendString("s");
  element.AppendStruct();
  element.AppendNull();
  structs.FinishList();
  auto schema = std::make_shared<const Schema>(std::vector<Field>{
      Field{"m", MapType(StringType(), LongType()), true, {}},
      Field{"s", ListType(struct_type), true, {}}});
  Batch input(schema, {maps.Finish(), structs.Finish()}, 1);

  GenerateSpec explode_map;
  explode_map.input = expr::Column(0, MapType(StringType(), LongType()));
  OperatorPtr map_generate = MakeGenerate(Source(input), explode_map);
  EXPECT_EQ(map_generate->schema()->field(2).name, "key");
  EXPECT_EQ(map_generate->schema()->field(3).name, "value");
  EXPECT_THAT(RowsOf(*map_generate), ElementsAre("{a -> 1, b -> NULL},[{7, s}, NULL],a,1",
                                                 "{a -> 1, b -> NULL},[{7, s}, NULL],b,NULL"));

  GenerateSpec inline_structs;
  inline_structs.kind = GenerateSpec::Kind::kInline;
  inline_structs.input = expr::Column(1, ListType(struct_type));
  OperatorPtr inline_generate =
      MakeProject(MakeGenerate(Source(input), inline_structs),
                  {expr::Column(2, LongType()), expr::Column(3, StringType())}, {"x", "y"});
  EXPECT_THAT(RowsOf(*inline_generate), ElementsAre("7,s", "NULL,NULL"));
}

TEST(GenerateTest, RejectsWhatCannotBeExploded) {
  Batch input = LongBatch({"a"}, {{1}});
  GenerateSpec spec;
  spec.input = Col(0);
  EXPECT_EQ(ErrorClassOf([&] { MakeGenerate(Source(input), spec); }), "DATATYPE_MISMATCH");
  Batch arrays = ArrayBatch();
  GenerateSpec names;
  names.input = expr::Column(1, ListType(LongType()));
  names.names = {"a", "b"};
  EXPECT_EQ(ErrorClassOf([&] { MakeGenerate(Source(arrays), names); }), "UNSUPPORTED_GENERATOR");
}

// left (k, l): (1, 10), (2, 20), (NULL, 30); right (k, r): (1, 100), (1, 101), (3, 300),
// (NULL, 400). Joined on l.k = r.k (column 0 = column 2).
class NestedLoopJoinTest : public ::testing::Test {
 protected:
  OperatorPtr Join(JoinType type, bool with_condition = true) {
    Batch left = LongBatch({"k", "l"}, {{1, 2, std::nullopt}, {10, 20, 30}});
    Batch right = LongBatch({"k", "r"}, {{1, 1, 3, std::nullopt}, {100, 101, 300, 400}});
    expr::ExpressionPtr condition;
    if (with_condition) condition = expr::Compare(expr::ComparisonOperator::kEqual, Col(0), Col(2));
    return MakeNestedLoopJoin(Source(left), Source(right), type, condition);
  }
};

TEST_F(NestedLoopJoinTest, Inner) {
  OperatorPtr join = Join(JoinType::kInner);
  EXPECT_EQ(join->Describe(), "BroadcastNestedLoopJoin Inner (k#0 = k#2)");
  EXPECT_THAT(RowsOf(*join), UnorderedElementsAre("1,10,1,100", "1,10,1,101"));
}

TEST_F(NestedLoopJoinTest, LeftRightAndFullOuter) {
  EXPECT_THAT(RowsOf(*Join(JoinType::kLeftOuter)),
              UnorderedElementsAre("1,10,1,100", "1,10,1,101", "2,20,NULL,NULL",
                                   "NULL,30,NULL,NULL"));
  EXPECT_THAT(RowsOf(*Join(JoinType::kRightOuter)),
              UnorderedElementsAre("1,10,1,100", "1,10,1,101", "NULL,NULL,3,300",
                                   "NULL,NULL,NULL,400"));
  OperatorPtr full = Join(JoinType::kFullOuter);
  EXPECT_TRUE(full->schema()->field(0).nullable);
  EXPECT_THAT(RowsOf(*full),
              UnorderedElementsAre("1,10,1,100", "1,10,1,101", "2,20,NULL,NULL",
                                   "NULL,30,NULL,NULL", "NULL,NULL,3,300", "NULL,NULL,NULL,400"));
}

TEST_F(NestedLoopJoinTest, SemiAndAnti) {
  OperatorPtr semi = Join(JoinType::kLeftSemi);
  EXPECT_EQ(semi->schema()->num_fields(), 2u);
  EXPECT_THAT(RowsOf(*semi), ElementsAre("1,10"));
  // A NULL key matches nothing, so the anti join keeps it.
  EXPECT_THAT(RowsOf(*Join(JoinType::kLeftAnti)), UnorderedElementsAre("2,20", "NULL,30"));
}

TEST_F(NestedLoopJoinTest, CrossJoinPairsEveryRow) {
  OperatorPtr cross = Join(JoinType::kCross, /*with_condition=*/false);
  EXPECT_EQ(cross->Describe(), "BroadcastNestedLoopJoin Cross");
  EXPECT_EQ(RowsOf(*cross).size(), 12u);
}

TEST_F(NestedLoopJoinTest, EmptyRightSide) {
  Batch left = LongBatch({"k"}, {{1, 2}});
  Batch right = LongBatch({"r"}, {{}});
  auto condition = expr::Compare(expr::ComparisonOperator::kLess, Col(0), Col(1));
  EXPECT_THAT(RowsOf(*MakeNestedLoopJoin(Source(left), MakeBatchSource(right.schema(), {}),
                                         JoinType::kLeftOuter, condition)),
              ElementsAre("1,NULL", "2,NULL"));
  EXPECT_THAT(RowsOf(*MakeNestedLoopJoin(Source(left), MakeBatchSource(right.schema(), {}),
                                         JoinType::kInner, condition)),
              IsEmpty());
  EXPECT_THAT(RowsOf(*MakeNestedLoopJoin(Source(left), MakeBatchSource(right.schema(), {}),
                                         JoinType::kLeftAnti, condition)),
              ElementsAre("1", "2"));
}

TEST_F(NestedLoopJoinTest, LargeSidesAreJoinedInBoundedBatches) {
  // 300 x 300 pairs, a non-equi condition; more pairs than one target batch.
  OperatorPtr join = MakeNestedLoopJoin(MakeRange(0, 300, 1, "a"), MakeRange(0, 300, 1, "b"),
                                        JoinType::kInner,
                                        expr::Compare(expr::ComparisonOperator::kLess, Col(0), Col(1)));
  ExecContext context;
  int64_t rows = 0;
  for (const Batch& batch : Collect(*join, context)) {
    EXPECT_LE(batch.num_rows(), kTargetBatchRows);
    rows += batch.num_rows();
  }
  EXPECT_EQ(rows, 300 * 299 / 2);
  // A right side larger than a target batch is sliced per left row.
  OperatorPtr wide = MakeNestedLoopJoin(MakeRange(0, 2, 1, "a"),
                                        MakeRange(0, kTargetBatchRows + 5, 1, "b"),
                                        JoinType::kRightOuter,
                                        expr::Compare(expr::ComparisonOperator::kEqual, Col(0), Col(1)));
  ExecContext wide_context;
  int64_t wide_rows = 0;
  for (const Batch& batch : Collect(*wide, wide_context)) wide_rows += batch.num_rows();
  EXPECT_EQ(wide_rows, kTargetBatchRows + 5);
}

TEST(JoinOutputSchemaTest, OuterSidesBecomeNullable) {
  Schema left({Field{"a", LongType(), false, {}}});
  Schema right({Field{"b", LongType(), false, {}}});
  EXPECT_FALSE(JoinOutputSchema(left, right, JoinType::kInner)->field(1).nullable);
  EXPECT_TRUE(JoinOutputSchema(left, right, JoinType::kLeftOuter)->field(1).nullable);
  EXPECT_FALSE(JoinOutputSchema(left, right, JoinType::kLeftOuter)->field(0).nullable);
  EXPECT_TRUE(JoinOutputSchema(left, right, JoinType::kRightOuter)->field(0).nullable);
  EXPECT_EQ(JoinOutputSchema(left, right, JoinType::kLeftAnti)->num_fields(), 1u);
}

}  // namespace
}  // namespace silt::exec
