#pragma once

// The libcurl functions the HTTP client calls, from libcurl opened at the first request (see
// base/shared_library.h for why it is not linked).

#include <curl/curl.h>

#include <string>

namespace silt::io {

struct CurlApi {
  decltype(&curl_global_init) global_init;
  decltype(&curl_easy_init) easy_init;
  decltype(&curl_easy_reset) easy_reset;
  decltype(&curl_easy_cleanup) easy_cleanup;
  decltype(&curl_easy_setopt) easy_setopt;
  decltype(&curl_easy_perform) easy_perform;
  decltype(&curl_easy_getinfo) easy_getinfo;
  decltype(&curl_easy_strerror) easy_strerror;
  decltype(&curl_slist_append) slist_append;
  decltype(&curl_slist_free_all) slist_free_all;
};

/// libcurl, loaded and globally initialised once per process. Throws STORAGE_REQUEST_FAILED
/// (for `operation` on `url`) when it cannot be loaded.
const CurlApi& Curl(const std::string& operation, const std::string& url);

}  // namespace silt::io
