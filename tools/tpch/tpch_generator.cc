#include "tools/tpch/tpch_generator.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <functional>
#include <mutex>
#include <string_view>
#include <utility>

#include "silt/base/check.h"
#include "silt/base/thread_pool.h"
#include "silt/log/data_file_writer.h"
#include "silt/log/transaction.h"
#include "silt/types/schema_json.h"
#include "silt/vector/batch.h"
#include "silt/vector/vector.h"

namespace silt::tpch {

namespace {

// ---- randomness: every row draws from its own stream, so chunks can be made in any order ----

uint64_t Mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

class RowRandom {
 public:
  RowRandom(uint64_t seed, uint64_t table, uint64_t row)
      : state_(Mix(Mix(seed * 31 + table) ^ (row * 0x632BE59BD9B4E019ull))) {}

  uint64_t Next() {
    state_ += 0x9E3779B97F4A7C15ull;
    return Mix(state_);
  }
  /// Uniform in [low, high].
  int64_t Uniform(int64_t low, int64_t high) {
    return low + static_cast<int64_t>(Next() % static_cast<uint64_t>(high - low + 1));
  }
  template <typename T, size_t N>
  const T& Pick(const std::array<T, N>& values) {
    return values[static_cast<size_t>(Uniform(0, static_cast<int64_t>(N) - 1))];
  }

