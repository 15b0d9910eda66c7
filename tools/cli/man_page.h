#pragma once

#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "command_reference.h"

namespace silt::cli {

/// What the manual page says beyond the command tree.
struct ManPageText {
  std::string version;  ///< "silt 0.1.0", shown in the page footer
  /// EXIT STATUS entries: the code and what it means.
  std::vector<std::pair<std::string, std::string>> exit_status;
  /// ENVIRONMENT entries: the variable and what it does.
  std::vector<std::pair<std::string, std::string>> environment;
};

/// Writes the section-1 manual page of `program` in roff (man macros): NAME and DESCRIPTION from
/// the program's description, a SYNOPSIS line per runnable command, the program's options, then
/// one subsection per command with its arguments and options as --help lists them, and the
/// EXIT STATUS and ENVIRONMENT sections of `text`. Text is escaped, so descriptions may hold
/// any character.
void WriteManPage(const CommandReference& program, const ManPageText& text, std::ostream& out);

/// Escapes `text` for a roff text line: backslashes, minus signs (so options copy as typed) and
/// a leading '.' or '\''.
std::string EscapeRoff(const std::string& text);

}  // namespace silt::cli
