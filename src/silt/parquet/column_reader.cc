#include "silt/parquet/column_reader.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "silt/base/check.h"
#include "silt/parquet/codec.h"

namespace silt::parquet {
namespace {

// An uncompressed page larger than this is refused rather than allocated.
constexpr int64_t kMaxPageBytes = int64_t{1} << 30;
// Dictionary indices are decoded and gathered this many at a time.
constexpr size_t kIndexBatch = 4096;

[[noreturn]] void Corrupt(const std::string& what) { ThrowCorruptPage(what); }

[[noreturn]] void Unsupported(const std::string& what) {
  SILT_THROW(PARQUET_UNSUPPORTED_FEATURE, {{"path", "<page>"}, {"feature", what}});
}

std::string EncodingName(Encoding encoding) {
  switch (encoding) {
    case Encoding::kPlain:
      return "PLAIN";
    case Encoding::kPlainDictionary:
      return "PLAIN_DICTIONARY";
    case Encoding::kRle:
      return "RLE";
    case Encoding::kBitPacked:
      return "BIT_PACKED";
    case Encoding::kDeltaBinaryPacked:
      return "DELTA_BINARY_PACKED";
    case Encoding::kDeltaLengthByteArray:
      return "DELTA_LENGTH_BYTE_ARRAY";
    case Encoding::kDeltaByteArray:
      return "DELTA_BYTE_ARRAY";
    case Encoding::kRleDictionary:
      return "RLE_DICTIONARY";
    case Encoding::kByteStreamSplit:
      return "BYTE_STREAM_SPLIT";
  }
  return "encoding " + std::to_string(static_cast<int>(encoding));
}

// Per-thread scratch memory for raw chunk bytes and decompressed pages. Large fresh allocations
// come from mmap and are paid for again in page faults and kernel zeroing on every chunk (a
// fifth of a full scan's time when measured), so each thread keeps its buffers between chunks.
// Nothing decoded points into them: values are copied out before the next chunk starts.
class ScratchBuffer {
 public:
  uint8_t* Get(size_t size) {
    if (size > capacity_) {
      data_ = std::make_unique_for_overwrite<uint8_t[]>(size);
      capacity_ = size;
    }
    return data_.get();
  }
  // Gives back memory after an unusually large chunk so that an idle thread keeps little.
  void Trim() {
    if (capacity_ > kKeepBytes) {
      data_.reset();
      capacity_ = 0;
    }
  }

 private:
  static constexpr size_t kKeepBytes = 64u << 20;
  std::unique_ptr<uint8_t[]> data_;
  size_t capacity_ = 0;
};

ScratchBuffer& ChunkScratch() {
  thread_local ScratchBuffer buffer;
  return buffer;
}

ScratchBuffer& PageScratch() {
  thread_local ScratchBuffer buffer;
  return buffer;
}

// Decodes the pages of one chunk. One object per chunk; pages decompress into the thread's
// page scratch buffer.
class ChunkDecoder {
 public:
  ChunkDecoder(const ColumnMetaData& meta, const LeafColumn& leaf, DictionaryMode mode)
      : meta_(meta), leaf_(leaf), keep_indices_(mode == DictionaryMode::kKeepIndices) {}

  ColumnChunkData Decode(const uint8_t* bytes, size_t size) {
    ColumnChunkData data;
    data.values = std::make_unique<PhysicalValues>(leaf_.physical_type, leaf_.type_length);
    int64_t target = meta_.num_values;
    if (target < 0) Corrupt("negative num_values in column metadata");
    if (target > kMaxLevelsPerColumnChunk) {
      Unsupported("a column chunk of more than 2^28 values");
    }
    // Size the value buffers once from the metadata, bounded by what the chunk's bytes could
    // plausibly expand to, so that a lying footer cannot reserve unbounded memory.
    size_t plausible = size * 64;
    size_t width = std::max<size_t>(data.values->width(), 4);
    size_t hinted_values = std::min(static_cast<size_t>(target), plausible / width);
    size_t hinted_bytes = std::min(
        static_cast<size_t>(std::max<int64_t>(meta_.total_uncompressed_size, 0)), plausible);
    // Kept indices need no value buffers (a fallback to PLAIN grows them as it goes).
    if (!keep_indices_) {
      data.values->Reserve(static_cast<int64_t>(hinted_values),
                           leaf_.physical_type == PhysicalType::kByteArray ? hinted_bytes : 0);
    }
    size_t position = 0;
    while (position < size && data.num_levels < target) {
      size_t header_size = 0;
      PageHeader header = DecodePageHeader(bytes + position, size - position, &header_size);
      position += header_size;
      size_t compressed = static_cast<size_t>(header.compressed_page_size);
      if (compressed > size - position) Corrupt("page runs past the end of the column chunk");
      const uint8_t* page = bytes + position;
      position += compressed;
      if (header.uncompressed_page_size > kMaxPageBytes) Unsupported("a page larger than 1 GiB");
      switch (header.type) {
        case PageType::kDictionaryPage:
          ReadDictionaryPage(header, page, compressed);
          break;
        case PageType::kDataPage:
          ReadDataPageV1(header, page, compressed, &data);
          break;
        case PageType::kDataPageV2:
          ReadDataPageV2(header, page, compressed, &data);
          break;
        default:
          break;  // Index pages and unknown page types carry no values.
      }
    }
    if (data.num_levels != target) {
      Corrupt("column chunk holds " + std::to_string(data.num_levels) + " values, metadata says " +
              std::to_string(target));
    }
    if (keep_indices_ && dictionary_) {
      data.dictionary = std::move(dictionary_);
      data.dictionary_indices = std::move(kept_indices_);
      data.num_defined = static_cast<int64_t>(data.dictionary_indices.size());
    } else {
      data.num_defined = data.values->count();
    }
    return data;
  }

