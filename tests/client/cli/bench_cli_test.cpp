// tsserve-client bench against real tsserve processes: sane figures, errors counted as
// the server counts them, open-loop request counts, round-robin over targets.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_fixture.h"

namespace tsserve::client::testing {
namespace {

// Forecast calls the server counted with `code`, whatever other labels it adds.
double forecast_requests(const std::string& exposition, const std::string& code) {
  return tsserve::testing::metric_sum(exposition, "tsserve_requests_total",
                                      {{"code", code}, {"method", "Forecast"}});
}

void expect_ordered_latencies(const nlohmann::json& latency) {
  const double p50 = latency["p50"], p90 = latency["p90"], p99 = latency["p99"],
               p999 = latency["p99.9"], max = latency["max"];
  EXPECT_GT(p50, 0);
  EXPECT_LE(p50, p90);
  EXPECT_LE(p90, p99);
  EXPECT_LE(p99, p999);
  EXPECT_LE(p999, max);
}

TEST_F(CliTest, ClosedLoopSweepReportsSaneFigures) {
  const auto run = client({"bench", "--concurrency", "1,4", "--duration-s", "1.5", "--warmup-s",
                           "0.3", "--variables", "2", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto json = nlohmann::json::parse(run.out);
  ASSERT_EQ(json["stages"].size(), 2u);
  double recorded_ok = 0;
  for (const auto& stage : json["stages"]) {
    EXPECT_EQ(stage["mode"], "closed");
    EXPECT_GT(stage["throughput_rps"].get<double>(), 0);
    EXPECT_DOUBLE_EQ(stage["rows_per_second"].get<double>(), 2 * stage["throughput_rps"].get<double>());
    EXPECT_EQ(stage["requests_failed"], 0);
    EXPECT_GT(stage["requests_ok"].get<double>(), 0);
    expect_ordered_latencies(stage["latency_ms"]);
    // The server's own split is reported and fits inside the client's latency.
    EXPECT_GT(stage["server"]["compute_ms"]["p50"].get<double>(), 0);
    EXPECT_LT(stage["server"]["compute_ms"]["p50"].get<double>(),
              stage["latency_ms"]["max"].get<double>());
    EXPECT_GE(stage["server"]["batch_rows_mean"].get<double>(), 2);
    recorded_ok += stage["requests_ok"].get<double>();
  }
  // Warm-up calls are real calls too: the server saw at least the recorded ones.
  EXPECT_GE(forecast_requests(scrape(), "OK"), recorded_ok);
}

TEST_F(CliTest, RejectedRequestsAreCountedByCode) {
  const double before = forecast_requests(scrape(), "INVALID_ARGUMENT");
  // 50 points where the model needs 336: every call is rejected.
  const auto run = client({"bench", "--concurrency", "3", "--requests", "40", "--warmup-s", "0",
                           "--points", "50", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto stage = nlohmann::json::parse(run.out)["stages"][0];
  EXPECT_EQ(stage["requests_ok"], 0);
  EXPECT_EQ(stage["requests_failed"], 40);
  EXPECT_EQ(stage["errors"]["INVALID_ARGUMENT"], 40);
  EXPECT_EQ(forecast_requests(scrape(), "INVALID_ARGUMENT") - before, 40);

  const auto table = client({"bench", "--concurrency", "2", "--requests", "6", "--warmup-s", "0",
                             "--points", "50"});
  EXPECT_THAT(table.out, ::testing::HasSubstr("conc 2: 6 x INVALID_ARGUMENT"));
}

TEST_F(CliTest, OpenLoopSendsTheRequestedCountAtTheRate) {
  const double before = forecast_requests(scrape(), "OK");
  const auto run = client({"bench", "--rate", "200", "--arrival", "poisson", "--requests", "150",
                           "--warmup-s", "0", "--variables", "1", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto stage = nlohmann::json::parse(run.out)["stages"][0];
  EXPECT_EQ(stage["mode"], "open");
  EXPECT_EQ(stage["arrival"], "poisson");
  EXPECT_EQ(stage["requests_ok"], 150);
  EXPECT_EQ(stage["not_sent"], 0);
  EXPECT_EQ(forecast_requests(scrape(), "OK") - before, 150);
  expect_ordered_latencies(stage["latency_ms"]);
  // 150 Poisson arrivals at 200/s span about 0.75 s; far more would mean a stalled sender.
  EXPECT_LT(stage["elapsed_seconds"].get<double>(), 5.0);
}

TEST_F(CliTest, RoundRobinSpreadsCallsOverTargets) {
  tsserve::testing::ServerProcess second(TSSERVE_SERVER_BINARY);
  const auto run = client({"bench", "--target", second.target(), "--concurrency", "4", "--requests",
                           "60", "--warmup-s", "0", "--variables", "1", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto stage = nlohmann::json::parse(run.out)["stages"][0];
  EXPECT_EQ(stage["requests_ok"], 60);
  ASSERT_EQ(stage["targets"].size(), 2u);
  for (const auto& [name, counts] : stage["targets"].items()) {
    EXPECT_EQ(counts["ok"], 30) << name;
  }
  EXPECT_EQ(forecast_requests(tsserve::testing::http_get(second.metrics_port(), "/metrics"), "OK"), 30);
  EXPECT_EQ(second.terminate(), 0);
}

}  // namespace
}  // namespace tsserve::client::testing
