#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace silt::test {

/// A test server this process started (tools/s3-test-server, tools/azurite-test-server): its
/// process, whose standard input is a pipe held open here, and the port it reported.
class ServerProcess {
 public:
  ServerProcess() = default;
  ~ServerProcess();
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  /// Runs `arguments` (the launcher first) and waits up to `timeout` (a first start may install
  /// packages from npm) for a line of its standard output that contains `ready_marker`, followed
  /// by the port. Returns false, with the reason in `why_not`, when it cannot.
  bool Start(const std::vector<std::string>& arguments, const std::string& ready_marker,
             std::chrono::seconds timeout, std::string* why_not);

  int port() const { return port_; }

 private:
  pid_t pid_ = -1;
  int stdin_fd_ = -1;
  int stdout_fd_ = -1;
  int port_ = 0;
};

}  // namespace silt::test
