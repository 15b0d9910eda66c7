#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <numeric>
#include <string>
#include <string_view>

#include "silt/base/check.h"
#include "silt/base/thread_pool.h"
#include "silt/io/read_ahead.h"
#include "silt/parquet/column_reader.h"
#include "silt/parquet/reader.h"
#include "silt/parquet/schema_from_parquet.h"
#include "silt/vector/take.h"

namespace silt::parquet {
namespace {

constexpr char kMagic[] = "PAR1";
constexpr char kEncryptedMagic[] = "PARE";
constexpr size_t kMagicSize = 4;
constexpr size_t kFooterTailSize = 8;  // footer length + magic
// The first read of a file: its last 64 KiB, where the footer of most files fits.
constexpr uint64_t kFooterReadSize = 64 << 10;

[[noreturn]] void CorruptFile(const std::string& path, const std::string& what) {
  SILT_THROW(PARQUET_CORRUPT_FILE, {{"path", path}, {"message", what}});
}

// The decoders raise errors with a placeholder path ("<footer>", "<page>", "<schema>") because
// they see only bytes; this puts the file and the place in the file in their stead.
[[noreturn]] void RethrowWithLocation(const Error& error, const std::string& path,
                                      const std::string& where) {
  std::string_view name = error.error_class();
  const std::string& message = error.message();
  for (const char* placeholder : {"<footer>", "<page>", "<schema>"}) {
    std::string marker = std::string(placeholder) + ": ";
    size_t at = message.find(marker);
    if (at == std::string::npos) continue;
    std::string detail = message.substr(at + marker.size());
    if (!where.empty()) detail = where + ": " + detail;
    if (name == "PARQUET_CORRUPT_FILE") {
      throw MakeError(ErrorClass::PARQUET_CORRUPT_FILE, {{"path", path}, {"message", detail}});
    }
    if (name == "PARQUET_UNSUPPORTED_FEATURE") {
      throw MakeError(ErrorClass::PARQUET_UNSUPPORTED_FEATURE,
                      {{"path", path}, {"feature", detail}});
    }
  }
  if (where.empty()) throw error;
  throw error.WithContext(path + ", " + where);
}

// Where a column chunk's bytes start: its dictionary page when it has one before the data.
int64_t ChunkStart(const ColumnMetaData& meta) {
  int64_t start = meta.data_page_offset;
  if (meta.dictionary_page_offset && *meta.dictionary_page_offset > 0 &&
      *meta.dictionary_page_offset < start) {
    start = *meta.dictionary_page_offset;
  }
  return start;
}

// Statistics bounds in a comparable form.
struct Bound {
  enum class Kind { kNone, kInt, kDouble, kDecimal, kBytes };
  Kind kind = Kind::kNone;
  int64_t int_value = 0;
  double double_value = 0;
  Decimal128 decimal_value = 0;
  std::string bytes;
};

template <typename T>
bool LoadExact(const std::string& raw, T* out) {
  if (raw.size() != sizeof(T)) return false;
  std::memcpy(out, raw.data(), sizeof(T));
  return true;
}

int64_t FloorDivide(int64_t value, int64_t divisor) {
  int64_t quotient = value / divisor;
  if ((value % divisor != 0) && (value < 0)) --quotient;
  return quotient;
}

// Decodes a PLAIN-encoded statistics value of `leaf` into the comparison domain of its silt
// type; kind kNone when it cannot be used.
Bound DecodeBound(const LeafColumn& leaf, const std::string& raw) {
  Bound bound;
  TypeId id = leaf.type->id();
  switch (leaf.conversion) {
    case ValueConversion::kInt32ToDecimal: {
      int32_t value;
      if (!LoadExact(raw, &value)) return bound;
      bound.kind = Bound::Kind::kDecimal;
      bound.decimal_value = value;
      return bound;
    }
    case ValueConversion::kInt64ToDecimal: {
      int64_t value;
      if (!LoadExact(raw, &value)) return bound;
      bound.kind = Bound::Kind::kDecimal;
      bound.decimal_value = value;
      return bound;
    }
    case ValueConversion::kUint64ToDecimal: {
      uint64_t value;
      if (!LoadExact(raw, &value)) return bound;
      bound.kind = Bound::Kind::kDecimal;
      bound.decimal_value = static_cast<Decimal128>(value);
      return bound;
    }
    case ValueConversion::kBytesToDecimal: {
      if (raw.empty() || raw.size() > 16) return bound;
      const auto* bytes = reinterpret_cast<const uint8_t*>(raw.data());
      unsigned __int128 value = (bytes[0] & 0x80) ? ~static_cast<unsigned __int128>(0) : 0;
      for (uint8_t byte : raw) value = (value << 8) | byte;
      bound.kind = Bound::Kind::kDecimal;
      bound.decimal_value = static_cast<Decimal128>(value);
      return bound;
    }
    case ValueConversion::kInt96ToTimestamp:
      return bound;  // No defined order.
    default:
      break;
  }
  if (id == TypeId::kString || id == TypeId::kBinary) {
    if (leaf.conversion != ValueConversion::kByteArray) return bound;
    bound.kind = Bound::Kind::kBytes;
    bound.bytes = raw;
    return bound;
  }
  if (id == TypeId::kFloat || id == TypeId::kDouble) {
    double value;
    if (id == TypeId::kFloat) {
      float single;
      if (!LoadExact(raw, &single)) return bound;
      value = single;
    } else if (!LoadExact(raw, &value)) {
      return bound;
    }
    if (std::isnan(value)) return bound;
    bound.kind = Bound::Kind::kDouble;
    bound.double_value = value;
    return bound;
  }
  if (leaf.physical_type == PhysicalType::kInt32) {
    int32_t value;
    if (!LoadExact(raw, &value)) return bound;
    bound.kind = Bound::Kind::kInt;
    bound.int_value = leaf.is_unsigned ? static_cast<int64_t>(static_cast<uint32_t>(value)) : value;
    if (leaf.conversion == ValueConversion::kTimeMillisToLong) bound.int_value *= 1000;
    return bound;
  }
  if (leaf.physical_type == PhysicalType::kInt64) {
    int64_t value;
    if (!LoadExact(raw, &value)) return bound;
    bound.kind = Bound::Kind::kInt;
    if (leaf.conversion == ValueConversion::kMillisToMicros) {
      if (__builtin_mul_overflow(value, int64_t{1000}, &bound.int_value))
        bound.kind = Bound::Kind::kNone;
    } else if (leaf.conversion == ValueConversion::kNanosToMicros) {
      bound.int_value = FloorDivide(value, 1000);
    } else {
      bound.int_value = value;
    }
    return bound;
  }
  return bound;
}

// False when `low` and `high` are known and low > high.
bool Ordered(const Bound& low, const Bound& high) {
  if (low.kind != high.kind) return true;
  switch (low.kind) {
    case Bound::Kind::kInt: return low.int_value <= high.int_value;
    case Bound::Kind::kDouble: return low.double_value <= high.double_value;
    case Bound::Kind::kDecimal: return low.decimal_value <= high.decimal_value;
    case Bound::Kind::kBytes: return low.bytes <= high.bytes;  // unsigned byte order
    case Bound::Kind::kNone: return true;
  }
  return true;
}

// -1, 0, 1 comparing the bound with the literal, or nullopt when they are not comparable.
std::optional<int> Compare(const Bound& bound, const StatsLiteral& literal) {
  auto order = [](auto a, auto b) { return a < b ? -1 : (b < a ? 1 : 0); };
  switch (bound.kind) {
    case Bound::Kind::kInt:
      if (literal.int_value) return order(bound.int_value, *literal.int_value);
      return std::nullopt;
    case Bound::Kind::kDouble:
      if (literal.double_value && !std::isnan(*literal.double_value)) {
        return order(bound.double_value, *literal.double_value);
      }
      if (literal.int_value)
        return order(bound.double_value, static_cast<double>(*literal.int_value));
      return std::nullopt;
    case Bound::Kind::kDecimal:
      if (literal.decimal_value) return order(bound.decimal_value, *literal.decimal_value);
      return std::nullopt;
    case Bound::Kind::kBytes:
      if (literal.string_value) {
        // std::string compares bytes as unsigned char, the order Parquet defines for binary.
        int result = bound.bytes.compare(*literal.string_value);
        return result < 0 ? -1 : (result > 0 ? 1 : 0);
      }
      return std::nullopt;
    case Bound::Kind::kNone:
      break;
  }
  return std::nullopt;
}

// ---- row filters ----

using Op = ColumnPredicate::Op;

// Doubles above this magnitude are not all integers, so an integer literal beyond it may not
// convert to a double exactly.
constexpr int64_t kLargestExactDouble = int64_t{1} << 53;

// The row filters on one top-level primitive column.
struct FilterColumn {
  int column = -1;  // index into ParquetSchema::columns
  std::vector<const ColumnPredicate*> predicates;
  // A string or binary BYTE_ARRAY column: read with its dictionary kept, when it has one.
  bool by_dictionary = false;
};

bool IsComparison(Op op) { return op != Op::kIsNull && op != Op::kIsNotNull && op != Op::kIn; }

// The literal of a float or double comparison, when it has an exact double value.
std::optional<double> DoubleLiteral(const StatsLiteral& literal) {
  if (literal.double_value) return *literal.double_value;
  if (literal.int_value && *literal.int_value >= -kLargestExactDouble &&
      *literal.int_value <= kLargestExactDouble) {
    return static_cast<double>(*literal.int_value);
  }
  return std::nullopt;
}

// Whether `predicate` can be evaluated exactly on values of `leaf`.
bool CanEvaluate(const LeafColumn& leaf, const ColumnPredicate& predicate) {
  if (predicate.op == Op::kIn) return predicate.values != nullptr;
  if (!IsComparison(predicate.op)) return true;
  const StatsLiteral& literal = predicate.literal;
  switch (leaf.type->id()) {
    case TypeId::kByte:
    case TypeId::kShort:
    case TypeId::kInteger:
    case TypeId::kLong:
    case TypeId::kDate:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      return literal.int_value.has_value();
    case TypeId::kFloat:
    case TypeId::kDouble:
      return DoubleLiteral(literal).has_value();
    case TypeId::kDecimal:
      return literal.decimal_value.has_value();
    case TypeId::kString:
    case TypeId::kBinary:
      return literal.string_value.has_value();
    default:
      return false;
  }
}

// Spark's order of doubles: NaN above everything and equal to itself, -0.0 equal to 0.0.
inline int CompareDoubles(double a, double b) {
  if (a < b) return -1;
  if (a > b) return 1;
  if (a == b) return 0;
  bool a_nan = std::isnan(a);
  bool b_nan = std::isnan(b);
  if (a_nan == b_nan) return 0;
  return a_nan ? 1 : -1;
}

inline int CompareBytes(std::string_view a, std::string_view b) {
  int order = a.compare(b);  // char_traits<char>::compare orders bytes as unsigned char
  return (order > 0) - (order < 0);
}

// keep[i] &= (compare(value(i)) op 0) for i in [0, count): one loop per operator, so that the
// comparison inlines into it.
template <typename ThreeWay>
void KeepWhere(int64_t count, Op op, uint8_t* keep, ThreeWay&& compare) {
  auto loop = [&](auto&& test) {
    for (int64_t i = 0; i < count; ++i) keep[i] &= static_cast<uint8_t>(test(compare(i)));
  };
  switch (op) {
    case Op::kEqual:
      loop([](int order) { return order == 0; });
      return;
    case Op::kLess:
      loop([](int order) { return order < 0; });
      return;
    case Op::kLessOrEqual:
      loop([](int order) { return order <= 0; });
      return;
    case Op::kGreater:
      loop([](int order) { return order > 0; });
      return;
    case Op::kGreaterOrEqual:
      loop([](int order) { return order >= 0; });
      return;
    case Op::kIsNull:
    case Op::kIsNotNull:
    case Op::kIn:
      break;
  }
  SILT_CHECK(false, "not a comparison");
}

// As KeepWhere with the operator applied directly, which compiles to tighter loops than a
// three-way comparison for integers and decimals.
template <typename T, typename Literal>
void KeepIntegers(const Vector& vector, Op op, Literal literal, uint8_t* keep) {
  const T* values = vector.values<T>();
  int64_t count = vector.length();
  auto loop = [&](auto&& test) {
    for (int64_t i = 0; i < count; ++i) {
      keep[i] &= static_cast<uint8_t>(test(static_cast<Literal>(values[i])));
    }
  };
  switch (op) {
    case Op::kEqual:
      loop([literal](Literal value) { return value == literal; });
      return;
    case Op::kLess:
      loop([literal](Literal value) { return value < literal; });
      return;
    case Op::kLessOrEqual:
      loop([literal](Literal value) { return value <= literal; });
      return;
    case Op::kGreater:
      loop([literal](Literal value) { return value > literal; });
      return;
    case Op::kGreaterOrEqual:
      loop([literal](Literal value) { return value >= literal; });
      return;
    case Op::kIsNull:
    case Op::kIsNotNull:
    case Op::kIn:
      break;
  }
  SILT_CHECK(false, "not a comparison");
}

template <typename T>
void KeepFloating(const Vector& vector, Op op, double literal, uint8_t* keep) {
  const T* values = vector.values<T>();
  KeepWhere(vector.length(), op, keep,
            [&](int64_t i) { return CompareDoubles(static_cast<double>(values[i]), literal); });
}

// keep[i] &= row i is NULL (`want_null`) or is not NULL.
void KeepByValidity(const Vector& vector, bool want_null, uint8_t* keep) {
  int64_t count = vector.length();
  if (vector.null_count() == 0 || !vector.buffer(0)) {
    if (want_null) std::fill(keep, keep + count, uint8_t{0});
    return;
  }
  const uint8_t* bits = vector.buffer(0)->data();
  int64_t offset = vector.offset();
  uint8_t wanted = want_null ? 0 : 1;
  for (int64_t i = 0; i < count; ++i) {
    int64_t bit = offset + i;
    keep[i] &= static_cast<uint8_t>(((bits[bit >> 3] >> (bit & 7)) & 1) == wanted);
  }
}

// keep[i] &= row i of `vector` satisfies `predicate` (one CanEvaluate accepted).
void KeepMatching(const Vector& vector, const ColumnPredicate& predicate, uint8_t* keep) {
  if (predicate.op == Op::kIn) {
    predicate.values->KeepMembers(vector, keep);
    KeepByValidity(vector, false, keep);
    return;
  }
  if (!IsComparison(predicate.op)) {
    KeepByValidity(vector, predicate.op == Op::kIsNull, keep);
    return;
  }
  const StatsLiteral& literal = predicate.literal;
  Op op = predicate.op;
  switch (vector.type_id()) {
    case TypeId::kByte:
      KeepIntegers<int8_t, int64_t>(vector, op, *literal.int_value, keep);
      break;
    case TypeId::kShort:
      KeepIntegers<int16_t, int64_t>(vector, op, *literal.int_value, keep);
      break;
    case TypeId::kInteger:
    case TypeId::kDate:
      KeepIntegers<int32_t, int64_t>(vector, op, *literal.int_value, keep);
      break;
    case TypeId::kLong:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      KeepIntegers<int64_t, int64_t>(vector, op, *literal.int_value, keep);
      break;
    case TypeId::kDecimal:
      KeepIntegers<Decimal128, Decimal128>(vector, op, *literal.decimal_value, keep);
      break;
    case TypeId::kFloat:
      KeepFloating<float>(vector, op, *DoubleLiteral(literal), keep);
      break;
    case TypeId::kDouble:
      KeepFloating<double>(vector, op, *DoubleLiteral(literal), keep);
      break;
    case TypeId::kString:
    case TypeId::kBinary: {
      std::string_view wanted = *literal.string_value;
      const int32_t* offsets = vector.buffer(1)->as<int32_t>() + vector.offset();
      const char* bytes = reinterpret_cast<const char*>(vector.buffer(2)->data());
      KeepWhere(vector.length(), op, keep, [&](int64_t i) {
        return CompareBytes(
            std::string_view(bytes + offsets[i], static_cast<size_t>(offsets[i + 1] - offsets[i])),
            wanted);
      });
      break;
    }
    default:
      SILT_CHECK(false, "row filter on an unsupported type");
  }
  // The values of NULL rows are unspecified and a comparison with NULL is never true.
  KeepByValidity(vector, false, keep);
}

// Clears keep[i] for the rows whose dictionary entry has a zero in `entry_keeps` (and for NULL
// rows unless `null_passes`).
void KeepByEntry(const ColumnChunkData& chunk, int16_t max_definition,
                 const std::vector<uint8_t>& entry_keeps, bool null_passes, uint8_t* keep) {
  const uint32_t* indices = chunk.dictionary_indices.data();
  const uint8_t* entry_keep = entry_keeps.data();
  int64_t rows = chunk.num_levels;
  if (chunk.definition_levels.empty()) {
    for (int64_t i = 0; i < rows; ++i) keep[i] &= entry_keep[indices[i]];
    return;
  }
  const int16_t* levels = chunk.definition_levels.data();
  uint8_t null_keep = null_passes ? 1 : 0;
  int64_t next = 0;
  for (int64_t i = 0; i < rows; ++i) {
    if (levels[i] == max_definition) {
      keep[i] &= entry_keep[indices[next++]];
    } else {
      keep[i] &= null_keep;
    }
  }
}

// keep[i] &= row i satisfies every predicate of `filter`, for a string chunk kept as dictionary
// indices: each predicate is evaluated once per dictionary entry.
void KeepMatchingDictionary(const ColumnChunkData& chunk, int16_t max_definition,
                            const FilterColumn& filter, uint8_t* keep) {
  const PhysicalValues& dictionary = *chunk.dictionary;
  int64_t entries = dictionary.count();
  bool null_passes = true;
  bool value_passes = true;
  std::vector<uint8_t> entry_keeps(static_cast<size_t>(entries), 1);
  const int32_t* offsets = dictionary.offsets();
  const char* bytes = reinterpret_cast<const char*>(dictionary.byte_data());
  for (const ColumnPredicate* predicate : filter.predicates) {
    if (predicate->op == Op::kIsNull) {
      value_passes = false;
    } else if (predicate->op == Op::kIsNotNull) {
      null_passes = false;
    } else {
      null_passes = false;
      std::string_view wanted = *predicate->literal.string_value;
      KeepWhere(entries, predicate->op, entry_keeps.data(), [&](int64_t k) {
        return CompareBytes(
            std::string_view(bytes + offsets[k], static_cast<size_t>(offsets[k + 1] - offsets[k])),
            wanted);
      });
    }
  }
  if (!value_passes) std::fill(entry_keeps.begin(), entry_keeps.end(), uint8_t{0});
  KeepByEntry(chunk, max_definition, entry_keeps, null_passes, keep);
}

// Clears keep[i] for the rows of a dictionary-encoded top-level chunk of any other type whose
// entry fails one of `filter`'s predicates: the predicates run once over the entries, converted
// to the column's type as AssembleColumn converts values, and each row looks its entry up.
void KeepMatchingEntries(const SchemaNode& node, const std::vector<LeafColumn>& leaves,
                         const ColumnChunkData& chunk, const FilterColumn& filter, uint8_t* keep) {
  const LeafColumn& leaf = leaves[static_cast<size_t>(node.leaf_index)];
  const int64_t entries = chunk.dictionary->count();
  ColumnChunkData entry_chunk;
  entry_chunk.num_levels = entries;
  entry_chunk.num_defined = entries;
  entry_chunk.values = std::make_unique<PhysicalValues>(leaf.physical_type, leaf.type_length);
  std::vector<uint32_t> every_entry(static_cast<size_t>(entries));
  std::iota(every_entry.begin(), every_entry.end(), uint32_t{0});
  entry_chunk.values->AppendGather(*chunk.dictionary, every_entry.data(), every_entry.size());
  std::vector<ColumnChunkData> chunks(leaves.size());
  chunks[static_cast<size_t>(node.leaf_index)] = std::move(entry_chunk);
  VectorPtr values = AssembleColumn(node, leaves, chunks, entries);
  std::vector<uint8_t> entry_keeps(static_cast<size_t>(entries), 1);
  // A NULL row passes IS NULL only; the entries are never NULL.
  bool null_passes = true;
  for (const ColumnPredicate* predicate : filter.predicates) {
    KeepMatching(*values, *predicate, entry_keeps.data());
    null_passes = null_passes && predicate->op == Op::kIsNull;
  }
  KeepByEntry(chunk, leaf.max_definition_level, entry_keeps, null_passes, keep);
}

// A filter column once evaluated: kept as dictionary indices, or as the vector of rows `rows`
// (every row when `every_row`).
struct EvaluatedFilter {
  ColumnChunkData dictionary_chunk;
  VectorPtr vector;
  std::vector<int64_t> rows;
  bool every_row = true;
};

// The positions whose keep entry is set.
std::vector<int64_t> KeptPositions(const std::vector<uint8_t>& keep) {
  // Eight entries (each 0 or 1) at a time: a word without a kept entry, the usual case under a
  // selective filter, is skipped whole. Counted first, so that only the kept positions are
  // allocated.
  const size_t count = keep.size();
  const size_t words = count / 8;
  auto word_at = [&](size_t w) {
    uint64_t word;
    std::memcpy(&word, keep.data() + w * 8, 8);
    return word;
  };
  // The entries of a word are bytes of 0 or 1, so multiplying by 0x0101...01 sums them into its
  // top byte: no carry can pass a byte, and the portable popcount is a library call per word.
  size_t kept = 0;
  for (size_t w = 0; w < words; ++w) kept += static_cast<size_t>((word_at(w) * 0x0101010101010101ull) >> 56);
  for (size_t i = words * 8; i < count; ++i) kept += keep[i];
  // A word with some entries kept writes all eight positions and advances past the kept ones,
  // without a branch per entry (which a filter keeping rows at random mispredicts); the last
  // word's writes may reach seven entries past the kept count.
  constexpr uint64_t kAllKept = 0x0101010101010101ull;
  std::vector<int64_t> positions(kept + 8);
  size_t cursor = 0;
  for (size_t w = 0; w < words; ++w) {
    const uint64_t word = word_at(w);
    if (word == 0) continue;
    const int64_t base = static_cast<int64_t>(w * 8);
    if (word == kAllKept) {
      for (int j = 0; j < 8; ++j) positions[cursor + static_cast<size_t>(j)] = base + j;
      cursor += 8;
      continue;
    }
    const uint8_t* entries = keep.data() + w * 8;
    for (int j = 0; j < 8; ++j) {
      positions[cursor] = base + j;
      cursor += entries[j];
    }
  }
  for (size_t i = words * 8; i < count; ++i) {
    if (keep[i]) positions[cursor++] = static_cast<int64_t>(i);
  }
  positions.resize(kept);
  return positions;
}

class FileReaderImpl final : public FileReader {
 public:
  FileReaderImpl(std::shared_ptr<io::RandomAccessFile> file, FileMetaData metadata,
                 ParquetSchema mapping, uint64_t file_size)
      : file_(std::move(file)),
        metadata_(std::move(metadata)),
        mapping_(std::move(mapping)),
        file_size_(file_size) {}

