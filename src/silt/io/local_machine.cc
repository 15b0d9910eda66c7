#include "silt/io/local_machine.h"

#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "silt/base/check.h"

namespace silt::io {

int64_t PhysicalMemoryBytes() {
  long pages = ::sysconf(_SC_PHYS_PAGES);
  long page_size = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return 0;
  return static_cast<int64_t>(pages) * static_cast<int64_t>(page_size);
}

std::string SystemTemporaryFolder() {
  const char* folder = ::getenv("TMPDIR");
  std::string path = folder != nullptr && folder[0] != '\0' ? folder : "/tmp";
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

std::unique_ptr<ScratchFolder> ScratchFolder::Create(const std::string& parent) {
  std::error_code error;
  std::filesystem::create_directories(parent, error);
  if (error) {
    SILT_THROW(IO_ERROR, {{"path", parent}, {"message", "cannot create folder: " + error.message()}});
  }
  std::string pattern = parent;
  if (pattern.empty() || pattern.back() != '/') pattern += '/';
  pattern += "silt-spill-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) {
    int code = errno;
    SILT_THROW(IO_ERROR, {{"path", pattern}, {"message", std::string("cannot create folder: ") + std::strerror(code)}});
  }
  return std::unique_ptr<ScratchFolder>(new ScratchFolder(std::move(pattern)));
}

ScratchFolder::~ScratchFolder() {
  std::error_code ignored;  // a destructor cannot report; what is left is in the temp folder
  std::filesystem::remove_all(path_, ignored);
}

std::string ScratchFolder::NewFilePath(const std::string& suffix) {
  return path_ + "/" + std::to_string(next_file_.fetch_add(1, std::memory_order_relaxed)) + suffix;
}

}  // namespace silt::io
