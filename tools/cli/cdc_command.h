#pragma once

#include <CLI/CLI.hpp>

namespace silt::cli {

/// Adds `silt cdc` to `app`: mirrors PostgreSQL tables into Delta tables through a logical
/// replication slot, exactly once (docs/cdc.md), one progress line per batch on stderr, until
/// Ctrl-C (or, with --available-now, until what was committed at start is applied).
void AddCdcCommand(CLI::App& app);

}  // namespace silt::cli