  const FileMetaData& metadata() const override { return metadata_; }
  const Schema& schema() const override { return mapping_.schema; }
  int64_t num_rows() const override { return metadata_.num_rows; }
  int num_row_groups() const override { return static_cast<int>(metadata_.row_groups.size()); }

  std::vector<int> SelectRowGroups(const ReadOptions& options) const override {
    std::vector<int> candidates;
    if (options.row_groups.empty()) {
      for (int i = 0; i < num_row_groups(); ++i) candidates.push_back(i);
    } else {
      for (int index : options.row_groups) {
        SILT_USER_CHECK(index >= 0 && index < num_row_groups(), INVALID_ARGUMENT,
                        {{"message", "row group " + std::to_string(index) + " out of range in " +
                                         file_->path()}});
        candidates.push_back(index);
      }
    }
    std::vector<int> selected;
    for (int index : candidates) {
      bool keep = true;
      for (const ColumnPredicate& predicate : options.predicates) {
        if (!MightMatch(metadata_.row_groups[static_cast<size_t>(index)], predicate)) {
          keep = false;
          break;
        }
      }
      if (keep) selected.push_back(index);
    }
    return selected;
  }

  Batch ReadRowGroup(int index, const ReadOptions& options) const override {
    return ReadRowGroup(index, options, nullptr, nullptr);
  }

