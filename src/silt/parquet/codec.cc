#include "silt/parquet/codec.h"

#include <brotli/decode.h>
#include <brotli/encode.h>
#include <lz4.h>
#include <lz4frame.h>
#include <snappy.h>
#include <zlib.h>
#include <zstd.h>

#include <climits>
#include <cstring>

#include "silt/base/check.h"
#include "silt/parquet/snappy_decoder_internal.h"

namespace silt::parquet {
namespace {

// The caller adds the file and column as context; the codec only knows the bytes.
[[noreturn]] void Corrupt(CompressionCodec codec, const std::string& what) {
  SILT_THROW(PARQUET_CORRUPT_FILE,
             {{"path", "<page>"}, {"message", std::string(CodecName(codec)) + ": " + what}});
}

void DecompressGzip(const uint8_t* input, size_t input_size, uint8_t* output, size_t output_size) {
  z_stream stream;
  std::memset(&stream, 0, sizeof(stream));
  // 15 + 32: accept both zlib and gzip headers.
  if (inflateInit2(&stream, 15 + 32) != Z_OK) Corrupt(CompressionCodec::kGzip, "inflateInit2");
  size_t produced = 0;
  size_t consumed = 0;
  int status = Z_OK;
  // Several concatenated gzip members are one stream to gzip readers, so inflate them all.
  while (consumed < input_size) {
    size_t chunk_in = std::min<size_t>(input_size - consumed, UINT_MAX);
    size_t chunk_out = std::min<size_t>(output_size - produced, UINT_MAX);
    stream.next_in = const_cast<Bytef*>(input + consumed);
    stream.avail_in = static_cast<uInt>(chunk_in);
    stream.next_out = output + produced;
    stream.avail_out = static_cast<uInt>(chunk_out);
    status = inflate(&stream, Z_NO_FLUSH);
    consumed += chunk_in - stream.avail_in;
    produced += chunk_out - stream.avail_out;
    if (status == Z_STREAM_END) {
      if (consumed == input_size || produced == output_size) break;
      if (inflateReset(&stream) != Z_OK) break;
      continue;
    }
    if (status != Z_OK) break;
    if (stream.avail_in != 0 && stream.avail_out == 0 && produced == output_size) {
      status = Z_BUF_ERROR;  // More output than the page header promised.
      break;
    }
    if (chunk_in == stream.avail_in && chunk_out == stream.avail_out) {
      status = Z_DATA_ERROR;  // No progress: truncated stream.
      break;
    }
  }
  inflateEnd(&stream);
  if (status != Z_STREAM_END) Corrupt(CompressionCodec::kGzip, "invalid or truncated stream");
  if (produced != output_size) {
    Corrupt(CompressionCodec::kGzip, "decompressed to " + std::to_string(produced) +
                                         " bytes, expected " + std::to_string(output_size));
  }
}

bool DecompressLz4Raw(const uint8_t* input, size_t input_size, uint8_t* output,
                      size_t output_size) {
  if (input_size > INT_MAX || output_size > INT_MAX) return false;
  int result =
      LZ4_decompress_safe(reinterpret_cast<const char*>(input), reinterpret_cast<char*>(output),
                          static_cast<int>(input_size), static_cast<int>(output_size));
  return result >= 0 && static_cast<size_t>(result) == output_size;
}

uint32_t ReadBigEndian32(const uint8_t* bytes) {
  return (uint32_t{bytes[0]} << 24) | (uint32_t{bytes[1]} << 16) | (uint32_t{bytes[2]} << 8) |
         uint32_t{bytes[3]};
}

// Hadoop's Lz4Codec: blocks of [BE u32 uncompressed size][BE u32 compressed size][lz4 block].
bool DecompressLz4Hadoop(const uint8_t* input, size_t input_size, uint8_t* output,
                         size_t output_size) {
  size_t in = 0;
  size_t out = 0;
  while (in < input_size) {
    if (input_size - in < 8) return false;
    size_t block_uncompressed = ReadBigEndian32(input + in);
    size_t block_compressed = ReadBigEndian32(input + in + 4);
    in += 8;
    if (block_compressed > input_size - in || block_uncompressed > output_size - out) return false;
    if (!DecompressLz4Raw(input + in, block_compressed, output + out, block_uncompressed)) {
      return false;
    }
    in += block_compressed;
    out += block_uncompressed;
  }
  return out == output_size;
}

bool DecompressLz4Frame(const uint8_t* input, size_t input_size, uint8_t* output,
                        size_t output_size) {
  LZ4F_dctx* context = nullptr;
  if (LZ4F_isError(LZ4F_createDecompressionContext(&context, LZ4F_VERSION))) return false;
  size_t in = 0;
  size_t out = 0;
  bool ok = true;
  while (in < input_size) {
    size_t in_chunk = input_size - in;
    size_t out_chunk = output_size - out;
    size_t hint =
        LZ4F_decompress(context, output + out, &out_chunk, input + in, &in_chunk, nullptr);
    if (LZ4F_isError(hint) || (in_chunk == 0 && out_chunk == 0)) {
      ok = false;
      break;
    }
    in += in_chunk;
    out += out_chunk;
    if (hint == 0) break;
  }
  LZ4F_freeDecompressionContext(context);
  return ok && out == output_size;
}

}  // namespace

const char* CodecName(CompressionCodec codec) {
  switch (codec) {
    case CompressionCodec::kUncompressed:
      return "UNCOMPRESSED";
    case CompressionCodec::kSnappy:
      return "SNAPPY";
    case CompressionCodec::kGzip:
      return "GZIP";
    case CompressionCodec::kLzo:
      return "LZO";
    case CompressionCodec::kBrotli:
      return "BROTLI";
    case CompressionCodec::kLz4:
      return "LZ4";
    case CompressionCodec::kZstd:
      return "ZSTD";
    case CompressionCodec::kLz4Raw:
      return "LZ4_RAW";
  }
  return "UNKNOWN_CODEC";
}

void Decompress(CompressionCodec codec, const uint8_t* input, size_t input_size, uint8_t* output,
                size_t output_size) {
  switch (codec) {
    case CompressionCodec::kUncompressed:
      if (input_size != output_size) Corrupt(codec, "page sizes differ");
      if (input_size != 0) std::memcpy(output, input, input_size);
      return;
    case CompressionCodec::kSnappy: {
      size_t length = 0;
      const char* source = reinterpret_cast<const char*>(input);
      if (!snappy::GetUncompressedLength(source, input_size, &length)) {
        Corrupt(codec, "invalid length header");
      }
      if (length != output_size) {
        Corrupt(codec, "decompressed size " + std::to_string(length) + ", expected " +
                           std::to_string(output_size));
      }
      if (!internal::DecompressSnappy(input, input_size, output, output_size)) {
        Corrupt(codec, "invalid data");
      }
      return;
    }
    case CompressionCodec::kGzip:
      DecompressGzip(input, input_size, output, output_size);
      return;
    case CompressionCodec::kBrotli: {
      size_t decoded = output_size;
      if (BrotliDecoderDecompress(input_size, input, &decoded, output) !=
              BROTLI_DECODER_RESULT_SUCCESS ||
          decoded != output_size) {
        Corrupt(codec, "invalid data or wrong size");
      }
      return;
    }
    case CompressionCodec::kZstd: {
      size_t result = ZSTD_decompress(output, output_size, input, input_size);
      if (ZSTD_isError(result)) Corrupt(codec, ZSTD_getErrorName(result));
      if (result != output_size) Corrupt(codec, "wrong decompressed size");
      return;
    }
    case CompressionCodec::kLz4Raw:
      if (!DecompressLz4Raw(input, input_size, output, output_size)) {
        Corrupt(codec, "invalid data or wrong size");
      }
      return;
    case CompressionCodec::kLz4:
      // Old parquet-mr wrote Hadoop framing, parquet-cpp wrote raw blocks and some writers the
      // LZ4 frame format; try them in that order, as Arrow does.
      if (DecompressLz4Hadoop(input, input_size, output, output_size)) return;
      if (input_size >= 4 && input[0] == 0x04 && input[1] == 0x22 && input[2] == 0x4D &&
          input[3] == 0x18 && DecompressLz4Frame(input, input_size, output, output_size)) {
        return;
      }
      if (DecompressLz4Raw(input, input_size, output, output_size)) return;
      Corrupt(codec, "not valid Hadoop-framed, frame or raw LZ4 data");
    case CompressionCodec::kLzo:
      break;
  }
  SILT_THROW(PARQUET_UNSUPPORTED_FEATURE,
             {{"path", "<page>"},
              {"feature", std::string("compression codec ") + CodecName(codec) + " (" +
                              std::to_string(static_cast<int>(codec)) + ")"}});
}

void Compress(CompressionCodec codec, const uint8_t* input, size_t input_size, std::string* output,
              int level) {
  output->clear();
  switch (codec) {
    case CompressionCodec::kUncompressed:
      output->assign(reinterpret_cast<const char*>(input), input_size);
      return;
    case CompressionCodec::kSnappy:
      snappy::Compress(reinterpret_cast<const char*>(input), input_size, output);
      return;
    case CompressionCodec::kGzip: {
      z_stream stream;
      std::memset(&stream, 0, sizeof(stream));
      // 15 + 16: a gzip header, which is what parquet.thrift asks for (RFC 1952).
      int chosen_level = level == 0 ? Z_DEFAULT_COMPRESSION : level;
      SILT_CHECK(
          deflateInit2(&stream, chosen_level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK,
          "deflateInit2 failed");
      output->resize(deflateBound(&stream, static_cast<uLong>(input_size)) + 32);
      stream.next_in = const_cast<Bytef*>(input);
      stream.avail_in = static_cast<uInt>(input_size);
      stream.next_out = reinterpret_cast<Bytef*>(output->data());
      stream.avail_out = static_cast<uInt>(output->size());
      int status = deflate(&stream, Z_FINISH);
      size_t produced = stream.total_out;
      deflateEnd(&stream);
      SILT_CHECK(status == Z_STREAM_END, "deflate did not finish");
      output->resize(produced);
      return;
    }
    case CompressionCodec::kBrotli: {
      size_t bound = BrotliEncoderMaxCompressedSize(input_size);
      if (bound == 0) bound = input_size + 1024;
      output->resize(bound);
      size_t encoded = bound;
      int quality = level == 0 ? 6 : level;
      SILT_CHECK(BrotliEncoderCompress(quality, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_GENERIC,
                                       input_size, input, &encoded,
                                       reinterpret_cast<uint8_t*>(output->data())) == BROTLI_TRUE,
                 "BrotliEncoderCompress failed");
      output->resize(encoded);
      return;
    }
    case CompressionCodec::kZstd: {
      output->resize(ZSTD_compressBound(input_size));
      size_t result = ZSTD_compress(output->data(), output->size(), input, input_size,
                                    level == 0 ? ZSTD_CLEVEL_DEFAULT : level);
      SILT_CHECK(!ZSTD_isError(result), ZSTD_getErrorName(result));
      output->resize(result);
      return;
    }
    case CompressionCodec::kLz4Raw:
    case CompressionCodec::kLz4: {
      SILT_USER_CHECK(input_size <= static_cast<size_t>(LZ4_MAX_INPUT_SIZE), INVALID_ARGUMENT,
                      {{"message", "page too large for LZ4"}});
      size_t header = codec == CompressionCodec::kLz4 ? 8 : 0;
      output->resize(header + static_cast<size_t>(LZ4_compressBound(static_cast<int>(input_size))));
      int written = LZ4_compress_default(reinterpret_cast<const char*>(input),
                                         output->data() + header, static_cast<int>(input_size),
                                         static_cast<int>(output->size() - header));
      SILT_CHECK(written > 0 || input_size == 0, "LZ4 compression failed");
      if (header != 0) {
        // One Hadoop block: big-endian uncompressed then compressed length.
        auto put = [&](size_t at, uint32_t value) {
          (*output)[at] = static_cast<char>(value >> 24);
          (*output)[at + 1] = static_cast<char>(value >> 16);
          (*output)[at + 2] = static_cast<char>(value >> 8);
          (*output)[at + 3] = static_cast<char>(value);
        };
        put(0, static_cast<uint32_t>(input_size));
        put(4, static_cast<uint32_t>(written));
      }
      output->resize(header + static_cast<size_t>(written));
      return;
    }
    case CompressionCodec::kLzo:
      break;
  }
  SILT_THROW(
      PARQUET_UNSUPPORTED_FEATURE,
      {{"path", "<page>"}, {"feature", std::string("compression codec ") + CodecName(codec)}});
}

}  // namespace silt::parquet
