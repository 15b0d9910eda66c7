#pragma once

#include <string>
#include <string_view>

#include "silt/types/data_type.h"

namespace silt {

/// Parses Delta's schema JSON (the `schemaString` of a metaData action):
///   {"type":"struct","fields":[{"name":..,"type":..,"nullable":..,"metadata":{..}}, ...]}
/// with primitive type names ("long", "decimal(10,2)", "timestamp_ntz", "void", ...) and nested
/// {"type":"array","elementType":..,"containsNull":..} and
/// {"type":"map","keyType":..,"valueType":..,"valueContainsNull":..}. Keys may come in any
/// order; unknown keys are ignored; whitespace is allowed, also inside "decimal( 10 , 2 )"; a
/// bare "decimal" is decimal(10,0); an absent "nullable"/"containsNull"/"valueContainsNull"
/// means true. Field metadata values are kept as their raw JSON text, minified, in input order.
/// Throws INVALID_SCHEMA_JSON on malformed input (bad JSON, trailing content, missing name or
/// type, wrong JSON kinds, a top level that is not a struct), UNSUPPORTED_DATA_TYPE on unknown
/// type names (e.g. "variant", "interval") and INVALID_DECIMAL_TYPE on decimal(40,2).
Schema ParseDeltaSchema(std::string_view json);

/// Parses one Delta type: a JSON string ("\"long\"") or a nested type object. Same errors.
DataTypePtr ParseDeltaType(std::string_view json);

/// Serialises `schema` as Delta's compact schema JSON (no spaces, Spark's key order:
/// name, type, nullable, metadata), which Spark and delta-rs read back. Metadata values are
/// emitted verbatim, so they must be valid JSON. The output of Spark-written schemas is
/// byte-identical to the input. Throws DATATYPE_NESTING_TOO_DEEP when a column nests deeper
/// than kMaxTypeNestingDepth (type_nesting.h) and DELTA_UNSUPPORTED_DATA_TYPES when a column
/// (at any depth) has an interval type, which Delta cannot store.
std::string ToDeltaSchemaJson(const Schema& schema);
/// One type: a quoted primitive name ("\"long\"") or a nested type object. Throws
/// DATATYPE_NESTING_TOO_DEEP as above.
std::string ToDeltaTypeJson(const DataType& type);

}  // namespace silt
