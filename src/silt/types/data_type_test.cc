#include "silt/types/data_type.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "silt/base/check.h"

namespace silt {
namespace {

TEST(DataTypeTest, PrimitivesAreSingletons) {
  EXPECT_EQ(LongType().get(), LongType().get());
  EXPECT_EQ(StringType().get(), StringType().get());
  EXPECT_EQ(LongType()->id(), TypeId::kLong);
  EXPECT_FALSE(LongType()->is_nested());
}

TEST(DataTypeTest, ToStringUsesSparkSimpleStrings) {
  EXPECT_EQ(BooleanType()->ToString(), "boolean");
  EXPECT_EQ(ByteType()->ToString(), "tinyint");
  EXPECT_EQ(ShortType()->ToString(), "smallint");
  EXPECT_EQ(IntegerType()->ToString(), "int");
  EXPECT_EQ(LongType()->ToString(), "bigint");
  EXPECT_EQ(FloatType()->ToString(), "float");
  EXPECT_EQ(DoubleType()->ToString(), "double");
  EXPECT_EQ(DecimalType(18, 2)->ToString(), "decimal(18,2)");
  EXPECT_EQ(DateType()->ToString(), "date");
  EXPECT_EQ(TimestampType()->ToString(), "timestamp");
  EXPECT_EQ(TimestampNtzType()->ToString(), "timestamp_ntz");
  EXPECT_EQ(StringType()->ToString(), "string");
  EXPECT_EQ(BinaryType()->ToString(), "binary");
  EXPECT_EQ(NullType()->ToString(), "void");
  EXPECT_EQ(StructType({{"a", IntegerType(), true, {}}, {"b", StringType(), true, {}}})->ToString(),
            "struct<a:int,b:string>");
  EXPECT_EQ(ListType(IntegerType())->ToString(), "array<int>");
  EXPECT_EQ(MapType(StringType(), IntegerType())->ToString(), "map<string,int>");
  EXPECT_EQ(MapType(StringType(), ListType(StructType({{"x", LongType(), true, {}}})))->ToString(),
            "map<string,array<struct<x:bigint>>>");
  EXPECT_EQ(StructType({})->ToString(), "struct<>");
}

TEST(DataTypeTest, DeltaNames) {
  EXPECT_EQ(BooleanType()->DeltaName(), "boolean");
  EXPECT_EQ(ByteType()->DeltaName(), "byte");
  EXPECT_EQ(ShortType()->DeltaName(), "short");
  EXPECT_EQ(IntegerType()->DeltaName(), "integer");
  EXPECT_EQ(LongType()->DeltaName(), "long");
  EXPECT_EQ(FloatType()->DeltaName(), "float");
  EXPECT_EQ(DoubleType()->DeltaName(), "double");
  EXPECT_EQ(DecimalType(38, 0)->DeltaName(), "decimal(38,0)");
  EXPECT_EQ(DateType()->DeltaName(), "date");
  EXPECT_EQ(TimestampType()->DeltaName(), "timestamp");
  EXPECT_EQ(TimestampNtzType()->DeltaName(), "timestamp_ntz");
  EXPECT_EQ(StringType()->DeltaName(), "string");
  EXPECT_EQ(BinaryType()->DeltaName(), "binary");
  EXPECT_EQ(NullType()->DeltaName(), "void");
  EXPECT_EQ(StructType({})->DeltaName(), "struct");
  EXPECT_EQ(ListType(LongType())->DeltaName(), "array");
  EXPECT_EQ(MapType(LongType(), LongType())->DeltaName(), "map");
}

TEST(DataTypeTest, FixedWidth) {
  EXPECT_EQ(BooleanType()->FixedWidth(), 0);
  EXPECT_EQ(ByteType()->FixedWidth(), 1);
  EXPECT_EQ(ShortType()->FixedWidth(), 2);
  EXPECT_EQ(IntegerType()->FixedWidth(), 4);
  EXPECT_EQ(DateType()->FixedWidth(), 4);
  EXPECT_EQ(FloatType()->FixedWidth(), 4);
  EXPECT_EQ(LongType()->FixedWidth(), 8);
  EXPECT_EQ(DoubleType()->FixedWidth(), 8);
  EXPECT_EQ(TimestampType()->FixedWidth(), 8);
  EXPECT_EQ(TimestampNtzType()->FixedWidth(), 8);
  EXPECT_EQ(DecimalType(5, 1)->FixedWidth(), 16);
  EXPECT_EQ(StringType()->FixedWidth(), 0);
  EXPECT_EQ(ListType(LongType())->FixedWidth(), 0);
  EXPECT_EQ(NullType()->FixedWidth(), 0);
}

TEST(DataTypeTest, DecimalValidation) {
  EXPECT_EQ(DecimalType(1, 0)->precision(), 1);
  EXPECT_EQ(DecimalType(38, 38)->scale(), 38);
  for (auto [precision, scale] : {std::pair{0, 0}, {39, 0}, {10, 11}, {10, -1}, {-1, 0}}) {
    try {
      DecimalType(precision, scale);
      FAIL() << precision << "," << scale;
    } catch (const Error& error) {
      EXPECT_EQ(error.error_class(), "INVALID_DECIMAL_TYPE");
      EXPECT_THAT(error.message(), testing::HasSubstr("decimal(" + std::to_string(precision) + "," +
                                                      std::to_string(scale) + ")"));
    }
  }
}

TEST(DataTypeTest, EqualsIsDeepAndIgnoresMetadata) {
  EXPECT_TRUE(DecimalType(10, 2)->Equals(*DecimalType(10, 2)));
  EXPECT_FALSE(DecimalType(10, 2)->Equals(*DecimalType(10, 3)));
  EXPECT_FALSE(DecimalType(10, 2)->Equals(*DecimalType(11, 2)));
  EXPECT_FALSE(LongType()->Equals(*IntegerType()));
  EXPECT_FALSE(TimestampType()->Equals(*TimestampNtzType()));
  EXPECT_TRUE(*ListType(LongType()) == *ListType(LongType()));
  EXPECT_FALSE(*ListType(LongType()) == *ListType(LongType(), false));
  EXPECT_FALSE(*ListType(LongType()) == *ListType(IntegerType()));
  EXPECT_FALSE(*MapType(StringType(), LongType()) == *MapType(StringType(), LongType(), false));
  EXPECT_FALSE(*MapType(StringType(), LongType()) == *MapType(LongType(), LongType()));
  Field with_comment{"a", LongType(), true, {{"comment", "\"x\""}}};
  Field plain{"a", LongType(), true, {}};
  EXPECT_TRUE(*StructType({with_comment}) == *StructType({plain}));
  EXPECT_FALSE(with_comment == plain);
  EXPECT_FALSE(*StructType({plain}) == *StructType({{"b", LongType(), true, {}}}));
  EXPECT_FALSE(*StructType({plain}) == *StructType({{"a", LongType(), false, {}}}));
  EXPECT_FALSE(*StructType({plain}) == *StructType({plain, plain}));
  EXPECT_FALSE(*StructType({plain}) == *ListType(LongType()));
}

TEST(DataTypeTest, NestedAccessors) {
  DataTypePtr list = ListType(StringType(), false);
  EXPECT_TRUE(list->is_nested());
  EXPECT_EQ(list->element_type()->id(), TypeId::kString);
  EXPECT_FALSE(list->contains_null());
  DataTypePtr map = MapType(StringType(), DoubleType(), false);
  EXPECT_EQ(map->key_type()->id(), TypeId::kString);
  EXPECT_EQ(map->value_type()->id(), TypeId::kDouble);
  EXPECT_FALSE(map->value_contains_null());
  EXPECT_EQ(map->fields()[0].name, "key");
  EXPECT_EQ(map->fields()[1].name, "value");
  DataTypePtr type = StructType({{"a", LongType(), true, {}}, {"B", LongType(), true, {}}});
  EXPECT_EQ(type->FieldIndex("B"), 1);
  EXPECT_EQ(type->FieldIndex("b"), -1);
  EXPECT_EQ(LongType()->FieldIndex("a"), -1);
}

TEST(FieldTest, FindMetadata) {
  Field field{"id", LongType(), true, {{"delta.columnMapping.id", "3"}, {"comment", "\"the id\""}}};
  ASSERT_NE(field.FindMetadata("comment"), nullptr);
  EXPECT_EQ(*field.FindMetadata("comment"), "\"the id\"");
  EXPECT_EQ(*field.FindMetadata("delta.columnMapping.id"), "3");
  EXPECT_EQ(field.FindMetadata("missing"), nullptr);
}

TEST(SchemaTest, FieldIndexCaseSensitivity) {
  Schema schema({{"Id", LongType(), true, {}}, {"name", StringType(), true, {}}});
  EXPECT_EQ(schema.FieldIndex("Id"), 0);
  EXPECT_EQ(schema.FieldIndex("id"), -1);
  EXPECT_EQ(schema.FieldIndex("id", /*case_sensitive=*/false), 0);
  EXPECT_EQ(schema.FieldIndex("NAME", false), 1);
  EXPECT_EQ(schema.FieldIndex("nam", false), -1);
  EXPECT_EQ(schema.num_fields(), 2u);
  EXPECT_EQ(schema.field(1).name, "name");
}

TEST(SchemaTest, DuplicateNamesIgnoringCase) {
  EXPECT_NO_THROW(
      Schema({{"a", LongType(), true, {}}, {"b", LongType(), true, {}}}).CheckNoDuplicateNames());
  try {
    Schema(
        {{"Id", LongType(), true, {}}, {"x", LongType(), true, {}}, {"ID", LongType(), true, {}}})
        .CheckNoDuplicateNames();
    FAIL() << "expected DELTA_DUPLICATE_COLUMNS_FOUND";
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), "DELTA_DUPLICATE_COLUMNS_FOUND");
    EXPECT_EQ(error.message(), "Found duplicate column(s) in the data schema: id.");
  }
  DataTypePtr inner = StructType({{"k", LongType(), true, {}}, {"K", LongType(), true, {}}});
  try {
    Schema({{"s", ListType(inner), true, {}}}).CheckNoDuplicateNames();
    FAIL() << "expected DELTA_DUPLICATE_COLUMNS_FOUND";
  } catch (const Error& error) {
    EXPECT_EQ(error.message(), "Found duplicate column(s) in s.element: s.element.k.");
  }
  EXPECT_THROW(Schema({{"m", MapType(StringType(), inner), true, {}}}).CheckNoDuplicateNames(),
               Error);
  // The same name at different levels is fine.
  EXPECT_NO_THROW(
      Schema({{"a", StructType({{"a", LongType(), true, {}}}), true, {}}}).CheckNoDuplicateNames());
}

TEST(SchemaTest, AsStructAndEquals) {
  Schema schema({{"a", IntegerType(), true, {}}, {"b", StringType(), false, {}}});
  EXPECT_EQ(schema.AsStruct()->ToString(), "struct<a:int,b:string>");
  EXPECT_TRUE(schema == Schema({{"a", IntegerType(), true, {}}, {"b", StringType(), false, {}}}));
  EXPECT_FALSE(schema == Schema({{"a", IntegerType(), true, {}}, {"b", StringType(), true, {}}}));
  EXPECT_FALSE(schema == Schema({{"a", IntegerType(), true, {}}}));
  EXPECT_TRUE(Schema() == Schema());
}

}  // namespace
}  // namespace silt
