#pragma once

// Spark SQL text built from the arguments of API calls (private to src/silt/api): names and
// values are quoted so that the generated statement means exactly what the caller passed.

#include <string>
#include <string_view>

#include "silt/sql/ast.h"

namespace silt::api {

/// A Spark SQL string literal: backslashes and single quotes escaped.
std::string QuoteString(const std::string& text);
/// Back-quotes one identifier part; a back quote inside is doubled, as Spark's lexer reads it.
std::string QuoteIdentifier(const std::string& part);
/// The parts back-quoted and joined by '.'.
std::string QuoteParts(const sql::QualifiedName& parts);
/// Splits a multi-part identifier written as Spark SQL (`db.t`, "`a b`.c") and quotes every part.
/// Throws INVALID_PARAMETER_VALUE naming `parameter` of `function` when `name` is not one.
std::string QuoteMultipartName(const std::string& name, std::string_view parameter,
                               std::string_view function);
/// Throws INVALID_PARAMETER_VALUE: `parameter` of API call `function` is invalid: `message`.
[[noreturn]] void ThrowInvalidParameter(std::string_view parameter, std::string_view function,
                                        std::string message);

}  // namespace silt::api