 private:
  uint64_t state_;
};

// Table tags of the random streams (persisted in the data a seed gives; never renumber).
enum class Stream : uint64_t {
  kRegion = 1,
  kNation = 2,
  kSupplier = 3,
  kPart = 4,
  kPartSupp = 5,
  kCustomer = 6,
  kOrders = 7,
  kTextPool = 8,
};

// ---- the specification's value domains (clause 4.2.2.13 and 4.2.3) ----

constexpr std::array<const char*, 5> kRegions = {"AFRICA", "AMERICA", "ASIA", "EUROPE",
                                                 "MIDDLE EAST"};

struct NationEntry {
  const char* name;
  int region;
};
constexpr std::array<NationEntry, 25> kNations = {{
    {"ALGERIA", 0},       {"ARGENTINA", 1}, {"BRAZIL", 1}, {"CANADA", 1},
    {"EGYPT", 4},         {"ETHIOPIA", 0},  {"FRANCE", 3}, {"GERMANY", 3},
    {"INDIA", 2},         {"INDONESIA", 2}, {"IRAN", 4},   {"IRAQ", 4},
    {"JAPAN", 2},         {"JORDAN", 4},    {"KENYA", 0},  {"MOROCCO", 0},
    {"MOZAMBIQUE", 0},    {"PERU", 1},      {"CHINA", 2},  {"ROMANIA", 3},
    {"SAUDI ARABIA", 4},  {"VIETNAM", 2},   {"RUSSIA", 3}, {"UNITED KINGDOM", 3},
    {"UNITED STATES", 1},
}};

// The colours part names are made of (P_NAME: five distinct ones).
constexpr std::array<const char*, 92> kColours = {
    "almond",   "antique",   "aquamarine", "azure",      "beige",     "bisque",    "black",
    "blanched", "blue",      "blush",      "brown",      "burlywood", "burnished", "chartreuse",
    "chiffon",  "chocolate", "coral",      "cornflower", "cornsilk",  "cream",     "cyan",
    "dark",     "deep",      "dim",        "dodger",     "drab",      "firebrick", "floral",
    "forest",   "frosted",   "gainsboro",  "ghost",      "goldenrod", "green",     "grey",
    "honeydew", "hot",       "indian",     "ivory",      "khaki",     "lace",      "lavender",
    "lawn",     "lemon",     "light",      "lime",       "linen",     "magenta",   "maroon",
    "medium",   "metallic",  "midnight",   "mint",       "misty",     "moccasin",  "navajo",
    "navy",     "olive",     "orange",     "orchid",     "pale",      "papaya",    "peach",
    "peru",     "pink",      "plum",       "powder",     "puff",      "purple",    "red",
    "rose",     "rosy",      "royal",      "saddle",     "salmon",    "sandy",     "seashell",
    "sienna",   "sky",       "slate",      "smoke",      "snow",      "spring",    "steel",
    "tan",      "thistle",   "tomato",     "turquoise",  "violet",    "wheat",     "white",
    "yellow",
};

constexpr std::array<const char*, 6> kTypeSize = {"STANDARD", "SMALL",   "MEDIUM",
                                                  "LARGE",    "ECONOMY", "PROMO"};
constexpr std::array<const char*, 5> kTypeFinish = {"ANODIZED", "BURNISHED", "PLATED", "POLISHED",
                                                    "BRUSHED"};
constexpr std::array<const char*, 5> kTypeMaterial = {"TIN", "NICKEL", "BRASS", "STEEL", "COPPER"};
constexpr std::array<const char*, 5> kContainerSize = {"SM", "LG", "MED", "JUMBO", "WRAP"};
constexpr std::array<const char*, 8> kContainerKind = {"CASE", "BOX",  "BAG", "JAR",
                                                       "PKG",  "PACK", "CAN", "DRUM"};
constexpr std::array<const char*, 5> kSegments = {"AUTOMOBILE", "BUILDING", "FURNITURE",
                                                  "MACHINERY", "HOUSEHOLD"};
constexpr std::array<const char*, 5> kPriorities = {"1-URGENT", "2-HIGH", "3-MEDIUM",
                                                    "4-NOT SPECIFIED", "5-LOW"};
constexpr std::array<const char*, 4> kInstructions = {"DELIVER IN PERSON", "COLLECT COD", "NONE",
                                                      "TAKE BACK RETURN"};
constexpr std::array<const char*, 7> kShipModes = {"REG AIR", "AIR",  "RAIL", "SHIP",
                                                   "TRUCK",   "MAIL", "FOB"};

// Words of the comment text. The queries look for "special ... requests" (Q13) and the
// supplier complaints are inserted separately (Q16).
constexpr std::array<const char*, 24> kNouns = {
    "packages",    "requests",    "accounts",     "deposits",     "foxes",    "ideas",
    "theodolites", "pinto beans", "instructions", "dependencies", "excuses",  "platelets",
    "asymptotes",  "courts",      "dolphins",     "multipliers",  "warthogs", "frets",
    "dinos",       "patterns",    "braids",       "pearls",       "sheaves",  "realms"};
constexpr std::array<const char*, 20> kVerbs = {
    "sleep", "wake",    "are",    "cajole",    "haggle",   "nag", "use",
    "boost", "affix",   "detect", "integrate", "maintain", "nod", "lose",
    "solve", "promise", "engage", "print",     "serve",    "doze"};
constexpr std::array<const char*, 16> kAdjectives = {
    "furious", "sly",   "careful", "blithe", "quick", "fluffy",  "slow",    "quiet",
    "regular", "final", "ironic",  "even",   "bold",  "express", "special", "pending"};
constexpr std::array<const char*, 14> kAdverbs = {
    "sometimes", "always",   "never",  "furiously", "slyly",     "carefully", "blithely",
    "quickly",   "fluffily", "slowly", "quietly",   "regularly", "finally",   "boldly"};
constexpr std::array<const char*, 12> kPrepositions = {"about",   "above",   "across", "after",
                                                       "against", "along",   "among",  "around",
                                                       "beside",  "beneath", "toward", "upon"};
constexpr std::array<const char*, 8> kAuxiliaries = {"do",   "may",   "might", "shall",
                                                     "will", "would", "can",   "should"};
constexpr std::array<const char*, 5> kTerminators = {".", ";", ":", "?", "!"};

// Days since 1970-01-01 of a civil date (proleptic Gregorian).
int32_t DaysFromCivil(int year, int month, int day) {
  year -= month <= 2 ? 1 : 0;
  const int era = (year >= 0 ? year : year - 399) / 400;
  const int year_of_era = year - era * 400;
  const int day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const int day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + day_of_era - 719468;
}

const int32_t kStartDate = DaysFromCivil(1992, 1, 1);
const int32_t kEndDate = DaysFromCivil(1998, 12, 31);
// The date that splits shipped from open lines and returned from not yet returned ones.
const int32_t kCurrentDate = DaysFromCivil(1995, 6, 17);

// The pool comments are cut from (clause 4.2.2.10 does the same with a larger pool).
class TextPool {
 public:
  explicit TextPool(uint64_t seed) {
    RowRandom random(seed, static_cast<uint64_t>(Stream::kTextPool), 0);
    while (text_.size() < kSize) AppendSentence(random);
    text_.resize(kSize);
  }

