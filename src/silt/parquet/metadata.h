#pragma once

// The Parquet footer and page headers as plain structs, mirroring apache/parquet-format's
// parquet.thrift (field ids in comments). Encoded with the Thrift compact protocol; see
// thrift_compact.h. Fields silt never reads or writes (column/offset indexes, encryption, bloom
// filters, size statistics) are skipped when decoding and never written.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace silt::parquet {

// Enumerations keep the on-disk numbers. Persisted; never renumber. Decoders keep unknown numbers
// (a cast), and the reader rejects what it cannot handle with PARQUET_UNSUPPORTED_FEATURE.
enum class PhysicalType : int32_t {
  kBoolean = 0, kInt32 = 1, kInt64 = 2, kInt96 = 3, kFloat = 4, kDouble = 5,
  kByteArray = 6, kFixedLenByteArray = 7,
};
enum class ConvertedType : int32_t {
  kUtf8 = 0, kMap = 1, kMapKeyValue = 2, kList = 3, kEnum = 4, kDecimal = 5, kDate = 6,
  kTimeMillis = 7, kTimeMicros = 8, kTimestampMillis = 9, kTimestampMicros = 10,
  kUint8 = 11, kUint16 = 12, kUint32 = 13, kUint64 = 14,
  kInt8 = 15, kInt16 = 16, kInt32 = 17, kInt64 = 18, kJson = 19, kBson = 20, kInterval = 21,
};
enum class Repetition : int32_t { kRequired = 0, kOptional = 1, kRepeated = 2 };
enum class Encoding : int32_t {
  kPlain = 0, kPlainDictionary = 2, kRle = 3, kBitPacked = 4, kDeltaBinaryPacked = 5,
  kDeltaLengthByteArray = 6, kDeltaByteArray = 7, kRleDictionary = 8, kByteStreamSplit = 9,
};
enum class CompressionCodec : int32_t {
  kUncompressed = 0, kSnappy = 1, kGzip = 2, kLzo = 3, kBrotli = 4, kLz4 = 5, kZstd = 6,
  kLz4Raw = 7,
};
enum class PageType : int32_t {
  kDataPage = 0, kIndexPage = 1, kDictionaryPage = 2, kDataPageV2 = 3,
};
enum class TimeUnit : int32_t { kMillis = 1, kMicros = 2, kNanos = 3 };

/// The LogicalType union (parquet.thrift field 10 of SchemaElement): one kind plus its
/// parameters. kNone means the union was absent.
struct LogicalType {
  enum class Kind : int32_t {
    kNone = 0, kString = 1, kMap = 2, kList = 3, kEnum = 4, kDecimal = 5, kDate = 6, kTime = 7,
    kTimestamp = 8, kInteger = 10, kUnknown = 11, kJson = 12, kBson = 13, kUuid = 14,
    kFloat16 = 15,
  };
  Kind kind = Kind::kNone;
  int32_t decimal_scale = 0;       // kDecimal
  int32_t decimal_precision = 0;   // kDecimal
  bool is_adjusted_to_utc = false; // kTime, kTimestamp
  TimeUnit unit = TimeUnit::kMicros;  // kTime, kTimestamp
  int8_t bit_width = 0;            // kInteger
  bool is_signed = true;           // kInteger
};

struct SchemaElement {
  std::optional<PhysicalType> type;              // 1
  std::optional<int32_t> type_length;            // 2
  std::optional<Repetition> repetition_type;     // 3
  std::string name;                              // 4
  std::optional<int32_t> num_children;           // 5
  std::optional<ConvertedType> converted_type;   // 6
  std::optional<int32_t> scale;                  // 7
  std::optional<int32_t> precision;              // 8
  std::optional<int32_t> field_id;               // 9
  LogicalType logical_type;                      // 10 (kind kNone when absent)
};

struct Statistics {
  std::optional<std::string> max;             // 1 (deprecated: signed order only)
  std::optional<std::string> min;             // 2 (deprecated)
  std::optional<int64_t> null_count;          // 3
  std::optional<int64_t> distinct_count;      // 4
  std::optional<std::string> max_value;       // 5
  std::optional<std::string> min_value;       // 6
  std::optional<bool> is_max_value_exact;     // 7
  std::optional<bool> is_min_value_exact;     // 8
};

struct KeyValue {
  std::string key;                   // 1
  std::optional<std::string> value;  // 2
};

