#include "silt/io/crypto_api.h"

#include "silt/base/check.h"
#include "silt/base/shared_library.h"

namespace silt::io {
namespace {

// libcrypto's functions, or why it cannot be loaded.
struct LoadedCrypto {
  LoadedCrypto() : library("libcrypto.so.3") {
    library.Bind(api.sha256, "SHA256");
    library.Bind(api.hmac, "HMAC");
    library.Bind(api.evp_sha256, "EVP_sha256");
    library.Bind(api.evp_md5, "EVP_md5");
    library.Bind(api.evp_digest, "EVP_Digest");
    library.Bind(api.evp_encode_block, "EVP_EncodeBlock");
    library.Bind(api.evp_decode_block, "EVP_DecodeBlock");
  }

  SharedLibrary library;
  CryptoApi api{};
};

}  // namespace

const CryptoApi& Crypto() {
  static const LoadedCrypto* const loaded = new LoadedCrypto();  // never unloaded
  if (!loaded->library.ok()) {
    SILT_THROW(IO_ERROR, {{"path", "libcrypto.so.3"},
                          {"message", loaded->library.error() +
                                          " (object storage signs its requests with it; Debian "
                                          "installs it with the package libssl3)"}});
  }
  return loaded->api;
}

}  // namespace silt::io
