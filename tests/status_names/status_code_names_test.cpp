// The one status-code name table, checked against an independent spelling of the same
// names: abseil's absl::StatusCodeToString (gRPC's codes and absl's are the same numbers,
// by design of both).

#include "tsserve/status/status_code_names.h"

#include <absl/status/status.h>
#include <grpcpp/support/status_code_enum.h>
#include <gtest/gtest.h>

#include <string>

namespace tsserve {
namespace {

TEST(StatusCodeNamesTest, EveryCodeHasAbseilsName) {
  for (int code = 0; code < kStatusCodeCount; ++code) {
    EXPECT_EQ(status_code_name(code), absl::StatusCodeToString(static_cast<absl::StatusCode>(code)))
        << "code " << code;
  }
}

TEST(StatusCodeNamesTest, TheTableEndsWithGrpcsLastCode) {
  EXPECT_EQ(kStatusCodeCount, static_cast<int>(grpc::StatusCode::UNAUTHENTICATED) + 1);
  EXPECT_STREQ(status_code_name(static_cast<int>(grpc::StatusCode::OUT_OF_RANGE)), "OUT_OF_RANGE");
}

TEST(StatusCodeNamesTest, CodesOutsideTheProtocolAreUnknown) {
  EXPECT_STREQ(status_code_name(-1), "UNKNOWN");
  EXPECT_STREQ(status_code_name(kStatusCodeCount), "UNKNOWN");
  EXPECT_STREQ(status_code_name(1000), "UNKNOWN");
}

}  // namespace
}  // namespace tsserve
