#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

/// What the engine asks of the machine it runs on beyond files: its memory and a private
/// scratch folder on local disk (for data an operator moves out of memory).
namespace silt::io {

/// The machine's physical memory in bytes (sysconf); 0 when the system cannot say.
int64_t PhysicalMemoryBytes();

/// The system's folder for temporary files: $TMPDIR when set, else /tmp. No trailing '/'.
std::string SystemTemporaryFolder();

/// A fresh folder of its own on local disk, removed with everything in it when the object is
/// destroyed (also while an exception unwinds). Thread-safe: NewFilePath may be called from any
/// thread.
class ScratchFolder {
 public:
  /// Creates `parent` when missing and a new folder "silt-spill-XXXXXX" in it. Throws IO_ERROR
  /// when either cannot be created.
  static std::unique_ptr<ScratchFolder> Create(const std::string& parent);
  ~ScratchFolder();
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;

  /// The folder's absolute path, without a trailing '/'.
  const std::string& path() const { return path_; }
  /// A path in the folder that no earlier call returned, ending in `suffix`.
  std::string NewFilePath(const std::string& suffix);

 private:
  explicit ScratchFolder(std::string path) : path_(std::move(path)) {}

  std::string path_;
  std::atomic<uint64_t> next_file_{0};
};

}  // namespace silt::io
