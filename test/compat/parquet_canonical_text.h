#pragma once

// A canonical text form of every value, produced twice: by silt from its vectors and by DuckDB
// from the same Parquet file through a generated SQL expression. Equal text means equal values:
// integers and decimals in decimal digits, floats with 17 significant digits (exact for doubles),
// dates as days and timestamps as microseconds since the epoch, strings and binary in hex, and
// nested values in brackets. NULL is "N" at every level.

#include <cinttypes>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "silt/vector/batch.h"
#include "support/duckdb_peer.h"

namespace silt::test {

inline std::string HexOf(std::string_view bytes) {
  static const char kDigits[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

inline std::string DecimalText(Decimal128 value, int scale) {
  bool negative = value < 0;
  unsigned __int128 magnitude =
      negative ? -static_cast<unsigned __int128>(value) : static_cast<unsigned __int128>(value);
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(magnitude % 10)));
    magnitude /= 10;
  } while (magnitude != 0);
  if (scale > 0) {
    while (static_cast<int>(digits.size()) <= scale) digits.insert(digits.begin(), '0');
    digits.insert(digits.end() - scale, '.');
  }
  return negative ? "-" + digits : digits;
}

inline std::string DoubleText(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.17g", value);
  return buffer;
}

/// Special leaf kinds whose silt type does not say how DuckDB sees them.
enum class PeerLeafKind { kDefault, kTime, kUuid };

/// The canonical text of row `row` of `vector`.
inline std::string CanonicalValue(const Vector& vector, int64_t row) {
  if (vector.IsNull(row)) return "N";
  const DataType& type = *vector.type();
  switch (type.id()) {
    case TypeId::kNull:
    case TypeId::kYearMonthInterval:  // not a Parquet column type
    case TypeId::kDayTimeInterval:
      return "N";
    case TypeId::kBoolean:
      return vector.GetBool(row) ? "T" : "F";
    case TypeId::kByte:
      return std::to_string(vector.values<int8_t>()[row]);
    case TypeId::kShort:
      return std::to_string(vector.values<int16_t>()[row]);
    case TypeId::kInteger:
      return std::to_string(vector.values<int32_t>()[row]);
    case TypeId::kDate:
      return std::to_string(vector.values<int32_t>()[row]);
    case TypeId::kLong:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      return std::to_string(vector.values<int64_t>()[row]);
    case TypeId::kFloat:
      return DoubleText(vector.values<float>()[row]);
    case TypeId::kDouble:
      return DoubleText(vector.values<double>()[row]);
    case TypeId::kDecimal:
      return DecimalText(vector.values<Decimal128>()[row], type.scale());
    case TypeId::kString:
    case TypeId::kBinary:
      return "x" + HexOf(vector.GetString(row));
    case TypeId::kStruct: {
      std::string out = "{";
      for (size_t i = 0; i < vector.children().size(); ++i) {
        if (i > 0) out += ";";
        out += CanonicalValue(*vector.child(i), vector.offset() + row);
      }
      return out + "}";
    }
    case TypeId::kList: {
      std::string out = "[";
      int32_t start = vector.ListStart(row);
      for (int32_t i = 0; i < vector.ListLength(row); ++i) {
        if (i > 0) out += ";";
        out += CanonicalValue(*vector.child(0), start + i);
      }
      return out + "]";
    }
    case TypeId::kMap: {
      std::string out = "{";
      int32_t start = vector.ListStart(row);
      const Vector& entries = *vector.child(0);
      for (int32_t i = 0; i < vector.ListLength(row); ++i) {
        if (i > 0) out += ";";
        out += CanonicalValue(*entries.child(0), entries.offset() + start + i) + ":" +
               CanonicalValue(*entries.child(1), entries.offset() + start + i);
      }
      return out + "}";
    }
  }
  return "?";
}

