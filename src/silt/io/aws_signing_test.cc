// SigV4 against the signature calculations AWS publishes for S3 (the examplebucket requests of
// "Signature Calculations for the Authorization Header"), so a request silt signs is one S3
// accepts.

#include "silt/io/aws_signing.h"

#include <gtest/gtest.h>

#include <string>

namespace silt::io {
namespace {

const AwsCredentials kExampleCredentials{"AKIAIOSFODNN7EXAMPLE",
                                         "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "", 0};
const char kEmptyHash[] = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

std::string AuthorizationOf(const HttpRequest& request) {
  for (const auto& [name, value] : request.headers) {
    if (name == "Authorization") return value;
  }
  return "";
}

TEST(AwsSigningTest, HashesAndDates) {
  EXPECT_EQ(Sha256Hex(""), kEmptyHash);
  EXPECT_EQ(Sha256Hex("Welcome to Amazon S3."),
            "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
  EXPECT_EQ(Md5Base64(""), "1B2M2Y8AsgTpgAmY7PhCfg==");
  EXPECT_EQ(AmzDate(std::chrono::system_clock::from_time_t(1369353600)), "20130524T000000Z");
}

TEST(AwsSigningTest, GetObjectWithRange) {
  HttpRequest request;
  request.method = "GET";
  request.url = "https://examplebucket.s3.amazonaws.com/test.txt";
  request.headers.emplace_back("Range", "bytes=0-9");
  SignAwsV4(request, kExampleCredentials, "us-east-1", "s3", "20130524T000000Z", kEmptyHash);
  EXPECT_EQ(AuthorizationOf(request),
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
            "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"
            "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
}

TEST(AwsSigningTest, PutObjectWithEncodedKeyAndBody) {
  HttpRequest request;
  request.method = "PUT";
  request.url = "https://examplebucket.s3.amazonaws.com/" + UriEncode("test$file.text", true);
  request.headers.emplace_back("Date", "Fri, 24 May 2013 00:00:00 GMT");
  request.headers.emplace_back("x-amz-storage-class", "REDUCED_REDUNDANCY");
  std::string body = "Welcome to Amazon S3.";
  request.body = body;
  SignAwsV4(request, kExampleCredentials, "us-east-1", "s3", "20130524T000000Z", Sha256Hex(body));
  EXPECT_EQ(AuthorizationOf(request),
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
            "SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class,"
            "Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd");
}

TEST(AwsSigningTest, ListObjectsSortsTheQuery) {
  HttpRequest request;
  request.method = "GET";
  request.url = "https://examplebucket.s3.amazonaws.com/?prefix=J&max-keys=2";
  SignAwsV4(request, kExampleCredentials, "us-east-1", "s3", "20130524T000000Z", kEmptyHash);
  EXPECT_EQ(AuthorizationOf(request),
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
            "SignedHeaders=host;x-amz-content-sha256;x-amz-date,"
            "Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7");
}

TEST(AwsSigningTest, TemporaryCredentialsSendTheirToken) {
  HttpRequest request;
  request.url = "http://127.0.0.1:9000/bucket/key";
  AwsCredentials temporary = kExampleCredentials;
  temporary.session_token = "token/with+chars";
  SignAwsV4(request, temporary, "us-east-1", "s3", "20130524T000000Z", "UNSIGNED-PAYLOAD");
  bool has_token = false;
  for (const auto& [name, value] : request.headers) {
    if (name == "x-amz-security-token") has_token = value == "token/with+chars";
  }
  EXPECT_TRUE(has_token);
  EXPECT_NE(AuthorizationOf(request).find("SignedHeaders=host;x-amz-content-sha256;x-amz-date;"
                                          "x-amz-security-token,"),
            std::string::npos);
}

}  // namespace
}  // namespace silt::io
