// Thrift-compact encoding of the footer and page headers. Field ids and types follow
// apache/parquet-format's parquet.thrift; optional fields are written only when set.

#include <string>

#include "silt/parquet/metadata.h"
#include "silt/parquet/thrift_compact_encoder_internal.h"

namespace silt::parquet {
namespace {

using internal::CompactType;
using internal::ThriftCompactEncoder;

void EncodeStatistics(ThriftCompactEncoder& encoder, const Statistics& statistics) {
  encoder.BeginStruct();
  if (statistics.max) encoder.BinaryField(1, *statistics.max);
  if (statistics.min) encoder.BinaryField(2, *statistics.min);
  if (statistics.null_count) encoder.I64Field(3, *statistics.null_count);
  if (statistics.distinct_count) encoder.I64Field(4, *statistics.distinct_count);
  if (statistics.max_value) encoder.BinaryField(5, *statistics.max_value);
  if (statistics.min_value) encoder.BinaryField(6, *statistics.min_value);
  if (statistics.is_max_value_exact) encoder.BoolField(7, *statistics.is_max_value_exact);
  if (statistics.is_min_value_exact) encoder.BoolField(8, *statistics.is_min_value_exact);
  encoder.EndStruct();
}

void EncodeKeyValues(ThriftCompactEncoder& encoder, int16_t field_id,
                     const std::vector<KeyValue>& key_values) {
  encoder.ListField(field_id, CompactType::kStruct, key_values.size());
  for (const KeyValue& key_value : key_values) {
    encoder.BeginStruct();
    encoder.BinaryField(1, key_value.key);
    if (key_value.value) encoder.BinaryField(2, *key_value.value);
    encoder.EndStruct();
  }
}

// An empty struct as the value of a union member (TimeUnit, StringType, ...).
void EmptyStructField(ThriftCompactEncoder& encoder, int16_t field_id) {
  encoder.StructField(field_id);
  encoder.EndStruct();
}

void EncodeTimeUnit(ThriftCompactEncoder& encoder, int16_t field_id, TimeUnit unit) {
  encoder.StructField(field_id);
  EmptyStructField(encoder, static_cast<int16_t>(unit));
  encoder.EndStruct();
}

void EncodeLogicalType(ThriftCompactEncoder& encoder, const LogicalType& logical_type) {
  using Kind = LogicalType::Kind;
  encoder.StructField(10);
  auto member = static_cast<int16_t>(logical_type.kind);
  switch (logical_type.kind) {
    case Kind::kDecimal:
      encoder.StructField(member);
      encoder.I32Field(1, logical_type.decimal_scale);
      encoder.I32Field(2, logical_type.decimal_precision);
      encoder.EndStruct();
      break;
    case Kind::kTime:
    case Kind::kTimestamp:
      encoder.StructField(member);
      encoder.BoolField(1, logical_type.is_adjusted_to_utc);
      EncodeTimeUnit(encoder, 2, logical_type.unit);
      encoder.EndStruct();
      break;
    case Kind::kInteger:
      encoder.StructField(member);
      encoder.I8Field(1, logical_type.bit_width);
      encoder.BoolField(2, logical_type.is_signed);
      encoder.EndStruct();
      break;
    default:
      // Every other member is an empty struct.
      EmptyStructField(encoder, member);
      break;
  }
  encoder.EndStruct();
}

void EncodeSchemaElement(ThriftCompactEncoder& encoder, const SchemaElement& element) {
  encoder.BeginStruct();
  if (element.type) encoder.I32Field(1, static_cast<int32_t>(*element.type));
  if (element.type_length) encoder.I32Field(2, *element.type_length);
  if (element.repetition_type) encoder.I32Field(3, static_cast<int32_t>(*element.repetition_type));
  encoder.BinaryField(4, element.name);
  if (element.num_children) encoder.I32Field(5, *element.num_children);
  if (element.converted_type) encoder.I32Field(6, static_cast<int32_t>(*element.converted_type));
  if (element.scale) encoder.I32Field(7, *element.scale);
  if (element.precision) encoder.I32Field(8, *element.precision);
  if (element.field_id) encoder.I32Field(9, *element.field_id);
  if (element.logical_type.kind != LogicalType::Kind::kNone) {
    EncodeLogicalType(encoder, element.logical_type);
  }
  encoder.EndStruct();
}

void EncodeColumnMetaData(ThriftCompactEncoder& encoder, const ColumnMetaData& column) {
  encoder.BeginStruct();
  encoder.I32Field(1, static_cast<int32_t>(column.type));
  encoder.ListField(2, CompactType::kI32, column.encodings.size());
  for (Encoding encoding : column.encodings) encoder.I32(static_cast<int32_t>(encoding));
  encoder.ListField(3, CompactType::kBinary, column.path_in_schema.size());
  for (const std::string& part : column.path_in_schema) encoder.Binary(part);
  encoder.I32Field(4, static_cast<int32_t>(column.codec));
  encoder.I64Field(5, column.num_values);
  encoder.I64Field(6, column.total_uncompressed_size);
  encoder.I64Field(7, column.total_compressed_size);
  if (!column.key_value_metadata.empty()) EncodeKeyValues(encoder, 8, column.key_value_metadata);
  encoder.I64Field(9, column.data_page_offset);
  if (column.index_page_offset) encoder.I64Field(10, *column.index_page_offset);
  if (column.dictionary_page_offset) encoder.I64Field(11, *column.dictionary_page_offset);
  if (column.statistics) {
    encoder.FieldHeader(12, CompactType::kStruct);
    EncodeStatistics(encoder, *column.statistics);
  }
  encoder.EndStruct();
}

void EncodeRowGroup(ThriftCompactEncoder& encoder, const RowGroup& row_group) {
  encoder.BeginStruct();
  encoder.ListField(1, CompactType::kStruct, row_group.columns.size());
  for (const ColumnChunk& chunk : row_group.columns) {
    encoder.BeginStruct();
    if (chunk.file_path) encoder.BinaryField(1, *chunk.file_path);
    encoder.I64Field(2, chunk.file_offset);
    if (chunk.meta_data) {
      encoder.FieldHeader(3, CompactType::kStruct);
      EncodeColumnMetaData(encoder, *chunk.meta_data);
    }
    encoder.EndStruct();
  }
  encoder.I64Field(2, row_group.total_byte_size);
  encoder.I64Field(3, row_group.num_rows);
  if (row_group.file_offset) encoder.I64Field(5, *row_group.file_offset);
  if (row_group.total_compressed_size) encoder.I64Field(6, *row_group.total_compressed_size);
  if (row_group.ordinal) encoder.I16Field(7, *row_group.ordinal);
  encoder.EndStruct();
}

}  // namespace

void EncodeFileMetaData(const FileMetaData& metadata, std::string* out) {
  ThriftCompactEncoder encoder(out);
  encoder.BeginStruct();
  encoder.I32Field(1, metadata.version);
  encoder.ListField(2, CompactType::kStruct, metadata.schema.size());
  for (const SchemaElement& element : metadata.schema) EncodeSchemaElement(encoder, element);
  encoder.I64Field(3, metadata.num_rows);
  encoder.ListField(4, CompactType::kStruct, metadata.row_groups.size());
  for (const RowGroup& row_group : metadata.row_groups) EncodeRowGroup(encoder, row_group);
  if (!metadata.key_value_metadata.empty()) {
    EncodeKeyValues(encoder, 5, metadata.key_value_metadata);
  }
  if (metadata.created_by) encoder.BinaryField(6, *metadata.created_by);
  if (!metadata.column_orders.empty()) {
    encoder.ListField(7, CompactType::kStruct, metadata.column_orders.size());
    for (bool type_defined : metadata.column_orders) {
      // ColumnOrder is a union whose only member so far is TYPE_ORDER (1, an empty struct); an
      // entry without it is an empty union, i.e. an unknown order.
      encoder.BeginStruct();
      if (type_defined) EmptyStructField(encoder, 1);
      encoder.EndStruct();
    }
  }
  encoder.EndStruct();
}

void EncodePageHeader(const PageHeader& header, std::string* out) {
  ThriftCompactEncoder encoder(out);
  encoder.BeginStruct();
  encoder.I32Field(1, static_cast<int32_t>(header.type));
  encoder.I32Field(2, header.uncompressed_page_size);
  encoder.I32Field(3, header.compressed_page_size);
  if (header.crc) encoder.I32Field(4, *header.crc);
  if (header.data_page_header) {
    const DataPageHeader& page = *header.data_page_header;
    encoder.StructField(5);
    encoder.I32Field(1, page.num_values);
    encoder.I32Field(2, static_cast<int32_t>(page.encoding));
    encoder.I32Field(3, static_cast<int32_t>(page.definition_level_encoding));
    encoder.I32Field(4, static_cast<int32_t>(page.repetition_level_encoding));
    if (page.statistics) {
      encoder.FieldHeader(5, CompactType::kStruct);
      EncodeStatistics(encoder, *page.statistics);
    }
    encoder.EndStruct();
  }
  if (header.dictionary_page_header) {
    const DictionaryPageHeader& page = *header.dictionary_page_header;
    encoder.StructField(7);
    encoder.I32Field(1, page.num_values);
    encoder.I32Field(2, static_cast<int32_t>(page.encoding));
    if (page.is_sorted) encoder.BoolField(3, *page.is_sorted);
    encoder.EndStruct();
  }
  if (header.data_page_header_v2) {
    const DataPageHeaderV2& page = *header.data_page_header_v2;
    encoder.StructField(8);
    encoder.I32Field(1, page.num_values);
    encoder.I32Field(2, page.num_nulls);
    encoder.I32Field(3, page.num_rows);
    encoder.I32Field(4, static_cast<int32_t>(page.encoding));
    encoder.I32Field(5, page.definition_levels_byte_length);
    encoder.I32Field(6, page.repetition_levels_byte_length);
    encoder.BoolField(7, page.is_compressed);
    if (page.statistics) {
      encoder.FieldHeader(8, CompactType::kStruct);
      EncodeStatistics(encoder, *page.statistics);
    }
    encoder.EndStruct();
  }
  encoder.EndStruct();
}

}  // namespace silt::parquet
