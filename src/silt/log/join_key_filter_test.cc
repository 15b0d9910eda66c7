#include "silt/log/join_key_filter.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace silt::log {
namespace {

using ::testing::ElementsAre;

VectorPtr Integers(const DataTypePtr& type, const std::vector<std::optional<int64_t>>& values) {
  VectorBuilder builder(type);
  for (const auto& value : values) {
    if (value) {
      builder.AppendInt(*value);
    } else {
      builder.AppendNull();
    }
  }
  return builder.Finish();
}

VectorPtr Strings(const std::vector<std::optional<std::string>>& values) {
  VectorBuilder builder(StringType());
  for (const auto& value : values) {
    if (value) {
      builder.AppendString(*value);
    } else {
      builder.AppendNull();
    }
  }
  return builder.Finish();
}

std::vector<uint8_t> Kept(const JoinKeySet& set, const Vector& values) {
  std::vector<uint8_t> keep(static_cast<size_t>(values.length()), 1);
  set.KeepMembers(values, keep.data());
  return keep;
}

TEST(JoinKeySetTest, NarrowIntegerKeysAreAnExactBitmap) {
  auto set = JoinKeySet::Make(*Integers(LongType(), {7, 5, std::nullopt, 9, 7}), nullptr);
  ASSERT_NE(set, nullptr);
  EXPECT_TRUE(set->integer());
  EXPECT_TRUE(set->exact());
  EXPECT_EQ(set->num_keys(), 4);
  EXPECT_EQ(set->min(), Scalar(int64_t{5}));
  EXPECT_EQ(set->max(), Scalar(int64_t{9}));
  EXPECT_TRUE(set->Contains(Scalar(int64_t{5})));
  EXPECT_FALSE(set->Contains(Scalar(int64_t{6})));
  EXPECT_FALSE(set->Contains(Scalar(int64_t{4})));
  EXPECT_FALSE(set->Contains(Scalar(int64_t{10})));
  // Probe values of a narrower integer type compare as their value.
  EXPECT_THAT(Kept(*set, *Integers(IntegerType(), {4, 5, 6, 7, 8, 9, 10, -2147483648})),
              ElementsAre(0, 1, 0, 1, 0, 1, 0, 0));
  EXPECT_THAT(Kept(*set, *Integers(ByteType(), {5, 127, -128})), ElementsAre(1, 0, 0));
}

TEST(JoinKeySetTest, RowsTheJoinSkipsAreNoKeys) {
  std::vector<uint8_t> skip = {0, 1, 0};
  auto set = JoinKeySet::Make(*Integers(IntegerType(), {1, 2, 3}), skip.data());
  EXPECT_EQ(set->num_keys(), 2);
  EXPECT_THAT(Kept(*set, *Integers(IntegerType(), {1, 2, 3})), ElementsAre(1, 0, 1));
}

TEST(JoinKeySetTest, WideIntegerRangesUseABloomFilterThatKeepsEveryKey) {
  std::vector<std::optional<int64_t>> keys;
  for (int64_t i = 0; i < 1000; ++i) keys.push_back(i * (int64_t{1} << 30) - (int64_t{1} << 40));
  auto set = JoinKeySet::Make(*Integers(LongType(), keys), nullptr);
  EXPECT_FALSE(set->exact());
  auto probe = Integers(LongType(), keys);
  std::vector<uint8_t> kept = Kept(*set, *probe);
  EXPECT_EQ(std::count(kept.begin(), kept.end(), 1), 1000);
  // Values between the keys: about one in a thousand gets through.
  std::vector<std::optional<int64_t>> others;
  for (int64_t i = 0; i < 100000; ++i) others.push_back(i * 10007 + 1);
  std::vector<uint8_t> passed = Kept(*set, *Integers(LongType(), others));
  EXPECT_LT(std::count(passed.begin(), passed.end(), 1), 1000);
}

TEST(JoinKeySetTest, StringKeysKeepTheirRangeAndEveryKey) {
  auto set = JoinKeySet::Make(*Strings({"bc", "b", std::nullopt, "zz", ""}), nullptr);
  ASSERT_NE(set, nullptr);
  EXPECT_FALSE(set->integer());
  EXPECT_EQ(set->num_keys(), 4);
  EXPECT_EQ(set->min(), Scalar(std::string()));
  EXPECT_EQ(set->max(), Scalar(std::string("zz")));
  EXPECT_THAT(Kept(*set, *Strings({"b", "bc", "zz", "", "zzz", "bd"})),
              ElementsAre(1, 1, 1, 1, 0, 0));
  EXPECT_TRUE(set->Contains(Scalar(std::string("bc"))));
  EXPECT_FALSE(set->Contains(Scalar(std::string("zzz"))));
  // An integer vector is no string: left as it is.
  EXPECT_THAT(Kept(*set, *Integers(IntegerType(), {1, 2})), ElementsAre(1, 1));
}

TEST(JoinKeySetTest, NoKeyMatchesNothing) {
  auto set = JoinKeySet::Make(*Integers(IntegerType(), {std::nullopt, std::nullopt}), nullptr);
  EXPECT_EQ(set->num_keys(), 0);
  EXPECT_FALSE(set->min().has_value());
  EXPECT_FALSE(set->Contains(Scalar(int64_t{0})));
  EXPECT_THAT(Kept(*set, *Integers(IntegerType(), {0, 1})), ElementsAre(0, 0));
}

TEST(JoinKeySetTest, AsksForItsMemoryBeforeTakingIt) {
  std::vector<int64_t> asked;
  auto grant = [&](int64_t bytes) { asked.push_back(bytes); return true; };
  auto refuse = [&](int64_t bytes) { asked.push_back(bytes); return false; };
  // Keys 0..640: a bitmap of 641 bits, eleven words.
  std::vector<std::optional<int64_t>> narrow = {0, 640};
  EXPECT_NE(JoinKeySet::Make(*Integers(LongType(), narrow), nullptr, grant), nullptr);
  EXPECT_EQ(JoinKeySet::Make(*Integers(LongType(), narrow), nullptr, refuse), nullptr);
  EXPECT_THAT(asked, ElementsAre(88, 88));
  asked.clear();
  // Two strings: one Bloom block of eight 32-bit words.
  EXPECT_EQ(JoinKeySet::Make(*Strings({"a", "b"}), nullptr, refuse), nullptr);
  EXPECT_THAT(asked, ElementsAre(32));
}

TEST(JoinKeySetTest, OnlyIntegersAndStringsAreHeld) {
  EXPECT_TRUE(JoinKeySet::Supports(*DateType()));
  EXPECT_FALSE(JoinKeySet::Supports(*DoubleType()));
  VectorBuilder doubles(DoubleType());
  doubles.AppendDouble(1.5);
  EXPECT_EQ(JoinKeySet::Make(*doubles.Finish(), nullptr), nullptr);
}

TEST(JoinKeySetTest, StopsTestingOnceMostRowsPass) {
  std::vector<std::optional<int64_t>> keys;
  for (int64_t i = 0; i < 100; ++i) keys.push_back(i);
  auto selective = JoinKeySet::Make(*Integers(LongType(), keys), nullptr);
  auto loose = JoinKeySet::Make(*Integers(LongType(), keys), nullptr);
  std::vector<std::optional<int64_t>> mostly_keys, mostly_not;
  for (int64_t i = 0; i < 10000; ++i) {
    mostly_keys.push_back(i % 125);  // 80% keys
    mostly_not.push_back(i % 1000);  // 10% keys
  }
  auto in = Integers(LongType(), mostly_keys);
  auto out = Integers(LongType(), mostly_not);
  for (int64_t tested = 0; tested <= JoinKeySet::kSampleRows; tested += 10000) {
    EXPECT_TRUE(loose->Selective());
    Kept(*loose, *in);
    Kept(*selective, *out);
  }
  EXPECT_FALSE(loose->Selective());
  EXPECT_TRUE(selective->Selective());
}

TEST(JoinKeyFilterTest, IsEmptyUntilPublished) {
  JoinKeyFilter filter("k");
  filter.set_join_id(3);
  EXPECT_EQ(filter.column(), "k");
  EXPECT_EQ(filter.join_id(), 3);
  EXPECT_EQ(filter.Current(), nullptr);
  auto set = JoinKeySet::Make(*Integers(IntegerType(), {1}), nullptr);
  filter.Publish(set);
  EXPECT_EQ(filter.Current(), set);
}

}  // namespace
}  // namespace silt::log
