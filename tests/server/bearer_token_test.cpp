#include "server/auth/bearer_token.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>

#include <unistd.h>

namespace tsserve::server {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kToken = "s3cret-Token_42";

TEST(ConstantTimeEqualTest, EqualOnlyForTheSameBytes) {
  EXPECT_TRUE(constant_time_equal("abc", "abc"));
  EXPECT_FALSE(constant_time_equal("abc", "abd"));
  EXPECT_FALSE(constant_time_equal("abc", "xbc"));
  EXPECT_FALSE(constant_time_equal("abc", "ab"));
  EXPECT_FALSE(constant_time_equal("abc", "abcabc"));  // the cycled comparison must not pass it
  EXPECT_FALSE(constant_time_equal("abc", ""));
  EXPECT_FALSE(constant_time_equal("a", "aa"));
}

TEST(BearerTokenCheckTest, AcceptsTheTokenWithTheBearerSchemeInAnyCase) {
  const BearerTokenCheck check(kToken);
  EXPECT_TRUE(check.check_header(std::string("Bearer ") + kToken).ok());
  EXPECT_TRUE(check.check_header(std::string("bearer ") + kToken).ok());
  EXPECT_TRUE(check.check_header(std::string("BEARER  ") + kToken + " ").ok());
}

void expect_refused(const Status& status, const std::string& why) {
  EXPECT_EQ(status.code(), StatusCode::kUnauthenticated);
  EXPECT_THAT(status.message(), HasSubstr("authorization: " + why));
  EXPECT_THAT(status.message(), HasSubstr("Bearer <token>"));
  EXPECT_THAT(status.message(), Not(HasSubstr(kToken)));
}

TEST(BearerTokenCheckTest, RefusesWhatIsNotTheToken) {
  const BearerTokenCheck check(kToken);
  const std::string token(kToken);
  expect_refused(check.check_header(std::nullopt, 0), "missing");
  expect_refused(check.check_header("Bearer " + token, 2), "sent 2 times");
  expect_refused(check.check_header("Basic " + token), "not a Bearer credential");
  expect_refused(check.check_header(token), "not a Bearer credential");
  expect_refused(check.check_header("Bearer"), "not a Bearer credential");
  expect_refused(check.check_header("Bearer "), "not a Bearer credential");
  expect_refused(check.check_header("Bearer wrong"), "the bearer token is not valid");
  expect_refused(check.check_header("Bearer " + token.substr(0, token.size() - 1)),
                 "the bearer token is not valid");
  expect_refused(check.check_header("Bearer " + token + "x"), "the bearer token is not valid");
  expect_refused(check.check_header("Bearer " + token + token), "the bearer token is not valid");
}

TEST(BearerTokenCheckTest, RefusesAnEmptyOrSpacedToken) {
  EXPECT_THROW(BearerTokenCheck(""), std::invalid_argument);
  EXPECT_THROW(BearerTokenCheck("two words"), std::invalid_argument);
}

class TokenFileTest : public ::testing::Test {
 protected:
  std::string write(const std::string& text) {
    std::ofstream(path_, std::ios::binary) << text;
    return path_;
  }
  void TearDown() override { std::remove(path_.c_str()); }
  // One file per test process: ctest runs this fixture's tests in parallel.
  const std::string path_ =
      ::testing::TempDir() + "bearer_token_test." + std::to_string(::getpid()) + ".token";
};

TEST_F(TokenFileTest, TheFilesOnlyLineIsTheToken) {
  for (const char* ending : {"", "\n", "\r\n"}) {
    const BearerTokenCheck check = BearerTokenCheck::from_file(write(kToken + std::string(ending)));
    EXPECT_TRUE(check.check_header(std::string("Bearer ") + kToken).ok());
    expect_refused(check.check_header(std::string("Bearer ") + kToken + "r"),
                   "the bearer token is not valid");
  }
}

std::string from_file_error(const std::string& path) {
  try {
    BearerTokenCheck::from_file(path);
  } catch (const std::runtime_error& error) {
    return error.what();
  }
  return "(accepted)";
}

TEST_F(TokenFileTest, AnUnusableFileIsRefusedNamingTheOptionAndThePath) {
  EXPECT_THAT(from_file_error(write(" \n")), HasSubstr("auth_token_file " + path_ + ": empty"));
  EXPECT_THAT(from_file_error(write("one\ntwo\n")), HasSubstr("whitespace inside the token"));
  EXPECT_THAT(from_file_error(path_ + ".absent"), HasSubstr(path_ + ".absent: cannot be read"));
}

}  // namespace
}  // namespace tsserve::server