  Batch ReadRowGroup(int index, const ReadOptions& options, const std::vector<bool>* keep_rows,
                     std::vector<int64_t>* positions) const override {
    SILT_USER_CHECK(
        index >= 0 && index < num_row_groups(), INVALID_ARGUMENT,
        {{"message", "row group " + std::to_string(index) + " out of range in " + file_->path()}});
    std::vector<FilterColumn> filters = ResolveRowFilters(options.row_filters);
    // A mask that keeps no row reads nothing.
    bool reads = keep_rows == nullptr ||
                 std::find(keep_rows->begin(), keep_rows->end(), true) != keep_rows->end();
    io::ReadAheadScope ahead(*file_, reads ? ChunkRanges({index}, Project(options), filters)
                                           : std::vector<io::ByteRange>{});
    if (filters.empty() && keep_rows == nullptr) {
      Batch batch = ReadAllRows(index, options);
      if (positions != nullptr) {
        positions->resize(static_cast<size_t>(batch.num_rows()));
        std::iota(positions->begin(), positions->end(), int64_t{0});
      }
      return batch;
    }
    return ReadSelectedRows(index, options, filters, keep_rows, positions);
  }

  void Scan(const ReadOptions& options,
            const std::function<void(int, Batch)>& consume) const override {
    std::vector<int> groups = SelectRowGroups(options);
    if (groups.size() == 1) {
      consume(groups[0], ReadRowGroup(groups[0], options));
      return;
    }
    // A row group per task: each thread decodes a whole row group, hands it over and frees it
    // before taking the next, so memory stays at a few row groups whatever the file's size.
    ReadOptions per_group = options;
    per_group.max_parallelism = 1;
    ThreadPool& pool = options.pool != nullptr ? *options.pool : ThreadPool::Default();
    pool.ParallelFor(
        groups.size(), [&](size_t i) { consume(groups[i], ReadRowGroup(groups[i], per_group)); },
        options.max_parallelism);
  }

