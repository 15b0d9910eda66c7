#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "silt/parquet/metadata.h"

namespace silt::parquet {

/// Decompresses `input` into exactly `output_size` bytes at `output`. Supports UNCOMPRESSED,
/// SNAPPY, GZIP (zlib/gzip streams), BROTLI, ZSTD, LZ4_RAW and LZ4 (Hadoop framing, with a
/// fallback to raw LZ4 blocks as other readers do). Throws PARQUET_CORRUPT_FILE when the data
/// does not decompress to exactly `output_size` bytes, PARQUET_UNSUPPORTED_FEATURE for LZO.
void Decompress(CompressionCodec codec, const uint8_t* input, size_t input_size, uint8_t* output,
                size_t output_size);

/// Compresses `input` with `codec` (level: codec default when 0), replacing `*output`.
/// Thread-safe.
void Compress(CompressionCodec codec, const uint8_t* input, size_t input_size, std::string* output,
              int level = 0);

/// "SNAPPY", "ZSTD", ... as in parquet.thrift.
const char* CodecName(CompressionCodec codec);

}  // namespace silt::parquet
