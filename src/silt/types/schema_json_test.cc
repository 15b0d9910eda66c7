#include "silt/types/schema_json.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "silt/base/check.h"

namespace silt {
namespace {

// Literal schemaString values copied from the golden tables' logs (Spark-written).
constexpr std::string_view kPrimitivesSchema =
    R"json({"type":"struct","fields":[{"name":"as_int","type":"integer","nullable":true,"metadata":{}},{"name":"as_long","type":"long","nullable":true,"metadata":{}},{"name":"as_byte","type":"byte","nullable":true,"metadata":{}},{"name":"as_short","type":"short","nullable":true,"metadata":{}},{"name":"as_boolean","type":"boolean","nullable":true,"metadata":{}},{"name":"as_float","type":"float","nullable":true,"metadata":{}},{"name":"as_double","type":"double","nullable":true,"metadata":{}},{"name":"as_string","type":"string","nullable":true,"metadata":{}},{"name":"as_binary","type":"binary","nullable":true,"metadata":{}},{"name":"as_big_decimal","type":"decimal(1,0)","nullable":true,"metadata":{}}]})json";

constexpr std::string_view kMapSchema =
    R"json({"type":"struct","fields":[{"name":"i","type":"integer","nullable":true,"metadata":{}},{"name":"a","type":{"type":"map","keyType":"integer","valueType":"integer","valueContainsNull":true},"nullable":true,"metadata":{}},{"name":"b","type":{"type":"map","keyType":"long","valueType":"byte","valueContainsNull":true},"nullable":true,"metadata":{}},{"name":"c","type":{"type":"map","keyType":"short","valueType":"boolean","valueContainsNull":true},"nullable":true,"metadata":{}},{"name":"d","type":{"type":"map","keyType":"float","valueType":"double","valueContainsNull":true},"nullable":true,"metadata":{}},{"name":"e","type":{"type":"map","keyType":"string","valueType":"decimal(1,0)","valueContainsNull":true},"nullable":true,"metadata":{}},{"name":"f","type":{"type":"map","keyType":"integer","valueType":{"type":"array","elementType":{"type":"struct","fields":[{"name":"val","type":"integer","nullable":true,"metadata":{}}]},"containsNull":true},"valueContainsNull":true},"nullable":true,"metadata":{}}]})json";

constexpr std::string_view kColumnMappingSchema =
    R"json({"type":"struct","fields":[{"name":"id","type":"integer","nullable":true,"metadata":{"delta.columnMapping.id":1,"delta.columnMapping.physicalName":"col-10623d2b-e242-4e70-bda5-826469ad0d2a"}},{"name":"tsNtz","type":"timestamp_ntz","nullable":true,"metadata":{"delta.columnMapping.id":2,"delta.columnMapping.physicalName":"col-3095b00d-efaa-493e-b85d-8db894dffffc"}},{"name":"tsNtzPartition","type":"timestamp_ntz","nullable":true,"metadata":{"delta.columnMapping.id":3,"delta.columnMapping.physicalName":"col-31f31113-4fc7-437c-b8e8-b7bca8a2f698"}}]})json";

constexpr std::string_view kTypeWideningSchema =
    R"json({"type":"struct","fields":[{"name":"byte_long","type":"long","nullable":true,"metadata":{"delta.typeChanges":[{"toType":"long","fromType":"byte","tableVersion":2}]}},{"name":"decimal_decimal_greater_scale","type":"decimal(20,5)","nullable":true,"metadata":{"delta.typeChanges":[{"toType":"decimal(20,5)","fromType":"decimal(10,2)","tableVersion":2}]}},{"name":"date_timestamp_ntz","type":"timestamp_ntz","nullable":true,"metadata":{"delta.typeChanges":[{"toType":"timestamp_ntz","fromType":"date","tableVersion":2}]}}]})json";

TEST(SchemaJsonTest, ParsesPrimitives) {
  Schema schema = ParseDeltaSchema(kPrimitivesSchema);
  ASSERT_EQ(schema.num_fields(), 10u);
  EXPECT_EQ(schema.AsStruct()->ToString(),
            "struct<as_int:int,as_long:bigint,as_byte:tinyint,as_short:smallint,"
            "as_boolean:boolean,as_float:float,as_double:double,as_string:string,"
            "as_binary:binary,as_big_decimal:decimal(1,0)>");
  EXPECT_TRUE(schema.field(0).nullable);
  EXPECT_TRUE(schema.field(0).metadata.empty());
}

TEST(SchemaJsonTest, ParsesNestedMapsArraysAndStructs) {
  Schema schema = ParseDeltaSchema(kMapSchema);
  ASSERT_EQ(schema.num_fields(), 7u);
  const DataType& f = *schema.field(6).type;
  EXPECT_EQ(f.ToString(), "map<int,array<struct<val:int>>>");
  EXPECT_TRUE(f.value_contains_null());
  EXPECT_TRUE(f.value_type()->contains_null());
}

TEST(SchemaJsonTest, KeepsMetadataAsRawJson) {
  Schema schema = ParseDeltaSchema(kColumnMappingSchema);
  ASSERT_EQ(schema.num_fields(), 3u);
  EXPECT_EQ(schema.field(1).type->id(), TypeId::kTimestampNtz);
  EXPECT_THAT(schema.field(0).metadata,
              testing::ElementsAre(testing::Pair("delta.columnMapping.id", "1"),
                                   testing::Pair("delta.columnMapping.physicalName",
                                                 "\"col-10623d2b-e242-4e70-bda5-826469ad0d2a\"")));
  Schema widened = ParseDeltaSchema(kTypeWideningSchema);
  ASSERT_NE(widened.field(1).FindMetadata("delta.typeChanges"), nullptr);
  EXPECT_EQ(*widened.field(1).FindMetadata("delta.typeChanges"),
            R"json([{"toType":"decimal(20,5)","fromType":"decimal(10,2)","tableVersion":2}])json");
}

TEST(SchemaJsonTest, GoldenSchemasRoundTripByteForByte) {
  for (std::string_view json :
       {kPrimitivesSchema, kMapSchema, kColumnMappingSchema, kTypeWideningSchema}) {
    Schema schema = ParseDeltaSchema(json);
    EXPECT_EQ(ToDeltaSchemaJson(schema), json);
    EXPECT_TRUE(ParseDeltaSchema(ToDeltaSchemaJson(schema)) == schema);
  }
}

TEST(SchemaJsonTest, WritesSparkCompactForm) {
  Schema schema({{"id", LongType(), true, {}}});
  EXPECT_EQ(
      ToDeltaSchemaJson(schema),
      R"json({"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}}]})json");
  Schema nested({{"a", IntegerType(), false, {}},
                 {"d", DecimalType(10, 2), true, {}},
                 {"arr", ListType(StringType()), true, {}},
                 {"m", MapType(StringType(), StructType({}), true), true, {}},
                 {"s", StructType({{"x", NullType(), true, {}}}), true, {{"comment", "\"x\""}}},
                 {"q\"uote", ListType(DateType(), false), true, {}}});
  EXPECT_EQ(
      ToDeltaSchemaJson(nested),
      R"json({"type":"struct","fields":[)json"
      R"json({"name":"a","type":"integer","nullable":false,"metadata":{}},)json"
      R"json({"name":"d","type":"decimal(10,2)","nullable":true,"metadata":{}},)json"
      R"json({"name":"arr","type":{"type":"array","elementType":"string","containsNull":true},"nullable":true,"metadata":{}},)json"
      R"json({"name":"m","type":{"type":"map","keyType":"string","valueType":{"type":"struct","fields":[]},"valueContainsNull":true},"nullable":true,"metadata":{}},)json"
      R"json({"name":"s","type":{"type":"struct","fields":[{"name":"x","type":"void","nullable":true,"metadata":{}}]},"nullable":true,"metadata":{"comment":"x"}},)json"
      R"json({"name":"q\"uote","type":{"type":"array","elementType":"date","containsNull":false},"nullable":true,"metadata":{}}]})json");
  Schema back = ParseDeltaSchema(ToDeltaSchemaJson(nested));
  EXPECT_TRUE(back == nested);
  EXPECT_EQ(back.field(5).name, "q\"uote");
  EXPECT_EQ(*back.field(4).FindMetadata("comment"), "\"x\"");
}