  std::vector<Batch> Read(const ReadOptions& options) const override {
    std::vector<int> groups = SelectRowGroups(options);
    if (!ResolveRowFilters(options.row_filters).empty()) {
      // Filtered row groups are read a row group per task: a column's filter decides which
      // rows the others decode, so the columns of one row group are not independent tasks.
      std::vector<Batch> batches(groups.size());
      ReadOptions per_group = options;
      per_group.max_parallelism = 1;
      ThreadPool& pool = options.pool != nullptr ? *options.pool : ThreadPool::Default();
      pool.ParallelFor(
          groups.size(), [&](size_t i) { batches[i] = ReadRowGroup(groups[i], per_group); },
          options.max_parallelism);
      return batches;
    }
    std::vector<int> columns = Project(options);
    io::ReadAheadScope ahead(*file_, ChunkRanges(groups, columns, {}));
    std::vector<std::vector<VectorPtr>> vectors(groups.size(),
                                                std::vector<VectorPtr>(columns.size()));
    ThreadPool& pool = options.pool != nullptr ? *options.pool : ThreadPool::Default();
    // One task per (row group, column): enough tasks to keep every thread busy even for a file
    // with a single row group.
    size_t tasks = groups.size() * columns.size();
    pool.ParallelFor(
        tasks,
        [&](size_t task) {
          size_t group = task / columns.size();
          size_t column = task % columns.size();
          vectors[group][column] = ReadColumn(groups[group], columns[column]);
        },
        options.max_parallelism);
    std::vector<Batch> batches;
    for (size_t g = 0; g < groups.size(); ++g) {
      batches.push_back(MakeBatch(columns, std::move(vectors[g]), groups[g]));
    }
    return batches;
  }

