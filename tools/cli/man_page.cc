#include "man_page.h"

#include <string_view>

namespace silt::cli {
namespace {

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::string Bold(const std::string& text) { return "\\fB" + EscapeRoff(text) + "\\fR"; }
std::string Italic(const std::string& text) { return "\\fI" + EscapeRoff(text) + "\\fR"; }

// How a value is written after its option: "\fIdir\fR", or the choices "\fItable\fR|\fIcsv\fR".
std::string ValuePlaceholder(const OptionReference& option) {
  if (option.kind == ValueKind::kChoice) {
    std::string choices;
    for (const std::string& choice : option.choices) {
      choices += (choices.empty() ? "" : "|") + Italic(choice);
    }
    return choices;
  }
  std::string name = option.value_name;
  for (char& c : name) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return Italic(name);
}

std::string PositionalPlaceholder(const OptionReference& positional) {
  std::string placeholder = Italic(positional.positional_name);
  if (positional.repeatable) placeholder += " ...";
  return positional.required ? placeholder : "[" + placeholder + "]";
}

// "silt parquet cat [options] file": what a command's invocation looks like.
std::string Synopsis(const CommandReference& command) {
  std::string line = Bold(command.FullName());
  if (!command.options.empty()) line += " [" + Italic("options") + "]";
  for (const OptionReference& positional : command.positionals) {
    line += " " + PositionalPlaceholder(positional);
  }
  if (!command.subcommands.empty()) {
    line += command.requires_subcommand ? " " + Italic("command") : " [" + Italic("command") + "]";
  }
  return line;
}

void WriteParagraphs(const std::string& text, std::ostream& out) {
  for (const std::string& line : Lines(text)) {
    if (line.empty()) {
      out << ".PP\n";
    } else {
      out << EscapeRoff(line) << "\n";
    }
  }
}

void WriteOption(const OptionReference& option, std::ostream& out) {
  out << ".TP\n";
  std::string names;
  for (const std::string& name : option.names) names += (names.empty() ? "" : ", ") + Bold(name);
  if (option.takes_value()) names += " " + ValuePlaceholder(option);
  out << names << "\n";
  WriteParagraphs(option.description.empty() ? "-" : option.description, out);
}

void WritePositional(const OptionReference& positional, std::ostream& out) {
  out << ".TP\n" << Italic(positional.positional_name) << "\n";
  std::string description = positional.description;
  if (positional.required) description += description.empty() ? "Required." : " (required)";
  WriteParagraphs(description, out);
}

void WriteCommand(const CommandReference& command, std::ostream& out) {
  out << ".SS \"" << EscapeRoff(command.FullName()) << "\"\n";
  out << Synopsis(command) << "\n.PP\n";
  WriteParagraphs(command.description, out);
  if (!command.subcommands.empty()) {
    std::string names;
    for (const CommandReference& subcommand : command.subcommands) {
      names += (names.empty() ? "" : ", ") + Bold(subcommand.path.back());
    }
    out << ".PP\nIts commands: " << names << " (below).\n";
  }
  for (const OptionReference& positional : command.positionals) WritePositional(positional, out);
  for (const OptionReference& option : command.options) WriteOption(option, out);
}

void WriteEntries(const std::vector<std::pair<std::string, std::string>>& entries,
                  std::ostream& out) {
  for (const auto& [term, meaning] : entries) {
    out << ".TP\n" << Bold(term) << "\n";
    WriteParagraphs(meaning, out);
  }
}

// The program's one-line summary for NAME: the first line of its description without a
// leading "silt: " and a closing full stop.
std::string Summary(const CommandReference& program) {
  std::string summary = Lines(program.description).front();
  std::string prefix = program.FullName() + ": ";
  if (summary.compare(0, prefix.size(), prefix) == 0) summary.erase(0, prefix.size());
  if (!summary.empty() && summary.back() == '.') summary.pop_back();
  return summary;
}

}  // namespace

std::string EscapeRoff(const std::string& text) {
  std::string escaped;
  if (!text.empty() && (text[0] == '.' || text[0] == '\'')) escaped = "\\&";
  for (char c : text) {
    switch (c) {
      case '\\':
        escaped += "\\e";
        break;
      case '-':
        escaped += "\\-";
        break;
      case '"':
        escaped += "\\(dq";
        break;
      default:
        escaped += c;
    }
  }
  return escaped;
}

void WriteManPage(const CommandReference& program, const ManPageText& text, std::ostream& out) {
  std::string name = program.FullName();
  std::string title;
  for (char c : name) title += static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  out << ".\\\" Generated from the command's own definition; edit the program, not this page.\n";
  out << ".TH " << EscapeRoff(title) << " 1 \"\" \"" << EscapeRoff(text.version)
      << "\" \"User Commands\"\n";
  // No hyphenation: option names and paths must read (and copy) as typed.
  out << ".nh\n";
  out << ".SH NAME\n" << EscapeRoff(name) << " \\- " << EscapeRoff(Summary(program)) << "\n";

  out << ".SH SYNOPSIS\n";
  bool first = true;
  ForEachCommand(program, [&](const CommandReference& command) {
    if (command.requires_subcommand) return;
    if (!first) out << ".br\n";
    first = false;
    out << Synopsis(command) << "\n";
  });

  out << ".SH DESCRIPTION\n";
  WriteParagraphs(program.description, out);
  if (!program.options.empty()) {
    out << ".SH OPTIONS\n";
    for (const OptionReference& option : program.options) WriteOption(option, out);
  }
  if (!program.subcommands.empty()) {
    out << ".SH COMMANDS\n";
    for (const CommandReference& command : program.subcommands) {
      ForEachCommand(command, [&](const CommandReference& each) { WriteCommand(each, out); });
    }
  }
  if (!text.exit_status.empty()) {
    out << ".SH \"EXIT STATUS\"\n";
    WriteEntries(text.exit_status, out);
  }
  if (!text.environment.empty()) {
    out << ".SH ENVIRONMENT\n";
    WriteEntries(text.environment, out);
  }
}

}  // namespace silt::cli
