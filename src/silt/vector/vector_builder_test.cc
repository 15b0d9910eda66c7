#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "silt/base/check.h"
#include "silt/vector/vector.h"

namespace silt {
namespace {

std::vector<std::string> AllText(const Vector& vector) {
  std::vector<std::string> out;
  for (int64_t i = 0; i < vector.length(); ++i) out.push_back(vector.ValueToString(i));
  return out;
}

TEST(VectorBuilderTest, FixedWidthTypesStoreAtTheirWidth) {
  VectorBuilder bytes(ByteType());
  bytes.AppendInt(-1);
  bytes.AppendNull();
  bytes.AppendInt(7);
  VectorPtr byte_vector = bytes.Finish();
  EXPECT_EQ(byte_vector->buffer(1)->size(), 3u);
  EXPECT_EQ(byte_vector->values<int8_t>()[2], 7);
  EXPECT_EQ(byte_vector->null_count(), 1);

  VectorBuilder shorts(ShortType());
  shorts.AppendInt(300);
  EXPECT_EQ(shorts.Finish()->values<int16_t>()[0], 300);

  VectorBuilder dates(DateType());
  dates.AppendInt(-5);
  VectorPtr date_vector = dates.Finish();
  EXPECT_EQ(date_vector->buffer(1)->size(), 4u);
  EXPECT_EQ(date_vector->values<int32_t>()[0], -5);

  VectorBuilder timestamps(TimestampNtzType());
  timestamps.AppendInt(1234567890123456);
  EXPECT_EQ(timestamps.Finish()->values<int64_t>()[0], 1234567890123456);

  VectorBuilder decimals(DecimalType(38, 0));
  Decimal128 value = static_cast<Decimal128>(1) << 100;
  decimals.AppendDecimal(-value);
  VectorPtr decimal_vector = decimals.Finish();
  EXPECT_EQ(decimal_vector->buffer(1)->size(), 16u);
  EXPECT_TRUE(decimal_vector->values<Decimal128>()[0] == -value);

  VectorBuilder floats(FloatType());
  floats.AppendFloat(2.5f);
  EXPECT_EQ(floats.Finish()->values<float>()[0], 2.5f);
}

TEST(VectorBuilderTest, NoBitmapWithoutNulls) {
  VectorBuilder builder(LongType());
  for (int i = 0; i < 100; ++i) builder.AppendInt(i);
  VectorPtr vector = builder.Finish();
  EXPECT_EQ(vector->buffer(0), nullptr);
  EXPECT_EQ(vector->null_count(), 0);
  EXPECT_EQ(vector->values<int64_t>()[99], 99);
}

TEST(VectorBuilderTest, BitmapAfterLateNull) {
  VectorBuilder builder(IntegerType());
  for (int i = 0; i < 70; ++i) builder.AppendInt(i);
  builder.AppendNull();
  builder.AppendInt(71);
  VectorPtr vector = builder.Finish();
  ASSERT_NE(vector->buffer(0), nullptr);
  EXPECT_EQ(vector->null_count(), 1);
  for (int i = 0; i < 70; ++i) ASSERT_TRUE(vector->IsValid(i)) << i;
  EXPECT_TRUE(vector->IsNull(70));
  EXPECT_TRUE(vector->IsValid(71));
}

TEST(VectorBuilderTest, FinishResetsTheBuilder) {
  VectorBuilder builder(StringType());
  builder.AppendString("first");
  builder.AppendNull();
  VectorPtr first = builder.Finish();
  EXPECT_EQ(builder.length(), 0);
  builder.AppendString("second");
  VectorPtr second = builder.Finish();
  EXPECT_THAT(AllText(*first), testing::ElementsAre("first", "NULL"));
  EXPECT_THAT(AllText(*second), testing::ElementsAre("second"));
  EXPECT_EQ(second->null_count(), 0);
  VectorPtr empty = builder.Finish();
  EXPECT_EQ(empty->length(), 0);
}

TEST(VectorBuilderTest, BulkValuesAndNulls) {
  VectorBuilder builder(IntegerType());
  int32_t first[] = {1, 2, 3};
  builder.AppendValues(first, 3);
  builder.AppendNulls(13);
  builder.AppendInt(4);
  builder.AppendNulls(2);
  int32_t second[] = {5, 6};
  builder.AppendValues(second, 2);
  VectorPtr vector = builder.Finish();
  ASSERT_EQ(vector->length(), 21);
  EXPECT_EQ(vector->null_count(), 15);
  VectorBuilder expected(IntegerType());
  for (int value : {1, 2, 3}) expected.AppendInt(value);
  for (int i = 0; i < 13; ++i) expected.AppendNull();
  expected.AppendInt(4);
  expected.AppendNull();
  expected.AppendNull();
  expected.AppendInt(5);
  expected.AppendInt(6);
  EXPECT_TRUE(vector->Equals(*expected.Finish()));
  EXPECT_EQ(vector->values<int32_t>()[20], 6);

  VectorBuilder strings(StringType());
  strings.AppendNulls(10);
  strings.AppendString("x");
  VectorPtr string_vector = strings.Finish();
  EXPECT_EQ(string_vector->null_count(), 10);
  EXPECT_EQ(string_vector->GetString(10), "x");

  VectorBuilder booleans(BooleanType());
  bool flags[] = {true};
  EXPECT_THROW(booleans.AppendValues(flags, 1), Error);
}

TEST(VectorBuilderTest, TypeMismatchIsAnError) {
  VectorBuilder builder(LongType());
  try {
    builder.AppendString("x");
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), "VECTOR_TYPE_MISMATCH");
    EXPECT_THAT(error.message(), testing::HasSubstr("bigint"));
  }
  EXPECT_THROW(builder.AppendDouble(1.0), Error);
  EXPECT_THROW(builder.AppendBool(true), Error);
  EXPECT_THROW(builder.AppendStruct(), Error);
  EXPECT_THROW(builder.FinishList(), Error);
  VectorBuilder strings(StringType());
  EXPECT_THROW(strings.AppendInt(1), Error);
  VectorBuilder nulls(NullType());
  EXPECT_THROW(nulls.AppendInt(1), Error);
  VectorBuilder bytes(ByteType());
  EXPECT_THROW(bytes.AppendInt(128), Error);
  EXPECT_EQ(builder.length(), 0);
}

