#include "silt/io/batch_delete.h"

namespace silt::io {

size_t DeleteFiles(FileSystem& fs, const std::vector<std::string>& paths) {
  if (auto* batch = dynamic_cast<BatchDeleting*>(&fs)) return batch->DeleteFiles(paths);
  size_t deleted = 0;
  for (const std::string& path : paths) {
    if (fs.Delete(path)) ++deleted;
  }
  return deleted;
}

}  // namespace silt::io
