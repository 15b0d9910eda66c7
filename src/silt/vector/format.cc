// Text renderings of batches: Spark's show() table, CSV and JSON Lines.

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "silt/base/check.h"
#include "silt/base/json_writer.h"
#include "silt/vector/batch.h"
#include "silt/vector/show_table_writer.h"
#include "silt/vector/value_text.h"

namespace silt {
namespace {

// Number of UTF-8 code points: every byte that is not a continuation byte starts one.
size_t CodePointCount(std::string_view text) {
  size_t count = 0;
  for (char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++count;
  }
  return count;
}

// The first `count` code points of `text`.
std::string_view CodePointPrefix(std::string_view text, size_t count) {
  size_t seen = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
      if (seen == count) return text.substr(0, i);
      ++seen;
    }
  }
  return text;
}

// Spark's SchemaUtils.escapeMetaCharacters: control characters would break the table layout.
std::string EscapeMetaCharacters(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\v':
        out += "\\v";
        break;
      case '\a':
        out += "\\a";
        break;
      default:
        out += c;
        break;
    }
  }
  return out;
}

// The schema shared by `batches`, or nullptr when there is none.
const Schema* CommonSchema(const std::vector<Batch>& batches) {
  for (const Batch& batch : batches) {
    if (batch.schema()) return batch.schema().get();
  }
  return nullptr;
}

void WriteJsonValue(JsonWriter& json, const Vector& vector, int64_t row) {
  if (vector.IsNull(row)) {
    json.Null();
    return;
  }
  switch (vector.type_id()) {
    case TypeId::kNull:
      json.Null();
      return;
    case TypeId::kBoolean:
      json.Bool(vector.GetBool(row));
      return;
    case TypeId::kByte:
      json.Int(vector.values<int8_t>()[row]);
      return;
    case TypeId::kShort:
      json.Int(vector.values<int16_t>()[row]);
      return;
    case TypeId::kInteger:
      json.Int(vector.values<int32_t>()[row]);
      return;
    case TypeId::kLong:
      json.Int(vector.values<int64_t>()[row]);
      return;
    case TypeId::kFloat:
    case TypeId::kDouble: {
      // Java's text form is a valid JSON number for finite values ("1.0E-4"); NaN and the
      // infinities become strings, as Spark's Jackson writes them.
      double value = vector.type_id() == TypeId::kFloat ? vector.values<float>()[row]
                                                        : vector.values<double>()[row];
      std::string text = vector.ValueToString(row);
      if (std::isfinite(value)) {
        json.Raw(text);
      } else {
        json.String(text);
      }
      return;
    }
    case TypeId::kDecimal:
      json.Raw(FormatDecimal(vector.values<Decimal128>()[row], vector.type()->scale()));
      return;
    case TypeId::kDate:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kString:
    case TypeId::kYearMonthInterval:
    case TypeId::kDayTimeInterval:
      json.String(vector.ValueToString(row));
      return;
    case TypeId::kBinary:
      json.String(EncodeBase64(vector.GetString(row)));
      return;
    case TypeId::kStruct: {
      json.BeginObject();
      const std::vector<Field>& fields = vector.type()->fields();
      for (size_t f = 0; f < fields.size(); ++f) {
        json.Key(fields[f].name);
        WriteJsonValue(json, *vector.child(f), vector.offset() + row);
      }
      json.EndObject();
      return;
    }
    case TypeId::kList: {
      json.BeginArray();
      int32_t start = vector.ListStart(row);
      for (int32_t k = 0; k < vector.ListLength(row); ++k) {
        WriteJsonValue(json, *vector.child(0), start + k);
      }
      json.EndArray();
      return;
    }
    case TypeId::kMap: {
      json.BeginObject();
      const Vector& entries = *vector.child(0);
      int32_t start = vector.ListStart(row);
      for (int32_t k = 0; k < vector.ListLength(row); ++k) {
        int64_t entry = entries.offset() + start + k;
        json.Key(entries.child(0)->ValueToString(entry));
        WriteJsonValue(json, *entries.child(1), entry);
      }
      json.EndObject();
      return;
    }
  }
}