  /// A comment of a length uniform in [min_length, max_length].
  std::string_view Comment(RowRandom& random, int64_t min_length, int64_t max_length) const {
    int64_t length = random.Uniform(min_length, max_length);
    int64_t offset = random.Uniform(0, static_cast<int64_t>(kSize) - length);
    return std::string_view(text_).substr(static_cast<size_t>(offset), static_cast<size_t>(length));
  }

 private:
  static constexpr size_t kSize = 1 << 22;

  void Append(const char* word) {
    if (!text_.empty() && text_.back() != ' ') text_ += ' ';
    text_ += word;
  }
  void AppendNounPhrase(RowRandom& random) {
    switch (random.Uniform(0, 3)) {
      case 0:
        break;
      case 1:
        Append(random.Pick(kAdjectives));
        break;
      case 2:
        Append(random.Pick(kAdjectives));
        text_ += ',';
        Append(random.Pick(kAdjectives));
        break;
      default:
        Append(random.Pick(kAdverbs));
        Append(random.Pick(kAdjectives));
        break;
    }
    Append(random.Pick(kNouns));
  }
  void AppendVerbPhrase(RowRandom& random) {
    int64_t kind = random.Uniform(0, 3);
    if (kind & 1) Append(random.Pick(kAuxiliaries));
    Append(random.Pick(kVerbs));
    if (kind & 2) Append(random.Pick(kAdverbs));
  }
  void AppendSentence(RowRandom& random) {
    AppendNounPhrase(random);
    AppendVerbPhrase(random);
    switch (random.Uniform(0, 2)) {
      case 0:
        break;
      case 1:
        Append(random.Pick(kPrepositions));
        Append("the");
        AppendNounPhrase(random);
        break;
      default:
        AppendNounPhrase(random);
        break;
    }
    text_ += random.Pick(kTerminators);
    text_ += ' ';
  }

  std::string text_;
};

// ---- columns ----

Field Column(const char* name, DataTypePtr type) { return Field{name, std::move(type), false, {}}; }

DataTypePtr Money() { return DecimalType(15, 2); }

SchemaPtr MakeSchema(std::vector<Field> fields) {
  return std::make_shared<Schema>(std::move(fields));
}

// Builds one batch column by column: Add* appends to column `i` of the current row.
class BatchBuilder {
 public:
  BatchBuilder(SchemaPtr schema, int64_t capacity) : schema_(std::move(schema)) {
    for (const Field& field : schema_->fields()) {
      builders_.push_back(std::make_unique<VectorBuilder>(field.type, capacity));
    }
  }
  void Int(size_t i, int64_t value) { builders_[i]->AppendInt(value); }
  void Cents(size_t i, int64_t cents) {
    builders_[i]->AppendDecimal(static_cast<Decimal128>(cents));
  }
  void Text(size_t i, std::string_view value) { builders_[i]->AppendString(value); }
  int64_t rows() const { return builders_.empty() ? 0 : builders_[0]->length(); }

  Batch Finish() {
    int64_t num_rows = rows();
    std::vector<VectorPtr> columns;
    for (auto& builder : builders_) columns.push_back(builder->Finish());
    return Batch(schema_, std::move(columns), num_rows);
  }

