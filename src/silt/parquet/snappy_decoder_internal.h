#pragma once

#include <cstddef>
#include <cstdint>

namespace silt::parquet::internal {

/// Decompresses a raw Snappy block (google/snappy format_description.txt: a varint length, then
/// literal and copy elements) into exactly `output_size` bytes at `output`. Returns false when
/// the block is malformed or does not decode to exactly `output_size` bytes; never reads or
/// writes outside the two ranges.
///
/// Why not libsnappy's RawUncompress: on Parquet pages of short values the library's per-element
/// memmove calls through the PLT were half of a full table scan; copies of up to 16 bytes are
/// done here with fixed-size moves while at least 16 bytes of room remain on both sides.
bool DecompressSnappy(const uint8_t* input, size_t input_size, uint8_t* output,
                      size_t output_size);

}  // namespace silt::parquet::internal
