// Files silt writes, read back by DuckDB (an independent Parquet implementation): every value,
// the schema DuckDB sees, and the statistics it reports must match the data silt wrote.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <sstream>

#include "silt/io/file_system.h"
#include "silt/parquet/writer.h"
#include "silt/vector/batch.h"
#include "support/duckdb_peer.h"
#include "support/temp_dir.h"

namespace silt::parquet {
namespace {

using test::RunDuckDb;
using test::SqlQuote;
using ::testing::ElementsAreArray;

// ---- expected text, in the form the DuckDB query below renders each column ----

std::string Hex(std::string_view bytes) {
  static const char kDigits[] = "0123456789ABCDEF";
  std::string out;
  for (char c : bytes) {
    out += kDigits[static_cast<uint8_t>(c) >> 4];
    out += kDigits[static_cast<uint8_t>(c) & 15];
  }
  return out;
}

std::string Unhex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  }
  return out;
}

std::string DecimalText(Decimal128 value, int scale) {
  bool negative = value < 0;
  auto magnitude = static_cast<unsigned __int128>(negative ? -value : value);
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(magnitude % 10)));
    magnitude /= 10;
  } while (magnitude != 0);
  if (scale > 0) {
    while (static_cast<int>(digits.size()) <= scale) digits.insert(digits.begin(), '0');
    digits.insert(digits.end() - scale, '.');
  }
  return (negative ? "-" : "") + digits;
}

std::string Printf(const char* format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), format, value);
  return buffer;
}

