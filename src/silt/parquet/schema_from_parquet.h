#pragma once

// Maps a Parquet schema (the flattened SchemaElement list of the footer) to silt types the way
// Spark reads it, following LogicalTypes.md including its backward-compatibility rules for
// LIST and MAP. See docs/format/parquet-reading.md for the full table.

#include <cstdint>
#include <string>
#include <vector>

#include "silt/parquet/metadata.h"
#include "silt/types/data_type.h"

namespace silt::parquet {

/// How a leaf's physical values become silt values.
enum class ValueConversion {
  kNone,             ///< Same bytes: boolean, int32 (integer, date), int64 (long), float, double.
  kInt32ToByte,      ///< INT(8) / INT_8
  kInt32ToShort,     ///< INT(16), INT(8, unsigned)
  kUint32ToLong,     ///< INT(32, unsigned): zero-extended
  kUint64ToDecimal,  ///< INT(64, unsigned) -> decimal(20,0)
  kInt32ToDecimal,
  kInt64ToDecimal,
  kBytesToDecimal,    ///< FIXED_LEN_BYTE_ARRAY / BYTE_ARRAY big-endian two's complement
  kInt96ToTimestamp,  ///< Impala/Spark legacy nanosecond timestamps -> µs
  kMillisToMicros,    ///< INT64 TIMESTAMP(MILLIS)
  kNanosToMicros,     ///< INT64 TIMESTAMP(NANOS) / TIME(NANOS), floor division
  kTimeMillisToLong,  ///< INT32 TIME(MILLIS) -> long µs
  kByteArray,         ///< BYTE_ARRAY -> string / binary, as is
  kFixedToBinary,     ///< FIXED_LEN_BYTE_ARRAY -> binary (UUID included)
};

/// One primitive column of the file.
struct LeafColumn {
  int column_index = 0;  ///< Index into RowGroup::columns.
  std::vector<std::string> path;
  PhysicalType physical_type = PhysicalType::kInt32;
  int type_length = 0;  ///< FIXED_LEN_BYTE_ARRAY width
  int16_t max_definition_level = 0;
  int16_t max_repetition_level = 0;
  DataTypePtr type;  ///< silt type of the values
  ValueConversion conversion = ValueConversion::kNone;
  /// True when the column's statistics order is signed (legacy min/max usable).
  bool signed_order = true;
  /// Unsigned integer annotation (statistics compare unsigned).
  bool is_unsigned = false;
  /// TIMESTAMP/TIME unit of INT64 values (for statistics), kMicros otherwise.
  TimeUnit unit = TimeUnit::kMicros;
};

/// A node of the silt-shaped tree over the leaves, with the level thresholds that assemble it
/// (Dremel record shredding, as in Arrow's LevelInfo):
///  - a level entry i is a slot (one value of this node) when
///    rep[i] <= repetition_level and def[i] >= repeated_ancestor_definition_level;
///  - the slot's value is non-null when def[i] >= definition_level;
///  - for lists and maps, the slot holds one more element for every entry with
///    rep[i] <= repetition_level + 1 and def[i] >= element_definition_level.
struct SchemaNode {
  enum class Kind { kLeaf, kStruct, kList, kMap };
  Kind kind = Kind::kLeaf;
  Field field;
  int16_t definition_level = 0;
  int16_t repetition_level = 0;
  int16_t repeated_ancestor_definition_level = 0;
  int16_t element_definition_level = 0;  ///< kList, kMap
  int leaf_index = -1;                   ///< kLeaf: index into ParquetSchema::leaves
  int first_leaf = -1;                   ///< The first leaf below (or this leaf)
  int leaf_count = 0;                    ///< Leaves below (1 for a leaf)
  std::vector<SchemaNode> children;      ///< struct fields; list: element; map: key, value
};

/// The whole mapping of one file.
struct ParquetSchema {
  Schema schema;                    ///< Top-level silt fields, one per `columns` entry.
  std::vector<SchemaNode> columns;  ///< Top-level nodes.
  std::vector<LeafColumn> leaves;   ///< In file order (RowGroup::columns order).
};

/// Builds the mapping. Throws PARQUET_CORRUPT_FILE (path "<schema>") for a malformed schema and
/// PARQUET_UNSUPPORTED_FEATURE for types silt cannot represent (e.g. FLOAT16, INTERVAL,
/// decimals above precision 38).
ParquetSchema SchemaFromParquet(const std::vector<SchemaElement>& elements);

}  // namespace silt::parquet
