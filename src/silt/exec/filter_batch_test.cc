// FilterBatch (the filter of scans and the Filter operator): AND chains evaluated a conjunct at
// a time must keep exactly the rows and raise exactly the errors of the whole predicate, and the
// comparisons against a literal must agree with the general comparison.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "silt/error.h"
#include "silt/exec/filter_internal.h"
#include "silt/expr/evaluator.h"

namespace silt::exec {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using expr::ComparisonOperator;
using expr::ExpressionPtr;

using OptionalInts = std::vector<std::optional<int64_t>>;
using OptionalStrings = std::vector<std::optional<std::string>>;

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

VectorPtr Strings(const OptionalStrings& values) {
  VectorBuilder builder(StringType());
  for (const auto& value : values) {
    if (value) {
      builder.AppendString(*value);
    } else {
      builder.AppendNull();
    }
  }
  return builder.Finish();
}

// Columns x BIGINT and s STRING.
Batch MakeBatch(const OptionalInts& x, const OptionalStrings& s) {
  std::vector<Field> fields = {{"x", LongType(), true, {}}, {"s", StringType(), true, {}}};
  return Batch(std::make_shared<const Schema>(std::move(fields)), {Longs(x), Strings(s)},
               static_cast<int64_t>(x.size()));
}

ExpressionPtr X() { return expr::Column(0, LongType()); }
ExpressionPtr S() { return expr::Column(1, StringType()); }
ExpressionPtr Long(int64_t value) { return expr::Literal(expr::Scalar::Long(value)); }
ExpressionPtr Text(const std::string& value) { return expr::Literal(expr::Scalar::String(value)); }

// The kept rows as "x|s".
std::vector<std::string> Kept(const ExpressionPtr& predicate, const Batch& batch) {
  expr::EvalContext eval;
  Batch kept = FilterBatch(*predicate, batch, eval);
  std::vector<std::string> rows;
  for (int64_t row = 0; row < kept.num_rows(); ++row) {
    rows.push_back(kept.column(0)->ValueToString(row) + "|" + kept.column(1)->ValueToString(row));
  }
  return rows;
}

std::string ErrorClassOf(const ExpressionPtr& predicate, const Batch& batch) {
  expr::EvalContext eval;
  try {
    FilterBatch(*predicate, batch, eval);
  } catch (const Error& error) {
    return std::string(error.error_class());
  }
  return "no error";
}

// The rows where the evaluator's general path (both sides as vectors) says TRUE.
std::vector<uint8_t> GeneralCompare(ComparisonOperator op, const Vector& left, const Vector& right) {
  VectorPtr result = expr::CompareVectors(op, left, right);
  std::vector<uint8_t> out;
  for (int64_t i = 0; i < result->length(); ++i) out.push_back(result->IsValid(i) ? 1 + result->GetBool(i) : 0);
  return out;
}

std::vector<uint8_t> LiteralCompare(const ExpressionPtr& comparison, const Batch& batch) {
  expr::EvalContext eval;
  VectorPtr result = expr::Evaluate(*comparison, batch, eval);
  std::vector<uint8_t> out;
  for (int64_t i = 0; i < result->length(); ++i) out.push_back(result->IsValid(i) ? 1 + result->GetBool(i) : 0);
  return out;
}

TEST(FilterBatchTest, KeepsRowsWhereEveryConjunctIsTrue) {
  Batch batch = MakeBatch({1, 2, 3, std::nullopt, 5, 6}, {"a", "b", "a", "a", std::nullopt, "a"});
  ExpressionPtr predicate = expr::And(expr::Compare(ComparisonOperator::kEqual, S(), Text("a")),
                                      expr::Compare(ComparisonOperator::kGreater, X(), Long(2)));
  EXPECT_THAT(Kept(predicate, batch), ElementsAre("3|a", "6|a"));
}

TEST(FilterBatchTest, NestedAndsAndLiteralsOnTheLeft) {
  Batch batch = MakeBatch({1, 2, 3, 4, 5, 6, 7, 8}, {"a", "a", "a", "a", "b", "b", "a", "a"});
  // 'a' = s AND (2 < x AND x <= 7)
  ExpressionPtr predicate = expr::And(
      expr::Compare(ComparisonOperator::kEqual, Text("a"), S()),
      expr::And(expr::Compare(ComparisonOperator::kLess, Long(2), X()),
                expr::Compare(ComparisonOperator::kLessOrEqual, X(), Long(7))));
  EXPECT_THAT(Kept(predicate, batch), ElementsAre("3|a", "4|a", "7|a"));
}

TEST(FilterBatchTest, MarksTheKeptRowsWhenAtLeastHalfPass) {
  Batch batch = MakeBatch({1, 2, 3, std::nullopt}, {"a", "b", "c", "d"});
  expr::EvalContext eval;
  std::vector<uint8_t> selection;
  // x > 1 keeps two rows of four (NULL is not kept): the batch comes back whole, marked.
  Batch kept = FilterBatch(*expr::Compare(ComparisonOperator::kGreater, X(), Long(1)), batch, eval, &selection);
  EXPECT_EQ(kept.num_rows(), 4);
  EXPECT_THAT(selection, ElementsAre(0, 1, 1, 0));
  // x > 2 keeps one: gathered, no selection.
  kept = FilterBatch(*expr::Compare(ComparisonOperator::kGreater, X(), Long(2)), batch, eval, &selection);
  EXPECT_EQ(kept.num_rows(), 1);
  EXPECT_EQ(kept.column(1)->ValueToString(0), "c");
  EXPECT_THAT(selection, IsEmpty());
  // Every row passes: the batch itself, no selection.
  Batch all = MakeBatch({1, 2}, {"a", "b"});
  kept = FilterBatch(*expr::Compare(ComparisonOperator::kGreater, X(), Long(0)), all, eval, &selection);
  EXPECT_EQ(kept.num_rows(), 2);
  EXPECT_THAT(selection, IsEmpty());
}

TEST(FilterBatchTest, MarksRowsOfTheBatchLeftAfterAnEarlierConjunctCompacted) {
  // The first conjunct keeps 4 of 16 rows (compacted), the second 3 of those 4 (marked).
  OptionalInts x;
  OptionalStrings s;
  for (int i = 0; i < 16; ++i) {
    x.push_back(i);
    s.push_back(i % 4 == 0 ? "keep" : "drop");
  }
  Batch batch = MakeBatch(x, s);
  ExpressionPtr predicate = expr::And(expr::Compare(ComparisonOperator::kEqual, S(), Text("keep")),
                                      expr::Compare(ComparisonOperator::kGreater, X(), Long(0)));
  expr::EvalContext eval;
  std::vector<uint8_t> selection;
  Batch kept = FilterBatch(*predicate, batch, eval, &selection);
  ASSERT_EQ(kept.num_rows(), 4);
  EXPECT_THAT(selection, ElementsAre(0, 1, 1, 1));
  EXPECT_EQ(kept.column(0)->ValueToString(1), "4");
}

TEST(FilterBatchTest, NoRowSurvivesGivesAnEmptyBatch) {
  Batch batch = MakeBatch({1, 2}, {"a", "b"});
  ExpressionPtr predicate = expr::And(expr::Compare(ComparisonOperator::kEqual, S(), Text("zzz")),
                                      expr::Compare(ComparisonOperator::kGreater, X(), Long(0)));
  EXPECT_THAT(Kept(predicate, batch), IsEmpty());
}

TEST(FilterBatchTest, LaterConjunctsRaiseErrorsOnlyWhereNoEarlierOneIsFalse) {
  // 10 / x fails for x = 0; the first conjunct is FALSE there, so no error (Spark's AND).
  OptionalInts x;
  OptionalStrings s;
  for (int i = 0; i < 64; ++i) {
    x.push_back(i % 16 == 0 ? 0 : i);
    s.push_back(i % 16 == 0 ? "skip" : (i % 8 == 1 ? "keep" : "other"));
  }
  Batch batch = MakeBatch(x, s);
  ExpressionPtr ratio = expr::Arithmetic(expr::ArithmeticOperator::kDivide, Long(10), X());
  ExpressionPtr positive =
      expr::Compare(ComparisonOperator::kGreater, ratio, expr::Literal(expr::Scalar::Double(0)));
  ExpressionPtr guarded =
      expr::And(expr::Compare(ComparisonOperator::kNotEqual, S(), Text("skip")), positive);
  EXPECT_EQ(ErrorClassOf(guarded, batch), "no error");
  EXPECT_EQ(Kept(guarded, batch).size(), 60u);
  // A NULL first conjunct does not decide AND, so the second one still runs and raises.
  Batch null_first = MakeBatch({0, 1}, {std::nullopt, "keep"});
  ExpressionPtr unguarded =
      expr::And(expr::Compare(ComparisonOperator::kEqual, S(), Text("keep")), positive);
  EXPECT_EQ(ErrorClassOf(unguarded, null_first), "DIVIDE_BY_ZERO");
  // Selective first conjunct (the compacting path): rows it rejects never raise.
  Batch mostly_zero = MakeBatch({0, 0, 0, 0, 0, 0, 0, 2}, {"x", "x", "x", "x", "x", "x", "x", "keep"});
  EXPECT_THAT(Kept(unguarded, mostly_zero), ElementsAre("2|keep"));
  Batch zero_kept = MakeBatch({0, 0, 0, 0, 0, 0, 0, 0}, {"x", "x", "x", "x", "x", "x", "x", "keep"});
  EXPECT_EQ(ErrorClassOf(unguarded, zero_kept), "DIVIDE_BY_ZERO");
}

TEST(FilterBatchTest, LiteralComparisonsMatchTheGeneralComparison) {
  // Lengths around the 8-to-16-byte word comparison, an empty string and NULLs.
  OptionalStrings values = {"",          "a",          "city_0017", "city_0018", "city_001",
                            "city_00170", "abcdefgh",  "abcdefghijklmnop", "abcdefghijklmnopq",
                            std::nullopt, "city_0017", "zzzz"};
  OptionalInts numbers;
  for (size_t i = 0; i < values.size(); ++i) {
    numbers.push_back(i % 5 == 4 ? std::nullopt : std::optional<int64_t>(static_cast<int64_t>(i) - 5));
  }
  Batch batch = MakeBatch(numbers, values);
  const ComparisonOperator ops[] = {ComparisonOperator::kEqual,       ComparisonOperator::kNotEqual,
                                    ComparisonOperator::kLess,        ComparisonOperator::kLessOrEqual,
                                    ComparisonOperator::kGreater,     ComparisonOperator::kGreaterOrEqual,
                                    ComparisonOperator::kNullSafeEqual};
  for (const std::string& constant : {std::string("city_0017"), std::string(""), std::string("abcdefghijklmnop"),
                                      std::string("b")}) {
    VectorPtr repeated = expr::Scalar::String(constant).ToVector(batch.num_rows());
    for (ComparisonOperator op : ops) {
      SCOPED_TRACE(constant + " op " + std::to_string(static_cast<int>(op)));
      EXPECT_EQ(LiteralCompare(expr::Compare(op, S(), Text(constant)), batch),
                GeneralCompare(op, *batch.column(1), *repeated));
      EXPECT_EQ(LiteralCompare(expr::Compare(op, Text(constant), S()), batch),
                GeneralCompare(op, *repeated, *batch.column(1)));
    }
  }
  for (int64_t constant : {-3, 0, 4}) {
    VectorPtr repeated = expr::Scalar::Long(constant).ToVector(batch.num_rows());
    for (ComparisonOperator op : ops) {
      SCOPED_TRACE(std::to_string(constant) + " op " + std::to_string(static_cast<int>(op)));
      EXPECT_EQ(LiteralCompare(expr::Compare(op, X(), Long(constant)), batch),
                GeneralCompare(op, *batch.column(0), *repeated));
      EXPECT_EQ(LiteralCompare(expr::Compare(op, Long(constant), X()), batch),
                GeneralCompare(op, *repeated, *batch.column(0)));
    }
  }
}

}  // namespace
}  // namespace silt::exec