std::string JsonString(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// DuckDB's to_json of a nested value with integer, boolean and string leaves.
std::string Json(const Vector& vector, int64_t i) {
  if (vector.IsNull(i)) return "null";
  switch (vector.type_id()) {
    case TypeId::kBoolean:
      return vector.GetBool(i) ? "true" : "false";
    case TypeId::kInteger:
      return std::to_string(vector.values<int32_t>()[i]);
    case TypeId::kLong:
      return std::to_string(vector.values<int64_t>()[i]);
    case TypeId::kString:
      return JsonString(vector.GetString(i));
    case TypeId::kStruct: {
      std::string out = "{";
      const auto& fields = vector.type()->fields();
      for (size_t f = 0; f < fields.size(); ++f) {
        if (f > 0) out += ",";
        out += JsonString(fields[f].name) + ":" + Json(*vector.child(f), vector.offset() + i);
      }
      return out + "}";
    }
    case TypeId::kList: {
      std::string out = "[";
      for (int32_t j = 0; j < vector.ListLength(i); ++j) {
        if (j > 0) out += ",";
        out += Json(*vector.child(0), vector.ListStart(i) + j);
      }
      return out + "]";
    }
    case TypeId::kMap: {
      std::string out = "{";
      const Vector& entries = *vector.child(0);
      for (int32_t j = 0; j < vector.ListLength(i); ++j) {
        if (j > 0) out += ",";
        int64_t entry = entries.offset() + vector.ListStart(i) + j;
        out +=
            JsonString(entries.child(0)->GetString(entry)) + ":" + Json(*entries.child(1), entry);
      }
      return out + "}";
    }
    default:
      ADD_FAILURE() << "no JSON form for " << vector.type()->ToString();
      return "?";
  }
}

std::string ExpectedText(const Vector& vector, int64_t i) {
  if (vector.IsNull(i)) return "NULL";
  switch (vector.type_id()) {
    case TypeId::kBoolean:
      return vector.GetBool(i) ? "true" : "false";
    case TypeId::kByte:
      return std::to_string(vector.values<int8_t>()[i]);
    case TypeId::kShort:
      return std::to_string(vector.values<int16_t>()[i]);
    case TypeId::kInteger:
    case TypeId::kDate:
      return std::to_string(vector.values<int32_t>()[i]);
    case TypeId::kLong:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      return std::to_string(vector.values<int64_t>()[i]);
    case TypeId::kFloat:
      return Printf("%.9g", vector.values<float>()[i]);
    case TypeId::kDouble:
      return Printf("%.17g", vector.values<double>()[i]);
    case TypeId::kDecimal:
      return DecimalText(vector.values<Decimal128>()[i], vector.type()->scale());
    case TypeId::kString:
    case TypeId::kBinary:
      return Hex(vector.GetString(i));
    default:
      return Json(vector, i);
  }
}

// The DuckDB expression rendering column `name` of type `type` as ExpectedText does.
std::string DuckDbText(const std::string& name, const DataType& type) {
  std::string column = "\"" + name + "\"";
  switch (type.id()) {
    case TypeId::kFloat:
      return "format('{:.9g}', " + column + ")";
    case TypeId::kDouble:
      return "format('{:.17g}', " + column + ")";
    case TypeId::kDate:
      return "CAST(" + column + " - DATE '1970-01-01' AS VARCHAR)";
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      return "CAST(epoch_us(" + column + ") AS VARCHAR)";
    case TypeId::kString:
    case TypeId::kBinary:
      return "hex(" + column + ")";
    case TypeId::kStruct:
    case TypeId::kList:
    case TypeId::kMap:
      return "CAST(to_json(" + column + ") AS VARCHAR)";
    default:
      return "CAST(" + column + " AS VARCHAR)";
  }
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream stream(text);
  std::string line;
  while (std::getline(stream, line)) lines.push_back(line);
  return lines;
}

// ---- data generation ----

class DataGenerator {
 public:
  explicit DataGenerator(uint32_t seed) : random_(seed) {}

  bool Chance(int percent) { return static_cast<int>(random_() % 100) < percent; }
  int64_t Uniform(int64_t low, int64_t high) {
    return low + static_cast<int64_t>(random_() % static_cast<uint64_t>(high - low + 1));
  }

  // Appends one random value (or NULL, when allowed) of a primitive type.
  void AppendPrimitive(VectorBuilder& builder, bool nullable) {
    const DataType& type = *builder.type();
    if (type.id() == TypeId::kNull || (nullable && Chance(15))) {
      builder.AppendNull();
      return;
    }
    switch (type.id()) {
      case TypeId::kBoolean:
        builder.AppendBool(Chance(50));
        break;
      case TypeId::kByte:
        builder.AppendInt(Uniform(-128, 127));
        break;
      case TypeId::kShort:
        builder.AppendInt(Uniform(-32768, 32767));
        break;
      case TypeId::kInteger:
        builder.AppendInt(Chance(50) ? Uniform(-50, 50) : Uniform(INT32_MIN, INT32_MAX));
        break;
      case TypeId::kLong:
        builder.AppendInt(Chance(50) ? Uniform(-50, 50)
                                     : static_cast<int64_t>(random_() << 32 | random_()));
        break;
      case TypeId::kFloat: {
        static const float kSpecial[] = {0.0f, -0.0f, 1.5f, -1e30f, INFINITY, NAN};
        builder.AppendFloat(Chance(20) ? kSpecial[random_() % 6]
                                       : static_cast<float>(Uniform(-100000, 100000)) / 7.0f);
        break;
      }
      case TypeId::kDouble: {
        static const double kSpecial[] = {0.0, -0.0, 2.25, -1e300, -INFINITY, NAN};
        builder.AppendDouble(Chance(20) ? kSpecial[random_() % 6]
                                        : static_cast<double>(Uniform(-1000000, 1000000)) / 3.0);
        break;
      }
      case TypeId::kDecimal: {
        // Unscaled values across the precision's range, negative ones included.
        Decimal128 limit = 1;
        for (int d = 0; d < type.precision(); ++d) limit *= 10;
        Decimal128 value;
        if (Chance(10)) {
          value = Chance(50) ? limit - 1 : -(limit - 1);
        } else {
          auto bits = (static_cast<unsigned __int128>(random_() << 32 | random_()) << 64) |
                      (random_() << 32 | random_());
          value = static_cast<Decimal128>(bits % static_cast<unsigned __int128>(limit));
          if (Chance(50)) value = -value;
        }
        builder.AppendDecimal(value);
        break;
      }
      case TypeId::kDate:
        builder.AppendInt(Uniform(-40000, 30000));  // 1860 .. 2052
        break;
      case TypeId::kTimestamp:
      case TypeId::kTimestampNtz:
        builder.AppendInt(Uniform(-2000000000, 2000000000) * 1000000 + Uniform(0, 999999));
        break;
      case TypeId::kString: {
        static const char* kWords[] = {"", "a", "Zürich", "東京", "emoji 😀", "x,y", "q\"u"};
        std::string text =
            Chance(40) ? kWords[random_() % 7] : "s" + std::to_string(Uniform(0, 300));
        builder.AppendString(text);
        break;
      }
      case TypeId::kBinary: {
        std::string bytes(static_cast<size_t>(Uniform(0, 12)), '\0');
        for (char& c : bytes) c = static_cast<char>(random_());
        builder.AppendString(bytes);
        break;
      }
      default:
        ADD_FAILURE() << "not primitive: " << type.ToString();
    }
  }

  // Appends one random value of any type; nested values keep ints and plain strings at the
  // leaves (what the JSON comparison renders).
  void Append(VectorBuilder& builder, bool nullable) {
    const DataType& type = *builder.type();
    if (!type.is_nested()) {
      if (type.id() == TypeId::kString) {
        if (nullable && Chance(15)) {
          builder.AppendNull();
        } else {
          builder.AppendString("v" + std::to_string(Uniform(0, 40)));
        }
        return;
      }
      AppendPrimitive(builder, nullable);
      return;
    }
    if (nullable && Chance(15)) {
      builder.AppendNull();
      return;
    }
    switch (type.id()) {
      case TypeId::kStruct:
        for (size_t f = 0; f < type.fields().size(); ++f) {
          Append(builder.child(f), type.fields()[f].nullable);
        }
        builder.AppendStruct();
        break;
      case TypeId::kList: {
        int64_t length = Chance(15) ? 0 : Uniform(1, 4);
        for (int64_t j = 0; j < length; ++j) Append(builder.child(0), type.contains_null());
        builder.FinishList();
        break;
      }
      case TypeId::kMap: {
        int64_t length = Chance(15) ? 0 : Uniform(1, 3);
        VectorBuilder& entries = builder.child(0);
        for (int64_t j = 0; j < length; ++j) {
          // Distinct keys within a map.
          entries.child(0).AppendString("k" + std::to_string(j));
          Append(entries.child(1), type.value_contains_null());
          entries.AppendStruct();
        }
        builder.FinishList();
        break;
      }
      default:
        break;
    }
  }

 private:
  std::mt19937_64 random_;
};

std::vector<Batch> Generate(const SchemaPtr& schema, int64_t rows, int64_t batch_rows,
                            uint32_t seed) {
  DataGenerator generator(seed);
  std::vector<Batch> batches;
  for (int64_t start = 0; start < rows; start += batch_rows) {
    int64_t count = std::min(batch_rows, rows - start);
    std::vector<VectorPtr> columns;
    for (const Field& field : schema->fields()) {
      VectorBuilder builder(field.type);
      for (int64_t i = 0; i < count; ++i) generator.Append(builder, field.nullable);
      columns.push_back(builder.Finish());
    }
    batches.emplace_back(schema, std::move(columns), count);
  }
  return batches;
}

// ---- the check ----

struct WrittenFile {
  std::string path;
  FileMetaData footer;
};

WrittenFile WriteFile(const test::TempDir& dir, const std::string& name, const SchemaPtr& schema,
                      const std::vector<Batch>& batches, const WriterOptions& options) {
  auto fs = io::MakeLocalFileSystem();
  WrittenFile file;
  file.path = dir.Child(name + ".parquet");
  auto writer = FileWriter::Open(fs->OpenWrite(file.path), *schema, options);
  for (const Batch& batch : batches) writer->Write(batch);
  file.footer = writer->Close();
  return file;
}

// Reads every row back through DuckDB and compares each value with what silt wrote.
void ExpectDuckDbReadsValues(const WrittenFile& file, const SchemaPtr& schema,
                             const std::vector<Batch>& batches) {
  std::string select;
  for (const Field& field : schema->fields()) {
    if (!select.empty()) select += ", ";
    select += "coalesce(" + DuckDbText(field.name, *field.type) + ", 'NULL')";
  }
  std::string output =
      RunDuckDb({"SELECT hex(concat_ws('|', " + select + ")) AS r FROM read_parquet(" +
                 SqlQuote(file.path) + ", file_row_number = true) ORDER BY file_row_number"});
  std::vector<std::string> lines = Lines(output);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0], "r");
  size_t line = 1;
  for (const Batch& batch : batches) {
    for (int64_t row = 0; row < batch.num_rows(); ++row, ++line) {
      std::string expected;
      for (size_t c = 0; c < batch.num_columns(); ++c) {
        if (c > 0) expected += "|";
        expected += ExpectedText(*batch.column(c), row);
      }
      ASSERT_LT(line, lines.size()) << "DuckDB returned too few rows";
      ASSERT_EQ(Unhex(lines[line]), expected) << "row " << line - 1 << " of " << file.path;
    }
  }
  EXPECT_EQ(line, lines.size()) << "DuckDB returned too many rows";
}

