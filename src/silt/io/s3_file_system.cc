#include "silt/io/s3_file_system.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <iomanip>
#include <sstream>
#include <thread>

#include "silt/base/check.h"
#include "silt/io/aws_credentials.h"
#include "silt/io/aws_signing.h"
#include "silt/io/batch_delete.h"
#include "silt/io/object_read_file.h"
#include "silt/io/path.h"
#include "silt/io/storage_url.h"
#include "silt/io/xml_scan.h"

namespace silt::io {
namespace {

constexpr uint64_t kMinimumPartSize = 5ull << 20;  // S3's smallest part but the last
constexpr uint64_t kDefaultPartSize = 8ull << 20;
constexpr int kConditionalConflictRetries = 8;
constexpr size_t kMaxKeysPerBatchDelete = 1000;

int64_t ParseTime(const std::string& text, const char* format) {
  std::tm time{};
  std::istringstream stream(text);
  stream >> std::get_time(&time, format);
  if (stream.fail()) return 0;
  int64_t ms = static_cast<int64_t>(timegm(&time)) * 1000;
  // ListObjects gives milliseconds: "2009-10-12T17:50:30.123Z".
  size_t dot = text.find('.');
  if (dot != std::string::npos && dot + 4 <= text.size()) {
    ms += std::strtol(text.substr(dot + 1, 3).c_str(), nullptr, 10);
  }
  return ms;
}

bool IsAwsEndpoint(const std::string& endpoint) {
  std::string host = endpoint.substr(endpoint.find("://") + 3);
  host = host.substr(0, host.find('/'));
  host = host.substr(0, host.find(':'));
  return host.size() >= 14 && host.compare(host.size() - 14, 14, ".amazonaws.com") == 0;
}

struct S3Config {
  std::string bucket;
  std::string region;
  std::string endpoint;  // "https://host[:port]", no trailing '/'
  bool path_style = false;
  bool conditional_put = false;
  bool allow_unsafe_rename = false;
  bool skip_signature = false;
  uint64_t part_size = kDefaultPartSize;
  int list_page_size = 1000;
};

S3Config ResolveConfig(const std::string& bucket, const StorageOptions& options) {
  S3Config config;
  config.bucket = bucket;
  config.region =
      options.Find({"AWS_REGION", "AWS_DEFAULT_REGION", "fs.s3a.endpoint.region", "fs.s3a.region"})
          .value_or(AwsProfileRegion(options).value_or("us-east-1"));
  std::optional<std::string> endpoint =
      options.Find({"AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL", "AWS_ENDPOINT", "fs.s3a.endpoint"});
  if (endpoint) {
    std::string url = *endpoint;
    if (url.find("://") == std::string::npos) {
      bool ssl = options.FindFlag({"fs.s3a.connection.ssl.enabled"}, true);
      url = (ssl ? "https://" : "http://") + url;
    }
    while (!url.empty() && url.back() == '/') url.pop_back();
    config.endpoint = url;
  } else {
    config.endpoint = "https://s3." + config.region + ".amazonaws.com";
  }
  bool aws = IsAwsEndpoint(config.endpoint);
  // A custom endpoint is an S3-compatible store: most serve only path-style addresses.
  config.path_style =
      options.FindFlag(
          {"AWS_S3_FORCE_PATH_STYLE", "AWS_FORCE_PATH_STYLE", "fs.s3a.path.style.access"}, !aws) ||
      bucket.find('.') != std::string::npos;
  if (std::optional<std::string> conditional =
          options.Find({"AWS_CONDITIONAL_PUT", "silt.storage.s3.conditionalPut"})) {
    SILT_USER_CHECK(*conditional == "etag", INVALID_STORAGE_OPTION,
                    {{"value", *conditional},
                     {"option", "AWS_CONDITIONAL_PUT"},
                     {"reason", "silt supports 'etag' (If-None-Match: * conditional writes)"}});
    config.conditional_put = true;
  } else {
    // AWS's S3 has honoured If-None-Match: * on PUT since August 2024.
    config.conditional_put = aws;
  }
  config.allow_unsafe_rename = options.FindFlag({"AWS_S3_ALLOW_UNSAFE_RENAME"}, false);
  config.skip_signature = options.FindFlag({"AWS_SKIP_SIGNATURE"}, false);
  if (std::optional<std::string> part = options.Find({"silt.storage.s3.multipartPartSize"})) {
    char* end = nullptr;
    unsigned long long size = std::strtoull(part->c_str(), &end, 10);
    SILT_USER_CHECK(
        end != nullptr && *end == '\0' && size >= kMinimumPartSize && size <= (5ull << 30),
        INVALID_STORAGE_OPTION,
        {{"value", *part},
         {"option", "silt.storage.s3.multipartPartSize"},
         {"reason", "expected a byte count from 5242880 (5 MiB) to 5 GiB"}});
    config.part_size = size;
  }
  if (std::optional<std::string> page = options.Find({"silt.storage.s3.listPageSize"})) {
    char* end = nullptr;
    long size = std::strtol(page->c_str(), &end, 10);
    SILT_USER_CHECK(end != nullptr && *end == '\0' && size >= 1 && size <= 1000,
                    INVALID_STORAGE_OPTION,
                    {{"value", *page},
                     {"option", "silt.storage.s3.listPageSize"},
                     {"reason", "expected 1 to 1000 keys per listing request"}});
    config.list_page_size = static_cast<int>(size);
  }
  return config;
}

class S3FileSystem;

class S3OutputStream final : public OutputStream {
 public:
  S3OutputStream(std::shared_ptr<S3FileSystem> fs, std::string path, std::string key)
      : fs_(std::move(fs)), path_(std::move(path)), key_(std::move(key)) {}
  ~S3OutputStream() override;
  void Write(const void* data, size_t length) override;
  void Sync() override {  // an object exists only once it is complete
    if (closed_) SILT_THROW(IO_ERROR, {{"path", path_}, {"message", "sync after close"}});
  }
  void Close() override;
  uint64_t position() const override { return position_; }

