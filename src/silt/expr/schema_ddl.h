#pragma once

#include <string>
#include <string_view>

#include "silt/types/data_type.h"

/// The schema strings of from_json, from_csv and schema_of_json: Spark's DDL type text, parsed
/// and printed without the SQL layer (expressions are bound below it).
namespace silt::expr {

/// Parses a schema as Spark's DataType.fromDDL reads it: a type (`INT`, `ARRAY<STRING>`,
/// `MAP<STRING, INT>`, `STRUCT<a: INT, b STRING>`, `DECIMAL(10,2)`) or a column list
/// (`a INT, b ARRAY<STRING> NOT NULL COMMENT 'x'`), which is a STRUCT; names are identifiers or
/// back-quoted (`` `a b` ``), keywords are case-insensitive. Text starting with `{` is read as
/// Spark's JSON schema format instead. Throws INVALID_SCHEMA (quoting `text`) when the text is
/// neither, and DATATYPE_NESTING_TOO_DEEP past kMaxTypeNestingDepth.
DataTypePtr ParseSchemaDdl(std::string_view text);

/// Spark's DataType.sql: `BIGINT`, `DECIMAL(10,2)`, `ARRAY<STRING>`, `MAP<STRING, INT>`,
/// `STRUCT<a: BIGINT, `b c`: STRING>` (names back-quoted unless they are plain identifiers).
std::string TypeSqlText(const DataType& type);

}  // namespace silt::expr