void AppendCsvField(std::string& out, std::string_view text, bool force_quotes) {
  bool needs_quotes = force_quotes || text.find_first_of(",\"\r\n") != std::string_view::npos;
  if (!needs_quotes) {
    out += text;
    return;
  }
  out += '"';
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

// A value as a show() cell: escaped, and cut to `truncate` characters (0: never) as Spark cuts.
std::string ShowCell(const Vector& vector, int64_t row, int truncate) {
  std::string cell = EscapeMetaCharacters(vector.ValueToString(row));
  size_t length = CodePointCount(cell);
  if (truncate > 0 && length > static_cast<size_t>(truncate)) {
    // Spark shows no ellipsis when the limit is under four characters.
    if (truncate < 4) return std::string(CodePointPrefix(cell, static_cast<size_t>(truncate)));
    return std::string(CodePointPrefix(cell, static_cast<size_t>(truncate - 3))) + "...";
  }
  return cell;
}

// Appends one line of show()'s table: cells padded to `widths` (right-aligned when
// truncate > 0); a cell wider than its column is written whole.
void AppendShowLine(std::string& out, const std::vector<std::string>& cells,
                    const std::vector<size_t>& widths, int truncate) {
  out += '|';
  for (size_t c = 0; c < cells.size(); ++c) {
    if (c > 0) out += '|';
    size_t length = CodePointCount(cells[c]);
    size_t padding = widths[c] > length ? widths[c] - length : 0;
    if (truncate > 0) {
      out.append(padding, ' ');
      out += cells[c];
    } else {
      out += cells[c];
      out.append(padding, ' ');
    }
  }
  out += "|\n";
}

// show()'s border line for `widths`, as Scala's addString lays it out: "++" without columns.
std::string ShowBorder(const std::vector<size_t>& widths) {
  std::string border = "+";
  for (size_t c = 0; c < widths.size(); ++c) {
    if (c > 0) border += '+';
    border.append(widths[c], '-');
  }
  return border + "+\n";
}

}  // namespace

ShowTableWriter::ShowTableWriter(const std::vector<Batch>& first, int truncate)
    : truncate_(truncate) {
  const Schema* schema = CommonSchema(first);
  size_t num_columns = schema ? schema->num_fields() : 0;
  for (size_t c = 0; c < num_columns; ++c) {
    header_.push_back(EscapeMetaCharacters(schema->field(c).name));
    widths_.push_back(std::max<size_t>(3, CodePointCount(header_.back())));
  }
  for (const Batch& batch : first) {
    for (int64_t r = 0; r < batch.num_rows(); ++r) {
      for (size_t c = 0; c < num_columns; ++c) {
        widths_[c] = std::max(widths_[c], CodePointCount(ShowCell(*batch.column(c), r, truncate)));
      }
    }
  }
}

std::string ShowTableWriter::Header() const {
  std::string out = ShowBorder(widths_);
  AppendShowLine(out, header_, widths_, truncate_);
  return out + ShowBorder(widths_);
}

std::string ShowTableWriter::Rows(const Batch& batch) const {
  std::string out;
  std::vector<std::string> cells(widths_.size());
  for (int64_t r = 0; r < batch.num_rows(); ++r) {
    for (size_t c = 0; c < cells.size(); ++c) cells[c] = ShowCell(*batch.column(c), r, truncate_);
    AppendShowLine(out, cells, widths_, truncate_);
  }
  return out;
}

std::string ShowTableWriter::Footer() const { return ShowBorder(widths_); }

