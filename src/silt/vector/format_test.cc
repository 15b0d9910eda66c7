#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "silt/vector/batch.h"
#include "silt/vector/show_table_writer.h"

namespace silt {
namespace {

Batch IdNameBatch(const std::vector<std::pair<int64_t, std::optional<std::string>>>& rows) {
  auto schema = std::make_shared<const Schema>(
      std::vector<Field>{{"id", LongType(), false, {}}, {"name", StringType(), true, {}}});
  VectorBuilder ids(LongType());
  VectorBuilder names(StringType());
  for (const auto& [id, name] : rows) {
    ids.AppendInt(id);
    if (name) {
      names.AppendString(*name);
    } else {
      names.AppendNull();
    }
  }
  return Batch(schema, {ids.Finish(), names.Finish()}, static_cast<int64_t>(rows.size()));
}

TEST(FormatShowTest, RightAlignsCellsLikeSpark) {
  Batch batch = IdNameBatch({{1, "a"}, {2, std::nullopt}, {300, "hello world"}});
  EXPECT_EQ(FormatShow({batch}),
            "+---+-----------+\n"
            "| id|       name|\n"
            "+---+-----------+\n"
            "|  1|          a|\n"
            "|  2|       NULL|\n"
            "|300|hello world|\n"
            "+---+-----------+\n");
}

TEST(ShowTableWriterTest, PrintsFormatShowsTableInParts) {
  Batch first = IdNameBatch({{1, "a"}, {22, "a much longer string than twenty"}});
  Batch second = IdNameBatch({{3, std::nullopt}});
  ShowTableWriter writer({first, second}, /*truncate=*/0);
  EXPECT_EQ(writer.Header() + writer.Rows(first) + writer.Rows(second) + writer.Footer(),
            FormatShow({first, second}, {.max_rows = 100, .truncate = 0}));
}

TEST(ShowTableWriterTest, ALaterWiderCellWidensOnlyItsLine) {
  Batch first = IdNameBatch({{1, "a"}});
  ShowTableWriter writer({first}, /*truncate=*/0);
  EXPECT_EQ(writer.Header() + writer.Rows(first) +
                writer.Rows(IdNameBatch({{12345, "wider"}, {2, "b"}})) + writer.Footer(),
            "+---+----+\n"
            "|id |name|\n"
            "+---+----+\n"
            "|1  |a   |\n"
            "|12345|wider|\n"
            "|2  |b   |\n"
            "+---+----+\n");
}

TEST(FormatShowTest, LeftAlignsWithoutTruncation) {
  Batch batch = IdNameBatch({{1, "a"}, {22, "a much longer string than twenty"}});
  EXPECT_EQ(FormatShow({batch}, {.max_rows = 20, .truncate = 0}),
            "+---+--------------------------------+\n"
            "|id |name                            |\n"
            "+---+--------------------------------+\n"
            "|1  |a                               |\n"
            "|22 |a much longer string than twenty|\n"
            "+---+--------------------------------+\n");
}

TEST(FormatShowTest, TruncatesLongCells) {
  Batch batch = IdNameBatch({{1, "abcdefghijklmnopqrstuvwxy"}, {2, "exactly twenty chars"}});
  EXPECT_EQ(FormatShow({batch}),
            "+---+--------------------+\n"
            "| id|                name|\n"
            "+---+--------------------+\n"
            "|  1|abcdefghijklmnopq...|\n"
            "|  2|exactly twenty chars|\n"
            "+---+--------------------+\n");
  // Under four characters there is no ellipsis; the header is never truncated.
  EXPECT_EQ(FormatShow({batch}, {.max_rows = 20, .truncate = 3}),
            "+---+----+\n"
            "| id|name|\n"
            "+---+----+\n"
            "|  1| abc|\n"
            "|  2| exa|\n"
            "+---+----+\n");
  EXPECT_EQ(FormatShow({batch}, {.max_rows = 20, .truncate = 5}),
            "+---+-----+\n"
            "| id| name|\n"
            "+---+-----+\n"
            "|  1|ab...|\n"
            "|  2|ex...|\n"
            "+---+-----+\n");
}

TEST(FormatShowTest, FooterWhenRowsAreLeftOut) {
  std::vector<Batch> batches = {IdNameBatch({{1, "a"}, {2, "b"}}), IdNameBatch({{3, "c"}})};
  EXPECT_EQ(FormatShow(batches, {.max_rows = 2, .truncate = 20}),
            "+---+----+\n"
            "| id|name|\n"
            "+---+----+\n"
            "|  1|   a|\n"
            "|  2|   b|\n"
            "+---+----+\n"
            "only showing top 2 rows\n");
  EXPECT_EQ(FormatShow(batches, {.max_rows = 1, .truncate = 20}),
            "+---+----+\n"
            "| id|name|\n"
            "+---+----+\n"
            "|  1|   a|\n"
            "+---+----+\n"
            "only showing top 1 row\n");
  // Exactly max_rows rows: no footer.
  EXPECT_THAT(FormatShow(batches, {.max_rows = 3, .truncate = 20}),
              testing::Not(testing::HasSubstr("only showing")));
}

TEST(FormatShowTest, EmptyResultPrintsHeaderOnly) {
  EXPECT_EQ(FormatShow({IdNameBatch({})}),
            "+---+----+\n"
            "| id|name|\n"
            "+---+----+\n"
            "+---+----+\n");
  EXPECT_EQ(FormatShow({}), "++\n||\n++\n++\n");
}

TEST(FormatShowTest, CountsCodePointsAndEscapesControlCharacters) {
  Batch batch = IdNameBatch({{1, "héllo"}, {2, "a\nb"}, {3, "ñññññññññññññññññññññññ"}});
  EXPECT_EQ(FormatShow({batch}),
            "+---+--------------------+\n"
            "| id|                name|\n"
            "+---+--------------------+\n"
            "|  1|               héllo|\n"
            "|  2|                a\\nb|\n"
            "|  3|ñññññññññññññññññ...|\n"
            "+---+--------------------+\n");
}

TEST(FormatShowTest, NestedAndTypedCells) {
  DataTypePtr tags_type = ListType(IntegerType());
  DataTypePtr point_type =
      StructType({{"x", DoubleType(), true, {}}, {"y", DoubleType(), true, {}}});
  auto schema = std::make_shared<const Schema>(std::vector<Field>{
      {"tags", tags_type, true, {}}, {"p", point_type, true, {}}, {"d", DateType(), true, {}}});
  VectorBuilder tags(tags_type);
  tags.child(0).AppendInt(1);
  tags.child(0).AppendNull();
  tags.FinishList();
  VectorBuilder points(point_type);
  points.child(0).AppendDouble(1.0);
  points.child(1).AppendDouble(1e-4);
  points.AppendStruct();
  VectorBuilder dates(DateType());
  dates.AppendInt(19753);
  Batch batch(schema, {tags.Finish(), points.Finish(), dates.Finish()}, 1);
  EXPECT_EQ(FormatShow({batch}),
            "+---------+-------------+----------+\n"
            "|     tags|            p|         d|\n"
            "+---------+-------------+----------+\n"
            "|[1, NULL]|{1.0, 1.0E-4}|2024-01-31|\n"
            "+---------+-------------+----------+\n");
}

TEST(FormatCsvTest, QuotesPerRfc4180) {
  Batch batch = IdNameBatch({{1, "plain"},
                             {2, "with,comma"},
                             {3, "say \"hi\""},
                             {4, "two\nlines"},
                             {5, std::nullopt},
                             {6, ""}});
  EXPECT_EQ(FormatCsv({batch}),
            "id,name\n"
            "1,plain\n"
            "2,\"with,comma\"\n"
            "3,\"say \"\"hi\"\"\"\n"
            "4,\"two\nlines\"\n"
            "5,\n"
            "6,\"\"\n");
  EXPECT_EQ(FormatCsv({batch.Slice(0, 1)}, /*header=*/false), "1,plain\n");
  EXPECT_EQ(FormatCsv({}), "");
}

TEST(FormatCsvTest, NestedValuesAsJson) {
  DataTypePtr map_type = MapType(StringType(), LongType());
  auto schema = std::make_shared<const Schema>(
      std::vector<Field>{{"m", map_type, true, {}}, {"x,y", DoubleType(), true, {}}});
  VectorBuilder maps(map_type);
  VectorBuilder& entries = maps.child(0);
  entries.child(0).AppendString("a");
  entries.child(1).AppendInt(1);
  entries.AppendStruct();
  maps.FinishList();
  VectorBuilder doubles(DoubleType());
  doubles.AppendDouble(0.5);
  Batch batch(schema, {maps.Finish(), doubles.Finish()}, 1);
  EXPECT_EQ(FormatCsv({batch}), "m,\"x,y\"\n\"{\"\"a\"\":1}\",0.5\n");
}

TEST(FormatJsonLinesTest, WritesOneObjectPerRow) {
  Batch batch = IdNameBatch({{1, "x"}, {2, std::nullopt}, {3, "q\"uote\n"}});
  EXPECT_EQ(FormatJsonLines({batch}),
            "{\"id\":1,\"name\":\"x\"}\n"
            "{\"id\":2,\"name\":null}\n"
            "{\"id\":3,\"name\":\"q\\\"uote\\n\"}\n");
  EXPECT_EQ(FormatJsonLines({}), "");
}

TEST(FormatJsonLinesTest, EveryType) {
  DataTypePtr inner =
      StructType({{"k", StringType(), true, {}}, {"v", ListType(ByteType()), true, {}}});
  auto schema = std::make_shared<const Schema>(
      std::vector<Field>{{"b", BooleanType(), true, {}},
                         {"dec", DecimalType(5, 2), true, {}},
                         {"f", FloatType(), true, {}},
                         {"d", DoubleType(), true, {}},
                         {"date", DateType(), true, {}},
                         {"ts", TimestampType(), true, {}},
                         {"bin", BinaryType(), true, {}},
                         {"s", inner, true, {}},
                         {"m", MapType(IntegerType(), StringType()), true, {}},
                         {"v", NullType(), true, {}}});
  VectorBuilder b(BooleanType());
  VectorBuilder dec(DecimalType(5, 2));
  VectorBuilder f(FloatType());
  VectorBuilder d(DoubleType());
  VectorBuilder date(DateType());
  VectorBuilder ts(TimestampType());
  VectorBuilder bin(BinaryType());
  VectorBuilder s(inner);
  VectorBuilder m(MapType(IntegerType(), StringType()));
  VectorBuilder v(NullType());
  b.AppendBool(true);
  dec.AppendDecimal(150);
  f.AppendFloat(0.1f);
  d.AppendDouble(std::numeric_limits<double>::quiet_NaN());
  date.AppendInt(-1);
  ts.AppendInt(1706702400500000);
  bin.AppendString("hi!?");
  s.child(0).AppendString("key");
  s.child(1).child(0).AppendInt(-1);
  s.child(1).child(0).AppendNull();
  s.child(1).FinishList();
  s.AppendStruct();
  m.child(0).child(0).AppendInt(7);
  m.child(0).child(1).AppendString("seven");
  m.child(0).AppendStruct();
  m.FinishList();
  v.AppendNull();
  b.AppendNull();
  dec.AppendDecimal(-5);
  f.AppendFloat(1e10f);
  d.AppendDouble(-std::numeric_limits<double>::infinity());
  date.AppendNull();
  ts.AppendNull();
  bin.AppendString("");
  s.AppendNull();
  m.FinishList();
  v.AppendNull();
  Batch batch(schema,
              {b.Finish(), dec.Finish(), f.Finish(), d.Finish(), date.Finish(), ts.Finish(),
               bin.Finish(), s.Finish(), m.Finish(), v.Finish()},
              2);
  EXPECT_EQ(
      FormatJsonLines({batch}),
      "{\"b\":true,\"dec\":1.50,\"f\":0.1,\"d\":\"NaN\",\"date\":\"1969-12-31\","
      "\"ts\":\"2024-01-31 12:00:00.5\",\"bin\":\"aGkhPw==\",\"s\":{\"k\":\"key\",\"v\":[-1,null]},"
      "\"m\":{\"7\":\"seven\"},\"v\":null}\n"
      "{\"b\":null,\"dec\":-0.05,\"f\":1.0E10,\"d\":\"-Infinity\",\"date\":null,\"ts\":null,"
      "\"bin\":\"\",\"s\":null,\"m\":{},\"v\":null}\n");
}

}  // namespace
}  // namespace silt
