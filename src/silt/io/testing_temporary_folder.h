#pragma once

// Test-only: a fresh folder under the system's temporary folder, removed with everything in it
// when the object is destroyed. The io layer's tests use it instead of test/support so that they
// depend on nothing above io/.

#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>

namespace silt::io {

class TestingTemporaryFolder {
 public:
  TestingTemporaryFolder() {
    std::string pattern = (std::filesystem::temp_directory_path() / "silt-io-test-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw std::runtime_error("mkdtemp failed for " + pattern);
    }
    path_ = pattern;
  }
  ~TestingTemporaryFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TestingTemporaryFolder(const TestingTemporaryFolder&) = delete;
  TestingTemporaryFolder& operator=(const TestingTemporaryFolder&) = delete;

  /// The folder's absolute path, without a trailing '/'.
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace silt::io
