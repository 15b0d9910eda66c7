#include "support/s3_test_server.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <random>

#include "silt/error.h"
#include "silt/io/http_client.h"

namespace silt::test {
namespace {

std::string ServerLauncher() {
  const char* env = std::getenv("SILT_S3_TEST_SERVER");
  return env != nullptr && *env != '\0' ? env : SILT_DEFAULT_S3_TEST_SERVER;
}

std::string JsonNumberField(const std::string& json, const std::string& name) {
  size_t at = json.find("\"" + name + "\":");
  if (at == std::string::npos) return "0";
  size_t start = at + name.size() + 3;
  size_t end = json.find_first_of(",}", start);
  return json.substr(start, end - start);
}

}  // namespace

S3TestServer* S3TestServer::Shared(std::string* why_not) {
  static std::mutex mutex;
  static std::unique_ptr<S3TestServer> server;
  static std::string failure;
  std::lock_guard<std::mutex> lock(mutex);
  if (server) return server.get();
  if (!failure.empty()) {
    *why_not = failure;
    return nullptr;
  }
  auto started = std::unique_ptr<S3TestServer>(new S3TestServer());
  std::error_code ignored;
  std::string pattern = (std::filesystem::temp_directory_path() / "silt-s3-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    failure = "cannot create a folder for the S3 test server";
    *why_not = failure;
    return nullptr;
  }
  started->folder_ = pattern;

  std::string launcher = ServerLauncher();
  // The first start may install s3rver from npm.
  if (!started->process_.Start({launcher, "--dir", started->folder_ + "/data", "--bucket", kBucket},
                               "READY ", std::chrono::seconds(300), &failure)) {
    *why_not = failure;
    return nullptr;  // the destructor stops the process
  }
  started->endpoint_ = "http://127.0.0.1:" + std::to_string(started->process_.port());
  server = std::move(started);
  return server.get();
}

S3TestServer::~S3TestServer() {
  std::error_code ignored;
  if (!folder_.empty()) std::filesystem::remove_all(folder_, ignored);
}

std::shared_ptr<io::StorageOptions> S3TestServer::Options() const {
  auto options = std::make_shared<io::StorageOptions>(/*read_environment=*/false);
  options->Set("AWS_ENDPOINT_URL", endpoint_);
  options->Set("AWS_REGION", "us-east-1");
  options->Set("AWS_ACCESS_KEY_ID", "S3RVER");
  options->Set("AWS_SECRET_ACCESS_KEY", "S3RVER");
  options->Set("AWS_CONDITIONAL_PUT", "etag");
  return options;
}

std::vector<std::pair<std::string, std::string>> S3TestServer::SessionSettings() const {
  return {{"spark.hadoop.fs.s3a.endpoint", endpoint_},
          {"spark.hadoop.fs.s3a.endpoint.region", "us-east-1"},
          {"spark.hadoop.fs.s3a.access.key", "S3RVER"},
          {"spark.hadoop.fs.s3a.secret.key", "S3RVER"},
          {"spark.hadoop.fs.s3a.path.style.access", "true"},
          {"AWS_CONDITIONAL_PUT", "etag"}};
}

std::string S3TestServer::NewFolder(const std::string& name) {
  static std::mt19937_64 random(std::random_device{}());
  return std::string("s3://") + kBucket + "/" + name + "-" + std::to_string(next_folder_++) + "-" +
         std::to_string(random() % 1000000);
}

std::string S3TestServer::Control(const std::string& method, const std::string& path,
                                  const std::string& body) {
  static io::HttpClient client;
  io::HttpRequest request;
  request.method = method;
  request.url = endpoint_ + path;
  request.body = body;
  io::HttpResponse response = client.Send(request);
  if (response.status != 200) {
    throw std::runtime_error("S3 test server control " + path + " answered " +
                             std::to_string(response.status));
  }
  return response.body;
}

void S3TestServer::ArmFault(const std::string& kind, int count, const std::string& method,
                            const std::string& match, int delay_ms) {
  std::string body = "{\"kind\":\"" + kind + "\",\"count\":" + std::to_string(count) +
                     ",\"delayMs\":" + std::to_string(delay_ms);
  if (!method.empty()) body += ",\"method\":\"" + method + "\"";
  if (!match.empty()) body += ",\"match\":\"" + match + "\"";
  body += "}";
  Control("POST", "/__faults", body);
}

void S3TestServer::ClearFaults() { Control("POST", "/__clear-faults", ""); }

S3TestServer::Stats S3TestServer::GetStats() {
  std::string json = Control("GET", "/__stats", "");
  Stats stats;
  stats.requests = std::stoll(JsonNumberField(json, "requests"));
  stats.bytes_sent = std::stoll(JsonNumberField(json, "bytesSent"));
  stats.faults_fired = std::stoll(JsonNumberField(json, "faultsFired"));
  stats.gets = std::stoll(JsonNumberField(json, "GET"));
  return stats;
}

void S3TestServer::ResetStats() { Control("POST", "/__reset-stats", ""); }

}  // namespace silt::test
