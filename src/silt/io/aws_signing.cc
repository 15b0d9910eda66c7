#include "silt/io/aws_signing.h"

#include "silt/io/crypto_api.h"


#include <algorithm>
#include <cctype>
#include <ctime>
#include <utility>
#include <vector>

namespace silt::io {
namespace {

std::string Hex(const unsigned char* bytes, size_t length) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string text(length * 2, '\0');
  for (size_t i = 0; i < length; ++i) {
    text[2 * i] = kHex[bytes[i] >> 4];
    text[2 * i + 1] = kHex[bytes[i] & 0xF];
  }
  return text;
}

std::string Lower(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower;
}

// A header value as SigV4 canonicalizes it: outer blanks dropped, inner runs of blanks as one.
std::string TrimmedValue(std::string_view value) {
  std::string trimmed;
  bool blank = false;
  for (char c : value) {
    if (c == ' ' || c == '\t') {
      blank = true;
      continue;
    }
    if (blank && !trimmed.empty()) trimmed.push_back(' ');
    blank = false;
    trimmed.push_back(c);
  }
  return trimmed;
}

// The query "b=2&a=1" as SigV4 wants it: parameters sorted by name, then value; "a" as "a=".
std::string CanonicalQuery(std::string_view query) {
  std::vector<std::pair<std::string, std::string>> parameters;
  size_t start = 0;
  while (start < query.size()) {
    size_t end = query.find('&', start);
    if (end == std::string_view::npos) end = query.size();
    std::string_view part = query.substr(start, end - start);
    size_t equals = part.find('=');
    if (!part.empty()) {
      parameters.emplace_back(
          std::string(part.substr(0, equals)),
          equals == std::string_view::npos ? "" : std::string(part.substr(equals + 1)));
    }
    start = end + 1;
  }
  std::sort(parameters.begin(), parameters.end());
  std::string canonical;
  for (const auto& [name, value] : parameters) {
    if (!canonical.empty()) canonical.push_back('&');
    canonical += name + "=" + value;
  }
  return canonical;
}

}  // namespace

std::string Sha256Hex(std::string_view data) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  Crypto().sha256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest);
  return Hex(digest, sizeof(digest));
}

std::string HmacSha256(std::string_view key, std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  const CryptoApi& crypto = Crypto();
  crypto.hmac(crypto.evp_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest, &length);
  return std::string(reinterpret_cast<const char*>(digest), length);
}

std::string Md5Base64(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  const CryptoApi& crypto = Crypto();
  crypto.evp_digest(data.data(), data.size(), digest, &length, crypto.evp_md5(), nullptr);
  unsigned char encoded[64];
  int encoded_length = crypto.evp_encode_block(encoded, digest, static_cast<int>(length));
  return std::string(reinterpret_cast<const char*>(encoded), static_cast<size_t>(encoded_length));
}

std::string AmzDate(std::chrono::system_clock::time_point time) {
  std::time_t seconds = std::chrono::system_clock::to_time_t(time);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[32];
  std::strftime(text, sizeof(text), "%Y%m%dT%H%M%SZ", &utc);
  return text;
}

void SignAwsV4(HttpRequest& request, const AwsCredentials& credentials, std::string_view region,
               std::string_view service, std::string_view amz_date, std::string_view payload_hash) {
  request.headers.emplace_back("x-amz-date", std::string(amz_date));
  request.headers.emplace_back("x-amz-content-sha256", std::string(payload_hash));
  if (!credentials.session_token.empty()) {
    request.headers.emplace_back("x-amz-security-token", credentials.session_token);
  }

  std::string_view url = request.url;
  size_t authority_start = url.find("://");
  authority_start = authority_start == std::string_view::npos ? 0 : authority_start + 3;
  size_t path_start = url.find('/', authority_start);
  size_t query_start = url.find('?', authority_start);
  if (path_start == std::string_view::npos || path_start > query_start) path_start = query_start;
  std::string host(url.substr(authority_start, std::min(path_start, url.size()) - authority_start));
  std::string path = path_start == std::string_view::npos
                         ? "/"
                         : std::string(url.substr(path_start, query_start == std::string_view::npos
                                                                  ? std::string_view::npos
                                                                  : query_start - path_start));
  if (path.empty()) path = "/";
  std::string_view query =
      query_start == std::string_view::npos ? std::string_view() : url.substr(query_start + 1);

  std::vector<std::pair<std::string, std::string>> headers;
  bool has_host = false;
  for (const auto& [name, value] : request.headers) {
    std::string lower = Lower(name);
    has_host = has_host || lower == "host";
    headers.emplace_back(std::move(lower), TrimmedValue(value));
  }
  if (!has_host) headers.emplace_back("host", host);
  std::stable_sort(headers.begin(), headers.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string canonical_headers;
  std::string signed_headers;
  for (size_t i = 0; i < headers.size(); ++i) {
    // Repeated headers are one line, their values joined by commas.
    if (i > 0 && headers[i].first == headers[i - 1].first) {
      canonical_headers.back() = ',';
      canonical_headers += headers[i].second + "\n";
      continue;
    }
    canonical_headers += headers[i].first + ":" + headers[i].second + "\n";
    if (!signed_headers.empty()) signed_headers.push_back(';');
    signed_headers += headers[i].first;
  }

  std::string canonical_request = request.method + "\n" + path + "\n" + CanonicalQuery(query) +
                                  "\n" + canonical_headers + "\n" + signed_headers + "\n" +
                                  std::string(payload_hash);
  std::string date(amz_date.substr(0, 8));
  std::string scope =
      date + "/" + std::string(region) + "/" + std::string(service) + "/aws4_request";
  std::string string_to_sign = "AWS4-HMAC-SHA256\n" + std::string(amz_date) + "\n" + scope + "\n" +
                               Sha256Hex(canonical_request);
  std::string key = HmacSha256("AWS4" + credentials.secret_access_key, date);
  key = HmacSha256(key, region);
  key = HmacSha256(key, service);
  key = HmacSha256(key, "aws4_request");
  std::string signature = HmacSha256(key, string_to_sign);
  request.headers.emplace_back(
      "Authorization",
      "AWS4-HMAC-SHA256 Credential=" + credentials.access_key_id + "/" + scope +
          ",SignedHeaders=" + signed_headers + ",Signature=" +
          Hex(reinterpret_cast<const unsigned char*>(signature.data()), signature.size()));
}

}  // namespace silt::io
