#include "silt/io/crypto_api.h"

#include "silt/base/check.h"
#include "silt/base/shared_library.h"

namespace silt::io {
const CryptoApi& Crypto() {
  static const auto* loaded = new LoadedLibrary<CryptoApi>(  // never unloaded
      "libcrypto.so.3", [](SharedLibrary& library, CryptoApi& api) {
        library.Bind(api.sha256, "SHA256");
        library.Bind(api.hmac, "HMAC");
        library.Bind(api.evp_sha256, "EVP_sha256");
        library.Bind(api.evp_md5, "EVP_md5");
        library.Bind(api.evp_digest, "EVP_Digest");
        library.Bind(api.evp_encode_block, "EVP_EncodeBlock");
        library.Bind(api.evp_decode_block, "EVP_DecodeBlock");
      });
  const CryptoApi* api = loaded->api();
  if (api == nullptr) {
    SILT_THROW(IO_ERROR,
               {{"path", "libcrypto.so.3"},
                {"message", loaded->error() + " (object storage signs its requests with it; Debian "
                                              "installs it with the package libssl3)"}});
  }
  return *api;
}

}  // namespace silt::io
