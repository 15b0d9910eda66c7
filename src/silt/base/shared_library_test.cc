#include "silt/base/shared_library.h"

#include <gtest/gtest.h>

namespace silt {
namespace {

TEST(SharedLibraryTest, BindsTheFunctionsOfALibrary) {
  SharedLibrary library("libc.so.6");
  size_t (*length)(const char*) = nullptr;
  library.Bind(length, "strlen");
  ASSERT_TRUE(library.ok()) << library.error();
  ASSERT_NE(length, nullptr);
  EXPECT_EQ(length("silt"), 4u);
}

TEST(SharedLibraryTest, AMissingLibrarySaysWhich) {
  SharedLibrary library("libsilt-no-such-library.so.1");
  int (*function)() = nullptr;
  library.Bind(function, "anything");
  EXPECT_FALSE(library.ok());
  EXPECT_EQ(function, nullptr);
  EXPECT_NE(library.error().find("cannot load libsilt-no-such-library.so.1"), std::string::npos)
      << library.error();
}

TEST(SharedLibraryTest, AMissingFunctionMakesTheLibraryNotOk) {
  SharedLibrary library("libc.so.6");
  int (*function)() = nullptr;
  library.Bind(function, "silt_no_such_function");
  EXPECT_FALSE(library.ok());
  EXPECT_EQ(function, nullptr);
  EXPECT_EQ(library.error(), "libc.so.6 has no function silt_no_such_function");
}

}  // namespace
}  // namespace silt
