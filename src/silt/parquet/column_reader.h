#pragma once

// Reads column chunks (all their pages) into levels and dense values, and assembles silt
// vectors from them using the level thresholds of schema_from_parquet.h.

#include <cstdint>
#include <memory>
#include <vector>

#include "silt/io/file_system.h"
#include "silt/parquet/decoding.h"
#include "silt/parquet/metadata.h"
#include "silt/parquet/schema_from_parquet.h"
#include "silt/vector/vector.h"

namespace silt::parquet {

/// The decoded content of one column chunk. `definition_levels` is empty when the maximum
/// definition level is 0 (every entry is defined), `repetition_levels` when the maximum
/// repetition level is 0. `values` holds only the defined (non-null) values, converted to the
/// leaf's silt layout by ConvertLeafValues.
struct ColumnChunkData {
  int64_t num_levels = 0;
  /// Entries whose definition level is the maximum, i.e. `values.count()`.
  int64_t num_defined = 0;
  std::vector<int16_t> definition_levels;
  std::vector<int16_t> repetition_levels;
  std::unique_ptr<PhysicalValues> values;
  /// Set only by DictionaryMode::kKeepIndices when every data page of the chunk was
  /// dictionary-encoded: the dictionary, and for each defined value its index into it (each
  /// checked to be below `dictionary->count()`). `values` is then empty.
  std::unique_ptr<PhysicalValues> dictionary;
  std::vector<uint32_t> dictionary_indices;
};

/// How ReadColumnChunk returns the values of dictionary-encoded pages.
enum class DictionaryMode {
  /// Gathers the dictionary entries into `values` (what AssembleColumn needs).
  kGather,
  /// Keeps the dictionary and the indices (`ColumnChunkData::dictionary`), so a caller can
  /// evaluate a predicate once per entry and gather only the rows it keeps. A chunk whose pages
  /// are not all dictionary-encoded (a writer fell back to PLAIN) is returned as by kGather.
  kKeepIndices,
};

/// Hard limit on the level entries of one column chunk, so that run-length encoded counts in a
/// hostile file cannot request unbounded memory. Larger chunks raise PARQUET_UNSUPPORTED_FEATURE.
inline constexpr int64_t kMaxLevelsPerColumnChunk = int64_t{1} << 28;

/// Reads every page of `chunk` with a single ReadAt. `file_size` bounds every offset. Throws
/// PARQUET_CORRUPT_FILE / PARQUET_UNSUPPORTED_FEATURE (path "<page>": the caller adds context).
/// Thread-safe for distinct chunks (the file's ReadAt is thread-safe).
ColumnChunkData ReadColumnChunk(io::RandomAccessFile& file, uint64_t file_size,
                                const ColumnChunk& chunk, const LeafColumn& leaf,
                                DictionaryMode mode = DictionaryMode::kGather);

/// Assembles the vector of `node` from the chunks of its leaves (`chunks[leaf_index]`), which
/// it may consume. The result has `expected_length` rows when `expected_length` >= 0; a mismatch
/// is PARQUET_CORRUPT_FILE.
VectorPtr AssembleColumn(const SchemaNode& node, const std::vector<LeafColumn>& leaves,
                         std::vector<ColumnChunkData>& chunks, int64_t expected_length);

/// Assembles only rows `rows` (positions in the chunk, ascending, each below
/// `chunk.num_levels`) of a top-level primitive column (`node` a leaf whose maximum repetition
/// level is 0): the same vector as taking those rows of AssembleColumn's result, but the values
/// of the other rows are never converted or copied. `chunk` may hold gathered values or kept
/// dictionary indices. Throws INTERNAL_ERROR for another node.
VectorPtr AssembleLeafRows(const SchemaNode& node, const std::vector<LeafColumn>& leaves,
                           const ColumnChunkData& chunk, const std::vector<int64_t>& rows);

/// Whether `leaf` is a top-level string or binary column: the leaves whose dictionaries rows
/// can be compared through (row filters) and coded by (AssembleDictionaryLeaf).
bool IsTopLevelStringLeaf(const LeafColumn& leaf);

/// Assembles every row of a top-level string or binary leaf (`node`) from `chunk`, which kept
/// its dictionary indices (DictionaryMode::kKeepIndices with `chunk.dictionary` set; consumed):
/// the vector AssembleColumn would build, annotated with the dictionary and one code per row
/// (Vector::dictionary_codes()). Throws INTERNAL_ERROR for another node or chunk.
VectorPtr AssembleDictionaryLeaf(const SchemaNode& node, const std::vector<LeafColumn>& leaves,
                                 ColumnChunkData& chunk);

}  // namespace silt::parquet
