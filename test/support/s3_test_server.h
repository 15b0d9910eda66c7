#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "silt/io/storage_options.h"
#include "support/server_process.h"

namespace silt::test {

/// The S3-compatible server of tools/s3-test-server, started on 127.0.0.1 for the tests of one
/// process and stopped when the process ends. It serves s3rver's S3 API (with its access key
/// "S3RVER"), answers If-None-Match: * on PUT as S3 does, and injects faults on request.
class S3TestServer {
 public:
  /// The bucket every test writes into, each below a prefix of its own.
  static constexpr const char* kBucket = "silt-test";

  /// The process's server, started on first call (installing s3rver from npm on first use);
  /// nullptr when it cannot start, with the reason in `why_not`, so that tests can skip.
  static S3TestServer* Shared(std::string* why_not);

  ~S3TestServer();
  S3TestServer(const S3TestServer&) = delete;
  S3TestServer& operator=(const S3TestServer&) = delete;

  /// "http://127.0.0.1:PORT".
  const std::string& endpoint() const { return endpoint_; }

  /// Settings that reach this server: endpoint, region, s3rver's keys and conditional writes
  /// (AWS_CONDITIONAL_PUT=etag); no environment variable is read.
  std::shared_ptr<io::StorageOptions> Options() const;

  /// The same settings as Spark users write them (spark.hadoop.fs.s3a.*), for a session.
  std::vector<std::pair<std::string, std::string>> SessionSettings() const;

  /// A fresh "s3://silt-test/<name>-<n>" folder for one test.
  std::string NewFolder(const std::string& name);

  /// Arms `count` faults of `kind` ("reset", "503", "slow", "lost-reply") for requests with
  /// `method` (any when empty) whose URL contains `match`.
  void ArmFault(const std::string& kind, int count, const std::string& method = "",
                const std::string& match = "", int delay_ms = 0);
  void ClearFaults();

  /// Requests served since the last ResetStats, and how many faults fired.
  struct Stats {
    int64_t requests = 0;
    int64_t gets = 0;
    int64_t bytes_sent = 0;
    int64_t faults_fired = 0;
  };
  Stats GetStats();
  void ResetStats();

 private:
  S3TestServer() = default;
  std::string Control(const std::string& method, const std::string& path, const std::string& body);

  ServerProcess process_;
  std::string endpoint_;
  std::string folder_;
  int next_folder_ = 0;
};

}  // namespace silt::test
