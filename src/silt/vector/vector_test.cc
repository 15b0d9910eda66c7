#include "silt/vector/vector.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "silt/base/check.h"
#include "silt/error.h"

namespace silt {
namespace {

VectorPtr Longs(const std::vector<std::optional<int64_t>>& values) {
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

VectorPtr Strings(const std::vector<std::optional<std::string>>& values,
                  DataTypePtr type = StringType()) {
  VectorBuilder builder(std::move(type));
  for (const auto& value : values) {
    if (value) {
      builder.AppendString(*value);
    } else {
      builder.AppendNull();
    }
  }
  return builder.Finish();
}

std::vector<std::string> AllText(const Vector& vector) {
  std::vector<std::string> out;
  for (int64_t i = 0; i < vector.length(); ++i) out.push_back(vector.ValueToString(i));
  return out;
}

TEST(BufferTest, AllocatesAlignedAndZeroed) {
  BufferPtr buffer = Buffer::Allocate(100, /*zero=*/true);
  EXPECT_EQ(buffer->size(), 100u);
  EXPECT_GE(buffer->capacity(), 100u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer->data()) % 64, 0u);
  for (size_t i = 0; i < buffer->size(); ++i) ASSERT_EQ(buffer->data()[i], 0) << i;
}

TEST(BufferTest, EmptyBufferHasData) {
  BufferPtr buffer = Buffer::Allocate(0);
  EXPECT_EQ(buffer->size(), 0u);
  EXPECT_NE(buffer->data(), nullptr);
}

TEST(BufferTest, AppendGrowsAndKeepsContent) {
  BufferPtr buffer = Buffer::Allocate(0);
  for (int32_t i = 0; i < 10000; ++i) buffer->Append(&i, sizeof(i));
  ASSERT_EQ(buffer->size(), 40000u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer->data()) % 64, 0u);
  for (int32_t i = 0; i < 10000; ++i) ASSERT_EQ(buffer->as<int32_t>()[i], i);
}

TEST(BufferTest, ResizeZeroesNewBytesAndReserveKeepsSize) {
  BufferPtr buffer = Buffer::Allocate(4, false, 4);
  std::memset(buffer->data(), 0xAB, 4);
  buffer->Resize(300, /*zero=*/true);
  EXPECT_EQ(buffer->size(), 300u);
  EXPECT_EQ(buffer->data()[3], 0xAB);
  for (size_t i = 4; i < 300; ++i) ASSERT_EQ(buffer->data()[i], 0) << i;
  buffer->Resize(2);
  EXPECT_EQ(buffer->size(), 2u);
  buffer->Reserve(5000);
  EXPECT_EQ(buffer->size(), 2u);
  EXPECT_GE(buffer->capacity(), 5000u);
  EXPECT_EQ(buffer->data()[1], 0xAB);
}

TEST(BufferTest, ReusesAFreedLargeBlockForTheNextOfAboutItsSize) {
  // Blocks of a few MiB (a decoded row group's column) are not mapped afresh each time.
  const size_t size = size_t{4} << 20;
  const uint8_t* first = nullptr;
  {
    std::shared_ptr<Buffer> buffer = Buffer::Allocate(size);
    first = buffer->data();
    buffer->data()[size - 1] = 7;
  }
  std::shared_ptr<Buffer> again = Buffer::Allocate(size - 1000, /*zero=*/true);
  EXPECT_EQ(again->data(), first);
  EXPECT_EQ(again->size(), size - 1000);
  EXPECT_GE(again->capacity(), size - 1000);
  // Zeroing still applies to a reused block.
  for (size_t i = 0; i < again->size(); i += 4096) ASSERT_EQ(again->data()[i], 0);
  // A much smaller request does not take the large block.
  std::shared_ptr<Buffer> small = Buffer::Allocate(size / 2);
  again.reset();
  std::shared_ptr<Buffer> other = Buffer::Allocate(size / 2);
  EXPECT_NE(other->data(), first);
}

TEST(VectorTest, MakeComputesNullCountFromBitmap) {
  BufferPtr validity = Buffer::Allocate(1, true);
  validity->data()[0] = 0b00101101;  // rows 0, 2, 3, 5 valid
  BufferPtr values = Buffer::Allocate(6 * 4, true);
  for (int32_t i = 0; i < 6; ++i) values->as<int32_t>()[i] = i * 10;
  VectorPtr vector = Vector::Make(IntegerType(), 6, {validity, values});
  EXPECT_EQ(vector->null_count(), 2);
  EXPECT_TRUE(vector->IsValid(0));
  EXPECT_TRUE(vector->IsNull(1));
  EXPECT_TRUE(vector->IsNull(4));
  EXPECT_EQ(vector->values<int32_t>()[5], 50);
  EXPECT_THAT(AllText(*vector), testing::ElementsAre("0", "NULL", "20", "30", "NULL", "50"));
}

TEST(VectorTest, MakeWithOffsetCountsOnlyItsRange) {
  BufferPtr validity = Buffer::Allocate(2, true);
  validity->data()[0] = 0b11110000;
  validity->data()[1] = 0b00000001;
  BufferPtr values = Buffer::Allocate(9 * 8, true);
  VectorPtr vector = Vector::Make(LongType(), 6, {validity, values}, {}, -1, 3);
  // Bits 3..8: 0, 1, 1, 1, 1, 1.
  EXPECT_EQ(vector->null_count(), 1);
  EXPECT_TRUE(vector->IsNull(0));
  EXPECT_TRUE(vector->IsValid(5));
}

TEST(VectorTest, MakeWithoutBitmapHasNoNulls) {
  BufferPtr values = Buffer::Allocate(3 * 8, true);
  VectorPtr vector = Vector::Make(DoubleType(), 3, {nullptr, values});
  EXPECT_EQ(vector->null_count(), 0);
  EXPECT_TRUE(vector->IsValid(2));
}

TEST(VectorTest, MakeRejectsBadLayouts) {
  BufferPtr small = Buffer::Allocate(8);
  EXPECT_THROW(Vector::Make(LongType(), 2, {nullptr, small}), Error);
  EXPECT_THROW(Vector::Make(LongType(), 1, {nullptr}), Error);
  EXPECT_THROW(Vector::Make(StringType(), 1, {nullptr, Buffer::Allocate(8, true)}), Error);
  VectorPtr child = Longs({1});
  EXPECT_THROW(
      Vector::Make(ListType(StringType()), 1, {nullptr, Buffer::Allocate(8, true)}, {child}),
      Error);
  try {
    Vector::Make(LongType(), 2, {nullptr, small});
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), "INTERNAL_ERROR");
  }
}

