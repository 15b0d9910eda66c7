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
  // The peer installs itself under a lock on first use, so tests may start it concurrently.
  std::string command = "'" + DuckDbPeer() + "' " + flags + " -f '" + script + "' > '" +
                        dir.Child("out") + "' 2> '" + dir.Child("err") + "' < /dev/null";
  int status = std::system(command.c_str());
  *out = ReadWholeFile(dir.Child("out"));
  *err = ReadWholeFile(dir.Child("err"));
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw std::runtime_error("DuckDB peer failed (" + std::to_string(status) + "): " + *err);
  }
}

}  // namespace

std::string TestDataDir() {
  const char* env = std::getenv("SILT_TEST_DATA_DIR");
  return env != nullptr && *env != '\0' ? env : SILT_DEFAULT_TEST_DATA_DIR;
}

std::string DuckDbPeer() {
  const char* env = std::getenv("SILT_DUCKDB_PEER");
  return env != nullptr && *env != '\0' ? env : SILT_DEFAULT_DUCKDB_PEER;
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