 private:
  SchemaPtr schema_;
  std::vector<std::unique_ptr<VectorBuilder>> builders_;
};

// "Supplier#000000042": a prefix and a key padded to nine digits.
std::string_view PaddedName(char* buffer, size_t size, const char* prefix, int64_t key) {
  int length = std::snprintf(buffer, size, "%s%09lld", prefix, static_cast<long long>(key));
  return std::string_view(buffer, static_cast<size_t>(length));
}

// "CC-LLL-LLL-LLLL" where CC is the nation key + 10 (clause 4.2.2.9).
std::string_view Phone(char* buffer, size_t size, RowRandom& random, int64_t nation) {
  int length = std::snprintf(buffer, size, "%02lld-%03lld-%03lld-%04lld",
                             static_cast<long long>(nation + 10),
                             static_cast<long long>(random.Uniform(100, 999)),
                             static_cast<long long>(random.Uniform(100, 999)),
                             static_cast<long long>(random.Uniform(1000, 9999)));
  return std::string_view(buffer, static_cast<size_t>(length));
}

// A v-string address of 10 to 40 characters from the alphabet of clause 4.2.2.7.
std::string_view Address(char* buffer, RowRandom& random) {
  static constexpr std::string_view kAlphabet =
      "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ,. ";
  int64_t length = random.Uniform(10, 40);
  for (int64_t i = 0; i < length; ++i) {
    buffer[i] = kAlphabet[static_cast<size_t>(random.Uniform(0, kAlphabet.size() - 1))];
  }
  return std::string_view(buffer, static_cast<size_t>(length));
}

int64_t RetailPriceCents(int64_t part_key) {
  return 90000 + ((part_key / 10) % 20001) + 100 * (part_key % 1000);
}

// The i-th (0..3) supplier of a part (clause 4.2.3's PS_SUPPKEY formula).
int64_t SupplierOfPart(int64_t part_key, int64_t i, int64_t suppliers) {
  return (part_key + i * (suppliers / 4 + (part_key - 1) / suppliers)) % suppliers + 1;
}

// Orders use the first 8 keys of every 32 (clause 4.2.3: sparse keys).
int64_t OrderKey(int64_t index) { return (index / 8) * 32 + index % 8 + 1; }

struct Sizes {
  int64_t suppliers;
  int64_t parts;
  int64_t customers;
  int64_t orders;
  int64_t clerks;
};

// ---- writing: chunks of rows become data files on the thread pool, one commit per table ----

constexpr int64_t kChunkRows = 250000;
constexpr int64_t kOrdersPerChunk = 75000;

class TableSink {
 public:
  TableSink(std::shared_ptr<io::FileSystem> fs, std::string root, SchemaPtr schema)
      : fs_(std::move(fs)), root_(std::move(root)), schema_(std::move(schema)) {
    transaction_ = log::Transaction::StartCreate(fs_, root_);
    log::Metadata metadata;
    metadata.schema_string = ToDeltaSchemaJson(*schema_);
    transaction_->UpdateMetadata(metadata);
  }

  const SchemaPtr& schema() const { return schema_; }

  /// Writes one chunk as its own data file; any thread.
  void Write(const Batch& batch) {
    if (batch.num_rows() == 0) return;
    auto writer = log::DataFileWriter::Make(fs_, root_, transaction_->metadata());
    writer->Write(batch);
    std::vector<log::AddFile> adds = writer->Finish();
    std::lock_guard<std::mutex> lock(mutex_);
    rows_ += batch.num_rows();
    for (auto& add : adds) adds_.push_back(std::move(add));
  }

  GeneratedTable Commit(const std::string& name) {
    // The file order of the log follows the chunks, whatever thread finished first.
    std::sort(adds_.begin(), adds_.end(),
              [](const log::AddFile& a, const log::AddFile& b) { return a.path < b.path; });
    int64_t bytes = 0;
    int64_t files = static_cast<int64_t>(adds_.size());
    for (auto& add : adds_) {
      bytes += add.size;
      transaction_->Add(std::move(add));
    }
    transaction_->SetOperation("CREATE TABLE AS SELECT",
                               {{"partitionBy", "\"[]\""},
                                {"description", "null"},
                                {"isManaged", "\"false\""},
                                {"properties", "\"{}\""}},
                               {{"numFiles", std::to_string(files)},
                                {"numOutputRows", std::to_string(rows_)},
                                {"numOutputBytes", std::to_string(bytes)}});
    transaction_->Commit();
    return GeneratedTable{name, root_, rows_, files};
  }