// Compares, for every top-level primitive column and row group, the statistics DuckDB reads
// from the footer with the min/max/null count DuckDB computes from the data itself.
void ExpectDuckDbStatisticsMatchData(const WrittenFile& file, const SchemaPtr& schema) {
  std::string row_groups = "SELECT * FROM (VALUES ";
  int64_t start = 0;
  for (size_t g = 0; g < file.footer.row_groups.size(); ++g) {
    int64_t rows = file.footer.row_groups[g].num_rows;
    if (g > 0) row_groups += ", ";
    row_groups += "(" + std::to_string(g) + ", " + std::to_string(start) + ", " +
                  std::to_string(start + rows) + ")";
    start += rows;
  }
  row_groups += ") AS g(row_group, first_row, end_row)";
  if (file.footer.row_groups.empty()) return;

  std::vector<std::string> checks;
  for (const Field& field : schema->fields()) {
    const DataType& type = *field.type;
    if (type.is_nested() || type.id() == TypeId::kNull) continue;
    std::string column = "\"" + field.name + "\"";
    bool floating = type.id() == TypeId::kFloat || type.id() == TypeId::kDouble;
    std::string filter = floating ? " FILTER (WHERE NOT isnan(" + column + "))" : "";
    std::string data =
        "SELECT g.row_group, CAST(min(" + column + ")" + filter + " AS VARCHAR) AS mn, CAST(max(" +
        column + ")" + filter + " AS VARCHAR) AS mx, count(*) - count(" + column +
        ") AS nulls FROM read_parquet(" + SqlQuote(file.path) +
        ", file_row_number = true) d JOIN (" + row_groups +
        ") g ON d.file_row_number >= g.first_row AND d.file_row_number < g.end_row GROUP BY "
        "g.row_group";
    // Floats compare numerically (a zero bound is written as -0.0 / +0.0); binary values as
    // DuckDB's blob text; everything else as DuckDB's text of the value.
    std::string equal_min =
        floating ? "m.stats_min_value::DOUBLE = s.mn::DOUBLE" : "m.stats_min_value = s.mn";
    std::string equal_max =
        floating ? "m.stats_max_value::DOUBLE = s.mx::DOUBLE" : "m.stats_max_value = s.mx";
    // DuckDB shows no value for an infinite float bound (its own files included).
    std::string infinite_min = floating ? " OR isinf(s.mn::DOUBLE)" : "";
    std::string infinite_max = floating ? " OR isinf(s.mx::DOUBLE)" : "";
    checks.push_back("SELECT " + SqlQuote(field.name) +
                     " AS col, s.row_group, m.stats_min_value, s.mn, "
                     "m.stats_max_value, s.mx, m.stats_null_count, s.nulls FROM parquet_metadata(" +
                     SqlQuote(file.path) + ") m JOIN (" + data +
                     ") s ON m.row_group_id = s.row_group WHERE "
                     "m.path_in_schema = " +
                     SqlQuote(field.name) + " AND NOT (coalesce(" + equal_min +
                     ", s.mn IS NULL AND m.stats_min_value IS NULL" + infinite_min +
                     ") AND coalesce(" + equal_max +
                     ", s.mx IS NULL AND m.stats_max_value IS NULL" + infinite_max +
                     ") AND m.stats_null_count = s.nulls)");
  }
  if (checks.empty()) return;
  std::string query;
  for (const std::string& check : checks) {
    if (!query.empty()) query += " UNION ALL ";
    query += check;
  }
  std::string output = RunDuckDb({"SET TimeZone = 'UTC'", query});
  // Only the header: no column and row group disagrees.
  EXPECT_EQ(Lines(output).size(), 1u) << "statistics differ from the data:\n" << output;
}

