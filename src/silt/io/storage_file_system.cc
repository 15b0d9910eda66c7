#include "silt/io/storage_file_system.h"

#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

#include "silt/base/check.h"
#include "silt/io/azure_file_system.h"
#include "silt/io/batch_delete.h"
#include "silt/io/http_client.h"
#include "silt/io/object_read_file.h"
#include "silt/io/s3_file_system.h"
#include "silt/io/storage_statistics.h"
#include "silt/io/storage_url.h"

namespace silt::io {
namespace {

// A store and the path to hand it; `prefix` is what was taken off the caller's path ("file:")
// and is put back on every path the store returns.
struct Route {
  std::shared_ptr<FileSystem> store;
  std::string path;
  std::string prefix;
};

class StorageFileSystem final : public FileSystem,
                                public BatchDeleting,
                                public StorageStatisticsSource {
 public:
  explicit StorageFileSystem(std::shared_ptr<StorageOptions> options)
      : options_(std::move(options)),
        local_(MakeLocalFileSystem()),
        session_(std::make_shared<ObjectStoreSession>()) {}

  StorageStatistics storage_statistics() const override { return session_->counters.Snapshot(); }
  void ResetStorageStatistics() override { session_->counters.Reset(); }

  std::optional<FileInfo> Stat(const std::string& path) override {
    Route route = RouteOf(path);
    std::optional<FileInfo> info = route.store->Stat(route.path);
    if (info) info->path = route.prefix + info->path;
    return info;
  }

  std::vector<FileInfo> List(const std::string& dir, const std::string& start_after,
                             bool recursive) override {
    Route route = RouteOf(dir);
    std::string bound = start_after;
    if (!route.prefix.empty() && bound.rfind(route.prefix, 0) == 0) {
      bound.erase(0, route.prefix.size());
    }
    std::vector<FileInfo> entries = route.store->List(route.path, bound, recursive);
    for (FileInfo& entry : entries) entry.path = route.prefix + entry.path;
    return entries;
  }

  std::unique_ptr<RandomAccessFile> OpenRead(const std::string& path) override {
    Route route = RouteOf(path);
    return route.store->OpenRead(route.path);
  }

  std::unique_ptr<OutputStream> OpenWrite(const std::string& path) override {
    Route route = RouteOf(path);
    return route.store->OpenWrite(route.path);
  }

  PutOutcome PutIfAbsent(const std::string& path, std::string_view bytes) override {
    Route route = RouteOf(path);
    return route.store->PutIfAbsent(route.path, bytes);
  }

  bool Delete(const std::string& path) override {
    Route route = RouteOf(path);
    return route.store->Delete(route.path);
  }

  size_t DeleteFiles(const std::vector<std::string>& paths) override {
    // Consecutive paths of one store go to it together.
    size_t deleted = 0;
    size_t start = 0;
    while (start < paths.size()) {
      Route first = RouteOf(paths[start]);
      std::vector<std::string> batch{first.path};
      size_t end = start + 1;
      for (; end < paths.size(); ++end) {
        Route next = RouteOf(paths[end]);
        if (next.store != first.store || next.prefix != first.prefix) break;
        batch.push_back(std::move(next.path));
      }
      deleted += io::DeleteFiles(*first.store, batch);
      start = end;
    }
    return deleted;
  }

  bool DeleteEmptyFolder(const std::string& path) override {
    Route route = RouteOf(path);
    return route.store->DeleteEmptyFolder(route.path);
  }

  void Rename(const std::string& from, const std::string& to) override {
    Route source = RouteOf(from);
    Route target = RouteOf(to);
    if (source.store != target.store) {
      SILT_THROW(IO_ERROR, {{"path", from}, {"message", "cannot rename across stores to " + to}});
    }
    source.store->Rename(source.path, target.path);
  }

  void SetModificationTime(const std::string& path, int64_t modification_time_ms) override {
    Route route = RouteOf(path);
    route.store->SetModificationTime(route.path, modification_time_ms);
  }

  // Every store silt serves creates files atomically; one that cannot in its configuration (S3
  // without conditional writes) refuses PutIfAbsent itself, naming the setting that allows it.
  Capabilities capabilities() const override {
    return Capabilities{.atomic_put_if_absent = true, .ordered_listing = true};
  }

 private:
  Route RouteOf(const std::string& path) {
    std::optional<std::string> scheme = UrlScheme(path);
    if (!scheme) return Route{local_, path, ""};
    if (*scheme == "file") {
      std::string_view local = StripFileScheme(path);
      return Route{local_, std::string(local), path.substr(0, path.size() - local.size())};
    }
    if (*scheme == "s3" || *scheme == "s3a" || *scheme == "abfss" || *scheme == "abfs" ||
        *scheme == "wasbs" || *scheme == "wasb" || *scheme == "az") {
      return Route{ObjectStore(*scheme, ParseObjectUrl(path).authority), path, ""};
    }
    SILT_THROW(FILE_SYSTEM_SCHEME_NOT_SUPPORTED, {{"scheme", *scheme}, {"path", path}});
  }

  // The client of one bucket, made on first use and made again when the settings changed (files
  // still open keep the client they were opened with).
  std::shared_ptr<FileSystem> ObjectStore(const std::string& scheme, const std::string& authority) {
    std::string family = scheme == "s3" || scheme == "s3a" ? "s3" : "azure";
    uint64_t generation = options_->generation();
    std::lock_guard<std::mutex> lock(mutex_);
    StoreEntry& entry = stores_[family + "://" + authority];
    if (!entry.store || entry.generation != generation) {
      if (!http_) http_ = std::make_shared<HttpClient>();
      session_->cache.SetCapacity(CacheCapacity());
      entry.store = family == "s3"
                        ? MakeS3FileSystem(authority, options_, http_, session_)
                        : MakeAzureFileSystem(scheme, authority, options_, http_, session_);
      entry.generation = generation;
    }
    return entry.store;
  }

  uint64_t CacheCapacity() const {
    std::optional<std::string> text = options_->Find({"silt.storage.cache.maxBytes"});
    if (!text) return ObjectStoreSession::kDefaultCacheBytes;
    char* end = nullptr;
    unsigned long long bytes = std::strtoull(text->c_str(), &end, 10);
    SILT_USER_CHECK(end != nullptr && *end == '\0' && (*text)[0] != '-', INVALID_STORAGE_OPTION,
                    {{"value", *text},
                     {"option", "silt.storage.cache.maxBytes"},
                     {"reason", "expected a byte count (0 keeps nothing)"}});
    return bytes;
  }

  struct StoreEntry {
    std::shared_ptr<FileSystem> store;
    uint64_t generation = 0;
  };

  std::shared_ptr<StorageOptions> options_;
  std::shared_ptr<FileSystem> local_;
  // Shared by the stores of every bucket: request counts and the cache of immutable files.
  std::shared_ptr<ObjectStoreSession> session_;
  std::mutex mutex_;
  std::shared_ptr<HttpClient> http_;  // one connection pool for every bucket
  std::map<std::string, StoreEntry> stores_;
};

}  // namespace

std::shared_ptr<FileSystem> MakeStorageFileSystem(std::shared_ptr<StorageOptions> options) {
  return std::make_shared<StorageFileSystem>(std::move(options));
}

}  // namespace silt::io
