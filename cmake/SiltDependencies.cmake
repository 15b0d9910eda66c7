# Every dependency is a Debian 12 package installed by scripts/setup; nothing is downloaded here.
find_package(Threads REQUIRED)
find_package(PkgConfig REQUIRED)
find_package(ZLIB REQUIRED)

function(silt_find_library var lib header)
  find_library(${var}_LIB NAMES ${lib} REQUIRED)
  find_path(${var}_INCLUDE NAMES ${header} REQUIRED)
  add_library(silt_dep_${lib} INTERFACE)
  target_link_libraries(silt_dep_${lib} INTERFACE ${${var}_LIB})
  target_include_directories(silt_dep_${lib} SYSTEM INTERFACE ${${var}_INCLUDE})
  add_library(silt::${lib} ALIAS silt_dep_${lib})
endfunction()

silt_find_library(SNAPPY snappy snappy.h)
silt_find_library(ZSTD zstd zstd.h)
silt_find_library(LZ4 lz4 lz4.h)
silt_find_library(BROTLIDEC brotlidec brotli/decode.h)
silt_find_library(BROTLIENC brotlienc brotli/encode.h)
silt_find_library(SIMDJSON simdjson simdjson.h)
silt_find_library(ROARING roaring roaring/roaring.h)
silt_find_library(EDIT edit histedit.h)
# The object stores' request signing and HTTP client: the headers of libcrypto and libcurl,
# since the libraries are opened at the first request (src/silt/io/crypto_api.h, curl_api.h).
# Tests that check signatures against libcrypto link it (silt::crypto).
silt_find_library(CRYPTO crypto openssl/hmac.h)
add_library(silt_dep_crypto_headers INTERFACE)
target_include_directories(silt_dep_crypto_headers SYSTEM INTERFACE ${CRYPTO_INCLUDE})
add_library(silt::crypto_headers ALIAS silt_dep_crypto_headers)
find_path(CURL_INCLUDE NAMES curl/curl.h REQUIRED)
add_library(silt_dep_curl INTERFACE)
target_include_directories(silt_dep_curl SYSTEM INTERFACE ${CURL_INCLUDE})
add_library(silt::curl ALIAS silt_dep_curl)
find_path(CLI11_INCLUDE NAMES CLI/CLI.hpp REQUIRED)
# libpq, for the PostgreSQL change data capture source (src/silt/cdc): its header only, since
# the library is opened at the first connection (src/silt/cdc/pq_api.h).
find_path(PQ_INCLUDE NAMES libpq-fe.h PATH_SUFFIXES postgresql REQUIRED)
add_library(silt_dep_pq INTERFACE)
target_include_directories(silt_dep_pq SYSTEM INTERFACE ${PQ_INCLUDE})
add_library(silt::pq ALIAS silt_dep_pq)

if(SILT_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(SILT_BUILD_BENCH)
  find_package(benchmark QUIET)
endif()
