// The in-memory backend. Files are immutable shared buffers swapped in whole at Close, so an open
// reader keeps the content it opened and readers never need the lock.

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "silt/base/check.h"
#include "silt/io/file_system.h"
#include "silt/io/path.h"

namespace silt::io {
namespace {

int64_t NowMilliseconds() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The prefix every path strictly below `folder` starts with.
std::string ChildPrefix(const std::string& folder) {
  if (folder.empty()) return "";
  return folder == "/" ? folder : folder + "/";
}

class MemoryRandomAccessFile final : public RandomAccessFile {
 public:
  MemoryRandomAccessFile(std::string path, std::shared_ptr<const std::string> content)
      : path_(std::move(path)), content_(std::move(content)) {}

  uint64_t Size() const override { return content_->size(); }

  size_t ReadAt(uint64_t offset, size_t length, void* out) override {
    if (offset >= content_->size()) return 0;
    size_t count = std::min<uint64_t>(length, content_->size() - offset);
    std::copy_n(content_->data() + offset, count, static_cast<char*>(out));
    return count;
  }

  const std::string& path() const override { return path_; }

 private:
  std::string path_;
  std::shared_ptr<const std::string> content_;
};

class MemoryFileSystem final : public FileSystem,
                               public std::enable_shared_from_this<MemoryFileSystem> {
 public:
  struct File {
    std::shared_ptr<const std::string> content;
    int64_t modification_time_ms = 0;
  };

  std::optional<FileInfo> Stat(const std::string& path) override {
    std::string key = NormalizePath(path);
    std::lock_guard lock(mutex_);
    auto found = files_.find(key);
    if (found != files_.end()) {
      return FileInfo{.path = path,
                      .size = found->second.content->size(),
                      .modification_time_ms = found->second.modification_time_ms,
                      .is_directory = false};
    }
    if (IsFolderLocked(key)) {
      return FileInfo{.path = path, .size = 0, .modification_time_ms = 0, .is_directory = true};
    }
    return std::nullopt;
  }

  std::vector<FileInfo> List(const std::string& dir, const std::string& start_after,
                             bool recursive) override {
    std::string folder(TrimTrailingSeparators(dir));
    std::string prefix = ChildPrefix(NormalizePath(folder));
    std::string bound;
    if (!start_after.empty()) {
      bound = start_after.starts_with(ChildPrefix(folder)) ? start_after
                                                           : JoinPath(folder, start_after);
    }
    std::vector<FileInfo> entries;
    std::lock_guard lock(mutex_);
    std::string last_folder;  // Sub-folders appear once per file below them; report each once.
    for (auto it = files_.lower_bound(prefix); it != files_.end(); ++it) {
      const std::string& key = it->first;
      if (!key.starts_with(prefix)) break;
      std::string_view relative = std::string_view(key).substr(prefix.size());
      size_t slash = relative.find('/');
      if (recursive || slash == std::string_view::npos) {
        std::string path = JoinPath(folder, relative);
        if (!bound.empty() && path <= bound) continue;
        entries.push_back(FileInfo{.path = std::move(path),
                                   .size = it->second.content->size(),
                                   .modification_time_ms = it->second.modification_time_ms,
                                   .is_directory = false});
        continue;
      }
      std::string child(relative.substr(0, slash));
      if (child == last_folder) continue;
      last_folder = child;
      std::string path = JoinPath(folder, child);
      if (!bound.empty() && path <= bound) continue;
      entries.push_back(FileInfo{
          .path = std::move(path), .size = 0, .modification_time_ms = 0, .is_directory = true});
    }
    // Keys iterate in byte order of the whole key, which puts "a.b" before the folder entry "a";
    // the contract orders entries by their reported path.
    std::sort(entries.begin(), entries.end(),
              [](const FileInfo& left, const FileInfo& right) { return left.path < right.path; });
    return entries;
  }

  std::unique_ptr<RandomAccessFile> OpenRead(const std::string& path) override {
    std::string key = NormalizePath(path);
    std::lock_guard lock(mutex_);
    auto found = files_.find(key);
    if (found == files_.end()) {
      if (IsFolderLocked(key)) {
        SILT_THROW(IO_ERROR, {{"path", path}, {"message", "cannot open a folder for reading"}});
      }
      SILT_THROW(PATH_NOT_FOUND, {{"path", path}});
    }
    return std::make_unique<MemoryRandomAccessFile>(path, found->second.content);
  }

  std::unique_ptr<OutputStream> OpenWrite(const std::string& path) override;

  PutOutcome PutIfAbsent(const std::string& path, std::string_view bytes) override {
    std::string key = NormalizePath(path);
    std::lock_guard lock(mutex_);
    // A folder at `path` counts as existing, as link(2) reports EEXIST for it locally.
    if (files_.contains(key) || IsFolderLocked(key)) return PutOutcome::kAlreadyExists;
    CheckAncestorsAreFoldersLocked(path, key);
    files_[key] = File{std::make_shared<const std::string>(bytes), NowMilliseconds()};
    return PutOutcome::kCreated;
  }

  bool Delete(const std::string& path) override {
    std::string key = NormalizePath(path);
    std::lock_guard lock(mutex_);
    if (files_.erase(key) > 0) return true;
    if (IsFolderLocked(key)) {
      SILT_THROW(IO_ERROR, {{"path", path}, {"message", "delete failed: is a folder"}});
    }
    return false;
  }

  void Rename(const std::string& from, const std::string& to) override {
    std::string from_key = NormalizePath(from);
    std::string to_key = NormalizePath(to);
    std::lock_guard lock(mutex_);
    auto found = files_.find(from_key);
    if (found != files_.end()) {
      if (from_key == to_key) return;
      if (IsFolderLocked(to_key)) {
        SILT_THROW(IO_ERROR, {{"path", from},
                              {"message", "rename to " + to + " failed: target is a folder"}});
      }
      CheckAncestorsAreFoldersLocked(to, to_key);
      File file = found->second;  // A rename keeps the modification time, as rename(2) does.
      files_.erase(found);
      files_[to_key] = std::move(file);
      return;
    }
    if (!IsFolderLocked(from_key)) SILT_THROW(PATH_NOT_FOUND, {{"path", from}});
    RenameFolderLocked(from, from_key, to, to_key);
  }

  void SetModificationTime(const std::string& path, int64_t modification_time_ms) override {
    std::string key = NormalizePath(path);
    std::lock_guard lock(mutex_);
    auto found = files_.find(key);
    if (found != files_.end()) {
      found->second.modification_time_ms = modification_time_ms;
      return;
    }
    // Folders have no stored time here; setting one is accepted and has no effect.
    if (!IsFolderLocked(key)) SILT_THROW(PATH_NOT_FOUND, {{"path", path}});
  }

  Capabilities capabilities() const override {
    return Capabilities{.atomic_put_if_absent = true, .ordered_listing = true};
  }

  // Publishes a closed stream's content; called by MemoryOutputStream::Close.
  void Publish(const std::string& path, std::string content) {
    std::string key = NormalizePath(path);
    std::lock_guard lock(mutex_);
    CheckWritableLocked(path, key);
    files_[key] = File{std::make_shared<const std::string>(std::move(content)), NowMilliseconds()};
  }

  void CheckWritable(const std::string& path) {
    std::string key = NormalizePath(path);
    std::lock_guard lock(mutex_);
    CheckWritableLocked(path, key);
  }

 private:
  // A folder exists exactly when some file is below it, as in an object store.
  bool IsFolderLocked(const std::string& key) const {
    std::string prefix = ChildPrefix(key);
    auto it = files_.lower_bound(prefix);
    return it != files_.end() && it->first.starts_with(prefix);
  }

  // Mirrors the local backend: a file cannot be created below another file.
  void CheckAncestorsAreFoldersLocked(const std::string& path, const std::string& key) const {
    for (std::string_view ancestor = ParentPath(key); !ancestor.empty();
         ancestor = ParentPath(ancestor)) {
      if (files_.contains(std::string(ancestor))) {
        SILT_THROW(IO_ERROR,
                   {{"path", path},
                    {"message", "cannot create folder: " + std::string(ancestor) + " is a file"}});
      }
    }
  }

  void CheckWritableLocked(const std::string& path, const std::string& key) const {
    if (IsFolderLocked(key)) {
      SILT_THROW(IO_ERROR, {{"path", path}, {"message", "cannot open for writing: is a folder"}});
    }
    CheckAncestorsAreFoldersLocked(path, key);
  }

  void RenameFolderLocked(const std::string& from, const std::string& from_key,
                          const std::string& to, const std::string& to_key) {
    std::string from_prefix = ChildPrefix(from_key);
    std::string to_prefix = ChildPrefix(to_key);
    if (to_key == from_key) return;
    if (to_key.starts_with(from_prefix)) {
      SILT_THROW(IO_ERROR,
                 {{"path", from}, {"message", "cannot move a folder into itself: " + to}});
    }
    if (files_.contains(to_key)) {
      SILT_THROW(IO_ERROR,
                 {{"path", from}, {"message", "rename to " + to + " failed: target is a file"}});
    }
    if (IsFolderLocked(to_key)) {
      SILT_THROW(
          IO_ERROR,
          {{"path", from}, {"message", "rename to " + to + " failed: target folder is not empty"}});
    }
    CheckAncestorsAreFoldersLocked(to, to_key);
    std::vector<std::pair<std::string, File>> moved;
    for (auto it = files_.lower_bound(from_prefix);
         it != files_.end() && it->first.starts_with(from_prefix);) {
      moved.emplace_back(to_prefix + it->first.substr(from_prefix.size()), std::move(it->second));
      it = files_.erase(it);
    }
    for (auto& [key, file] : moved) files_[key] = std::move(file);
  }

  std::mutex mutex_;
  std::map<std::string, File> files_;
};

class MemoryOutputStream final : public OutputStream {
 public:
  MemoryOutputStream(std::shared_ptr<MemoryFileSystem> file_system, std::string path)
      : file_system_(std::move(file_system)), path_(std::move(path)) {}
  ~MemoryOutputStream() override {
    try {
      Close();
    } catch (const Error&) {
      // The contract: destroying an open stream closes it and swallows errors.
    }
  }
  MemoryOutputStream(const MemoryOutputStream&) = delete;
  MemoryOutputStream& operator=(const MemoryOutputStream&) = delete;
  MemoryOutputStream(MemoryOutputStream&&) = delete;
  MemoryOutputStream& operator=(MemoryOutputStream&&) = delete;

  void Write(const void* data, size_t length) override {
    ThrowIfClosed("write");
    content_.append(static_cast<const char*>(data), length);
    position_ += length;
  }

  // Memory is as durable as this process gets; Sync only checks the stream is usable.
  void Sync() override { ThrowIfClosed("sync"); }

  void Close() override {
    if (closed_) return;
    closed_ = true;
    file_system_->Publish(path_, std::move(content_));
  }

  uint64_t position() const override { return position_; }

 private:
  void ThrowIfClosed(const char* action) const {
    if (closed_) {
      SILT_THROW(IO_ERROR, {{"path", path_}, {"message", std::string(action) + " after close"}});
    }
  }

  std::shared_ptr<MemoryFileSystem> file_system_;
  std::string path_;
  std::string content_;
  uint64_t position_ = 0;
  bool closed_ = false;
};

std::unique_ptr<OutputStream> MemoryFileSystem::OpenWrite(const std::string& path) {
  CheckWritable(path);
  return std::make_unique<MemoryOutputStream>(shared_from_this(), path);
}

}  // namespace

std::shared_ptr<FileSystem> MakeMemoryFileSystem() { return std::make_shared<MemoryFileSystem>(); }

}  // namespace silt::io
