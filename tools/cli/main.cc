// The `silt` command: a thin front end. Every failure is printed as `[CLASS] message` on stderr
// and mapped to an exit code by its category (exit_codes.h).

#include <CLI/CLI.hpp>

#include <exception>
#include <iostream>
#include <string>

#include "cdc_command.h"
#include "command_reference.h"
#include "exit_codes.h"
#include "man_page.h"
#include "parquet_command.h"
#include "report_command.h"
#include "shell_completion.h"
#include "sql_command.h"
#include "silt/error.h"

namespace {

constexpr const char* kDescription =
    "silt: a native engine for Delta Lake tables.\n"
    "Reads and writes the same Parquet files and logs as Spark's Delta Lake and delta-rs.";

// Hidden options that print the manual page and shell completions from the definition of every
// command, so the installed documents cannot drift from --help. The build runs them.
struct ReferenceOptions {
  bool man_page = false;
  std::string completion_shell;
};

void AddReferenceOptions(CLI::App& app, ReferenceOptions& options) {
  app.add_flag("--help-man", options.man_page, "Print the manual page (roff)")->group("");
  app.add_option("--completion", options.completion_shell, "Print a completion script")
      ->check(CLI::IsMember({"bash", "zsh"}))
      ->group("");
}

void PrintReference(const CLI::App& app, const ReferenceOptions& options) {
  silt::cli::CommandReference program = silt::cli::DescribeCommand(app);
  if (options.man_page) {
    silt::cli::ManPageText text;
    text.version = std::string("silt ") + SILT_VERSION;
    for (const silt::cli::ExitCodeMeaning& entry : silt::cli::kExitCodeMeanings) {
      text.exit_status.emplace_back(std::to_string(entry.code), entry.meaning);
    }
    text.environment.emplace_back(
        "SILT_WAREHOUSE",
        "The warehouse folder of the named tables when --warehouse is not given; without "
        "either, ./silt-warehouse.");
    silt::cli::WriteManPage(program, text, std::cout);
  } else if (options.completion_shell == "bash") {
    silt::cli::WriteBashCompletion(program, std::cout);
  } else {
    silt::cli::WriteZshCompletion(program, std::cout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app(kDescription, "silt");
  app.set_version_flag("-V,--version", std::string("silt ") + SILT_VERSION);
  app.require_subcommand(0, 1);
  app.footer("Run 'silt <command> --help' for the options of a command.");
  silt::cli::AddSqlCommand(app);
  silt::cli::AddCdcCommand(app);
  silt::cli::AddParquetCommands(app);
  silt::cli::AddReportCommand(app);
  ReferenceOptions reference_options;
  AddReferenceOptions(app, reference_options);

  try {
    app.parse(argc, argv);
    if (reference_options.man_page || !reference_options.completion_shell.empty()) {
      PrintReference(app, reference_options);
      return silt::cli::kExitOk;
    }
    if (app.get_subcommands().empty()) {
      std::cout << app.help();
      return silt::cli::kExitOk;
    }
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return silt::cli::kExitUsage;
  } catch (const silt::Error& e) {
    std::cerr << e.what() << std::endl;
    return silt::cli::ExitCodeFor(e);
  } catch (const std::exception& e) {
    std::cerr << "[INTERNAL_ERROR] " << e.what() << std::endl;
    return silt::cli::kExitInternal;
  }
  return silt::cli::kExitOk;
}
