// A second tsserve told to listen on a gRPC port that one already serves must refuse to
// start, naming the address. gRPC's default (SO_REUSEPORT) let it bind beside the first,
// say it was listening and silently take about half the new connections; the HTTP door
// already refused such a port.

#include <gmock/gmock.h>

#include <chrono>
#include <string>

#include "security_fixture.h"

namespace tsserve::testing {
namespace {

using ::testing::HasSubstr;
using GrpcPortTakenTest = SecurityTest;

TEST_F(GrpcPortTakenTest, ASecondServerOnTheSameGrpcPortFailsToStartNamingTheAddress) {
  const auto first = start_server({});
  const std::string address = "127.0.0.1:" + std::to_string(first->grpc_port());

  // Bounded: a second server that starts (the fault) runs until the timeout kills it (-1).
  const CommandResult second =
      run_command({TSSERVE_SERVER_BINARY, "--grpc-address", address, "--http-address",
                   "127.0.0.1:0", "--metrics-address", "127.0.0.1:0"},
                  std::chrono::seconds(60));
  EXPECT_GT(second.exit_code, 0) << "stdout: " << second.out << "\nstderr: " << second.err;
  EXPECT_THAT(second.out, ::testing::Not(HasSubstr("listening")));
  EXPECT_THAT(second.err, HasSubstr("grpc_address " + address + ": cannot listen there"));

  // The first is untouched: still serving on its port.
  const CommandResult info = client({"info", "--target", first->target()});
  EXPECT_EQ(info.exit_code, 0) << info.out << info.err;
}

TEST_F(GrpcPortTakenTest, TwoServersAskingForAPortSharedBothServeOnIt) {
  const auto first = start_server({"--grpc-reuse-port", "true"});
  const std::string address = "127.0.0.1:" + std::to_string(first->grpc_port());
  const auto second = start_server({"--grpc-reuse-port", "true", "--grpc-address", address});
  EXPECT_EQ(second->grpc_port(), first->grpc_port());
  const CommandResult info = client({"info", "--target", second->target()});
  EXPECT_EQ(info.exit_code, 0) << info.out << info.err;
}

}  // namespace
}  // namespace tsserve::testing