/// The DuckDB SQL expression giving the canonical text of `expression` of silt type `type`.
inline std::string CanonicalSql(const std::string& expression, const DataType& type,
                                PeerLeafKind kind = PeerLeafKind::kDefault) {
  std::string e = expression;
  std::string inner;
  switch (type.id()) {
    case TypeId::kNull:
    case TypeId::kYearMonthInterval:  // not a Parquet column type
    case TypeId::kDayTimeInterval:
      return "'N'";
    case TypeId::kBoolean:
      inner = "CASE WHEN " + e + " THEN 'T' WHEN NOT " + e + " THEN 'F' END";
      break;
    case TypeId::kByte:
    case TypeId::kShort:
    case TypeId::kInteger:
    case TypeId::kDecimal:
      inner = "CAST(" + e + " AS VARCHAR)";
      break;
    case TypeId::kLong:
      inner = kind == PeerLeafKind::kTime ? "CAST(epoch_us(" + e + ") AS VARCHAR)"
                                          : "CAST(" + e + " AS VARCHAR)";
      break;
    case TypeId::kDate:
      inner = "CAST(" + e + " - DATE '1970-01-01' AS VARCHAR)";
      break;
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      inner = "CAST(epoch_us(" + e + ") AS VARCHAR)";
      break;
    case TypeId::kFloat:
    case TypeId::kDouble:
      inner = "printf('%.17g', CAST(" + e + " AS DOUBLE))";
      break;
    case TypeId::kString:
      inner = "'x' || hex(CAST(" + e + " AS VARCHAR))";
      break;
    case TypeId::kBinary:
      inner = kind == PeerLeafKind::kUuid
                  ? "'x' || replace(upper(CAST(" + e + " AS VARCHAR)), '-', '')"
                  : "'x' || hex(" + e + ")";
      break;
    case TypeId::kStruct: {
      inner = "'{'";
      for (size_t i = 0; i < type.fields().size(); ++i) {
        if (i > 0) inner += " || ';'";
        inner += " || " +
                 CanonicalSql("struct_extract(" + e + ", " + SqlQuote(type.fields()[i].name) + ")",
                              *type.fields()[i].type);
      }
      inner += " || '}'";
      // The field texts are never NULL, so a NULL struct has to be caught before them.
      inner = "CASE WHEN " + e + " IS NULL THEN NULL ELSE " + inner + " END";
      break;
    }
    case TypeId::kList:
      inner = "'[' || array_to_string(list_transform(" + e + ", lambda_x -> " +
              CanonicalSql("lambda_x", *type.element_type()) + "), ';') || ']'";
      break;
    case TypeId::kMap:
      inner = "'{' || array_to_string(list_transform(map_entries(" + e + "), lambda_e -> " +
              CanonicalSql("lambda_e.key", *type.key_type()) + " || ':' || " +
              CanonicalSql("lambda_e.value", *type.value_type()) + "), ';') || '}'";
      break;
  }
  return "coalesce(" + inner + ", 'N')";
}

inline std::string QuoteIdentifier(const std::string& name) {
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

/// Canonical rows of `batches`: one string per row, columns joined by '|'.
inline std::vector<std::string> CanonicalRows(const std::vector<Batch>& batches) {
  std::vector<std::string> rows;
  for (const Batch& batch : batches) {
    for (int64_t r = 0; r < batch.num_rows(); ++r) {
      std::string row;
      for (size_t c = 0; c < batch.num_columns(); ++c) {
        if (c > 0) row += "|";
        row += CanonicalValue(*batch.column(c), r);
      }
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

/// DuckDB's canonical rows of the Parquet files at `paths` (one schema), in file order, for the
/// silt schema `schema` (kinds: per top-level column, how DuckDB types it where silt's type is
/// ambiguous).
inline std::vector<std::string> PeerCanonicalRows(const std::vector<std::string>& paths,
                                                  const Schema& schema,
                                                  const std::vector<PeerLeafKind>& kinds = {}) {
  std::string select;
  for (size_t i = 0; i < schema.num_fields(); ++i) {
    if (i > 0) select += " || '|' || ";
    PeerLeafKind kind = i < kinds.size() ? kinds[i] : PeerLeafKind::kDefault;
    select += CanonicalSql(QuoteIdentifier(schema.field(i).name), *schema.field(i).type, kind);
  }
  if (select.empty()) select = "''";
  std::string list = "[";
  for (size_t i = 0; i < paths.size(); ++i) list += (i > 0 ? ", " : "") + SqlQuote(paths[i]);
  list += "]";
  // Files in the order given, rows in file order.
  std::string order = "CASE filename";
  for (size_t i = 0; i < paths.size(); ++i) {
    order += " WHEN " + SqlQuote(paths[i]) + " THEN " + std::to_string(i);
  }
  order += " END";
  std::string sql = "SELECT " + select + " AS row_text FROM read_parquet(" + list +
                    ", filename = true, file_row_number = true, hive_partitioning = false,"
                    " binary_as_string = false, union_by_name = false) ORDER BY " +
                    order + ", file_row_number";
  std::string out = RunDuckDb({"SET threads = 1", sql}, "csv");
  std::vector<std::string> rows;
  std::istringstream lines(out);
  std::string line;
  bool header = true;
  while (std::getline(lines, line)) {
    if (header) {
      header = false;
      continue;
    }
    // Canonical text holds no comma, quote or newline, so CSV leaves it unquoted.
    rows.push_back(line);
  }
  return rows;
}

}  // namespace silt::test