TEST(SchemaJsonTest, ToleratesSpacesKeyOrderUnknownKeysAndBareDecimal) {
  Schema schema = ParseDeltaSchema(R"json( {
      "fields": [
        {"metadata": {"comment": "the id", "n": [1, 2, {"k": true}]}, "nullable": false,
         "type": "decimal( 12 , 3 )", "name": "amount", "extra": {"ignored": [1]}},
        {"name": "d", "type": "decimal", "nullable": true, "metadata": {}},
        {"name": "m", "type": {"valueContainsNull": false, "valueType": "long", "keyType": "string",
                               "type": "map", "future": 1}}
      ],
      "type": "struct", "version": 2 } )json");
  ASSERT_EQ(schema.num_fields(), 3u);
  EXPECT_EQ(schema.field(0).name, "amount");
  EXPECT_EQ(schema.field(0).type->ToString(), "decimal(12,3)");
  EXPECT_FALSE(schema.field(0).nullable);
  EXPECT_THAT(schema.field(0).metadata,
              testing::ElementsAre(testing::Pair("comment", "\"the id\""),
                                   testing::Pair("n", R"json([1,2,{"k":true}])json")));
  EXPECT_EQ(schema.field(1).type->ToString(), "decimal(10,0)");
  EXPECT_EQ(schema.field(2).type->ToString(), "map<string,bigint>");
  EXPECT_FALSE(schema.field(2).type->value_contains_null());
  EXPECT_TRUE(schema.field(2).nullable);  // absent "nullable" defaults to true
}

