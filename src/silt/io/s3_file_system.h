#pragma once

#include <memory>
#include <string>

#include "silt/io/file_system.h"
#include "silt/io/http_client.h"
#include "silt/io/object_read_file.h"
#include "silt/io/storage_options.h"

namespace silt::io {

/// Amazon S3, or an S3-compatible store, for the paths "s3://BUCKET/..." and "s3a://BUCKET/..."
/// of one bucket. Settings (session settings first, then the environment; see StorageOptions):
///
///   AWS_REGION, AWS_DEFAULT_REGION, fs.s3a.endpoint.region     region (else the profile's, else
///                                                              us-east-1)
///   AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, fs.s3a.endpoint     a custom endpoint
///   (http://host:port);
///                                                              path-style addressing then
///   AWS_S3_FORCE_PATH_STYLE, fs.s3a.path.style.access          path-style on AWS's endpoint too
///   AWS_CONDITIONAL_PUT=etag                                   the store honours If-None-Match: *
///                                                              (AWS's own endpoint always does)
///   AWS_S3_ALLOW_UNSAFE_RENAME=true                            commit without conditional writes:
///                                                              safe for a single writer only
///   AWS_SKIP_SIGNATURE=true                                    unsigned requests (public buckets)
///   silt.storage.s3.multipartPartSize                          bytes per uploaded part (>= 5 MiB)
///   silt.storage.s3.listPageSize                               keys per listing request (1000)
///
/// and the credentials of AwsCredentialChain. Reads are ranged GETs; writes are one PUT, or a
/// multipart upload holding one part in memory once a file outgrows a part; List is ListObjectsV2
/// with continuation and start-after. PutIfAbsent is a PUT with If-None-Match: * where the store
/// supports it; otherwise it throws STORAGE_UNSAFE_COMMIT unless unsafe commits were allowed, and
/// then checks with HEAD before a plain PUT. A refused request throws STORAGE_ACCESS_DENIED, any
/// other failure STORAGE_REQUEST_FAILED with S3's error code and message. Requests are counted,
/// and reads cached, in `session` (see ObjectReadFile).
std::shared_ptr<FileSystem> MakeS3FileSystem(const std::string& bucket,
                                             std::shared_ptr<StorageOptions> options,
                                             std::shared_ptr<HttpClient> http,
                                             std::shared_ptr<ObjectStoreSession> session);

}  // namespace silt::io
