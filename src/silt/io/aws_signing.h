#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "silt/io/http_client.h"

namespace silt::io {

/// An AWS access key, with the token and expiry of temporary credentials.
struct AwsCredentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;  ///< empty for long-term keys
  int64_t expires_at_ms = 0;  ///< 0: does not expire
};

/// SHA-256 of `data`, as lower-case hex.
std::string Sha256Hex(std::string_view data);
/// HMAC-SHA256 of `data` under `key`, raw bytes.
std::string HmacSha256(std::string_view key, std::string_view data);
/// The MD5 of `data`, base64-encoded (S3's Content-MD5, which batch deletes must carry).
std::string Md5Base64(std::string_view data);

/// `time` as SigV4's basic ISO 8601 form, "20130524T000000Z".
std::string AmzDate(std::chrono::system_clock::time_point time);

/// Signs `request` with AWS Signature Version 4 in its Authorization header: adds x-amz-date
/// (`amz_date`), x-amz-content-sha256 (`payload_hash`: the body's Sha256Hex or
/// "UNSIGNED-PAYLOAD") and, for temporary credentials, x-amz-security-token, then signs the
/// method, the URL's path and query exactly as written (callers encode them with UriEncode, as S3
/// wants them, each once), the host and every header of the request.
void SignAwsV4(HttpRequest& request, const AwsCredentials& credentials, std::string_view region,
               std::string_view service, std::string_view amz_date, std::string_view payload_hash);

}  // namespace silt::io