TEST(VectorBuilderTest, StructNeedsEveryChildValue) {
  VectorBuilder builder(StructType({{"a", LongType(), true, {}}, {"b", LongType(), true, {}}}));
  builder.child(0).AppendInt(1);
  EXPECT_THROW(builder.AppendStruct(), Error);
}

TEST(VectorBuilderTest, VoidVector) {
  VectorBuilder builder(NullType());
  builder.AppendNull();
  builder.AppendNull();
  VectorPtr vector = builder.Finish();
  EXPECT_EQ(vector->length(), 2);
  EXPECT_EQ(vector->null_count(), 2);
  EXPECT_TRUE(vector->buffers().empty());
  VectorBuilder copy(NullType());
  copy.AppendRange(*vector, 0, 2);
  EXPECT_TRUE(copy.Finish()->Equals(*vector));
}

TEST(VectorBuilderTest, ListOfStruct) {
  DataTypePtr point =
      StructType({{"x", IntegerType(), false, {}}, {"label", StringType(), true, {}}});
  VectorBuilder builder(ListType(point));
  VectorBuilder& points = builder.child(0);
  for (int row = 0; row < 3; ++row) {
    if (row == 1) {
      builder.AppendNull();
      continue;
    }
    for (int k = 0; k <= row; ++k) {
      points.child(0).AppendInt(row * 10 + k);
      points.child(1).AppendString("p" + std::to_string(k));
      points.AppendStruct();
    }
    points.AppendNull();
    builder.FinishList();
  }
  VectorPtr vector = builder.Finish();
  EXPECT_THAT(AllText(*vector), testing::ElementsAre("[{0, p0}, NULL]", "NULL",
                                                     "[{20, p0}, {21, p1}, {22, p2}, NULL]"));
  EXPECT_EQ(vector->child(0)->length(), 6);
  EXPECT_EQ(vector->child(0)->null_count(), 2);
}

