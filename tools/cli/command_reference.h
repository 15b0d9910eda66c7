#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace silt::cli {

/// What the value of an option or positional argument is, for documentation and completion.
/// Read from the option's type name and validators: `->type_name("FILE")` or
/// `->check(CLI::ExistingFile)` make a path, `->type_name("DIR")` a folder,
/// `->check(CLI::IsMember({...}))` a choice.
enum class ValueKind {
  kNone,       ///< a flag: takes no value
  kText,       ///< free text, a number or SQL: nothing to complete
  kFile,       ///< a file path
  kDirectory,  ///< a folder path
  kChoice,     ///< one of `choices`
};

/// One visible option or positional argument of a command, as its --help shows it.
struct OptionReference {
  std::vector<std::string> names;  ///< "-e", "--execute"; empty for a positional argument
  std::string positional_name;     ///< "file" for a positional argument
  std::string value_name;          ///< "TEXT", "INT", "FILE", "DIR"; empty for a flag
  ValueKind kind = ValueKind::kNone;
  std::vector<std::string> choices;
  std::string description;
  bool required = false;
  bool repeatable = false;

  bool positional() const { return names.empty(); }
  bool takes_value() const { return kind != ValueKind::kNone; }
};

/// One command of the `silt` tree (the program itself, `silt sql`, `silt parquet cat`, ...).
struct CommandReference {
  std::vector<std::string> path;  ///< {"silt"}, {"silt", "parquet", "cat"}
  std::string description;
  std::vector<OptionReference> options;      ///< named options, -h/--help and -V/--version included
  std::vector<OptionReference> positionals;  ///< in command-line order
  std::vector<CommandReference> subcommands;
  bool requires_subcommand = false;

  /// The path joined with spaces: "silt parquet cat".
  std::string FullName() const;
};

/// Describes `app` and every visible subcommand under it, in definition order. Hidden options
/// and subcommands (empty group) are left out, so the generated documents show what --help
/// shows.
CommandReference DescribeCommand(const CLI::App& app);

/// Calls `visit` for `command` and then each command below it, depth first.
template <typename Visit>
void ForEachCommand(const CommandReference& command, const Visit& visit) {
  visit(command);
  for (const CommandReference& subcommand : command.subcommands) ForEachCommand(subcommand, visit);
}

}  // namespace silt::cli
