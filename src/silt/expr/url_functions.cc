// URL functions: url_encode, url_decode, try_url_decode, parse_url and try_parse_url, with
// the behaviour of Java's URLEncoder/URLDecoder (UTF-8) and java.net.URI that Spark's use.

#include <cctype>

#include "silt/expr/function_kernels_internal.h"

namespace silt::expr::internal {
namespace {

constexpr char kHexDigits[] = "0123456789ABCDEF";

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// URLEncoder.encode(text, UTF-8): letters, digits and ".-*_" stay, space becomes '+', every
// other byte %XX.
std::string UrlEncode(std::string_view text) {
  std::string out;
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
    if (std::isalnum(byte) != 0 || c == '.' || c == '-' || c == '*' || c == '_') {
      out += c;
    } else if (c == ' ') {
      out += '+';
    } else {
      out += '%';
      out += kHexDigits[byte >> 4];
      out += kHexDigits[byte & 0xF];
    }
  }
  return out;
}

// URLDecoder.decode(text, UTF-8): '+' is a space and %XX a byte; nullopt for an incomplete or
// non-hex escape.
std::optional<std::string> UrlDecode(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out += ' ';
    } else if (text[i] == '%') {
      if (i + 2 >= text.size()) return std::nullopt;
      int high = HexValue(text[i + 1]);
      int low = HexValue(text[i + 2]);
      if (high < 0 || low < 0) return std::nullopt;
      out += static_cast<char>(high << 4 | low);
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

// The raw components of a URI reference (RFC 2396 as java.net.URI reads it). A missing
// component is nullopt (an empty one is "").
struct UriParts {
  std::optional<std::string_view> scheme;
  std::optional<std::string_view> authority;
  std::optional<std::string_view> user_info;
  std::optional<std::string_view> host;
  std::optional<std::string_view> path;
  std::optional<std::string_view> query;
  std::optional<std::string_view> fragment;
};

// Characters java.net.URI refuses anywhere, and escapes that are not %XX.
bool HasIllegalCharacters(std::string_view text) {
  for (size_t i = 0; i < text.size(); ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c <= 0x20 || c == 0x7F || c == '"' || c == '<' || c == '>' || c == '\\' || c == '^' || c == '`' ||
        c == '{' || c == '|' || c == '}') {
      return true;
    }
    if (c == '%' && (i + 2 >= text.size() || HexValue(text[i + 1]) < 0 || HexValue(text[i + 2]) < 0)) return true;
  }
  return false;
}

std::optional<UriParts> ParseUri(std::string_view text) {
  if (text.empty() || HasIllegalCharacters(text)) return std::nullopt;
  UriParts parts;
  size_t hash = text.find('#');
  if (hash != std::string_view::npos) {
    parts.fragment = text.substr(hash + 1);
    if (parts.fragment->find('#') != std::string_view::npos) return std::nullopt;
    text = text.substr(0, hash);
  }
  // A scheme is letters, digits, '+', '-', '.' starting with a letter, before the first ':'.
  size_t colon = text.find(':');
  size_t first_delimiter = text.find_first_of("/?");
  if (colon != std::string_view::npos && colon > 0 && (first_delimiter == std::string_view::npos || colon < first_delimiter)) {
    std::string_view scheme = text.substr(0, colon);
    bool valid = std::isalpha(static_cast<unsigned char>(scheme[0])) != 0;
    for (char c : scheme) {
      valid = valid && (std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '+' || c == '-' || c == '.');
    }
    if (!valid) return std::nullopt;
    parts.scheme = scheme;
    text = text.substr(colon + 1);
    if (text.empty()) return std::nullopt;  // "scheme:" alone has no scheme-specific part
    if (text[0] != '/') return parts;        // opaque (mailto:x): no path, query or authority
  } else if (colon == 0) {
    return std::nullopt;
  }
  size_t question = text.find('?');
  if (question != std::string_view::npos) {
    parts.query = text.substr(question + 1);
    text = text.substr(0, question);
  }
  if (text.substr(0, 2) == "//") {
    text = text.substr(2);
    size_t slash = text.find('/');
    std::string_view authority = text.substr(0, slash);
    text = slash == std::string_view::npos ? std::string_view() : text.substr(slash);
    if (!authority.empty()) {
      parts.authority = authority;
      std::string_view host = authority;
      size_t at = host.rfind('@');
      if (at != std::string_view::npos) {
        parts.user_info = host.substr(0, at);
        host = host.substr(at + 1);
      }
      if (!host.empty() && host[0] == '[') {
        size_t close = host.find(']');
        if (close == std::string_view::npos) return std::nullopt;
        parts.host = host.substr(0, close + 1);
      } else {
        size_t port = host.rfind(':');
        std::string_view name = port == std::string_view::npos ? host : host.substr(0, port);
        bool digits_only_port = true;
        if (port != std::string_view::npos) {
          for (char c : host.substr(port + 1)) digits_only_port = digits_only_port && std::isdigit(static_cast<unsigned char>(c)) != 0;
        }
        // A server-based authority has a host name of letters, digits, '-' and '.'; Java
        // reports no host for anything else (a registry-based authority).
        bool host_name = !name.empty() && digits_only_port;
        for (char c : name) {
          host_name = host_name && (std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '.');
        }
        if (host_name) parts.host = name;
      }
    }
  }
  parts.path = text;
  return parts;
}

// The value of `key` in a query string: the first "key=value" pair (Spark's (&|^)key=([^&]*)).
std::optional<std::string_view> QueryValue(std::string_view query, std::string_view key) {
  size_t position = 0;
  while (position <= query.size()) {
    size_t end = query.find('&', position);
    std::string_view pair = query.substr(position, end == std::string_view::npos ? std::string_view::npos : end - position);
    if (pair.size() > key.size() && pair.substr(0, key.size()) == key && pair[key.size()] == '=') {
      return pair.substr(key.size() + 1);
    }
    if (end == std::string_view::npos) break;
    position = end + 1;
  }
  return std::nullopt;
}

std::optional<std::string> UrlPart(const UriParts& uri, std::string_view part) {
  auto copy = [](std::optional<std::string_view> value) -> std::optional<std::string> {
    if (!value) return std::nullopt;
    return std::string(*value);
  };
  if (part == "HOST") return copy(uri.host);
  if (part == "PATH") return copy(uri.path);
  if (part == "QUERY") return copy(uri.query);
  if (part == "REF") return copy(uri.fragment);
  if (part == "PROTOCOL") return copy(uri.scheme);
  if (part == "AUTHORITY") return copy(uri.authority);
  if (part == "USERINFO") return copy(uri.user_info);
  if (part == "FILE") {
    if (!uri.path) return std::nullopt;
    return uri.query ? std::string(*uri.path) + "?" + std::string(*uri.query) : std::string(*uri.path);
  }
  return std::nullopt;
}

ExpressionPtr BindUrlDecode(std::string_view name, std::vector<ExpressionPtr> arguments, bool try_mode) {
  CheckArgumentCount(name, arguments, 1, 1);
  arguments[0] = ImplicitCast(name, 0, std::move(arguments[0]), StringType());
  return MakeCall(name, StringType(), std::move(arguments),
                  [try_mode](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask mask) {
                    return MapRows(StringType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                      std::string_view text = args[0]->GetString(row);
                      std::optional<std::string> decoded = UrlDecode(text);
                      if (!decoded) {
                        if (!try_mode && mask.Contains(row)) {
                          context.RecordError(MakeError(ErrorClass::CANNOT_DECODE_URL, {{"url", std::string(text)}}));
                        }
                        return out.AppendNull();
                      }
                      out.AppendString(*decoded);
                    });
                  });
}