 private:
  std::shared_ptr<io::FileSystem> fs_;
  std::string root_;
  SchemaPtr schema_;
  std::unique_ptr<log::Transaction> transaction_;
  std::mutex mutex_;
  std::vector<log::AddFile> adds_;
  int64_t rows_ = 0;
};

void ForEachChunk(int64_t rows, int64_t chunk_rows,
                  const std::function<void(int64_t, int64_t)>& body) {
  int64_t chunks = (rows + chunk_rows - 1) / chunk_rows;
  ThreadPool::Default().ParallelFor(static_cast<size_t>(chunks), [&](size_t chunk) {
    int64_t begin = static_cast<int64_t>(chunk) * chunk_rows;
    body(begin, std::min(rows, begin + chunk_rows));
  });
}

class Generator {
 public:
  Generator(std::shared_ptr<io::FileSystem> fs, std::string folder, const GenerateOptions& options,
            Sizes sizes)
      : fs_(std::move(fs)),
        folder_(std::move(folder)),
        seed_(options.seed),
        sizes_(sizes),
        text_(options.seed) {}

  std::vector<GeneratedTable> Run() {
    std::vector<GeneratedTable> tables;
    tables.push_back(Region());
    tables.push_back(Nation());
    tables.push_back(Supplier());
    tables.push_back(Part());
    tables.push_back(PartSupp());
    tables.push_back(Customer());
    auto [orders, lineitem] = OrdersAndLineitem();
    tables.push_back(std::move(orders));
    tables.push_back(std::move(lineitem));
    return tables;
  }

 private:
  TableSink Sink(const std::string& name, std::vector<Field> fields) {
    return TableSink(fs_, folder_ + "/" + name, MakeSchema(std::move(fields)));
  }

  GeneratedTable Region() {
    TableSink sink =
        Sink("region", {Column("r_regionkey", IntegerType()), Column("r_name", StringType()),
                        Column("r_comment", StringType())});
    BatchBuilder rows(sink.schema(), kRegions.size());
    for (size_t key = 0; key < kRegions.size(); ++key) {
      RowRandom random(seed_, static_cast<uint64_t>(Stream::kRegion), key);
      rows.Int(0, static_cast<int64_t>(key));
      rows.Text(1, kRegions[key]);
      rows.Text(2, text_.Comment(random, 31, 115));
    }
    sink.Write(rows.Finish());
    return sink.Commit("region");
  }

  GeneratedTable Nation() {
    TableSink sink =
        Sink("nation", {Column("n_nationkey", IntegerType()), Column("n_name", StringType()),
                        Column("n_regionkey", IntegerType()), Column("n_comment", StringType())});
    BatchBuilder rows(sink.schema(), kNations.size());
    for (size_t key = 0; key < kNations.size(); ++key) {
      RowRandom random(seed_, static_cast<uint64_t>(Stream::kNation), key);
      rows.Int(0, static_cast<int64_t>(key));
      rows.Text(1, kNations[key].name);
      rows.Int(2, kNations[key].region);
      rows.Text(3, text_.Comment(random, 31, 114));
    }
    sink.Write(rows.Finish());
    return sink.Commit("nation");
  }

