#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "silt/types/data_type.h"
#include "silt/vector/vector.h"

namespace silt::cdc {

/// A column's PostgreSQL type as the catalog describes it, domains resolved to their base type.
struct PostgresType {
  uint32_t oid = 0;
  int32_t type_modifier = -1;
  char type_type = 'b';         ///< pg_type.typtype: b(ase), e(num), c(omposite), r(ange), ...
  uint32_t element_oid = 0;     ///< arrays: the element's type
  char element_type_type = 'b';
};

/// The Spark type silt stores a PostgreSQL type as (the mapping of Spark's JDBC source, with
/// Debezium's for the types JDBC leaves out): boolean; smallint -> short; integer -> int; bigint
/// and oid -> long; real -> float; double precision -> double; numeric(p, s) -> decimal(p, s)
/// (unconstrained numeric, or p > 38 -> decimal(38, 18)); date; timestamp and timestamptz ->
/// timestamp (UTC); bytea -> binary; one-dimensional arrays of these -> array; everything else
/// (text, varchar, char, uuid, json, jsonb, enums, time, interval, inet, ...) -> string in
/// PostgreSQL's text form.
DataTypePtr SparkTypeOf(const PostgresType& type);

/// Parses values in PostgreSQL's text output form (as pgoutput and SELECT send them, with the
/// session's TimeZone UTC and DateStyle ISO) into a vector of the column's Spark type.
class PostgresValueParser {
 public:
  PostgresValueParser(const PostgresType& type, std::string column_name);
  const DataTypePtr& spark_type() const { return spark_type_; }
  /// Appends `text`. Values the Spark type cannot hold (numeric 'NaN' or 'Infinity',
  /// date/timestamp 'infinity') become NULL; text that is not the type's form throws
  /// CDC_SOURCE_FAILED naming the column.
  void Append(VectorBuilder& builder, std::string_view text) const;

 private:
  void AppendScalar(VectorBuilder& builder, const DataType& type, std::string_view text) const;
  void AppendArray(VectorBuilder& builder, std::string_view text) const;
  [[noreturn]] void ThrowBadValue(std::string_view text) const;

  PostgresType type_;
  std::string column_name_;
  DataTypePtr spark_type_;
};

}  // namespace silt::cdc
