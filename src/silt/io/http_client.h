#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace silt::io {

/// One HTTP request. Header names are sent as given.
struct HttpRequest {
  std::string method = "GET";  ///< GET, HEAD, PUT, POST or DELETE
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string_view body;  ///< must outlive Send
};

struct HttpResponse {
  long status = 0;
  std::vector<std::pair<std::string, std::string>> headers;  ///< names lower-cased
  std::string body;

  /// The first header named `name` (lower case), if any.
  std::optional<std::string> Header(std::string_view name) const;
};

struct HttpClientOptions {
  int64_t connect_timeout_ms = 10'000;
  /// A response slower than 1 byte per second for this long is a timeout (and retried).
  int64_t stall_timeout_ms = 30'000;
  /// Attempts per request, the first included.
  int max_attempts = 6;
  /// The wait before the second attempt; each further wait doubles, up to max_backoff_ms, and is
  /// jittered.
  int64_t initial_backoff_ms = 50;
  int64_t max_backoff_ms = 5'000;
};

/// What a client has sent, for benchmarks and tests.
struct HttpCounters {
  uint64_t requests = 0;  ///< attempts, retries included
  uint64_t retries = 0;
  uint64_t bytes_received = 0;  ///< response bodies
  uint64_t bytes_sent = 0;      ///< request bodies
};

/// A small HTTP/1.1 client over libcurl, shared by the object stores. Connections are reused: a
/// pool of handles, each keeping its connections open, serves concurrent requests. A request that
/// fails to connect, is reset, stalls, or is answered 429, 500, 502, 503 or 504 is sent again
/// after a jittered exponential backoff; the last answer is returned, and a connection failure on
/// the last attempt throws STORAGE_REQUEST_FAILED. Thread-safe.
class HttpClient {
 public:
  explicit HttpClient(HttpClientOptions options = {});
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  HttpResponse Send(const HttpRequest& request);

  HttpCounters counters() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// True for the statuses Send retries (429 and the 5xx of an overloaded or restarting server).
bool IsRetryableStatus(long status);

/// Percent-encodes `text` as RFC 3986 unreserved characters allow (AWS's UriEncode); '/' is kept
/// when `keep_slash`.
std::string UriEncode(std::string_view text, bool keep_slash);

}  // namespace silt::io
