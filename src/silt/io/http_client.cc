#include "silt/io/http_client.h"

#include <curl/curl.h>
#include <strings.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <mutex>
#include <random>
#include <thread>

#include "silt/base/check.h"
#include "silt/base/error_class.h"
#include "silt/base/shared_library.h"
#include "silt/io/curl_api.h"

namespace silt::io {
namespace {

// libcurl, opened once per process; its global state is set up before any handle exists.
const LoadedLibrary<CurlApi>& LoadedCurl() {
  static const auto* loaded = new LoadedLibrary<CurlApi>(  // never unloaded
      "libcurl.so.4", [](SharedLibrary& library, CurlApi& api) {
        library.Bind(api.global_init, "curl_global_init");
        library.Bind(api.easy_init, "curl_easy_init");
        library.Bind(api.easy_reset, "curl_easy_reset");
        library.Bind(api.easy_cleanup, "curl_easy_cleanup");
        library.Bind(api.easy_setopt, "curl_easy_setopt");
        library.Bind(api.easy_perform, "curl_easy_perform");
        library.Bind(api.easy_getinfo, "curl_easy_getinfo");
        library.Bind(api.easy_strerror, "curl_easy_strerror");
        library.Bind(api.slist_append, "curl_slist_append");
        library.Bind(api.slist_free_all, "curl_slist_free_all");
        if (library.ok()) api.global_init(CURL_GLOBAL_DEFAULT);
      });
  return *loaded;
}

size_t AppendBody(char* data, size_t size, size_t count, void* user) {
  auto* response = static_cast<HttpResponse*>(user);
  response->body.append(data, size * count);
  return size * count;
}

size_t AppendHeader(char* data, size_t size, size_t count, void* user) {
  auto* response = static_cast<HttpResponse*>(user);
  std::string_view line(data, size * count);
  if (line.rfind("HTTP/", 0) == 0) {
    response->headers.clear();  // a new response (after 100 Continue or a redirect)
    return size * count;
  }
  size_t colon = line.find(':');
  if (colon == std::string_view::npos) return size * count;
  std::string name(line.substr(0, colon));
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string_view value = line.substr(colon + 1);
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == '\r' || value.back() == '\n' || value.back() == ' ')) {
    value.remove_suffix(1);
  }
  response->headers.emplace_back(std::move(name), std::string(value));
  return size * count;
}

bool IsRetryableTransportError(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return true;
    default:
      return false;
  }
}

}  // namespace

const CurlApi& Curl(const std::string& operation, const std::string& url) {
  const CurlApi* api = LoadedCurl().api();
  if (api == nullptr) {
    SILT_THROW(
        STORAGE_REQUEST_FAILED,
        {{"operation", operation},
         {"path", url},
         {"message", LoadedCurl().error() + " (the HTTP client of object storage; "
                                            "Debian installs it with the package libcurl4)"}});
  }
  return *api;
}

bool IsRetryableStatus(long status) {
  return status == 429 || status == 500 || status == 502 || status == 503 || status == 504;
}

std::optional<std::string> HttpResponse::Header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (key == name) return value;
  }
  return std::nullopt;
}

std::string UriEncode(std::string_view text, bool keep_slash) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string encoded;
  encoded.reserve(text.size());
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
    if (std::isalnum(byte) || c == '-' || c == '_' || c == '.' || c == '~' ||
        (keep_slash && c == '/')) {
      encoded.push_back(c);
    } else {
      encoded.push_back('%');
      encoded.push_back(kHex[byte >> 4]);
      encoded.push_back(kHex[byte & 0xF]);
    }
  }
  return encoded;
}

struct HttpClient::Impl {
  HttpClientOptions options;
  std::mutex mutex;
  std::vector<CURL*> idle;  // handles keep their connections open between requests
  std::atomic<uint64_t> requests{0};
  std::atomic<uint64_t> retries{0};
  std::atomic<uint64_t> bytes_received{0};
  std::atomic<uint64_t> bytes_sent{0};

