#pragma once

// The libcrypto functions request signing calls (SHA-256, HMAC, MD5, base64), from libcrypto
// opened at the first signed request (see base/shared_library.h for why it is not linked).

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

namespace silt::io {

struct CryptoApi {
  decltype(&SHA256) sha256;
  decltype(&HMAC) hmac;
  decltype(&EVP_sha256) evp_sha256;
  decltype(&EVP_md5) evp_md5;
  decltype(&EVP_Digest) evp_digest;
  decltype(&EVP_EncodeBlock) evp_encode_block;
  decltype(&EVP_DecodeBlock) evp_decode_block;
};

/// libcrypto, loaded once per process. Throws IO_ERROR when it cannot be loaded.
const CryptoApi& Crypto();

}  // namespace silt::io
