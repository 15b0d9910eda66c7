#pragma once

#include <vector>

#include "silt/types/time_zone.h"
#include "silt/vector/batch.h"

namespace silt {

/// Rows for display in a session time zone. TIMESTAMP values are instants (µs since the epoch,
/// UTC); Spark shows them as the wall-clock time of the session zone. This returns batches whose
/// TIMESTAMP values (at any depth: struct fields, array elements, map keys and values) hold the
/// zone's local time instead, so that the UTC-based text formatters (FormatShow, FormatCsv,
/// FormatJsonLines, Vector::ValueToString) print local time. For display only: the result's
/// timestamps no longer denote the original instants. Batches without TIMESTAMP columns, and a
/// zone fixed at UTC, are returned unchanged (shared, not copied).
std::vector<Batch> TimestampsAsLocalTime(const std::vector<Batch>& batches, const TimeZone& zone);

}  // namespace silt