TEST(VectorBuilderTest, MapOfStringToList) {
  VectorBuilder builder(MapType(StringType(), ListType(LongType())));
  VectorBuilder& entries = builder.child(0);
  entries.child(0).AppendString("a");
  entries.child(1).child(0).AppendInt(1);
  entries.child(1).child(0).AppendInt(2);
  entries.child(1).FinishList();
  entries.AppendStruct();
  entries.child(0).AppendString("b");
  entries.child(1).AppendNull();
  entries.AppendStruct();
  builder.FinishList();
  builder.FinishList();
  builder.AppendNull();
  VectorPtr vector = builder.Finish();
  EXPECT_THAT(AllText(*vector), testing::ElementsAre("{a -> [1, 2], b -> NULL}", "{}", "NULL"));
  EXPECT_EQ(vector->ListLength(0), 2);
  EXPECT_EQ(vector->child(0)->type()->ToString(), "struct<key:string,value:array<bigint>>");
}

TEST(VectorBuilderTest, StructOfMap) {
  DataTypePtr type = StructType({{"name", StringType(), true, {}},
                                 {"scores", MapType(StringType(), DoubleType(), false), true, {}}});
  VectorBuilder builder(type);
  builder.child(0).AppendString("ann");
  VectorBuilder& entries = builder.child(1).child(0);
  entries.child(0).AppendString("math");
  entries.child(1).AppendDouble(9.5);
  entries.AppendStruct();
  builder.child(1).FinishList();
  builder.AppendStruct();
  builder.AppendNull();
  builder.child(0).AppendString("bob");
  builder.child(1).AppendNull();
  builder.AppendStruct();
  VectorPtr vector = builder.Finish();
  EXPECT_THAT(AllText(*vector),
              testing::ElementsAre("{ann, {math -> 9.5}}", "NULL", "{bob, NULL}"));
  EXPECT_EQ(vector->child(0)->length(), 3);
  EXPECT_EQ(vector->child(1)->length(), 3);
}

VectorPtr NestedSample() {
  // array<struct<k:string, v:map<string, array<int>>>>
  DataTypePtr inner = StructType({{"k", StringType(), true, {}},
                                  {"v", MapType(StringType(), ListType(IntegerType())), true, {}}});
  VectorBuilder builder(ListType(inner));
  for (int row = 0; row < 6; ++row) {
    if (row % 4 == 3) {
      builder.AppendNull();
      continue;
    }
    VectorBuilder& element = builder.child(0);
    for (int e = 0; e < row % 3; ++e) {
      element.child(0).AppendString("k" + std::to_string(row) + std::to_string(e));
      VectorBuilder& entries = element.child(1).child(0);
      entries.child(0).AppendString("m");
      for (int v = 0; v < e + 1; ++v) entries.child(1).child(0).AppendInt(row * 100 + v);
      entries.child(1).FinishList();
      entries.AppendStruct();
      element.child(1).FinishList();
      element.AppendStruct();
    }
    builder.FinishList();
  }
  return builder.Finish();
}

TEST(VectorBuilderTest, AppendFromCopiesNestedRowsDeeply) {
  VectorPtr source = NestedSample();
  VectorBuilder builder(source->type());
  for (int64_t i = source->length(); i-- > 0;) builder.AppendFrom(*source, i);
  VectorPtr reversed = builder.Finish();
  ASSERT_EQ(reversed->length(), source->length());
  for (int64_t i = 0; i < source->length(); ++i) {
    EXPECT_TRUE(reversed->RowEquals(i, *source, source->length() - 1 - i)) << i;
    EXPECT_EQ(reversed->ValueToString(i), source->ValueToString(source->length() - 1 - i));
  }
  EXPECT_EQ(source->ValueToString(2), "[{k20, {m -> [200]}}, {k21, {m -> [200, 201]}}]");
}

