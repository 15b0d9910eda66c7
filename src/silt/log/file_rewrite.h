#pragma once

// Rewriting data files one for one, as Delta's REORG TABLE does: each file's live rows are read
// as the table reads them (deletion vectors applied, narrower stored types widened to the
// schema's) and written to a new file. Dropping a reader-writer table feature uses it to leave
// no trace of the feature in the files (deletion vectors purged, old types rewritten, physical
// column names replaced by logical ones).

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "silt/base/cancellation.h"
#include "silt/log/actions.h"
#include "silt/log/snapshot.h"

namespace silt {
class ThreadPool;
}

namespace silt::log {

/// How RewriteFiles writes.
struct FileRewriteOptions {
  /// The metadata the new files are written under; nullopt: the snapshot's. Removing column
  /// mapping passes metadata without it, so the new files use logical names.
  std::optional<Metadata> written_metadata;
  ThreadPool* pool = nullptr;  ///< nullptr: the default pool.
  /// Checked before each file. Not owned; nullptr = none.
  const Cancellation* cancellation = nullptr;
};

/// Writes the live rows of each of `files` (live files of `snapshot`) to a new file and returns
/// the new files' adds (dataChange=false); a file whose rows are all deleted yields none. Under
/// row tracking the rows keep their row ids and commit versions, materialized in the new files.
/// Throws the scan's and the writer's errors (DataFileWriter::Make's for the written metadata);
/// files written before a failure stay behind as orphans for VACUUM.
std::vector<AddFile> RewriteFiles(const std::shared_ptr<const Snapshot>& snapshot,
                                  const std::vector<AddFile>& files,
                                  const FileRewriteOptions& options = {});

/// The live files of `snapshot` whose Parquet footer stores a column of the table (matched by
/// physical name, nested fields by name) with another type than the table schema's: the files
/// written before a type change. Throws the Parquet reader's errors.
std::vector<AddFile> FilesWithOtherTypes(const std::shared_ptr<const Snapshot>& snapshot);

/// The live files of `snapshot`, a table with column mapping, whose Parquet footer stores a
/// column (or struct field) the table schema no longer has: data of dropped columns, which
/// REORG TABLE ... APPLY (PURGE) removes. Row tracking's materialized columns do not count.
/// Empty for a table without column mapping. Only the files `among` accepts are opened (empty:
/// all). Throws the Parquet reader's errors.
std::vector<AddFile> FilesWithDroppedColumns(const std::shared_ptr<const Snapshot>& snapshot,
                                             const std::function<bool(const AddFile&)>& among = {});

}  // namespace silt::log
