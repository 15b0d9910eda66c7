#include "support/duckdb_peer.h"

#include <sys/wait.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "support/temp_dir.h"

namespace silt::test {
namespace {

std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// Runs the peer on a script file; stdout and stderr go to files in `dir`.
void RunPeer(const std::vector<std::string>& statements, const std::string& flags,
             const TempDir& dir, std::string* out, std::string* err) {
  std::string script = dir.Child("script.sql");
  {
    std::ofstream file(script);
    for (const std::string& statement : statements) file << statement << ";\n";
  }
  // The peer's launcher rewrites its script file on every start, so two peers started at once
  // (tests run in parallel) can load a half-copied script and print nothing. A lock file held
  // for the whole run (flock(1), util-linux) keeps the peers of concurrent tests one at a time.
  const char* tmp = std::getenv("TMPDIR");
  std::string lock = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") +
                     "/silt-duckdb-peer.lock";
  std::string command = "flock '" + lock + "' '" + SharedDir() + "/tools/duckdb/duckdb' " + flags +
                        " -f '" + script + "' > '" + dir.Child("out") + "' 2> '" +
                        dir.Child("err") + "' < /dev/null";
  int status = std::system(command.c_str());
  *out = ReadWholeFile(dir.Child("out"));
  *err = ReadWholeFile(dir.Child("err"));
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw std::runtime_error("DuckDB peer failed (" + std::to_string(status) + "): " + *err);
  }
}

}  // namespace

std::string SharedDir() {
  if (const char* env = std::getenv("SILT_SHARED_DIR"); env != nullptr && *env != '\0') return env;
  return SILT_DEFAULT_SHARED_DIR;
}

std::string RunDuckDb(const std::vector<std::string>& statements, const std::string& format) {
  TempDir dir;
  std::string out, err;
  RunPeer(statements, "--quiet --format " + format, dir, &out, &err);
  return out;
}

std::vector<double> TimeDuckDb(const std::vector<std::string>& statements, int threads) {
  TempDir dir;
  std::string out, err;
  RunPeer(statements, "--timer --threads " + std::to_string(threads), dir, &out, &err);
  // --timer prints one line per statement on stderr; the number of milliseconds is the last
  // number on each line that mentions "ms".
  std::vector<double> times;
  std::istringstream lines(err);
  std::string line;
  while (std::getline(lines, line)) {
    size_t ms = line.rfind("ms");
    if (ms == std::string::npos) continue;
    size_t end = ms;
    while (end > 0 && line[end - 1] == ' ') --end;
    size_t start = end;
    while (start > 0 && (std::isdigit(static_cast<unsigned char>(line[start - 1])) || line[start - 1] == '.')) --start;
    if (start < end) times.push_back(std::stod(line.substr(start, end - start)));
  }
  return times;
}

std::string SqlQuote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) {
    if (c == '\'') quoted += '\'';
    quoted += c;
  }
  return quoted + "'";
}

}  // namespace silt::test
