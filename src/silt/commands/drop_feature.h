#pragma once

// ALTER TABLE ... DROP FEATURE (private to src/silt/commands).

#include <memory>
#include <string>

#include "silt/log/snapshot.h"
#include "silt/log/transaction.h"

namespace silt::commands::internal {

/// Removes table feature `name` from the table in `txn` (read at `snapshot`), as Delta's
/// ALTER TABLE DROP FEATURE does for the writer features silt can remove: inCommitTimestamp and
/// rowTracking (their properties and, for row tracking, the domain and every file's row ids go in
/// the same commit), domainMetadata (its domains removed) and checkConstraints (once no CHECK
/// constraint is left). `metadata` is the metadata the statement commits; the protocol loses the
/// feature and returns to legacy versions when what is left allows. Errors, with Delta's classes:
/// a `delta.` property name (DELTA_FEATURE_DROP_FEATURE_IS_DELTA_PROPERTY), an unknown feature
/// (DELTA_FEATURE_DROP_UNSUPPORTED_CLIENT_FEATURE), one the protocol lacks
/// (DELTA_FEATURE_DROP_FEATURE_NOT_PRESENT), one Delta cannot drop
/// (DELTA_FEATURE_DROP_NONREMOVABLE_FEATURE), one other features need
/// (DELTA_FEATURE_DROP_DEPENDENT_FEATURE), TRUNCATE HISTORY for a feature without history
/// (DELTA_FEATURE_DROP_HISTORY_TRUNCATION_NOT_ALLOWED). CHECK constraints still present are
/// UNSUPPORTED_FEATURE naming them (Delta's DELTA_CANNOT_DROP_CHECK_CONSTRAINT_FEATURE is not in
/// the registry). Reader-writer features, which need the history protection of barrier
/// checkpoints, are NOT_IMPLEMENTED.
void DropTableFeature(const std::shared_ptr<const log::Snapshot>& snapshot, log::Transaction& txn,
                      log::Metadata& metadata, const std::string& name, bool truncate_history);

}  // namespace silt::commands::internal