 private:
  // Returns the page body uncompressed: the input itself when the codec is UNCOMPRESSED.
  const uint8_t* Uncompress(const uint8_t* input, size_t input_size, size_t output_size,
                            bool compressed) {
    if (!compressed || meta_.codec == CompressionCodec::kUncompressed) {
      if (input_size != output_size) Corrupt("uncompressed page sizes differ");
      return input;
    }
    uint8_t* output = PageScratch().Get(output_size);
    Decompress(meta_.codec, input, input_size, output, output_size);
    return output;
  }

  void ReadDictionaryPage(const PageHeader& header, const uint8_t* page, size_t compressed) {
    if (!header.dictionary_page_header) Corrupt("dictionary page without its header");
    if (dictionary_) Corrupt("second dictionary page in a column chunk");
    const DictionaryPageHeader& dictionary_header = *header.dictionary_page_header;
    if (dictionary_header.encoding != Encoding::kPlain &&
        dictionary_header.encoding != Encoding::kPlainDictionary) {
      Unsupported("dictionary page encoding " + EncodingName(dictionary_header.encoding));
    }
    if (dictionary_header.num_values < 0) Corrupt("negative dictionary size");
    size_t body_size = static_cast<size_t>(header.uncompressed_page_size);
    const uint8_t* body = Uncompress(page, compressed, body_size, true);
    dictionary_ = std::make_unique<PhysicalValues>(leaf_.physical_type, leaf_.type_length);
    if (leaf_.physical_type != PhysicalType::kByteArray &&
        static_cast<uint64_t>(dictionary_header.num_values) * dictionary_->width() > body_size) {
      Corrupt("dictionary page shorter than its values");
    }
    if (leaf_.physical_type == PhysicalType::kByteArray &&
        static_cast<uint64_t>(dictionary_header.num_values) * 4 > body_size) {
      Corrupt("dictionary page shorter than its values");
    }
    DecodePlain(body, body_size, dictionary_header.num_values, dictionary_.get());
  }

  // Decodes `count` levels with `encoding`; v1 RLE levels carry a 4-byte length prefix.
  // The decoder of RLE-encoded levels at `data` (after the 4-byte length of v1 pages when
  // `length_prefixed`); sets `used` to the bytes they take.
  static RleBitPackedDecoder RleLevels(const uint8_t* data, size_t size, int16_t max_level,
                                       bool length_prefixed, size_t* used) {
    size_t run_bytes = size;
    *used = size;
    if (length_prefixed) {
      if (size < 4) Corrupt("truncated level length");
      uint32_t length;
      std::memcpy(&length, data, 4);
      if (length > size - 4) Corrupt("levels run past the page");
      data += 4;
      run_bytes = length;
      *used = 4 + length;
    }
    return RleBitPackedDecoder(data, run_bytes, BitWidthOf(static_cast<uint64_t>(max_level)));
  }

  size_t ReadLevels(Encoding encoding, const uint8_t* data, size_t size, int64_t count,
                    int16_t max_level, bool length_prefixed, std::vector<int16_t>* levels) {
    size_t start = levels->size();
    levels->resize(start + static_cast<size_t>(count));
    int bit_width = BitWidthOf(static_cast<uint64_t>(max_level));
    if (encoding == Encoding::kRle) {
      size_t used = 0;
      RleBitPackedDecoder decoder = RleLevels(data, size, max_level, length_prefixed, &used);
      decoder.GetLevels(levels->data() + start, static_cast<size_t>(count), max_level);
      return used;
    }
    if (encoding == Encoding::kBitPacked) {
      return DecodeBitPackedLevels(data, size, bit_width, static_cast<size_t>(count), max_level,
                                   levels->data() + start);
    }
    Unsupported("level encoding " + EncodingName(encoding));
  }

  // Reads a page's definition levels into `data` and sets `defined` to the entries at the
  // maximum level; returns the bytes used. A top-level optional column (maximum level 1, no
  // parent whose validity the levels carry) keeps no levels while every value so far is
  // defined, as ColumnChunkData allows: a column without NULLs then costs no level memory. The
  // first page with a NULL materialises the levels of the pages before it.
  size_t ReadDefinitionLevels(Encoding encoding, const uint8_t* bytes, size_t size, int64_t count,
                              bool length_prefixed, ColumnChunkData* data, int64_t* defined) {
    const int16_t max_level = leaf_.max_definition_level;
    const bool elidable =
        leaf_.path.size() == 1 && leaf_.max_repetition_level == 0 && max_level == 1;
    if (!elidable) {
      size_t start = data->definition_levels.size();
      size_t used = ReadLevels(encoding, bytes, size, count, max_level, length_prefixed,
                               &data->definition_levels);
      *defined = CountDefined(data->definition_levels, start, max_level);
      return used;
    }
    size_t used = 0;
    if (encoding == Encoding::kRle) {
      // The usual page of a column without NULLs (one RLE run of the maximum) costs O(runs).
      if (level_scratch_.size() < static_cast<size_t>(count)) level_scratch_.resize(static_cast<size_t>(count));
      RleBitPackedDecoder decoder = RleLevels(bytes, size, max_level, length_prefixed, &used);
      *defined = decoder.GetLevelsUnlessAllMax(level_scratch_.data(), static_cast<size_t>(count), max_level);
    } else {
      level_scratch_.clear();
      used = ReadLevels(encoding, bytes, size, count, max_level, length_prefixed, &level_scratch_);
      *defined = CountDefined(level_scratch_, 0, max_level);
    }
    std::vector<int16_t>& levels = data->definition_levels;
    if (*defined != count || !levels.empty()) {
      if (levels.empty()) levels.assign(static_cast<size_t>(data->num_levels), max_level);
      if (*defined == count) {
        levels.insert(levels.end(), static_cast<size_t>(count), max_level);  // scratch unwritten
      } else {
        levels.insert(levels.end(), level_scratch_.begin(), level_scratch_.begin() + count);
      }
    }
    return used;
  }

