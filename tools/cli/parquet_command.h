#pragma once

#include <CLI/CLI.hpp>

namespace silt::cli {

/// Adds `silt parquet schema|meta|cat` to `app`: inspect and print Parquet files through
/// silt's own reader.
void AddParquetCommands(CLI::App& app);

}  // namespace silt::cli
