#pragma once

// Encodes one leaf column of one row group into Parquet pages: definition/repetition levels from
// the Arrow-layout vectors (any nesting of struct, list and map), dictionary or PLAIN values,
// data page v1, compression, and the chunk's statistics.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "silt/parquet/metadata.h"
#include "silt/parquet/schema_to_parquet.h"
#include "silt/vector/vector.h"

namespace silt::parquet {

struct ColumnWriterOptions {
  CompressionCodec codec = CompressionCodec::kSnappy;
  int compression_level = 0;
  int64_t page_bytes = 1ll << 20;  ///< Target uncompressed value bytes per page.
  bool dictionary = true;
  int64_t dictionary_page_bytes = 1ll << 20;  ///< Fall back to PLAIN once the dictionary is larger.
  size_t statistics_truncate_bytes = 64;
};

/// One encoded column chunk. Offsets in `metadata` (data_page_offset, dictionary_page_offset)
/// are relative to the start of `dictionary_page` (the chunk's first byte); the file writer
/// shifts them to file positions.
struct EncodedColumnChunk {
  std::string dictionary_page;  ///< header + body; empty when no dictionary is used
  std::string data_pages;       ///< every data page, header + body, in order
  ColumnMetaData metadata;
  size_t size() const { return dictionary_page.size() + data_pages.size(); }
};

/// The levels of one leaf column: a definition and a repetition level per value slot (empty
/// vectors when the maximum level is 0), and the positions in the leaf vectors of the non-null
/// values. Exposed for tests.
struct LeafLevels {
  std::vector<int16_t> definition_levels;
  std::vector<int16_t> repetition_levels;
  int64_t num_levels = 0;
};

/// Computes the levels of `leaf` over rows [0, length) of each top-level vector in `pieces`
/// (Dremel's striping for the steps of `leaf`). Throws PARQUET_WRITE_ERROR when a NULL appears
/// where the schema forbids one (a non-nullable field or a map key).
LeafLevels ComputeLeafLevels(const WriterLeafColumn& leaf, const std::vector<VectorPtr>& pieces);

/// Working buffers of one leaf column's writer, kept from row group to row group so that
/// steady-state writing neither allocates nor page-faults much. One per concurrently encoded
/// column; its content between calls is meaningless.
struct ColumnWriterScratch {
  LeafLevels levels;
  std::vector<uint8_t> booleans;
  std::vector<int32_t> int32_values;
  std::vector<int64_t> int64_values;
  std::vector<float> float_values;
  std::vector<double> double_values;
  std::vector<__int128> decimal_values;
  std::vector<std::string_view> byte_array_values;
  std::vector<uint32_t> indices;
  std::string page_body;
  std::string compressed;
};

/// Encodes `leaf` over the rows of `pieces` (the row group's slices of the top-level column that
/// holds the leaf) into `chunk`, replacing its content but reusing its buffers. Thread-safe for
/// calls with distinct `scratch` and `chunk`.
void WriteColumnChunk(const WriterLeafColumn& leaf, const std::vector<VectorPtr>& pieces,
                      const ColumnWriterOptions& options, ColumnWriterScratch* scratch,
                      EncodedColumnChunk* chunk);
/// The same with fresh buffers.
EncodedColumnChunk WriteColumnChunk(const WriterLeafColumn& leaf,
                                    const std::vector<VectorPtr>& pieces,
                                    const ColumnWriterOptions& options);

}  // namespace silt::parquet
