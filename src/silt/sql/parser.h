#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "silt/sql/ast.h"

namespace silt::sql {

/// The deepest nesting the parser accepts, in units: each parenthesised expression, subquery,
/// nested type or unary operator counts 1 or 2, and each operator of a chain (`a + b + c`,
/// `x AND y`, `a[1][2]`, joins, UNIONs) counts 1, since every one deepens the tree. Deeper input
/// fails with PARSE_NESTING_TOO_DEEP instead of exhausting the stack.
inline constexpr int kMaxParseDepth = 1000;

/// The most grouping sets one GROUP BY may produce (after expanding ROLLUP and CUBE and crossing
/// the elements); more fail with GROUPING_SIZE_LIMIT_EXCEEDED.
inline constexpr size_t kMaxGroupingSets = 4096;

/// The grouping sets a ROLLUP, CUBE or GROUPING SETS element stands for, in Spark's order:
/// ROLLUP(a, b) is (a, b), (a), (); CUBE(a, b) is (a, b), (a), (b), (). Throws
/// GROUPING_SIZE_LIMIT_EXCEEDED beyond kMaxGroupingSets.
std::vector<std::vector<ExpressionPtr>> ExpandGroupingAnalytics(const GroupingAnalytics& analytics);

/// Parses a script of `;`-separated statements (empty statements between `;` are skipped; a
/// script with none throws PARSE_EMPTY_STATEMENT). Each statement keeps its source text.
///
/// Errors (silt::Error, context `line <l>, pos <p>` with Spark's 0-based pos):
/// PARSE_SYNTAX_ERROR (`Syntax error at or near '<token>'`, with `: extra input '<x>'` or
/// `: missing '<y>'` hints where Spark gives them), PARSE_EMPTY_STATEMENT,
/// UNCLOSED_BRACKETED_COMMENT, INVALID_TYPED_LITERAL, INVALID_NUMERIC_LITERAL_RANGE,
/// UNSUPPORTED_DATATYPE, DELTA_MERGE_MISSING_WHEN, PARSE_NESTING_TOO_DEEP, and
/// DATATYPE_NESTING_TOO_DEEP for a type deeper than kMaxTypeNestingDepth.
/// Thread-safe: keeps no state between calls.
std::vector<Statement> ParseStatements(std::string_view sql);

/// Parses exactly one statement (an optional trailing `;` is allowed). Errors as above.
Statement ParseStatement(std::string_view sql);

/// Parses one expression, e.g. a delta-spark condition string `"t.id = s.id"`. Errors as above.
ExpressionPtr ParseExpression(std::string_view sql);

/// Parses a Spark data type name: `int`, `decimal(10,2)`, `array<struct<a: int>>`. Throws
/// UNSUPPORTED_DATATYPE for an unknown name, PARSE_SYNTAX_ERROR for malformed input.
DataTypePtr ParseDataType(std::string_view sql);

}  // namespace silt::sql
