#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "silt/io/file_system.h"

namespace silt::io {

/// A store that deletes many files in one request (S3's DeleteObjects). A FileSystem that is one
/// also derives from this; wrappers forward to what they wrap.
class BatchDeleting {
 public:
  virtual ~BatchDeleting() = default;
  /// Deletes every file of `paths`; returns how many were deleted (a store that cannot tell, as
  /// S3, counts every path).
  virtual size_t DeleteFiles(const std::vector<std::string>& paths) = 0;
};

/// Deletes `paths` (VACUUM's batches): in one request per thousand files where `fs` can, else one
/// by one. Returns how many files were deleted.
size_t DeleteFiles(FileSystem& fs, const std::vector<std::string>& paths);

}  // namespace silt::io
