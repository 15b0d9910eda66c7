#pragma once

#include <memory>
#include <string>

#include "silt/io/file_system.h"
#include "silt/io/http_client.h"
#include "silt/io/object_read_file.h"
#include "silt/io/storage_options.h"

namespace silt::io {

/// Azure Blob Storage and ADLS Gen2 (through its Blob API) for one container:
///   abfss://CONTAINER@ACCOUNT.dfs.core.windows.net/path (also abfs://),
///   wasbs://CONTAINER@ACCOUNT.blob.core.windows.net/path (also wasb://), and
///   az://CONTAINER/path with the account from the settings.
/// `authority` is the URL's part before the path ("CONTAINER@HOST" or "CONTAINER"). Settings
/// (session settings first, then the environment; see StorageOptions):
///
///   AZURE_STORAGE_CONNECTION_STRING   AccountName, AccountKey, SharedAccessSignature and
///                                     BlobEndpoint as the portal and Azurite write them
///                                     (UseDevelopmentStorage=true: Azurite's devstoreaccount1)
///   AZURE_STORAGE_ACCOUNT_NAME        the account (else the URL's)
///   AZURE_STORAGE_ACCOUNT_KEY         shared key authentication
///                                     (fs.azure.account.key.ACCOUNT.dfs.core.windows.net too)
///   AZURE_STORAGE_SAS_TOKEN           shared access signature authentication
///   AZURE_STORAGE_ENDPOINT            the blob endpoint, for an emulator
///                                     (http://127.0.0.1:10000/devstoreaccount1)
///
/// Reads are ranged GETs; writes are one Put Blob, or Put Block for each 8 MiB and Put Block List
/// once a file outgrows one block; PutIfAbsent is a Put Blob with If-None-Match: *, which Azure
/// honours; listings page with markers. The Blob API has no batch delete for every account kind,
/// so many files (VACUUM's) are deleted a request each, kMaxConcurrentDeletes at a time. Requests
/// are counted, and reads cached, in `session`. Missing credentials throw
/// STORAGE_CREDENTIALS_NOT_FOUND, a refusal STORAGE_ACCESS_DENIED, other failures
/// STORAGE_REQUEST_FAILED with Azure's error code.
std::shared_ptr<FileSystem> MakeAzureFileSystem(const std::string& scheme,
                                                const std::string& authority,
                                                std::shared_ptr<StorageOptions> options,
                                                std::shared_ptr<HttpClient> http,
                                                std::shared_ptr<ObjectStoreSession> session);

/// Deletes of one batch in flight at once on Azure.
inline constexpr size_t kMaxConcurrentDeletes = 8;

/// The Shared Key signature of a Blob service request (the value after "SharedKey ACCOUNT:"):
/// HMAC-SHA256 under the base64-decoded `key` of the string Azure defines from the method, the
/// standard headers, the x-ms-* headers and the resource (the URL path after the host, prefixed
/// by "/ACCOUNT", with the query parameters).
std::string AzureSharedKeySignature(const HttpRequest& request, const std::string& account,
                                    const std::string& key);

}  // namespace silt::io
