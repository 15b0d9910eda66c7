#include "silt/expr/schema_ddl.h"

#include <cctype>
#include <optional>

#include "silt/base/ascii.h"
#include "silt/base/check.h"
#include "silt/base/json_writer.h"
#include "silt/types/schema_json.h"
#include "silt/types/type_nesting.h"

namespace silt::expr {
namespace {

std::string UpperCase(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

// Thrown inside the parser and turned into INVALID_SCHEMA with the whole text by the caller.
struct DdlSyntaxError {
  std::string reason;
};

// A recursive-descent reader of Spark's type grammar over one string.
class DdlReader {
 public:
  explicit DdlReader(std::string_view text) : text_(text) {}

  bool AtEnd() {
    SkipSpace();
    return position_ >= text_.size();
  }

  // One type from the current position. Throws DdlSyntaxError when the text is not a type there
  // (so that the caller can try a column list), DATATYPE_NESTING_TOO_DEEP past the limit.
  DataTypePtr ParseType() {
    if (++depth_ > kMaxTypeNestingDepth + 1) {  // levels of nesting plus the innermost type
      SILT_THROW(DATATYPE_NESTING_TOO_DEEP, {{"depth", "more than " + std::to_string(kMaxTypeNestingDepth)},
                                             {"limit", std::to_string(kMaxTypeNestingDepth)}});
    }
    std::string name = AsciiLower(Word());
    if (name.empty()) Fail("a type name was expected at position " + std::to_string(position_));
    DataTypePtr type;
    if (name == "boolean") type = BooleanType();
    else if (name == "tinyint" || name == "byte") type = ByteType();
    else if (name == "smallint" || name == "short") type = ShortType();
    else if (name == "int" || name == "integer") type = IntegerType();
    else if (name == "bigint" || name == "long") type = LongType();
    else if (name == "float" || name == "real") type = FloatType();
    else if (name == "double") type = DoubleType();
    else if (name == "date") type = DateType();
    else if (name == "timestamp" || name == "timestamp_ltz") type = TimestampType();
    else if (name == "timestamp_ntz") type = TimestampNtzType();
    else if (name == "string") type = StringType();
    else if (name == "binary") type = BinaryType();
    else if (name == "void") type = NullType();
    else if (name == "interval") type = ParseIntervalFields();
    else if (name == "char" || name == "varchar" || name == "character") {
      Expect('(');
      if (Integer() <= 0) Fail("a positive length was expected");
      Expect(')');
      type = StringType();
    } else if (name == "decimal" || name == "dec" || name == "numeric") {
      int precision = 10;
      int scale = 0;
      if (Match('(')) {
        precision = Integer();
        if (Match(',')) scale = Integer();
        Expect(')');
      }
      if (precision < 1 || precision > 38 || scale < 0 || scale > precision) {
        Fail("decimal(" + std::to_string(precision) + "," + std::to_string(scale) + ") is not a valid decimal type");
      }
      type = DecimalType(precision, scale);
    } else if (name == "array") {
      Expect('<');
      DataTypePtr element = ParseType();
      Expect('>');
      type = ListType(element);
    } else if (name == "map") {
      Expect('<');
      DataTypePtr key = ParseType();
      Expect(',');
      DataTypePtr value = ParseType();
      Expect('>');
      type = MapType(key, value);
    } else if (name == "struct") {
      Expect('<');
      std::vector<Field> fields;
      if (!Match('>')) {
        do {
          fields.push_back(ParseField(true));
        } while (Match(','));
        Expect('>');
      }
      type = StructType(std::move(fields));
    } else {
      Fail("unsupported data type \"" + UpperCase(name) + "\"");
    }
    --depth_;
    return type;
  }

  // `name [:] type [NOT NULL] [COMMENT 'text']`.
  Field ParseField(bool colon_allowed) {
    Field field;
    field.name = Name();
    if (colon_allowed) Match(':');
    field.type = ParseType();
    size_t before = position_;
    if (EqualsIgnoreCase(Word(), "not")) {
      if (!EqualsIgnoreCase(Word(), "null")) Fail("NULL was expected after NOT");
      field.nullable = false;
      before = position_;
    }
    if (EqualsIgnoreCase(Word(), "comment")) {
      std::string text;
      AppendJsonString(text, QuotedString());
      field.metadata.emplace_back("comment", std::move(text));
    } else {
      position_ = before;
    }
    return field;
  }

  [[noreturn]] void Fail(const std::string& reason) { throw DdlSyntaxError{reason}; }

  // `start [TO end]` after INTERVAL: YEAR/MONTH or DAY/HOUR/MINUTE/SECOND, in order.
  DataTypePtr ParseIntervalFields() {
    static const char* const kYearMonth[] = {"year", "month"};
    static const char* const kDayTime[] = {"day", "hour", "minute", "second"};
    auto index_of = [](const std::string& word, const char* const* fields, int count) {
      for (int i = 0; i < count; ++i) {
        if (word == fields[i]) return i;
      }
      return -1;
    };
    std::string start = AsciiLower(Word());
    bool year_month = index_of(start, kYearMonth, 2) >= 0;
    const char* const* fields = year_month ? kYearMonth : kDayTime;
    int count = year_month ? 2 : 4;
    int first = index_of(start, fields, count);
    if (first < 0) Fail("an interval field was expected at position " + std::to_string(position_));
    int last = first;
    size_t before = position_;
    if (EqualsIgnoreCase(Word(), "to")) {
      last = index_of(AsciiLower(Word()), fields, count);
      if (last <= first) Fail("a later interval field was expected at position " + std::to_string(position_));
    } else {
      position_ = before;
    }
    if (year_month) {
      return YearMonthIntervalType(static_cast<YearMonthField>(first), static_cast<YearMonthField>(last));
    }
    return DayTimeIntervalType(static_cast<DayTimeField>(first), static_cast<DayTimeField>(last));
  }

  bool Match(char c) {
    SkipSpace();
    if (position_ < text_.size() && text_[position_] == c) {
      ++position_;
      return true;
    }
    return false;
  }

 private:
  void SkipSpace() {
    while (position_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[position_]))) ++position_;
  }

