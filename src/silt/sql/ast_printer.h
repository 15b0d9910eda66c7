#pragma once

#include <string>

#include "silt/sql/ast.h"

namespace silt::sql {

/// Canonical text of the AST: SQL with keywords upper-cased, every operator application in
/// parentheses (`((a + b) * c)`), identifiers back-quoted only when needed, literals in a form
/// that re-parses to the same node (`1L`, `1.5BD`, `DATE '2024-01-01'`). Tests assert parse
/// trees through it, and EXPLAIN shows it. Printing then re-parsing gives the same text.
std::string ToString(const Expression& expression);
std::string ToString(const Query& query);
std::string ToString(const TableReference& table);
std::string ToString(const Statement& statement);

/// Quotes `name` with back-quotes (doubling inner ones) unless it is a plain identifier.
std::string QuoteIdentifier(const std::string& name);

}  // namespace silt::sql
