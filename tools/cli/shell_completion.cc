#include "shell_completion.h"

#include <string>
#include <vector>

namespace silt::cli {
namespace {

// A word in single quotes, safe in any shell position.
std::string Quote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

std::string Join(const std::vector<std::string>& words, const std::string& separator) {
  std::string joined;
  for (const std::string& word : words) joined += (joined.empty() ? "" : separator) + word;
  return joined;
}

// "_silt_parquet_cat": a shell function name for a command.
std::string FunctionName(const CommandReference& command) {
  std::string name;
  for (const std::string& part : command.path) {
    name += "_";
    for (char c : part) {
      bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
      name += plain ? c : '_';
    }
  }
  return name;
}

std::vector<const OptionReference*> ValueOptions(const CommandReference& command) {
  std::vector<const OptionReference*> options;
  for (const OptionReference& option : command.options) {
    if (option.takes_value()) options.push_back(&option);
  }
  return options;
}

std::string CasePattern(const std::vector<std::string>& names) {
  std::vector<std::string> quoted;
  for (const std::string& name : names) quoted.push_back(Quote(name));
  return Join(quoted, "|");
}

// --- bash ---------------------------------------------------------------------------------

// The bash statement that offers completions for a value of `kind`, or "" for free text.
std::string BashValueCompletion(const std::string& program_function, const OptionReference& value) {
  switch (value.kind) {
    case ValueKind::kFile:
      return program_function + "_paths -f";
    case ValueKind::kDirectory:
      return program_function + "_paths -d";
    case ValueKind::kChoice:
      return program_function + "_words " + Quote(Join(value.choices, " "));
    case ValueKind::kNone:
    case ValueKind::kText:
      return "";
  }
  return "";
}

void WriteBashWalk(const CommandReference& command, std::ostream& out) {
  std::vector<const OptionReference*> value_options = ValueOptions(command);
  if (command.subcommands.empty() && value_options.empty()) return;
  out << "      " << Quote(command.FullName()) << ")\n";
  out << "        case \"$word\" in\n";
  for (const CommandReference& subcommand : command.subcommands) {
    out << "          " << Quote(subcommand.path.back())
        << ") command=" << Quote(subcommand.FullName()) << " ;;\n";
  }
  if (!value_options.empty()) {
    std::vector<std::string> names;
    for (const OptionReference* option : value_options) {
      names.insert(names.end(), option->names.begin(), option->names.end());
    }
    out << "          " << CasePattern(names) << ") pending=\"$word\" ;;\n";
  }
  out << "        esac ;;\n";
}

void WriteBashCompletions(const std::string& program_function, const CommandReference& command,
                          std::ostream& out) {
  out << "    " << Quote(command.FullName()) << ")\n";
  out << "      case \"$pending\" in\n";
  for (const OptionReference* option : ValueOptions(command)) {
    std::string completion = BashValueCompletion(program_function, *option);
    if (!completion.empty()) {
      out << "        " << CasePattern(option->names) << ") " << completion << " ;;\n";
    }
  }
  std::vector<std::string> option_names;
  for (const OptionReference& option : command.options) {
    option_names.insert(option_names.end(), option.names.begin(), option.names.end());
  }
  std::vector<std::string> arguments;
  if (!command.subcommands.empty()) {
    std::vector<std::string> names;
    for (const CommandReference& subcommand : command.subcommands) {
      names.push_back(subcommand.path.back());
    }
    arguments.push_back(program_function + "_words " + Quote(Join(names, " ")));
  }
  for (const OptionReference& positional : command.positionals) {
    std::string completion = BashValueCompletion(program_function, positional);
    if (!completion.empty()) arguments.push_back(completion);
  }
  out << "        '')\n";
  out << "          if [[ $cur == -* ]]; then\n";
  out << "            " << program_function << "_words " << Quote(Join(option_names, " ")) << "\n";
  if (!arguments.empty()) {
    out << "          else\n";
    // Positional arguments of one kind are the common case; offer each kind once.
    std::vector<std::string> distinct;
    for (const std::string& argument : arguments) {
      bool seen = false;
      for (const std::string& other : distinct) seen = seen || other == argument;
      if (!seen) distinct.push_back(argument);
    }
    for (const std::string& argument : distinct) out << "            " << argument << "\n";
  }
  out << "          fi ;;\n";
  out << "      esac ;;\n";
}

// --- zsh ----------------------------------------------------------------------------------

std::string ZshBracketed(const std::string& text) {
  std::string escaped;
  for (char c : text) {
    if (c == '\\' || c == '[' || c == ']') escaped += '\\';
    escaped += c == '\n' ? ' ' : c;
  }
  return escaped;
}

std::string ZshAction(const OptionReference& value) {
  switch (value.kind) {
    case ValueKind::kFile:
      return "_files";
    case ValueKind::kDirectory:
      return "_files -/";
    case ValueKind::kChoice:
      return "(" + Join(value.choices, " ") + ")";
    case ValueKind::kNone:
    case ValueKind::kText:
      return " ";
  }
  return " ";
}

std::string ZshMessage(const OptionReference& value) {
  // The argument's name: "file" for a positional, "format" for --format.
  std::string message = value.positional() ? value.positional_name : value.names.back();
  message.erase(0, message.find_first_not_of('-'));
  for (char& c : message) {
    if (c == ':') c = ' ';
  }
  return message;
}

// The _arguments specs of one option, one per name: "(-f --file)--file=[Run ...]:file:_files".
std::vector<std::string> ZshOptionSpecs(const OptionReference& option) {
  std::vector<std::string> specs;
  std::string prefix = option.repeatable ? "*" : "(" + Join(option.names, " ") + ")";
  for (const std::string& name : option.names) {
    std::string spec = prefix + name;
    if (option.takes_value()) spec += name.compare(0, 2, "--") == 0 ? "=" : "+";
    spec += "[" + ZshBracketed(option.description) + "]";
    if (option.takes_value()) spec += ":" + ZshMessage(option) + ":" + ZshAction(option);
    specs.push_back(spec);
  }
  return specs;
}

std::string ZshPositionalSpec(const OptionReference& positional) {
  std::string prefix = positional.repeatable ? "*:" : positional.required ? ":" : "::";
  return prefix + ZshMessage(positional) + ":" + ZshAction(positional);
}

void WriteZshFunction(const CommandReference& command, std::ostream& out) {
  for (const CommandReference& subcommand : command.subcommands) {
    WriteZshFunction(subcommand, out);
  }
  std::vector<std::string> specs;
  for (const OptionReference& option : command.options) {
    for (std::string& spec : ZshOptionSpecs(option)) specs.push_back(std::move(spec));
  }
  for (const OptionReference& positional : command.positionals) {
    specs.push_back(ZshPositionalSpec(positional));
  }
  out << FunctionName(command) << "() {\n";
  if (command.subcommands.empty()) {
    out << "  _arguments -s -S";
    for (const std::string& spec : specs) out << " \\\n    " << Quote(spec);
    out << "\n}\n\n";
    return;
  }
  out << "  local curcontext=\"$curcontext\" state state_descr line\n";
  out << "  typeset -A opt_args\n";
  out << "  _arguments -C -s -S";
  for (const std::string& spec : specs) out << " \\\n    " << Quote(spec);
  // The command word is offered as if required: an optional one (::) would let the rest spec
  // below claim the first word.
  out << " \\\n    " << Quote(":command:->command") << " \\\n    " << Quote("*:: :->argument")
      << "\n";
  out << "  case $state in\n";
  out << "    command)\n";
  out << "      local -a commands\n";
  out << "      commands=(\n";
  for (const CommandReference& subcommand : command.subcommands) {
    std::string name = subcommand.path.back();
    std::string description = subcommand.description;
    for (char& c : description) c = c == '\n' ? ' ' : c;
    out << "        " << Quote(name + ":" + description) << "\n";
  }
  out << "      )\n";
  out << "      _describe -t commands " << Quote(command.FullName() + " command")
      << " commands ;;\n";
  out << "    argument)\n";
  out << "      case $words[1] in\n";
  for (const CommandReference& subcommand : command.subcommands) {
    out << "        " << Quote(subcommand.path.back()) << ") " << FunctionName(subcommand)
        << " ;;\n";
  }
  out << "      esac ;;\n";
  out << "  esac\n";
  out << "}\n\n";
}

}  // namespace

void WriteBashCompletion(const CommandReference& program, std::ostream& out) {
  std::string function = FunctionName(program);
  out << "# bash completion for " << program.FullName()
      << ". Generated from the command's own definition\n"
      << "# (" << program.FullName() << " --completion bash); edit the program, not this file.\n\n";
  out << function << "_words() {\n"
      << "  COMPREPLY+=($(compgen -W \"$1\" -- \"$cur\"))\n"
      << "}\n\n";
  out << "# $1: -f for files (and the folders on the way), -d for folders.\n"
      << function << "_paths() {\n"
      << "  local IFS=$'\\n'\n"
      << "  COMPREPLY+=($(compgen \"$1\" -- \"$cur\"))\n"
      << "  compopt -o filenames 2>/dev/null\n"
      << "  return 0\n"
      << "}\n\n";
  out << function << "() {\n"
      << "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" command=" << Quote(program.FullName())
      << " pending='' word i\n"
      << "  COMPREPLY=()\n"
      << "  # Walk the words before the cursor: a command name moves into that command; an\n"
      << "  # option that takes a value makes the next word (after an '=' word) its value.\n"
      << "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
      << "    word=\"${COMP_WORDS[i]}\"\n"
      << "    if [[ -n $pending ]]; then\n"
      << "      [[ $word == '=' ]] || pending=''\n"
      << "      continue\n"
      << "    fi\n"
      << "    case \"$command\" in\n";
  ForEachCommand(program, [&](const CommandReference& command) { WriteBashWalk(command, out); });
  out << "    esac\n"
      << "  done\n"
      << "  # bash splits --opt=value at '=': the cursor on '=' starts an empty value.\n"
      << "  if [[ -n $pending && $cur == '=' ]]; then cur=''; fi\n"
      << "  case \"$command\" in\n";
  ForEachCommand(program, [&](const CommandReference& command) {
    WriteBashCompletions(function, command, out);
  });
  out << "  esac\n"
      << "  return 0\n"
      << "}\n\n"
      << "complete -F " << function << " " << program.FullName() << "\n";
}

void WriteZshCompletion(const CommandReference& program, std::ostream& out) {
  out << "#compdef " << program.FullName() << "\n"
      << "# zsh completion for " << program.FullName()
      << ". Generated from the command's own definition\n"
      << "# (" << program.FullName() << " --completion zsh); edit the program, not this file.\n\n";
  WriteZshFunction(program, out);
  out << FunctionName(program) << " \"$@\"\n";
}

}  // namespace silt::cli
