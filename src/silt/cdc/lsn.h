#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace silt::cdc {

/// A position in PostgreSQL's write-ahead log (a byte offset), as the server reports it.
using Lsn = uint64_t;

/// PostgreSQL's text form: two hexadecimal halves, "16/B374D848".
std::string FormatLsn(Lsn lsn);
/// Parses "16/B374D848" (either case); nullopt for other text.
std::optional<Lsn> ParseLsn(std::string_view text);

/// Microseconds between the Unix epoch and PostgreSQL's epoch (2000-01-01 UTC), which the
/// replication protocol counts its times from.
inline constexpr int64_t kPostgresEpochOffsetMicros = 946684800LL * 1000000;

}  // namespace silt::cdc
