#pragma once

// Runs the `silt` binary (SILT_BINARY, set by CTest) as a user would, for the CLI tests.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "support/temp_dir.h"

namespace silt::test {

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string ReadFileText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Runs `silt <args>` through the shell with stdin from /dev/null; `args` is shell text.
inline RunResult RunSilt(const std::string& args) {
  const char* binary = std::getenv("SILT_BINARY");
  EXPECT_NE(binary, nullptr) << "SILT_BINARY is set by CTest";
  TempDir dir;
  std::string command = std::string(binary) + " " + args + " > " + dir.Child("out") + " 2> " +
                        dir.Child("err") + " < /dev/null";
  int status = std::system(command.c_str());
  RunResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = ReadFileText(dir.Child("out"));
  result.err = ReadFileText(dir.Child("err"));
  return result;
}

}  // namespace silt::test
