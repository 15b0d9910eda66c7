// Message digests as hex strings: md5, sha1, sha2 (224, 256, 384 and 512 bits; 0 means 256), sha. The
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

// The SHA-512 constants (FIPS 180-4 §4.2.3, §5.3.4, §5.3.5): the first 64 fraction bits of the
// cube roots of the first 80 primes, and of the square roots of the first 8 primes (SHA-512) and
// of the 9th to 16th primes (SHA-384).
constexpr uint64_t kSha512RoundConstants[80] = {
    0x428a2f98d728ae22ULL, 0x7137449123ef65cdULL, 0xb5c0fbcfec4d3b2fULL, 0xe9b5dba58189dbbcULL,
    0x3956c25bf348b538ULL, 0x59f111f1b605d019ULL, 0x923f82a4af194f9bULL, 0xab1c5ed5da6d8118ULL,
    0xd807aa98a3030242ULL, 0x12835b0145706fbeULL, 0x243185be4ee4b28cULL, 0x550c7dc3d5ffb4e2ULL,
    0x72be5d74f27b896fULL, 0x80deb1fe3b1696b1ULL, 0x9bdc06a725c71235ULL, 0xc19bf174cf692694ULL,
    0xe49b69c19ef14ad2ULL, 0xefbe4786384f25e3ULL, 0x0fc19dc68b8cd5b5ULL, 0x240ca1cc77ac9c65ULL,
    0x2de92c6f592b0275ULL, 0x4a7484aa6ea6e483ULL, 0x5cb0a9dcbd41fbd4ULL, 0x76f988da831153b5ULL,
    0x983e5152ee66dfabULL, 0xa831c66d2db43210ULL, 0xb00327c898fb213fULL, 0xbf597fc7beef0ee4ULL,
    0xc6e00bf33da88fc2ULL, 0xd5a79147930aa725ULL, 0x06ca6351e003826fULL, 0x142929670a0e6e70ULL,
    0x27b70a8546d22ffcULL, 0x2e1b21385c26c926ULL, 0x4d2c6dfc5ac42aedULL, 0x53380d139d95b3dfULL,
    0x650a73548baf63deULL, 0x766a0abb3c77b2a8ULL, 0x81c2c92e47edaee6ULL, 0x92722c851482353bULL,
    0xa2bfe8a14cf10364ULL, 0xa81a664bbc423001ULL, 0xc24b8b70d0f89791ULL, 0xc76c51a30654be30ULL,
    0xd192e819d6ef5218ULL, 0xd69906245565a910ULL, 0xf40e35855771202aULL, 0x106aa07032bbd1b8ULL,
    0x19a4c116b8d2d0c8ULL, 0x1e376c085141ab53ULL, 0x2748774cdf8eeb99ULL, 0x34b0bcb5e19b48a8ULL,
    0x391c0cb3c5c95a63ULL, 0x4ed8aa4ae3418acbULL, 0x5b9cca4f7763e373ULL, 0x682e6ff3d6b2b8a3ULL,
    0x748f82ee5defb2fcULL, 0x78a5636f43172f60ULL, 0x84c87814a1f0ab72ULL, 0x8cc702081a6439ecULL,
    0x90befffa23631e28ULL, 0xa4506cebde82bde9ULL, 0xbef9a3f7b2c67915ULL, 0xc67178f2e372532bULL,
    0xca273eceea26619cULL, 0xd186b8c721c0c207ULL, 0xeada7dd6cde0eb1eULL, 0xf57d4f7fee6ed178ULL,
    0x06f067aa72176fbaULL, 0x0a637dc5a2c898a6ULL, 0x113f9804bef90daeULL, 0x1b710b35131c471bULL,
    0x28db77f523047d84ULL, 0x32caab7b40c72493ULL, 0x3c9ebe0a15c9bebcULL, 0x431d67c49c100d4cULL,
    0x4cc5d4becb3e42b6ULL, 0x597f299cfc657e2aULL, 0x5fcb6fab3ad6faecULL, 0x6c44198c4a475817ULL,
};
constexpr uint64_t kSha512Initial[8] = {
    0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL, 0xa54ff53a5f1d36f1ULL,
    0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL, 0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL,
};
constexpr uint64_t kSha384Initial[8] = {
    0xcbbb9d5dc1059ed8ULL, 0x629a292a367cd507ULL, 0x9159015a3070dd17ULL, 0x152fecd8f70e5939ULL,
    0x67332667ffc00b31ULL, 0x8eb44a8768581511ULL, 0xdb0c2e0d64f98fa7ULL, 0x47b5481dbefa4fa4ULL,
};

uint64_t RotateRight64(uint64_t value, int bits) { return (value >> bits) | (value << (64 - bits)); }

// SHA-512, or SHA-384 (other initial state, digest truncated to 6 words).
std::string Sha512(std::string_view message, bool truncate_to_384) {
  uint64_t state[8];
  std::memcpy(state, truncate_to_384 ? kSha384Initial : kSha512Initial, sizeof(state));
  // Padding: 0x80, zeros up to 112 mod 128 bytes, then the bit length as a 128-bit big-endian.
  std::string padded(message);
  padded += static_cast<char>(0x80);
  while (padded.size() % 128 != 112) padded += '\0';
  padded.append(8, '\0');
  uint64_t bits = static_cast<uint64_t>(message.size()) * 8;
  for (int shift = 56; shift >= 0; shift -= 8) padded += static_cast<char>((bits >> shift) & 0xFF);
  for (size_t block = 0; block < padded.size(); block += 128) {
    uint64_t w[80];
    for (int i = 0; i < 16; ++i) {
      w[i] = (static_cast<uint64_t>(ReadBigEndian(padded.data() + block + 8 * i)) << 32) |
             ReadBigEndian(padded.data() + block + 8 * i + 4);
    }
    for (int i = 16; i < 80; ++i) {
      uint64_t s0 = RotateRight64(w[i - 15], 1) ^ RotateRight64(w[i - 15], 8) ^ (w[i - 15] >> 7);
      uint64_t s1 = RotateRight64(w[i - 2], 19) ^ RotateRight64(w[i - 2], 61) ^ (w[i - 2] >> 6);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint64_t a = state[0], b = state[1], c = state[2], d = state[3], e = state[4], f = state[5], g = state[6],
             h = state[7];
    for (int i = 0; i < 80; ++i) {
      uint64_t s1 = RotateRight64(e, 14) ^ RotateRight64(e, 18) ^ RotateRight64(e, 41);
      uint64_t choose = (e & f) ^ (~e & g);
      uint64_t temporary1 = h + s1 + choose + kSha512RoundConstants[i] + w[i];
      uint64_t s0 = RotateRight64(a, 28) ^ RotateRight64(a, 34) ^ RotateRight64(a, 39);
      uint64_t majority = (a & b) ^ (a & c) ^ (b & c);
      uint64_t temporary2 = s0 + majority;
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
  int words = truncate_to_384 ? 6 : 8;
  uint8_t digest[64];
  for (int i = 0; i < 8 * words; ++i) digest[i] = static_cast<uint8_t>(state[i / 8] >> (56 - 8 * (i % 8)));
  return Hex(digest, static_cast<size_t>(8 * words));
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
                          out.AppendString(Sha512(args[0]->GetString(row), bits == 384));
                        } else {
                          out.AppendNull();  // Spark returns NULL for unsupported bit lengths
                        }
                      }
                      return out.Finish();
                    });
  });
}

}  // namespace silt::expr::internal