  void CheckLevelCount(const ColumnChunkData& data, int64_t count) {
    if (count < 0) Corrupt("negative page value count");
    if (data.num_levels + count > meta_.num_values) {
      Corrupt("pages hold more values than the column metadata says");
    }
  }

  static int64_t CountDefined(const std::vector<int16_t>& levels, size_t start, int16_t max) {
    int64_t defined = 0;
    for (size_t i = start; i < levels.size(); ++i) defined += levels[i] == max;
    return defined;
  }

  void CheckFirstRepetition(const ColumnChunkData& data, size_t start) {
    // A page (and so a chunk) begins a record: its first repetition level is 0.
    if (start < data.repetition_levels.size() && data.repetition_levels[start] != 0 && start == 0) {
      Corrupt("column chunk does not start at a record boundary");
    }
  }

  void ReadDataPageV1(const PageHeader& header, const uint8_t* page, size_t compressed,
                      ColumnChunkData* data) {
    if (!header.data_page_header) Corrupt("data page without its header");
    const DataPageHeader& page_header = *header.data_page_header;
    int64_t count = page_header.num_values;
    CheckLevelCount(*data, count);
    size_t body_size = static_cast<size_t>(header.uncompressed_page_size);
    const uint8_t* body = Uncompress(page, compressed, body_size, true);
    size_t position = 0;
    if (leaf_.max_repetition_level > 0) {
      size_t start = data->repetition_levels.size();
      position += ReadLevels(page_header.repetition_level_encoding, body, body_size, count,
                             leaf_.max_repetition_level, true, &data->repetition_levels);
      CheckFirstRepetition(*data, start);
    }
    int64_t defined = count;
    if (leaf_.max_definition_level > 0) {
      position += ReadDefinitionLevels(page_header.definition_level_encoding, body + position,
                                       body_size - position, count, true, data, &defined);
    }
    DecodeValues(page_header.encoding, body + position, body_size - position, defined,
                 data->values.get());
    data->num_levels += count;
  }

  void ReadDataPageV2(const PageHeader& header, const uint8_t* page, size_t compressed,
                      ColumnChunkData* data) {
    if (!header.data_page_header_v2) Corrupt("data page v2 without its header");
    const DataPageHeaderV2& page_header = *header.data_page_header_v2;
    int64_t count = page_header.num_values;
    CheckLevelCount(*data, count);
    if (page_header.repetition_levels_byte_length < 0 ||
        page_header.definition_levels_byte_length < 0) {
      Corrupt("negative level length");
    }
    size_t repetition_bytes = static_cast<size_t>(page_header.repetition_levels_byte_length);
    size_t definition_bytes = static_cast<size_t>(page_header.definition_levels_byte_length);
    size_t level_bytes = repetition_bytes + definition_bytes;
    if (level_bytes > compressed ||
        level_bytes > static_cast<size_t>(header.uncompressed_page_size)) {
      Corrupt("v2 levels larger than the page");
    }
    // v2 levels are never compressed and carry no length prefix.
    if (leaf_.max_repetition_level > 0) {
      size_t start = data->repetition_levels.size();
      ReadLevels(Encoding::kRle, page, repetition_bytes, count, leaf_.max_repetition_level, false,
                 &data->repetition_levels);
      CheckFirstRepetition(*data, start);
    }
    int64_t defined = count;
    if (leaf_.max_definition_level > 0) {
      ReadDefinitionLevels(Encoding::kRle, page + repetition_bytes, definition_bytes, count, false,
                           data, &defined);
    }
    size_t values_size = static_cast<size_t>(header.uncompressed_page_size) - level_bytes;
    const uint8_t* values = Uncompress(page + level_bytes, compressed - level_bytes, values_size,
                                       page_header.is_compressed);
    if (!page_header.is_compressed || meta_.codec == CompressionCodec::kUncompressed) {
      values_size = compressed - level_bytes;
    }
    DecodeValues(page_header.encoding, values, values_size, defined, data->values.get());
    data->num_levels += count;
  }

  void DecodeValues(Encoding encoding, const uint8_t* data, size_t size, int64_t count,
                    PhysicalValues* out) {
    if (count == 0) return;
    bool dictionary_encoded =
        encoding == Encoding::kPlainDictionary || encoding == Encoding::kRleDictionary;
    if (keep_indices_ && dictionary_encoded && dictionary_) {
      KeepIndices(data, size, count);
      return;
    }
    if (keep_indices_) {
      // A page in another encoding: the chunk falls back to gathered values, starting with the
      // indices kept so far, which precede this page's values.
      if (dictionary_ && !kept_indices_.empty()) {
        out->AppendGather(*dictionary_, kept_indices_.data(), kept_indices_.size());
      }
      kept_indices_ = {};
      keep_indices_ = false;
    }
    switch (encoding) {
      case Encoding::kPlain:
        DecodePlain(data, size, count, out);
        return;
      case Encoding::kPlainDictionary:
      case Encoding::kRleDictionary: {
        if (!dictionary_) Corrupt("dictionary-encoded page without a dictionary page");
        if (size < 1) Corrupt("dictionary page data without a bit width");
        int bit_width = data[0];
        if (bit_width > 32) Corrupt("dictionary index bit width above 32");
        RleBitPackedDecoder decoder(data + 1, size - 1, bit_width);
        indices_.resize(std::min<size_t>(kIndexBatch, static_cast<size_t>(count)));
        int64_t remaining = count;
        while (remaining > 0) {
          size_t want = std::min<size_t>(indices_.size(), static_cast<size_t>(remaining));
          size_t got = decoder.GetBatch(indices_.data(), want);
          if (got != want) Corrupt("dictionary indices end early");
          out->AppendGather(*dictionary_, indices_.data(), got);
          remaining -= static_cast<int64_t>(got);
        }
        return;
      }
      case Encoding::kRle: {
        if (out->type() != PhysicalType::kBoolean)
          Unsupported("RLE values on a non-boolean column");
        if (size < 4) Corrupt("truncated RLE boolean length");
        uint32_t length;
        std::memcpy(&length, data, 4);
        if (length > size - 4) Corrupt("RLE booleans run past the page");
        RleBitPackedDecoder decoder(data + 4, length, 1);
        indices_.resize(std::min<size_t>(kIndexBatch, static_cast<size_t>(count)));
        int64_t remaining = count;
        while (remaining > 0) {
          size_t want = std::min<size_t>(indices_.size(), static_cast<size_t>(remaining));
          if (decoder.GetBatch(indices_.data(), want) != want) Corrupt("RLE booleans end early");
          uint8_t* target = out->ReserveFixed(static_cast<int64_t>(want));
          for (size_t i = 0; i < want; ++i) target[i] = static_cast<uint8_t>(indices_[i]);
          out->CommitFixed(static_cast<int64_t>(want));
          remaining -= static_cast<int64_t>(want);
        }
        return;
      }
      case Encoding::kDeltaBinaryPacked:
        DecodeDeltaBinaryPackedValues(data, size, count, out);
        return;
      case Encoding::kDeltaLengthByteArray:
        DecodeDeltaLengthByteArray(data, size, count, out);
        return;
      case Encoding::kDeltaByteArray:
        if (out->type() != PhysicalType::kByteArray &&
            out->type() != PhysicalType::kFixedLenByteArray) {
          Corrupt("DELTA_BYTE_ARRAY on a column that is not a byte array");
        }
        DecodeDeltaByteArray(data, size, count, out, &delta_previous_);
        return;
      case Encoding::kByteStreamSplit:
        DecodeByteStreamSplit(data, size, count, out);
        return;
      default:
        Unsupported("value encoding " + EncodingName(encoding));
    }
  }

