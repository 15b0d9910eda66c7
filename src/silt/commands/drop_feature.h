#pragma once

// ALTER TABLE ... DROP FEATURE (private to src/silt/commands).

#include <memory>
#include <string>
#include <vector>

#include "silt/io/file_system.h"
#include "silt/log/transaction.h"

namespace silt::commands::internal {

/// Protocol version 7 bookkeeping as Delta does it around a feature's removal.
/// `protocol` with every feature it implies listed (Delta's denormalized): legacy protocols
/// become (r, 7) with the features of their versions; table-feature protocols are unchanged.
log::Protocol DenormalizedProtocol(const log::Protocol& protocol);
/// `protocol` in its weakest form (Delta's normalized): legacy versions when its features are
/// exactly those of a legacy (reader, writer) pair, otherwise the lowest reader version its
/// features need with writer version 7 and the feature lists. Legacy protocols are unchanged.
log::Protocol NormalizedProtocol(const log::Protocol& protocol);

/// What DropTableFeature needs besides the table.
struct DropFeatureOptions {
  /// For every commit the statement makes (its cancel request, clock).
  log::CommitOptions commit;
  /// The features the statements enforce themselves (see Transaction::Start).
  std::vector<std::string> enforced_features;
};

/// Removes table feature `name` from the table at `table_root`, as Delta's ALTER TABLE DROP
/// FEATURE does.
///
/// Writer features (inCommitTimestamp, rowTracking, domainMetadata, checkConstraints) go in one
/// commit with what they left in the table (properties, the row tracking domain and every file's
/// row ids). Reader-writer features first lose their traces in commits of their own:
/// deletionVectors (`delta.enableDeletionVectors` unset, files with deletion vectors rewritten,
/// tombstones for the deletion vector files of removed files), typeWidening
/// (`delta.enableTypeWidening` unset, files stored with older types rewritten, `delta.typeChanges`
/// removed), columnMapping (every file rewritten with logical names, the mode, max id and field
/// metadata removed), v2Checkpoint (`delta.checkpointPolicy` set to classic), vacuumProtocolCheck
/// (nothing to remove). Without TRUNCATE HISTORY the
/// history is then protected as Delta 4 does: three barrier checkpoints on empty commits, then one
/// commit that drops the feature, adds the checkpointProtection writer feature and sets
/// `delta.requireCheckpointProtectionBeforeVersion` to its own version, then a checkpoint of it.
/// With TRUNCATE HISTORY the legacy flow runs: after an empty commit and checkpoint a first run
/// that removed traces stops with DELTA_FEATURE_DROP_WAIT_FOR_RETENTION_PERIOD; a later run
/// cleans log files older than `delta.dropFeatureTruncateHistory.retentionDuration` (default 24
/// hours; cut-off at a minute boundary) and drops the feature when no commit left and no state at
/// the oldest checkpoint uses it, else DELTA_FEATURE_DROP_HISTORICAL_VERSIONS_EXIST.
/// checkpointProtection itself is dropped only with TRUNCATE HISTORY (else UNSUPPORTED_FEATURE),
/// once history before its protected version is gone (DELTA_FEATURE_DROP_HISTORICAL_VERSIONS_EXIST
/// until then). The protocol goes back to legacy versions when what is left allows.
///
/// Other errors, with Delta's classes: a `delta.` property name
/// (DELTA_FEATURE_DROP_FEATURE_IS_DELTA_PROPERTY), an unknown feature
/// (DELTA_FEATURE_DROP_UNSUPPORTED_CLIENT_FEATURE), one the protocol lacks
/// (DELTA_FEATURE_DROP_FEATURE_NOT_PRESENT), one Delta cannot drop
/// (DELTA_FEATURE_DROP_NONREMOVABLE_FEATURE), one other features need
/// (DELTA_FEATURE_DROP_DEPENDENT_FEATURE), TRUNCATE HISTORY for a feature without history
/// (DELTA_FEATURE_DROP_HISTORY_TRUNCATION_NOT_ALLOWED), traces back after the clean-up
/// (DELTA_FEATURE_DROP_CONFLICT_REVALIDATION_FAIL), CHECK constraints still present
/// (DELTA_CANNOT_DROP_CHECK_CONSTRAINT_FEATURE), column names a table without mapping cannot
/// hold (DELTA_INVALID_COLUMN_NAMES_WHEN_REMOVING_COLUMN_MAPPING), checkpointProtection without
/// TRUNCATE HISTORY (DELTA_FEATURE_CAN_ONLY_DROP_CHECKPOINT_PROTECTION_WITH_HISTORY_TRUNCATION)
/// or before its history expired (DELTA_FEATURE_DROP_CHECKPOINT_PROTECTION_WAIT_FOR_RETENTION_PERIOD),
/// and what commits throw. domainMetadata while domains are left is NOT_IMPLEMENTED.
void DropTableFeature(std::shared_ptr<io::FileSystem> fs, const std::string& table_root,
                      const std::string& name, bool truncate_history,
                      const DropFeatureOptions& options);

}  // namespace silt::commands::internal