TEST(VectorBuilderTest, AppendRangeMatchesSlices) {
  VectorPtr source = NestedSample();
  for (int64_t start = 0; start < source->length(); ++start) {
    for (int64_t count = 0; start + count <= source->length(); ++count) {
      VectorBuilder builder(source->type());
      builder.AppendRange(*source, start, count);
      VectorPtr copy = builder.Finish();
      EXPECT_TRUE(copy->Equals(*source->Slice(start, count))) << start << "+" << count;
    }
  }
}

TEST(VectorBuilderTest, AppendRangeFromSlicedSourcesOfEveryPrimitive) {
  std::vector<DataTypePtr> types = {
      BooleanType(), ByteType(),         ShortType(), IntegerType(),   LongType(),   FloatType(),
      DoubleType(),  DecimalType(20, 3), DateType(),  TimestampType(), StringType(), BinaryType()};
  for (const DataTypePtr& type : types) {
    VectorBuilder builder(type);
    for (int i = 0; i < 40; ++i) {
      if (i % 7 == 3) {
        builder.AppendNull();
        continue;
      }
      switch (type->id()) {
        case TypeId::kBoolean:
          builder.AppendBool(i % 2 == 0);
          break;
        case TypeId::kFloat:
          builder.AppendFloat(static_cast<float>(i) / 4);
          break;
        case TypeId::kDouble:
          builder.AppendDouble(i * 1.25);
          break;
        case TypeId::kDecimal:
          builder.AppendDecimal(i * 1001);
          break;
        case TypeId::kString:
        case TypeId::kBinary:
          builder.AppendString(std::string(static_cast<size_t>(i % 5), 'x'));
          break;
        default:
          builder.AppendInt(i - 20);
          break;
      }
    }
    VectorPtr source = builder.Finish()->Slice(5, 30);
    VectorBuilder copy(type);
    copy.AppendRange(*source, 3, 20);
    copy.AppendFrom(*source, 29);
    VectorPtr copied = copy.Finish();
    ASSERT_EQ(copied->length(), 21) << type->ToString();
    for (int64_t i = 0; i < 20; ++i) {
      EXPECT_TRUE(copied->RowEquals(i, *source, i + 3)) << type->ToString() << " row " << i;
      EXPECT_EQ(copied->ValueToString(i), source->ValueToString(i + 3));
    }
    EXPECT_TRUE(copied->RowEquals(20, *source, 29)) << type->ToString();
    EXPECT_TRUE(copied->Slice(0, 20)->Equals(*source->Slice(3, 20))) << type->ToString();
  }
}

TEST(VectorBuilderTest, AppendFromRejectsOtherTypes) {
  VectorBuilder longs(LongType());
  longs.AppendInt(1);
  VectorPtr source = longs.Finish();
  VectorBuilder ints(IntegerType());
  EXPECT_THROW(ints.AppendFrom(*source, 0), Error);
  VectorBuilder other(LongType());
  EXPECT_THROW(other.AppendRange(*source, 0, 2), Error);
}

TEST(VectorBuilderTest, AppendFromStructSliceUsesTheStructOffset) {
  DataTypePtr type = StructType({{"a", IntegerType(), true, {}}});
  VectorBuilder builder(type);
  for (int i = 0; i < 5; ++i) {
    builder.child(0).AppendInt(i);
    builder.AppendStruct();
  }
  VectorPtr slice = builder.Finish()->Slice(2, 3);
  VectorBuilder copy(type);
  copy.AppendFrom(*slice, 1);
  EXPECT_EQ(copy.Finish()->ValueToString(0), "{3}");
}

}  // namespace
}  // namespace silt
