#pragma once

#include <memory>

#include "silt/io/file_system.h"
#include "silt/io/storage_options.h"

namespace silt::io {

/// The file system a session uses: the one place where a path's scheme picks its store. A plain
/// path or a "file:" URL is the local disk; "s3://" and "s3a://" are Amazon S3 (or an
/// S3-compatible store), one client per bucket; "abfss://", "abfs://", "wasbs://", "wasb://" and
/// "az://" are Azure Blob Storage / ADLS Gen2, one client per container; both configured from
/// `options`. Any other scheme throws FILE_SYSTEM_SCHEME_NOT_SUPPORTED naming it, so that no URL
/// ever becomes a local folder.
/// Paths keep their spelling: what List returns starts with the `dir` that was passed in.
/// The object stores of one such file system (a session's) share their request counts (read
/// them with StorageStatisticsOf) and a cache of immutable files bounded by
/// `silt.storage.cache.maxBytes` (default 256 MiB; see ObjectReadFile).
std::shared_ptr<FileSystem> MakeStorageFileSystem(std::shared_ptr<StorageOptions> options);

}  // namespace silt::io
