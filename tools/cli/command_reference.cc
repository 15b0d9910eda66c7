#include "command_reference.h"

#include <string_view>

namespace silt::cli {
namespace {

std::vector<std::string> Split(std::string_view text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t end = text.find(separator, start);
    parts.emplace_back(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return parts;
}

// CLI11 shows an option's type as the type name followed by each validator's description, ':'
// separated: "TEXT", "INT", "TEXT:FILE", "TEXT:{table,csv,json}".
void ReadValueType(const CLI::Option& option, OptionReference& reference) {
  if (option.get_expected_max() == 0) return;  // a flag
  std::vector<std::string> parts = Split(option.get_type_name(), ':');
  reference.value_name = parts[0].empty() ? "TEXT" : parts[0];
  reference.kind = ValueKind::kText;
  for (const std::string& part : parts) {
    if (part == "FILE" || part == "PATH") {
      reference.kind = ValueKind::kFile;
      reference.value_name = "FILE";
    } else if (part == "DIR") {
      reference.kind = ValueKind::kDirectory;
      reference.value_name = "DIR";
    } else if (part.size() >= 2 && part.front() == '{' && part.back() == '}') {
      reference.kind = ValueKind::kChoice;
      reference.choices = Split(std::string_view(part).substr(1, part.size() - 2), ',');
    }
  }
}

OptionReference DescribeOption(const CLI::Option& option) {
  OptionReference reference;
  for (const std::string& name : option.get_snames()) reference.names.push_back("-" + name);
  for (const std::string& name : option.get_lnames()) reference.names.push_back("--" + name);
  if (reference.names.empty()) reference.positional_name = option.get_name(/*positional=*/true);
  reference.description = option.get_description();
  reference.required = option.get_required();
  ReadValueType(option, reference);
  // Vector options take any number of values, or one value per occurrence when extra
  // arguments are not allowed; either way the option may be given again.
  reference.repeatable = option.get_items_expected_max() > 1;
  return reference;
}

CommandReference DescribeCommandUnder(const CLI::App& app, std::vector<std::string> path) {
  CommandReference command;
  command.path = std::move(path);
  command.path.push_back(app.get_name());
  command.description = app.get_description();
  command.requires_subcommand = app.get_require_subcommand_min() > 0;
  for (const CLI::Option* option : app.get_options()) {
    if (option->get_group().empty()) continue;  // hidden
    OptionReference reference = DescribeOption(*option);
    if (reference.positional()) {
      command.positionals.push_back(std::move(reference));
    } else {
      command.options.push_back(std::move(reference));
    }
  }
  for (const CLI::App* subcommand : app.get_subcommands({})) {
    if (subcommand->get_group().empty() || subcommand->get_disabled()) continue;
    command.subcommands.push_back(DescribeCommandUnder(*subcommand, command.path));
  }
  return command;
}

}  // namespace

std::string CommandReference::FullName() const {
  std::string name;
  for (const std::string& part : path) name += (name.empty() ? "" : " ") + part;
  return name;
}

CommandReference DescribeCommand(const CLI::App& app) { return DescribeCommandUnder(app, {}); }

}  // namespace silt::cli
