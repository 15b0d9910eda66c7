#include "silt/base/json_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "silt/base/check.h"

namespace silt {
namespace {

TEST(JsonWriterTest, WritesCompactNestedValues) {
  JsonWriter json;
  json.BeginObject();
  json.Key("id");
  json.Int(-7);
  json.Key("tags");
  json.BeginArray();
  json.String("a");
  json.Null();
  json.Bool(true);
  json.BeginObject();
  json.EndObject();
  json.BeginArray();
  json.EndArray();
  json.EndArray();
  json.Key("size");
  json.UInt(18446744073709551615ull);
  json.Key("meta");
  json.Raw("{\"x\":1}");
  json.EndObject();
  EXPECT_TRUE(json.complete());
  EXPECT_EQ(json.str(),
            "{\"id\":-7,\"tags\":[\"a\",null,true,{},[]],\"size\":18446744073709551615,"
            "\"meta\":{\"x\":1}}");
  std::string text = json.Release();
  EXPECT_EQ(text.front(), '{');
  EXPECT_EQ(json.str(), "");
  EXPECT_FALSE(json.complete());
  json.Int(1);
  EXPECT_EQ(json.str(), "1");
}

TEST(JsonWriterTest, EscapesStrings) {
  EXPECT_EQ(JsonEscape("plain"), "plain");
  EXPECT_EQ(JsonEscape("a\"b\\c"), "a\\\"b\\\\c");
  EXPECT_EQ(JsonEscape("\n\r\t\b\f"), "\\n\\r\\t\\b\\f");
  EXPECT_EQ(JsonEscape(std::string("\x00\x01\x1f", 3)), "\\u0000\\u0001\\u001f");
  EXPECT_EQ(JsonEscape("héllo €"), "héllo €");
  EXPECT_EQ(JsonEscape("/\x7f"), "/\x7f");
  std::string out;
  AppendJsonString(out, "say \"hi\"");
  EXPECT_EQ(out, "\"say \\\"hi\\\"\"");
  JsonWriter json;
  json.BeginObject();
  json.Key("k\"ey");
  json.String("v\n");
  json.EndObject();
  EXPECT_EQ(json.str(), "{\"k\\\"ey\":\"v\\n\"}");
}

TEST(JsonWriterTest, DoublesAreShortestRoundTrip) {
  auto text = [](double value) {
    std::string out;
    AppendJsonDouble(out, value);
    return out;
  };
  EXPECT_EQ(text(0.1), "0.1");
  EXPECT_EQ(text(1.0), "1");
  EXPECT_EQ(text(-2.5), "-2.5");
  EXPECT_EQ(text(1e-5), "1e-05");
  EXPECT_EQ(text(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(text(1.7976931348623157e308), "1.7976931348623157e+308");
  EXPECT_EQ(std::stod(text(1.0 / 3)), 1.0 / 3);
  EXPECT_EQ(text(std::numeric_limits<double>::quiet_NaN()), "\"NaN\"");
  EXPECT_EQ(text(std::numeric_limits<double>::infinity()), "\"Infinity\"");
  EXPECT_EQ(text(-std::numeric_limits<double>::infinity()), "\"-Infinity\"");
  JsonWriter json;
  json.BeginArray();
  json.Double(0.5);
  json.Double(3);
  json.EndArray();
  EXPECT_EQ(json.str(), "[0.5,3]");
}

TEST(JsonWriterTest, MisuseIsAnInternalError) {
  {
    JsonWriter json;
    json.BeginObject();
    EXPECT_THROW(json.Int(1), Error);  // value without a key
  }
  {
    JsonWriter json;
    json.BeginArray();
    EXPECT_THROW(json.EndObject(), Error);
    EXPECT_THROW(json.Key("k"), Error);
  }
  {
    JsonWriter json;
    json.Int(1);
    EXPECT_THROW(json.Int(2), Error);  // second root
  }
  {
    JsonWriter json;
    json.BeginObject();
    json.Key("a");
    EXPECT_THROW(json.Key("b"), Error);
    EXPECT_THROW(json.EndObject(), Error);
    EXPECT_FALSE(json.complete());
  }
}

}  // namespace
}  // namespace silt
