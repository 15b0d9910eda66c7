// Message digests as hex strings: md5, sha1, sha2 (224 and 256 bits; 0 means 256), sha. The
// round constants are derived from their mathematical definitions (sines, square and cube roots
// of primes) rather than tabulated, and checked by the standard test vectors in the tests.

#include <array>
#include <cmath>
#include <cstring>

#include "silt/expr/function_kernels_internal.h"

namespace silt::expr::internal {
namespace {

uint32_t RotateLeft(uint32_t value, int bits) { return (value << bits) | (value >> (32 - bits)); }
uint32_t RotateRight(uint32_t value, int bits) { return (value >> bits) | (value << (32 - bits)); }

std::string Hex(const uint8_t* bytes, size_t length) {
  static const char kDigits[] = "0123456789abcdef";
  std::string text;
  for (size_t i = 0; i < length; ++i) {
    text += kDigits[bytes[i] >> 4];
    text += kDigits[bytes[i] & 15];
  }
  return text;
}

// Pads a message as MD5 and SHA do: 0x80, zeros, then the bit length (little- or big-endian).
std::string Pad(std::string_view message, bool big_endian_length) {
  std::string padded(message);
  uint64_t bits = static_cast<uint64_t>(message.size()) * 8;
  padded += static_cast<char>(0x80);
  while (padded.size() % 64 != 56) padded += '\0';
  for (int i = 0; i < 8; ++i) {
    int shift = big_endian_length ? 8 * (7 - i) : 8 * i;
    padded += static_cast<char>((bits >> shift) & 0xFF);
  }
  return padded;
}

uint32_t ReadBigEndian(const char* data) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(data);
  return (uint32_t{bytes[0]} << 24) | (uint32_t{bytes[1]} << 16) | (uint32_t{bytes[2]} << 8) | bytes[3];
}

std::vector<int> FirstPrimes(int count) {
  std::vector<int> primes;
  for (int candidate = 2; static_cast<int>(primes.size()) < count; ++candidate) {
    bool prime = true;
    for (int p : primes) {
      if (p * p > candidate) break;
      if (candidate % p == 0) prime = false;
    }
    if (prime) primes.push_back(candidate);
  }
  return primes;
}

uint32_t FractionBits(long double value) {
  long double fraction = value - std::floor(value);
  return static_cast<uint32_t>(std::floor(fraction * 4294967296.0L));
}

std::string Md5(std::string_view message) {
  static const std::array<uint32_t, 64> kSines = [] {
    std::array<uint32_t, 64> table{};
    for (int i = 0; i < 64; ++i) table[i] = static_cast<uint32_t>(std::floor(std::fabs(std::sin(i + 1.0L)) * 4294967296.0L));
    return table;
  }();
  static const int kShifts[4][4] = {{7, 12, 17, 22}, {5, 9, 14, 20}, {4, 11, 16, 23}, {6, 10, 15, 21}};
  uint32_t state[4] = {0x67452301u, 0xefcdab89u, 0x98badcfeu, 0x10325476u};
  std::string padded = Pad(message, false);
  for (size_t block = 0; block < padded.size(); block += 64) {
    uint32_t words[16];
    std::memcpy(words, padded.data() + block, 64);  // little-endian host (x86, ARM)
    uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
    for (int i = 0; i < 64; ++i) {
      uint32_t f;
      int g;
      int round = i / 16;
      if (round == 0) {
        f = (b & c) | (~b & d);
        g = i;
      } else if (round == 1) {
        f = (d & b) | (~d & c);
        g = (5 * i + 1) % 16;
      } else if (round == 2) {
        f = b ^ c ^ d;
        g = (3 * i + 5) % 16;
      } else {
        f = c ^ (b | ~d);
        g = (7 * i) % 16;
      }
      uint32_t rotated = RotateLeft(a + f + kSines[i] + words[g], kShifts[round][i % 4]);
      a = d;
      d = c;
      c = b;
      b = b + rotated;
    }
    state[0] += a;
    state[1] += b;
    state[2] += c;
    state[3] += d;
  }
  uint8_t digest[16];
  std::memcpy(digest, state, 16);
  return Hex(digest, 16);
}

std::string Sha1(std::string_view message) {
  uint32_t state[5] = {0x67452301u, 0xEFCDAB89u, 0x98BADCFEu, 0x10325476u, 0xC3D2E1F0u};
  std::string padded = Pad(message, true);
  for (size_t block = 0; block < padded.size(); block += 64) {
    uint32_t w[80];
    for (int i = 0; i < 16; ++i) w[i] = ReadBigEndian(padded.data() + block + 4 * i);
    for (int i = 16; i < 80; ++i) w[i] = RotateLeft(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    uint32_t a = state[0], b = state[1], c = state[2], d = state[3], e = state[4];
    for (int i = 0; i < 80; ++i) {
      uint32_t f, k;
      if (i < 20) {
        f = (b & c) | (~b & d);
        k = 0x5A827999u;
      } else if (i < 40) {
        f = b ^ c ^ d;
        k = 0x6ED9EBA1u;
      } else if (i < 60) {
        f = (b & c) | (b & d) | (c & d);
        k = 0x8F1BBCDCu;
      } else {
        f = b ^ c ^ d;
        k = 0xCA62C1D6u;
      }
      uint32_t temporary = RotateLeft(a, 5) + f + e + k + w[i];
      e = d;
      d = c;
      c = RotateLeft(b, 30);
      b = a;
      a = temporary;
    }
    state[0] += a;
    state[1] += b;
    state[2] += c;
    state[3] += d;
    state[4] += e;
  }
  uint8_t digest[20];
  for (int i = 0; i < 20; ++i) digest[i] = static_cast<uint8_t>(state[i / 4] >> (24 - 8 * (i % 4)));
  return Hex(digest, 20);
}

// SHA-256, or SHA-224 (other initial state, digest truncated to 7 words).
std::string Sha256(std::string_view message, bool truncate_to_224) {
  static const std::array<uint32_t, 64> kRoundConstants = [] {
    std::array<uint32_t, 64> table{};
    std::vector<int> primes = FirstPrimes(64);
    for (int i = 0; i < 64; ++i) table[i] = FractionBits(std::cbrt(static_cast<long double>(primes[i])));
    return table;
  }();
  uint32_t state[8];
  if (truncate_to_224) {
    const uint32_t kInitial224[8] = {0xc1059ed8u, 0x367cd507u, 0x3070dd17u, 0xf70e5939u,
                                     0xffc00b31u, 0x68581511u, 0x64f98fa7u, 0xbefa4fa4u};
    std::memcpy(state, kInitial224, sizeof(state));
  } else {
    std::vector<int> primes = FirstPrimes(8);
    for (int i = 0; i < 8; ++i) state[i] = FractionBits(std::sqrt(static_cast<long double>(primes[i])));
  }
  std::string padded = Pad(message, true);
  for (size_t block = 0; block < padded.size(); block += 64) {
    uint32_t w[64];
    for (int i = 0; i < 16; ++i) w[i] = ReadBigEndian(padded.data() + block + 4 * i);
    for (int i = 16; i < 64; ++i) {
      uint32_t s0 = RotateRight(w[i - 15], 7) ^ RotateRight(w[i - 15], 18) ^ (w[i - 15] >> 3);
      uint32_t s1 = RotateRight(w[i - 2], 17) ^ RotateRight(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = state[0], b = state[1], c = state[2], d = state[3], e = state[4], f = state[5], g = state[6],
             h = state[7];
    for (int i = 0; i < 64; ++i) {
      uint32_t s1 = RotateRight(e, 6) ^ RotateRight(e, 11) ^ RotateRight(e, 25);
      uint32_t choose = (e & f) ^ (~e & g);
      uint32_t temporary1 = h + s1 + choose + kRoundConstants[i] + w[i];
      uint32_t s0 = RotateRight(a, 2) ^ RotateRight(a, 13) ^ RotateRight(a, 22);
      uint32_t majority = (a & b) ^ (a & c) ^ (b & c);
      uint32_t temporary2 = s0 + majority;
      h = g;
      g = f;
      f = e;
      e = d + temporary1;
      d = c;
      c = b;
      b = a;
      a = temporary1 + temporary2;
    }
    state[0] += a;
    state[1] += b;
    state[2] += c;
    state[3] += d;
    state[4] += e;
    state[5] += f;
    state[6] += g;
    state[7] += h;
  }
  int words = truncate_to_224 ? 7 : 8;
  uint8_t digest[32];
  for (int i = 0; i < 4 * words; ++i) digest[i] = static_cast<uint8_t>(state[i / 4] >> (24 - 8 * (i % 4)));
  return Hex(digest, static_cast<size_t>(4 * words));
}

// Digest arguments are binary; strings are read as their UTF-8 bytes (Spark's implicit cast).
ExpressionPtr BinaryArgument(std::string_view name, ExpressionPtr argument) {
  TypeId id = argument->type()->id();
  if (id == TypeId::kBinary) return argument;
  if (id == TypeId::kString || id == TypeId::kNull) return Cast(std::move(argument), BinaryType());
  ThrowArgumentType(name, 0, argument, "\"BINARY\"");
}

template <typename Digest>
void RegisterDigest(FunctionRegistry& registry, std::string_view name, Digest digest) {
  registry.Register(name, [name, digest](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount(name, arguments, 1, 1);
    arguments[0] = BinaryArgument(name, std::move(arguments[0]));
    return MakeCall(name, StringType(), std::move(arguments),
                    [digest](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      return MapRows(StringType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        out.AppendString(digest(args[0]->GetString(row)));
                      });
                    });
  });
}

}  // namespace

void RegisterDigestFunctions(FunctionRegistry& registry) {
  RegisterDigest(registry, "md5", [](std::string_view bytes) { return Md5(bytes); });
  RegisterDigest(registry, "sha1", [](std::string_view bytes) { return Sha1(bytes); });
  RegisterDigest(registry, "sha", [](std::string_view bytes) { return Sha1(bytes); });
  registry.Register("sha2", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("sha2", arguments, 2, 2);
    arguments[0] = BinaryArgument("sha2", std::move(arguments[0]));
    arguments[1] = ImplicitCast("sha2", 1, std::move(arguments[1]), IntegerType());
    return MakeCall("sha2", StringType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      VectorBuilder out(StringType(), num_rows);
                      for (int64_t row = 0; row < num_rows; ++row) {
                        int32_t bits = AllValid(args, row) ? args[1]->values<int32_t>()[row] : -1;
                        if (bits == 0 || bits == 256) {
                          out.AppendString(Sha256(args[0]->GetString(row), false));
                        } else if (bits == 224) {
                          out.AppendString(Sha256(args[0]->GetString(row), true));
                        } else if (bits == 384 || bits == 512) {
                          SILT_THROW(NOT_IMPLEMENTED, {{"feature", "sha2 with " + std::to_string(bits) + " bits"}});
                        } else {
                          out.AppendNull();  // Spark returns NULL for unsupported bit lengths
                        }
                      }
                      return out.Finish();
                    });
  });
}

}  // namespace silt::expr::internal
