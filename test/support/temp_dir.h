#pragma once

#include <string>

namespace silt::test {

/// A fresh folder under $TMPDIR (or /tmp), removed with its content on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  /// path() + "/" + name
  std::string Child(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace silt::test