TEST(SchemaJsonTest, ParsesAndWritesSingleTypes) {
  EXPECT_EQ(ParseDeltaType("\"long\"")->id(), TypeId::kLong);
  EXPECT_EQ(ParseDeltaType("\"timestamp\"")->id(), TypeId::kTimestamp);
  EXPECT_EQ(ParseDeltaType("\"void\"")->id(), TypeId::kNull);
  EXPECT_EQ(ParseDeltaType(R"json({"type":"array","elementType":"short","containsNull":false})json")
                ->ToString(),
            "array<smallint>");
  EXPECT_EQ(ToDeltaTypeJson(*LongType()), "\"long\"");
  EXPECT_EQ(ToDeltaTypeJson(*ListType(ByteType(), false)),
            R"json({"type":"array","elementType":"byte","containsNull":false})json");
  EXPECT_EQ(
      ToDeltaTypeJson(*MapType(StringType(), BinaryType(), false)),
      R"json({"type":"map","keyType":"string","valueType":"binary","valueContainsNull":false})json");
  for (const DataTypePtr& type :
       {BooleanType(), ByteType(), ShortType(), IntegerType(), LongType(), FloatType(),
        DoubleType(), DecimalType(38, 18), DateType(), TimestampType(), TimestampNtzType(),
        StringType(), BinaryType(), NullType()}) {
    EXPECT_TRUE(ParseDeltaType(ToDeltaTypeJson(*type))->Equals(*type)) << type->ToString();
  }
}

void ExpectErrorClass(std::string_view json, std::string_view error_class) {
  try {
    ParseDeltaSchema(json);
    ADD_FAILURE() << "no error for " << json;
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), error_class) << json << ": " << error.what();
  }
}

