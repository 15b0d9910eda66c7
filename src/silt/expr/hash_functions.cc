// hash (Spark's Murmur3 x86_32 variant, seed 42) and xxhash64 (XXH64, seed 42). Both fold over
// the arguments: each value is hashed with the previous result as its seed; NULL leaves the seed
// unchanged. Values are fed as Spark feeds them: booleans/bytes/shorts/ints/dates as 4-byte
// ints, longs/timestamps as 8-byte longs, floats/doubles by their bits (-0.0 as 0), decimals up
// to 18 digits by their unscaled long and larger ones by their big-endian two's complement bytes,
// strings/binary by their bytes, arrays element by element, structs field by field, maps key
// then value.

#include <cmath>
#include <cstring>

#include "silt/expr/function_kernels_internal.h"
#include "silt/expr/murmur3.h"

namespace silt::expr::internal {
namespace {

uint32_t RotateLeft32(uint32_t value, int bits) { return (value << bits) | (value >> (32 - bits)); }
uint64_t RotateLeft64(uint64_t value, int bits) { return (value << bits) | (value >> (64 - bits)); }

// ---- Murmur3 x86_32 as in Spark's Murmur3_x86_32 ----
class Murmur3 {
 public:
  static uint32_t MixK1(uint32_t k1) {
    k1 *= 0xcc9e2d51u;
    k1 = RotateLeft32(k1, 15);
    return k1 * 0x1b873593u;
  }
  static uint32_t MixH1(uint32_t h1, uint32_t k1) {
    h1 ^= k1;
    h1 = RotateLeft32(h1, 13);
    return h1 * 5 + 0xe6546b64u;
  }
  static uint32_t Finish(uint32_t h1, uint32_t length) {
    h1 ^= length;
    h1 ^= h1 >> 16;
    h1 *= 0x85ebca6bu;
    h1 ^= h1 >> 13;
    h1 *= 0xc2b2ae35u;
    h1 ^= h1 >> 16;
    return h1;
  }
  static uint32_t HashInt(uint32_t value, uint32_t seed) { return Finish(MixH1(seed, MixK1(value)), 4); }
  static uint32_t HashLong(uint64_t value, uint32_t seed) {
    uint32_t h1 = MixH1(seed, MixK1(static_cast<uint32_t>(value)));
    h1 = MixH1(h1, MixK1(static_cast<uint32_t>(value >> 32)));
    return Finish(h1, 8);
  }
  // Spark's hashUnsafeBytes: whole 4-byte words, then each tail byte (sign-extended) as a word.
  static uint32_t HashBytes(std::string_view bytes, uint32_t seed) {
    size_t aligned = bytes.size() - bytes.size() % 4;
    uint32_t h1 = seed;
    for (size_t i = 0; i < aligned; i += 4) {
      uint32_t word;
      std::memcpy(&word, bytes.data() + i, 4);
      h1 = MixH1(h1, MixK1(word));
    }
    for (size_t i = aligned; i < bytes.size(); ++i) {
      h1 = MixH1(h1, MixK1(static_cast<uint32_t>(static_cast<int32_t>(static_cast<int8_t>(bytes[i])))));
    }
    return Finish(h1, static_cast<uint32_t>(bytes.size()));
  }
};

// ---- XXH64 as in Spark's XXH64 ----
constexpr uint64_t kPrime1 = 0x9E3779B185EBCA87ull;
constexpr uint64_t kPrime2 = 0xC2B2AE3D27D4EB4Full;
constexpr uint64_t kPrime3 = 0x165667B19E3779F9ull;
constexpr uint64_t kPrime4 = 0x85EBCA77C2B2AE63ull;
constexpr uint64_t kPrime5 = 0x27D4EB2F165667C5ull;

class XxHash64 {
 public:
  static uint64_t Finish(uint64_t hash) {
    hash ^= hash >> 33;
    hash *= kPrime2;
    hash ^= hash >> 29;
    hash *= kPrime3;
    hash ^= hash >> 32;
    return hash;
  }
  static uint64_t HashInt(uint32_t value, uint64_t seed) {
    uint64_t hash = seed + kPrime5 + 4;
    hash ^= static_cast<uint64_t>(value) * kPrime1;
    hash = RotateLeft64(hash, 23) * kPrime2 + kPrime3;
    return Finish(hash);
  }
  static uint64_t HashLong(uint64_t value, uint64_t seed) {
    uint64_t hash = seed + kPrime5 + 8;
    hash ^= RotateLeft64(value * kPrime2, 31) * kPrime1;
    hash = RotateLeft64(hash, 27) * kPrime1 + kPrime4;
    return Finish(hash);
  }
  static uint64_t HashBytes(std::string_view bytes, uint64_t seed) {
    const char* data = bytes.data();
    size_t length = bytes.size();
    size_t position = 0;
    uint64_t hash;
    if (length >= 32) {
      uint64_t v1 = seed + kPrime1 + kPrime2, v2 = seed + kPrime2, v3 = seed, v4 = seed - kPrime1;
      auto round = [](uint64_t accumulator, uint64_t input) {
        return RotateLeft64(accumulator + input * kPrime2, 31) * kPrime1;
      };
      for (; position + 32 <= length; position += 32) {
        v1 = round(v1, ReadLong(data + position));
        v2 = round(v2, ReadLong(data + position + 8));
        v3 = round(v3, ReadLong(data + position + 16));
        v4 = round(v4, ReadLong(data + position + 24));
      }
      hash = RotateLeft64(v1, 1) + RotateLeft64(v2, 7) + RotateLeft64(v3, 12) + RotateLeft64(v4, 18);
      for (uint64_t v : {v1, v2, v3, v4}) {
        hash ^= RotateLeft64(v * kPrime2, 31) * kPrime1;
        hash = hash * kPrime1 + kPrime4;
      }
    } else {
      hash = seed + kPrime5;
    }
    hash += length;
    for (; position + 8 <= length; position += 8) {
      hash ^= RotateLeft64(ReadLong(data + position) * kPrime2, 31) * kPrime1;
      hash = RotateLeft64(hash, 27) * kPrime1 + kPrime4;
    }
    if (position + 4 <= length) {
      uint32_t word;
      std::memcpy(&word, data + position, 4);
      hash ^= static_cast<uint64_t>(word) * kPrime1;
      hash = RotateLeft64(hash, 23) * kPrime2 + kPrime3;
      position += 4;
    }
    for (; position < length; ++position) {
      hash ^= static_cast<uint64_t>(static_cast<uint8_t>(data[position])) * kPrime5;
      hash = RotateLeft64(hash, 11) * kPrime1;
    }
    return Finish(hash);
  }