SchemaPtr PrimitiveSchema(bool nullable) {
  return std::make_shared<Schema>(std::vector<Field>{
      {"b", BooleanType(), nullable, {}},
      {"i8", ByteType(), nullable, {}},
      {"i16", ShortType(), nullable, {}},
      {"i32", IntegerType(), nullable, {}},
      {"i64", LongType(), nullable, {}},
      {"f32", FloatType(), nullable, {}},
      {"f64", DoubleType(), nullable, {}},
      {"d5", DecimalType(5, 2), nullable, {}},
      {"d15", DecimalType(15, 3), nullable, {}},
      {"d30", DecimalType(30, 4), nullable, {}},
      {"d38", DecimalType(38, 0), nullable, {}},
      {"day", DateType(), nullable, {}},
      {"ts", TimestampType(), nullable, {}},
      {"ntz", TimestampNtzType(), nullable, {}},
      {"s", StringType(), nullable, {}},
      {"bin", BinaryType(), nullable, {}},
  });
}

WriterOptions SmallGroups(CompressionCodec codec, bool dictionary) {
  WriterOptions options;
  options.codec = codec;
  options.dictionary = dictionary;
  options.row_group_max_rows = 1500;
  options.page_bytes = 2000;
  options.dictionary_page_bytes = 600;  // small, so some columns fall back to PLAIN
  return options;
}

