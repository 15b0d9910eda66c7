// Non-deterministic functions: rand/random (uniform in [0, 1)), randn (standard normal) and
// uuid (a random version-4 UUID). Each evaluation draws new values; with a seed, rand and randn
// repeat their sequence per evaluated batch (Spark seeds per partition, so the values differ
// from Spark's).

#include <random>

#include "silt/expr/function_kernels_internal.h"

namespace silt::expr::internal {
namespace {

// The seed argument: a constant integer, or none (a fresh random seed per batch).
std::optional<uint64_t> SeedArgument(std::string_view name, const std::vector<ExpressionPtr>& arguments) {
  if (arguments.empty()) return std::nullopt;
  const ExpressionPtr& seed = arguments[0];
  if (seed->kind() != ExpressionKind::kLiteral || (!IsIntegral(*seed->type()) && seed->type()->id() != TypeId::kNull)) {
    ThrowArgumentType(name, 0, seed, "a constant \"INT\" or \"BIGINT\"");
  }
  return seed->literal().is_null() ? 0 : static_cast<uint64_t>(seed->literal().GetInt());
}

template <typename Draw>
void RegisterRandom(FunctionRegistry& registry, std::string_view name, Draw draw) {
  registry.Register(name, [name, draw](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount(name, arguments, 0, 1);
    std::optional<uint64_t> seed = SeedArgument(name, arguments);
    return MakeCall(
        name, DoubleType(), {},
        [seed, draw](const std::vector<VectorPtr>&, int64_t num_rows, EvalContext&, RowMask) {
          std::mt19937_64 generator(seed ? *seed : std::random_device{}());
          VectorBuilder out(DoubleType(), num_rows);
          for (int64_t row = 0; row < num_rows; ++row) out.AppendDouble(draw(generator));
          return out.Finish();
        },
        /*deterministic=*/false);
  });
}

}  // namespace

void RegisterRandomFunctions(FunctionRegistry& registry) {
  auto uniform = [](std::mt19937_64& generator) { return std::uniform_real_distribution<double>(0.0, 1.0)(generator); };
  RegisterRandom(registry, "rand", uniform);
  RegisterRandom(registry, "random", uniform);
  RegisterRandom(registry, "randn",
                 [](std::mt19937_64& generator) { return std::normal_distribution<double>(0.0, 1.0)(generator); });
  registry.Register("uuid", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("uuid", arguments, 0, 0);
    return MakeCall(
        "uuid", StringType(), {},
        [](const std::vector<VectorPtr>&, int64_t num_rows, EvalContext&, RowMask) {
          std::mt19937_64 generator(std::random_device{}());
          VectorBuilder out(StringType(), num_rows);
          static const char kHex[] = "0123456789abcdef";
          for (int64_t row = 0; row < num_rows; ++row) {
            uint64_t high = generator();
            uint64_t low = generator();
            high = (high & ~uint64_t{0xF000}) | 0x4000;                    // version 4
            low = (low & ~(uint64_t{0xC} << 60)) | (uint64_t{0x8} << 60);  // IETF variant
            std::string text;
            for (int i = 15; i >= 0; --i) text += kHex[(high >> (i * 4)) & 0xF];
            for (int i = 15; i >= 0; --i) text += kHex[(low >> (i * 4)) & 0xF];
            text.insert(20, "-");
            text.insert(16, "-");
            text.insert(12, "-");
            text.insert(8, "-");
            out.AppendString(text);
          }
          return out.Finish();
        },
        /*deterministic=*/false);
  });
}

}  // namespace silt::expr::internal
