#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "silt/io/storage_options.h"
#include "support/server_process.h"

namespace silt::test {

/// Azurite's Blob service (tools/azurite-test-server), started on 127.0.0.1 for the tests of one
/// process and stopped when the process ends, with the container kContainer created in
/// Azurite's development account devstoreaccount1.
class AzuriteTestServer {
 public:
  static constexpr const char* kContainer = "silt-test";

  /// The process's server, started on first call (installing Azurite from npm on first use);
  /// nullptr when it cannot start, with the reason in `why_not`, so that tests can skip.
  static AzuriteTestServer* Shared(std::string* why_not);

  ~AzuriteTestServer();
  AzuriteTestServer(const AzuriteTestServer&) = delete;
  AzuriteTestServer& operator=(const AzuriteTestServer&) = delete;

  /// Azurite's connection string for devstoreaccount1, with this server's blob endpoint.
  std::string ConnectionString() const;

  /// Settings that reach this server (the connection string); no environment variable is read.
  std::shared_ptr<io::StorageOptions> Options() const;

  /// The same as session settings.
  std::vector<std::pair<std::string, std::string>> SessionSettings() const;

  /// A fresh "abfss://silt-test@devstoreaccount1.dfs.core.windows.net/<name>-<n>" folder.
  std::string NewFolder(const std::string& name);

 private:
  AzuriteTestServer() = default;

  ServerProcess process_;
  std::string endpoint_;
  std::string folder_;
  int next_folder_ = 0;
};

}  // namespace silt::test
