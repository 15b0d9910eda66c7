#pragma once

// A real PostgreSQL server for tests: Debian's postgresql-15 binaries, a fresh cluster in a
// temporary folder, on a free loopback port, with wal_level=logical; stopped and removed when
// the object goes away. When the process runs as root the cluster runs as the `postgres` user
// (the server refuses root).

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

namespace silt::cdc::testing {

class PostgresServer {
 public:
  /// The folder of the server binaries, or nullopt when they are not installed.
  static std::optional<std::string> BinaryFolder() {
    for (const char* folder : {"/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/16/bin",
                               "/usr/lib/postgresql/17/bin"}) {
      if (std::filesystem::exists(std::string(folder) + "/initdb")) return std::string(folder);
    }
    return std::nullopt;
  }

  /// Starts the server; `started()` says whether it did (the reason is in `error()`).
  PostgresServer() {
    auto bin = BinaryFolder();
    if (!bin) {
      error_ = "PostgreSQL server binaries (postgresql-15) are not installed";
      return;
    }
    char pattern[] = "/tmp/silt-pg-XXXXXX";
    if (mkdtemp(pattern) == nullptr) {
      error_ = "cannot make a temporary folder";
      return;
    }
    folder_ = pattern;
    port_ = FreePort();
    std::string as_user;
    if (geteuid() == 0) {
      as_user = "runuser -u postgres -- ";
      Shell("chown postgres " + folder_);
    }
    std::string data = folder_ + "/data";
    if (Shell(as_user + *bin + "/initdb -D " + data + " -U silt --auth=trust -E UTF8 --no-locale > " +
              folder_ + "/initdb.log 2>&1") != 0) {
      error_ = "initdb failed (see " + folder_ + "/initdb.log)";
      return;
    }
    pg_ctl_ = as_user + *bin + "/pg_ctl -D " + data;
    std::string options = "-p " + std::to_string(port_) + " -k " + folder_ +
                          " -c listen_addresses=127.0.0.1 -c wal_level=logical"
                          " -c max_replication_slots=20 -c max_wal_senders=20 -c fsync=off"
                          " -c synchronous_commit=off -c full_page_writes=off";
    if (Shell(pg_ctl_ + " -o \"" + options + "\" -l " + folder_ + "/server.log -w start > /dev/null 2>&1") != 0) {
      error_ = "the server did not start (see " + folder_ + "/server.log)";
      pg_ctl_.clear();
      return;
    }
    started_ = true;
  }

  ~PostgresServer() {
    if (!pg_ctl_.empty()) Shell(pg_ctl_ + " -m immediate stop > /dev/null 2>&1");
    if (!folder_.empty()) {
      std::error_code ignored;
      std::filesystem::remove_all(folder_, ignored);
    }
  }

  bool started() const { return started_; }
  const std::string& error() const { return error_; }
  int port() const { return port_; }
  /// A libpq URI of the `postgres` database as user `silt`.
  std::string Uri() const { return "postgresql://silt@127.0.0.1:" + std::to_string(port_) + "/postgres"; }

  /// Runs SQL through psql; returns its exit status.
  int Psql(const std::string& sql) const {
    std::string file = folder_ + "/statement.sql";
    FILE* out = std::fopen(file.c_str(), "w");
    if (out == nullptr) return -1;
    std::fputs(sql.c_str(), out);
    std::fclose(out);
    return Shell("psql -X -q -v ON_ERROR_STOP=1 '" + Uri() + "' -f " + file + " > /dev/null 2>&1");
  }

  /// Restarts the server (its clients lose their connections).
  bool Restart() {
    if (pg_ctl_.empty()) return false;
    return Shell(pg_ctl_ + " -m fast -w restart > /dev/null 2>&1") == 0;
  }

 private:
  static int Shell(const std::string& command) {
    int status = std::system(command.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  static int FreePort() {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    socklen_t length = sizeof(address);
    int port = 54329;
    if (fd >= 0 && bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
        getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
      port = ntohs(address.sin_port);
    }
    if (fd >= 0) close(fd);
    return port;
  }

  bool started_ = false;
  std::string error_;
  std::string folder_;
  std::string pg_ctl_;
  int port_ = 0;
};

}  // namespace silt::cdc::testing
