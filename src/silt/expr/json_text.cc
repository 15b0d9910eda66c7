#include <cctype>
#include <cmath>
#include <cstdlib>

#include "silt/base/json_writer.h"
#include "silt/expr/json_text.h"
#include "silt/vector/value_text.h"

namespace silt::expr {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

class JsonTextParser {
 public:
  JsonTextParser(std::string_view text, const JsonReadFeatures& features) : text_(text), features_(features) {}

  size_t position() const { return position_; }

  JsonParseOutcome ParseFirst(JsonNode& node) {
    SkipSpace();
    if (position_ >= text_.size()) return JsonParseOutcome::kEmpty;
    return ParseValue(node, 0) ? JsonParseOutcome::kValue : JsonParseOutcome::kMalformed;
  }

 private:
  // Skips whitespace (and comments, when allowed). An unterminated /* comment runs to the end,
  // where the value it hides is then missing.
  void SkipSpace() {
    while (position_ < text_.size()) {
      char c = text_[position_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        ++position_;
      } else if (features_.comments && c == '/' && text_.substr(position_, 2) == "//") {
        size_t end = text_.find('\n', position_);
        position_ = end == std::string_view::npos ? text_.size() : end + 1;
      } else if (features_.comments && c == '/' && text_.substr(position_, 2) == "/*") {
        size_t end = text_.find("*/", position_ + 2);
        position_ = end == std::string_view::npos ? text_.size() : end + 2;
      } else {
        return;
      }
    }
  }

  static bool IsNameStart(char c) {
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$';
  }

  bool Consume(std::string_view word) {
    if (text_.substr(position_, word.size()) != word) return false;
    position_ += word.size();
    return true;
  }

  bool ParseValue(JsonNode& node, int depth) {
    if (position_ >= text_.size()) return false;
    char c = text_[position_];
    if (c == '{' || c == '[') {
      if (depth >= kMaxJsonNestingDepth) return false;
      return c == '{' ? ParseObject(node, depth + 1) : ParseArray(node, depth + 1);
    }
    if (c == '"' || (c == '\'' && features_.single_quotes)) {
      node.kind = JsonNode::Kind::kString;
      return ParseString(node.text);
    }
    if (Consume("true")) {
      node.kind = JsonNode::Kind::kTrue;
      return true;
    }
    if (Consume("false")) {
      node.kind = JsonNode::Kind::kFalse;
      return true;
    }
    if (Consume("null")) {
      node.kind = JsonNode::Kind::kNull;
      return true;
    }
    return ParseNumber(node);
  }

  bool ParseObject(JsonNode& node, int depth) {
    node.kind = JsonNode::Kind::kObject;
    ++position_;
    SkipSpace();
    if (position_ < text_.size() && text_[position_] == '}') {
      ++position_;
      return true;
    }
    while (true) {
      SkipSpace();
      if (position_ >= text_.size()) return false;
      char quote = text_[position_];
      std::pair<std::string, JsonNode> member;
      if (features_.unquoted_field_names && IsNameStart(quote)) {
        size_t start = position_;
        while (position_ < text_.size() &&
               (IsNameStart(text_[position_]) || std::isdigit(static_cast<unsigned char>(text_[position_])))) {
          ++position_;
        }
        member.first = std::string(text_.substr(start, position_ - start));
      } else {
        if (quote != '"' && !(quote == '\'' && features_.single_quotes)) return false;
        if (!ParseString(member.first)) return false;
      }
      SkipSpace();
      if (position_ >= text_.size() || text_[position_] != ':') return false;
      ++position_;
      SkipSpace();
      if (!ParseValue(member.second, depth)) return false;
      node.members.push_back(std::move(member));
      SkipSpace();
      if (position_ >= text_.size()) return false;
      if (text_[position_] == ',') {
        ++position_;
        continue;
      }
      if (text_[position_] != '}') return false;
      ++position_;
      return true;
    }
  }

  bool ParseArray(JsonNode& node, int depth) {
    node.kind = JsonNode::Kind::kArray;
    ++position_;
    SkipSpace();
    if (position_ < text_.size() && text_[position_] == ']') {
      ++position_;
      return true;
    }
    while (true) {
      SkipSpace();
      JsonNode element;
      if (!ParseValue(element, depth)) return false;
      node.elements.push_back(std::move(element));
      SkipSpace();
      if (position_ >= text_.size()) return false;
      if (text_[position_] == ',') {
        ++position_;
        continue;
      }
      if (text_[position_] != ']') return false;
      ++position_;
      return true;
    }
  }

  static void AppendUtf8(std::string& out, uint32_t code_point) {
    if (code_point < 0x80) {
      out += static_cast<char>(code_point);
    } else if (code_point < 0x800) {
      out += static_cast<char>(0xC0 | (code_point >> 6));
      out += static_cast<char>(0x80 | (code_point & 0x3F));
    } else if (code_point < 0x10000) {
      out += static_cast<char>(0xE0 | (code_point >> 12));
      out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code_point & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code_point >> 18));
      out += static_cast<char>(0x80 | ((code_point >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code_point & 0x3F));
    }
  }

