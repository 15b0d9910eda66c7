#pragma once

#include <string>

namespace silt::log {

/// One conjunct of a scan's pruning predicate: `column op value` on a top-level column.
struct ScanPredicate {
  enum class Op { kEqual, kLess, kLessOrEqual, kGreater, kGreaterOrEqual, kIsNull, kIsNotNull };
  std::string column;  ///< Logical column name (matched case-insensitively, as Spark does).
  Op op = Op::kEqual;
  std::string value;   ///< The literal in partition-value text form; unused for the null tests.
};

}  // namespace silt::log