  GeneratedTable Supplier() {
    TableSink sink =
        Sink("supplier", {Column("s_suppkey", LongType()), Column("s_name", StringType()),
                          Column("s_address", StringType()), Column("s_nationkey", IntegerType()),
                          Column("s_phone", StringType()), Column("s_acctbal", Money()),
                          Column("s_comment", StringType())});
    // Clause 4.2.3: SF * 5 suppliers complain ("Customer ... Complaints") and as many recommend;
    // at least one of each at small scales, spread evenly over the keys.
    int64_t marked = std::max<int64_t>(1, sizes_.suppliers / 2000);
    int64_t step = std::max<int64_t>(1, sizes_.suppliers / marked);
    ForEachChunk(sizes_.suppliers, kChunkRows, [&](int64_t begin, int64_t end) {
      BatchBuilder rows(sink.schema(), end - begin);
      char buffer[64];
      std::string comment;
      for (int64_t index = begin; index < end; ++index) {
        RowRandom random(seed_, static_cast<uint64_t>(Stream::kSupplier),
                         static_cast<uint64_t>(index));
        int64_t key = index + 1;
        int64_t nation = random.Uniform(0, 24);
        rows.Int(0, key);
        rows.Text(1, PaddedName(buffer, sizeof(buffer), "Supplier#", key));
        rows.Text(2, Address(buffer, random));
        rows.Int(3, nation);
        rows.Text(4, Phone(buffer, sizeof(buffer), random, nation));
        rows.Cents(5, random.Uniform(-99999, 999999));
        comment.assign(text_.Comment(random, 25, 100));
        if (index % step == step / 2 && index / step < 2 * marked) {
          const char* verdict = (index / step) % 2 == 0 ? "Complaints" : "Recommends";
          comment = std::string(text_.Comment(random, 5, 25)) + " Customer " +
                    std::string(text_.Comment(random, 5, 25)) + " " + verdict + " " +
                    std::string(text_.Comment(random, 5, 25));
        }
        rows.Text(6, comment);
      }
      sink.Write(rows.Finish());
    });
    return sink.Commit("supplier");
  }

  GeneratedTable Part() {
    TableSink sink =
        Sink("part", {Column("p_partkey", LongType()), Column("p_name", StringType()),
                      Column("p_mfgr", StringType()), Column("p_brand", StringType()),
                      Column("p_type", StringType()), Column("p_size", IntegerType()),
                      Column("p_container", StringType()), Column("p_retailprice", Money()),
                      Column("p_comment", StringType())});
    ForEachChunk(sizes_.parts, kChunkRows, [&](int64_t begin, int64_t end) {
      BatchBuilder rows(sink.schema(), end - begin);
      std::string text;
      for (int64_t index = begin; index < end; ++index) {
        RowRandom random(seed_, static_cast<uint64_t>(Stream::kPart), static_cast<uint64_t>(index));
        int64_t key = index + 1;
        rows.Int(0, key);
        // Five distinct colours.
        std::array<size_t, 5> chosen{};
        for (size_t i = 0; i < chosen.size(); ++i) {
          size_t colour;
          do {
            colour = static_cast<size_t>(random.Uniform(0, kColours.size() - 1));
          } while (std::find(chosen.begin(), chosen.begin() + static_cast<long>(i), colour) !=
                   chosen.begin() + static_cast<long>(i));
          chosen[i] = colour;
        }
        text.clear();
        for (size_t colour : chosen) {
          if (!text.empty()) text += ' ';
          text += kColours[colour];
        }
        rows.Text(1, text);
        int64_t manufacturer = random.Uniform(1, 5);
        text = "Manufacturer#" + std::to_string(manufacturer);
        rows.Text(2, text);
        text = "Brand#" + std::to_string(manufacturer) + std::to_string(random.Uniform(1, 5));
        rows.Text(3, text);
        text = std::string(random.Pick(kTypeSize)) + " " + random.Pick(kTypeFinish) + " " +
               random.Pick(kTypeMaterial);
        rows.Text(4, text);
        rows.Int(5, random.Uniform(1, 50));
        text = std::string(random.Pick(kContainerSize)) + " " + random.Pick(kContainerKind);
        rows.Text(6, text);
        rows.Cents(7, RetailPriceCents(key));
        rows.Text(8, text_.Comment(random, 5, 22));
      }
      sink.Write(rows.Finish());
    });
    return sink.Commit("part");
  }

  GeneratedTable PartSupp() {
    TableSink sink =
        Sink("partsupp", {Column("ps_partkey", LongType()), Column("ps_suppkey", LongType()),
                          Column("ps_availqty", IntegerType()), Column("ps_supplycost", Money()),
                          Column("ps_comment", StringType())});
    ForEachChunk(sizes_.parts, kChunkRows / 4, [&](int64_t begin, int64_t end) {
      BatchBuilder rows(sink.schema(), (end - begin) * 4);
      for (int64_t index = begin; index < end; ++index) {
        int64_t part = index + 1;
        for (int64_t i = 0; i < 4; ++i) {
          RowRandom random(seed_, static_cast<uint64_t>(Stream::kPartSupp),
                           static_cast<uint64_t>(index * 4 + i));
          rows.Int(0, part);
          rows.Int(1, SupplierOfPart(part, i, sizes_.suppliers));
          rows.Int(2, random.Uniform(1, 9999));
          rows.Cents(3, random.Uniform(100, 100000));
          rows.Text(4, text_.Comment(random, 49, 198));
        }
      }
      sink.Write(rows.Finish());
    });
    return sink.Commit("partsupp");
  }