  // Appends the page's `count` dictionary indices to kept_indices_, checked against the
  // dictionary's size.
  void KeepIndices(const uint8_t* data, size_t size, int64_t count) {
    if (size < 1) Corrupt("dictionary page data without a bit width");
    int bit_width = data[0];
    if (bit_width > 32) Corrupt("dictionary index bit width above 32");
    RleBitPackedDecoder decoder(data + 1, size - 1, bit_width);
    // Grows with the indices actually decoded, so that a page claiming more values than its
    // bytes hold fails before it can reserve memory for them.
    constexpr size_t kIndicesPerStep = size_t{1} << 16;
    // The chunk's declared value count (bounded, as it is not yet checked against the bytes)
    // spares the regrowth copies of a typical row group's indices.
    constexpr int64_t kReservedIndices = int64_t{1} << 20;
    if (kept_indices_.capacity() == 0) {
      kept_indices_.reserve(static_cast<size_t>(std::clamp<int64_t>(meta_.num_values, 0, kReservedIndices)));
    }
    uint32_t largest = 0;
    size_t remaining = static_cast<size_t>(count);
    while (remaining > 0) {
      size_t want = std::min(remaining, kIndicesPerStep);
      size_t start = kept_indices_.size();
      kept_indices_.resize(start + want);
      uint32_t* indices = kept_indices_.data() + start;
      if (decoder.GetBatch(indices, want) != want) Corrupt("dictionary indices end early");
      for (size_t i = 0; i < want; ++i) largest = std::max(largest, indices[i]);
      remaining -= want;
    }
    if (static_cast<int64_t>(largest) >= dictionary_->count()) {
      Corrupt("dictionary index " + std::to_string(largest) + " out of range for " +
              std::to_string(dictionary_->count()) + " entries");
    }
  }