  bool ReadHex4(uint32_t& value) {
    if (text_.size() - position_ < 4) return false;
    value = 0;
    for (int i = 0; i < 4; ++i) {
      char c = text_[position_++];
      value <<= 4;
      if (IsDigit(c)) value |= static_cast<uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f') value |= static_cast<uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') value |= static_cast<uint32_t>(c - 'A' + 10);
      else return false;
    }
    return true;
  }

  bool ParseString(std::string& out) {
    char quote = text_[position_++];
    while (true) {
      if (position_ >= text_.size()) return false;
      char c = text_[position_++];
      if (c == quote) return true;
      if (static_cast<unsigned char>(c) < 0x20 && !features_.unquoted_control_chars) return false;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (position_ >= text_.size()) return false;
      char escaped = text_[position_++];
      switch (escaped) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case '\'':
          if (!features_.single_quotes) return false;
          out += '\'';
          break;
        case 'u': {
          uint32_t code = 0;
          if (!ReadHex4(code)) return false;
          if (code >= 0xD800 && code < 0xDC00 && text_.substr(position_, 2) == "\\u") {
            size_t saved = position_;
            position_ += 2;
            uint32_t low = 0;
            if (ReadHex4(low) && low >= 0xDC00 && low < 0xE000) {
              code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
            } else {
              position_ = saved;
            }
          }
          AppendUtf8(out, code);
          break;
        }
        default:
          if (!features_.backslash_escaping_any) return false;
          out += escaped;
      }
    }
  }

  bool ParseNumber(JsonNode& node) {
    node.kind = JsonNode::Kind::kNumber;
    size_t start = position_;
    if (features_.non_numeric_numbers) {
      for (std::string_view word : {"NaN", "Infinity", "+Infinity", "-Infinity", "INF", "+INF", "-INF"}) {
        if (Consume(word)) {
          node.text = std::string(word);
          return true;
        }
      }
    }
    if (position_ < text_.size() && text_[position_] == '-') ++position_;
    size_t digits_start = position_;
    while (position_ < text_.size() && IsDigit(text_[position_])) ++position_;
    size_t digits = position_ - digits_start;
    if (digits == 0) return false;
    if (digits > 1 && text_[digits_start] == '0' && !features_.leading_zeros) return false;
    node.integral = true;
    if (position_ < text_.size() && text_[position_] == '.') {
      ++position_;
      size_t fraction_start = position_;
      while (position_ < text_.size() && IsDigit(text_[position_])) ++position_;
      if (position_ == fraction_start) return false;
      node.integral = false;
    }
    if (position_ < text_.size() && (text_[position_] == 'e' || text_[position_] == 'E')) {
      ++position_;
      if (position_ < text_.size() && (text_[position_] == '+' || text_[position_] == '-')) ++position_;
      size_t exponent_start = position_;
      while (position_ < text_.size() && IsDigit(text_[position_])) ++position_;
      if (position_ == exponent_start) return false;
      node.integral = false;
    }
    // A number runs into a following letter or digit only in malformed text ("12ab").
    if (position_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[position_])) || text_[position_] == '_')) {
      return false;
    }
    node.text = std::string(text_.substr(start, position_ - start));
    return true;
  }

  std::string_view text_;
  const JsonReadFeatures& features_;
  size_t position_ = 0;
};

}  // namespace

JsonParseOutcome ParseJsonText(std::string_view text, const JsonReadFeatures& features, JsonNode& node,
                               size_t* end) {
  node = JsonNode();
  JsonTextParser parser(text, features);
  JsonParseOutcome outcome = parser.ParseFirst(node);
  if (end != nullptr) *end = parser.position();
  return outcome;
}

void AppendJsonNode(std::string& out, const JsonNode& node) {
  switch (node.kind) {
    case JsonNode::Kind::kNull: out += "null"; return;
    case JsonNode::Kind::kTrue: out += "true"; return;
    case JsonNode::Kind::kFalse: out += "false"; return;
    case JsonNode::Kind::kString: AppendJsonString(out, node.text); return;
    case JsonNode::Kind::kNumber: {
      if (node.integral) {
        // Jackson writes the integer's value: "-0" becomes "0", leading zeros go.
        size_t first = node.text[0] == '-' ? 1 : 0;
        size_t nonzero = node.text.find_first_not_of('0', first);
        if (nonzero == std::string::npos) {
          out += '0';
        } else {
          if (first == 1) out += '-';
          out.append(node.text, nonzero, std::string::npos);
        }
        return;
      }
      double value = std::strtod(node.text.c_str(), nullptr);
      if (node.text == "INF" || node.text == "+INF" || node.text == "+Infinity") value = HUGE_VAL;
      if (node.text == "-INF") value = -HUGE_VAL;
      if (std::isfinite(value)) {
        out += FormatJavaDouble(value);
      } else {
        AppendJsonString(out, FormatJavaDouble(value));
      }
      return;
    }
    case JsonNode::Kind::kArray: {
      out += '[';
      for (size_t i = 0; i < node.elements.size(); ++i) {
        if (i > 0) out += ',';
        AppendJsonNode(out, node.elements[i]);
      }
      out += ']';
      return;
    }
    case JsonNode::Kind::kObject: {
      out += '{';
      for (size_t i = 0; i < node.members.size(); ++i) {
        if (i > 0) out += ',';
        AppendJsonString(out, node.members[i].first);
        out += ':';
        AppendJsonNode(out, node.members[i].second);
      }
      out += '}';
      return;
    }
  }
}

}  // namespace silt::expr
