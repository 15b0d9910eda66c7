#include "support/azurite_test_server.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <random>

#include "silt/io/azure_file_system.h"
#include "silt/io/http_client.h"

namespace silt::test {
namespace {

constexpr char kAccount[] = "devstoreaccount1";
constexpr char kKey[] =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

std::string ServerLauncher() {
  const char* env = std::getenv("SILT_AZURITE_TEST_SERVER");
  return env != nullptr && *env != '\0' ? env : SILT_DEFAULT_AZURITE_TEST_SERVER;
}

std::string HttpDateNow() {
  std::time_t seconds = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[64];
  std::strftime(text, sizeof(text), "%a, %d %b %Y %H:%M:%S GMT", &utc);
  return text;
}

}  // namespace

AzuriteTestServer* AzuriteTestServer::Shared(std::string* why_not) {
  static std::mutex mutex;
  static std::unique_ptr<AzuriteTestServer> server;
  static std::string failure;
  std::lock_guard<std::mutex> lock(mutex);
  if (server) return server.get();
  if (!failure.empty()) {
    *why_not = failure;
    return nullptr;
  }
  auto started = std::unique_ptr<AzuriteTestServer>(new AzuriteTestServer());
  std::string pattern = (std::filesystem::temp_directory_path() / "silt-azurite-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    failure = "cannot create a folder for Azurite";
    *why_not = failure;
    return nullptr;
  }
  started->folder_ = pattern;
  if (!started->process_.Start(
          {ServerLauncher(), "--dir", started->folder_},
          "successfully listens on http://127.0.0.1:", std::chrono::seconds(300), &failure)) {
    *why_not = failure;
    return nullptr;
  }
  started->endpoint_ =
      "http://127.0.0.1:" + std::to_string(started->process_.port()) + "/" + kAccount;
  // The container every test writes below (Create Container, signed with the account's key).
  io::HttpClient client;
  io::HttpRequest request;
  request.method = "PUT";
  request.url = started->endpoint_ + "/" + kContainer + "?restype=container";
  request.headers.emplace_back("x-ms-date", HttpDateNow());
  request.headers.emplace_back("x-ms-version", "2021-12-02");
  request.headers.emplace_back("Authorization",
                               std::string("SharedKey ") + kAccount + ":" +
                                   io::AzureSharedKeySignature(request, kAccount, kKey));
  io::HttpResponse response = client.Send(request);
  if (response.status != 201 && response.status != 409) {
    failure = "Azurite refused to create the test container: HTTP " +
              std::to_string(response.status) + " " + response.body;
    *why_not = failure;
    return nullptr;
  }
  server = std::move(started);
  return server.get();
}

AzuriteTestServer::~AzuriteTestServer() {
  std::error_code ignored;
  if (!folder_.empty()) std::filesystem::remove_all(folder_, ignored);
}

std::string AzuriteTestServer::ConnectionString() const {
  return std::string("DefaultEndpointsProtocol=http;AccountName=") + kAccount +
         ";AccountKey=" + kKey + ";BlobEndpoint=" + endpoint_ + ";";
}

std::shared_ptr<io::StorageOptions> AzuriteTestServer::Options() const {
  auto options = std::make_shared<io::StorageOptions>(/*read_environment=*/false);
  options->Set("AZURE_STORAGE_CONNECTION_STRING", ConnectionString());
  return options;
}

std::vector<std::pair<std::string, std::string>> AzuriteTestServer::SessionSettings() const {
  return {{"AZURE_STORAGE_CONNECTION_STRING", ConnectionString()}};
}

std::string AzuriteTestServer::NewFolder(const std::string& name) {
  static std::mt19937_64 random(std::random_device{}());
  return std::string("abfss://") + kContainer + "@" + kAccount + ".dfs.core.windows.net/" + name +
         "-" + std::to_string(next_folder_++) + "-" + std::to_string(random() % 1000000);
}

}  // namespace silt::test