  const ColumnMetaData& meta_;
  const LeafColumn& leaf_;
  bool keep_indices_;
  std::vector<uint32_t> kept_indices_;
  std::vector<int16_t> level_scratch_;  // one page's levels (ReadDefinitionLevels)
  std::unique_ptr<PhysicalValues> dictionary_;
  std::vector<uint32_t> indices_;
  std::vector<uint8_t> delta_previous_;
};

// ---- conversion of dense physical values to silt's layout ----

struct DenseValues {
  BufferPtr values;   // fixed width (booleans: one byte per value)
  BufferPtr offsets;  // string/binary
  BufferPtr data;
  int64_t count = 0;
};

template <typename From, typename To, typename Function>
BufferPtr MapValues(const uint8_t* input, int64_t count, Function&& function) {
  BufferPtr output = Buffer::Allocate(static_cast<size_t>(count) * sizeof(To));
  auto* out = output->as<To>();
  for (int64_t i = 0; i < count; ++i) {
    From value;
    std::memcpy(&value, input + i * static_cast<int64_t>(sizeof(From)), sizeof(From));
    out[i] = function(value);
  }
  return output;
}

int64_t FloorDivide(int64_t value, int64_t divisor) {
  int64_t quotient = value / divisor;
  if ((value % divisor != 0) && ((value < 0) != (divisor < 0))) --quotient;
  return quotient;
}

int64_t WrappingMultiply(int64_t value, int64_t factor) {
  return static_cast<int64_t>(static_cast<uint64_t>(value) * static_cast<uint64_t>(factor));
}

// Big-endian two's complement of any length to a 128-bit integer; longer inputs must be pure
// sign extension.
Decimal128 BigEndianToDecimal(const uint8_t* bytes, size_t length) {
  if (length == 0) return 0;
  bool negative = (bytes[0] & 0x80) != 0;
  size_t skip = 0;
  if (length > 16) {
    skip = length - 16;
    for (size_t i = 0; i < skip; ++i) {
      if (bytes[i] != (negative ? 0xFF : 0x00)) Corrupt("decimal value wider than 128 bits");
    }
  }
  unsigned __int128 value = negative ? ~static_cast<unsigned __int128>(0) : 0;
  for (size_t i = skip; i < length; ++i) value = (value << 8) | bytes[i];
  return static_cast<Decimal128>(value);
}

DenseValues ConvertValues(const LeafColumn& leaf, PhysicalValues& physical) {
  DenseValues dense;
  dense.count = physical.count();
  int64_t n = dense.count;
  switch (leaf.conversion) {
    case ValueConversion::kNone:
      dense.values = physical.TakeFixed();
      break;
    case ValueConversion::kInt32ToByte:
      dense.values = MapValues<int32_t, int8_t>(physical.fixed_data(), n,
                                                [](int32_t v) { return static_cast<int8_t>(v); });
      break;
    case ValueConversion::kInt32ToShort:
      dense.values = MapValues<int32_t, int16_t>(physical.fixed_data(), n,
                                                 [](int32_t v) { return static_cast<int16_t>(v); });
      break;
    case ValueConversion::kUint32ToLong:
      dense.values = MapValues<uint32_t, int64_t>(
          physical.fixed_data(), n, [](uint32_t v) { return static_cast<int64_t>(v); });
      break;
    case ValueConversion::kUint64ToDecimal:
      dense.values = MapValues<uint64_t, Decimal128>(
          physical.fixed_data(), n, [](uint64_t v) { return static_cast<Decimal128>(v); });
      break;
    case ValueConversion::kInt32ToDecimal:
      dense.values = MapValues<int32_t, Decimal128>(
          physical.fixed_data(), n, [](int32_t v) { return static_cast<Decimal128>(v); });
      break;
    case ValueConversion::kInt64ToDecimal:
      dense.values = MapValues<int64_t, Decimal128>(
          physical.fixed_data(), n, [](int64_t v) { return static_cast<Decimal128>(v); });
      break;
    case ValueConversion::kBytesToDecimal: {
      dense.values = Buffer::Allocate(static_cast<size_t>(n) * sizeof(Decimal128));
      auto* out = dense.values->as<Decimal128>();
      if (physical.is_byte_array()) {
        const int32_t* offsets = physical.offsets();
        for (int64_t i = 0; i < n; ++i) {
          out[i] = BigEndianToDecimal(physical.byte_data() + offsets[i],
                                      static_cast<size_t>(offsets[i + 1] - offsets[i]));
        }
      } else {
        size_t width = physical.width();
        for (int64_t i = 0; i < n; ++i) {
          out[i] = BigEndianToDecimal(physical.fixed_data() + i * width, width);
        }
      }
      break;
    }
    case ValueConversion::kInt96ToTimestamp: {
      dense.values = Buffer::Allocate(static_cast<size_t>(n) * sizeof(int64_t));
      auto* out = dense.values->as<int64_t>();
      const uint8_t* in = physical.fixed_data();
      constexpr int64_t kUnixEpochJulianDay = 2440588;
      constexpr int64_t kMicrosPerDay = 86400LL * 1000 * 1000;
      for (int64_t i = 0; i < n; ++i) {
        int64_t nanos;
        int32_t julian_day;
        std::memcpy(&nanos, in + i * 12, 8);
        std::memcpy(&julian_day, in + i * 12 + 8, 4);
        out[i] = WrappingMultiply(julian_day - kUnixEpochJulianDay, kMicrosPerDay) +
                 FloorDivide(nanos, 1000);
      }
      break;
    }
    case ValueConversion::kMillisToMicros:
      dense.values = MapValues<int64_t, int64_t>(
          physical.fixed_data(), n, [](int64_t v) { return WrappingMultiply(v, 1000); });
      break;
    case ValueConversion::kNanosToMicros:
      dense.values = MapValues<int64_t, int64_t>(physical.fixed_data(), n,
                                                 [](int64_t v) { return FloorDivide(v, 1000); });
      break;
    case ValueConversion::kTimeMillisToLong:
      dense.values = MapValues<int32_t, int64_t>(
          physical.fixed_data(), n, [](int32_t v) { return static_cast<int64_t>(v) * 1000; });
      break;
    case ValueConversion::kByteArray:
      dense.offsets = physical.TakeOffsets();
      dense.data = physical.TakeData();
      break;
    case ValueConversion::kFixedToBinary: {
      size_t width = physical.width();
      if (static_cast<uint64_t>(n) * width > static_cast<uint64_t>(INT32_MAX)) {
        Unsupported("a binary column chunk of more than 2 GiB");
      }
      dense.offsets = Buffer::Allocate(static_cast<size_t>(n + 1) * sizeof(int32_t));
      auto* offsets = dense.offsets->as<int32_t>();
      for (int64_t i = 0; i <= n; ++i)
        offsets[i] = static_cast<int32_t>(i * static_cast<int64_t>(width));
      dense.data = physical.TakeFixed();
      break;
    }
  }
  return dense;
}

// ---- assembly ----

size_t BitmapBytes(int64_t bits) { return static_cast<size_t>((bits + 7) / 8); }

inline bool GetBit(const uint8_t* bits, int64_t i) { return (bits[i >> 3] >> (i & 7)) & 1; }
inline void SetBit(uint8_t* bits, int64_t i) {
  bits[i >> 3] |= static_cast<uint8_t>(1u << (i & 7));
}

// Places dense fixed-width values into their slots (nulls get zero bytes).
template <size_t kWidth>
void ScatterFixed(const uint8_t* dense, const uint8_t* validity, int64_t slots, uint8_t* out) {
  int64_t next = 0;
  for (int64_t s = 0; s < slots; ++s) {
    if (GetBit(validity, s)) {
      std::memcpy(out + s * kWidth, dense + next * kWidth, kWidth);
      ++next;
    }
  }
}

void ScatterFixedAnyWidth(const uint8_t* dense, const uint8_t* validity, int64_t slots,
                          size_t width, uint8_t* out) {
  switch (width) {
    case 1:
      ScatterFixed<1>(dense, validity, slots, out);
      return;
    case 2:
      ScatterFixed<2>(dense, validity, slots, out);
      return;
    case 4:
      ScatterFixed<4>(dense, validity, slots, out);
      return;
    case 8:
      ScatterFixed<8>(dense, validity, slots, out);
      return;
    case 16:
      ScatterFixed<16>(dense, validity, slots, out);
      return;
    default:
      break;
  }
  int64_t next = 0;
  for (int64_t s = 0; s < slots; ++s) {
    if (GetBit(validity, s)) {
      std::memcpy(out + s * static_cast<int64_t>(width), dense + next * static_cast<int64_t>(width),
                  width);
      ++next;
    }
  }
}

class Assembler {
 public:
  Assembler(const std::vector<LeafColumn>& leaves, std::vector<ColumnChunkData>& chunks)
      : leaves_(leaves), chunks_(chunks) {}

