#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace silt::io {

/// What Stat and List report about one entry.
struct FileInfo {
  std::string path;                  ///< Full path, as passed in plus the entry name.
  uint64_t size = 0;                 ///< Bytes; 0 for directories.
  int64_t modification_time_ms = 0;  ///< Milliseconds since the Unix epoch.
  bool is_directory = false;

  bool operator==(const FileInfo&) const = default;
};

/// What a backend guarantees; the commit path refuses a backend without atomic put-if-absent.
struct Capabilities {
  bool atomic_put_if_absent = false;
  bool ordered_listing = false;
};

/// The result of PutIfAbsent: losing the race is an expected outcome, not an error.
enum class PutOutcome { kCreated, kAlreadyExists };

/// A file open for positional reads. Safe to call from several threads at once.
class RandomAccessFile {
 public:
  virtual ~RandomAccessFile() = default;
  /// The file's size in bytes when it was opened.
  virtual uint64_t Size() const = 0;
  /// Reads up to `length` bytes at `offset` into `out`; returns how many were read, which is less
  /// than `length` only at the end of the file. Throws IO_ERROR on failure.
  virtual size_t ReadAt(uint64_t offset, size_t length, void* out) = 0;
  /// Reads exactly `length` bytes at `offset`; a short read throws IO_ERROR naming the file.
  void ReadExactly(uint64_t offset, size_t length, void* out);
  /// Reads the whole file.
  std::string ReadAll();
  /// The path it was opened with (for error messages).
  virtual const std::string& path() const = 0;
};

/// A file being written. Bytes become visible to readers after Close (for the local backend,
/// possibly earlier). Not thread-safe. Destroying an open stream closes it, swallowing errors.
class OutputStream {
 public:
  virtual ~OutputStream() = default;
  virtual void Write(const void* data, size_t length) = 0;
  void Write(std::string_view data) { Write(data.data(), data.size()); }
  /// Makes what was written so far durable (fsync locally).
  virtual void Sync() = 0;
  /// Flushes and closes; further writes are an error. Throws IO_ERROR on failure.
  virtual void Close() = 0;
  /// Bytes written so far.
  virtual uint64_t position() const = 0;
};

/// The storage boundary: nothing above io/ touches POSIX, std::filesystem or a cloud SDK.
///
/// Paths use '/' separators. Directories are implicit, as in an object store: writing a file
/// creates its parent folders, and a folder with no files in it may or may not be listed.
/// All methods are thread-safe. Failures throw silt::Error (IO_ERROR, PATH_NOT_FOUND).
class FileSystem {
 public:
  virtual ~FileSystem() = default;

  /// Returns the entry at `path`, or nullopt when nothing is there. A folder is reported with
  /// `is_directory`, size 0 (its modification time is backend-specific). Throws IO_ERROR when the
  /// storage cannot answer.
  virtual std::optional<FileInfo> Stat(const std::string& path) = 0;

  /// Lists the entries directly inside folder `dir` (or, with `recursive`, every file below it,
  /// without folder entries), sorted by path in byte order, keeping only paths greater than
  /// `start_after` when it is not empty. A missing folder (or a file) lists as empty.
  ///
  /// Returned paths are `JoinPath(dir, relative name)`, e.g.
  /// "t/_delta_log/00000000000000000003.json" for `dir` "t/_delta_log" or "t/_delta_log/".
  /// `start_after` may be written either the same way (a full path beginning with `dir` + '/') or
  /// relative to `dir` ("00000000000000000003.json"); both mean the same bound. Throws IO_ERROR
  /// when the folder exists but cannot be read.
  virtual std::vector<FileInfo> List(const std::string& dir, const std::string& start_after = "",
                                     bool recursive = false) = 0;

  /// Opens `path` for reading; throws PATH_NOT_FOUND when it does not exist.
  virtual std::unique_ptr<RandomAccessFile> OpenRead(const std::string& path) = 0;

  /// Creates or truncates `path` for writing.
  virtual std::unique_ptr<OutputStream> OpenWrite(const std::string& path) = 0;

  /// Atomically creates `path` holding `bytes` unless it already exists. Of any number of racing
  /// writers (threads or processes) exactly one gets kCreated; readers see either no file or the
  /// whole content, never part of it. The content is durable when kCreated is returned.
  virtual PutOutcome PutIfAbsent(const std::string& path, std::string_view bytes) = 0;

  /// Deletes the file at `path`; returns false when there was none.
  virtual bool Delete(const std::string& path) = 0;

  /// Removes the folder at `path` when nothing is in it (VACUUM tidies the partition folders it
  /// emptied); returns true when a folder was removed. A folder that holds anything, a missing
  /// path and a file are left alone (false). Stores whose folders are implicit have nothing to
  /// remove: the default returns false.
  virtual bool DeleteEmptyFolder(const std::string& path);

  /// Moves `from` to `to`, replacing `to` if it exists; throws PATH_NOT_FOUND when `from` is
  /// missing.
  virtual void Rename(const std::string& from, const std::string& to) = 0;

  /// Sets the modification time of an existing file (Delta's commit timestamps are file times).
  virtual void SetModificationTime(const std::string& path, int64_t modification_time_ms) = 0;

  virtual Capabilities capabilities() const = 0;

  /// Convenience: writes `bytes` to `path` (create or overwrite), synced and closed.
  void WriteFile(const std::string& path, std::string_view bytes);
  /// Convenience: the whole content of `path`.
  std::string ReadFile(const std::string& path);
};

/// The local disk. `link`-based PutIfAbsent: the content goes to a unique temporary file that is
/// fsynced and then hard-linked to its name (create-only), so readers never see it partially.
std::shared_ptr<FileSystem> MakeLocalFileSystem();

/// A process-local in-memory file system (for tests).
std::shared_ptr<FileSystem> MakeMemoryFileSystem();

}  // namespace silt::io