  GeneratedTable Customer() {
    TableSink sink =
        Sink("customer", {Column("c_custkey", LongType()), Column("c_name", StringType()),
                          Column("c_address", StringType()), Column("c_nationkey", IntegerType()),
                          Column("c_phone", StringType()), Column("c_acctbal", Money()),
                          Column("c_mktsegment", StringType()), Column("c_comment", StringType())});
    ForEachChunk(sizes_.customers, kChunkRows, [&](int64_t begin, int64_t end) {
      BatchBuilder rows(sink.schema(), end - begin);
      char buffer[64];
      for (int64_t index = begin; index < end; ++index) {
        RowRandom random(seed_, static_cast<uint64_t>(Stream::kCustomer),
                         static_cast<uint64_t>(index));
        int64_t key = index + 1;
        int64_t nation = random.Uniform(0, 24);
        rows.Int(0, key);
        rows.Text(1, PaddedName(buffer, sizeof(buffer), "Customer#", key));
        rows.Text(2, Address(buffer, random));
        rows.Int(3, nation);
        rows.Text(4, Phone(buffer, sizeof(buffer), random, nation));
        rows.Cents(5, random.Uniform(-99999, 999999));
        rows.Text(6, random.Pick(kSegments));
        rows.Text(7, text_.Comment(random, 29, 116));
      }
      sink.Write(rows.Finish());
    });
    return sink.Commit("customer");
  }

