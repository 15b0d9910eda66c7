#pragma once

// Maps a silt schema to the Parquet schema tree (SchemaElements, depth-first) and describes each
// leaf column: its physical type, levels, and how to reach its values from the top-level vector.
// Type choices follow Spark's ParquetWriteSupport; see docs/format/parquet-writing.md.

#include <cstdint>
#include <string>
#include <vector>

#include "silt/parquet/metadata.h"
#include "silt/parquet/statistics.h"
#include "silt/types/data_type.h"

namespace silt::parquet {

/// One step from a vector towards a leaf. The value at a step is NULL-able when `nullable`
/// (an OPTIONAL node: +1 definition level); list and map steps add the repeated node below them.
struct LevelStep {
  enum class Kind {
    kLeaf,    ///< the vector holds the leaf values
    kStruct,  ///< descend into child `child`, same row
    kList,    ///< descend into the list's elements (child 0)
    kMap,     ///< descend into the entries' key (`child` 0) or value (`child` 1)
  };
  Kind kind = Kind::kLeaf;
  bool nullable = true;
  int child = 0;
  /// kList/kMap: the repetition level of the repeated node below this step.
  int16_t repetition_level = 0;
};

/// A leaf (primitive) column of the Parquet schema.
struct WriterLeafColumn {
  std::vector<std::string> path;  ///< path_in_schema
  size_t top_level_field = 0;     ///< which top-level field (and batch column) holds it
  std::vector<LevelStep> steps;   ///< from the top-level vector down to the leaf vector
  int16_t max_definition_level = 0;
  int16_t max_repetition_level = 0;
  PhysicalType physical_type = PhysicalType::kInt32;
  int32_t type_length = 0;  ///< FIXED_LEN_BYTE_ARRAY only
  DataTypePtr type;         ///< the silt type of the leaf values
  StatisticsKind statistics_kind = StatisticsKind::kInt32;
  bool utf8 = false;  ///< strings: truncate statistics on character boundaries
};

struct WriterSchema {
  std::vector<SchemaElement> elements;   ///< root first, depth-first
  std::vector<WriterLeafColumn> leaves;  ///< in schema order (= column chunk order)
};

/// Builds the Parquet schema of `schema`: root "spark_schema"; nullable fields OPTIONAL, others
/// REQUIRED; three-level LIST and MAP groups; field ids from field metadata "parquet.field.id"
/// when `write_field_ids`. Throws UNSUPPORTED_DATA_TYPE for types Parquet cannot hold and
/// PARQUET_WRITE_ERROR for an invalid field id.
WriterSchema SchemaToParquet(const Schema& schema, bool write_field_ids);

}  // namespace silt::parquet
