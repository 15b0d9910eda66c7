#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace silt::cli {

/// Adds `silt sql` to `app`: runs SQL from -e/-f arguments, a piped script, or an interactive
/// shell, through the public silt::Session.
void AddSqlCommand(CLI::App& app);

/// Collects SQL typed or read line by line and cuts it into statements at each `;` that ends one:
/// a `;` inside a string literal ('...', "...", with backslash escapes), a quoted identifier
/// (`...`), a `--` comment or a (nesting) `/* */` comment does not. Not thread-safe.
class StatementBuffer {
 public:
  /// Appends `line` and a line break; returns the statements it completed, in order, each with
  /// its text up to and including the `;`. Statements with nothing but whitespace and comments
  /// are dropped.
  std::vector<std::string> AddLine(std::string_view line);
  /// True when the text since the last complete statement holds more than whitespace and
  /// comments (a statement is still being typed).
  bool has_pending() const { return pending_has_content_; }
  /// The text since the last complete statement (whitespace and comments included).
  const std::string& pending() const { return pending_; }
  /// Returns the incomplete pending statement (empty when there is none) and clears it.
  std::string TakePending();

 private:
  enum class State { kCode, kSingleQuoted, kDoubleQuoted, kBackquoted, kLineComment };

  State state_ = State::kCode;
  int comment_depth_ = 0;
  std::string pending_;
  bool pending_has_content_ = false;
};

}  // namespace silt::cli