// parse_url(url, part[, key]): an unknown part gives NULL; a malformed URL is INVALID_URL with
// ANSI on (NULL otherwise, and always for try_parse_url).
ExpressionPtr BindParseUrl(std::string_view name, std::vector<ExpressionPtr> arguments, bool try_mode) {
  CheckArgumentCount(name, arguments, 2, 3);
  for (size_t i = 0; i < arguments.size(); ++i) {
    arguments[i] = ImplicitCast(name, i, std::move(arguments[i]), StringType());
  }
  return MakeCall(name, StringType(), std::move(arguments),
                  [try_mode](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask mask) {
                    return MapRows(StringType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                      std::string_view url = args[0]->GetString(row);
                      std::optional<UriParts> uri = ParseUri(url);
                      if (!uri) {
                        if (!try_mode && context.ansi && mask.Contains(row)) {
                          context.RecordError(MakeError(ErrorClass::INVALID_URL, {{"url", std::string(url)}}));
                        }
                        return out.AppendNull();
                      }
                      std::string_view part = args[1]->GetString(row);
                      if (args.size() > 2) {
                        if (part != "QUERY" || !uri->query) return out.AppendNull();
                        std::optional<std::string_view> value = QueryValue(*uri->query, args[2]->GetString(row));
                        if (value) out.AppendString(*value); else out.AppendNull();
                        return;
                      }
                      std::optional<std::string> value = UrlPart(*uri, part);
                      if (value) out.AppendString(*value); else out.AppendNull();
                    });
                  });
}

}  // namespace

void RegisterUrlFunctions(FunctionRegistry& registry) {
  registry.Register("url_encode", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("url_encode", arguments, 1, 1);
    arguments[0] = ImplicitCast("url_encode", 0, std::move(arguments[0]), StringType());
    return MakeCall("url_encode", StringType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      return MapRows(StringType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        out.AppendString(UrlEncode(args[0]->GetString(row)));
                      });
                    });
  });
  registry.Register("url_decode", [](std::vector<ExpressionPtr> arguments) {
    return BindUrlDecode("url_decode", std::move(arguments), false);
  });
  registry.Register("try_url_decode", [](std::vector<ExpressionPtr> arguments) {
    return BindUrlDecode("try_url_decode", std::move(arguments), true);
  });
  registry.Register("parse_url", [](std::vector<ExpressionPtr> arguments) {
    return BindParseUrl("parse_url", std::move(arguments), false);
  });
  registry.Register("try_parse_url", [](std::vector<ExpressionPtr> arguments) {
    return BindParseUrl("try_parse_url", std::move(arguments), true);
  });
}

}  // namespace silt::expr::internal