  void Expect(char c) {
    if (!Match(c)) Fail(std::string("'") + c + "' was expected at position " + std::to_string(position_));
  }

  // An unquoted identifier or keyword (letters, digits, '_'); empty when there is none.
  std::string Word() {
    SkipSpace();
    size_t start = position_;
    while (position_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[position_])) || text_[position_] == '_')) {
      ++position_;
    }
    return std::string(text_.substr(start, position_ - start));
  }

  std::string Name() {
    SkipSpace();
    if (position_ < text_.size() && text_[position_] == '`') {
      std::string name;
      ++position_;
      while (true) {
        if (position_ >= text_.size()) Fail("an unclosed back-quote");
        if (text_[position_] == '`') {
          if (position_ + 1 < text_.size() && text_[position_ + 1] == '`') {
            name += '`';
            position_ += 2;
            continue;
          }
          ++position_;
          return name;
        }
        name += text_[position_++];
      }
    }
    std::string name = Word();
    if (name.empty()) Fail("a field name was expected at position " + std::to_string(position_));
    return name;
  }

  int Integer() {
    SkipSpace();
    size_t start = position_;
    int64_t value = 0;
    while (position_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[position_])) && value < 1000000) {
      value = value * 10 + (text_[position_++] - '0');
    }
    if (position_ == start) Fail("a number was expected at position " + std::to_string(position_));
    return static_cast<int>(value);
  }

  std::string QuotedString() {
    SkipSpace();
    if (position_ >= text_.size() || (text_[position_] != '\'' && text_[position_] != '"')) {
      Fail("a quoted comment was expected");
    }
    char quote = text_[position_++];
    std::string value;
    while (position_ < text_.size() && text_[position_] != quote) {
      if (text_[position_] == '\\' && position_ + 1 < text_.size()) ++position_;
      value += text_[position_++];
    }
    if (position_ >= text_.size()) Fail("an unclosed string");
    ++position_;
    return value;
  }

  std::string_view text_;
  size_t position_ = 0;
  int depth_ = 0;
};

[[noreturn]] void ThrowInvalidSchema(std::string_view text, const std::string& reason) {
  SILT_THROW(INVALID_SCHEMA, {{"inputSchema", "\"" + std::string(text) + "\""},
                              {"message", "Cannot parse the schema: " + reason + "."}});
}

bool IsPlainIdentifier(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

}  // namespace

DataTypePtr ParseSchemaDdl(std::string_view text) {
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && text[first] == '{') {
    try {
      return ParseDeltaType(text);
    } catch (const Error& error) {
      ThrowInvalidSchema(text, error.what());
    }
  }
  DataTypePtr type;
  // A single type first, then a column list, as Spark's fromDDL falls back.
  try {
    DdlReader reader(text);
    type = reader.ParseType();
    if (!reader.AtEnd()) type = nullptr;
  } catch (const DdlSyntaxError&) {
    type = nullptr;
  }
  if (type == nullptr) {
    try {
      DdlReader reader(text);
      std::vector<Field> fields;
      if (!reader.AtEnd()) {
        do {
          fields.push_back(reader.ParseField(false));
        } while (reader.Match(','));
        if (!reader.AtEnd()) reader.Fail("',' or the end was expected");
      }
      type = StructType(std::move(fields));
    } catch (const DdlSyntaxError& error) {
      ThrowInvalidSchema(text, error.reason);
    }
  }
  CheckTypeNesting(*type);
  return type;
}

std::string TypeSqlText(const DataType& type) {
  switch (type.id()) {
    case TypeId::kList: return "ARRAY<" + TypeSqlText(*type.element_type()) + ">";
    case TypeId::kMap: return "MAP<" + TypeSqlText(*type.key_type()) + ", " + TypeSqlText(*type.value_type()) + ">";
    case TypeId::kStruct: {
      std::string text = "STRUCT<";
      for (size_t i = 0; i < type.fields().size(); ++i) {
        const Field& field = type.fields()[i];
        if (i > 0) text += ", ";
        std::string name = field.name;
        if (!IsPlainIdentifier(name)) {
          std::string quoted = "`";
          for (char c : name) quoted += c == '`' ? std::string("``") : std::string(1, c);
          name = quoted + "`";
        }
        text += name + ": " + TypeSqlText(*field.type);
        if (!field.nullable) text += " NOT NULL";
      }
      return text + ">";
    }
    default: return UpperCase(type.ToString());
  }
}

}  // namespace silt::expr