TEST(ParquetWriteInteropTest, PrimitivesWithDictionarySnappy) {
  test::TempDir dir;
  SchemaPtr schema = PrimitiveSchema(true);
  auto batches = Generate(schema, 4000, 700, 1);
  WrittenFile file =
      WriteFile(dir, "p", schema, batches, SmallGroups(CompressionCodec::kSnappy, true));
  ASSERT_EQ(file.footer.row_groups.size(), 3u);
  ExpectDuckDbReadsValues(file, schema, batches);
  ExpectDuckDbStatisticsMatchData(file, schema);
}

TEST(ParquetWriteInteropTest, PrimitivesPlainZstd) {
  test::TempDir dir;
  SchemaPtr schema = PrimitiveSchema(true);
  auto batches = Generate(schema, 3000, 1000, 2);
  WrittenFile file =
      WriteFile(dir, "p", schema, batches, SmallGroups(CompressionCodec::kZstd, false));
  ExpectDuckDbReadsValues(file, schema, batches);
  ExpectDuckDbStatisticsMatchData(file, schema);
}

TEST(ParquetWriteInteropTest, RequiredColumnsEveryCodec) {
  SchemaPtr schema = PrimitiveSchema(false);
  for (CompressionCodec codec :
       {CompressionCodec::kUncompressed, CompressionCodec::kGzip, CompressionCodec::kBrotli,
        CompressionCodec::kLz4Raw, CompressionCodec::kZstd, CompressionCodec::kSnappy}) {
    SCOPED_TRACE(static_cast<int>(codec));
    test::TempDir dir;
    auto batches = Generate(schema, 1200, 1200, 3);
    WrittenFile file = WriteFile(dir, "r", schema, batches, SmallGroups(codec, true));
    ExpectDuckDbReadsValues(file, schema, batches);
  }
}

TEST(ParquetWriteInteropTest, AllNullColumns) {
  test::TempDir dir;
  auto schema = std::make_shared<Schema>(std::vector<Field>{
      {"v", NullType(), true, {}}, {"s", StringType(), true, {}}, {"n", LongType(), true, {}}});
  std::vector<VectorPtr> columns;
  for (const Field& field : schema->fields())
    columns.push_back(Vector::MakeAllNull(field.type, 50));
  std::vector<Batch> batches = {Batch(schema, columns, 50)};
  WrittenFile file = WriteFile(dir, "n", schema, batches, WriterOptions{});
  std::string output = RunDuckDb(
      {"SELECT count(*), count(v), count(s), count(n), typeof(any_value(v)) FROM read_parquet(" +
       SqlQuote(file.path) + ")"});
  // DuckDB maps the UNKNOWN logical type to its NULL type.
  ASSERT_EQ(Lines(output).size(), 2u);
  EXPECT_THAT(Lines(output)[1], ::testing::StartsWith("50,0,0,0,"));
  EXPECT_THAT(Lines(output)[1], ::testing::HasSubstr("NULL"));
  ExpectDuckDbStatisticsMatchData(file, schema);
}

