// The local-disk backend: POSIX calls only (no std::filesystem), so every failure can be reported
// with the exact path and errno text, and PutIfAbsent can rely on link(2)'s create-only semantics.

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "silt/base/check.h"
#include "silt/io/file_system.h"
#include "silt/io/path.h"

namespace silt::io {
namespace {

// Large enough that writers producing many small pieces (JSON lines, Parquet pages) do not pay one
// system call each; small enough not to matter per open stream.
constexpr size_t kWriteBufferSize = size_t{64} * 1024;

[[noreturn]] void ThrowIoError(const std::string& path, const std::string& action, int error) {
  SILT_THROW(IO_ERROR, {{"path", path}, {"message", action + ": " + std::strerror(error)}});
}

int64_t ToMilliseconds(const struct timespec& time) {
  return static_cast<int64_t>(time.tv_sec) * 1000 + time.tv_nsec / 1000000;
}

FileInfo MakeFileInfo(std::string path, const struct stat& status) {
  FileInfo info;
  info.path = std::move(path);
  info.is_directory = S_ISDIR(status.st_mode);
  info.size = info.is_directory ? 0 : static_cast<uint64_t>(status.st_size);
  info.modification_time_ms = ToMilliseconds(status.st_mtim);
  return info;
}

// Opens `path` retrying on EINTR; returns -1 with errno set on failure.
int OpenRetrying(const char* path, int flags, mode_t mode = 0) {
  int descriptor;
  do {
    descriptor = ::open(path, flags, mode);
  } while (descriptor < 0 && errno == EINTR);
  return descriptor;
}

// Writes all of `data` to `descriptor`, throwing IO_ERROR naming `path` on failure.
void WriteFully(int descriptor, const std::string& path, const char* data, size_t length) {
  while (length > 0) {
    ssize_t written = ::write(descriptor, data, length);
    if (written < 0) {
      if (errno == EINTR) continue;
      ThrowIoError(path, "write failed", errno);
    }
    data += written;
    length -= static_cast<size_t>(written);
  }
}

void SyncDescriptor(int descriptor, const std::string& path) {
  while (::fsync(descriptor) != 0) {
    if (errno != EINTR) ThrowIoError(path, "fsync failed", errno);
  }
}

// Makes a folder's entries (a new link or rename inside it) durable. Some file systems refuse
// fsync on a folder descriptor (EINVAL); there the entry is as durable as the platform allows.
void SyncFolder(const std::string& folder) {
  std::string target = folder.empty() ? "." : folder;
  int descriptor = OpenRetrying(target.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (descriptor < 0) ThrowIoError(target, "cannot open folder to sync it", errno);
  int result;
  do {
    result = ::fsync(descriptor);
  } while (result != 0 && errno == EINTR);
  int error = errno;
  ::close(descriptor);
  if (result != 0 && error != EINVAL && error != EROFS) {
    ThrowIoError(target, "fsync of folder failed", error);
  }
}

// Creates `folder` and its missing ancestors, like `mkdir -p`.
void CreateFolders(std::string_view folder) {
  folder = TrimTrailingSeparators(folder);
  if (folder.empty() || folder == "/") return;
  std::string as_string(folder);
  struct stat status {};
  if (::stat(as_string.c_str(), &status) == 0) {
    if (S_ISDIR(status.st_mode)) return;
    ThrowIoError(as_string, "cannot create folder", ENOTDIR);
  }
  CreateFolders(ParentPath(folder));
  if (::mkdir(as_string.c_str(), 0755) != 0 && errno != EEXIST) {
    ThrowIoError(as_string, "cannot create folder", errno);
  }
}

class LocalRandomAccessFile final : public RandomAccessFile {
 public:
  LocalRandomAccessFile(std::string path, int descriptor, uint64_t size)
      : path_(std::move(path)), descriptor_(descriptor), size_(size) {}
  ~LocalRandomAccessFile() override { ::close(descriptor_); }
  LocalRandomAccessFile(const LocalRandomAccessFile&) = delete;
  LocalRandomAccessFile& operator=(const LocalRandomAccessFile&) = delete;
  LocalRandomAccessFile(LocalRandomAccessFile&&) = delete;
  LocalRandomAccessFile& operator=(LocalRandomAccessFile&&) = delete;

  uint64_t Size() const override { return size_; }

  // pread does not move a shared file offset, so concurrent readers need no lock.
  size_t ReadAt(uint64_t offset, size_t length, void* out) override {
    char* destination = static_cast<char*>(out);
    size_t total = 0;
    while (total < length) {
      ssize_t got = ::pread(descriptor_, destination + total, length - total,
                            static_cast<off_t>(offset + total));
      if (got < 0) {
        if (errno == EINTR) continue;
        ThrowIoError(path_,
                     "read of " + std::to_string(length) + " bytes at offset " +
                         std::to_string(offset) + " failed",
                     errno);
      }
      if (got == 0) break;  // End of file.
      total += static_cast<size_t>(got);
    }
    return total;
  }

  const std::string& path() const override { return path_; }

 private:
  std::string path_;
  int descriptor_;
  uint64_t size_;
};

class LocalOutputStream final : public OutputStream {
 public:
  LocalOutputStream(std::string path, int descriptor)
      : path_(std::move(path)), descriptor_(descriptor) {
    buffer_.reserve(kWriteBufferSize);
  }
  ~LocalOutputStream() override {
    try {
      Close();
    } catch (const Error&) {
      // The contract: destroying an open stream closes it and swallows errors.
    }
  }
  LocalOutputStream(const LocalOutputStream&) = delete;
  LocalOutputStream& operator=(const LocalOutputStream&) = delete;
  LocalOutputStream(LocalOutputStream&&) = delete;
  LocalOutputStream& operator=(LocalOutputStream&&) = delete;

  void Write(const void* data, size_t length) override {
    ThrowIfClosed("write");
    const char* bytes = static_cast<const char*>(data);
    if (buffer_.size() + length > kWriteBufferSize) {
      Flush();
      if (length >= kWriteBufferSize) {
        // Large writes skip the buffer instead of being copied through it.
        WriteFully(descriptor_, path_, bytes, length);
        position_ += length;
        return;
      }
    }
    buffer_.append(bytes, length);
    position_ += length;
  }

  void Sync() override {
    ThrowIfClosed("sync");
    Flush();
    SyncDescriptor(descriptor_, path_);
  }

  void Close() override {
    if (descriptor_ < 0) return;
    int descriptor = descriptor_;
    descriptor_ = -1;
    try {
      Flush(descriptor);
    } catch (...) {
      ::close(descriptor);
      throw;
    }
    // close(2) must not be retried on EINTR on Linux: the descriptor is gone either way.
    if (::close(descriptor) != 0 && errno != EINTR) {
      ThrowIoError(path_, "close failed", errno);
    }
  }

  uint64_t position() const override { return position_; }

 private:
  void ThrowIfClosed(const char* action) const {
    if (descriptor_ < 0) {
      ThrowIoError(path_, std::string(action) + " after close", EBADF);
    }
  }

  void Flush() { Flush(descriptor_); }
  void Flush(int descriptor) {
    if (buffer_.empty()) return;
    // Drop the buffer before writing so that a failed write is not repeated by a later Close.
    std::string pending;
    pending.swap(buffer_);
    buffer_.reserve(kWriteBufferSize);
    WriteFully(descriptor, path_, pending.data(), pending.size());
  }

  std::string path_;
  int descriptor_;
  std::string buffer_;
  uint64_t position_ = 0;
};

class LocalFileSystem final : public FileSystem {
 public:
  std::optional<FileInfo> Stat(const std::string& path) override {
    struct stat status {};
    if (::stat(path.c_str(), &status) != 0) {
      if (errno == ENOENT || errno == ENOTDIR) return std::nullopt;
      ThrowIoError(path, "stat failed", errno);
    }
    return MakeFileInfo(path, status);
  }

  std::vector<FileInfo> List(const std::string& dir, const std::string& start_after,
                             bool recursive) override {
    std::string folder(TrimTrailingSeparators(dir));
    std::string bound;
    if (!start_after.empty()) {
      bound = start_after.starts_with(ChildPrefix(folder)) ? start_after
                                                           : JoinPath(folder, start_after);
    }
    std::vector<FileInfo> entries;
    ListInto(folder, bound, recursive, &entries);
    // Sort on full paths: a depth-first walk in name order would put "a/x" before "a.b", but in
    // byte order '.' (0x2E) sorts before '/' (0x2F).
    std::sort(entries.begin(), entries.end(),
              [](const FileInfo& left, const FileInfo& right) { return left.path < right.path; });
    return entries;
  }

  std::unique_ptr<RandomAccessFile> OpenRead(const std::string& path) override {
    int descriptor = OpenRetrying(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (descriptor < 0) {
      if (errno == ENOENT || errno == ENOTDIR) SILT_THROW(PATH_NOT_FOUND, {{"path", path}});
      ThrowIoError(path, "cannot open for reading", errno);
    }
    struct stat status {};
    if (::fstat(descriptor, &status) != 0) {
      int error = errno;
      ::close(descriptor);
      ThrowIoError(path, "fstat failed", error);
    }
    if (S_ISDIR(status.st_mode)) {
      ::close(descriptor);
      ThrowIoError(path, "cannot open for reading", EISDIR);
    }
    return std::make_unique<LocalRandomAccessFile>(path, descriptor,
                                                   static_cast<uint64_t>(status.st_size));
  }

  std::unique_ptr<OutputStream> OpenWrite(const std::string& path) override {
    CreateFolders(ParentPath(path));
    int descriptor = OpenRetrying(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (descriptor < 0) ThrowIoError(path, "cannot open for writing", errno);
    return std::make_unique<LocalOutputStream>(path, descriptor);
  }

  PutOutcome PutIfAbsent(const std::string& path, std::string_view bytes) override {
    std::string folder(ParentPath(path));
    CreateFolders(folder);
    // The temporary name is hidden (leading '.') and ends in ".tmp", so Delta's log-name patterns
    // never match it, and it is unique across processes (pid) and threads (counter, random).
    std::string temporary_path =
        JoinPath(folder, "." + std::string(BaseName(path)) + "." + UniqueSuffix() + ".tmp");
    int descriptor =
        OpenRetrying(temporary_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (descriptor < 0) ThrowIoError(temporary_path, "cannot create temporary file", errno);
    try {
      WriteFully(descriptor, temporary_path, bytes.data(), bytes.size());
      SyncDescriptor(descriptor, temporary_path);
    } catch (...) {
      ::close(descriptor);
      ::unlink(temporary_path.c_str());
      throw;
    }
    if (::close(descriptor) != 0 && errno != EINTR) {
      int error = errno;
      ::unlink(temporary_path.c_str());
      ThrowIoError(temporary_path, "close failed", error);
    }
    PutOutcome outcome = PublishTemporary(temporary_path, path);
    if (outcome == PutOutcome::kCreated) SyncFolder(folder);
    return outcome;
  }

  bool Delete(const std::string& path) override {
    if (::unlink(path.c_str()) == 0) return true;
    if (errno == ENOENT || errno == ENOTDIR) return false;
    ThrowIoError(path, "delete failed", errno);
  }

  bool DeleteEmptyFolder(const std::string& path) override {
    if (::rmdir(path.c_str()) == 0) return true;
    if (errno == ENOENT || errno == ENOTDIR || errno == ENOTEMPTY || errno == EEXIST) return false;
    ThrowIoError(path, "folder removal failed", errno);
  }

  void Rename(const std::string& from, const std::string& to) override {
    struct stat status {};
    if (::lstat(from.c_str(), &status) != 0) {
      if (errno == ENOENT || errno == ENOTDIR) SILT_THROW(PATH_NOT_FOUND, {{"path", from}});
      ThrowIoError(from, "stat failed", errno);
    }
    CreateFolders(ParentPath(to));
    if (::rename(from.c_str(), to.c_str()) != 0) {
      if (errno == ENOENT && ::lstat(from.c_str(), &status) != 0) {
        SILT_THROW(PATH_NOT_FOUND, {{"path", from}});  // Removed concurrently.
      }
      ThrowIoError(from, "rename to " + to + " failed", errno);
    }
  }

  void SetModificationTime(const std::string& path, int64_t modification_time_ms) override {
    // Floor division so that times before the epoch keep a nanosecond part in [0, 1e9).
    int64_t seconds = modification_time_ms / 1000;
    int64_t milliseconds = modification_time_ms % 1000;
    if (milliseconds < 0) {
      milliseconds += 1000;
      seconds -= 1;
    }
    struct timespec times[2];
    times[0].tv_sec = 0;
    times[0].tv_nsec = UTIME_OMIT;  // Leave the access time alone.
    times[1].tv_sec = static_cast<time_t>(seconds);
    times[1].tv_nsec = static_cast<long>(milliseconds * 1000000);
    if (::utimensat(AT_FDCWD, path.c_str(), times, 0) != 0) {
      if (errno == ENOENT || errno == ENOTDIR) SILT_THROW(PATH_NOT_FOUND, {{"path", path}});
      ThrowIoError(path, "cannot set modification time", errno);
    }
  }

  Capabilities capabilities() const override {
    return Capabilities{.atomic_put_if_absent = true, .ordered_listing = true};
  }

 private:
  static std::string ChildPrefix(const std::string& folder) {
    if (folder.empty()) return "";
    return folder == "/" ? folder : folder + "/";
  }

  // Appends the entries of `folder` greater than `bound` (all when empty) to `entries`; recurses
  // into sub-folders when `recursive`, keeping files only.
  static void ListInto(const std::string& folder, const std::string& bound, bool recursive,
                       std::vector<FileInfo>* entries) {
    std::string open_path = folder.empty() ? "." : folder;
    DIR* directory = ::opendir(open_path.c_str());
    if (directory == nullptr) {
      if (errno == ENOENT || errno == ENOTDIR) return;
      ThrowIoError(open_path, "cannot list folder", errno);
    }
    std::unique_ptr<DIR, int (*)(DIR*)> closer(directory, &::closedir);
    int folder_descriptor = ::dirfd(directory);
    std::vector<std::string> sub_folders;
    while (true) {
      errno = 0;
      struct dirent* entry = ::readdir(directory);
      if (entry == nullptr) {
        if (errno != 0) ThrowIoError(open_path, "cannot read folder", errno);
        break;
      }
      std::string_view name = entry->d_name;
      if (name == "." || name == "..") continue;
      std::string path = JoinPath(folder, name);
      // A non-recursive listing can skip entries at or below the bound before paying for a stat;
      // a recursive one must still descend into a folder whose files may sort after the bound.
      bool below_bound = !bound.empty() && path <= bound;
      if (below_bound && !recursive) continue;
      struct stat status {};
      if (::fstatat(folder_descriptor, entry->d_name, &status, 0) != 0) {
        // An entry removed between readdir and stat (a concurrent delete or a PutIfAbsent
        // temporary) was simply not there.
        if (errno == ENOENT) continue;
        ThrowIoError(path, "stat failed", errno);
      }
      if (recursive && S_ISDIR(status.st_mode)) {
        sub_folders.push_back(std::move(path));
        continue;
      }
      if (below_bound) continue;
      entries->push_back(MakeFileInfo(std::move(path), status));
    }
    closer.reset();
    for (const std::string& sub_folder : sub_folders) {
      ListInto(sub_folder, bound, recursive, entries);
    }
  }

  // Makes `temporary_path` visible as `path` unless `path` exists; removes the temporary.
  static PutOutcome PublishTemporary(const std::string& temporary_path, const std::string& path) {
    if (::link(temporary_path.c_str(), path.c_str()) == 0) {
      ::unlink(temporary_path.c_str());
      return PutOutcome::kCreated;
    }
    int error = errno;
    if (error == EEXIST) {
      ::unlink(temporary_path.c_str());
      return PutOutcome::kAlreadyExists;
    }
    if (error == EPERM || error == ENOTSUP || error == EOPNOTSUPP || error == EMLINK) {
      // File systems without hard links (FAT, some FUSE mounts) may still offer an atomic
      // create-only rename.
      if (::renameat2(AT_FDCWD, temporary_path.c_str(), AT_FDCWD, path.c_str(), RENAME_NOREPLACE) ==
          0) {
        return PutOutcome::kCreated;
      }
      error = errno;
      ::unlink(temporary_path.c_str());
      if (error == EEXIST) return PutOutcome::kAlreadyExists;
      ThrowIoError(path, "create-only rename failed", error);
    }
    ::unlink(temporary_path.c_str());
    ThrowIoError(path, "create-only link failed", error);
  }

  static std::string UniqueSuffix() {
    static std::atomic<uint64_t> counter{0};
    thread_local std::mt19937_64 generator(std::random_device{}() ^
                                           static_cast<uint64_t>(::getpid()));
    char text[64];
    std::snprintf(text, sizeof(text), "%d.%llu.%016llx", static_cast<int>(::getpid()),
                  static_cast<unsigned long long>(counter.fetch_add(1)),
                  static_cast<unsigned long long>(generator()));
    return text;
  }
};

}  // namespace

std::shared_ptr<FileSystem> MakeLocalFileSystem() { return std::make_shared<LocalFileSystem>(); }

}  // namespace silt::io
