// Decoding of the footer and page headers (parquet.thrift) from the Thrift compact protocol.
// Unknown fields of any type are skipped, so files from newer writers still read.

#include <functional>
#include <string>

#include "silt/parquet/metadata.h"
#include "silt/parquet/thrift_compact_decoder_internal.h"

namespace silt::parquet {
namespace {

using internal::CompactType;
using internal::ThriftCompactDecoder;

// Reads the fields of one struct, handing each (id, type) to `on_field`, which returns false
// for fields it does not know (they are then skipped).
template <typename OnField>
void ReadStruct(ThriftCompactDecoder& decoder, OnField&& on_field) {
  decoder.BeginStruct();
  int16_t id;
  CompactType type;
  while (decoder.ReadFieldHeader(&id, &type)) {
    if (!on_field(id, type)) decoder.Skip(type);
  }
  decoder.EndStruct();
}

template <typename OnElement>
void ReadList(ThriftCompactDecoder& decoder, CompactType type, OnElement&& on_element) {
  CompactType element_type;
  size_t size;
  decoder.ReadListHeader(type, &element_type, &size);
  for (size_t i = 0; i < size; ++i) on_element(element_type);
}

template <typename Enum>
Enum ReadEnum(ThriftCompactDecoder& decoder, CompactType type) {
  return static_cast<Enum>(decoder.ReadI32(type));
}

void ExpectStruct(ThriftCompactDecoder& decoder, CompactType type) {
  if (type != CompactType::kStruct) decoder.Fail("expected a Thrift struct");
}

TimeUnit ReadTimeUnit(ThriftCompactDecoder& decoder, CompactType type) {
  ExpectStruct(decoder, type);
  TimeUnit unit = TimeUnit::kMicros;
  ReadStruct(decoder, [&](int16_t id, CompactType field_type) {
    if (id < 1 || id > 3) return false;
    ExpectStruct(decoder, field_type);
    decoder.Skip(field_type);  // MilliSeconds, MicroSeconds, NanoSeconds are empty structs.
    unit = static_cast<TimeUnit>(id);
    return true;
  });
  return unit;
}

LogicalType ReadLogicalType(ThriftCompactDecoder& decoder, CompactType type) {
  ExpectStruct(decoder, type);
  LogicalType logical;
  ReadStruct(decoder, [&](int16_t id, CompactType field_type) {
    ExpectStruct(decoder, field_type);
    switch (id) {
      case 5:  // DecimalType
        logical.kind = LogicalType::Kind::kDecimal;
        ReadStruct(decoder, [&](int16_t inner, CompactType inner_type) {
          if (inner == 1) {
            logical.decimal_scale = decoder.ReadI32(inner_type);
          } else if (inner == 2) {
            logical.decimal_precision = decoder.ReadI32(inner_type);
          } else {
            return false;
          }
          return true;
        });
        return true;
      case 7:  // TimeType
      case 8:  // TimestampType
        logical.kind = id == 7 ? LogicalType::Kind::kTime : LogicalType::Kind::kTimestamp;
        ReadStruct(decoder, [&](int16_t inner, CompactType inner_type) {
          if (inner == 1) {
            logical.is_adjusted_to_utc = decoder.ReadBool(inner_type, false);
          } else if (inner == 2) {
            logical.unit = ReadTimeUnit(decoder, inner_type);
          } else {
            return false;
          }
          return true;
        });
        return true;
      case 10:  // IntType
        logical.kind = LogicalType::Kind::kInteger;
        ReadStruct(decoder, [&](int16_t inner, CompactType inner_type) {
          if (inner == 1) {
            int64_t width = decoder.ReadI64(inner_type);
            if (width < 0 || width > 64) decoder.Fail("invalid IntType bit width");
            logical.bit_width = static_cast<int8_t>(width);
          } else if (inner == 2) {
            logical.is_signed = decoder.ReadBool(inner_type, false);
          } else {
            return false;
          }
          return true;
        });
        return true;
      case 1:
      case 2:
      case 3:
      case 4:
      case 6:
      case 11:
      case 12:
      case 13:
      case 14:
      case 15:
        // Parameterless kinds: the member is an empty struct.
        logical.kind = static_cast<LogicalType::Kind>(id);
        decoder.Skip(field_type);
        return true;
      default:
        return false;  // A newer logical type: unknown, so the converted type decides.
    }
  });
  return logical;
}

Statistics ReadStatistics(ThriftCompactDecoder& decoder, CompactType type) {
  ExpectStruct(decoder, type);
  Statistics stats;
  ReadStruct(decoder, [&](int16_t id, CompactType field_type) {
    switch (id) {
      case 1:
        stats.max = decoder.ReadBinary(field_type);
        return true;
      case 2:
        stats.min = decoder.ReadBinary(field_type);
        return true;
      case 3:
        stats.null_count = decoder.ReadI64(field_type);
        return true;
      case 4:
        stats.distinct_count = decoder.ReadI64(field_type);
        return true;
      case 5:
        stats.max_value = decoder.ReadBinary(field_type);
        return true;
      case 6:
        stats.min_value = decoder.ReadBinary(field_type);
        return true;
      case 7:
        stats.is_max_value_exact = decoder.ReadBool(field_type, false);
        return true;
      case 8:
        stats.is_min_value_exact = decoder.ReadBool(field_type, false);
        return true;
      default:
        return false;
    }
  });
  return stats;
}

KeyValue ReadKeyValue(ThriftCompactDecoder& decoder, CompactType type) {
  ExpectStruct(decoder, type);
  KeyValue pair;
  ReadStruct(decoder, [&](int16_t id, CompactType field_type) {
    if (id == 1) {
      pair.key = decoder.ReadBinary(field_type);
    } else if (id == 2) {
      pair.value = decoder.ReadBinary(field_type);
    } else {
      return false;
    }
    return true;
  });
  return pair;
}

std::vector<KeyValue> ReadKeyValueList(ThriftCompactDecoder& decoder, CompactType type) {
  std::vector<KeyValue> pairs;
  ReadList(decoder, type,
           [&](CompactType element_type) { pairs.push_back(ReadKeyValue(decoder, element_type)); });
  return pairs;
}

SchemaElement ReadSchemaElement(ThriftCompactDecoder& decoder, CompactType type) {
  ExpectStruct(decoder, type);
  SchemaElement element;
  ReadStruct(decoder, [&](int16_t id, CompactType field_type) {
    switch (id) {
      case 1:
        element.type = ReadEnum<PhysicalType>(decoder, field_type);
        return true;
      case 2:
        element.type_length = decoder.ReadI32(field_type);
        return true;
      case 3: {
        // Outside REQUIRED, OPTIONAL and REPEATED no level can be derived: a damaged footer.
        int32_t repetition = decoder.ReadI32(field_type);
        if (repetition < 0 || repetition > 2) decoder.Fail("invalid repetition type " + std::to_string(repetition));
        element.repetition_type = static_cast<Repetition>(repetition);
        return true;
      }
      case 4:
        element.name = decoder.ReadBinary(field_type);
        return true;
      case 5:
        element.num_children = decoder.ReadI32(field_type);
        return true;
      case 6:
        element.converted_type = ReadEnum<ConvertedType>(decoder, field_type);
        return true;
      case 7:
        element.scale = decoder.ReadI32(field_type);
        return true;
      case 8:
        element.precision = decoder.ReadI32(field_type);
        return true;
      case 9:
        element.field_id = decoder.ReadI32(field_type);
        return true;
      case 10:
        element.logical_type = ReadLogicalType(decoder, field_type);
        return true;
      default:
        return false;
    }
  });
  return element;
}

ColumnMetaData ReadColumnMetaData(ThriftCompactDecoder& decoder, CompactType type) {
  ExpectStruct(decoder, type);
  ColumnMetaData meta;
  ReadStruct(decoder, [&](int16_t id, CompactType field_type) {
    switch (id) {
      case 1:
        meta.type = ReadEnum<PhysicalType>(decoder, field_type);
        return true;
      case 2:
        ReadList(decoder, field_type, [&](CompactType element_type) {
          meta.encodings.push_back(ReadEnum<Encoding>(decoder, element_type));
        });
        return true;
      case 3:
        ReadList(decoder, field_type, [&](CompactType element_type) {
          meta.path_in_schema.push_back(decoder.ReadBinary(element_type));
        });
        return true;
      case 4:
        meta.codec = ReadEnum<CompressionCodec>(decoder, field_type);
        return true;
      case 5:
        meta.num_values = decoder.ReadI64(field_type);
        return true;
      case 6:
        meta.total_uncompressed_size = decoder.ReadI64(field_type);
        return true;
      case 7:
        meta.total_compressed_size = decoder.ReadI64(field_type);
        return true;
      case 8:
        meta.key_value_metadata = ReadKeyValueList(decoder, field_type);
        return true;
      case 9:
        meta.data_page_offset = decoder.ReadI64(field_type);
        return true;
      case 10:
        meta.index_page_offset = decoder.ReadI64(field_type);
        return true;
      case 11:
        meta.dictionary_page_offset = decoder.ReadI64(field_type);
        return true;
      case 12:
        meta.statistics = ReadStatistics(decoder, field_type);
        return true;
      default:
        return false;
    }
  });
  return meta;
}

ColumnChunk ReadColumnChunk(ThriftCompactDecoder& decoder, CompactType type) {
  ExpectStruct(decoder, type);
  ColumnChunk chunk;
  ReadStruct(decoder, [&](int16_t id, CompactType field_type) {
    switch (id) {
      case 1:
        chunk.file_path = decoder.ReadBinary(field_type);
        return true;
      case 2:
        chunk.file_offset = decoder.ReadI64(field_type);
        return true;
      case 3:
        chunk.meta_data = ReadColumnMetaData(decoder, field_type);
        return true;
      default:
        return false;
    }
  });
  return chunk;
}

RowGroup ReadRowGroup(ThriftCompactDecoder& decoder, CompactType type) {
  ExpectStruct(decoder, type);
  RowGroup group;
  bool has_columns = false;
  bool has_num_rows = false;
  ReadStruct(decoder, [&](int16_t id, CompactType field_type) {
    has_columns |= id == 1;
    has_num_rows |= id == 3;
    switch (id) {
      case 1:
        ReadList(decoder, field_type, [&](CompactType element_type) {
          group.columns.push_back(ReadColumnChunk(decoder, element_type));
        });
        return true;
      case 2:
        group.total_byte_size = decoder.ReadI64(field_type);
        return true;
      case 3:
        group.num_rows = decoder.ReadI64(field_type);
        return true;
      case 5:
        group.file_offset = decoder.ReadI64(field_type);
        return true;
      case 6:
        group.total_compressed_size = decoder.ReadI64(field_type);
        return true;
      case 7: {
        int64_t ordinal = decoder.ReadI64(field_type);
        if (ordinal < INT16_MIN || ordinal > INT16_MAX) decoder.Fail("row group ordinal range");
        group.ordinal = static_cast<int16_t>(ordinal);
        return true;
      }
      default:
        return false;
    }
  });
  if (!has_columns || !has_num_rows) decoder.Fail("RowGroup without its columns or num_rows");
  return group;
}

DataPageHeader ReadDataPageHeader(ThriftCompactDecoder& decoder, CompactType type) {
  ExpectStruct(decoder, type);
  DataPageHeader header;
  ReadStruct(decoder, [&](int16_t id, CompactType field_type) {
    switch (id) {
      case 1:
        header.num_values = decoder.ReadI32(field_type);
        return true;
      case 2:
        header.encoding = ReadEnum<Encoding>(decoder, field_type);
        return true;
      case 3:
        header.definition_level_encoding = ReadEnum<Encoding>(decoder, field_type);
        return true;
      case 4:
        header.repetition_level_encoding = ReadEnum<Encoding>(decoder, field_type);
        return true;
      case 5:
        header.statistics = ReadStatistics(decoder, field_type);
        return true;
      default:
        return false;
    }
  });
  return header;
}

DictionaryPageHeader ReadDictionaryPageHeader(ThriftCompactDecoder& decoder, CompactType type) {
  ExpectStruct(decoder, type);
  DictionaryPageHeader header;
  ReadStruct(decoder, [&](int16_t id, CompactType field_type) {
    switch (id) {
      case 1:
        header.num_values = decoder.ReadI32(field_type);
        return true;
      case 2:
        header.encoding = ReadEnum<Encoding>(decoder, field_type);
        return true;
      case 3:
        header.is_sorted = decoder.ReadBool(field_type, false);
        return true;
      default:
        return false;
    }
  });
  return header;
}

DataPageHeaderV2 ReadDataPageHeaderV2(ThriftCompactDecoder& decoder, CompactType type) {
  ExpectStruct(decoder, type);
  DataPageHeaderV2 header;
  ReadStruct(decoder, [&](int16_t id, CompactType field_type) {
    switch (id) {
      case 1:
        header.num_values = decoder.ReadI32(field_type);
        return true;
      case 2:
        header.num_nulls = decoder.ReadI32(field_type);
        return true;
      case 3:
        header.num_rows = decoder.ReadI32(field_type);
        return true;
      case 4:
        header.encoding = ReadEnum<Encoding>(decoder, field_type);
        return true;
      case 5:
        header.definition_levels_byte_length = decoder.ReadI32(field_type);
        return true;
      case 6:
        header.repetition_levels_byte_length = decoder.ReadI32(field_type);
        return true;
      case 7:
        header.is_compressed = decoder.ReadBool(field_type, false);
        return true;
      case 8:
        header.statistics = ReadStatistics(decoder, field_type);
        return true;
      default:
        return false;
    }
  });
  return header;
}

}  // namespace

FileMetaData DecodeFileMetaData(const uint8_t* data, size_t size, const DecodeLimits& limits) {
  ThriftCompactDecoder decoder(data, size, limits);
  FileMetaData metadata;
  // The required fields (version, schema, num_rows, row_groups) seen: a damaged field header
  // would otherwise be skipped as an unknown field and leave, say, no row groups at all.
  unsigned required_seen = 0;
  ReadStruct(decoder, [&](int16_t id, CompactType type) {
    if (id >= 1 && id <= 4) required_seen |= 1u << id;
    switch (id) {
      case 1:
        metadata.version = decoder.ReadI32(type);
        return true;
      case 2:
        ReadList(decoder, type, [&](CompactType element_type) {
          metadata.schema.push_back(ReadSchemaElement(decoder, element_type));
        });
        return true;
      case 3:
        metadata.num_rows = decoder.ReadI64(type);
        return true;
      case 4:
        ReadList(decoder, type, [&](CompactType element_type) {
          metadata.row_groups.push_back(ReadRowGroup(decoder, element_type));
        });
        return true;
      case 5:
        metadata.key_value_metadata = ReadKeyValueList(decoder, type);
        return true;
      case 6:
        metadata.created_by = decoder.ReadBinary(type);
        return true;
      case 7:
        ReadList(decoder, type, [&](CompactType element_type) {
          // ColumnOrder is a union whose only member so far is TYPE_ORDER (field 1).
          ExpectStruct(decoder, element_type);
          bool type_defined = false;
          ReadStruct(decoder, [&](int16_t member, CompactType member_type) {
            if (member == 1) type_defined = true;
            return false;
          });
          metadata.column_orders.push_back(type_defined);
        });
        return true;
      default:
        return false;
    }
  });
  if (metadata.version < 0) decoder.Fail("negative file version");
  for (int id = 1; id <= 4; ++id) {
    if ((required_seen & (1u << id)) == 0) {
      static constexpr const char* kNames[] = {"", "version", "schema", "num_rows", "row_groups"};
      decoder.Fail(std::string("FileMetaData without its required field ") + kNames[id]);
    }
  }
  return metadata;
}

PageHeader DecodePageHeader(const uint8_t* data, size_t size, size_t* header_size,
                            const DecodeLimits& limits) {
  ThriftCompactDecoder decoder(data, size, limits);
  PageHeader header;
  ReadStruct(decoder, [&](int16_t id, CompactType type) {
    switch (id) {
      case 1:
        header.type = ReadEnum<PageType>(decoder, type);
        return true;
      case 2:
        header.uncompressed_page_size = decoder.ReadI32(type);
        return true;
      case 3:
        header.compressed_page_size = decoder.ReadI32(type);
        return true;
      case 4:
        header.crc = decoder.ReadI32(type);
        return true;
      case 5:
        header.data_page_header = ReadDataPageHeader(decoder, type);
        return true;
      case 7:
        header.dictionary_page_header = ReadDictionaryPageHeader(decoder, type);
        return true;
      case 8:
        header.data_page_header_v2 = ReadDataPageHeaderV2(decoder, type);
        return true;
      default:
        return false;
    }
  });
  if (header.uncompressed_page_size < 0 || header.compressed_page_size < 0) {
    decoder.Fail("negative page size");
  }
  *header_size = decoder.consumed();
  return header;
}

}  // namespace silt::parquet