 private:
  // The bytes that reading `columns` and the columns of `filters` in row groups `groups` reads,
  // told to the file before the read (io::ReadAheadScope): an object store fetches them at once,
  // the chunks that lie close together in one request and the requests in parallel, instead of
  // a request per chunk when it is decoded. The local disk ignores them.
  std::vector<io::ByteRange> ChunkRanges(const std::vector<int>& groups,
                                         const std::vector<int>& columns,
                                         const std::vector<FilterColumn>& filters) const {
    std::vector<int> all = columns;
    for (const FilterColumn& filter : filters) all.push_back(filter.column);
    std::sort(all.begin(), all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
    std::vector<io::ByteRange> ranges;
    for (int group : groups) {
      const RowGroup& row_group = metadata_.row_groups[static_cast<size_t>(group)];
      for (int column : all) {
        const SchemaNode& node = mapping_.columns[static_cast<size_t>(column)];
        for (int leaf = node.first_leaf; leaf < node.first_leaf + node.leaf_count; ++leaf) {
          const LeafColumn& leaf_column = mapping_.leaves[static_cast<size_t>(leaf)];
          const ColumnChunk& chunk =
              row_group.columns[static_cast<size_t>(leaf_column.column_index)];
          if (!chunk.meta_data) continue;  // reported when the chunk is read
          ranges.push_back(
              io::ByteRange{static_cast<uint64_t>(ChunkStart(*chunk.meta_data)),
                            static_cast<uint64_t>(chunk.meta_data->total_compressed_size)});
        }
      }
    }
    return ranges;
  }

  // Every row of row group `index` (no filter, no mask), a task per column.
  Batch ReadAllRows(int index, const ReadOptions& options) const {
    std::vector<int> columns = Project(options);
    std::vector<VectorPtr> vectors(columns.size());
    ThreadPool& pool = options.pool != nullptr ? *options.pool : ThreadPool::Default();
    pool.ParallelFor(
        columns.size(), [&](size_t c) { vectors[c] = ReadColumn(index, columns[c]); },
        options.max_parallelism);
    return MakeBatch(columns, std::move(vectors), index);
  }

  // Top-level column indexes selected by `options`.
  std::vector<int> Project(const ReadOptions& options) const {
    std::vector<int> columns;
    if (!options.columns.empty()) {
      for (const std::string& name : options.columns) {
        int index = mapping_.schema.FieldIndex(name, true);
        if (index < 0) index = mapping_.schema.FieldIndex(name, false);
        SILT_USER_CHECK(index >= 0, PARQUET_COLUMN_NOT_FOUND,
                        {{"column", name}, {"path", file_->path()}});
        columns.push_back(index);
      }
      return columns;
    }
    if (!options.field_ids.empty()) {
      for (int32_t id : options.field_ids) {
        int found = -1;
        std::string wanted = std::to_string(id);
        for (size_t i = 0; i < mapping_.schema.num_fields(); ++i) {
          const std::string* value = mapping_.schema.field(i).FindMetadata("parquet.field.id");
          if (value != nullptr && *value == wanted) {
            found = static_cast<int>(i);
            break;
          }
        }
        SILT_USER_CHECK(found >= 0, PARQUET_COLUMN_NOT_FOUND,
                        {{"column", "with field id " + wanted}, {"path", file_->path()}});
        columns.push_back(found);
      }
      return columns;
    }
    for (size_t i = 0; i < mapping_.schema.num_fields(); ++i)
      columns.push_back(static_cast<int>(i));
    return columns;
  }

  Batch MakeBatch(const std::vector<int>& columns, std::vector<VectorPtr> vectors,
                  int group) const {
    std::vector<Field> fields;
    for (int c : columns) fields.push_back(mapping_.schema.field(static_cast<size_t>(c)));
    return Batch(std::make_shared<const Schema>(std::move(fields)), std::move(vectors),
                 metadata_.row_groups[static_cast<size_t>(group)].num_rows);
  }

  VectorPtr ReadColumn(int group, int column) const {
    const RowGroup& row_group = metadata_.row_groups[static_cast<size_t>(group)];
    const SchemaNode& node = mapping_.columns[static_cast<size_t>(column)];
    std::string where;
    try {
      if (IsTopLevelStringLeaf(node)) {
        // Kept indices give the vector its dictionary codes (for grouping by the column);
        // a chunk that fell back to PLAIN is assembled as usual.
        where = "row group " + std::to_string(group) + ", column " + node.field.name;
        ColumnChunkData chunk = ReadLeafChunk(group, node, DictionaryMode::kKeepIndices);
        if (chunk.dictionary) return AssembleDictionaryLeaf(node, mapping_.leaves, chunk);
        std::vector<ColumnChunkData> chunks(mapping_.leaves.size());
        chunks[static_cast<size_t>(node.leaf_index)] = std::move(chunk);
        return AssembleColumn(node, mapping_.leaves, chunks, row_group.num_rows);
      }
      std::vector<ColumnChunkData> chunks(mapping_.leaves.size());
      for (int leaf = node.first_leaf; leaf < node.first_leaf + node.leaf_count; ++leaf) {
        const LeafColumn& leaf_column = mapping_.leaves[static_cast<size_t>(leaf)];
        where = "row group " + std::to_string(group) + ", column " + JoinPath(leaf_column.path);
        chunks[static_cast<size_t>(leaf)] = ReadColumnChunk(
            *file_, file_size_, row_group.columns[static_cast<size_t>(leaf_column.column_index)],
            leaf_column);
      }
      where = "row group " + std::to_string(group) + ", column " + node.field.name;
      return AssembleColumn(node, mapping_.leaves, chunks, row_group.num_rows);
    } catch (const Error& error) {
      RethrowWithLocation(error, file_->path(), where);
    }
  }

  bool IsTopLevelStringLeaf(const SchemaNode& node) const {
    return node.kind == SchemaNode::Kind::kLeaf &&
           parquet::IsTopLevelStringLeaf(mapping_.leaves[static_cast<size_t>(node.leaf_index)]);
  }

  // The column of `predicate` as a top-level primitive column, or -1.
  int FilterColumnIndex(const ColumnPredicate& predicate) const {
    int index = mapping_.schema.FieldIndex(predicate.column, true);
    if (index < 0) index = mapping_.schema.FieldIndex(predicate.column, false);
    if (index < 0) return -1;
    const SchemaNode& node = mapping_.columns[static_cast<size_t>(index)];
    if (node.kind != SchemaNode::Kind::kLeaf) return -1;
    if (mapping_.leaves[static_cast<size_t>(node.leaf_index)].max_repetition_level != 0) return -1;
    return index;
  }

  // The row filters this reader evaluates exactly, grouped by column, the columns kept as
  // dictionary indices first (they are the cheapest to evaluate and may leave no row for the
  // others to decode).
  std::vector<FilterColumn> ResolveRowFilters(const std::vector<ColumnPredicate>& filters) const {
    std::vector<FilterColumn> columns;
    for (const ColumnPredicate& predicate : filters) {
      int index = FilterColumnIndex(predicate);
      if (index < 0) continue;
      const SchemaNode& node = mapping_.columns[static_cast<size_t>(index)];
      const LeafColumn& leaf = mapping_.leaves[static_cast<size_t>(node.leaf_index)];
      if (!CanEvaluate(leaf, predicate)) continue;
      auto found = std::find_if(columns.begin(), columns.end(),
                                [&](const FilterColumn& column) { return column.column == index; });
      if (found == columns.end()) {
        FilterColumn column;
        column.column = index;
        column.by_dictionary = parquet::IsTopLevelStringLeaf(leaf);
        columns.push_back(std::move(column));
        found = columns.end() - 1;
      }
      // A set tests a vector: a string column's entries are then assembled as other types' are.
      if (predicate.op == Op::kIn) found->by_dictionary = false;
      found->predicates.push_back(&predicate);
    }
    std::stable_partition(columns.begin(), columns.end(),
                          [](const FilterColumn& column) { return column.by_dictionary; });
    return columns;
  }

  // Row group `index` with only the rows that `keep_rows` keeps and that pass `filters`.
  // A filtered row group is returned whole (bar the mask) when more than this share of its
  // rows pass: gathering them would cost more than the caller's filter. Measured on a 10M-row
  // table: gathering 99.99% of the rows costs 1.4x an unfiltered read.
  static constexpr int64_t kWholeRowGroupNumerator = 1;
  static constexpr int64_t kWholeRowGroupDenominator = 2;

  Batch ReadSelectedRows(int index, const ReadOptions& options,
                         const std::vector<FilterColumn>& filters,
                         const std::vector<bool>* keep_rows,
                         std::vector<int64_t>* positions) const {
    int64_t rows = metadata_.row_groups[static_cast<size_t>(index)].num_rows;
    std::vector<int> columns = Project(options);
    std::vector<uint8_t> keep(static_cast<size_t>(rows), 1);
    if (keep_rows != nullptr) {
      SILT_USER_CHECK(static_cast<int64_t>(keep_rows->size()) == rows, INVALID_ARGUMENT,
                      {{"message", "a row mask of " + std::to_string(keep_rows->size()) +
                                       " rows for row group " + std::to_string(index) + " of " +
                                       std::to_string(rows) + " rows in " + file_->path()}});
      for (int64_t i = 0; i < rows; ++i) keep[static_cast<size_t>(i)] = (*keep_rows)[i];
    }

    // The filter columns, one at a time: once no row is left the rest need no decoding.
    std::vector<EvaluatedFilter> evaluated(filters.size());
    for (size_t f = 0; f < filters.size(); ++f) {
      if (std::find(keep.begin(), keep.end(), 1) == keep.end()) break;
      EvaluateFilter(index, filters[f], keep, &evaluated[f]);
    }

    std::vector<int64_t> selection = KeptPositions(keep);
    // When most rows pass, gathering them costs more than the caller's own filter over the whole
    // row group: return every row the mask keeps (row filters may return a superset).
    bool filtered = true;
    if (!filters.empty() && static_cast<int64_t>(selection.size()) * kWholeRowGroupDenominator >
                                rows * kWholeRowGroupNumerator) {
      filtered = false;
      for (int64_t i = 0; i < rows; ++i) {
        keep[static_cast<size_t>(i)] = keep_rows == nullptr || (*keep_rows)[static_cast<size_t>(i)];
      }
      selection = KeptPositions(keep);
    }
    bool every_row = static_cast<int64_t>(selection.size()) == rows;
    std::vector<VectorPtr> vectors(columns.size());
    std::vector<size_t> to_decode;
    for (size_t c = 0; c < columns.size(); ++c) {
      const SchemaNode& node = mapping_.columns[static_cast<size_t>(columns[c])];
      if (selection.empty()) {
        vectors[c] = Vector::MakeAllNull(node.field.type, 0);
        continue;
      }
      auto filter = std::find_if(filters.begin(), filters.end(), [&](const FilterColumn& column) {
        return column.column == columns[c];
      });
      if (filter == filters.end()) {
        to_decode.push_back(c);
        continue;
      }
      EvaluatedFilter& column = evaluated[static_cast<size_t>(filter - filters.begin())];
      if (!filtered && !column.every_row && !column.dictionary_chunk.dictionary) {
        // Decoded only at the rows an earlier filter kept: decode it again for the rows returned.
        to_decode.push_back(c);
        continue;
      }
      std::string where = "row group " + std::to_string(index) + ", column " + node.field.name;
      try {
        if (column.dictionary_chunk.dictionary && every_row && !IsTopLevelStringLeaf(node)) {
          vectors[c] = AssembleWholeChunk(node, std::move(column.dictionary_chunk));
        } else if (column.dictionary_chunk.dictionary) {
          vectors[c] = AssembleLeafRows(node, mapping_.leaves, column.dictionary_chunk, selection);
        } else if (column.every_row) {
          vectors[c] = every_row ? column.vector : TakeRows(*column.vector, selection);
        } else {
          vectors[c] = TakeSubset(column.vector, column.rows, selection);
        }
      } catch (const Error& error) {
        RethrowWithLocation(error, file_->path(), where);
      }
    }
    evaluated.clear();
    ThreadPool& pool = options.pool != nullptr ? *options.pool : ThreadPool::Default();
    pool.ParallelFor(
        to_decode.size(),
        [&](size_t task) {
          size_t c = to_decode[task];
          vectors[c] = every_row ? ReadColumn(index, columns[c])
                                 : ReadColumnRows(index, columns[c], selection);
        },
        options.max_parallelism);
    int64_t kept = static_cast<int64_t>(selection.size());
    if (positions != nullptr) *positions = std::move(selection);
    std::vector<Field> fields;
    for (int c : columns) fields.push_back(mapping_.schema.field(static_cast<size_t>(c)));
    return Batch(std::make_shared<const Schema>(std::move(fields)), std::move(vectors), kept);
  }

  // Every row of top-level leaf `node` from `chunk`, which kept its dictionary indices: the
  // entries are gathered as DictionaryMode::kGather would have.
  VectorPtr AssembleWholeChunk(const SchemaNode& node, ColumnChunkData chunk) const {
    const LeafColumn& leaf = mapping_.leaves[static_cast<size_t>(node.leaf_index)];
    chunk.values = std::make_unique<PhysicalValues>(leaf.physical_type, leaf.type_length);
    chunk.values->AppendGather(*chunk.dictionary, chunk.dictionary_indices.data(),
                               chunk.dictionary_indices.size());
    chunk.dictionary.reset();
    chunk.dictionary_indices = {};
    const int64_t rows = chunk.num_levels;
    std::vector<ColumnChunkData> chunks(mapping_.leaves.size());
    chunks[static_cast<size_t>(node.leaf_index)] = std::move(chunk);
    return AssembleColumn(node, mapping_.leaves, chunks, rows);
  }

  // The rows `wanted` of `vector`, which holds rows `held`; `wanted` is a subset of `held`,
  // both ascending.
  static VectorPtr TakeSubset(const VectorPtr& vector, const std::vector<int64_t>& held,
                              const std::vector<int64_t>& wanted) {
    if (held.size() == wanted.size()) return vector;
    std::vector<int64_t> at;
    at.reserve(wanted.size());
    size_t h = 0;
    for (int64_t row : wanted) {
      while (held[h] != row) ++h;
      at.push_back(static_cast<int64_t>(h));
    }
    return TakeRows(*vector, at);
  }

  // Rows `rows` (ascending) of column `column` in row group `group`. A top-level primitive
  // column converts only those rows (and a dictionary-encoded one gathers only their strings);
  // a nested one is assembled whole and then gathered.
  VectorPtr ReadColumnRows(int group, int column, const std::vector<int64_t>& rows) const {
    const SchemaNode& node = mapping_.columns[static_cast<size_t>(column)];
    if (node.kind != SchemaNode::Kind::kLeaf ||
        mapping_.leaves[static_cast<size_t>(node.leaf_index)].max_repetition_level != 0) {
      return TakeRows(*ReadColumn(group, column), rows);
    }
    std::string where = "row group " + std::to_string(group) + ", column " + node.field.name;
    try {
      ColumnChunkData chunk = ReadLeafChunk(group, node, DictionaryMode::kKeepIndices);
      return AssembleLeafRows(node, mapping_.leaves, chunk, rows);
    } catch (const Error& error) {
      RethrowWithLocation(error, file_->path(), where);
    }
  }

  // The chunk of top-level leaf `node` in row group `group`, checked to hold one level per row.
  ColumnChunkData ReadLeafChunk(int group, const SchemaNode& node, DictionaryMode mode) const {
    const RowGroup& row_group = metadata_.row_groups[static_cast<size_t>(group)];
    const LeafColumn& leaf = mapping_.leaves[static_cast<size_t>(node.leaf_index)];
    ColumnChunkData chunk = ReadColumnChunk(
        *file_, file_size_, row_group.columns[static_cast<size_t>(leaf.column_index)], leaf, mode);
    if (chunk.num_levels != row_group.num_rows) {
      ThrowCorruptPage("column " + node.field.name + " has " + std::to_string(chunk.num_levels) +
                       " rows, the row group " + std::to_string(row_group.num_rows));
    }
    return chunk;
  }

  // Decodes the column of `filter` in row group `group` and clears keep[i] for the rows that
  // fail one of its predicates. A dictionary-encoded column is evaluated once per dictionary
  // entry (a string column always, another while every row is still kept); any other column
  // only at the rows still kept, whose values alone are converted.
  void EvaluateFilter(int group, const FilterColumn& filter, std::vector<uint8_t>& keep,
                      EvaluatedFilter* result) const {
    const SchemaNode& node = mapping_.columns[static_cast<size_t>(filter.column)];
    const LeafColumn& leaf = mapping_.leaves[static_cast<size_t>(node.leaf_index)];
    std::string where = "row group " + std::to_string(group) + ", column " + node.field.name;
    bool every_row_kept = std::find(keep.begin(), keep.end(), 0) == keep.end();
    try {
      // Kept dictionary indices serve a comparison per entry, and spare gathering the values of
      // rows already dropped.
      ColumnChunkData chunk = ReadLeafChunk(group, node, DictionaryMode::kKeepIndices);
      if (chunk.dictionary && (filter.by_dictionary || every_row_kept)) {
        if (filter.by_dictionary) {
          KeepMatchingDictionary(chunk, leaf.max_definition_level, filter, keep.data());
        } else {
          KeepMatchingEntries(node, mapping_.leaves, chunk, filter, keep.data());
        }
        result->dictionary_chunk = std::move(chunk);
        return;
      }
      if (every_row_kept) {
        std::vector<ColumnChunkData> chunks(mapping_.leaves.size());
        chunks[static_cast<size_t>(node.leaf_index)] = std::move(chunk);
        result->vector = AssembleColumn(node, mapping_.leaves, chunks,
                                        metadata_.row_groups[static_cast<size_t>(group)].num_rows);
        for (const ColumnPredicate* predicate : filter.predicates) {
          KeepMatching(*result->vector, *predicate, keep.data());
        }
        return;
      }
      // Some rows are already out: convert and test only the others.
      result->rows = KeptPositions(keep);
      result->every_row = false;
      result->vector = AssembleLeafRows(node, mapping_.leaves, chunk, result->rows);
    } catch (const Error& error) {
      RethrowWithLocation(error, file_->path(), where);
    }
    std::vector<uint8_t> passing(result->rows.size(), 1);
    for (const ColumnPredicate* predicate : filter.predicates) {
      KeepMatching(*result->vector, *predicate, passing.data());
    }
    for (size_t k = 0; k < passing.size(); ++k) {
      keep[static_cast<size_t>(result->rows[k])] = passing[k];
    }
  }

  static std::string JoinPath(const std::vector<std::string>& path) {
    std::string joined;
    for (const std::string& part : path) {
      if (!joined.empty()) joined += '.';
      joined += part;
    }
    return joined;
  }

  bool MightMatch(const RowGroup& group, const ColumnPredicate& predicate) const {
    int index = mapping_.schema.FieldIndex(predicate.column, true);
    if (index < 0) index = mapping_.schema.FieldIndex(predicate.column, false);
    if (index < 0) return true;
    const SchemaNode& node = mapping_.columns[static_cast<size_t>(index)];
    if (node.kind != SchemaNode::Kind::kLeaf) return true;
    const LeafColumn& leaf = mapping_.leaves[static_cast<size_t>(node.leaf_index)];
    const ColumnChunk& chunk = group.columns[static_cast<size_t>(leaf.column_index)];
    if (!chunk.meta_data || !chunk.meta_data->statistics) return true;
    const Statistics& stats = *chunk.meta_data->statistics;
    int64_t values = chunk.meta_data->num_values;
    bool all_null = stats.null_count && *stats.null_count == values;
    switch (predicate.op) {
      case ColumnPredicate::Op::kIsNull:
        return !(stats.null_count && *stats.null_count == 0);
      case ColumnPredicate::Op::kIsNotNull:
        return !all_null;
      case ColumnPredicate::Op::kIn:
        return !(all_null && values > 0);
      default:
        break;
    }
    if (all_null && values > 0) return false;  // A comparison with NULL is never true.
    const std::string* min = nullptr;
    const std::string* max = nullptr;
    size_t leaf_position = static_cast<size_t>(node.leaf_index);
    bool type_defined_order =
        metadata_.column_orders.empty() ||
        (leaf_position < metadata_.column_orders.size() && metadata_.column_orders[leaf_position]);
    if (stats.min_value && stats.max_value && type_defined_order) {
      min = &*stats.min_value;
      max = &*stats.max_value;
    } else if (stats.min && stats.max && leaf.signed_order) {
      // The deprecated fields were written with signed comparison: valid only where the type's
      // order is signed.
      min = &*stats.min;
      max = &*stats.max;
    } else {
      return true;
    }
    Bound low = DecodeBound(leaf, *min);
    Bound high = DecodeBound(leaf, *max);
    // A minimum above the maximum is no bound of anything (a buggy writer or damage): the
    // statistics are ignored rather than trusted to skip rows that are there.
    if (!Ordered(low, high)) return true;
    std::optional<int> low_order = Compare(low, predicate.literal);
    std::optional<int> high_order = Compare(high, predicate.literal);
    if (!low_order || !high_order) return true;
    switch (predicate.op) {
      case ColumnPredicate::Op::kEqual:
        return *low_order <= 0 && *high_order >= 0;
      case ColumnPredicate::Op::kLess:
        return *low_order < 0;
      case ColumnPredicate::Op::kLessOrEqual:
        return *low_order <= 0;
      case ColumnPredicate::Op::kGreater:
        return *high_order > 0;
      case ColumnPredicate::Op::kGreaterOrEqual:
        return *high_order >= 0;
      default:
        return true;
    }
  }

  std::shared_ptr<io::RandomAccessFile> file_;
  FileMetaData metadata_;
  ParquetSchema mapping_;
  uint64_t file_size_;
};

// Checks what the footer says about row groups and column chunks against the file and schema,
// before anything is allocated from those numbers.
void ValidateMetadata(const FileMetaData& metadata, const ParquetSchema& mapping, uint64_t data_end,
                      const std::string& path) {
  if (metadata.num_rows < 0) CorruptFile(path, "negative row count");
  int64_t total_rows = 0;
  for (size_t g = 0; g < metadata.row_groups.size(); ++g) {
    const RowGroup& group = metadata.row_groups[g];
    std::string where = "row group " + std::to_string(g) + ": ";
    if (group.num_rows < 0) CorruptFile(path, where + "negative row count");
    if (__builtin_add_overflow(total_rows, group.num_rows, &total_rows)) {
      CorruptFile(path, "row counts overflow");
    }
    if (group.columns.size() != mapping.leaves.size()) {
      CorruptFile(path, where + std::to_string(group.columns.size()) + " column chunks for " +
                            std::to_string(mapping.leaves.size()) + " schema columns");
    }
    for (size_t c = 0; c < group.columns.size(); ++c) {
      const ColumnChunk& chunk = group.columns[c];
      const LeafColumn& leaf = mapping.leaves[c];
      if (!chunk.meta_data) CorruptFile(path, where + "column chunk without metadata");
      const ColumnMetaData& meta = *chunk.meta_data;
      if (meta.type != leaf.physical_type) {
        CorruptFile(path, where + "column " + std::to_string(c) +
                              " has a different physical type than the schema");
      }
      int64_t start = ChunkStart(meta);
      if (start < 0 || meta.total_compressed_size < 0 || meta.num_values < 0 ||
          static_cast<uint64_t>(start) > data_end ||
          static_cast<uint64_t>(meta.total_compressed_size) >
              data_end - static_cast<uint64_t>(start)) {
        CorruptFile(path,
                    where + "column chunk " + std::to_string(c) + " lies outside the file's data");
      }
      if (leaf.max_repetition_level == 0 && meta.num_values != group.num_rows) {
        CorruptFile(path, where + "column " + std::to_string(c) + " has " +
                              std::to_string(meta.num_values) + " values for " +
                              std::to_string(group.num_rows) + " rows");
      }
    }
  }
  if (total_rows != metadata.num_rows) {
    CorruptFile(path, "row groups hold " + std::to_string(total_rows) + " rows, footer says " +
                          std::to_string(metadata.num_rows));
  }
}

}  // namespace

std::unique_ptr<FileReader> FileReader::Open(std::shared_ptr<io::RandomAccessFile> file) {
  SILT_CHECK(file != nullptr, "FileReader::Open needs a file");
  const std::string& path = file->path();
  uint64_t size = file->Size();
  if (size < kMagicSize + kFooterTailSize) {
    CorruptFile(path, "file of " + std::to_string(size) + " bytes is too small to be Parquet");
  }
  // One read of the file's end usually holds the whole footer: on an object store each read is
  // a request, so the footer costs one, and a second only when it is larger than the first read.
  size_t tail_size = static_cast<size_t>(std::min<uint64_t>(size, kFooterReadSize));
  std::string tail(tail_size, '\0');
  file->ReadExactly(size - tail_size, tail_size, tail.data());
  const char* end_magic = tail.data() + tail_size - kMagicSize;
  if (std::memcmp(end_magic, kEncryptedMagic, kMagicSize) == 0) {
    SILT_THROW(PARQUET_UNSUPPORTED_FEATURE, {{"path", path}, {"feature", "encrypted footer"}});
  }
  // The leading magic is checked when the read reached it (as Parquet's other readers, a larger
  // file is known by its trailing magic alone, with no request for the first four bytes).
  if (std::memcmp(end_magic, kMagic, kMagicSize) != 0 ||
      (tail_size == size && std::memcmp(tail.data(), kMagic, kMagicSize) != 0)) {
    CorruptFile(path, "missing PAR1 magic bytes");
  }
  uint32_t footer_size;
  std::memcpy(&footer_size, tail.data() + tail_size - kFooterTailSize, 4);
  uint64_t data_end = size - kFooterTailSize;
  if (footer_size == 0 || footer_size > data_end - kMagicSize) {
    CorruptFile(path, "footer length " + std::to_string(footer_size) +
                          " does not fit the file of " + std::to_string(size) + " bytes");
  }
  uint64_t footer_start = data_end - footer_size;
  if (footer_size + kFooterTailSize > tail_size) {
    // A footer larger than the first read: read it with its tail again, as one read of the
    // file's end (which a store's cache of file tails can serve next time).
    tail_size = footer_size + kFooterTailSize;
    tail.assign(tail_size, '\0');
    file->ReadExactly(size - tail_size, tail_size, tail.data());
  }
  const auto* footer =
      reinterpret_cast<const uint8_t*>(tail.data() + tail_size - kFooterTailSize - footer_size);
  FileMetaData metadata;
  ParquetSchema mapping;
  try {
    metadata = DecodeFileMetaData(footer, footer_size);
    mapping = SchemaFromParquet(metadata.schema);
  } catch (const Error& error) {
    RethrowWithLocation(error, path, "footer");
  }
  ValidateMetadata(metadata, mapping, footer_start, path);
  return std::make_unique<FileReaderImpl>(std::move(file), std::move(metadata), std::move(mapping),
                                          footer_start);
}

std::unique_ptr<FileReader> FileReader::Open(io::FileSystem& fs, const std::string& path) {
  return Open(std::shared_ptr<io::RandomAccessFile>(fs.OpenRead(path)));
}

}  // namespace silt::parquet