TEST(SchemaJsonTest, RejectsMalformedInput) {
  ExpectErrorClass("", "INVALID_SCHEMA_JSON");
  ExpectErrorClass("{", "INVALID_SCHEMA_JSON");
  ExpectErrorClass("[]", "INVALID_SCHEMA_JSON");
  ExpectErrorClass("\"long\"", "INVALID_SCHEMA_JSON");  // a type, but not a struct
  ExpectErrorClass(R"json({"type":"struct"})json", "INVALID_SCHEMA_JSON");
  ExpectErrorClass(R"json({"fields":[]})json", "INVALID_SCHEMA_JSON");
  ExpectErrorClass(R"json({"type":"struct","fields":[{"type":"long"}]})json",
                   "INVALID_SCHEMA_JSON");
  ExpectErrorClass(R"json({"type":"struct","fields":[{"name":"a"}]})json", "INVALID_SCHEMA_JSON");
  ExpectErrorClass(R"json({"type":"struct","fields":[{"name":1,"type":"long"}]})json",
                   "INVALID_SCHEMA_JSON");
  ExpectErrorClass(
      R"json({"type":"struct","fields":[{"name":"a","type":"long","nullable":"yes"}]})json",
      "INVALID_SCHEMA_JSON");
  ExpectErrorClass(
      R"json({"type":"struct","fields":[{"name":"a","type":"long","metadata":[]}]})json",
      "INVALID_SCHEMA_JSON");
  ExpectErrorClass(R"json({"type":"struct","fields":[{"name":"a","type":{"type":"array"}}]})json",
                   "INVALID_SCHEMA_JSON");
  ExpectErrorClass(
      R"json({"type":"struct","fields":[{"name":"a","type":{"type":"map","keyType":"long"}}]})json",
      "INVALID_SCHEMA_JSON");
  ExpectErrorClass(R"json({"type":"struct","fields":[{"name":"a","type":12}]})json",
                   "INVALID_SCHEMA_JSON");
  ExpectErrorClass(R"json({"type":"struct","fields":[{"name":"a","type":"decimal(10)"}]})json",
                   "INVALID_SCHEMA_JSON");
  ExpectErrorClass(R"json({"type":"struct","fields":[{"name":"a","type":"decimal(x,1)"}]})json",
                   "INVALID_SCHEMA_JSON");
  ExpectErrorClass(R"json({"type":"struct","fields":[]} trailing)json", "INVALID_SCHEMA_JSON");
}

TEST(SchemaJsonTest, RejectsUnknownTypes) {
  ExpectErrorClass(R"json({"type":"struct","fields":[{"name":"a","type":"variant"}]})json",
                   "UNSUPPORTED_DATA_TYPE");
  ExpectErrorClass(R"json({"type":"struct","fields":[{"name":"a","type":"interval"}]})json",
                   "UNSUPPORTED_DATA_TYPE");
  ExpectErrorClass(R"json({"type":"struct","fields":[{"name":"a","type":{"type":"udt"}}]})json",
                   "UNSUPPORTED_DATA_TYPE");
  ExpectErrorClass(R"json({"type":"struct","fields":[{"name":"a","type":"decimal(40,2)"}]})json",
                   "INVALID_DECIMAL_TYPE");
}

TEST(SchemaJsonTest, DamagedInputNeverCrashes) {
  // Every prefix and a sweep of single-byte substitutions either parse or throw silt::Error.
  std::string json(kMapSchema);
  int parsed = 0;
  for (size_t length = 0; length < json.size(); ++length) {
    try {
      ParseDeltaSchema(std::string_view(json).substr(0, length));
      ++parsed;
    } catch (const Error&) {
    }
  }
  EXPECT_EQ(parsed, 0);  // no proper prefix of a schema is a schema
  for (size_t position = 0; position < json.size(); position += 3) {
    for (char replacement : {'"', '{', ']', ',', '0', 'x', '\\', '\0'}) {
      std::string damaged = json;
      damaged[position] = replacement;
      try {
        Schema schema = ParseDeltaSchema(damaged);
        EXPECT_LE(schema.num_fields(), 7u);
      } catch (const Error& error) {
        EXPECT_FALSE(error.error_class().empty());
      }
    }
  }
}

TEST(SchemaJsonTest, DeepNestingIsRejectedCleanly) {
  std::string json;
  const int depth = 5000;
  for (int i = 0; i < depth; ++i) json += R"json({"type":"array","elementType":)json";
  json += "\"long\"";
  for (int i = 0; i < depth; ++i) json += R"json(,"containsNull":true})json";
  EXPECT_THROW(ParseDeltaType(json), Error);
  std::string shallow;
  for (int i = 0; i < 50; ++i) shallow += R"json({"type":"array","elementType":)json";
  shallow += "\"long\"";
  for (int i = 0; i < 50; ++i) shallow += "}";
  EXPECT_EQ(ParseDeltaType(shallow)->id(), TypeId::kList);
}

}  // namespace
}  // namespace silt
