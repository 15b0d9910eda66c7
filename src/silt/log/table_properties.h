#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "silt/log/actions.h"

namespace silt::log {

/// Checks one table property that a statement sets (CREATE TABLE, CTAS, ALTER TABLE SET
/// TBLPROPERTIES) with the parser and rule Delta's `DeltaConfigs` gives its key, and returns the
/// pair to store: a known `delta.*` key in Delta's spelling (keys match case-insensitively, as
/// in Delta), the value as given. Keys Delta does not know, `delta.constraints.*` and
/// `delta.feature.*` pass unchanged. Throws INVALID_CONFIGURATION naming the key and the rule
/// for a malformed value, DELTA_UNSUPPORTED_COLUMN_MAPPING_MODE for a column mapping mode other
/// than none, id or name, and DELTA_CANNOT_MODIFY_TABLE_PROPERTY for a property only Delta sets.
std::pair<std::string, std::string> ValidateTableProperty(std::string_view key,
                                                          std::string_view value);

/// ValidateTableProperty over every entry, in order; a key given twice (in any case) keeps its
/// last value, as a map would.
StringMap ValidateTableProperties(const StringMap& properties);

/// Parses a byte count: digits with an optional unit (b, k/kb, m/mb, g/gb, t/tb, any case;
/// binary multiples, as Spark's byte strings). nullopt for anything else or an overflow.
std::optional<int64_t> ParseByteSize(std::string_view text);

/// `delta.dataSkippingNumIndexedCols` of `metadata`: how many leaf columns get statistics
/// (default 32; -1 means all). Throws INVALID_CONFIGURATION for a value that is not an integer.
int64_t NumIndexedColumns(const Metadata& metadata);

}  // namespace silt::log