  VectorPtr Build(const SchemaNode& node) {
    switch (node.kind) {
      case SchemaNode::Kind::kLeaf:
        return BuildLeaf(node);
      case SchemaNode::Kind::kStruct:
        return BuildStruct(node);
      case SchemaNode::Kind::kList:
      case SchemaNode::Kind::kMap:
        return BuildList(node);
    }
    SILT_CHECK(false, "unknown schema node kind");
  }

 private:
  const ColumnChunkData& ChunkOf(int leaf_index) const {
    SILT_CHECK(leaf_index >= 0 && static_cast<size_t>(leaf_index) < chunks_.size(),
               "leaf index out of range");
    return chunks_[static_cast<size_t>(leaf_index)];
  }

  static int16_t Definition(const ColumnChunkData& chunk, int64_t i) {
    return chunk.definition_levels.empty() ? 0 : chunk.definition_levels[static_cast<size_t>(i)];
  }
  static int16_t Repetition(const ColumnChunkData& chunk, int64_t i) {
    return chunk.repetition_levels.empty() ? 0 : chunk.repetition_levels[static_cast<size_t>(i)];
  }

  VectorPtr BuildLeaf(const SchemaNode& node) {
    ColumnChunkData& chunk = chunks_[static_cast<size_t>(node.leaf_index)];
    const LeafColumn& leaf = leaves_[static_cast<size_t>(node.leaf_index)];
    DenseValues dense = ConvertValues(leaf, *chunk.values);
    const DataTypePtr& type = leaf.type;
    int16_t max_definition = leaf.max_definition_level;
    int16_t repeated_ancestor_level = node.repeated_ancestor_definition_level;

    int64_t slots;
    BufferPtr validity;
    if (chunk.definition_levels.empty() ||
        (repeated_ancestor_level == 0 && chunk.num_defined == chunk.num_levels)) {
      // Fast path: every entry is a slot and every slot has a value.
      slots = chunk.num_levels;
    } else {
      validity = Buffer::Allocate(BitmapBytes(chunk.num_levels), true);
      uint8_t* bits = validity->data();
      const int16_t* levels = chunk.definition_levels.data();
      slots = 0;
      for (int64_t i = 0; i < chunk.num_levels; ++i) {
        int16_t d = levels[i];
        if (d < repeated_ancestor_level) continue;
        if (d >= max_definition) SetBit(bits, slots);
        ++slots;
      }
      if (slots == dense.count) validity.reset();
    }
    int64_t null_count = slots - dense.count;
    if (null_count < 0) Corrupt("more values than value slots");

    if (type->id() == TypeId::kString || type->id() == TypeId::kBinary) {
      BufferPtr offsets = dense.offsets;
      if (validity) {
        offsets = Buffer::Allocate(static_cast<size_t>(slots + 1) * sizeof(int32_t));
        int32_t* out = offsets->as<int32_t>();
        const int32_t* in = dense.offsets->as<int32_t>();
        const uint8_t* bits = validity->data();
        int64_t next = 0;
        out[0] = in[0];
        for (int64_t s = 0; s < slots; ++s) {
          if (GetBit(bits, s)) ++next;
          out[s + 1] = in[next];
        }
      }
      return Vector::Make(type, slots, {validity, offsets, dense.data}, {}, null_count);
    }
    if (type->id() == TypeId::kBoolean) {
      BufferPtr bits_out = Buffer::Allocate(BitmapBytes(slots), true);
      uint8_t* out = bits_out->data();
      const uint8_t* in = dense.values->data();
      if (validity) {
        const uint8_t* valid = validity->data();
        int64_t next = 0;
        for (int64_t s = 0; s < slots; ++s) {
          if (GetBit(valid, s) && in[next++]) SetBit(out, s);
        }
      } else {
        for (int64_t s = 0; s < slots; ++s) {
          if (in[s]) SetBit(out, s);
        }
      }
      return Vector::Make(type, slots, {validity, bits_out}, {}, null_count);
    }
    size_t width = static_cast<size_t>(type->FixedWidth());
    BufferPtr values = dense.values;
    if (validity) {
      values = Buffer::Allocate(static_cast<size_t>(slots) * width, true);
      ScatterFixedAnyWidth(dense.values->data(), validity->data(), slots, width, values->data());
    }
    return Vector::Make(type, slots, {validity, values}, {}, null_count);
  }

  // Slots and validity of a struct, list or map from its first leaf's levels.
  VectorPtr BuildStruct(const SchemaNode& node) {
    const ColumnChunkData& chunk = ChunkOf(node.first_leaf);
    int16_t repeated_ancestor_level = node.repeated_ancestor_definition_level;
    int16_t rep = node.repetition_level;
    int16_t def = node.definition_level;
    BufferPtr validity = Buffer::Allocate(BitmapBytes(chunk.num_levels), true);
    uint8_t* bits = validity->data();
    int64_t slots = 0;
    int64_t valid = 0;
    for (int64_t i = 0; i < chunk.num_levels; ++i) {
      int16_t d = Definition(chunk, i);
      if (Repetition(chunk, i) > rep || d < repeated_ancestor_level) continue;
      if (d >= def) {
        SetBit(bits, slots);
        ++valid;
      }
      ++slots;
    }
    if (valid == slots) validity.reset();
    std::vector<VectorPtr> children;
    for (const SchemaNode& child : node.children) {
      children.push_back(Build(child));
      if (children.back()->length() != slots) Corrupt("struct fields disagree on their length");
    }
    return Vector::Make(node.field.type, slots, {validity}, std::move(children), slots - valid);
  }

