#include "silt/vector/take.h"

#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace silt {
namespace {

VectorPtr Build(DataTypePtr type, const std::vector<std::optional<std::string>>& texts) {
  VectorBuilder builder(type);
  for (const auto& text : texts) {
    if (!text) {
      builder.AppendNull();
    } else if (type->id() == TypeId::kString) {
      builder.AppendString(*text);
    } else if (type->id() == TypeId::kBoolean) {
      builder.AppendBool(*text == "true");
    } else {
      builder.AppendInt(std::stoll(*text));
    }
  }
  return builder.Finish();
}

std::vector<std::string> Texts(const Vector& vector) {
  std::vector<std::string> texts;
  for (int64_t i = 0; i < vector.length(); ++i) {
    texts.push_back(vector.IsNull(i) ? "NULL" : vector.ValueToString(i));
  }
  return texts;
}

TEST(TakeRowsTest, GathersRepeatsAndNegativeIndexesAsNull) {
  std::vector<int64_t> rows = {2, -1, 0, 1, 2};
  for (DataTypePtr type : {StringType(), LongType(), IntegerType(), ShortType(), BooleanType()}) {
    bool boolean = type->id() == TypeId::kBoolean;
    VectorPtr source = Build(type, {boolean ? "true" : "1", std::nullopt, boolean ? "false" : "333"});
    VectorPtr taken = TakeRows(*source, rows);
    ASSERT_EQ(taken->length(), 5) << type->ToString();
    std::vector<std::string> expected = boolean
        ? std::vector<std::string>{"false", "NULL", "true", "NULL", "false"}
        : std::vector<std::string>{"333", "NULL", "1", "NULL", "333"};
    EXPECT_EQ(Texts(*taken), expected) << type->ToString();
    EXPECT_EQ(taken->null_count(), 2) << type->ToString();
  }
}

TEST(TakeRowsTest, DictionaryCodesFollowTheRows) {
  // "b", NULL, "a", "b" decoded from the dictionary {"a", "b"}, sliced, then gathered.
  auto codes = std::make_shared<DictionaryCodes>();
  codes->dictionary = Build(StringType(), {"a", "b"});
  codes->codes = Buffer::Allocate(5 * sizeof(int32_t));
  const int32_t values[] = {0, 1, 0, 0, 1};  // row 0 is sliced away; row 2 is NULL
  std::memcpy(codes->codes->data(), values, sizeof(values));
  VectorPtr source = Vector::WithDictionaryCodes(Build(StringType(), {"a", "b", std::nullopt, "a", "b"}), codes);
  VectorPtr slice = source->Slice(1, 4);
  VectorPtr taken = TakeRows(*slice, std::vector<int64_t>{3, -1, 0, 2, 1});
  EXPECT_EQ(Texts(*taken), (std::vector<std::string>{"b", "NULL", "b", "a", "NULL"}));
  ASSERT_NE(taken->dictionary_codes(), nullptr);
  EXPECT_EQ(taken->dictionary_codes()->dictionary, codes->dictionary);
  const int32_t* taken_codes = taken->dictionary_codes()->codes->as<int32_t>() + taken->offset();
  for (int64_t i = 0; i < taken->length(); ++i) {
    if (taken->IsValid(i)) {
      EXPECT_EQ(codes->dictionary->GetString(taken_codes[i]), taken->GetString(i)) << i;
    } else {
      EXPECT_GE(taken_codes[i], 0);
      EXPECT_LT(taken_codes[i], 2);
    }
  }
  // A vector without codes gathers without them.
  EXPECT_EQ(TakeRows(*Build(StringType(), {"x"}), std::vector<int64_t>{0})->dictionary_codes(), nullptr);
}

TEST(TakeRowsTest, NoNullsGiveNoValidityAndEmptySelectionsWork) {
  VectorPtr source = Build(StringType(), {"a", "", "ccc"});
  VectorPtr taken = TakeRows(*source, std::vector<int64_t>{1, 2});
  EXPECT_EQ(Texts(*taken), (std::vector<std::string>{"", "ccc"}));
  EXPECT_EQ(taken->null_count(), 0);
  EXPECT_EQ(TakeRows(*source, std::vector<int64_t>{})->length(), 0);
}

TEST(TakeRowsTest, SlicedSourcesAndNestedValues) {
  VectorPtr longs = Build(LongType(), {"10", "20", std::nullopt, "40"})->Slice(1, 3);
  EXPECT_EQ(Texts(*TakeRows(*longs, std::vector<int64_t>{2, 1, 0})),
            (std::vector<std::string>{"40", "NULL", "20"}));
  VectorBuilder lists(ListType(IntegerType()));
  lists.AppendNull();
  VectorPtr list = lists.Finish();
  EXPECT_EQ(Texts(*TakeRows(*list, std::vector<int64_t>{0, -1})),
            (std::vector<std::string>{"NULL", "NULL"}));
}

TEST(TakeRowsTest, StringsInRunsOfFollowingRows) {
  // Rows that follow one another are copied as one run; runs of a sliced source start at its
  // offset; a NULL in the source breaks the run-copying (its bytes are not the output's).
  std::vector<std::optional<std::string>> texts;
  for (int i = 0; i < 40; ++i) texts.push_back(std::string(static_cast<size_t>(i % 7), static_cast<char>('a' + i % 26)));
  VectorPtr whole = Build(StringType(), texts);
  VectorPtr sliced = whole->Slice(3, 30);
  const std::vector<int64_t> rows = {0, 1, 2, 3, 7, 8, 9, 29, 28, 5, 6, 6, 7, 20, 21, 22, 23, 24};
  std::vector<std::string> expected;
  for (int64_t row : rows) expected.push_back(*texts[static_cast<size_t>(row + 3)]);
  EXPECT_EQ(Texts(*TakeRows(*sliced, rows)), expected);
  texts[10] = std::nullopt;  // row 7 of the slice, taken twice
  VectorPtr with_null = Build(StringType(), texts)->Slice(3, 30);
  std::vector<std::string> expected_null;
  for (int64_t row : rows) {
    expected_null.push_back(texts[static_cast<size_t>(row + 3)] ? *texts[static_cast<size_t>(row + 3)] : "NULL");
  }
  EXPECT_EQ(Texts(*TakeRows(*with_null, rows)), expected_null);
  EXPECT_EQ(TakeRows(*with_null, rows)->null_count(), 2);
}

TEST(TakeRowsTest, TakeBatchRowsKeepsTheSchema) {
  auto schema = std::make_shared<Schema>(std::vector<Field>{{"s", StringType(), true, {}}, {"n", LongType(), true, {}}});
  Batch batch(schema, {Build(StringType(), {"x", "y"}), Build(LongType(), {"1", "2"})}, 2);
  Batch taken = TakeBatchRows(batch, {1, 1, 0});
  EXPECT_EQ(taken.schema(), schema);
  EXPECT_EQ(taken.num_rows(), 3);
  EXPECT_EQ(Texts(*taken.column(0)), (std::vector<std::string>{"y", "y", "x"}));
}

}  // namespace
}  // namespace silt
