// Live series against a real tsserve process: `tsserve-client observe` feeds a CSV point
// by point and each row's flag is against the library's own forecast from the rows before
// it; and the windows' durability: a SIGKILL loses no point acknowledged before the last
// snapshot, a SIGTERM (drain) none at all.

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli_fixture.h"
#include "tsserve/client/channel.h"
#include "tsserve/client/key_routing.h"
#include "tsserve/client/tsserve_client.h"

namespace tsserve::client::testing {
namespace {

using tsserve::testing::metric_total;

class ObserveCliTest : public CliTest {};

TEST_F(ObserveCliTest, FeedsACsvPointByPointAndFlagsEachRowAgainstTheLibrarysForecast) {
  constexpr int kRows = 346;  // 336 of history, then 10 rows one by one
  const std::vector<std::vector<double>> values = write_ett_csv(path("ett.csv"), kRows, 7);
  const auto result = client({"observe", path("ett.csv"), "--series-key", "meter", "--out",
                              path("flags.jsonl"), "--quiet"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("observe: 11 Observe calls, 2422 points, 70 scored"), std::string::npos)
      << result.out;
  std::ifstream file(path("flags.jsonl"));
  std::vector<nlohmann::json> lines;
  for (std::string line; std::getline(file, line);) lines.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(lines.size(), static_cast<size_t>(kRows * 7));
  // The last row was flagged against the forecast made from the 336 rows before it.
  std::vector<std::vector<double>> before(values.size());
  for (size_t c = 0; c < values.size(); ++c) {
    before[c].assign(values[c].begin(), values[c].end() - 1);
  }
  const std::vector<std::vector<double>> forecast = library_forecast(before);
  for (size_t c = 0; c < values.size(); ++c) {
    const nlohmann::json& point = lines[(kRows - 1) * 7 + c];
    ASSERT_TRUE(point["scored"].get<bool>()) << point.dump();
    EXPECT_EQ(point["variable"], ett_columns()[c]);
    EXPECT_EQ(point["step"], 1);
    EXPECT_DOUBLE_EQ(point["value"].get<double>(), values[c][kRows - 1]);
    EXPECT_NEAR(point["forecast"].get<double>(), forecast[c][0],
                1e-4 * std::max(1.0, std::fabs(forecast[c][0])));
    ASSERT_FALSE(point["intervals"].empty()) << "the bundled model is calibrated";
  }
}

// A history longer than one Observe call may carry (seq_len + pred_len rows) goes in
// several calls, oldest first; then each row in its own.
TEST_F(ObserveCliTest, AHistoryLongerThanOneCallGoesInSeveralCalls) {
  write_ett_csv(path("long.csv"), 500, 3);
  const auto result =
      client({"observe", path("long.csv"), "--series-key", "long", "--start", "440", "--quiet"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  // 440 rows of history: 432 and 8; then 60 rows one by one.
  EXPECT_NE(result.out.find("observe: 62 Observe calls, 3500 points"), std::string::npos)
      << result.out;
}

// One hourly point of `variables` values for key "k".
v1::ObserveRequest point_request(int64_t index, int variables) {
  v1::ObserveRequest request;
  request.set_series_key("k");
  request.add_timestamps(1'700'000'000 + 3600 * index);
  for (int n = 0; n < variables; ++n) request.add_values(static_cast<double>(index % 50 + n));
  return request;
}

// Scrapes `port` until `series` reaches `value`, for at most 30 s.
bool metric_reaches(int port, const std::string& series, double value) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < until) {
    if (metric_total(tsserve::testing::http_get(port, "/metrics"), series) >= value) return true;
    // A pause between scrapes (a bounded poll of the server's own event, not a spin).
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// The points the restarted server holds for "k": it refuses each of them again (a
// repeat) and takes the next one, whose answer counts the window.
int64_t restored_points(TsserveClient& client, int64_t sent) {
  for (int64_t index = 0; index <= sent; ++index) {
    v1::ObserveResponse response;
    const grpc::Status status = client.observe(point_request(index, 7), &response);
    if (status.ok()) {
      EXPECT_EQ(response.window_points(), index + 1) << "the window has a hole";
      return index;
    }
    EXPECT_NE(status.error_message().find("repeats"), std::string::npos) << status.error_message();
  }
  return -1;
}

TEST_F(ObserveCliTest, AKillLosesNoPointAcknowledgedBeforeTheLastSnapshotAndADrainNone) {
  std::filesystem::remove_all(path("series"));  // a rerun starts from no snapshot
  const std::vector<std::string> args = {"--series-store-dir", path("series"),
                                         "--series-snapshot-s", "1"};
  server_ = std::make_unique<tsserve::testing::ServerProcess>(TSSERVE_SERVER_BINARY, args);
  auto connect = [this] {
    ChannelOptions options;
    options.target = server_->target();
    return TsserveClient(make_channel(options), CallSettings{});
  };
  TsserveClient client = connect();
  constexpr int64_t kBefore = 40, kAfter = 5;
  for (int64_t i = 0; i < kBefore; ++i) {
    v1::ObserveResponse response;
    ASSERT_TRUE(client.observe(point_request(i, 7), &response).ok());
  }
  // Two more snapshots written: the second began after the last acknowledgement.
  const std::string written = "tsserve_series_snapshot_writes_total{result=\"ok\"}";
  // Before any write the series may be absent: 0 then; the wait below needs it present.
  const double snapshots = metric_total(scrape(), written).value_or(0.0);
  ASSERT_TRUE(metric_reaches(server_->metrics_port(), written, snapshots + 2));
  for (int64_t i = kBefore; i < kBefore + kAfter; ++i) {
    v1::ObserveResponse response;
    ASSERT_TRUE(client.observe(point_request(i, 7), &response).ok());
  }
  server_.reset();  // SIGKILL
  server_ = std::make_unique<tsserve::testing::ServerProcess>(TSSERVE_SERVER_BINARY, args);
  client = connect();
  const int64_t kept = restored_points(client, kBefore + kAfter);
  EXPECT_GE(kept, kBefore);
  EXPECT_LE(kept, kBefore + kAfter);

  // A drain writes the last snapshot: after SIGTERM every point is there.
  ASSERT_EQ(server_->terminate(), 0) << server_->log();
  server_ = std::make_unique<tsserve::testing::ServerProcess>(TSSERVE_SERVER_BINARY, args);
  client = connect();
  EXPECT_EQ(restored_points(client, kept + 1), kept + 1);
}

TEST_F(ObserveCliTest, ATruncatedSnapshotIsSetAsideAndReported) {
  std::filesystem::remove_all(path("series"));  // a rerun starts from no snapshot
  const std::vector<std::string> args = {"--series-store-dir", path("series")};
  server_ = std::make_unique<tsserve::testing::ServerProcess>(TSSERVE_SERVER_BINARY, args);
  {
    ChannelOptions options;
    options.target = server_->target();
    TsserveClient client(make_channel(options), CallSettings{});
    for (int64_t i = 0; i < 3; ++i) {
      v1::ObserveResponse response;
      ASSERT_TRUE(client.observe(point_request(i, 7), &response).ok());
    }
  }
  ASSERT_EQ(server_->terminate(), 0) << server_->log();
  const std::string snapshot = path("series") + "/series.snapshot";
  std::stringstream whole;
  whole << std::ifstream(snapshot, std::ios::binary).rdbuf();
  ASSERT_GT(whole.str().size(), 40u);
  std::ofstream(snapshot, std::ios::binary | std::ios::trunc) << whole.str().substr(0, 40);
  server_ = std::make_unique<tsserve::testing::ServerProcess>(TSSERVE_SERVER_BINARY, args);
  EXPECT_NE(server_->log().find("set aside as"), std::string::npos) << server_->log();
  ChannelOptions options;
  options.target = server_->target();
  TsserveClient client(make_channel(options), CallSettings{});
  EXPECT_EQ(restored_points(client, 3), 0);  // empty: the first point is taken again
}

// replay --observe is the same walk; with two targets the key picks its replica by
// rendezvous hashing, and only that replica sees its points.
TEST_F(ObserveCliTest, ReplayObservesTooAndAKeyGoesToTheReplicaItHashesTo) {
  write_ett_csv(path("ett.csv"), 340, 9);
  const auto replayed = client({"replay", path("ett.csv"), "--observe", "--series-key", "r"});
  ASSERT_EQ(replayed.exit_code, 0) << replayed.err;
  EXPECT_NE(replayed.out.find("observe: 5 Observe calls, 2380 points, 28 scored"),
            std::string::npos)
      << replayed.out;
  const auto refused = client({"replay", path("ett.csv"), "--observe", "--stride", "2"});
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.err.find("--stride"), std::string::npos) << refused.err;

  tsserve::testing::ServerProcess second(TSSERVE_SERVER_BINARY);
  const std::vector<std::string> targets = {server_->target(), second.target()};
  // Ports differ per run, and so does the hashing: pick two keys for each replica, so
  // both are checked with points (four fixed keys all went to one replica 1 run in 8).
  std::vector<std::string> keys;
  int per_target[2] = {0, 0};
  for (int i = 0; keys.size() < 4; ++i) {
    const std::string key = "meter-" + std::to_string(i);
    int& taken = per_target[target_for_key(key, targets) == targets[0] ? 0 : 1];
    if (taken < 2) {
      ++taken;
      keys.push_back(key);
    }
  }
  for (const std::string& key : keys) {
    const std::string& chosen = target_for_key(key, targets);
    const auto result = client({"observe", path("ett.csv"), "--series-key", key, "--quiet",
                                "--target", targets[0] + "," + targets[1]},
                               /*with_target=*/false);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_NE(result.out.find("observe: key " + key + " on " + chosen), std::string::npos)
        << result.out;
  }
  // Each replica saw exactly the points of the keys that hash to it.
  double expected_first = 0, expected_second = 0;
  for (const std::string& key : keys) {
    (target_for_key(key, targets) == targets[0] ? expected_first : expected_second) += 340 * 7;
  }
  expected_first += 340 * 7;  // the replay above
  const std::string observed = "tsserve_observed_points_total";
  EXPECT_EQ(metric_total(scrape(), observed), expected_first);
  EXPECT_EQ(metric_total(tsserve::testing::http_get(second.metrics_port(), "/metrics"), observed),
            expected_second);
  EXPECT_EQ(second.terminate(), 0);
}

}  // namespace
}  // namespace tsserve::client::testing