  VectorPtr BuildList(const SchemaNode& node) {
    const ColumnChunkData& chunk = ChunkOf(node.first_leaf);
    int16_t repeated_ancestor_level = node.repeated_ancestor_definition_level;
    int16_t rep = node.repetition_level;
    int16_t def = node.definition_level;
    int16_t element_def = node.element_definition_level;
    BufferPtr validity = Buffer::Allocate(BitmapBytes(chunk.num_levels), true);
    BufferPtr offsets = Buffer::Allocate(static_cast<size_t>(chunk.num_levels + 1) * 4);
    uint8_t* bits = validity->data();
    int32_t* out = offsets->as<int32_t>();
    int64_t slots = 0;
    int64_t valid = 0;
    int32_t elements = 0;
    for (int64_t i = 0; i < chunk.num_levels; ++i) {
      int16_t d = Definition(chunk, i);
      int16_t r = Repetition(chunk, i);
      if (r <= rep && d >= repeated_ancestor_level) {
        out[slots] = elements;
        if (d >= def) {
          SetBit(bits, slots);
          ++valid;
        }
        ++slots;
      }
      if (r <= rep + 1 && d >= element_def) {
        if (slots == 0) Corrupt("list element before the first list");
        ++elements;
      }
    }
    out[slots] = elements;
    offsets->Resize(static_cast<size_t>(slots + 1) * 4);
    if (valid == slots) validity.reset();
    VectorPtr child;
    if (node.kind == SchemaNode::Kind::kList) {
      child = Build(node.children[0]);
    } else {
      VectorPtr keys = Build(node.children[0]);
      VectorPtr values = Build(node.children[1]);
      if (keys->length() != values->length()) Corrupt("map keys and values disagree in length");
      child = Vector::Make(StructType(node.field.type->fields()), keys->length(), {nullptr},
                           {keys, values}, 0);
    }
    if (child->length() != elements) Corrupt("list elements disagree with the levels");
    return Vector::Make(node.field.type, slots, {validity, offsets}, {child}, slots - valid);
  }