std::string FormatShow(const std::vector<Batch>& batches, const ShowOptions& options) {
  const Schema* schema = CommonSchema(batches);
  size_t num_columns = schema ? schema->num_fields() : 0;
  int64_t max_rows = std::max<int64_t>(options.max_rows, 0);
  int truncate = options.truncate;

  // Header plus at most max_rows rows of cells; one row more tells whether rows were left out.
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header;
  for (size_t c = 0; c < num_columns; ++c)
    header.push_back(EscapeMetaCharacters(schema->field(c).name));
  rows.push_back(std::move(header));
  bool has_more = false;
  for (const Batch& batch : batches) {
    for (int64_t r = 0; r < batch.num_rows(); ++r) {
      if (static_cast<int64_t>(rows.size()) - 1 >= max_rows) {
        has_more = true;
        break;
      }
      std::vector<std::string> cells;
      cells.reserve(num_columns);
      for (size_t c = 0; c < num_columns; ++c) {
        std::string cell = EscapeMetaCharacters(batch.column(c)->ValueToString(r));
        size_t length = CodePointCount(cell);
        if (truncate > 0 && length > static_cast<size_t>(truncate)) {
          // Spark shows no ellipsis when the limit is under four characters.
          if (truncate < 4) {
            cell = std::string(CodePointPrefix(cell, static_cast<size_t>(truncate)));
          } else {
            cell = std::string(CodePointPrefix(cell, static_cast<size_t>(truncate - 3))) + "...";
          }
        }
        cells.push_back(std::move(cell));
      }
      rows.push_back(std::move(cells));
    }
    if (has_more) break;
  }

  std::vector<size_t> widths(num_columns, 3);
  for (const auto& row : rows) {
    for (size_t c = 0; c < num_columns; ++c)
      widths[c] = std::max(widths[c], CodePointCount(row[c]));
  }
  // Laid out as Scala's addString(start, separator, end): "++" even without columns.
  std::string separator = "+";
  for (size_t c = 0; c < num_columns; ++c) {
    if (c > 0) separator += '+';
    separator.append(widths[c], '-');
  }
  separator += "+\n";

  std::string out;
  auto append_row = [&](const std::vector<std::string>& row) {
    out += '|';
    for (size_t c = 0; c < num_columns; ++c) {
      if (c > 0) out += '|';
      size_t padding = widths[c] - CodePointCount(row[c]);
      if (truncate > 0) {
        out.append(padding, ' ');
        out += row[c];
      } else {
        out += row[c];
        out.append(padding, ' ');
      }
    }
    out += "|\n";
  };
  out += separator;
  append_row(rows[0]);
  out += separator;
  for (size_t r = 1; r < rows.size(); ++r) append_row(rows[r]);
  out += separator;
  if (has_more) {
    out += "only showing top " + std::to_string(max_rows) + (max_rows == 1 ? " row\n" : " rows\n");
  }
  return out;
}

std::string FormatCsv(const std::vector<Batch>& batches, bool header) {
  const Schema* schema = CommonSchema(batches);
  if (schema == nullptr) return "";
  std::string out;
  size_t num_columns = schema->num_fields();
  if (header) {
    for (size_t c = 0; c < num_columns; ++c) {
      if (c > 0) out += ',';
      AppendCsvField(out, schema->field(c).name, false);
    }
    out += '\n';
  }
  for (const Batch& batch : batches) {
    for (int64_t r = 0; r < batch.num_rows(); ++r) {
      for (size_t c = 0; c < num_columns; ++c) {
        if (c > 0) out += ',';
        const Vector& column = *batch.column(c);
        if (column.IsNull(r)) continue;  // NULL is an empty, unquoted field
        if (column.type()->is_nested()) {
          JsonWriter json;
          WriteJsonValue(json, column, r);
          AppendCsvField(out, json.str(), false);
        } else {
          std::string text = column.ValueToString(r);
          // An empty string is quoted so that it differs from NULL (Spark's default emptyValue).
          AppendCsvField(out, text, text.empty());
        }
      }
      out += '\n';
    }
  }
  return out;
}

std::string FormatJsonLines(const std::vector<Batch>& batches) {
  std::string out;
  for (const Batch& batch : batches) {
    if (!batch.schema()) continue;  // a default-constructed batch has no rows
    const Schema& schema = *batch.schema();
    for (int64_t r = 0; r < batch.num_rows(); ++r) {
      JsonWriter json;
      json.BeginObject();
      for (size_t c = 0; c < schema.num_fields(); ++c) {
        json.Key(schema.field(c).name);
        WriteJsonValue(json, *batch.column(c), r);
      }
      json.EndObject();
      out += json.str();
      out += '\n';
    }
  }
  return out;
}

}  // namespace silt