 private:
  static uint64_t ReadLong(const char* data) {
    uint64_t value;
    std::memcpy(&value, data, 8);
    return value;
  }
};

// Big-endian two's complement bytes with the fewest bytes that keep the sign (Java's
// BigInteger.toByteArray).
std::string MinimalBigEndianBytes(Decimal128 value) {
  std::string bytes;
  for (int i = 15; i >= 0; --i) bytes += static_cast<char>(static_cast<uint8_t>(value >> (8 * i)));
  size_t start = 0;
  while (start + 1 < bytes.size()) {
    uint8_t first = static_cast<uint8_t>(bytes[start]);
    uint8_t next = static_cast<uint8_t>(bytes[start + 1]);
    if ((first == 0x00 && !(next & 0x80)) || (first == 0xFF && (next & 0x80))) {
      ++start;
    } else {
      break;
    }
  }
  return bytes.substr(start);
}

// Hashes row `row` of `vector` with `Hasher` (Murmur3 or XxHash64) and seed `seed`.
template <typename Hasher, typename Seed>
Seed HashValue(const Vector& vector, int64_t row, Seed seed) {
  if (vector.IsNull(row)) return seed;
  switch (vector.type_id()) {
    case TypeId::kBoolean: return Hasher::HashInt(vector.GetBool(row) ? 1 : 0, seed);
    case TypeId::kByte:
    case TypeId::kShort:
    case TypeId::kInteger:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval:
      return Hasher::HashInt(static_cast<uint32_t>(static_cast<int32_t>(ReadInteger(vector, row))), seed);
    case TypeId::kLong:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kDayTimeInterval: return Hasher::HashLong(static_cast<uint64_t>(ReadInteger(vector, row)), seed);
    case TypeId::kFloat: {
      float value = vector.values<float>()[row];
      if (value == 0.0f) value = 0.0f;  // -0.0 hashes as 0.0
      uint32_t bits;
      if (std::isnan(value)) {
        bits = 0x7fc00000u;  // Java's canonical NaN
      } else {
        std::memcpy(&bits, &value, 4);
      }
      return Hasher::HashInt(bits, seed);
    }
    case TypeId::kDouble: {
      double value = vector.values<double>()[row];
      if (value == 0.0) value = 0.0;
      uint64_t bits;
      if (std::isnan(value)) {
        bits = 0x7ff8000000000000ull;
      } else {
        std::memcpy(&bits, &value, 8);
      }
      return Hasher::HashLong(bits, seed);
    }
    case TypeId::kDecimal: {
      Decimal128 unscaled = vector.values<Decimal128>()[row];
      if (vector.type()->precision() <= 18) return Hasher::HashLong(static_cast<uint64_t>(static_cast<int64_t>(unscaled)), seed);
      return Hasher::HashBytes(MinimalBigEndianBytes(unscaled), seed);
    }
    case TypeId::kString:
    case TypeId::kBinary: return Hasher::HashBytes(vector.GetString(row), seed);
    case TypeId::kList: {
      int32_t start = vector.ListStart(row);
      for (int32_t i = 0; i < vector.ListLength(row); ++i) seed = HashValue<Hasher>(*vector.child(0), start + i, seed);
      return seed;
    }
    case TypeId::kMap: {
      const Vector& entries = *vector.child(0);
      int32_t start = vector.ListStart(row);
      for (int32_t i = 0; i < vector.ListLength(row); ++i) {
        int64_t entry = entries.offset() + start + i;
        seed = HashValue<Hasher>(*entries.child(0), entry, seed);
        seed = HashValue<Hasher>(*entries.child(1), entry, seed);
      }
      return seed;
    }
    case TypeId::kStruct:
      for (size_t i = 0; i < vector.children().size(); ++i) {
        seed = HashValue<Hasher>(*vector.child(i), vector.offset() + row, seed);
      }
      return seed;
    case TypeId::kNull: return seed;
  }
  return seed;
}

constexpr uint32_t kHashSeed = 42;

}  // namespace

int32_t SparkMurmur3Hash(const std::vector<VectorPtr>& arguments, int64_t row) {
  uint32_t hash = kHashSeed;
  for (const VectorPtr& argument : arguments) hash = HashValue<Murmur3>(*argument, row, hash);
  return static_cast<int32_t>(hash);
}

void RegisterHashFunctions(FunctionRegistry& registry) {
  registry.Register("hash", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("hash", arguments, 1, SIZE_MAX);
    return MakeCall("hash", IntegerType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      BufferPtr values = Buffer::Allocate(static_cast<size_t>(num_rows) * 4);
                      int32_t* out = values->as<int32_t>();
                      for (int64_t row = 0; row < num_rows; ++row) out[row] = SparkMurmur3Hash(args, row);
                      return Vector::Make(IntegerType(), num_rows, {nullptr, values}, {}, 0);
                    });
  });
  registry.Register("xxhash64", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("xxhash64", arguments, 1, SIZE_MAX);
    return MakeCall("xxhash64", LongType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      BufferPtr values = Buffer::Allocate(static_cast<size_t>(num_rows) * 8);
                      int64_t* out = values->as<int64_t>();
                      for (int64_t row = 0; row < num_rows; ++row) {
                        uint64_t hash = kHashSeed;
                        for (const VectorPtr& argument : args) hash = HashValue<XxHash64>(*argument, row, hash);
                        out[row] = static_cast<int64_t>(hash);
                      }
                      return Vector::Make(LongType(), num_rows, {nullptr, values}, {}, 0);
                    });
  });
}

}  // namespace silt::expr::internal

namespace silt::expr {

uint32_t SparkMurmur3Bytes(std::string_view bytes, uint32_t seed) { return internal::Murmur3::HashBytes(bytes, seed); }

}  // namespace silt::expr
