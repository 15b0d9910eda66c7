#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "silt/sql/session_state.h"
#include "silt/stream/source.h"

namespace silt::stream {

/// Opens a source read as `STREAM name(arguments)` (or DataStreamReader.Format(name)): the
/// function's positional arguments and its named ones with the stream's options.
using SourceFunction = std::function<std::unique_ptr<Source>(
    sql::SessionState& session, const std::vector<std::string>& arguments, const StreamOptions& options)>;

/// Makes `STREAM name(...)` open a source of a layer above this one (the PostgreSQL change
/// stream of the cdc layer), which registers it at startup. `name` is compared in lower case; a
/// second registration of a name replaces the first. Thread-safe.
void RegisterSourceFunction(const std::string& name, SourceFunction function);

/// The function registered as `name`, or nullptr.
const SourceFunction* FindSourceFunction(std::string_view name);

/// The registered names, sorted, for messages.
std::vector<std::string> RegisteredSourceFunctions();

}  // namespace silt::stream
