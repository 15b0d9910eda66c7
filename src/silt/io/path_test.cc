#include "silt/io/path.h"

#include <gtest/gtest.h>

namespace silt::io {
namespace {

TEST(PathTest, JoinPathPutsExactlyOneSeparatorBetweenParts) {
  EXPECT_EQ(JoinPath("a", "b"), "a/b");
  EXPECT_EQ(JoinPath("a/", "b"), "a/b");
  EXPECT_EQ(JoinPath("a//", "//b"), "a/b");
  EXPECT_EQ(JoinPath("/", "b"), "/b");
  EXPECT_EQ(JoinPath("/t/_delta_log", "00000000000000000000.json"),
            "/t/_delta_log/00000000000000000000.json");
  EXPECT_EQ(JoinPath("a", "b/c"), "a/b/c");
}

TEST(PathTest, JoinPathWithAnEmptyPartReturnsTheOther) {
  EXPECT_EQ(JoinPath("", "b"), "b");
  EXPECT_EQ(JoinPath("", "/b"), "/b");
  EXPECT_EQ(JoinPath("a", ""), "a");
  EXPECT_EQ(JoinPath("", ""), "");
}

TEST(PathTest, ParentPathDropsTheLastComponent) {
  EXPECT_EQ(ParentPath("a/b/c"), "a/b");
  EXPECT_EQ(ParentPath("c"), "");
  EXPECT_EQ(ParentPath("/c"), "/");
  EXPECT_EQ(ParentPath("/"), "");
  EXPECT_EQ(ParentPath(""), "");
  EXPECT_EQ(ParentPath("a/b/"), "a");
  EXPECT_EQ(ParentPath("a//b"), "a");
  EXPECT_EQ(ParentPath("//c"), "/");
}

TEST(PathTest, BaseNameIsTheLastComponent) {
  EXPECT_EQ(BaseName("a/b/c"), "c");
  EXPECT_EQ(BaseName("c"), "c");
  EXPECT_EQ(BaseName("/c"), "c");
  EXPECT_EQ(BaseName("a/b/"), "b");
  EXPECT_EQ(BaseName("/"), "");
  EXPECT_EQ(BaseName(""), "");
}

TEST(PathTest, ParentAndBaseNameRejoinToTheNormalizedPath) {
  for (std::string_view path : {"a/b/c", "/x/y", "/x", "name", "a/b/c.json"}) {
    EXPECT_EQ(JoinPath(ParentPath(path), BaseName(path)), path);
  }
}

TEST(PathTest, NormalizePathCollapsesSeparatorsAndDots) {
  EXPECT_EQ(NormalizePath("/a//./b/"), "/a/b");
  EXPECT_EQ(NormalizePath("a/b"), "a/b");
  EXPECT_EQ(NormalizePath("./a"), "a");
  EXPECT_EQ(NormalizePath("./"), "");
  EXPECT_EQ(NormalizePath("/"), "/");
  EXPECT_EQ(NormalizePath("//"), "/");
  EXPECT_EQ(NormalizePath(""), "");
  EXPECT_EQ(NormalizePath("a/../b"), "a/../b");  // Lexical only: ".." is not resolved.
}

TEST(PathTest, TrimTrailingSeparatorsKeepsTheRoot) {
  EXPECT_EQ(TrimTrailingSeparators("a/b//"), "a/b");
  EXPECT_EQ(TrimTrailingSeparators("/"), "/");
  EXPECT_EQ(TrimTrailingSeparators("//"), "/");
  EXPECT_EQ(TrimTrailingSeparators("a"), "a");
  EXPECT_EQ(TrimTrailingSeparators(""), "");
}

}  // namespace
}  // namespace silt::io
