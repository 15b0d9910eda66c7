#pragma once

#include <string>

#include "silt/commands/table_health.h"

namespace silt::cli {

/// Renders `health` as one self-contained HTML page: inline CSS and inline SVG charts (file-size
/// histogram, rows added and removed per version, bytes per partition, deletion-vector density)
/// whose bars carry their numbers as text labels, plus the advice, maintenance and commit tables.
/// Nothing is loaded from the network; there are no scripts.
std::string RenderHealthHtml(const commands::TableHealth& health);

}  // namespace silt::cli