 private:
  void UploadPart();

  std::shared_ptr<S3FileSystem> fs_;
  std::string path_;
  std::string key_;
  std::string buffer_;
  uint64_t position_ = 0;
  std::string upload_id_;
  std::vector<std::string> part_etags_;
  bool closed_ = false;
};

class S3FileSystem final : public FileSystem,
                           public BatchDeleting,
                           public std::enable_shared_from_this<S3FileSystem> {
 public:
  S3FileSystem(S3Config config, std::shared_ptr<StorageOptions> options,
               std::shared_ptr<HttpClient> http, std::shared_ptr<ObjectStoreSession> session)
      : config_(std::move(config)),
        http_(std::move(http)),
        session_(std::move(session)),
        credentials_(std::move(options), "s3://" + config_.bucket) {}

  const S3Config& config() const { return config_; }

  // ---- requests ----

  std::string UrlOf(const std::string& key, const std::string& query = "") const {
    std::string url;
    if (config_.path_style) {
      url = config_.endpoint + "/" + config_.bucket + "/" + UriEncode(key, true);
    } else {
      size_t scheme_end = config_.endpoint.find("://") + 3;
      url = config_.endpoint.substr(0, scheme_end) + config_.bucket + "." +
            config_.endpoint.substr(scheme_end) + "/" + UriEncode(key, true);
    }
    if (!query.empty()) url += "?" + query;
    return url;
  }

  HttpResponse Send(HttpRequest request, RequestKind kind) {
    if (!config_.skip_signature) {
      AwsCredentials credentials = credentials_.Get();
      std::string hash = request.body.empty() ? Sha256Hex("") : "UNSIGNED-PAYLOAD";
      SignAwsV4(request, credentials, config_.region, "s3",
                AmzDate(std::chrono::system_clock::now()), hash);
    }
    HttpResponse response = http_->Send(request);
    session_->counters.Count(kind, kind == RequestKind::kGet ? response.body.size() : 0);
    return response;
  }

  [[noreturn]] void Fail(const HttpResponse& response, const std::string& operation,
                         const std::string& path) const {
    std::string code = XmlText(response.body, "Code").value_or("");
    std::string message = XmlText(response.body, "Message").value_or("");
    std::string detail = "HTTP " + std::to_string(response.status);
    if (!code.empty()) detail += " " + code;
    if (!message.empty()) detail += ": " + message;
    if (response.status == 403 || response.status == 401) {
      SILT_THROW(STORAGE_ACCESS_DENIED,
                 {{"operation", operation}, {"path", path}, {"message", detail}});
    }
    SILT_THROW(STORAGE_REQUEST_FAILED,
               {{"operation", operation}, {"path", path}, {"message", detail}});
  }

  std::string KeyOf(const std::string& path) const {
    ObjectUrl url = ParseObjectUrl(path);
    SILT_CHECK(url.authority == config_.bucket,
               "an S3 path of another bucket was routed here: " + path);
    return url.key;
  }

  // `version`, when not null, is set to what names this content of the object (its ETag).
  std::optional<FileInfo> Head(const std::string& path, const std::string& key,
                               std::string* version = nullptr) {
    HttpRequest request;
    request.method = "HEAD";
    request.url = UrlOf(key);
    HttpResponse response = Send(std::move(request), RequestKind::kHead);
    if (response.status == 404) return std::nullopt;
    if (response.status != 200) Fail(response, "HEAD", path);
    if (version != nullptr) {
      *version = response.Header("etag").value_or(response.Header("last-modified").value_or(""));
    }
    FileInfo info;
    info.path = path;
    info.size = std::strtoull(response.Header("content-length").value_or("0").c_str(), nullptr, 10);
    info.modification_time_ms =
        ParseTime(response.Header("last-modified").value_or(""), "%a, %d %b %Y %H:%M:%S");
    return info;
  }

  // One ListObjectsV2 walk. `delimiter` groups keys below a '/' into common prefixes.
  void ListKeys(const std::string& path, const std::string& prefix, const std::string& start_after,
                bool delimiter,
                const std::function<void(const std::string& key, uint64_t size, int64_t time_ms,
                                         bool is_prefix)>& each,
                int max_keys = 0) {
    if (max_keys == 0) max_keys = config_.list_page_size;
    std::string token;
    do {
      std::string query = "list-type=2&max-keys=" + std::to_string(max_keys) +
                          "&prefix=" + UriEncode(prefix, false);
      if (delimiter) query += "&delimiter=%2F";
      if (!token.empty()) {
        query += "&continuation-token=" + UriEncode(token, false);
      } else if (!start_after.empty()) {
        query += "&start-after=" + UriEncode(start_after, false);
      }
      HttpRequest request;
      request.url = UrlOf("", query);
      HttpResponse response = Send(std::move(request), RequestKind::kList);
      if (response.status != 200) Fail(response, "LIST", path);
      for (std::string_view contents : XmlElements(response.body, "Contents")) {
        std::string key = XmlText(contents, "Key").value_or("");
        uint64_t size = std::strtoull(XmlText(contents, "Size").value_or("0").c_str(), nullptr, 10);
        int64_t time =
            ParseTime(XmlText(contents, "LastModified").value_or(""), "%Y-%m-%dT%H:%M:%S");
        each(key, size, time, false);
      }
      for (std::string_view common : XmlElements(response.body, "CommonPrefixes")) {
        each(XmlText(common, "Prefix").value_or(""), 0, 0, true);
      }
      token.clear();
      if (XmlText(response.body, "IsTruncated").value_or("false") == "true") {
        token = XmlText(response.body, "NextContinuationToken").value_or("");
        SILT_USER_CHECK(!token.empty(), STORAGE_REQUEST_FAILED,
                        {{"operation", "LIST"},
                         {"path", path},
                         {"message", "a truncated listing came without a continuation token"}});
      }
    } while (!token.empty());
  }

  // ---- FileSystem ----

  std::optional<FileInfo> Stat(const std::string& path) override {
    std::string key = KeyOf(path);
    if (!key.empty()) {
      if (std::optional<FileInfo> file = Head(path, key)) return file;
    }
    // A folder is any key below "key/" (the bucket's root always is one).
    bool any = key.empty();
    if (!any) {
      ListKeys(
          path, key + "/", "", false,
          [&](const std::string&, uint64_t, int64_t, bool) { any = true; }, 1);
    }
    if (!any) return std::nullopt;
    FileInfo folder;
    folder.path = path;
    folder.is_directory = true;
    return folder;
  }

  std::vector<FileInfo> List(const std::string& dir, const std::string& start_after,
                             bool recursive) override {
    std::string key = KeyOf(dir);
    std::string prefix = key.empty() ? "" : key + "/";
    // start_after: a full path below dir, or a name relative to it.
    std::string relative_bound = start_after;
    std::string dir_with_slash = std::string(TrimTrailingSeparators(dir)) + "/";
    if (!start_after.empty() && start_after.rfind(dir_with_slash, 0) == 0) {
      relative_bound = start_after.substr(dir_with_slash.size());
    } else if (!start_after.empty() && UrlScheme(start_after)) {
      relative_bound =
          KeyOf(start_after).substr(std::min(prefix.size(), KeyOf(start_after).size()));
    }
    std::vector<FileInfo> entries;
    ListKeys(dir, prefix, relative_bound.empty() ? "" : prefix + relative_bound, !recursive,
             [&](const std::string& found, uint64_t size, int64_t time, bool is_prefix) {
               if (found.size() <= prefix.size()) return;
               std::string name = found.substr(prefix.size());
               if (is_prefix) {
                 name.pop_back();  // "name/" -> "name"
               } else if (name.back() == '/') {
                 return;  // a folder marker written by another tool
               }
               if (!relative_bound.empty() && name <= relative_bound) return;
               FileInfo entry;
               entry.path = JoinPath(dir, name);
               entry.size = size;
               entry.modification_time_ms = time;
               entry.is_directory = is_prefix;
               entries.push_back(std::move(entry));
             });
    std::sort(entries.begin(), entries.end(),
              [](const FileInfo& a, const FileInfo& b) { return a.path < b.path; });
    return entries;
  }

  std::unique_ptr<RandomAccessFile> OpenRead(const std::string& path) override {
    std::string key = KeyOf(path);
    std::string version;
    std::optional<FileInfo> info = key.empty() ? std::nullopt : Head(path, key, &version);
    if (!info) {
      if (std::optional<FileInfo> folder = Stat(path); folder && folder->is_directory) {
        SILT_THROW(IO_ERROR, {{"path", path}, {"message", "is a folder, not a file"}});
      }
      SILT_THROW(PATH_NOT_FOUND, {{"path", path}});
    }
    RangeFetch fetch = [fs = shared_from_this(), path, key](uint64_t offset, uint64_t length) {
      return fs->ReadRange(path, key, offset, length);
    };
    return std::make_unique<ObjectReadFile>(path, info->size, version, std::move(fetch), session_);
  }

  std::unique_ptr<OutputStream> OpenWrite(const std::string& path) override {
    return std::make_unique<S3OutputStream>(shared_from_this(), path, KeyOf(path));
  }

  void Put(const std::string& path, const std::string& key, std::string_view bytes) {
    HttpRequest request;
    request.method = "PUT";
    request.url = UrlOf(key);
    request.body = bytes;
    HttpResponse response = Send(std::move(request), RequestKind::kPut);
    if (response.status != 200) Fail(response, "PUT", path);
  }

  PutOutcome PutIfAbsent(const std::string& path, std::string_view bytes) override {
    std::string key = KeyOf(path);
    if (config_.conditional_put) {
      for (int attempt = 0;; ++attempt) {
        HttpRequest request;
        request.method = "PUT";
        request.url = UrlOf(key);
        request.headers.emplace_back("If-None-Match", "*");
        request.body = bytes;
        HttpResponse response = Send(std::move(request), RequestKind::kPut);
        if (response.status == 200) return PutOutcome::kCreated;
        if (response.status == 412) return PutOutcome::kAlreadyExists;
        // 409 ConditionalRequestConflict: another conditional write of the key is in flight.
        if (response.status == 409 && attempt < kConditionalConflictRetries) {
          std::this_thread::sleep_for(std::chrono::milliseconds(20 << std::min(attempt, 6)));
          continue;
        }
        Fail(response, "PUT", path);
      }
    }
    if (!config_.allow_unsafe_rename) {
      std::string name(BaseName(path));
      std::string version = name.substr(0, name.find('.'));
      SILT_THROW(STORAGE_UNSAFE_COMMIT, {{"path", path}, {"version", version}});
    }
    // Single-writer mode: the user vouched that nobody else writes this table.
    if (Head(path, key)) return PutOutcome::kAlreadyExists;
    Put(path, key, bytes);
    return PutOutcome::kCreated;
  }

  bool Delete(const std::string& path) override {
    std::string key = KeyOf(path);
    if (key.empty() || !Head(path, key)) return false;
    HttpRequest request;
    request.method = "DELETE";
    request.url = UrlOf(key);
    HttpResponse response = Send(std::move(request), RequestKind::kDelete);
    if (response.status != 204 && response.status != 200) Fail(response, "DELETE", path);
    return true;
  }

  // DeleteObjects: a thousand keys per request.
  size_t DeleteFiles(const std::vector<std::string>& paths) override {
    size_t deleted = 0;
    for (size_t start = 0; start < paths.size(); start += kMaxKeysPerBatchDelete) {
      size_t end = std::min(paths.size(), start + kMaxKeysPerBatchDelete);
      std::string body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Delete><Quiet>false</Quiet>";
      for (size_t i = start; i < end; ++i) {
        body += "<Object><Key>" + XmlEscape(KeyOf(paths[i])) + "</Key></Object>";
      }
      body += "</Delete>";
      HttpRequest request;
      request.method = "POST";
      request.url = UrlOf("", "delete=");
      request.headers.emplace_back("Content-MD5", Md5Base64(body));
      request.headers.emplace_back("Content-Type", "application/xml");
      request.body = body;
      HttpResponse response = Send(std::move(request), RequestKind::kDelete);
      if (response.status != 200) Fail(response, "DELETE", paths[start]);
      std::vector<std::string_view> errors = XmlElements(response.body, "Error");
      if (!errors.empty()) {
        std::string error(errors.front());
        SILT_THROW(STORAGE_REQUEST_FAILED,
                   {{"operation", "DELETE"},
                    {"path", "s3://" + config_.bucket + "/" + XmlText(error, "Key").value_or("")},
                    {"message", XmlText(error, "Code").value_or("") + ": " +
                                    XmlText(error, "Message").value_or("")}});
      }
      deleted += XmlElements(response.body, "Deleted").size();
    }
    return deleted;
  }

  void Rename(const std::string& from, const std::string& to) override {
    std::string from_key = KeyOf(from);
    std::string to_key = KeyOf(to);
    HttpRequest request;
    request.method = "PUT";
    request.url = UrlOf(to_key);
    request.headers.emplace_back("x-amz-copy-source",
                                 UriEncode(config_.bucket + "/" + from_key, true));
    HttpResponse response = Send(std::move(request), RequestKind::kPut);
    if (response.status == 404) SILT_THROW(PATH_NOT_FOUND, {{"path", from}});
    // A copy can fail after its 200 status line; the body then holds an <Error>.
    if (response.status != 200 || XmlText(response.body, "Code")) Fail(response, "COPY", from);
    HttpRequest remove;
    remove.method = "DELETE";
    remove.url = UrlOf(from_key);
    HttpResponse removed = Send(std::move(remove), RequestKind::kDelete);
    if (removed.status != 204 && removed.status != 200) Fail(removed, "DELETE", from);
  }

  void SetModificationTime(const std::string& path, int64_t) override {
    SILT_THROW(UNSUPPORTED_FEATURE,
               {{"message", "S3 keeps the time an object was written; cannot set it for " + path}});
  }

  Capabilities capabilities() const override {
    return Capabilities{
        .atomic_put_if_absent = config_.conditional_put || config_.allow_unsafe_rename,
        .ordered_listing = true};
  }

  // One ranged GET: the bytes at [offset, offset + length), fewer at the object's end.
  std::string ReadRange(const std::string& path, const std::string& key, uint64_t offset,
                        uint64_t length) {
    HttpRequest request;
    request.url = UrlOf(key);
    request.headers.emplace_back(
        "Range", "bytes=" + std::to_string(offset) + "-" + std::to_string(offset + length - 1));
    HttpResponse response = Send(std::move(request), RequestKind::kGet);
    if (response.status == 416) return "";
    if (response.status == 404) SILT_THROW(PATH_NOT_FOUND, {{"path", path}});
    if (response.status != 206 && response.status != 200) Fail(response, "GET", path);
    std::string body = std::move(response.body);
    // A store that ignores the range sends the whole object.
    if (response.status == 200) body.erase(0, std::min<uint64_t>(offset, body.size()));
    if (body.size() > length) body.resize(static_cast<size_t>(length));
    return body;
  }

  std::string StartMultipart(const std::string& path, const std::string& key) {
    HttpRequest request;
    request.method = "POST";
    request.url = UrlOf(key, "uploads=");
    HttpResponse response = Send(std::move(request), RequestKind::kPut);
    if (response.status != 200) Fail(response, "PUT", path);
    std::optional<std::string> id = XmlText(response.body, "UploadId");
    if (!id) Fail(response, "PUT", path);
    return *id;
  }

  std::string UploadPart(const std::string& path, const std::string& key, const std::string& id,
                         size_t number, std::string_view bytes) {
    HttpRequest request;
    request.method = "PUT";
    request.url =
        UrlOf(key, "partNumber=" + std::to_string(number) + "&uploadId=" + UriEncode(id, false));
    request.body = bytes;
    HttpResponse response = Send(std::move(request), RequestKind::kPut);
    if (response.status != 200) Fail(response, "PUT", path);
    return response.Header("etag").value_or("");
  }

  void CompleteMultipart(const std::string& path, const std::string& key, const std::string& id,
                         const std::vector<std::string>& etags) {
    std::string body = "<CompleteMultipartUpload>";
    for (size_t i = 0; i < etags.size(); ++i) {
      body += "<Part><PartNumber>" + std::to_string(i + 1) + "</PartNumber><ETag>" +
              XmlEscape(etags[i]) + "</ETag></Part>";
    }
    body += "</CompleteMultipartUpload>";
    HttpRequest request;
    request.method = "POST";
    request.url = UrlOf(key, "uploadId=" + UriEncode(id, false));
    request.headers.emplace_back("Content-Type", "application/xml");
    request.body = body;
    HttpResponse response = Send(std::move(request), RequestKind::kPut);
    if (response.status != 200 || XmlText(response.body, "Code")) Fail(response, "PUT", path);
  }

  void AbortMultipart(const std::string& key, const std::string& id) {
    HttpRequest request;
    request.method = "DELETE";
    request.url = UrlOf(key, "uploadId=" + UriEncode(id, false));
    Send(std::move(request), RequestKind::kDelete);
  }

 private:
  S3Config config_;
  std::shared_ptr<HttpClient> http_;
  std::shared_ptr<ObjectStoreSession> session_;
  AwsCredentialChain credentials_;
};

S3OutputStream::~S3OutputStream() {
  if (closed_) return;
  try {
    Close();
  } catch (const Error&) {
  }
}

void S3OutputStream::Write(const void* data, size_t length) {
  if (closed_) SILT_THROW(IO_ERROR, {{"path", path_}, {"message", "write after close"}});
  buffer_.append(static_cast<const char*>(data), length);
  position_ += length;
  while (buffer_.size() >= fs_->config().part_size) UploadPart();
}

void S3OutputStream::UploadPart() {
  size_t part_size = static_cast<size_t>(fs_->config().part_size);
  if (upload_id_.empty()) upload_id_ = fs_->StartMultipart(path_, key_);
  try {
    size_t length = std::min(part_size, buffer_.size());
    part_etags_.push_back(fs_->UploadPart(path_, key_, upload_id_, part_etags_.size() + 1,
                                          std::string_view(buffer_).substr(0, length)));
    buffer_.erase(0, length);
  } catch (...) {
    fs_->AbortMultipart(key_, upload_id_);
    closed_ = true;
    throw;
  }
}

void S3OutputStream::Close() {
  if (closed_) return;
  if (upload_id_.empty()) {
    closed_ = true;
    fs_->Put(path_, key_, buffer_);
    buffer_.clear();
    return;
  }
  if (!buffer_.empty()) UploadPart();
  closed_ = true;
  try {
    fs_->CompleteMultipart(path_, key_, upload_id_, part_etags_);
  } catch (...) {
    fs_->AbortMultipart(key_, upload_id_);
    throw;
  }
}

}  // namespace

std::shared_ptr<FileSystem> MakeS3FileSystem(const std::string& bucket,
                                             std::shared_ptr<StorageOptions> options,
                                             std::shared_ptr<HttpClient> http,
                                             std::shared_ptr<ObjectStoreSession> session) {
  S3Config config = ResolveConfig(bucket, *options);
  return std::make_shared<S3FileSystem>(std::move(config), std::move(options), std::move(http),
                                        std::move(session));
}

}  // namespace silt::io
