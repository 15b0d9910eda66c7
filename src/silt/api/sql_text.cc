#include "silt/api/sql_text_internal.h"
#include "silt/base/check.h"
#include "silt/sql/parser.h"

namespace silt::api {

std::string QuoteString(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) {
    if (c == '\\' || c == '\'') quoted += '\\';
    quoted += c;
  }
  return quoted + "'";
}

std::string QuoteIdentifier(const std::string& part) {
  std::string quoted = "`";
  for (char c : part) {
    quoted += c;
    if (c == '`') quoted += '`';
  }
  quoted += '`';
  return quoted;
}

std::string QuoteParts(const sql::QualifiedName& parts) {
  std::string text;
  for (const std::string& part : parts) {
    if (!text.empty()) text += '.';
    text += QuoteIdentifier(part);
  }
  return text;
}

void ThrowInvalidParameter(std::string_view parameter, std::string_view function,
                           std::string message) {
  SILT_THROW(INVALID_PARAMETER_VALUE, {{"parameter", "`" + std::string(parameter) + "`"},
                                       {"functionName", "`" + std::string(function) + "`"},
                                       {"message", std::move(message)}});
}

std::string QuoteMultipartName(const std::string& name, std::string_view parameter,
                               std::string_view function) {
  sql::ExpressionPtr parsed = sql::ParseExpression(name);
  if (parsed->kind != sql::ExpressionKind::kColumn || parsed->name.empty()) {
    ThrowInvalidParameter(parameter, function,
                          "expected a name such as t, db.t or `odd name`, got '" + name + "'");
  }
  return QuoteParts(parsed->name);
}

}  // namespace silt::api
