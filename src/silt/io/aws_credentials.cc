#include "silt/io/aws_credentials.h"

#include <simdjson.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "silt/base/check.h"

namespace silt::io {
namespace {

constexpr int64_t kRefreshBeforeExpiryMs = 5 * 60 * 1000;
constexpr char kImdsAddress[] = "http://169.254.169.254";
constexpr char kContainerAddress[] = "http://169.254.170.2";

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string Trim(std::string text) {
  size_t start = text.find_first_not_of(" \t\r\n");
  if (start == std::string::npos) return "";
  size_t end = text.find_last_not_of(" \t\r\n");
  return text.substr(start, end - start + 1);
}

std::string HomeFile(const char* relative) {
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr ? home : "") + relative;
}

std::string ProfileName(const StorageOptions& options) {
  return options.Find({"AWS_PROFILE", "fs.s3a.profile"}).value_or("default");
}

// "2017-05-17T15:09:54Z" as milliseconds since the epoch; 0 when it does not parse.
int64_t ParseIsoTime(const std::string& text) {
  std::tm time{};
  std::istringstream stream(text);
  stream >> std::get_time(&time, "%Y-%m-%dT%H:%M:%S");
  if (stream.fail()) return 0;
  return static_cast<int64_t>(timegm(&time)) * 1000;
}

// The credentials JSON the ECS and EC2 endpoints answer with.
std::optional<AwsCredentials> ParseMetadataCredentials(const std::string& body) {
  simdjson::dom::parser parser;
  simdjson::dom::element document;
  if (parser.parse(body).get(document) != simdjson::SUCCESS) return std::nullopt;
  auto text = [&](const char* key) -> std::string {
    std::string_view value;
    if (document[key].get_string().get(value) != simdjson::SUCCESS) return "";
    return std::string(value);
  };
  AwsCredentials credentials{text("AccessKeyId"), text("SecretAccessKey"), text("Token"),
                             ParseIsoTime(text("Expiration"))};
  if (credentials.access_key_id.empty() || credentials.secret_access_key.empty()) {
    return std::nullopt;
  }
  return credentials;
}

}  // namespace

std::optional<std::map<std::string, std::string>> ReadAwsFileSection(const std::string& file,
                                                                     const std::string& section) {
  std::ifstream input(file);
  if (!input) return std::nullopt;
  std::optional<std::map<std::string, std::string>> found;
  bool inside = false;
  std::string line;
  while (std::getline(input, line)) {
    line = Trim(line);
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line.front() == '[' && line.back() == ']') {
      inside = Trim(line.substr(1, line.size() - 2)) == section;
      if (inside && !found) found.emplace();
      continue;
    }
    size_t equals = line.find('=');
    if (!inside || equals == std::string::npos) continue;
    (*found)[Trim(line.substr(0, equals))] = Trim(line.substr(equals + 1));
  }
  return found;
}

std::optional<std::string> AwsProfileRegion(const StorageOptions& options) {
  std::string profile = ProfileName(options);
  std::string file = options.Find({"AWS_CONFIG_FILE"}).value_or(HomeFile("/.aws/config"));
  auto section = ReadAwsFileSection(file, profile == "default" ? "default" : "profile " + profile);
  if (!section) return std::nullopt;
  auto region = section->find("region");
  if (region == section->end() || region->second.empty()) return std::nullopt;
  return region->second;
}

AwsCredentialChain::AwsCredentialChain(std::shared_ptr<StorageOptions> options,
                                       std::string path_for_messages)
    : options_(std::move(options)),
      http_(std::make_shared<HttpClient>(HttpClientOptions{.connect_timeout_ms = 1000,
                                                           .stall_timeout_ms = 5000,
                                                           .max_attempts = 2})),
      path_(std::move(path_for_messages)) {}

std::optional<AwsCredentials> AwsCredentialChain::FromSettings() const {
  std::optional<std::string> key = options_->Find({"AWS_ACCESS_KEY_ID", "fs.s3a.access.key"});
  std::optional<std::string> secret =
      options_->Find({"AWS_SECRET_ACCESS_KEY", "fs.s3a.secret.key"});
  if (!key || !secret) return std::nullopt;
  return AwsCredentials{
      *key, *secret, options_->Find({"AWS_SESSION_TOKEN", "fs.s3a.session.token"}).value_or(""), 0};
}