TEST(VectorTest, MakeAllNullForEveryType) {
  std::vector<DataTypePtr> types = {
      NullType(),
      BooleanType(),
      ByteType(),
      ShortType(),
      IntegerType(),
      LongType(),
      FloatType(),
      DoubleType(),
      DecimalType(10, 2),
      DateType(),
      TimestampType(),
      TimestampNtzType(),
      StringType(),
      BinaryType(),
      StructType({{"a", IntegerType(), true, {}}, {"b", StringType(), true, {}}}),
      ListType(IntegerType()),
      MapType(StringType(), LongType())};
  for (const DataTypePtr& type : types) {
    VectorPtr vector = Vector::MakeAllNull(type, 5);
    EXPECT_EQ(vector->length(), 5) << type->ToString();
    EXPECT_EQ(vector->null_count(), 5) << type->ToString();
    for (int64_t i = 0; i < 5; ++i) {
      EXPECT_TRUE(vector->IsNull(i));
      EXPECT_EQ(vector->ValueToString(i), "NULL");
    }
    EXPECT_TRUE(vector->Equals(*Vector::MakeAllNull(type, 5))) << type->ToString();
    VectorBuilder builder(type);
    for (int i = 0; i < 5; ++i) builder.AppendNull();
    EXPECT_TRUE(vector->Equals(*builder.Finish())) << type->ToString();
  }
}

TEST(VectorTest, SliceIsZeroCopyAndRecountsNulls) {
  VectorPtr vector = Longs({1, std::nullopt, 3, 4, std::nullopt, 6, 7, 8, 9, 10});
  VectorPtr slice = vector->Slice(3, 5);
  EXPECT_EQ(slice->length(), 5);
  EXPECT_EQ(slice->offset(), 3);
  EXPECT_EQ(slice->buffer(1).get(), vector->buffer(1).get());
  EXPECT_EQ(slice->null_count(), 1);
  EXPECT_THAT(AllText(*slice), testing::ElementsAre("4", "NULL", "6", "7", "8"));
  VectorPtr nested_slice = slice->Slice(2, 3);
  EXPECT_EQ(nested_slice->offset(), 5);
  EXPECT_EQ(nested_slice->null_count(), 0);
  EXPECT_TRUE(nested_slice->Equals(*Longs({6, 7, 8})));
  EXPECT_EQ(vector->Slice(10, 0)->length(), 0);
  EXPECT_THROW(vector->Slice(8, 3), Error);
  EXPECT_THROW(vector->Slice(-1, 1), Error);
}

