#include "silt/vector/batch.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "silt/base/check.h"

namespace silt {
namespace {

SchemaPtr IdNameSchema() {
  return std::make_shared<const Schema>(
      std::vector<Field>{{"id", LongType(), false, {}}, {"name", StringType(), true, {}}});
}

Batch MakeBatch(int64_t first_id, int64_t rows) {
  VectorBuilder ids(LongType());
  VectorBuilder names(StringType());
  for (int64_t i = 0; i < rows; ++i) {
    ids.AppendInt(first_id + i);
    if ((first_id + i) % 3 == 0) {
      names.AppendNull();
    } else {
      names.AppendString("n" + std::to_string(first_id + i));
    }
  }
  return Batch(IdNameSchema(), {ids.Finish(), names.Finish()}, rows);
}

TEST(BatchTest, ConstructorChecksColumns) {
  VectorBuilder ids(LongType());
  ids.AppendInt(1);
  VectorPtr one_id = ids.Finish();
  VectorBuilder names(StringType());
  names.AppendString("a");
  VectorPtr one_name = names.Finish();
  EXPECT_NO_THROW(Batch(IdNameSchema(), {one_id, one_name}, 1));
  EXPECT_THROW(Batch(IdNameSchema(), {one_id}, 1), Error);            // too few columns
  EXPECT_THROW(Batch(IdNameSchema(), {one_id, one_name}, 2), Error);  // wrong row count
  EXPECT_THROW(Batch(IdNameSchema(), {one_name, one_id}, 1), Error);  // wrong types
  EXPECT_THROW(Batch(IdNameSchema(), {one_id, nullptr}, 1), Error);
  try {
    Batch(IdNameSchema(), {one_id}, 1);
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), "INTERNAL_ERROR");
  }
}

TEST(BatchTest, DefaultBatchIsEmpty) {
  Batch batch;
  EXPECT_EQ(batch.num_rows(), 0);
  EXPECT_EQ(batch.num_columns(), 0u);
}

TEST(BatchTest, SliceIsAViewOfEveryColumn) {
  Batch batch = MakeBatch(0, 10);
  Batch slice = batch.Slice(4, 3);
  EXPECT_EQ(slice.num_rows(), 3);
  EXPECT_EQ(slice.column(0)->buffer(1).get(), batch.column(0)->buffer(1).get());
  EXPECT_EQ(slice.column(0)->ValueToString(0), "4");
  EXPECT_TRUE(slice.Equals(MakeBatch(4, 3)));
  EXPECT_THROW(batch.Slice(9, 2), Error);
}

TEST(BatchTest, EqualsComparesSchemaAndValues) {
  EXPECT_TRUE(MakeBatch(0, 5).Equals(MakeBatch(0, 5)));
  EXPECT_FALSE(MakeBatch(0, 5).Equals(MakeBatch(1, 5)));
  EXPECT_FALSE(MakeBatch(0, 5).Equals(MakeBatch(0, 4)));
  Batch batch = MakeBatch(0, 2);
  auto renamed = std::make_shared<const Schema>(
      std::vector<Field>{{"ID", LongType(), false, {}}, {"name", StringType(), true, {}}});
  EXPECT_FALSE(batch.Equals(Batch(renamed, batch.columns(), 2)));
}

TEST(BatchTest, ConcatenateBatches) {
  Batch all = ConcatenateBatches({MakeBatch(0, 4), MakeBatch(4, 0), MakeBatch(4, 3).Slice(0, 3),
                                  MakeBatch(7, 10).Slice(0, 5)});
  EXPECT_EQ(all.num_rows(), 12);
  EXPECT_TRUE(all.Equals(MakeBatch(0, 12)));
  EXPECT_EQ(ConcatenateBatches({}).num_rows(), 0);
  EXPECT_TRUE(ConcatenateBatches({MakeBatch(3, 2)}).Equals(MakeBatch(3, 2)));
  auto other = std::make_shared<const Schema>(std::vector<Field>{{"x", LongType(), true, {}}});
  VectorBuilder xs(LongType());
  EXPECT_THROW(ConcatenateBatches({MakeBatch(0, 1), Batch(other, {xs.Finish()}, 0)}), Error);
}

}  // namespace
}  // namespace silt
