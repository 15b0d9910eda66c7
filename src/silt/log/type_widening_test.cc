#include "silt/log/type_widening.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "silt/error.h"
#include "silt/io/file_system.h"
#include "silt/log/log_segment.h"
#include "silt/log/snapshot.h"
#include "silt/types/schema_json.h"

namespace silt::log {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

TEST(TypeWideningTest, SupportedChangesAreDeltasList) {
  EXPECT_TRUE(IsTypeChangeSupported(*ByteType(), *ShortType()));
  EXPECT_TRUE(IsTypeChangeSupported(*ShortType(), *LongType()));
  EXPECT_TRUE(IsTypeChangeSupported(*IntegerType(), *LongType()));
  EXPECT_TRUE(IsTypeChangeSupported(*FloatType(), *DoubleType()));
  EXPECT_TRUE(IsTypeChangeSupported(*IntegerType(), *DoubleType()));
  EXPECT_TRUE(IsTypeChangeSupported(*DateType(), *TimestampNtzType()));
  EXPECT_TRUE(IsTypeChangeSupported(*DecimalType(5, 2), *DecimalType(10, 4)));
  EXPECT_TRUE(IsTypeChangeSupported(*DecimalType(5, 2), *DecimalType(6, 2)));
  EXPECT_TRUE(IsTypeChangeSupported(*ByteType(), *DecimalType(10, 0)));
  EXPECT_TRUE(IsTypeChangeSupported(*IntegerType(), *DecimalType(12, 2)));
  EXPECT_TRUE(IsTypeChangeSupported(*LongType(), *DecimalType(20, 0)));

  EXPECT_FALSE(IsTypeChangeSupported(*LongType(), *IntegerType()));
  EXPECT_FALSE(IsTypeChangeSupported(*LongType(), *DoubleType()));
  EXPECT_FALSE(IsTypeChangeSupported(*DoubleType(), *FloatType()));
  EXPECT_FALSE(IsTypeChangeSupported(*IntegerType(), *StringType()));
  EXPECT_FALSE(IsTypeChangeSupported(*DateType(), *TimestampType()));
  EXPECT_FALSE(IsTypeChangeSupported(*TimestampType(), *TimestampNtzType()));
  EXPECT_TRUE(IsTypeChangeSupported(*DecimalType(5, 2), *DecimalType(6, 3)));
  EXPECT_FALSE(IsTypeChangeSupported(*DecimalType(5, 2), *DecimalType(6, 4)));
  EXPECT_FALSE(IsTypeChangeSupported(*DecimalType(10, 4), *DecimalType(10, 2)));
  EXPECT_FALSE(IsTypeChangeSupported(*IntegerType(), *DecimalType(11, 2)));
  EXPECT_FALSE(IsTypeChangeSupported(*LongType(), *DecimalType(19, 0)));
  EXPECT_FALSE(IsTypeChangeSupported(*FloatType(), *DecimalType(38, 10)));
  EXPECT_FALSE(IsTypeChangeSupported(*ListType(IntegerType()), *ListType(LongType())));
}

TEST(TypeWideningTest, ChangesAppendToTheFieldHistory) {
  Field field{"e", LongType(), true, {{"comment", "\"c\""}}};
  RecordTypeChange(field, *ShortType(), *IntegerType(), "");
  RecordTypeChange(field, *IntegerType(), *LongType(), "");
  Field map{"m", MapType(DoubleType(), IntegerType()), true, {}};
  RecordTypeChange(map, *FloatType(), *DoubleType(), "key");
  EXPECT_THAT(field.metadata,
              ElementsAre(Pair("comment", "\"c\""),
                          Pair("delta.typeChanges",
                               R"([{"fromType":"short","toType":"integer"},)"
                               R"({"fromType":"integer","toType":"long"}])")));
  EXPECT_THAT(map.metadata,
              ElementsAre(Pair("delta.typeChanges",
                               R"([{"fromType":"float","toType":"double","fieldPath":"key"}])")));

  Schema schema({field, Field{"s", StructType({map}), true, {}}});
  EXPECT_TRUE(HasTypeChanges(schema));
  EXPECT_TRUE(HasTypeChanges(Schema({Field{"s", StructType({map}), true, {}}})));
  Schema clean = WithoutTypeChanges(schema);
  EXPECT_FALSE(HasTypeChanges(clean));
  EXPECT_THAT(clean.field(0).metadata, ElementsAre(Pair("comment", "\"c\"")));
}

TEST(TypeWideningTest, ReadersRefuseChangesThatAreNotWidenings) {
  Field ok{"e", DecimalType(10, 4), true,
           {{"delta.typeChanges", R"json([{"fromType":"decimal(6,2)","toType":"decimal(10,4)"}])json"}}};
  EXPECT_NO_THROW(CheckTypeChangesReadable(Schema({ok})));
  Field strings{"s", StringType(), true,
                {{"delta.typeChanges", R"([{"fromType":"string","toType":"string"}])"}}};
  EXPECT_NO_THROW(CheckTypeChangesReadable(Schema({strings})));

  Field bad{"v", StringType(), true,
            {{"delta.typeChanges", R"([{"fromType":"integer","toType":"string"}])"}}};
  Field nested{"outer", StructType({Field{"m", MapType(LongType(), IntegerType()), true,
                                          {{"delta.typeChanges",
                                            R"([{"fromType":"double","toType":"long","fieldPath":"key"}])"}}}}),
               true, {}};
  for (const Schema& schema : {Schema({bad}), Schema({nested})}) {
    try {
      CheckTypeChangesReadable(schema);
      ADD_FAILURE() << "accepted " << ToDeltaSchemaJson(schema);
    } catch (const Error& error) {
      EXPECT_EQ(error.error_class(), "DELTA_UNSUPPORTED_TYPE_CHANGE_IN_SCHEMA");
    }
  }
  try {
    CheckTypeChangesReadable(Schema({nested}));
  } catch (const Error& error) {
    EXPECT_THAT(error.what(), HasSubstr("Field outer.m.key was changed from DOUBLE to BIGINT"));
  }
}

TEST(TypeWideningTest, SnapshotOfALogWithAnUnsupportedChangeIsRefused) {
  auto fs = io::MakeMemoryFileSystem();
  std::string schema = ToDeltaSchemaJson(Schema({Field{
      "v", IntegerType(), true,
      {{"delta.typeChanges", R"([{"fromType":"long","toType":"integer"}])"}}}}));
  std::string quoted;
  for (char c : schema) {
    if (c == '"') quoted += '\\';
    quoted += c;
  }
  fs->WriteFile("t/_delta_log/" + FormatVersion(0) + ".json",
                R"({"protocol":{"minReaderVersion":3,"minWriterVersion":7,"readerFeatures":["typeWidening"],"writerFeatures":["typeWidening"]}})"
                "\n"
                R"({"metaData":{"id":"x","format":{"provider":"parquet","options":{}},"schemaString":")" +
                    quoted + R"(","partitionColumns":[],"configuration":{"delta.enableTypeWidening":"true"}}})"
                "\n");
  try {
    Snapshot::Load(fs, "t");
    ADD_FAILURE() << "loaded";
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), "DELTA_UNSUPPORTED_TYPE_CHANGE_IN_SCHEMA");
  }
}

