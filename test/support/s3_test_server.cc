#include "support/s3_test_server.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <random>

#include "silt/error.h"
#include "silt/io/http_client.h"

extern char** environ;

namespace silt::test {
namespace {

std::string ServerLauncher() {
  const char* env = std::getenv("SILT_S3_TEST_SERVER");
  return env != nullptr && *env != '\0' ? env : SILT_DEFAULT_S3_TEST_SERVER;
}

// Reads one line from `fd` within `timeout`; false on end of file or timeout.
bool ReadLine(int fd, std::chrono::seconds timeout, std::string* line) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  line->clear();
  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd descriptor{fd, POLLIN, 0};
    if (poll(&descriptor, 1, static_cast<int>(left.count())) <= 0) continue;
    char c;
    ssize_t got = read(fd, &c, 1);
    if (got <= 0) return false;
    if (c == '\n') return true;
    line->push_back(c);
  }
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

  int to_child[2];
  int from_child[2];
  if (pipe2(to_child, O_CLOEXEC) != 0 || pipe2(from_child, O_CLOEXEC) != 0) {
    failure = "pipe failed";
    *why_not = failure;
    return nullptr;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, to_child[0], 0);
  posix_spawn_file_actions_adddup2(&actions, from_child[1], 1);
  std::string launcher = ServerLauncher();
  std::string data = started->folder_ + "/data";
  std::vector<std::string> arguments = {launcher, "--dir", data, "--bucket", kBucket};
  std::vector<char*> argv;
  for (std::string& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  int spawned = posix_spawn(&pid, launcher.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(to_child[0]);
  close(from_child[1]);
  if (spawned != 0) {
    close(to_child[1]);
    close(from_child[0]);
    failure = "cannot run " + launcher;
    *why_not = failure;
    return nullptr;
  }
  started->pid_ = pid;
  started->stdin_fd_ = to_child[1];
  std::string line;
  // The first start may install s3rver from npm.
  bool ready = ReadLine(from_child[0], std::chrono::seconds(300), &line) &&
               line.rfind("READY ", 0) == 0;
  close(from_child[0]);
  if (!ready) {
    failure = "the S3 test server (" + launcher +
              ") did not start; is node installed and the npm registry reachable?";
    *why_not = failure;
    return nullptr;  // the destructor stops the process
  }
  started->endpoint_ = "http://127.0.0.1:" + line.substr(6);
  server = std::move(started);
  return server.get();
}

S3TestServer::~S3TestServer() {
  if (stdin_fd_ >= 0) close(stdin_fd_);  // the server stops when its input closes
  if (pid_ > 0) {
    for (int waited = 0; waited < 50; ++waited) {
      if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
        pid_ = -1;
        break;
      }
      usleep(100'000);
    }
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
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