  const std::vector<LeafColumn>& leaves_;
  std::vector<ColumnChunkData>& chunks_;
};

}  // namespace

ColumnChunkData ReadColumnChunk(io::RandomAccessFile& file, uint64_t file_size,
                                const ColumnChunk& chunk, const LeafColumn& leaf,
                                DictionaryMode mode) {
  if (!chunk.meta_data) Corrupt("column chunk without metadata");
  if (chunk.file_path) Unsupported("column chunks in other files");
  const ColumnMetaData& meta = *chunk.meta_data;
  if (meta.type != leaf.physical_type) Corrupt("column metadata type differs from the schema");
  int64_t start = meta.data_page_offset;
  if (meta.dictionary_page_offset && *meta.dictionary_page_offset > 0 &&
      *meta.dictionary_page_offset < start) {
    start = *meta.dictionary_page_offset;
  }
  int64_t size = meta.total_compressed_size;
  if (start < 0 || size < 0 || static_cast<uint64_t>(start) > file_size ||
      static_cast<uint64_t>(size) > file_size - static_cast<uint64_t>(start)) {
    Corrupt("column chunk [" + std::to_string(start) + ", +" + std::to_string(size) +
            ") outside the file of " + std::to_string(file_size) + " bytes");
  }
  // One read per chunk; the pages are decoded from memory.
  uint8_t* bytes = ChunkScratch().Get(static_cast<size_t>(size));
  if (size > 0) file.ReadExactly(static_cast<uint64_t>(start), static_cast<size_t>(size), bytes);
  ChunkDecoder decoder(meta, leaf, mode);
  ColumnChunkData data = decoder.Decode(bytes, static_cast<size_t>(size));
  ChunkScratch().Trim();
  PageScratch().Trim();
  return data;
}

VectorPtr AssembleLeafRows(const SchemaNode& node, const std::vector<LeafColumn>& leaves,
                           const ColumnChunkData& chunk, const std::vector<int64_t>& rows) {
  SILT_CHECK(node.kind == SchemaNode::Kind::kLeaf && node.leaf_index >= 0 &&
                 static_cast<size_t>(node.leaf_index) < leaves.size(),
             "AssembleLeafRows needs a leaf");
  const LeafColumn& leaf = leaves[static_cast<size_t>(node.leaf_index)];
  SILT_CHECK(leaf.max_repetition_level == 0, "AssembleLeafRows needs a top-level leaf");
  size_t count = rows.size();
  SILT_CHECK(count == 0 || (rows.front() >= 0 && rows.back() < chunk.num_levels),
             "AssembleLeafRows: row out of range");
  // The chunk of just the selected rows: their levels and their values, in order; the
  // assembler then converts only these.
  ColumnChunkData selected;
  selected.num_levels = static_cast<int64_t>(count);
  // The index among the chunk's defined values of each non-null selected row: without NULLs,
  // row i is defined value i (and the selected rows need no levels either), so `rows` itself.
  std::vector<int64_t> defined_positions;
  const bool has_nulls = !chunk.definition_levels.empty() && chunk.num_defined != chunk.num_levels;
  const std::vector<int64_t>& dense = has_nulls ? defined_positions : rows;
  if (has_nulls) {
    defined_positions.reserve(count);
    selected.definition_levels.resize(count);
    const int16_t* levels = chunk.definition_levels.data();
    int64_t level = 0;
    int64_t defined_before = 0;  // defined values before `level`
    for (size_t k = 0; k < count; ++k) {
      for (; level < rows[k]; ++level) defined_before += levels[level] == leaf.max_definition_level;
      selected.definition_levels[k] = levels[level];
      if (levels[level] == leaf.max_definition_level) defined_positions.push_back(defined_before);
    }
  }
  selected.num_defined = static_cast<int64_t>(dense.size());
  selected.values = std::make_unique<PhysicalValues>(leaf.physical_type, leaf.type_length);
  PhysicalValues& out = *selected.values;
  if (chunk.dictionary) {
    std::vector<uint32_t> entries(dense.size());
    for (size_t k = 0; k < dense.size(); ++k) {
      entries[k] = chunk.dictionary_indices[static_cast<size_t>(dense[k])];
    }
    out.AppendGather(*chunk.dictionary, entries.data(), entries.size());
  } else if (chunk.values->is_byte_array()) {
    const PhysicalValues& source = *chunk.values;
    const int32_t* offsets = source.offsets();
    size_t total = 0;
    for (int64_t value : dense) total += static_cast<size_t>(offsets[value + 1] - offsets[value]);
    out.Reserve(static_cast<int64_t>(dense.size()), total);
    for (int64_t value : dense) {
      out.AppendByteArray(source.byte_data() + offsets[value],
                          static_cast<size_t>(offsets[value + 1] - offsets[value]));
    }
  } else {
    const PhysicalValues& source = *chunk.values;
    size_t width = source.width();
    uint8_t* target = out.ReserveFixed(static_cast<int64_t>(dense.size()));
    const uint8_t* values = source.fixed_data();
    // Typed moves for the common widths: a memcpy of a width known only at run time is a
    // library call per value.
    auto gather = [&](auto* typed_target, const auto* typed_values) {
      for (size_t k = 0; k < dense.size(); ++k) typed_target[k] = typed_values[dense[k]];
    };
    if (width == 4) {
      gather(reinterpret_cast<uint32_t*>(target), reinterpret_cast<const uint32_t*>(values));
    } else if (width == 8) {
      gather(reinterpret_cast<uint64_t*>(target), reinterpret_cast<const uint64_t*>(values));
    } else {
      for (size_t k = 0; k < dense.size(); ++k) {
        std::memcpy(target + k * width, values + static_cast<size_t>(dense[k]) * width, width);
      }
    }
    out.CommitFixed(static_cast<int64_t>(dense.size()));
  }
  std::vector<ColumnChunkData> chunks(leaves.size());
  chunks[static_cast<size_t>(node.leaf_index)] = std::move(selected);
  return AssembleColumn(node, leaves, chunks, static_cast<int64_t>(count));
}

bool IsTopLevelStringLeaf(const LeafColumn& leaf) {
  const TypeId id = leaf.type->id();
  return leaf.max_repetition_level == 0 && leaf.conversion == ValueConversion::kByteArray &&
         (id == TypeId::kString || id == TypeId::kBinary);
}

VectorPtr AssembleDictionaryLeaf(const SchemaNode& node, const std::vector<LeafColumn>& leaves,
                                 ColumnChunkData& chunk) {
  SILT_CHECK(node.kind == SchemaNode::Kind::kLeaf && node.leaf_index >= 0 &&
                 static_cast<size_t>(node.leaf_index) < leaves.size(),
             "AssembleDictionaryLeaf needs a leaf");
  const LeafColumn& leaf = leaves[static_cast<size_t>(node.leaf_index)];
  SILT_CHECK(IsTopLevelStringLeaf(leaf) && chunk.dictionary != nullptr,
             "AssembleDictionaryLeaf needs a top-level string leaf with kept indices");
  const int64_t rows = chunk.num_levels;
  const std::vector<uint32_t>& indices = chunk.dictionary_indices;
  if (static_cast<int64_t>(indices.size()) != chunk.num_defined || chunk.num_defined > rows ||
      (chunk.definition_levels.empty() && chunk.num_defined != rows)) {
    Corrupt("dictionary indices disagree with the defined values");
  }

  // One code per row: the defined values' indices, spread over the rows when some are NULL.
  BufferPtr codes = Buffer::Allocate(static_cast<size_t>(rows) * sizeof(int32_t));
  int32_t* code = codes->as<int32_t>();
  if (chunk.definition_levels.empty() || chunk.num_defined == rows) {
    std::memcpy(code, indices.data(), static_cast<size_t>(rows) * sizeof(int32_t));
  } else {
    const int16_t* levels = chunk.definition_levels.data();
    size_t next = 0;
    for (int64_t row = 0; row < rows; ++row) {
      code[row] = levels[row] == leaf.max_definition_level
                      ? static_cast<int32_t>(indices[next++])
                      : 0;
    }
  }

  // The values, gathered (AppendGather checks every index against the dictionary).
  auto values = std::make_unique<PhysicalValues>(leaf.physical_type, leaf.type_length);
  values->AppendGather(*chunk.dictionary, indices.data(), indices.size());
  std::vector<ColumnChunkData> chunks(leaves.size());
  ColumnChunkData& entries = chunks[static_cast<size_t>(node.leaf_index)];
  entries.num_levels = chunk.dictionary->count();
  entries.num_defined = entries.num_levels;
  entries.values = std::move(chunk.dictionary);
  VectorPtr dictionary = AssembleColumn(node, leaves, chunks, entries.num_levels);

  chunk.values = std::move(values);
  chunk.dictionary_indices = {};
  chunks[static_cast<size_t>(node.leaf_index)] = std::move(chunk);
  VectorPtr vector = AssembleColumn(node, leaves, chunks, rows);
  auto annotation = std::make_shared<DictionaryCodes>();
  annotation->dictionary = std::move(dictionary);
  annotation->codes = std::move(codes);
  return Vector::WithDictionaryCodes(vector, std::move(annotation));
}

VectorPtr AssembleColumn(const SchemaNode& node, const std::vector<LeafColumn>& leaves,
                         std::vector<ColumnChunkData>& chunks, int64_t expected_length) {
  Assembler assembler(leaves, chunks);
  VectorPtr vector = assembler.Build(node);
  if (expected_length >= 0 && vector->length() != expected_length) {
    Corrupt("column " + node.field.name + " has " + std::to_string(vector->length()) +
            " rows, the row group " + std::to_string(expected_length));
  }
  return vector;
}

}  // namespace silt::parquet
