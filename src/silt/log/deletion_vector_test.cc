#include "silt/log/deletion_vector.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "silt/base/testing_error_class.h"
#include "silt/error.h"

namespace silt::log {
namespace {

using ::testing::ElementsAre;

TEST(DeletionVectorTest, Z85RoundTripAndSpecVector) {
  // The ZeroMQ RFC 32 test vector.
  std::string bytes("\x86\x4F\xD2\x6F\xB5\x59\xF7\x5B", 8);
  EXPECT_EQ(Z85Encode(bytes), "HelloWorld");
  EXPECT_EQ(Z85Decode("HelloWorld"), bytes);
  std::string odd("\x01\x02\x03\x04\x05", 5);
  std::string encoded = Z85Encode(odd);
  EXPECT_EQ(encoded.size(), 10u);
  EXPECT_EQ(Z85Decode(encoded).substr(0, 5), odd);
}

TEST(DeletionVectorTest, Z85RustTailPadding) {
  // Two bytes 0x03 0x00 as the Rust z85 crate writes them: the value right-aligned, the two
  // missing leading digits as '#'.
  EXPECT_EQ(Z85Decode("##093"), std::string("\x03\x00", 2));
  EXPECT_EQ(ErrorClassOf([] { Z85Decode("##093HelloWorld"); }), "DELTA_INVALID_DELETION_VECTOR");
  EXPECT_EQ(ErrorClassOf([] { Z85Decode("Hell"); }), "DELTA_INVALID_DELETION_VECTOR");
  EXPECT_EQ(ErrorClassOf([] { Z85Decode("Hell~"); }), "DELTA_INVALID_DELETION_VECTOR");
}

TEST(DeletionVectorTest, RandomPrefixPathResolution) {
  DeletionVectorDescriptor descriptor{'u', "ab^-aqEH.-t@S}K{vb[*k^", 1, 10, 1, std::nullopt};
  EXPECT_EQ(DeletionVectorPath(descriptor, "t"),
            "t/ab/deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin");
  descriptor.path_or_inline_dv = "^-aqEH.-t@S}K{vb[*k^";
  EXPECT_EQ(DeletionVectorPath(descriptor, "t/"),
            "t/deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin");
  DeletionVectorDescriptor absolute{'p', "file:/data/t/my%20dv.bin", 1, 10, 1, std::nullopt};
  EXPECT_EQ(DeletionVectorPath(absolute, "t"), "/data/t/my dv.bin");
  DeletionVectorDescriptor inline_dv{'i', "xxxxx", std::nullopt, 4, 1, std::nullopt};
  EXPECT_EQ(ErrorClassOf([&] { DeletionVectorPath(inline_dv, "t"); }),
            "DELTA_INVALID_DELETION_VECTOR");
}

TEST(DeletionVectorTest, InlineBitmapsFromBothZ85Variants) {
  auto fs = io::MakeMemoryFileSystem();
  // Spark-style padding: 40 bytes, rows {0, 1, 2, 3} in the last groups.
  DeletionVectorDescriptor four{'i', "^Bg9^0rr910000000000iXQKl0rr91000935c8Xg000311onP9",
                                std::nullopt, 40, 4, std::nullopt};
  auto rows = LoadDeletionVector(*fs, "t", four);
  EXPECT_EQ(rows.Cardinality(), 4u);
  // Rust tail padding: 34 bytes, one row.
  DeletionVectorDescriptor one{'i', "^Bg9^0rr910000000000iXQKl0rr91000005c8Xg##093", std::nullopt,
                               34, 1, std::nullopt};
  auto single = LoadDeletionVector(*fs, "t", one);
  EXPECT_THAT(single.ToVector(), ElementsAre(3));
  one.cardinality = 2;
  EXPECT_EQ(ErrorClassOf([&] { LoadDeletionVector(*fs, "t", one); }),
            "DELTA_DELETION_VECTOR_CARDINALITY_MISMATCH");
}

TEST(DeletionVectorTest, SerializeRoundTripAcrossBuckets) {
  std::vector<uint64_t> indexes = {0, 5, 7, 70000, (1ull << 32) + 3, (3ull << 32) + 9};
  auto rows = DeletedRows::FromIndexes(indexes);
  std::string bytes = rows.Serialize();
  EXPECT_EQ(bytes.substr(0, 4), std::string("\xD1\xD3\x39\x64", 4));
  auto back = DeletedRows::Deserialize(bytes, "test");
  EXPECT_EQ(back.ToVector(), indexes);
  EXPECT_TRUE(back.Contains((3ull << 32) + 9));
  EXPECT_FALSE(back.Contains((2ull << 32) + 9));
  std::vector<bool> keep;
  back.FillKeepMask(4, 4, keep);
  EXPECT_THAT(keep, ElementsAre(true, false, true, false));
  EXPECT_EQ(ErrorClassOf([&] { DeletedRows::Deserialize(bytes + "x", "t"); }),
            "DELTA_INVALID_DELETION_VECTOR");
  EXPECT_EQ(ErrorClassOf([&] { DeletedRows::Deserialize(bytes.substr(0, bytes.size() - 1), "t"); }),
            "DELTA_INVALID_DELETION_VECTOR");
  std::string bad_magic = bytes;
  bad_magic[0] = 0;
  EXPECT_EQ(ErrorClassOf([&] { DeletedRows::Deserialize(bad_magic, "t"); }),
            "DELTA_INVALID_DELETION_VECTOR");
}

TEST(DeletionVectorTest, FileRecordsVerifySizeChecksumAndCardinality) {
  auto fs = io::MakeMemoryFileSystem();
  auto rows = DeletedRows::FromIndexes({1, 4, 9});
  std::string file = MakeDeletionVectorFile(rows);
  std::string path = "t/ab/deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin";
  fs->WriteFile(path, file);
  int32_t size = static_cast<int32_t>(rows.Serialize().size());
  DeletionVectorDescriptor descriptor{'u', "ab^-aqEH.-t@S}K{vb[*k^", 1, size, 3, std::nullopt};
  EXPECT_THAT(LoadDeletionVector(*fs, "t", descriptor).ToVector(), ElementsAre(1, 4, 9));

  DeletionVectorDescriptor wrong_size = descriptor;
  wrong_size.size_in_bytes = size - 1;
  EXPECT_EQ(ErrorClassOf([&] { LoadDeletionVector(*fs, "t", wrong_size); }),
            "DELTA_DELETION_VECTOR_SIZE_MISMATCH");

  std::string corrupt = file;
  corrupt[20] ^= 0x40;
  fs->WriteFile(path, corrupt);
  EXPECT_EQ(ErrorClassOf([&] { LoadDeletionVector(*fs, "t", descriptor); }),
            "DELTA_DELETION_VECTOR_CHECKSUM_MISMATCH");

  fs->WriteFile(path, file.substr(0, file.size() - 2));
  EXPECT_EQ(ErrorClassOf([&] { LoadDeletionVector(*fs, "t", descriptor); }),
            "DELTA_DELETION_VECTOR_SIZE_MISMATCH");

  // Two records in one file; the second starts after the first.
  auto second = DeletedRows::FromIndexes({2});
  std::string second_file = MakeDeletionVectorFile(second);
  fs->WriteFile(path, file + second_file.substr(1));
  DeletionVectorDescriptor second_descriptor{
      'u', "ab^-aqEH.-t@S}K{vb[*k^", static_cast<int32_t>(file.size()),
      static_cast<int32_t>(second.Serialize().size()), 1, std::nullopt};
  EXPECT_THAT(LoadDeletionVector(*fs, "t", second_descriptor).ToVector(), ElementsAre(2));

  fs->Delete(path);
  EXPECT_EQ(ErrorClassOf([&] { LoadDeletionVector(*fs, "t", descriptor); }), "PATH_NOT_FOUND");
}

}  // namespace
}  // namespace silt::log
