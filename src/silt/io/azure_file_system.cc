#include "silt/io/azure_file_system.h"


#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <ctime>
#include <exception>
#include <functional>
#include <iomanip>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "silt/base/check.h"
#include "silt/io/aws_signing.h"
#include "silt/io/batch_delete.h"
#include "silt/io/crypto_api.h"
#include "silt/io/path.h"
#include "silt/io/storage_url.h"
#include "silt/io/xml_scan.h"

namespace silt::io {
namespace {

constexpr char kApiVersion[] = "2021-12-02";
constexpr uint64_t kBlockSize = 8ull << 20;
constexpr int kPageSize = 5000;
// Azurite's well-known development account (UseDevelopmentStorage=true).
constexpr char kDevelopmentAccount[] = "devstoreaccount1";
constexpr char kDevelopmentKey[] =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

std::string Base64Encode(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  int length = Crypto().evp_encode_block(reinterpret_cast<unsigned char*>(out.data()),
                               reinterpret_cast<const unsigned char*>(bytes.data()),
                               static_cast<int>(bytes.size()));
  out.resize(static_cast<size_t>(length));
  return out;
}

std::string Base64Decode(std::string_view text, const std::string& option) {
  std::string out(3 * ((text.size() + 3) / 4) + 1, '\0');
  int length = Crypto().evp_decode_block(reinterpret_cast<unsigned char*>(out.data()),
                               reinterpret_cast<const unsigned char*>(text.data()),
                               static_cast<int>(text.size()));
  SILT_USER_CHECK(length >= 0 && text.size() % 4 == 0, INVALID_STORAGE_OPTION,
                  {{"value", "(hidden)"}, {"option", option}, {"reason", "not base64"}});
  // EVP_DecodeBlock counts the padding as zero bytes.
  size_t padding = 0;
  if (!text.empty() && text.back() == '=') ++padding;
  if (text.size() > 1 && text[text.size() - 2] == '=') ++padding;
  out.resize(static_cast<size_t>(length) - padding);
  return out;
}

std::string PercentDecode(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size()) {
      out.push_back(
          static_cast<char>(std::strtol(std::string(text.substr(i + 1, 2)).c_str(), nullptr, 16)));
      i += 2;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

std::string Lower(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower;
}

std::string HttpDate(std::chrono::system_clock::time_point time) {
  std::time_t seconds = std::chrono::system_clock::to_time_t(time);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[64];
  std::strftime(text, sizeof(text), "%a, %d %b %Y %H:%M:%S GMT", &utc);
  return text;
}

int64_t ParseHttpDate(const std::string& text) {
  std::tm time{};
  std::istringstream stream(text);
  stream >> std::get_time(&time, "%a, %d %b %Y %H:%M:%S");
  if (stream.fail()) return 0;
  return static_cast<int64_t>(timegm(&time)) * 1000;
}

// "Key=Value;Key=Value" as the portal writes connection strings (values may hold '=').
std::map<std::string, std::string> ParseConnectionString(const std::string& text) {
  std::map<std::string, std::string> parts;
  std::stringstream stream(text);
  std::string part;
  while (std::getline(stream, part, ';')) {
    size_t equals = part.find('=');
    if (part.empty() || equals == std::string::npos) continue;
    parts[part.substr(0, equals)] = part.substr(equals + 1);
  }
  return parts;
}

struct AzureConfig {
  std::string container;
  std::string account;
  std::string key;       // base64, shared key authentication
  std::string sas;       // query string without '?', SAS authentication
  std::string endpoint;  // blob endpoint without trailing '/'
};

AzureConfig ResolveConfig(const std::string& scheme, const std::string& authority,
                          const StorageOptions& options) {
  AzureConfig config;
  std::string host;
  size_t at = authority.find('@');
  if (at == std::string::npos) {
    config.container = authority;
  } else {
    config.container = authority.substr(0, at);
    host = authority.substr(at + 1);
  }
  std::string url_account = host.substr(0, host.find('.'));
  std::map<std::string, std::string> connection;
  if (std::optional<std::string> text = options.Find({"AZURE_STORAGE_CONNECTION_STRING"})) {
    connection = ParseConnectionString(*text);
    if (connection["UseDevelopmentStorage"] == "true") {
      connection.emplace("AccountName", kDevelopmentAccount);
      connection.emplace("AccountKey", kDevelopmentKey);
      connection.emplace("BlobEndpoint",
                         std::string("http://127.0.0.1:10000/") + kDevelopmentAccount);
    }
  }
  auto from_connection = [&](const char* name) -> std::optional<std::string> {
    auto it = connection.find(name);
    if (it == connection.end() || it->second.empty()) return std::nullopt;
    return it->second;
  };
  config.account = options.Find({"AZURE_STORAGE_ACCOUNT_NAME", "AZURE_STORAGE_ACCOUNT"})
                       .value_or(from_connection("AccountName").value_or(url_account));
  SILT_USER_CHECK(!config.account.empty(), STORAGE_CREDENTIALS_NOT_FOUND,
                  {{"path", scheme + "://" + authority},
                   {"message",
                    "no storage account: write CONTAINER@ACCOUNT.dfs.core.windows.net, "
                    "or set AZURE_STORAGE_ACCOUNT_NAME or "
                    "AZURE_STORAGE_CONNECTION_STRING"}});
  std::string dfs_key = "fs.azure.account.key." + config.account + ".dfs.core.windows.net";
  std::string blob_key = "fs.azure.account.key." + config.account + ".blob.core.windows.net";
  config.key =
      options.Find({"AZURE_STORAGE_ACCOUNT_KEY", "AZURE_STORAGE_ACCESS_KEY", dfs_key, blob_key})
          .value_or(from_connection("AccountKey").value_or(""));
  config.sas = options.Find({"AZURE_STORAGE_SAS_TOKEN", "AZURE_STORAGE_SAS_KEY"})
                   .value_or(from_connection("SharedAccessSignature").value_or(""));
  if (!config.sas.empty() && config.sas.front() == '?') config.sas.erase(0, 1);
  if (config.account == kDevelopmentAccount && config.key.empty() && config.sas.empty() &&
      options.FindFlag({"AZURE_STORAGE_USE_EMULATOR"}, false)) {
    config.key = kDevelopmentKey;
  }
  SILT_USER_CHECK(!config.key.empty() || !config.sas.empty(), STORAGE_CREDENTIALS_NOT_FOUND,
                  {{"path", scheme + "://" + authority},
                   {"message",
                    "set AZURE_STORAGE_ACCOUNT_KEY or AZURE_STORAGE_SAS_TOKEN (or "
                    "AZURE_STORAGE_CONNECTION_STRING) for account " +
                        config.account}});
  std::optional<std::string> endpoint = options.Find({"AZURE_STORAGE_ENDPOINT", "AZURE_ENDPOINT"});
  if (!endpoint) endpoint = from_connection("BlobEndpoint");
  if (!endpoint && options.FindFlag({"AZURE_STORAGE_USE_EMULATOR"}, false)) {
    endpoint = "http://127.0.0.1:10000/" + config.account;
  }
  if (endpoint) {
    config.endpoint = *endpoint;
  } else {
    std::string protocol = from_connection("DefaultEndpointsProtocol").value_or("https");
    std::string suffix = from_connection("EndpointSuffix").value_or("core.windows.net");
    config.endpoint = protocol + "://" + config.account + ".blob." + suffix;
  }
  while (!config.endpoint.empty() && config.endpoint.back() == '/') config.endpoint.pop_back();
  return config;
}

class AzureFileSystem;

class AzureOutputStream final : public OutputStream {
 public:
  AzureOutputStream(std::shared_ptr<AzureFileSystem> fs, std::string path, std::string blob)
      : fs_(std::move(fs)), path_(std::move(path)), blob_(std::move(blob)) {}
  ~AzureOutputStream() override;
  void Write(const void* data, size_t length) override;
  void Sync() override {
    if (closed_) SILT_THROW(IO_ERROR, {{"path", path_}, {"message", "sync after close"}});
  }
  void Close() override;
  uint64_t position() const override { return position_; }

 private:
  void UploadBlock();

  std::shared_ptr<AzureFileSystem> fs_;
  std::string path_;
  std::string blob_;
  std::string buffer_;
  uint64_t position_ = 0;
  std::vector<std::string> block_ids_;
  bool closed_ = false;
};

class AzureFileSystem final : public FileSystem,
                              public BatchDeleting,
                              public std::enable_shared_from_this<AzureFileSystem> {
 public:
  AzureFileSystem(AzureConfig config, std::shared_ptr<HttpClient> http,
                  std::shared_ptr<ObjectStoreSession> session)
      : config_(std::move(config)), http_(std::move(http)), session_(std::move(session)) {}

  std::string UrlOf(const std::string& blob, const std::string& query = "") const {
    std::string url = config_.endpoint + "/" + UriEncode(config_.container, false);
    if (!blob.empty()) url += "/" + UriEncode(blob, true);
    std::string full_query = query;
    if (!config_.sas.empty()) full_query += (full_query.empty() ? "" : "&") + config_.sas;
    if (!full_query.empty()) url += "?" + full_query;
    return url;
  }

  HttpResponse Send(HttpRequest request, RequestKind kind) {
    request.headers.emplace_back("x-ms-date", HttpDate(std::chrono::system_clock::now()));
    request.headers.emplace_back("x-ms-version", kApiVersion);
    if (config_.sas.empty()) {
      request.headers.emplace_back(
          "Authorization", "SharedKey " + config_.account + ":" +
                               AzureSharedKeySignature(request, config_.account, config_.key));
    }
    HttpResponse response = http_->Send(request);
    session_->counters.Count(kind, kind == RequestKind::kGet ? response.body.size() : 0);
    return response;
  }

  [[noreturn]] void Fail(const HttpResponse& response, const std::string& operation,
                         const std::string& path) const {
    std::string code =
        response.Header("x-ms-error-code").value_or(XmlText(response.body, "Code").value_or(""));
    std::string message = XmlText(response.body, "Message").value_or("");
    std::string detail = "HTTP " + std::to_string(response.status);
    if (!code.empty()) detail += " " + code;
    if (!message.empty()) detail += ": " + message.substr(0, message.find('\n'));
    if (response.status == 403 || response.status == 401) {
      SILT_THROW(STORAGE_ACCESS_DENIED,
                 {{"operation", operation}, {"path", path}, {"message", detail}});
    }
    SILT_THROW(STORAGE_REQUEST_FAILED,
               {{"operation", operation}, {"path", path}, {"message", detail}});
  }

  std::string BlobOf(const std::string& path) const { return ParseObjectUrl(path).key; }

  // `version`, when not null, is set to what names this content of the blob (its ETag).
  std::optional<FileInfo> Head(const std::string& path, const std::string& blob,
                               std::string* version = nullptr) {
    HttpRequest request;
    request.method = "HEAD";
    request.url = UrlOf(blob);
    HttpResponse response = Send(std::move(request), RequestKind::kHead);
    if (response.status == 404) return std::nullopt;
    if (response.status != 200) Fail(response, "HEAD", path);
    if (version != nullptr) {
      *version = response.Header("etag").value_or(response.Header("last-modified").value_or(""));
    }
    FileInfo info;
    info.path = path;
    info.size = std::strtoull(response.Header("content-length").value_or("0").c_str(), nullptr, 10);
    info.modification_time_ms = ParseHttpDate(response.Header("last-modified").value_or(""));
    return info;
  }

  void ListBlobs(const std::string& path, const std::string& prefix, bool delimiter,
                 const std::function<void(const std::string&, uint64_t, int64_t, bool)>& each,
                 int max_results = kPageSize) {
    std::string marker;
    do {
      std::string query = "restype=container&comp=list&maxresults=" + std::to_string(max_results) +
                          "&prefix=" + UriEncode(prefix, false);
      if (delimiter) query += "&delimiter=%2F";
      if (!marker.empty()) query += "&marker=" + UriEncode(marker, false);
      HttpRequest request;
      request.url = UrlOf("", query);
      HttpResponse response = Send(std::move(request), RequestKind::kList);
      if (response.status == 404) return;  // no container: nothing below it
      if (response.status != 200) Fail(response, "LIST", path);
      for (std::string_view blob : XmlElements(response.body, "Blob")) {
        each(XmlText(blob, "Name").value_or(""),
             std::strtoull(XmlText(blob, "Content-Length").value_or("0").c_str(), nullptr, 10),
             ParseHttpDate(XmlText(blob, "Last-Modified").value_or("")), false);
      }
      for (std::string_view prefix_element : XmlElements(response.body, "BlobPrefix")) {
        each(XmlText(prefix_element, "Name").value_or(""), 0, 0, true);
      }
      marker = XmlText(response.body, "NextMarker").value_or("");
    } while (!marker.empty());
  }

  std::optional<FileInfo> Stat(const std::string& path) override {
    std::string blob = BlobOf(path);
    if (!blob.empty()) {
      if (std::optional<FileInfo> file = Head(path, blob)) return file;
    }
    bool any = blob.empty();
    if (!any) {
      ListBlobs(
          path, blob + "/", false, [&](const std::string&, uint64_t, int64_t, bool) { any = true; },
          1);
    }
    if (!any) return std::nullopt;
    FileInfo folder;
    folder.path = path;
    folder.is_directory = true;
    return folder;
  }

  std::vector<FileInfo> List(const std::string& dir, const std::string& start_after,
                             bool recursive) override {
    std::string blob = BlobOf(dir);
    std::string prefix = blob.empty() ? "" : blob + "/";
    std::string bound = start_after;
    std::string dir_with_slash = std::string(TrimTrailingSeparators(dir)) + "/";
    if (!bound.empty() && bound.rfind(dir_with_slash, 0) == 0) {
      bound = bound.substr(dir_with_slash.size());
    } else if (!bound.empty() && UrlScheme(bound)) {
      std::string key = BlobOf(bound);
      bound = key.substr(std::min(prefix.size(), key.size()));
    }
    std::vector<FileInfo> entries;
    // Blob listings have no start-after: the names up to the bound are skipped here.
    ListBlobs(dir, prefix, !recursive,
              [&](const std::string& found, uint64_t size, int64_t time, bool is_prefix) {
                if (found.size() <= prefix.size()) return;
                std::string name = found.substr(prefix.size());
                if (is_prefix) {
                  name.pop_back();
                } else if (name.back() == '/') {
                  return;
                }
                if (!bound.empty() && name <= bound) return;
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
    std::string blob = BlobOf(path);
    std::string version;
    std::optional<FileInfo> info = blob.empty() ? std::nullopt : Head(path, blob, &version);
    if (!info) {
      if (std::optional<FileInfo> folder = Stat(path); folder && folder->is_directory) {
        SILT_THROW(IO_ERROR, {{"path", path}, {"message", "is a folder, not a file"}});
      }
      SILT_THROW(PATH_NOT_FOUND, {{"path", path}});
    }
    RangeFetch fetch = [fs = shared_from_this(), path, blob](uint64_t offset, uint64_t length) {
      return fs->ReadRange(path, blob, offset, length);
    };
    return std::make_unique<ObjectReadFile>(path, info->size, version, std::move(fetch), session_);
  }

  std::unique_ptr<OutputStream> OpenWrite(const std::string& path) override {
    return std::make_unique<AzureOutputStream>(shared_from_this(), path, BlobOf(path));
  }

  // Put Blob; with `only_if_absent`, If-None-Match: *. Returns false when the blob existed.
  bool PutBlob(const std::string& path, const std::string& blob, std::string_view bytes,
               bool only_if_absent) {
    HttpRequest request;
    request.method = "PUT";
    request.url = UrlOf(blob);
    request.headers.emplace_back("x-ms-blob-type", "BlockBlob");
    if (only_if_absent) request.headers.emplace_back("If-None-Match", "*");
    request.body = bytes;
    HttpResponse response = Send(std::move(request), RequestKind::kPut);
    if (response.status == 201) return true;
    if (only_if_absent && (response.status == 409 || response.status == 412)) return false;
    Fail(response, "PUT", path);
  }

  PutOutcome PutIfAbsent(const std::string& path, std::string_view bytes) override {
    return PutBlob(path, BlobOf(path), bytes, true) ? PutOutcome::kCreated
                                                    : PutOutcome::kAlreadyExists;
  }

  bool Delete(const std::string& path) override {
    std::string blob = BlobOf(path);
    if (blob.empty()) return false;
    HttpRequest request;
    request.method = "DELETE";
    request.url = UrlOf(blob);
    HttpResponse response = Send(std::move(request), RequestKind::kDelete);
    if (response.status == 404) return false;
    if (response.status != 202) Fail(response, "DELETE", path);
    return true;
  }

  // A Delete Blob each, kMaxConcurrentDeletes in flight, on threads of their own (they wait on
  // the network). The first failure is thrown once every started delete has finished.
  size_t DeleteFiles(const std::vector<std::string>& paths) override {
    std::atomic<size_t> next{0};
    std::atomic<size_t> deleted{0};
    std::exception_ptr failure;
    std::mutex failure_mutex;
    auto work = [&] {
      for (size_t i = next++; i < paths.size(); i = next++) {
        try {
          if (Delete(paths[i])) ++deleted;
        } catch (...) {
          std::lock_guard<std::mutex> lock(failure_mutex);
          if (!failure) failure = std::current_exception();
          next = paths.size();
        }
      }
    };
    std::vector<std::thread> threads;
    size_t workers = std::min(paths.size(), kMaxConcurrentDeletes);
    for (size_t t = 1; t < workers; ++t) threads.emplace_back(work);
    work();
    for (std::thread& thread : threads) thread.join();
    if (failure) std::rethrow_exception(failure);
    return deleted;
  }

  void Rename(const std::string& from, const std::string& to) override {
    std::string source = BlobOf(from);
    std::string target = BlobOf(to);
    HttpRequest request;
    request.method = "PUT";
    request.url = UrlOf(target);
    request.headers.emplace_back("x-ms-copy-source", UrlOf(source));
    HttpResponse response = Send(std::move(request), RequestKind::kPut);
    if (response.status == 404) SILT_THROW(PATH_NOT_FOUND, {{"path", from}});
    if (response.status != 202 && response.status != 201) Fail(response, "COPY", from);
    // A copy within an account may finish later: wait for it before removing the source.
    std::string status = response.Header("x-ms-copy-status").value_or("success");
    for (int wait = 0; status == "pending" && wait < 600; ++wait) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      HttpRequest head;
      head.method = "HEAD";
      head.url = UrlOf(target);
      HttpResponse properties = Send(std::move(head), RequestKind::kHead);
      status = properties.Header("x-ms-copy-status").value_or("success");
    }
    if (status != "success") {
      SILT_THROW(STORAGE_REQUEST_FAILED,
                 {{"operation", "COPY"}, {"path", from}, {"message", "copy ended " + status}});
    }
    Delete(from);
  }

  void SetModificationTime(const std::string& path, int64_t) override {
    SILT_THROW(UNSUPPORTED_FEATURE,
               {{"message", "Azure keeps the time a blob was written; cannot set it for " + path}});
  }

  Capabilities capabilities() const override {
    return Capabilities{.atomic_put_if_absent = true, .ordered_listing = true};
  }

  // One ranged Get Blob: the bytes at [offset, offset + length), fewer at the blob's end.
  std::string ReadRange(const std::string& path, const std::string& blob, uint64_t offset,
                        uint64_t length) {
    HttpRequest request;
    request.url = UrlOf(blob);
    request.headers.emplace_back("x-ms-range", "bytes=" + std::to_string(offset) + "-" +
                                                   std::to_string(offset + length - 1));
    HttpResponse response = Send(std::move(request), RequestKind::kGet);
    if (response.status == 416) return "";
    if (response.status == 404) SILT_THROW(PATH_NOT_FOUND, {{"path", path}});
    if (response.status != 206 && response.status != 200) Fail(response, "GET", path);
    std::string body = std::move(response.body);
    if (response.status == 200) body.erase(0, std::min<uint64_t>(offset, body.size()));
    if (body.size() > length) body.resize(static_cast<size_t>(length));
    return body;
  }

  void PutBlock(const std::string& path, const std::string& blob, const std::string& id,
                std::string_view bytes) {
    HttpRequest request;
    request.method = "PUT";
    request.url = UrlOf(blob, "comp=block&blockid=" + UriEncode(id, false));
    request.body = bytes;
    HttpResponse response = Send(std::move(request), RequestKind::kPut);
    if (response.status != 201) Fail(response, "PUT", path);
  }

  void PutBlockList(const std::string& path, const std::string& blob,
                    const std::vector<std::string>& ids) {
    std::string body = "<?xml version=\"1.0\" encoding=\"utf-8\"?><BlockList>";
    for (const std::string& id : ids) body += "<Latest>" + XmlEscape(id) + "</Latest>";
    body += "</BlockList>";
    HttpRequest request;
    request.method = "PUT";
    request.url = UrlOf(blob, "comp=blocklist");
    request.headers.emplace_back("Content-Type", "application/xml");
    request.body = body;
    HttpResponse response = Send(std::move(request), RequestKind::kPut);
    if (response.status != 201) Fail(response, "PUT", path);
  }

 private:
  AzureConfig config_;
  std::shared_ptr<HttpClient> http_;
  std::shared_ptr<ObjectStoreSession> session_;
};

AzureOutputStream::~AzureOutputStream() {
  if (closed_) return;
  try {
    Close();
  } catch (const Error&) {
  }
}

void AzureOutputStream::Write(const void* data, size_t length) {
  if (closed_) SILT_THROW(IO_ERROR, {{"path", path_}, {"message", "write after close"}});
  buffer_.append(static_cast<const char*>(data), length);
  position_ += length;
  while (buffer_.size() >= kBlockSize) UploadBlock();
}

void AzureOutputStream::UploadBlock() {
  // Block ids are base64 of equally long names.
  char name[16];
  std::snprintf(name, sizeof(name), "block-%08zu", block_ids_.size());
  std::string id = Base64Encode(name);
  size_t length = std::min<size_t>(kBlockSize, buffer_.size());
  try {
    fs_->PutBlock(path_, blob_, id, std::string_view(buffer_).substr(0, length));
  } catch (...) {
    closed_ = true;  // uncommitted blocks expire on their own
    throw;
  }
  block_ids_.push_back(id);
  buffer_.erase(0, length);
}

void AzureOutputStream::Close() {
  if (closed_) return;
  if (block_ids_.empty()) {
    closed_ = true;
    fs_->PutBlob(path_, blob_, buffer_, false);
    buffer_.clear();
    return;
  }
  if (!buffer_.empty()) UploadBlock();
  closed_ = true;
  fs_->PutBlockList(path_, blob_, block_ids_);
}

}  // namespace

std::string AzureSharedKeySignature(const HttpRequest& request, const std::string& account,
                                    const std::string& key) {
  std::map<std::string, std::string> standard;
  std::vector<std::pair<std::string, std::string>> ms_headers;
  for (const auto& [name, value] : request.headers) {
    std::string lower = Lower(name);
    if (lower.rfind("x-ms-", 0) == 0) {
      ms_headers.emplace_back(lower, value);
    } else {
      standard[lower] = value;
    }
  }
  if (!request.body.empty()) standard["content-length"] = std::to_string(request.body.size());
  std::sort(ms_headers.begin(), ms_headers.end());
  std::string to_sign = request.method + "\n";
  for (const char* name :
       {"content-encoding", "content-language", "content-length", "content-md5", "content-type",
        "date", "if-modified-since", "if-match", "if-none-match", "if-unmodified-since", "range"}) {
    auto it = standard.find(name);
    to_sign += (it == standard.end() ? "" : it->second) + "\n";
  }
  for (const auto& [name, value] : ms_headers) to_sign += name + ":" + value + "\n";

  std::string_view url = request.url;
  size_t authority = url.find("://");
  authority = authority == std::string_view::npos ? 0 : authority + 3;
  size_t path_start = std::min(url.find('/', authority), url.size());
  size_t query_start = std::min(url.find('?', authority), url.size());
  if (path_start > query_start) path_start = query_start;
  std::string path(url.substr(path_start, query_start - path_start));
  if (path.empty()) path = "/";
  to_sign += "/" + account + path;
  std::map<std::string, std::vector<std::string>> parameters;
  if (query_start < url.size()) {
    std::stringstream query{std::string(url.substr(query_start + 1))};
    std::string part;
    while (std::getline(query, part, '&')) {
      size_t equals = part.find('=');
      parameters[Lower(PercentDecode(part.substr(0, equals)))].push_back(
          equals == std::string::npos ? "" : PercentDecode(part.substr(equals + 1)));
    }
  }
  for (auto& [name, values] : parameters) {
    std::sort(values.begin(), values.end());
    to_sign += "\n" + name + ":";
    for (size_t i = 0; i < values.size(); ++i) to_sign += (i ? "," : "") + values[i];
  }
  return Base64Encode(HmacSha256(Base64Decode(key, "AZURE_STORAGE_ACCOUNT_KEY"), to_sign));
}

std::shared_ptr<FileSystem> MakeAzureFileSystem(const std::string& scheme,
                                                const std::string& authority,
                                                std::shared_ptr<StorageOptions> options,
                                                std::shared_ptr<HttpClient> http,
                                                std::shared_ptr<ObjectStoreSession> session) {
  return std::make_shared<AzureFileSystem>(ResolveConfig(scheme, authority, *options),
                                           std::move(http), std::move(session));
}

}  // namespace silt::io
