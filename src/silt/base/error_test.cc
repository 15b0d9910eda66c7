#include "silt/base/check.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace silt {
namespace {

TEST(ErrorTest, RendersTemplateWithNamedParameters) {
  Error e = MakeError(ErrorClass::DELTA_CONCURRENT_APPEND,
                      {{"operation", "WRITE"}, {"tableName", "t"}, {"version", "7"}});
  EXPECT_EQ(e.error_class(), "DELTA_CONCURRENT_APPEND");
  EXPECT_EQ(e.sqlstate(), "2D521");
  EXPECT_EQ(e.category(), ErrorCategory::kConcurrentModification);
  EXPECT_EQ(e.message(),
            "Transaction conflict detected. a concurrent WRITE added data to table t committed at "
            "version 7.");
  EXPECT_EQ(std::string(e.what()), "[DELTA_CONCURRENT_APPEND] " + e.message());
}

TEST(ErrorTest, LeavesUnknownPlaceholdersAsWritten) {
  Error e = MakeError(ErrorClass::IO_ERROR, {{"path", "/x"}});
  EXPECT_EQ(e.message(), "I/O error on /x: <message>");
}

TEST(ErrorTest, ContextIsAppendedToWhat) {
  Error e = MakeError(ErrorClass::PATH_NOT_FOUND, {{"path", "/a"}}).WithContext("table /t");
  EXPECT_EQ(std::string(e.what()), "[PATH_NOT_FOUND] Path does not exist: /a. (table /t)");
  Error more = e.WithContext("version 3");
  EXPECT_EQ(more.context(), "table /t; version 3");
}

// Spark prints UNRESOLVED_COLUMN with its sub-class: WITH_SUGGESTION when it proposes
// columns, WITHOUT_SUGGESTION (whose message ends before the proposals) when it has none. The
// class itself stays the parent's, and context keeps the printed sub-class.
TEST(ErrorTest, UnresolvedColumnPrintsSparksSubClass) {
  Error with = MakeError(ErrorClass::UNRESOLVED_COLUMN, {{"objectName", "`x`"}, {"proposal", "`a`, `b`"}});
  EXPECT_EQ(with.error_class(), "UNRESOLVED_COLUMN");
  EXPECT_EQ(std::string(with.what()),
            "[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column, variable, or function parameter with name `x` cannot be "
            "resolved. Did you mean one of the following? [`a`, `b`].");
  Error without = MakeError(ErrorClass::UNRESOLVED_COLUMN, {{"objectName", "`x`"}, {"proposal", ""}});
  EXPECT_EQ(without.message(), "A column, variable, or function parameter with name `x` cannot be resolved.");
  Error positioned = without.WithContext("line 1, pos 7");
  EXPECT_EQ(std::string(positioned.what()),
            "[UNRESOLVED_COLUMN.WITHOUT_SUGGESTION] A column, variable, or function parameter with name `x` cannot "
            "be resolved. (line 1, pos 7)");
  EXPECT_EQ(positioned.error_class(), "UNRESOLVED_COLUMN");
}

TEST(ErrorTest, RegistryNamesAreUniqueAndWellFormed) {
  std::set<std::string_view> names;
  for (ErrorClassId id = 0; id < static_cast<ErrorClassId>(ErrorClass::kCount); ++id) {
    const ErrorClassInfo& info = GetErrorClassInfo(id);
    EXPECT_TRUE(names.insert(info.name).second) << info.name;
    EXPECT_EQ(info.sqlstate.size(), 5u) << info.name;
    for (char c : info.name) EXPECT_TRUE((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_');
    EXPECT_EQ(FindErrorClass(info.name), static_cast<ErrorClass>(id));
  }
  EXPECT_EQ(FindErrorClass("NO_SUCH_CLASS"), ErrorClass::kCount);
}

TEST(ErrorTest, CheckMacrosThrowTheirClasses) {
  try {
    SILT_CHECK(1 + 1 == 3, "arithmetic");
    FAIL() << "no throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.error_class(), "INTERNAL_ERROR");
    EXPECT_EQ(e.category(), ErrorCategory::kInternal);
    EXPECT_NE(e.message().find("arithmetic"), std::string::npos);
  }
  try {
    SILT_USER_CHECK(false, INVALID_ARGUMENT, {{"message", "bad"}});
    FAIL() << "no throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.error_class(), "INVALID_ARGUMENT");
    EXPECT_EQ(e.message(), "Invalid argument: bad");
  }
}

TEST(ErrorTest, CategoryNames) {
  EXPECT_EQ(ErrorCategoryName(ErrorCategory::kUser), "user");
  EXPECT_EQ(ErrorCategoryName(ErrorCategory::kConcurrentModification), "concurrent_modification");
  EXPECT_EQ(ErrorCategoryName(ErrorCategory::kCorruption), "corruption");
}

}  // namespace
}  // namespace silt
