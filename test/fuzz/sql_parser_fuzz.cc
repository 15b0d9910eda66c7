// Feeds arbitrary text to the SQL parser (scripts, single expressions and type names) and
// prints every statement it accepts. Only silt::Error may escape; a crash, a sanitizer report,
// an uncaught exception of another type or a hang is a finding. Accepted statements must print
// to text that parses again to the same text (the printer's round-trip contract).

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "silt/base/check.h"
#include "silt/sql/ast_printer.h"
#include "silt/sql/parser.h"

namespace {

void CheckRoundTrip(const silt::sql::Statement& statement) {
  std::string printed = silt::sql::ToString(statement);
  std::string reprinted;
  try {
    reprinted = silt::sql::ToString(silt::sql::ParseStatement(printed));
  } catch (const silt::Error&) {
    // Parsed once, printed, then failed: the printer wrote text the parser rejects.
    std::abort();
  }
  if (reprinted != printed) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    for (const silt::sql::Statement& statement : silt::sql::ParseStatements(text)) {
      CheckRoundTrip(statement);
    }
  } catch (const silt::Error&) {
  }
  try {
    silt::sql::ToString(*silt::sql::ParseExpression(text));
  } catch (const silt::Error&) {
  }
  try {
    silt::sql::ParseDataType(text);
  } catch (const silt::Error&) {
  }
  return 0;
}
