#include "support/server_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>

extern char** environ;

namespace silt::test {
namespace {

// Reads one line from `fd` before `deadline`; false on end of file or timeout.
bool ReadLine(int fd, std::chrono::steady_clock::time_point deadline, std::string* line) {
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

}  // namespace

bool ServerProcess::Start(const std::vector<std::string>& arguments,
                          const std::string& ready_marker, std::chrono::seconds timeout,
                          std::string* why_not) {
  int to_child[2];
  int from_child[2];
  if (pipe2(to_child, O_CLOEXEC) != 0 || pipe2(from_child, O_CLOEXEC) != 0) {
    *why_not = "pipe failed";
    return false;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, to_child[0], 0);
  posix_spawn_file_actions_adddup2(&actions, from_child[1], 1);
  std::vector<std::string> copies = arguments;
  std::vector<char*> argv;
  for (std::string& argument : copies) argv.push_back(argument.data());
  argv.push_back(nullptr);
  int spawned = posix_spawn(&pid_, copies[0].c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(to_child[0]);
  close(from_child[1]);
  stdin_fd_ = to_child[1];
  stdout_fd_ = from_child[0];
  if (spawned != 0) {
    pid_ = -1;
    *why_not = "cannot run " + arguments[0];
    return false;
  }
  auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string line;
  while (ReadLine(stdout_fd_, deadline, &line)) {
    size_t at = line.find(ready_marker);
    if (at == std::string::npos) continue;
    port_ = std::atoi(line.c_str() + at + ready_marker.size());
    if (port_ > 0) return true;
  }
  *why_not = arguments[0] + " did not start; is node installed and the npm registry reachable?";
  return false;
}

ServerProcess::~ServerProcess() {
  if (stdin_fd_ >= 0) close(stdin_fd_);  // a server that reads its input stops here
  if (pid_ > 0) {
    bool ended = false;
    for (int waited = 0; waited < 20 && !ended; ++waited) {
      if (waited == 10) kill(pid_, SIGTERM);
      ended = waitpid(pid_, nullptr, WNOHANG) == pid_;
      if (!ended) usleep(100'000);
    }
    if (!ended) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  if (stdout_fd_ >= 0) close(stdout_fd_);
}

}  // namespace silt::test
