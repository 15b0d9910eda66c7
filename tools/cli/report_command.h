#pragma once

#include <CLI/CLI.hpp>

namespace silt::cli {

/// Adds `silt report TABLE [--warehouse DIR] [--format text|json] [--html FILE]` to `app`: the
/// health of a Delta table (commands/table_health.h) as text, JSON, or a self-contained HTML page.
void AddReportCommand(CLI::App& app);

}  // namespace silt::cli
