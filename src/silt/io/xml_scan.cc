#include "silt/io/xml_scan.h"

#include <cstdlib>

namespace silt::io {

std::string XmlUnescape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '&') {
      out.push_back(text[i]);
      continue;
    }
    size_t end = text.find(';', i);
    if (end == std::string_view::npos) {
      out.push_back('&');
      continue;
    }
    std::string_view entity = text.substr(i + 1, end - i - 1);
    if (entity == "amp") {
      out.push_back('&');
    } else if (entity == "lt") {
      out.push_back('<');
    } else if (entity == "gt") {
      out.push_back('>');
    } else if (entity == "quot") {
      out.push_back('"');
    } else if (entity == "apos") {
      out.push_back('\'');
    } else if (!entity.empty() && entity[0] == '#') {
      unsigned long code = entity.size() > 1 && (entity[1] == 'x' || entity[1] == 'X')
                               ? std::strtoul(std::string(entity.substr(2)).c_str(), nullptr, 16)
                               : std::strtoul(std::string(entity.substr(1)).c_str(), nullptr, 10);
      // UTF-8 encoding of the code point.
      if (code < 0x80) {
        out.push_back(static_cast<char>(code));
      } else if (code < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (code >> 6)));
        out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
      } else if (code < 0x10000) {
        out.push_back(static_cast<char>(0xE0 | (code >> 12)));
        out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
      } else {
        out.push_back(static_cast<char>(0xF0 | (code >> 18)));
        out.push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
      }
    } else {
      out.append(text.substr(i, end - i + 1));
    }
    i = end;
  }
  return out;
}

std::string XmlEscape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

std::vector<std::string_view> XmlElements(std::string_view xml, std::string_view tag) {
  std::vector<std::string_view> elements;
  std::string open = "<" + std::string(tag) + ">";
  std::string close = "</" + std::string(tag) + ">";
  size_t position = 0;
  while ((position = xml.find(open, position)) != std::string_view::npos) {
    size_t start = position + open.size();
    size_t end = xml.find(close, start);
    if (end == std::string_view::npos) break;
    elements.push_back(xml.substr(start, end - start));
    position = end + close.size();
  }
  return elements;
}

std::optional<std::string> XmlText(std::string_view xml, std::string_view tag) {
  std::vector<std::string_view> elements = XmlElements(xml, tag);
  if (elements.empty()) return std::nullopt;
  return XmlUnescape(elements.front());
}

}  // namespace silt::io
