#pragma once

#include <string>
#include <string_view>

#include "silt/types/data_type.h"

namespace silt {

/// Parses Delta's schema JSON (the `schemaString` of a metaData action):
///   {"type":"struct","fields":[{"name":..,"type":..,"nullable":..,"metadata":{..}}, ...]}
/// with primitive type names ("long", "decimal(10,2)", "timestamp_ntz", "void", ...) and nested
/// {"type":"array","elementType":..,"containsNull":..} and
/// {"type":"map","keyType":..,"valueType":..,"valueContainsNull":..}. Unknown keys are ignored.
/// Throws INVALID_SCHEMA_JSON on malformed input and UNSUPPORTED_DATA_TYPE on unknown type names.
Schema ParseDeltaSchema(std::string_view json);

/// Parses one Delta type: a JSON string ("\"long\"") or a nested type object.
DataTypePtr ParseDeltaType(std::string_view json);

/// Serialises `schema` as Delta's compact schema JSON (no spaces, Spark's key order:
/// name, type, nullable, metadata), which Spark and delta-rs read back.
std::string ToDeltaSchemaJson(const Schema& schema);
std::string ToDeltaTypeJson(const DataType& type);

}  // namespace silt
