// tsserve-client bench with targets that fail or are down: errors by code per target and
// how fast they come back, and round-robin that skips a target it cannot reach.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli_fixture.h"

namespace tsserve::client::testing {
namespace {

TEST_F(CliTest, ErrorsAreReportedPerTargetWithTheirLatency) {
  // 50 points where the model needs 336: every call is refused at once.
  const auto run = client({"bench", "--concurrency", "2", "--requests", "20", "--warmup-s", "0",
                           "--points", "50", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto stage = nlohmann::json::parse(run.out)["stages"][0];
  const auto& target = stage["targets"][server_->target()];
  EXPECT_EQ(target["errors"], 20);
  EXPECT_EQ(target["errors_by_code"]["INVALID_ARGUMENT"], 20);
  const auto& latency = stage["error_latency_ms"]["INVALID_ARGUMENT"];
  EXPECT_GT(latency["p50"].get<double>(), 0);
  EXPECT_LE(latency["p50"].get<double>(), latency["max"].get<double>());
  EXPECT_THAT(stage["error_examples"]["INVALID_ARGUMENT"].get<std::string>(),
              ::testing::HasSubstr("336"));
  EXPECT_EQ(stage["stopped_early"], false);

  const auto table = client(
      {"bench", "--concurrency", "2", "--requests", "4", "--warmup-s", "0", "--points", "50"});
  EXPECT_THAT(table.out, ::testing::HasSubstr("conc 2: 4 x INVALID_ARGUMENT (answered in p50 "));
}

// A second target that is down (its server drained and exited; the port is closed): the
// calls go round-robin over the targets that are connected, so none fails, and the down
// target is still listed, with nothing.
TEST_F(CliTest, RoundRobinSkipsATargetThatIsDown) {
  tsserve::testing::ServerProcess gone(TSSERVE_SERVER_BINARY);
  const std::string down = gone.target();
  ASSERT_EQ(gone.terminate(), 0);
  const auto run = client({"bench", "--target", down, "--concurrency", "4", "--requests", "40",
                           "--warmup-s", "0", "--variables", "1", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto stage = nlohmann::json::parse(run.out)["stages"][0];
  EXPECT_EQ(stage["requests_ok"], 40);
  EXPECT_EQ(stage["requests_failed"], 0);
  EXPECT_EQ(stage["targets"][server_->target()]["ok"], 40);
  EXPECT_EQ(stage["targets"][down]["ok"], 0);
  EXPECT_EQ(stage["targets"][down]["errors"], 0);
}

// With every target down, the calls are not held back: they fail, and say why.
TEST_F(CliTest, WithEveryTargetDownTheCallsFailUnavailable) {
  tsserve::testing::ServerProcess gone(TSSERVE_SERVER_BINARY);
  const std::string down = gone.target();
  ASSERT_EQ(gone.terminate(), 0);
  const auto run = client({"bench", "--target", down, "--concurrency", "2", "--requests", "10",
                           "--warmup-s", "0", "--points", "336", "--json"},
                          /*with_target=*/false);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto stage = nlohmann::json::parse(run.out)["stages"][0];
  EXPECT_EQ(stage["requests_ok"], 0);
  EXPECT_EQ(stage["errors"]["UNAVAILABLE"], 10);
  EXPECT_EQ(stage["targets"][down]["errors_by_code"]["UNAVAILABLE"], 10);
}

}  // namespace
}  // namespace tsserve::client::testing