TEST(TypeWideningTest, SchemaEvolutionAppliesOnlyPartOfTheWidenings) {
  EXPECT_TRUE(IsTypeChangeSupportedForSchemaEvolution(*ShortType(), *LongType()));
  EXPECT_TRUE(IsTypeChangeSupportedForSchemaEvolution(*FloatType(), *DoubleType()));
  EXPECT_TRUE(IsTypeChangeSupportedForSchemaEvolution(*DecimalType(5, 2), *DecimalType(8, 3)));
  EXPECT_TRUE(IsTypeChangeSupportedForSchemaEvolution(*DateType(), *TimestampNtzType()));
  EXPECT_FALSE(IsTypeChangeSupportedForSchemaEvolution(*IntegerType(), *DoubleType()));
  EXPECT_FALSE(IsTypeChangeSupportedForSchemaEvolution(*IntegerType(), *DecimalType(12, 0)));
  EXPECT_FALSE(IsTypeChangeSupportedForSchemaEvolution(*LongType(), *IntegerType()));
}

TEST(TypeWideningTest, ChangesBetweenSchemasAreRecordedOnTheNearestStructField) {
  Schema old({Field{"a", IntegerType(), true, {}},
              Field{"s", StructType({Field{"x", ShortType(), true, {}}}), true, {}},
              Field{"m", MapType(IntegerType(), ListType(StructType({Field{"y", FloatType(), true, {}}}))),
                    true, {}}});
  Schema updated({Field{"a", LongType(), true, {}},
                  Field{"s", StructType({Field{"x", IntegerType(), true, {}}}), true, {}},
                  Field{"m", MapType(LongType(), ListType(StructType({Field{"y", DoubleType(), true, {}}}))),
                        true, {}},
                  Field{"added", IntegerType(), true, {}}});
  Schema recorded = WithTypeChangesRecorded(old, updated);
  EXPECT_THAT(recorded.field(0).metadata,
              ElementsAre(Pair("delta.typeChanges", R"([{"fromType":"integer","toType":"long"}])")));
  EXPECT_TRUE(recorded.field(1).metadata.empty());
  EXPECT_THAT(recorded.field(1).type->fields()[0].metadata,
              ElementsAre(Pair("delta.typeChanges", R"([{"fromType":"short","toType":"integer"}])")));
  EXPECT_THAT(recorded.field(2).metadata,
              ElementsAre(Pair("delta.typeChanges",
                               R"([{"fromType":"integer","toType":"long","fieldPath":"key"}])")));
  const Field& y = recorded.field(2).type->value_type()->element_type()->fields()[0];
  EXPECT_THAT(y.metadata,
              ElementsAre(Pair("delta.typeChanges", R"([{"fromType":"float","toType":"double"}])")));
  EXPECT_TRUE(recorded.field(3).metadata.empty());
  EXPECT_TRUE(recorded.Equals(updated));
}

TEST(TypeWideningTest, EnabledNeedsThePropertyAndTheFeature) {
  Protocol with_feature{3, 7, std::vector<std::string>{"typeWidening"},
                        std::vector<std::string>{"typeWidening"}};
  Metadata enabled;
  enabled.configuration = {{"delta.enableTypeWidening", "true"}};
  EXPECT_TRUE(IsTypeWideningEnabled(with_feature, enabled));
  EXPECT_FALSE(IsTypeWideningEnabled(Protocol{1, 2, std::nullopt, std::nullopt}, enabled));
  EXPECT_FALSE(IsTypeWideningEnabled(with_feature, Metadata{}));
}

}  // namespace
}  // namespace silt::log