SchemaPtr NestedSchema() {
  DataTypePtr point = StructType({{"x", IntegerType(), true, {}}, {"y", StringType(), true, {}}});
  return std::make_shared<Schema>(std::vector<Field>{
      {"id", LongType(), false, {}},
      {"st", point, true, {}},
      {"ints", ListType(IntegerType(), true), true, {}},
      {"required_ints", ListType(IntegerType(), false), false, {}},
      {"kv", MapType(StringType(), IntegerType(), true), true, {}},
      {"points", ListType(point, true), true, {}},
      {"with_list",
       StructType({{"l", ListType(StringType(), true), true, {}}, {"b", BooleanType(), false, {}}}),
       true,
       {}},
      {"tags", MapType(StringType(), ListType(StringType(), true), true), true, {}},
      {"deep", ListType(ListType(MapType(StringType(), LongType(), false), true), true), true, {}},
  });
}

TEST(ParquetWriteInteropTest, NestedWithDictionary) {
  test::TempDir dir;
  SchemaPtr schema = NestedSchema();
  auto batches = Generate(schema, 3000, 800, 4);
  WrittenFile file =
      WriteFile(dir, "n", schema, batches, SmallGroups(CompressionCodec::kSnappy, true));
  ASSERT_GT(file.footer.row_groups.size(), 1u);
  ExpectDuckDbReadsValues(file, schema, batches);
  ExpectDuckDbStatisticsMatchData(file, schema);
}

TEST(ParquetWriteInteropTest, NestedPlainGzip) {
  test::TempDir dir;
  SchemaPtr schema = NestedSchema();
  auto batches = Generate(schema, 2000, 2000, 5);
  WrittenFile file =
      WriteFile(dir, "n", schema, batches, SmallGroups(CompressionCodec::kGzip, false));
  ExpectDuckDbReadsValues(file, schema, batches);
}

TEST(ParquetWriteInteropTest, SlicedBatches) {
  test::TempDir dir;
  SchemaPtr schema = NestedSchema();
  auto batches = Generate(schema, 1000, 1000, 6);
  std::vector<Batch> slices = {batches[0].Slice(0, 333), batches[0].Slice(333, 1),
                               batches[0].Slice(334, 666)};
  WrittenFile file =
      WriteFile(dir, "s", schema, slices, SmallGroups(CompressionCodec::kZstd, true));
  ExpectDuckDbReadsValues(file, schema, slices);
}