TEST(VectorTest, SliceOfStringsAndBooleans) {
  VectorPtr strings = Strings({"a", "bb", std::nullopt, "dddd", ""});
  VectorPtr slice = strings->Slice(1, 4);
  EXPECT_EQ(slice->GetString(0), "bb");
  EXPECT_TRUE(slice->IsNull(1));
  EXPECT_EQ(slice->GetString(2), "dddd");
  EXPECT_EQ(slice->GetString(3), "");
  EXPECT_TRUE(slice->Equals(*Strings({"bb", std::nullopt, "dddd", ""})));

  VectorBuilder builder(BooleanType());
  for (int i = 0; i < 20; ++i) builder.AppendBool(i % 3 == 0);
  VectorPtr booleans = builder.Finish();
  VectorPtr bool_slice = booleans->Slice(9, 4);
  EXPECT_TRUE(bool_slice->GetBool(0));
  EXPECT_FALSE(bool_slice->GetBool(1));
  EXPECT_TRUE(bool_slice->GetBool(3));
}

std::shared_ptr<DictionaryCodes> Codes(VectorPtr dictionary, const std::vector<int32_t>& codes) {
  auto annotation = std::make_shared<DictionaryCodes>();
  annotation->dictionary = std::move(dictionary);
  annotation->codes = Buffer::Allocate(codes.size() * sizeof(int32_t));
  std::memcpy(annotation->codes->data(), codes.data(), codes.size() * sizeof(int32_t));
  return annotation;
}

TEST(VectorTest, DictionaryCodesSurviveSlicesOnly) {
  VectorPtr values = Strings({"x", "y", std::nullopt, "x"});
  EXPECT_EQ(values->dictionary_codes(), nullptr);
  VectorPtr coded = Vector::WithDictionaryCodes(values, Codes(Strings({"x", "y"}), {0, 1, 0, 0}));
  EXPECT_TRUE(coded->Equals(*values));  // the same values, shared buffers
  EXPECT_EQ(coded->buffer(2), values->buffer(2));
  ASSERT_NE(coded->dictionary_codes(), nullptr);
  VectorPtr slice = coded->Slice(1, 3);
  ASSERT_EQ(slice->dictionary_codes(), coded->dictionary_codes());
  // Codes are indexed like the values: at offset() + row.
  const int32_t* codes = slice->dictionary_codes()->codes->as<int32_t>() + slice->offset();
  EXPECT_EQ(slice->dictionary_codes()->dictionary->GetString(codes[0]), slice->GetString(0));
  EXPECT_EQ(slice->dictionary_codes()->dictionary->GetString(codes[2]), slice->GetString(2));
}

TEST(VectorTest, DictionaryCodesAreCheckedAgainstTheVector) {
  VectorPtr values = Strings({"x", "y"});
  EXPECT_THROW(Vector::WithDictionaryCodes(Longs({1, 2}), Codes(Longs({1, 2}), {0, 1})), Error);
  EXPECT_THROW(Vector::WithDictionaryCodes(values, Codes(Strings({"x", "y"}), {0})), Error);
  EXPECT_THROW(Vector::WithDictionaryCodes(values, Codes(Strings({"x", std::nullopt}), {0, 0})),
               Error);
  EXPECT_THROW(
      Vector::WithDictionaryCodes(values, Codes(Strings({"x", "y"}, BinaryType()), {0, 1})),
      Error);
}

TEST(VectorTest, SliceOfStructReadsChildrenAtOffset) {
  DataTypePtr type = StructType({{"a", LongType(), true, {}}, {"b", StringType(), true, {}}});
  VectorBuilder builder(type);
  for (int i = 0; i < 6; ++i) {
    if (i == 2) {
      builder.AppendNull();
      continue;
    }
    builder.child(0).AppendInt(i);
    builder.child(1).AppendString(std::string(1, static_cast<char>('a' + i)));
    builder.AppendStruct();
  }
  VectorPtr vector = builder.Finish();
  VectorPtr slice = vector->Slice(1, 4);
  EXPECT_EQ(slice->null_count(), 1);
  EXPECT_THAT(AllText(*slice), testing::ElementsAre("{1, b}", "NULL", "{3, d}", "{4, e}"));
  VectorPtr field = slice->StructField(1);
  EXPECT_EQ(field->length(), 4);
  EXPECT_EQ(field->GetString(2), "d");
  EXPECT_TRUE(slice->RowEquals(2, *vector, 3));
  EXPECT_FALSE(slice->RowEquals(2, *vector, 4));
}

