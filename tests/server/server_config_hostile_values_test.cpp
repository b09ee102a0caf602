// load_server_config and to_config_json on values an operator can really type but the
// first version did not survive, found with tests/fuzz (server_config): paths that are not
// UTF-8, control bytes, numbers beyond double, durations beyond the clock, "cuda:-0".

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "config_test_support.h"
#include "fixed_environment.h"
#include "server/config/server_config.h"

namespace tsserve::server {
namespace {

using Outcome = ConfigLoadResult::Outcome;

using testing::load;

TEST(ServerConfigHostileValuesTest, APathThatIsNotUtf8IsDescribedNotThrownOn) {
  // Linux paths are bytes; naming this one in the message used to throw from JSON's dump.
  ConfigLoadResult result;
  ASSERT_NO_THROW(result = load({"--tls-cert", "/etc/tls/\xff.pem"}));
  EXPECT_EQ(result.outcome, Outcome::kError);
  EXPECT_NE(result.message.find("tls_cert (\"/etc/tls/\xEF\xBF\xBD.pem\", from --tls-cert) is "
                                "set but tls_key is not"),
            std::string::npos)
      << result.message;
}

TEST(ServerConfigHostileValuesTest, ConfigJsonReplacesBytesThatAreNotUtf8) {
  ServerConfig config;
  config.model.model = "/models/\xfe.pt";
  std::string text;
  ASSERT_NO_THROW(text = to_config_json(config));
  EXPECT_NE(text.find("\"model\": \"/models/\xEF\xBF\xBD.pt\""), std::string::npos) << text;
}

TEST(ServerConfigHostileValuesTest, ControlBytesInValuesKeepOneLinePerProblem) {
  const ConfigLoadResult result = load({"--threads", "1\n2", "stray\x1b[2J"});
  ASSERT_EQ(result.outcome, Outcome::kError);
  EXPECT_NE(result.message.find("stray\\x1b[2J"), std::string::npos) << result.message;
  const ConfigLoadResult env = load({}, {{"TSSERVE_THREADS", "1\n2"}});
  ASSERT_EQ(env.outcome, Outcome::kError);
  EXPECT_EQ(env.message,
            "TSSERVE_THREADS: '1\\x0a2' is not an integer or auto\n"
            "Run tsserve --help for every option, its default and its environment variable.\n");
}

TEST(ServerConfigHostileValuesTest, ANumberBeyondDoubleInTheFileIsAnError) {
  // nlohmann::json throws out_of_range, not parse_error, for it; that escaped and aborted.
  const std::string path = ::testing::TempDir() + "tsserve_hostile_number.json";
  std::ofstream(path) << "{\"drain_timeout_s\": 1e999}";
  ConfigLoadResult result;
  ASSERT_NO_THROW(result = load({"--config", path}));
  std::remove(path.c_str());
  EXPECT_EQ(result.outcome, Outcome::kError);
  EXPECT_NE(result.message.find(path + ": not valid JSON: number overflow parsing '1e999'"),
            std::string::npos)
      << result.message;
}

TEST(ServerConfigHostileValuesTest, DurationsStopAtADay) {
  // 1e300 ms once became a negative queue delay (a float -> int64 overflow in std::chrono).
  for (const char* flag : {"--max-queue-delay-ms", "--max-queue-wait-ms", "--drain-timeout-s"}) {
    const ConfigLoadResult result = load({flag, "1e300"});
    EXPECT_EQ(result.outcome, Outcome::kError) << flag;
    EXPECT_NE(result.message.find(std::string(flag) + " must be at most"), std::string::npos)
        << result.message;
  }
  const ConfigLoadResult day = load({"--max-queue-delay-ms", "86400000", "--max-queue-wait-ms",
                                     "86400000", "--drain-timeout-s", "86400"});
  ASSERT_EQ(day.outcome, Outcome::kRun) << day.message;
  EXPECT_EQ(day.config.batching.max_queue_delay_ms, 86400000.0);
  EXPECT_EQ(day.config.batching.max_queue_wait_ms, 86400000.0);
  EXPECT_EQ(day.config.server.drain_timeout_s, 86400.0);
}

TEST(ServerConfigHostileValuesTest, CudaDeviceIndexIsDigits) {
  EXPECT_EQ(load({"--device", "cuda:-0"}).outcome, Outcome::kError);
  EXPECT_EQ(load({"--device", "cuda:+1"}).outcome, Outcome::kError);
  EXPECT_EQ(load({"--device", "cuda:3"}).config.model.device, "cuda:3");
}

}  // namespace
}  // namespace tsserve::server
