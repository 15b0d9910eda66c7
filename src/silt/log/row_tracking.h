#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "silt/log/actions.h"

namespace silt::log {

// Row tracking (protocol "Row Tracking"): every row has a row id (the file's `baseRowId` plus the
// row's physical position, unless the file materializes a preserved id in a hidden column) and a
// row commit version (the file's `defaultRowCommitVersion`, unless materialized). The highest id
// handed out is the `rowIdHighWaterMark` of the `delta.rowTracking` domain.

inline constexpr std::string_view kRowTrackingDomain = "delta.rowTracking";
inline constexpr std::string_view kMaterializedRowIdColumnKey =
    "delta.rowTracking.materializedRowIdColumnName";
inline constexpr std::string_view kMaterializedRowCommitVersionColumnKey =
    "delta.rowTracking.materializedRowCommitVersionColumnName";

/// True when the protocol supports the rowTracking writer feature: writers then assign fresh row
/// ids and commit versions to every file they add.
bool IsRowTrackingSupported(const Protocol& protocol);

/// True when row tracking is supported and `delta.enableRowTracking` is true: every live file then
/// has `baseRowId` and `defaultRowCommitVersion`, and readers may ask for row ids.
bool IsRowTrackingEnabled(const Protocol& protocol, const Metadata& metadata);

/// True when `delta.rowTrackingSuspended` is true: writers assign nothing.
bool IsRowTrackingSuspended(const Metadata& metadata);

/// The `rowIdHighWaterMark` of a `delta.rowTracking` domain's configuration. Throws
/// DELTA_INVALID_LOG_ENTRY when the configuration holds no integer mark: handing out ids without
/// knowing the mark could repeat ids.
std::optional<int64_t> RowIdHighWaterMark(const DomainMetadata& domain);

/// The `delta.rowTracking` domain holding `high_water_mark`.
DomainMetadata RowTrackingDomain(int64_t high_water_mark);

/// When `metadata` enables row tracking, gives it the names of the hidden columns that
/// materialize preserved row ids and commit versions (`_row-id-col-<uuid>`,
/// `_row-commit-version-col-<uuid>`, as Delta names them) unless it has them. Throws
/// DELTA_ROW_TRACKING_ILLEGAL_PROPERTY_COMBINATION when row tracking is enabled and suspended.
void AssignMaterializedColumnNames(Metadata& metadata);

}  // namespace silt::log
