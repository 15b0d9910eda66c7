#include "silt/base/json_writer.h"

#include <charconv>
#include <cmath>

#include "silt/base/check.h"

namespace silt {

void AppendJsonString(std::string& out, std::string_view value) {
  out += '"';
  static constexpr char kHex[] = "0123456789abcdef";
  size_t run_start = 0;
  for (size_t i = 0; i < value.size(); ++i) {
    auto c = static_cast<unsigned char>(value[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    // Copy the run of bytes that need no escaping in one go.
    out.append(value.data() + run_start, i - run_start);
    run_start = i + 1;
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        out += "\\u00";
        out += kHex[c >> 4];
        out += kHex[c & 15];
        break;
    }
  }
  out.append(value.data() + run_start, value.size() - run_start);
  out += '"';
}

std::string JsonEscape(std::string_view value) {
  std::string quoted;
  quoted.reserve(value.size() + 2);
  AppendJsonString(quoted, value);
  return quoted.substr(1, quoted.size() - 2);
}

void AppendJsonDouble(std::string& out, double value) {
  if (std::isnan(value)) {
    out += "\"NaN\"";
    return;
  }
  if (std::isinf(value)) {
    out += value > 0 ? "\"Infinity\"" : "\"-Infinity\"";
    return;
  }
  char buffer[32];
  auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  out.append(buffer, static_cast<size_t>(result.ptr - buffer));
}

void JsonWriter::BeforeValue() {
  if (stack_.empty()) {
    SILT_CHECK(!wrote_root_, "JsonWriter: a second top-level value");
    wrote_root_ = true;
    return;
  }
  Frame& frame = stack_.back();
  if (frame.scope == Scope::kObject) {
    SILT_CHECK(frame.has_key, "JsonWriter: object member without Key()");
    frame.has_key = false;
    return;
  }
  if (!frame.empty) out_ += ',';
  frame.empty = false;
}

void JsonWriter::BeginObject() {
  BeforeValue();
  out_ += '{';
  stack_.push_back(Frame{Scope::kObject});
}

void JsonWriter::EndObject() {
  SILT_CHECK(!stack_.empty() && stack_.back().scope == Scope::kObject && !stack_.back().has_key,
             "JsonWriter: EndObject() without a matching BeginObject() or after a dangling Key()");
  stack_.pop_back();
  out_ += '}';
}

void JsonWriter::BeginArray() {
  BeforeValue();
  out_ += '[';
  stack_.push_back(Frame{Scope::kArray});
}

void JsonWriter::EndArray() {
  SILT_CHECK(!stack_.empty() && stack_.back().scope == Scope::kArray,
             "JsonWriter: EndArray() without a matching BeginArray()");
  stack_.pop_back();
  out_ += ']';
}

void JsonWriter::Key(std::string_view key) {
  SILT_CHECK(!stack_.empty() && stack_.back().scope == Scope::kObject && !stack_.back().has_key,
             "JsonWriter: Key() outside an object or twice in a row");
  Frame& frame = stack_.back();
  if (!frame.empty) out_ += ',';
  frame.empty = false;
  frame.has_key = true;
  AppendJsonString(out_, key);
  out_ += ':';
}

void JsonWriter::String(std::string_view value) {
  BeforeValue();
  AppendJsonString(out_, value);
}

void JsonWriter::Int(int64_t value) {
  BeforeValue();
  out_ += std::to_string(value);
}

void JsonWriter::UInt(uint64_t value) {
  BeforeValue();
  out_ += std::to_string(value);
}

void JsonWriter::Double(double value) {
  BeforeValue();
  AppendJsonDouble(out_, value);
}

void JsonWriter::Bool(bool value) {
  BeforeValue();
  out_ += value ? "true" : "false";
}

void JsonWriter::Null() {
  BeforeValue();
  out_ += "null";
}

void JsonWriter::Raw(std::string_view json) {
  SILT_CHECK(!json.empty(), "JsonWriter: empty raw JSON value");
  BeforeValue();
  out_ += json;
}

std::string JsonWriter::Release() {
  std::string result = std::move(out_);
  out_.clear();
  stack_.clear();
  wrote_root_ = false;
  return result;
}

}  // namespace silt
