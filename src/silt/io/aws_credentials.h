#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "silt/io/aws_signing.h"
#include "silt/io/http_client.h"
#include "silt/io/storage_options.h"

namespace silt::io {

/// Where an S3 client finds its keys, in the order AWS's SDKs look:
///   1. AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY (+ AWS_SESSION_TOKEN), as session settings
///      (also spark.hadoop.fs.s3a.access.key / .secret.key / .session.token) or in the
///      environment;
///   2. the profile AWS_PROFILE (else "default") of the shared credentials file
///      (AWS_SHARED_CREDENTIALS_FILE, else ~/.aws/credentials), then of the config file
///      (AWS_CONFIG_FILE, else ~/.aws/config, where it is "[profile NAME]");
///   3. the container credentials endpoint (ECS: AWS_CONTAINER_CREDENTIALS_RELATIVE_URI, or
///      AWS_CONTAINER_CREDENTIALS_FULL_URI with AWS_CONTAINER_AUTHORIZATION_TOKEN);
///   4. the EC2 instance metadata service, IMDSv2 (AWS_EC2_METADATA_SERVICE_ENDPOINT overrides
///      its address; AWS_EC2_METADATA_DISABLED=true skips it).
/// Temporary credentials from 3 and 4 are fetched again five minutes before they expire.
/// Nothing found throws STORAGE_CREDENTIALS_NOT_FOUND naming what was tried.
class AwsCredentialChain {
 public:
  AwsCredentialChain(std::shared_ptr<StorageOptions> options, std::string path_for_messages);

  AwsCredentials Get();

 private:
  std::optional<AwsCredentials> FromSettings() const;
  std::optional<AwsCredentials> FromProfile() const;
  std::optional<AwsCredentials> FromContainer();
  std::optional<AwsCredentials> FromInstanceMetadata();

  std::shared_ptr<StorageOptions> options_;
  // The metadata endpoints answer at once or not at all: short timeouts, one retry, so that a
  // machine without them learns so in about a second.
  std::shared_ptr<HttpClient> http_;
  std::string path_;
  std::mutex mutex_;
  std::optional<AwsCredentials> cached_;  // from a metadata endpoint
};

/// The region of profile AWS_PROFILE (else "default") in the config file, if it names one.
std::optional<std::string> AwsProfileRegion(const StorageOptions& options);

/// The settings of one section ("default", "profile x") of an INI-style AWS file, or nullopt when
/// the file or the section is missing.
std::optional<std::map<std::string, std::string>> ReadAwsFileSection(const std::string& file,
                                                                     const std::string& section);

}  // namespace silt::io
