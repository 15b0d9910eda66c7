// KeyTable: group numbering by first insertion, lookups of whole batches and of row subsets,
// fixed and variable key lengths, growth far beyond the initial slots.

#include "silt/exec/hash_table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "silt/expr/test_batch_internal.h"

namespace silt::exec {
namespace {

using expr::testing::IntColumn;
using expr::testing::StringColumn;
using ::testing::ElementsAre;

EncodedKeys Encode(const VectorPtr& column) {
  EncodedKeys keys;
  EncodeKeys({column}, column->length(), keys);
  return keys;
}

TEST(KeyTableTest, GroupsAreNumberedByFirstInsertion) {
  EncodedKeys keys = Encode(StringColumn({"b", "a", std::nullopt, "b", "a", std::nullopt, "c"}));
  KeyTable table;
  std::vector<uint32_t> groups(7);
  std::vector<int64_t> inserted;
  table.FindOrInsert(keys, groups.data(), &inserted);
  EXPECT_THAT(groups, ElementsAre(0, 1, 2, 0, 1, 2, 3));
  EXPECT_THAT(inserted, ElementsAre(0, 1, 2, 6));
  EXPECT_EQ(table.num_groups(), 4u);
  EXPECT_EQ(table.Find(keys.key(6), keys.hashes[6]), 3);
  EncodedKeys absent = Encode(StringColumn({"d"}));
  EXPECT_EQ(table.Find(absent.key(0), absent.hashes[0]), -1);
}

// A table with room reserved for a number of keys takes them without growing, and holds the
// keys it had before the reservation.
TEST(KeyTableTest, ReservedTableTakesItsKeysWithoutGrowing) {
  std::vector<std::optional<int64_t>> values;
  for (int64_t i = 0; i < 30000; ++i) values.push_back(i * 7919 % 100003);
  EncodedKeys keys = Encode(IntColumn(LongType(), values));
  KeyTable table;
  bool inserted = false;
  EXPECT_EQ(table.FindOrInsert(keys.key(0), keys.hashes[0], &inserted), 0u);
  table.Reserve(30000, 30000 * keys.key(0).size());
  const int64_t reserved_bytes = table.MemoryBytes();
  std::vector<uint32_t> groups(30000);
  table.FindOrInsert(keys, groups.data(), nullptr);
  EXPECT_EQ(table.MemoryBytes(), reserved_bytes);
  EXPECT_EQ(table.num_groups(), 30000u);
  for (int64_t row = 0; row < 30000; ++row) {
    ASSERT_EQ(groups[static_cast<size_t>(row)], static_cast<uint32_t>(row));
    ASSERT_EQ(table.Find(keys.key(row), keys.hashes[static_cast<size_t>(row)]), row);
  }
}

TEST(KeyTableTest, RowSubsetsFindTheSameGroupsAsWholeBatches) {
  // Many keys (the table grows many times), looked up through row lists in a scrambled order,
  // with fixed-length keys (longs) and variable-length ones (strings).
  std::vector<std::optional<int64_t>> longs;
  std::vector<std::optional<std::string>> strings;
  for (int64_t i = 0; i < 50000; ++i) {
    longs.push_back(i % 9973 == 0 ? std::nullopt : std::optional<int64_t>(i * 7919 % 20011));
    strings.push_back("k" + std::to_string(i * 7919 % 20011));
  }
  for (const VectorPtr& column : {IntColumn(LongType(), longs), StringColumn(strings)}) {
    EncodedKeys keys = Encode(column);
    KeyTable whole;
    std::vector<uint32_t> expected(50000);
    whole.FindOrInsert(keys, expected.data(), nullptr);

    KeyTable by_rows;
    std::vector<uint32_t> rows;
    for (uint32_t i = 0; i < 50000; ++i) rows.push_back(i * 30011u % 50000u);
    std::vector<uint32_t> groups(rows.size());
    by_rows.FindOrInsertRows(keys, rows.data(), rows.size(), groups.data());
    ASSERT_EQ(by_rows.num_groups(), whole.num_groups());
    // Group ids differ (another insertion order) but partition the rows identically.
    std::vector<int64_t> map(whole.num_groups(), -1);
    for (size_t i = 0; i < rows.size(); ++i) {
      uint32_t expected_group = expected[rows[i]];
      if (map[expected_group] < 0) map[expected_group] = groups[i];
      ASSERT_EQ(map[expected_group], groups[i]) << "row " << rows[i];
      ASSERT_EQ(by_rows.key(groups[i]), keys.key(rows[i]));
    }
  }
}

}  // namespace
}  // namespace silt::exec