  CURL* Take(const CurlApi& curl) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (!idle.empty()) {
        CURL* handle = idle.back();
        idle.pop_back();
        return handle;
      }
    }
    CURL* handle = curl.easy_init();
    SILT_CHECK(handle != nullptr, "curl_easy_init failed");
    return handle;
  }

  void Give(CURL* handle) {
    std::lock_guard<std::mutex> lock(mutex);
    idle.push_back(handle);
  }

  // One attempt. Returns the transport result; `response` holds what arrived.
  CURLcode Attempt(const CurlApi& curl, CURL* handle, const HttpRequest& request,
                   HttpResponse& response, std::string& error_text) {
    curl.easy_reset(handle);
    char error_buffer[CURL_ERROR_SIZE] = {};
    curl.easy_setopt(handle, CURLOPT_ERRORBUFFER, error_buffer);
    curl.easy_setopt(handle, CURLOPT_URL, request.url.c_str());
    curl.easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
    curl.easy_setopt(handle, CURLOPT_CONNECTTIMEOUT_MS,
                     static_cast<long>(options.connect_timeout_ms));
    curl.easy_setopt(handle, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl.easy_setopt(handle, CURLOPT_LOW_SPEED_TIME,
                     static_cast<long>(std::max<int64_t>(1, options.stall_timeout_ms / 1000)));
    curl.easy_setopt(handle, CURLOPT_WRITEFUNCTION, AppendBody);
    curl.easy_setopt(handle, CURLOPT_WRITEDATA, &response);
    curl.easy_setopt(handle, CURLOPT_HEADERFUNCTION, AppendHeader);
    curl.easy_setopt(handle, CURLOPT_HEADERDATA, &response);
    curl.easy_setopt(handle, CURLOPT_TCP_KEEPALIVE, 1L);

    const std::string& method = request.method;
    if (method == "HEAD") {
      curl.easy_setopt(handle, CURLOPT_NOBODY, 1L);
    } else if (method == "GET") {
      curl.easy_setopt(handle, CURLOPT_HTTPGET, 1L);
    } else {
      curl.easy_setopt(handle, CURLOPT_CUSTOMREQUEST, method.c_str());
      if (method != "DELETE" || !request.body.empty()) {
        curl.easy_setopt(handle, CURLOPT_POSTFIELDSIZE_LARGE,
                         static_cast<curl_off_t>(request.body.size()));
        curl.easy_setopt(handle, CURLOPT_POSTFIELDS,
                         request.body.empty() ? "" : request.body.data());
      }
    }

    curl_slist* header_list = nullptr;
    bool has_content_type = false;
    for (const auto& [name, value] : request.headers) {
      std::string line = name + ": " + value;
      header_list = curl.slist_append(header_list, line.c_str());
      if (name.size() == 12 && strncasecmp(name.c_str(), "content-type", 12) == 0) {
        has_content_type = true;
      }
    }
    // curl would add its own: a form content type on bodies and a 100-continue wait.
    if (!has_content_type) header_list = curl.slist_append(header_list, "Content-Type:");
    header_list = curl.slist_append(header_list, "Expect:");
    curl.easy_setopt(handle, CURLOPT_HTTPHEADER, header_list);

    CURLcode code = curl.easy_perform(handle);
    curl.slist_free_all(header_list);
    if (code == CURLE_OK) {
      curl.easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &response.status);
    } else {
      error_text = error_buffer[0] != '\0' ? error_buffer : curl.easy_strerror(code);
    }
    return code;
  }
};

HttpClient::HttpClient(HttpClientOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->options = options;
}

HttpClient::~HttpClient() {
  // Handles exist only once a request loaded libcurl.
  if (impl_->idle.empty()) return;
  const CurlApi* curl = LoadedCurl().api();
  for (CURL* handle : impl_->idle) curl->easy_cleanup(handle);
}

HttpCounters HttpClient::counters() const {
  return HttpCounters{impl_->requests.load(), impl_->retries.load(), impl_->bytes_received.load(),
                      impl_->bytes_sent.load()};
}

HttpResponse HttpClient::Send(const HttpRequest& request) {
  const CurlApi& curl = Curl(request.method, request.url);
  thread_local std::minstd_rand random(std::random_device{}());
  int64_t backoff_ms = impl_->options.initial_backoff_ms;
  for (int attempt = 1;; ++attempt) {
    HttpResponse response;
    std::string error_text;
    CURL* handle = impl_->Take(curl);
    CURLcode code = impl_->Attempt(curl, handle, request, response, error_text);
    if (code == CURLE_OK || IsRetryableTransportError(code)) {
      impl_->Give(handle);
    } else {
      curl.easy_cleanup(handle);
    }
    impl_->requests.fetch_add(1, std::memory_order_relaxed);
    impl_->bytes_sent.fetch_add(request.body.size(), std::memory_order_relaxed);
    impl_->bytes_received.fetch_add(response.body.size(), std::memory_order_relaxed);

    bool retryable =
        code == CURLE_OK ? IsRetryableStatus(response.status) : IsRetryableTransportError(code);
    if (!retryable || attempt >= impl_->options.max_attempts) {
      if (code != CURLE_OK) {
        SILT_THROW(STORAGE_REQUEST_FAILED,
                   {{"operation", request.method},
                    {"path", request.url},
                    {"message", error_text + " (after " + std::to_string(attempt) + " attempts)"}});
      }
      return response;
    }
    impl_->retries.fetch_add(1, std::memory_order_relaxed);
    std::uniform_int_distribution<int64_t> jitter(backoff_ms / 2, backoff_ms);
    std::this_thread::sleep_for(std::chrono::milliseconds(jitter(random)));
    backoff_ms = std::min(backoff_ms * 2, impl_->options.max_backoff_ms);
  }
}

}  // namespace silt::io