struct ColumnMetaData {
  PhysicalType type = PhysicalType::kBoolean;            // 1
  std::vector<Encoding> encodings;                       // 2
  std::vector<std::string> path_in_schema;               // 3
  CompressionCodec codec = CompressionCodec::kUncompressed;  // 4
  int64_t num_values = 0;                                // 5
  int64_t total_uncompressed_size = 0;                   // 6
  int64_t total_compressed_size = 0;                     // 7
  std::vector<KeyValue> key_value_metadata;              // 8
  int64_t data_page_offset = 0;                          // 9
  std::optional<int64_t> index_page_offset;              // 10
  std::optional<int64_t> dictionary_page_offset;         // 11
  std::optional<Statistics> statistics;                  // 12
};

struct ColumnChunk {
  std::optional<std::string> file_path;        // 1
  int64_t file_offset = 0;                     // 2
  std::optional<ColumnMetaData> meta_data;     // 3
};

struct RowGroup {
  std::vector<ColumnChunk> columns;               // 1
  int64_t total_byte_size = 0;                    // 2
  int64_t num_rows = 0;                           // 3
  std::optional<int64_t> file_offset;             // 5
  std::optional<int64_t> total_compressed_size;   // 6
  std::optional<int16_t> ordinal;                 // 7
};

struct FileMetaData {
  int32_t version = 1;                            // 1
  std::vector<SchemaElement> schema;              // 2 (depth-first, root first)
  int64_t num_rows = 0;                           // 3
  std::vector<RowGroup> row_groups;               // 4
  std::vector<KeyValue> key_value_metadata;       // 5
  std::optional<std::string> created_by;          // 6
  /// 7: one entry per leaf column; true = TypeDefinedOrder (the only order defined so far).
  std::vector<bool> column_orders;
};

struct DataPageHeader {
  int32_t num_values = 0;                                  // 1
  Encoding encoding = Encoding::kPlain;                    // 2
  Encoding definition_level_encoding = Encoding::kRle;     // 3
  Encoding repetition_level_encoding = Encoding::kRle;     // 4
  std::optional<Statistics> statistics;                    // 5
};

struct DictionaryPageHeader {
  int32_t num_values = 0;                  // 1
  Encoding encoding = Encoding::kPlain;    // 2
  std::optional<bool> is_sorted;           // 3
};

struct DataPageHeaderV2 {
  int32_t num_values = 0;                          // 1
  int32_t num_nulls = 0;                           // 2
  int32_t num_rows = 0;                            // 3
  Encoding encoding = Encoding::kPlain;            // 4
  int32_t definition_levels_byte_length = 0;       // 5
  int32_t repetition_levels_byte_length = 0;       // 6
  bool is_compressed = true;                       // 7 (default true)
  std::optional<Statistics> statistics;            // 8
};

struct PageHeader {
  PageType type = PageType::kDataPage;                       // 1
  int32_t uncompressed_page_size = 0;                        // 2
  int32_t compressed_page_size = 0;                          // 3
  std::optional<int32_t> crc;                                // 4
  std::optional<DataPageHeader> data_page_header;            // 5
  // 6: index_page_header (empty struct) is skipped.
  std::optional<DictionaryPageHeader> dictionary_page_header;  // 7
  std::optional<DataPageHeaderV2> data_page_header_v2;       // 8
};

/// Hard limits that keep a hostile footer from causing huge allocations or deep recursion.
struct DecodeLimits {
  size_t max_string_bytes = 64u << 20;   ///< One binary/string field (also bounded by input size).
  size_t max_list_elements = 16u << 20;  ///< One list (also bounded by input size).
  int max_struct_depth = 64;             ///< Nested structs (LogicalType, Statistics, ...).
};

/// Decodes a Thrift-compact FileMetaData of exactly `size` bytes. Throws PARQUET_CORRUPT_FILE
/// (path "<footer>"; the caller adds the file as context) on truncated or malformed input.
FileMetaData DecodeFileMetaData(const uint8_t* data, size_t size, const DecodeLimits& limits = {});

/// Decodes a PageHeader at the start of [data, data + size) and stores its encoded length in
/// `*header_size`. Throws PARQUET_CORRUPT_FILE when the header is malformed or does not fit.
PageHeader DecodePageHeader(const uint8_t* data, size_t size, size_t* header_size,
                            const DecodeLimits& limits = {});

/// Appends the Thrift-compact encoding of `metadata` to `out`.
void EncodeFileMetaData(const FileMetaData& metadata, std::string* out);
/// Appends the Thrift-compact encoding of `header` to `out`.
void EncodePageHeader(const PageHeader& header, std::string* out);

}  // namespace silt::parquet