std::optional<AwsCredentials> AwsCredentialChain::FromProfile() const {
  std::string profile = ProfileName(*options_);
  std::string credentials_file =
      options_->Find({"AWS_SHARED_CREDENTIALS_FILE"}).value_or(HomeFile("/.aws/credentials"));
  std::string config_file = options_->Find({"AWS_CONFIG_FILE"}).value_or(HomeFile("/.aws/config"));
  for (const auto& [file, section] :
       {std::pair{credentials_file, profile},
        std::pair{config_file, profile == "default" ? profile : "profile " + profile}}) {
    auto settings = ReadAwsFileSection(file, section);
    if (!settings) continue;
    auto key = settings->find("aws_access_key_id");
    auto secret = settings->find("aws_secret_access_key");
    if (key == settings->end() || secret == settings->end()) continue;
    auto token = settings->find("aws_session_token");
    return AwsCredentials{key->second, secret->second,
                          token == settings->end() ? "" : token->second, 0};
  }
  return std::nullopt;
}

std::optional<AwsCredentials> AwsCredentialChain::FromContainer() {
  HttpRequest request;
  if (auto relative = options_->Find({"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"})) {
    request.url = std::string(kContainerAddress) + *relative;
  } else if (auto full = options_->Find({"AWS_CONTAINER_CREDENTIALS_FULL_URI"})) {
    request.url = *full;
    if (auto token = options_->Find({"AWS_CONTAINER_AUTHORIZATION_TOKEN"})) {
      request.headers.emplace_back("Authorization", *token);
    }
  } else {
    return std::nullopt;
  }
  HttpResponse response = http_->Send(request);
  if (response.status != 200) {
    SILT_THROW(STORAGE_CREDENTIALS_NOT_FOUND,
               {{"path", path_},
                {"message", "the container credentials endpoint " + request.url + " answered " +
                                std::to_string(response.status)}});
  }
  return ParseMetadataCredentials(response.body);
}

std::optional<AwsCredentials> AwsCredentialChain::FromInstanceMetadata() {
  if (options_->FindFlag({"AWS_EC2_METADATA_DISABLED"}, false)) return std::nullopt;
  std::string address =
      options_->Find({"AWS_EC2_METADATA_SERVICE_ENDPOINT"}).value_or(kImdsAddress);
  while (!address.empty() && address.back() == '/') address.pop_back();
  // IMDSv2: a session token first, then the role's name, then its credentials.
  HttpRequest token_request;
  token_request.method = "PUT";
  token_request.url = address + "/latest/api/token";
  token_request.headers.emplace_back("X-aws-ec2-metadata-token-ttl-seconds", "21600");
  HttpResponse token;
  try {
    token = http_->Send(token_request);
  } catch (const Error&) {
    return std::nullopt;  // not on EC2
  }
  if (token.status != 200) return std::nullopt;
  HttpRequest role_request;
  role_request.url = address + "/latest/meta-data/iam/security-credentials/";
  role_request.headers.emplace_back("X-aws-ec2-metadata-token", token.body);
  HttpResponse role = http_->Send(role_request);
  std::string role_name = Trim(role.body.substr(0, role.body.find('\n')));
  if (role.status != 200 || role_name.empty()) return std::nullopt;
  HttpRequest credentials_request;
  credentials_request.url = role_request.url + role_name;
  credentials_request.headers = role_request.headers;
  HttpResponse credentials = http_->Send(credentials_request);
  if (credentials.status != 200) return std::nullopt;
  return ParseMetadataCredentials(credentials.body);
}

AwsCredentials AwsCredentialChain::Get() {
  if (auto credentials = FromSettings()) return *credentials;
  if (auto credentials = FromProfile()) return *credentials;
  std::lock_guard<std::mutex> lock(mutex_);
  if (cached_ &&
      (cached_->expires_at_ms == 0 || cached_->expires_at_ms - kRefreshBeforeExpiryMs > NowMs())) {
    return *cached_;
  }
  cached_ = FromContainer();
  if (!cached_) cached_ = FromInstanceMetadata();
  if (cached_) return *cached_;
  SILT_THROW(STORAGE_CREDENTIALS_NOT_FOUND,
             {{"path", path_},
              {"message",
               "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or spark.hadoop.fs.s3a.access.key "
               "and .secret.key), a profile in ~/.aws/credentials (AWS_PROFILE), or run where a "
               "container or instance metadata endpoint serves credentials; "
               "AWS_SKIP_SIGNATURE=true reads a public bucket unsigned"}});
}

}  // namespace silt::io