TEST(ParquetWriteInteropTest, SchemaAsDuckDbSeesIt) {
  test::TempDir dir;
  auto schema = std::make_shared<Schema>(std::vector<Field>{
      {"i8", ByteType(), true, {{"parquet.field.id", "1"}}},
      {"i16", ShortType(), false, {{"parquet.field.id", "2"}}},
      {"d5", DecimalType(5, 2), true, {}},
      {"d15", DecimalType(15, 2), true, {}},
      {"d30", DecimalType(30, 2), true, {}},
      {"d38", DecimalType(38, 10), true, {}},
      {"day", DateType(), true, {}},
      {"ts", TimestampType(), true, {}},
      {"ntz", TimestampNtzType(), true, {}},
      {"s", StringType(), true, {}},
      {"bin", BinaryType(), true, {}},
      {"l", ListType(IntegerType(), true), true, {}},
      {"m", MapType(StringType(), DoubleType(), false), true, {}},
  });
  auto batches = Generate(schema, 10, 10, 7);
  WriterOptions options;
  options.write_field_ids = true;
  options.key_value_metadata = {{"origin", std::string("silt test")}};
  WrittenFile file = WriteFile(dir, "schema", schema, batches, options);
  std::string output = RunDuckDb(
      {"SELECT name, type, converted_type, repetition_type, type_length, precision, scale, "
       "field_id, logical_type IS NOT NULL FROM parquet_schema(" +
       SqlQuote(file.path) + ")"});
  EXPECT_THAT(Lines(output),
              ElementsAreArray(std::vector<std::string>{
                  "name,type,converted_type,repetition_type,type_length,precision,scale,field_id,"
                  "(logical_type IS NOT NULL)",
                  // parquet.thrift: the root has no repetition_type.
                  "spark_schema,,,,,,,,false",
                  "i8,INT32,INT_8,OPTIONAL,,,,1,true",
                  "i16,INT32,INT_16,REQUIRED,,,,2,true",
                  "d5,INT32,DECIMAL,OPTIONAL,,5,2,,true",
                  "d15,INT64,DECIMAL,OPTIONAL,,15,2,,true",
                  "d30,FIXED_LEN_BYTE_ARRAY,DECIMAL,OPTIONAL,13,30,2,,true",
                  "d38,FIXED_LEN_BYTE_ARRAY,DECIMAL,OPTIONAL,16,38,10,,true",
                  "day,INT32,DATE,OPTIONAL,,,,,true",
                  "ts,INT64,TIMESTAMP_MICROS,OPTIONAL,,,,,true",
                  "ntz,INT64,,OPTIONAL,,,,,true",
                  "s,BYTE_ARRAY,UTF8,OPTIONAL,,,,,true",
                  "bin,BYTE_ARRAY,,OPTIONAL,,,,,false",
                  "l,,LIST,OPTIONAL,,,,,true",
                  "list,,,REPEATED,,,,,false",
                  "element,INT32,,OPTIONAL,,,,,false",
                  "m,,MAP,OPTIONAL,,,,,true",
                  "key_value,,,REPEATED,,,,,false",
                  "key,BYTE_ARRAY,UTF8,REQUIRED,,,,,true",
                  "value,DOUBLE,,REQUIRED,,,,,false",
              }));
  std::string types = RunDuckDb(
      {"SELECT string_agg(column_name || ' ' || column_type, ', ') FROM (DESCRIBE SELECT * FROM "
       "read_parquet(" +
       SqlQuote(file.path) + "))"});
  EXPECT_THAT(types, ::testing::HasSubstr(
                         "i8 TINYINT, i16 SMALLINT, d5 DECIMAL(5,2), d15 DECIMAL(15,2), d30 "
                         "DECIMAL(30,2), d38 DECIMAL(38,10), day DATE, ts TIMESTAMP WITH TIME "
                         "ZONE, ntz TIMESTAMP, s VARCHAR, bin BLOB, l INTEGER[], m MAP(VARCHAR, "
                         "DOUBLE)"));
  std::string metadata =
      RunDuckDb({"SELECT decode(key) || '=' || decode(value) FROM parquet_kv_metadata(" +
                 SqlQuote(file.path) + ")"});
  EXPECT_THAT(metadata, ::testing::HasSubstr("origin=silt test"));
  std::string created_by =
      RunDuckDb({"SELECT created_by FROM parquet_file_metadata(" + SqlQuote(file.path) + ")"});
  EXPECT_THAT(created_by, ::testing::HasSubstr(std::string("silt version ") + SILT_VERSION));
}

TEST(ParquetWriteInteropTest, TruncatedStringStatisticsAreBounds) {
  test::TempDir dir;
  auto schema = std::make_shared<Schema>(std::vector<Field>{{"s", StringType(), true, {}}});
  VectorBuilder builder(StringType());
  builder.AppendString(std::string(100, 'b') + "tail");
  builder.AppendString(std::string(80, 'a'));
  builder.AppendString("c" + std::string(70, 'z') + "\xC3\xA9");
  std::vector<Batch> batches = {Batch(schema, {builder.Finish()}, 3)};
  WriterOptions options;
  options.statistics_truncate_bytes = 16;
  WrittenFile file = WriteFile(dir, "t", schema, batches, options);
  std::string output =
      RunDuckDb({"SELECT length(stats_min_value) <= 16, stats_min_value <= (SELECT min(s) FROM "
                 "read_parquet(" +
                 SqlQuote(file.path) +
                 ")), stats_max_value >= (SELECT max(s) FROM "
                 "read_parquet(" +
                 SqlQuote(file.path) + ")), stats_max_value FROM parquet_metadata(" +
                 SqlQuote(file.path) + ")"});
  // The max "c" + 70 * "z" + "é" keeps 16 bytes with the last one incremented.
  EXPECT_THAT(Lines(output), ::testing::Contains("true,true,true,c" + std::string(14, 'z') + "{"));
  ExpectDuckDbReadsValues(file, schema, batches);
}

}  // namespace
}  // namespace silt::parquet