TEST(VectorTest, SliceOfListKeepsAbsoluteChildOffsets) {
  VectorBuilder builder(ListType(IntegerType()));
  builder.child(0).AppendInt(1);
  builder.FinishList();
  builder.AppendNull();
  builder.child(0).AppendInt(2);
  builder.child(0).AppendNull();
  builder.child(0).AppendInt(3);
  builder.FinishList();
  builder.FinishList();  // empty list
  VectorPtr vector = builder.Finish();
  EXPECT_THAT(AllText(*vector), testing::ElementsAre("[1]", "NULL", "[2, NULL, 3]", "[]"));
  VectorPtr slice = vector->Slice(2, 2);
  EXPECT_EQ(slice->ListStart(0), 1);
  EXPECT_EQ(slice->ListLength(0), 3);
  EXPECT_EQ(slice->ListLength(1), 0);
  EXPECT_THAT(AllText(*slice), testing::ElementsAre("[2, NULL, 3]", "[]"));
}

TEST(VectorTest, EqualsNegativeCases) {
  VectorPtr base = Longs({1, 2, std::nullopt});
  EXPECT_TRUE(base->Equals(*Longs({1, 2, std::nullopt})));
  EXPECT_FALSE(base->Equals(*Longs({1, 2, 3})));                        // null vs value
  EXPECT_FALSE(base->Equals(*Longs({1, 3, std::nullopt})));             // value differs
  EXPECT_FALSE(base->Equals(*Longs({1, 2})));                           // length differs
  EXPECT_FALSE(Strings({"a"})->Equals(*Strings({"a"}, BinaryType())));  // type differs
  EXPECT_FALSE(Strings({"a", "b"})->Equals(*Strings({"a", "c"})));
  EXPECT_FALSE(Strings({"ab", ""})->Equals(*Strings({"a", "b"})));

  VectorBuilder list_a(ListType(LongType()));
  list_a.child(0).AppendInt(1);
  list_a.child(0).AppendInt(2);
  list_a.FinishList();
  VectorBuilder list_b(ListType(LongType()));
  list_b.child(0).AppendInt(1);
  list_b.FinishList();
  EXPECT_FALSE(list_a.Finish()->Equals(*list_b.Finish()));

  VectorBuilder d1(DecimalType(10, 2));
  d1.AppendDecimal(100);
  VectorBuilder d2(DecimalType(10, 3));
  d2.AppendDecimal(100);
  EXPECT_FALSE(d1.Finish()->Equals(*d2.Finish()));
}

TEST(VectorTest, EqualsTreatsNanAsEqualAndComparesSlices) {
  VectorBuilder a(DoubleType());
  a.AppendDouble(std::nan(""));
  a.AppendDouble(1.5);
  VectorBuilder b(DoubleType());
  b.AppendDouble(std::nan(""));
  b.AppendDouble(1.5);
  EXPECT_TRUE(a.Finish()->Equals(*b.Finish()));
  VectorPtr vector = Longs({5, 6, 7, 5, 6});
  EXPECT_TRUE(vector->Slice(0, 2)->Equals(*vector->Slice(3, 2)));
}