  std::pair<GeneratedTable, GeneratedTable> OrdersAndLineitem() {
    TableSink orders =
        Sink("orders", {Column("o_orderkey", LongType()), Column("o_custkey", LongType()),
                        Column("o_orderstatus", StringType()), Column("o_totalprice", Money()),
                        Column("o_orderdate", DateType()), Column("o_orderpriority", StringType()),
                        Column("o_clerk", StringType()), Column("o_shippriority", IntegerType()),
                        Column("o_comment", StringType())});
    TableSink lineitem = Sink(
        "lineitem", {Column("l_orderkey", LongType()), Column("l_partkey", LongType()),
                     Column("l_suppkey", LongType()), Column("l_linenumber", IntegerType()),
                     Column("l_quantity", Money()), Column("l_extendedprice", Money()),
                     Column("l_discount", Money()), Column("l_tax", Money()),
                     Column("l_returnflag", StringType()), Column("l_linestatus", StringType()),
                     Column("l_shipdate", DateType()), Column("l_commitdate", DateType()),
                     Column("l_receiptdate", DateType()), Column("l_shipinstruct", StringType()),
                     Column("l_shipmode", StringType()), Column("l_comment", StringType())});
    ForEachChunk(sizes_.orders, kOrdersPerChunk, [&](int64_t begin, int64_t end) {
      BatchBuilder order_rows(orders.schema(), end - begin);
      BatchBuilder line_rows(lineitem.schema(), (end - begin) * 4);
      char buffer[64];
      for (int64_t index = begin; index < end; ++index) {
        RowRandom random(seed_, static_cast<uint64_t>(Stream::kOrders),
                         static_cast<uint64_t>(index));
        int64_t key = OrderKey(index);
        // Customers whose key is a multiple of three place no orders (clause 4.2.3).
        int64_t customer;
        do {
          customer = random.Uniform(1, sizes_.customers);
        } while (customer % 3 == 0 && sizes_.customers >= 3);
        int64_t order_date = random.Uniform(kStartDate, kEndDate - 151);
        int64_t lines = random.Uniform(1, 7);
        int64_t total_cents = 0;
        int64_t shipped = 0;
        for (int64_t line = 1; line <= lines; ++line) {
          int64_t part = random.Uniform(1, sizes_.parts);
          int64_t supplier = SupplierOfPart(part, random.Uniform(0, 3), sizes_.suppliers);
          int64_t quantity = random.Uniform(1, 50);
          int64_t price_cents = quantity * RetailPriceCents(part);
          int64_t discount = random.Uniform(0, 10);
          int64_t tax = random.Uniform(0, 8);
          int64_t ship_date = order_date + random.Uniform(1, 121);
          int64_t commit_date = order_date + random.Uniform(30, 90);
          int64_t receipt_date = ship_date + random.Uniform(1, 30);
          const char* return_flag =
              receipt_date <= kCurrentDate ? (random.Uniform(0, 1) == 0 ? "R" : "A") : "N";
          bool open = ship_date > kCurrentDate;
          shipped += open ? 0 : 1;
          // price * (1 + tax) * (1 - discount), rounded to cents.
          total_cents += (price_cents * (100 + tax) * (100 - discount) + 5000) / 10000;
          line_rows.Int(0, key);
          line_rows.Int(1, part);
          line_rows.Int(2, supplier);
          line_rows.Int(3, line);
          line_rows.Cents(4, quantity * 100);
          line_rows.Cents(5, price_cents);
          line_rows.Cents(6, discount);
          line_rows.Cents(7, tax);
          line_rows.Text(8, return_flag);
          line_rows.Text(9, open ? "O" : "F");
          line_rows.Int(10, ship_date);
          line_rows.Int(11, commit_date);
          line_rows.Int(12, receipt_date);
          line_rows.Text(13, random.Pick(kInstructions));
          line_rows.Text(14, random.Pick(kShipModes));
          line_rows.Text(15, text_.Comment(random, 10, 43));
        }
        order_rows.Int(0, key);
        order_rows.Int(1, customer);
        order_rows.Text(2, shipped == lines ? "F" : shipped == 0 ? "O" : "P");
        order_rows.Cents(3, total_cents);
        order_rows.Int(4, order_date);
        order_rows.Text(5, random.Pick(kPriorities));
        order_rows.Text(
            6, PaddedName(buffer, sizeof(buffer), "Clerk#", random.Uniform(1, sizes_.clerks)));
        order_rows.Int(7, 0);
        order_rows.Text(8, text_.Comment(random, 19, 78));
      }
      orders.Write(order_rows.Finish());
      lineitem.Write(line_rows.Finish());
    });
    return {orders.Commit("orders"), lineitem.Commit("lineitem")};
  }

  std::shared_ptr<io::FileSystem> fs_;
  std::string folder_;
  uint64_t seed_;
  Sizes sizes_;
  TextPool text_;
};

}  // namespace

const std::vector<std::string>& TableNames() {
  static const std::vector<std::string> kNames = {"region",   "nation",   "supplier", "part",
                                                  "partsupp", "customer", "orders",   "lineitem"};
  return kNames;
}

std::vector<GeneratedTable> Generate(std::shared_ptr<io::FileSystem> fs, const std::string& folder,
                                     const GenerateOptions& options) {
  // Below 0.01 the partsupp key formula repeats suppliers of a part; above 100,000 the order keys
  // leave BIGINT's comfortable range of the formulas' intermediate products.
  if (!(options.scale_factor >= 0.01 && options.scale_factor <= 100000)) {
    SILT_THROW(INVALID_PARAMETER_VALUE,
               {{"parameter", "`scale_factor`"},
                {"functionName", "`tpch::Generate`"},
                {"message", "expects a scale factor from 0.01 to 100000, got " + [&] {
                   char text[32];
                   std::snprintf(text, sizeof(text), "%g", options.scale_factor);
                   return std::string(text);
                 }()}});
  }
  auto scaled = [&](double base) {
    return std::max<int64_t>(1, static_cast<int64_t>(std::llround(base * options.scale_factor)));
  };
  Sizes sizes{scaled(10000), scaled(200000), scaled(150000), scaled(1500000), scaled(1000)};
  return Generator(std::move(fs), folder, options, sizes).Run();
}

}  // namespace silt::tpch
