#include "silt/exec/text_format.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>

#include "silt/base/check.h"
#include "silt/base/json_writer.h"
#include "silt/expr/json_text.h"
#include "silt/io/file_system.h"
#include "silt/io/path.h"
#include "silt/vector/vector.h"

namespace silt::exec {
namespace {

// Bad records are quoted in messages; a whole megabyte of one line helps nobody.
std::string ShortenForMessage(std::string_view text) {
  constexpr size_t kMaxQuoted = 200;
  if (text.size() <= kMaxQuoted) return std::string(text);
  return std::string(text.substr(0, kMaxQuoted)) + "...";
}

[[noreturn]] void ThrowMalformed(std::string_view record, const std::string& message) {
  SILT_THROW(MALFORMED_RECORD_IN_PARSING,
             {{"badRecord", ShortenForMessage(record)}, {"message", message}});
}

// A JSON document as silt's own files keep it: the expression layer's parser with Jackson's
// strict defaults, its numbers read as 64-bit integers where they fit, doubles otherwise.
JsonValue ToJsonValue(expr::JsonNode&& node) {
  JsonValue value;
  switch (node.kind) {
    case expr::JsonNode::Kind::kNull:
      break;
    case expr::JsonNode::Kind::kTrue:
    case expr::JsonNode::Kind::kFalse:
      value.kind = JsonValue::Kind::kBoolean;
      value.boolean = node.kind == expr::JsonNode::Kind::kTrue;
      break;
    case expr::JsonNode::Kind::kNumber: {
      value.text = std::move(node.text);
      const char* first = value.text.data();
      const char* last = first + value.text.size();
      std::from_chars_result parsed{};
      if (node.integral) parsed = std::from_chars(first, last, value.integer);
      if (node.integral && parsed.ec == std::errc() && parsed.ptr == last) {
        value.kind = JsonValue::Kind::kInteger;
      } else {
        value.kind = JsonValue::Kind::kDouble;
        value.number = std::strtod(value.text.c_str(), nullptr);
      }
      break;
    }
    case expr::JsonNode::Kind::kString:
      value.kind = JsonValue::Kind::kString;
      value.text = std::move(node.text);
      break;
    case expr::JsonNode::Kind::kArray:
      value.kind = JsonValue::Kind::kArray;
      value.elements.reserve(node.elements.size());
      for (expr::JsonNode& element : node.elements) value.elements.push_back(ToJsonValue(std::move(element)));
      break;
    case expr::JsonNode::Kind::kObject:
      value.kind = JsonValue::Kind::kObject;
      value.members.reserve(node.members.size());
      for (auto& [key, member] : node.members) {
        value.members.emplace_back(std::move(key), ToJsonValue(std::move(member)));
      }
      break;
  }
  return value;
}

// ---- files ----

// The data files `path` names: itself, or the files below a folder in path order, leaving out
// hidden and metadata entries ('_' or '.' prefixes at any level below the folder).
std::vector<std::string> DataFiles(io::FileSystem& fs, const std::string& path) {
  std::optional<io::FileInfo> info = fs.Stat(path);
  if (!info) SILT_THROW(PATH_NOT_FOUND, {{"path", path}});
  if (!info->is_directory) return {path};
  std::vector<std::string> files;
  std::string root = io::NormalizePath(path);
  for (const io::FileInfo& entry : fs.List(path, "", /*recursive=*/true)) {
    std::string relative = io::NormalizePath(entry.path);
    if (relative.size() > root.size() && relative.compare(0, root.size(), root) == 0) {
      relative = relative.substr(root.size());
    }
    bool hidden = false;
    size_t start = 0;
    while (start <= relative.size()) {
      size_t end = relative.find('/', start);
      if (end == std::string::npos) end = relative.size();
      if (end > start && (relative[start] == '_' || relative[start] == '.')) hidden = true;
      start = end + 1;
    }
    if (!hidden) files.push_back(entry.path);
  }
  return files;
}

constexpr int64_t kRowsPerBatch = 65536;

// ---- JSON schema inference ----

DataTypePtr InferJsonType(const JsonValue& value);

// Spark's compatibleType: numbers widen, structs merge by name, arrays by element, NULL
// yields to anything, and any other conflict becomes string.
DataTypePtr MergeJsonTypes(const DataTypePtr& left, const DataTypePtr& right) {
  if (left->id() == TypeId::kNull) return right;
  if (right->id() == TypeId::kNull) return left;
  if (left->Equals(*right)) return left;
  auto numeric = [](TypeId id) { return id == TypeId::kLong || id == TypeId::kDouble; };
  if (numeric(left->id()) && numeric(right->id())) return DoubleType();
  if (left->id() == TypeId::kStruct && right->id() == TypeId::kStruct) {
    std::map<std::string, DataTypePtr> merged;
    for (const Field& field : left->fields()) merged[field.name] = field.type;
    for (const Field& field : right->fields()) {
      auto [it, inserted] = merged.emplace(field.name, field.type);
      if (!inserted) it->second = MergeJsonTypes(it->second, field.type);
    }
    std::vector<Field> fields;
    for (auto& [name, type] : merged) fields.push_back(Field{name, type, true, {}});
    return StructType(std::move(fields));
  }
  if (left->id() == TypeId::kList && right->id() == TypeId::kList) {
    return ListType(MergeJsonTypes(left->element_type(), right->element_type()));
  }
  return StringType();
}

DataTypePtr InferJsonType(const JsonValue& value) {
  switch (value.kind) {
    case JsonValue::Kind::kNull:
      return NullType();
    case JsonValue::Kind::kBoolean:
      return BooleanType();
    case JsonValue::Kind::kInteger:
      return LongType();
    case JsonValue::Kind::kDouble:
      return DoubleType();
    case JsonValue::Kind::kString:
      return StringType();
    case JsonValue::Kind::kArray: {
      DataTypePtr element = NullType();
      for (const JsonValue& item : value.elements) {
        element = MergeJsonTypes(element, InferJsonType(item));
      }
      return ListType(element);
    }
    case JsonValue::Kind::kObject: {
      std::map<std::string, DataTypePtr> merged;
      for (const auto& [name, member] : value.members) {
        auto [it, inserted] = merged.emplace(name, InferJsonType(member));
        if (!inserted) it->second = MergeJsonTypes(it->second, InferJsonType(member));
      }
      std::vector<Field> fields;
      for (auto& [name, type] : merged) fields.push_back(Field{name, type, true, {}});
      return StructType(std::move(fields));
    }
  }
  return StringType();
}

// Spark turns types that stayed NULL (no non-null value seen) into string.
DataTypePtr ReplaceNullTypes(const DataTypePtr& type) {
  switch (type->id()) {
    case TypeId::kNull:
      return StringType();
    case TypeId::kList:
      return ListType(ReplaceNullTypes(type->element_type()));
    case TypeId::kStruct: {
      std::vector<Field> fields;
      for (const Field& field : type->fields()) {
        fields.push_back(Field{field.name, ReplaceNullTypes(field.type), true, {}});
      }
      return StructType(std::move(fields));
    }
    default:
      return type;
  }
}

void WriteJsonText(JsonWriter& writer, const JsonValue& value) {
  switch (value.kind) {
    case JsonValue::Kind::kNull:
      writer.Null();
      break;
    case JsonValue::Kind::kBoolean:
      writer.Bool(value.boolean);
      break;
    case JsonValue::Kind::kInteger:
    case JsonValue::Kind::kDouble:
      writer.Raw(value.text);
      break;
    case JsonValue::Kind::kString:
      writer.String(value.text);
      break;
    case JsonValue::Kind::kArray:
      writer.BeginArray();
      for (const JsonValue& item : value.elements) WriteJsonText(writer, item);
      writer.EndArray();
      break;
    case JsonValue::Kind::kObject:
      writer.BeginObject();
      for (const auto& [name, member] : value.members) {
        writer.Key(name);
        WriteJsonText(writer, member);
      }
      writer.EndObject();
      break;
  }
}

// Appends `value` (whose inferred type merged into `builder`'s type) to `builder`.
void AppendJsonValue(VectorBuilder& builder, const JsonValue* value) {
  if (value == nullptr || value->kind == JsonValue::Kind::kNull) {
    builder.AppendNull();
    return;
  }
  const DataType& type = *builder.type();
  switch (type.id()) {
    case TypeId::kBoolean:
      builder.AppendBool(value->boolean);
      return;
    case TypeId::kLong:
      builder.AppendInt(value->integer);
      return;
    case TypeId::kDouble:
      builder.AppendDouble(value->kind == JsonValue::Kind::kInteger
                               ? static_cast<double>(value->integer)
                               : value->number);
      return;
    case TypeId::kString:
      if (value->kind == JsonValue::Kind::kString) {
        builder.AppendString(value->text);
      } else {
        // A field whose values disagree in kind keeps each value's JSON text, as Spark does.
        JsonWriter writer;
        WriteJsonText(writer, *value);
        builder.AppendString(writer.str());
      }
      return;
    case TypeId::kList:
      for (const JsonValue& item : value->elements) AppendJsonValue(builder.child(0), &item);
      builder.FinishList();
      return;
    case TypeId::kStruct:
      for (size_t i = 0; i < type.fields().size(); ++i) {
        const JsonValue* member = nullptr;
        for (const auto& [name, candidate] : value->members) {
          if (name == type.fields()[i].name) member = &candidate;  // the last duplicate wins
        }
        AppendJsonValue(builder.child(i), member);
      }
      builder.AppendStruct();
      return;
    default:
      SILT_CHECK(false, "JSON value of an uninferred type " + type.ToString());
  }
}

std::vector<Batch> BuildBatches(
    const SchemaPtr& schema, size_t num_rows,
    const std::function<void(size_t row, std::vector<std::unique_ptr<VectorBuilder>>&)>&
        append_row) {
  std::vector<Batch> batches;
  size_t row = 0;
  while (row < num_rows) {
    size_t end = std::min(num_rows, row + static_cast<size_t>(kRowsPerBatch));
    std::vector<std::unique_ptr<VectorBuilder>> builders;
    for (const Field& field : schema->fields()) {
      builders.push_back(
          std::make_unique<VectorBuilder>(field.type, static_cast<int64_t>(end - row)));
    }
    for (size_t r = row; r < end; ++r) append_row(r, builders);
    std::vector<VectorPtr> columns;
    for (auto& builder : builders) columns.push_back(builder->Finish());
    batches.emplace_back(schema, std::move(columns), static_cast<int64_t>(end - row));
    row = end;
  }
  return batches;
}

}  // namespace

std::vector<std::vector<std::optional<std::string>>> ParseCsvRecords(std::string_view text,
                                                                     const std::string& file) {
  std::vector<std::vector<std::optional<std::string>>> records;
  size_t position = 0;
  while (position < text.size()) {
    size_t record_start = position;
    std::vector<std::optional<std::string>> fields;
    bool end_of_record = false;
    while (!end_of_record) {
      std::optional<std::string> field;
      if (position < text.size() && text[position] == '"') {
        ++position;
        std::string value;
        bool closed = false;
        while (position < text.size()) {
          char c = text[position];
          if (c == '\\' && position + 1 < text.size() && text[position + 1] == '"') {
            value += '"';
            position += 2;
          } else if (c == '"' && position + 1 < text.size() && text[position + 1] == '"') {
            value += '"';
            position += 2;
          } else if (c == '"') {
            ++position;
            closed = true;
            break;
          } else {
            value += c;
            ++position;
          }
        }
        if (!closed) {
          size_t line_end = text.find('\n', record_start);
          ThrowMalformed(text.substr(record_start, line_end == std::string_view::npos
                                                       ? std::string_view::npos
                                                       : line_end - record_start),
                         "Unterminated quoted field in " + file + ".");
        }
        // Text between the closing quote and the separator is kept, as Spark's parser does.
        while (position < text.size() && text[position] != ',' && text[position] != '\n' &&
               text[position] != '\r') {
          value += text[position++];
        }
        field = std::move(value);
      } else {
        size_t start = position;
        while (position < text.size() && text[position] != ',' && text[position] != '\n' &&
               text[position] != '\r') {
          ++position;
        }
        if (position > start) field = std::string(text.substr(start, position - start));
      }
      fields.push_back(std::move(field));
      if (position < text.size() && text[position] == ',') {
        ++position;
        continue;
      }
      end_of_record = true;
      if (position < text.size() && text[position] == '\r') ++position;
      if (position < text.size() && text[position] == '\n') ++position;
    }
    // Blank lines are skipped, as Spark does.
    if (fields.size() == 1 && !fields[0]) continue;
    records.push_back(std::move(fields));
  }
  return records;
}

const JsonValue* JsonValue::Find(std::string_view key) const {
  for (const auto& [name, value] : members) {
    if (name == key) return &value;
  }
  return nullptr;
}

JsonValue ParseJson(std::string_view text) {
  expr::JsonNode node;
  size_t end = 0;
  switch (expr::ParseJsonText(text, expr::JsonReadFeatures{}, node, &end)) {
    case expr::JsonParseOutcome::kEmpty:
      ThrowMalformed(text, "Invalid JSON: there is no value.");
    case expr::JsonParseOutcome::kMalformed:
      ThrowMalformed(text, "Invalid JSON at offset " + std::to_string(end) + ".");
    case expr::JsonParseOutcome::kValue:
      break;
  }
  size_t rest = text.find_first_not_of(" \t\n\r", end);
  if (rest != std::string_view::npos) {
    ThrowMalformed(text, "Invalid JSON at offset " + std::to_string(rest) +
                             ": unexpected text after the JSON value.");
  }
  return ToJsonValue(std::move(node));
}

TextTable ReadJsonFiles(io::FileSystem& fs, const std::string& path) {
  std::vector<JsonValue> rows;
  DataTypePtr row_type = StructType({});
  for (const std::string& file : DataFiles(fs, path)) {
    std::string content = fs.ReadFile(file);
    size_t line_start = 0;
    int64_t line_number = 0;
    while (line_start < content.size()) {
      size_t line_end = content.find('\n', line_start);
      if (line_end == std::string::npos) line_end = content.size();
      std::string_view line(content.data() + line_start, line_end - line_start);
      line_start = line_end + 1;
      ++line_number;
      if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
      JsonValue value;
      try {
        value = ParseJson(line);
      } catch (const Error& error) {
        throw error.WithContext(file + " line " + std::to_string(line_number));
      }
      if (value.kind != JsonValue::Kind::kObject) {
        ThrowMalformed(
            line, "Line " + std::to_string(line_number) + " of " + file + " is not a JSON object.");
      }
      row_type = MergeJsonTypes(row_type, InferJsonType(value));
      rows.push_back(std::move(value));
    }
  }
  row_type = ReplaceNullTypes(row_type);
  auto schema = std::make_shared<Schema>(row_type->fields());
  TextTable table{schema, {}};
  table.batches = BuildBatches(schema, rows.size(), [&](size_t row, auto& builders) {
    for (size_t i = 0; i < schema->num_fields(); ++i) {
      const JsonValue* member = nullptr;
      for (const auto& [name, candidate] : rows[row].members) {
        if (name == schema->field(i).name) member = &candidate;
      }
      AppendJsonValue(*builders[i], member);
    }
  });
  return table;
}

TextTable ReadCsvFiles(io::FileSystem& fs, const std::string& path, bool has_header) {
  std::vector<std::string> header;
  std::vector<std::vector<std::optional<std::string>>> rows;
  bool have_header = false;
  for (const std::string& file : DataFiles(fs, path)) {
    auto records = ParseCsvRecords(fs.ReadFile(file), file);
    if (records.empty()) continue;
    if (!have_header) {
      for (size_t i = 0; i < records[0].size(); ++i) {
        // Spark names a header cell that is empty, or every column without a header, `_c<i>`.
        header.push_back(has_header && records[0][i] ? *records[0][i] : "_c" + std::to_string(i));
      }
      have_header = true;
    }
    for (size_t r = has_header ? 1 : 0; r < records.size(); ++r) rows.push_back(std::move(records[r]));
  }
  std::vector<Field> fields;
  for (const std::string& name : header) fields.push_back(Field{name, StringType(), true, {}});
  auto schema = std::make_shared<Schema>(std::move(fields));
  TextTable table{schema, {}};
  table.batches = BuildBatches(schema, rows.size(), [&](size_t row, auto& builders) {
    const auto& record = rows[row];
    // Missing trailing fields are NULL and extra ones dropped, as Spark's PERMISSIVE mode does.
    for (size_t i = 0; i < builders.size(); ++i) {
      if (i < record.size() && record[i]) {
        builders[i]->AppendString(*record[i]);
      } else {
        builders[i]->AppendNull();
      }
    }
  });
  return table;
}

}  // namespace silt::exec