TEST(VectorTest, ValueToStringPrimitives) {
  VectorBuilder booleans(BooleanType());
  booleans.AppendBool(true);
  booleans.AppendBool(false);
  EXPECT_THAT(AllText(*booleans.Finish()), testing::ElementsAre("true", "false"));

  VectorBuilder bytes(ByteType());
  bytes.AppendInt(-128);
  bytes.AppendInt(127);
  EXPECT_THAT(AllText(*bytes.Finish()), testing::ElementsAre("-128", "127"));

  VectorBuilder shorts(ShortType());
  shorts.AppendInt(-32768);
  EXPECT_EQ(shorts.Finish()->ValueToString(0), "-32768");

  VectorBuilder ints(IntegerType());
  ints.AppendInt(std::numeric_limits<int32_t>::min());
  EXPECT_EQ(ints.Finish()->ValueToString(0), "-2147483648");

  EXPECT_THAT(AllText(*Longs({std::numeric_limits<int64_t>::max()})),
              testing::ElementsAre("9223372036854775807"));

  VectorBuilder doubles(DoubleType());
  for (double value :
       {1.0, 0.001, 1.0E-4, 1.2345678E7, 123.456, -0.0, 1e300,
        std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
        -std::numeric_limits<double>::infinity(), 0.1 + 0.2, 9999999.0}) {
    doubles.AppendDouble(value);
  }
  EXPECT_THAT(
      AllText(*doubles.Finish()),
      testing::ElementsAre("1.0", "0.001", "1.0E-4", "1.2345678E7", "123.456", "-0.0", "1.0E300",
                           "NaN", "Infinity", "-Infinity", "0.30000000000000004", "9999999.0"));

  VectorBuilder floats(FloatType());
  for (float value : {1.0f, 0.1f, 3.4028235e38f, 1.0e-5f, 100.25f}) floats.AppendFloat(value);
  EXPECT_THAT(AllText(*floats.Finish()),
              testing::ElementsAre("1.0", "0.1", "3.4028235E38", "1.0E-5", "100.25"));

  VectorBuilder decimals(DecimalType(38, 2));
  decimals.AppendDecimal(150);
  decimals.AppendDecimal(-5);
  decimals.AppendDecimal(0);
  Decimal128 big = 1;
  for (int i = 0; i < 37; ++i) big *= 10;
  decimals.AppendDecimal(-big);
  EXPECT_THAT(
      AllText(*decimals.Finish()),
      testing::ElementsAre("1.50", "-0.05", "0.00", "-100000000000000000000000000000000000.00"));
  VectorBuilder whole(DecimalType(5, 0));
  whole.AppendDecimal(-42);
  EXPECT_EQ(whole.Finish()->ValueToString(0), "-42");

  VectorBuilder dates(DateType());
  dates.AppendInt(0);
  dates.AppendInt(19753);    // 2024-01-31
  dates.AppendInt(-1);       // 1969-12-31
  dates.AppendInt(-719162);  // 0001-01-01
  EXPECT_THAT(AllText(*dates.Finish()),
              testing::ElementsAre("1970-01-01", "2024-01-31", "1969-12-31", "0001-01-01"));

  for (DataTypePtr type : {TimestampType(), TimestampNtzType()}) {
    VectorBuilder timestamps(type);
    timestamps.AppendInt(0);
    timestamps.AppendInt(1706702400000000);  // 2024-01-31 12:00:00
    timestamps.AppendInt(1706702400500000);
    timestamps.AppendInt(1706702400000001);
    timestamps.AppendInt(-1);
    EXPECT_THAT(
        AllText(*timestamps.Finish()),
        testing::ElementsAre("1970-01-01 00:00:00", "2024-01-31 12:00:00", "2024-01-31 12:00:00.5",
                             "2024-01-31 12:00:00.000001", "1969-12-31 23:59:59.999999"));
  }

  EXPECT_THAT(AllText(*Strings({"héllo", ""})), testing::ElementsAre("héllo", ""));
  EXPECT_THAT(AllText(*Strings({std::string("\x01\xff", 2), ""}, BinaryType())),
              testing::ElementsAre("[01 FF]", "[]"));
  EXPECT_EQ(Vector::MakeAllNull(NullType(), 1)->ValueToString(0), "NULL");
}

TEST(VectorTest, ValueToStringNested) {
  DataTypePtr type = StructType({{"id", IntegerType(), true, {}},
                                 {"tags", ListType(StringType()), true, {}},
                                 {"attributes", MapType(StringType(), IntegerType()), true, {}}});
  VectorBuilder builder(type);
  builder.child(0).AppendInt(1);
  builder.child(1).child(0).AppendString("x");
  builder.child(1).child(0).AppendNull();
  builder.child(1).FinishList();
  VectorBuilder& entries = builder.child(2).child(0);
  entries.child(0).AppendString("a");
  entries.child(1).AppendInt(1);
  entries.AppendStruct();
  entries.child(0).AppendString("b");
  entries.child(1).AppendNull();
  entries.AppendStruct();
  builder.child(2).FinishList();
  builder.AppendStruct();

  builder.child(0).AppendNull();
  builder.child(1).AppendNull();
  builder.child(2).FinishList();
  builder.AppendStruct();
  VectorPtr vector = builder.Finish();
  EXPECT_THAT(AllText(*vector),
              testing::ElementsAre("{1, [x, NULL], {a -> 1, b -> NULL}}", "{NULL, NULL, {}}"));
}

}  // namespace
}  // namespace silt
