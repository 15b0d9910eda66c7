// The `silt` command: a thin front end. Every failure is printed as `[CLASS] message` on stderr
// and mapped to an exit code by its category (exit_codes.h).

#include <CLI/CLI.hpp>

#include <exception>
#include <iostream>
#include <string>

#include "exit_codes.h"
#include "parquet_command.h"
#include "sql_command.h"
#include "silt/error.h"

namespace {

constexpr const char* kDescription =
    "silt: a native engine for Delta Lake tables.\n"
    "Reads and writes the same Parquet files and logs as Spark's Delta Lake and delta-rs.";

}  // namespace

int main(int argc, char** argv) {
  CLI::App app(kDescription, "silt");
  app.set_version_flag("-V,--version", std::string("silt ") + SILT_VERSION);
  app.require_subcommand(0, 1);
  app.footer("Run 'silt <command> --help' for the options of a command.");
  silt::cli::AddSqlCommand(app);
  silt::cli::AddParquetCommands(app);

  try {
    app.parse(argc, argv);
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
