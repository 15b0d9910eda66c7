#include "interrupt.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>

namespace silt::cli {
namespace {

// Written by the signal handler: only lock-free atomics and write(2).
std::atomic<Session*> g_target{nullptr};
std::atomic<bool> g_pending{false};
int g_wake_pipe[2] = {-1, -1};  // the handler writes a byte so that a poll wakes up

static_assert(std::atomic<Session*>::is_always_lock_free);
static_assert(std::atomic<bool>::is_always_lock_free);

constexpr unsigned char kControlC = 0x03;

void OnInterrupt(int) {
  int saved_errno = errno;
  g_pending.store(true);
  if (Session* session = g_target.load()) session->Cancel();
  if (g_wake_pipe[1] >= 0) {
    char byte = 1;
    [[maybe_unused]] ssize_t ignored = write(g_wake_pipe[1], &byte, 1);
  }
  errno = saved_errno;
}

void DrainWakePipe() {
  char bytes[64];
  while (g_wake_pipe[0] >= 0 && read(g_wake_pipe[0], bytes, sizeof(bytes)) > 0) {
  }
}

}  // namespace

void InstallInterruptHandler() {
  static bool installed = false;
  if (installed) return;
  installed = true;
  if (pipe(g_wake_pipe) == 0) {
    for (int fd : g_wake_pipe) {
      fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
      fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
  }
  struct sigaction action {};
  action.sa_handler = OnInterrupt;
  sigemptyset(&action.sa_mask);
  // Restarted calls keep file I/O of the running statement from failing with EINTR; the
  // prompt's poll() is never restarted, and the wake-up pipe ends it anyway.
  action.sa_flags = SA_RESTART;
  sigaction(SIGINT, &action, nullptr);
}

void SetInterruptTarget(Session* session) { g_target.store(session); }

bool TakeInterrupt() {
  DrainWakePipe();
  return g_pending.exchange(false);
}

int ReadKeyOrInterrupt(FILE*) {
  for (;;) {
    if (g_pending.load()) return EOF;
    pollfd fds[2] = {{STDIN_FILENO, POLLIN, 0}, {g_wake_pipe[0], POLLIN, 0}};
    int ready = poll(fds, g_wake_pipe[0] >= 0 ? 2 : 1, -1);
    if (ready < 0) {
      if (errno == EINTR) continue;
      return EOF;
    }
    if ((fds[0].revents & (POLLIN | POLLHUP | POLLERR)) == 0) {
      DrainWakePipe();  // the handler set the flag before it wrote: the loop sees it
      continue;
    }
    unsigned char key = 0;
    ssize_t n = read(STDIN_FILENO, &key, 1);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) return EOF;
    if (key == kControlC) {
      g_pending.store(true);
      return EOF;
    }
    return key;
  }
}

}  // namespace silt::cli
