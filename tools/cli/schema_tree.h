#pragma once

#include <string>

#include "silt/types/data_type.h"

namespace silt::cli {

/// Renders `schema` as Spark's printSchema() does:
///   root
///    |-- id: long (nullable = true)
///    |-- tags: array (nullable = true)
///    |    |-- element: string (containsNull = true)
std::string FormatSchemaTree(const Schema& schema);

}  // namespace silt::cli
