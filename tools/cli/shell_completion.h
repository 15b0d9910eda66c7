#pragma once

#include <ostream>

#include "command_reference.h"

namespace silt::cli {

/// Writes a bash completion script for `program`: a function `_<program>` registered with
/// `complete -F`. It completes subcommand names, each command's options, the choices of a
/// choice option, paths for FILE and DIR values and file arguments (also after `--opt=`), and
/// nothing for free-text values such as SQL. Needs bash 4 and no bash-completion helpers.
void WriteBashCompletion(const CommandReference& program, std::ostream& out);

/// Writes a zsh completion function (`#compdef <program>`, for a file named `_<program>` on
/// $fpath) built on `_arguments`, with the same coverage and option descriptions.
void WriteZshCompletion(const CommandReference& program, std::ostream& out);

}  // namespace silt::cli
