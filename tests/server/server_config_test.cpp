#include "server/config/server_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "config_test_support.h"
#include "fixed_environment.h"
#include "server/config/series_store_url.h"

namespace tsserve::server {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using Outcome = ConfigLoadResult::Outcome;

// A config file in the test's temp dir, removed when the test ends.
class TempFile {
 public:
  explicit TempFile(const std::string& contents, const std::string& name = "tsserve.json")
      : path_(::testing::TempDir() + std::to_string(::getpid()) + "_" + name) {
    std::ofstream(path_) << contents;
  }
  ~TempFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

using testing::load;

// Loads, expecting success; a failure prints the loader's message.
ServerConfig load_ok(const std::vector<std::string>& args,
                     std::map<std::string, std::string> env = {}) {
  ConfigLoadResult result = load(args, std::move(env));
  EXPECT_EQ(result.outcome, Outcome::kRun) << result.message;
  return result.config;
}

// Loads, expecting an error; returns the message.
std::string load_error(const std::vector<std::string>& args,
                       std::map<std::string, std::string> env = {}) {
  ConfigLoadResult result = load(args, std::move(env));
  EXPECT_EQ(result.outcome, Outcome::kError) << to_config_json(result.config);
  EXPECT_EQ(result.exit_code(), 2);
  return result.message;
}

TEST(ServerConfigTest, DefaultsWithoutArgumentsOrEnvironment) {
  const ServerConfig config = load_ok({});
  EXPECT_EQ(to_config_json(config), to_config_json(ServerConfig{}));
  EXPECT_THAT(config.model.model, ::testing::EndsWith("model/default/patchtst_etth1.pt"));
  EXPECT_EQ(config.model.model_config, "");
  EXPECT_EQ(config.model.attention, "");
  EXPECT_EQ(config.model.factor, 0);
  EXPECT_EQ(config.model.device, "cpu");
  EXPECT_EQ(config.model.cpu_kernels, "fused");
  EXPECT_EQ(config.model.threads, kAuto);
  EXPECT_EQ(config.model.instances, kAuto);
  EXPECT_TRUE(config.model.batch_invariant);
  EXPECT_EQ(config.batching.max_batch_rows, 448);
  EXPECT_EQ(config.batching.max_queue_delay_ms, 0.0);
  EXPECT_EQ(config.batching.max_queue_rows, 8192);
  EXPECT_EQ(config.batching.max_encode_tokens, 4096);
  EXPECT_EQ(config.batching.idle_spin_us, 1000);
  EXPECT_EQ(config.server.grpc_address, "0.0.0.0:50051");
  EXPECT_EQ(config.server.metrics_address, "0.0.0.0:9464");
  EXPECT_EQ(config.server.max_message_bytes, 16 * 1024 * 1024);
  EXPECT_EQ(config.server.drain_timeout_s, 30.0);
  EXPECT_EQ(config.server.tls_cert, "");
  EXPECT_EQ(config.server.auth_token_file, "");
  EXPECT_EQ(config.logging.log_level, "info");
  EXPECT_EQ(config.logging.log_format, "text");
}

TEST(ServerConfigTest, FlagsSetEveryKindOfOption) {
  const ServerConfig config = load_ok({"--model",
                                       "/m/a.pt",
                                       "--attention=prob",
                                       "--factor",
                                       "5",
                                       "--prob-layout",
                                       "tslib",
                                       "--device",
                                       "cuda:1",
                                       "--threads",
                                       "4",
                                       "--instances",
                                       "2",
                                       "--batch-invariant",
                                       "false",
                                       "--max-queue-delay-ms",
                                       "0.5",
                                       "--grpc-address",
                                       "127.0.0.1:0",
                                       "--metrics-address",
                                       "",
                                       "--log-format",
                                       "json",
                                       "--log-level",
                                       "debug",
                                       "--drain-timeout-s",
                                       "0"});
  EXPECT_EQ(config.model.model, "/m/a.pt");
  EXPECT_EQ(config.model.attention, "prob");
  EXPECT_EQ(config.model.factor, 5);
  EXPECT_EQ(config.model.prob_layout, "tslib");
  EXPECT_EQ(config.model.device, "cuda:1");
  EXPECT_EQ(config.model.threads, 4);
  EXPECT_EQ(config.model.instances, 2);
  EXPECT_FALSE(config.model.batch_invariant);
  EXPECT_EQ(config.batching.max_queue_delay_ms, 0.5);
  EXPECT_EQ(config.server.grpc_address, "127.0.0.1:0");
  EXPECT_EQ(config.server.metrics_address, "");
  EXPECT_EQ(config.server.drain_timeout_s, 0.0);
  EXPECT_EQ(config.logging.log_format, "json");
  EXPECT_EQ(config.logging.log_level, "debug");
}

TEST(ServerConfigTest, CpuKernelsAndAutoParallelismFromEverySource) {
  EXPECT_EQ(load_ok({"--cpu-kernels", "torch"}).model.cpu_kernels, "torch");
  EXPECT_EQ(load_ok({}, {{"TSSERVE_CPU_KERNELS", "torch"}}).model.cpu_kernels, "torch");
  EXPECT_THAT(load_error({"--cpu-kernels", "onnx"}),
              HasSubstr("--cpu-kernels: 'onnx' is not valid (expected fused, torch)"));

  const ServerConfig given = load_ok({"--threads", "3"}, {{"TSSERVE_INSTANCES", "5"}});
  EXPECT_EQ(given.model.threads, 3);
  EXPECT_EQ(given.model.instances, 5);
  const ServerConfig automatic =
      load_ok({"--threads", "auto"}, {{"TSSERVE_INSTANCES", "auto"}});
  EXPECT_EQ(automatic.model.threads, kAuto);
  EXPECT_EQ(automatic.model.instances, kAuto);

  TempFile file(R"({"threads": "auto", "instances": 2, "cpu_kernels": "torch"})");
  const ServerConfig from_file = load_ok({"--config", file.path()});
  EXPECT_EQ(from_file.model.threads, kAuto);
  EXPECT_EQ(from_file.model.instances, 2);
  EXPECT_EQ(from_file.model.cpu_kernels, "torch");
  // "auto" is written back as "auto", so the startup log's JSON loads back the same.
  EXPECT_THAT(to_config_json(from_file), HasSubstr("\"threads\": \"auto\""));

  EXPECT_THAT(load_error({"--instances", "some"}),
              HasSubstr("--instances: 'some' is not an integer or auto"));
  TempFile bad(R"({"instances": "all"})");
  EXPECT_THAT(load_error({"--config", bad.path()}),
              HasSubstr(bad.path() + ":instances: expected an integer, got \"all\" or \"auto\""));
}

TEST(ServerConfigTest, LaterSourcesWin) {
  TempFile file(R"({"threads": 2, "instances": 2, "max_batch_rows": 64, "device": "auto"})");
  const ServerConfig config =
      load_ok({"--config", file.path(), "--threads", "4"},
              {{"TSSERVE_THREADS", "3"}, {"TSSERVE_INSTANCES", "3"}, {"TSSERVE_OTHER", "ignored"}});
  EXPECT_EQ(config.model.threads, 4);             // flag > env > file
  EXPECT_EQ(config.model.instances, 3);           // env > file
  EXPECT_EQ(config.batching.max_batch_rows, 64);  // file > default
  EXPECT_EQ(config.model.device, "auto");
  EXPECT_EQ(config.batching.max_queue_rows, 8192);  // default
}

TEST(ServerConfigTest, ConfigFileFromTheEnvironmentUnlessAFlagNamesOne) {
  TempFile from_env(R"({"threads": 2})", "env.json");
  TempFile from_flag(R"({"threads": 6})", "flag.json");
  EXPECT_EQ(load_ok({}, {{"TSSERVE_CONFIG", from_env.path()}}).model.threads, 2);
  EXPECT_EQ(load_ok({"-c", from_flag.path()}, {{"TSSERVE_CONFIG", from_env.path()}}).model.threads,
            6);
}

TEST(ServerConfigTest, EmptyEnvironmentValueIsAValue) {
  const ServerConfig config = load_ok({}, {{"TSSERVE_METRICS_ADDRESS", ""}});
  EXPECT_EQ(config.server.metrics_address, "");  // metrics off
}

TEST(ServerConfigTest, ConfigFileTakesTypedValuesAndComments) {
  TempFile file(R"({
    // the bundled model on the first GPU
    "device": "cuda:0",
    "batch_invariant": false,
    "max_queue_delay_ms": 1,
    "max_message_bytes": 1048576,
    "tls_cert": "/tls/server.pem", "tls_key": "/tls/server.key", "tls_ca": "/tls/ca.pem",
    "auth_token_file": "/run/secrets/token"
  })");
  const ServerConfig config = load_ok({"--config", file.path()});
  EXPECT_EQ(config.model.device, "cuda:0");
  EXPECT_FALSE(config.model.batch_invariant);
  EXPECT_EQ(config.batching.max_queue_delay_ms, 1.0);
  EXPECT_EQ(config.server.max_message_bytes, 1048576);
  EXPECT_EQ(config.server.tls_ca, "/tls/ca.pem");
  EXPECT_EQ(config.server.auth_token_file, "/run/secrets/token");
}

TEST(ServerConfigTest, ConfigJsonLoadsBackToTheSameConfig) {
  ServerConfig config;
  config.model.model = "/models/x \"quoted\".pt";
  config.model.attention = "prob";
  config.model.threads = 8;
  config.batching.max_queue_delay_ms = 0.25;
  config.server.metrics_address = "";
  config.logging.log_format = "json";
  TempFile file(to_config_json(config));
  EXPECT_EQ(to_config_json(load_ok({"--config", file.path()})), to_config_json(config));
}

TEST(ServerConfigTest, BadValuesNameTheSourceAndTheExpectation) {
  EXPECT_THAT(load_error({}, {{"TSSERVE_THREADS", "x"}}),
              HasSubstr("TSSERVE_THREADS: 'x' is not an integer"));
  EXPECT_THAT(load_error({"--max-batch-rows", "0"}),
              HasSubstr("--max-batch-rows must be at least 1 (got 0)"));
  EXPECT_THAT(load_error({"--threads", "1.5"}), HasSubstr("--threads: '1.5' is not an integer"));
  EXPECT_THAT(load_error({"--threads", "99999999999"}),
              HasSubstr("--threads must be at most 1024 (got 99999999999)"));
  EXPECT_THAT(load_error({"--max-queue-delay-ms", "-1"}),
              HasSubstr("--max-queue-delay-ms must be at least 0.0 (got -1.0)"));
  EXPECT_THAT(load_error({"--drain-timeout-s", "nan"}),
              HasSubstr("--drain-timeout-s: 'nan' is not a number"));
  EXPECT_THAT(load_error({}, {{"TSSERVE_BATCH_INVARIANT", "maybe"}}),
              HasSubstr("TSSERVE_BATCH_INVARIANT: 'maybe' is not a boolean"));
  EXPECT_THAT(load_error({"--device", "gpu"}),
              HasSubstr("--device: 'gpu' is not a device (expected cpu, cuda, cuda:N or auto)"));
  EXPECT_THAT(load_error({"--device", "cuda:-1"}), HasSubstr("is not a device"));
  EXPECT_THAT(load_error({"--attention", "sparse"}),
              HasSubstr("--attention: 'sparse' is not valid (expected full, prob, or \"\" for "
                        "the model config's choice)"));
  EXPECT_THAT(load_error({"--log-level", "warning"}),
              HasSubstr("--log-level: 'warning' is not valid (expected trace, debug, info, warn, "
                        "error)"));
  EXPECT_THAT(load_error({"--grpc-address", "50051"}),
              HasSubstr("--grpc-address: '50051' is not an address"));
  EXPECT_THAT(load_error({"--grpc-address", "0.0.0.0:0009000"}),
              HasSubstr("--grpc-address: '0.0.0.0:0009000' is not an address"));
  EXPECT_THAT(load_error({}, {{"TSSERVE_METRICS_ADDRESS", "0.0.0.0:99999"}}),
              HasSubstr("TSSERVE_METRICS_ADDRESS: '0.0.0.0:99999' is not an address"));
  EXPECT_THAT(load_error({"--model", ""}), HasSubstr("--model: must not be empty"));
}

TEST(ServerConfigTest, EveryProblemIsReportedAtOnce) {
  const std::string message =
      load_error({"--threads", "0", "--device", "tpu"}, {{"TSSERVE_INSTANCES", "many"}});
  EXPECT_THAT(message, HasSubstr("--threads must be at least 1"));
  EXPECT_THAT(message, HasSubstr("--device: 'tpu'"));
  EXPECT_THAT(message, HasSubstr("TSSERVE_INSTANCES: 'many' is not an integer"));
  EXPECT_THAT(message, HasSubstr("tsserve --help"));
}

TEST(ServerConfigTest, ConfigFileProblemsNameTheFileAndKey) {
  TempFile file(R"({"thread": 4, "max_batch_rows": "64", "factor": 2.5, "batch_invariant": 1,
                    "grpc_address": 50051, "some_other_thing": true})");
  const std::string message = load_error({"--config", file.path()});
  EXPECT_THAT(message, HasSubstr(file.path() + ": unknown key 'thread' (did you mean 'threads'?)"));
  EXPECT_THAT(message, HasSubstr(file.path() + ": unknown key 'some_other_thing' (keys are"));
  EXPECT_THAT(message, HasSubstr(file.path() + ":max_batch_rows: expected an integer, got \"64\""));
  EXPECT_THAT(message, HasSubstr(file.path() + ":factor: expected an integer, got 2.5"));
  EXPECT_THAT(message, HasSubstr(file.path() + ":batch_invariant: expected true or false, got 1"));
  EXPECT_THAT(message, HasSubstr(file.path() + ":grpc_address: expected a string, got 50051"));
}

TEST(ServerConfigTest, ConfigFileThatCannotBeUsed) {
  EXPECT_THAT(load_error({"--config", "/nonexistent/tsserve.json"}),
              HasSubstr("/nonexistent/tsserve.json: cannot read the config file"));
  TempFile broken(R"({"threads": 4,})");
  EXPECT_THAT(load_error({"--config", broken.path()}),
              HasSubstr(broken.path() + ": not valid JSON: parse error at line 1"));
  TempFile list(R"(["threads", 4])");
  EXPECT_THAT(load_error({"--config", list.path()}),
              HasSubstr(list.path() + ": expected a JSON object of options, got array"));
}

TEST(ServerConfigTest, RulesAcrossOptionsNameWhereEachValueCameFrom) {
  EXPECT_THAT(load_error({"--max-queue-rows", "100"}),
              HasSubstr("max_queue_rows (100, from --max-queue-rows) must be at least "
                        "max_batch_rows (448, default)"));
  EXPECT_THAT(load_error({"--max-batch-rows", "64"}, {{"TSSERVE_PREFERRED_BATCH_ROWS", "65"}}),
              HasSubstr("preferred_batch_rows (65, from TSSERVE_PREFERRED_BATCH_ROWS) must be at "
                        "most max_batch_rows (64, from --max-batch-rows)"));
  EXPECT_THAT(load_error({}, {{"TSSERVE_TLS_CERT", "/tls/cert.pem"}}),
              HasSubstr("tls_cert (\"/tls/cert.pem\", from TSSERVE_TLS_CERT) is set but tls_key "
                        "is not"));
  EXPECT_THAT(load_error({"--tls-key", "k.pem"}), HasSubstr("tls_key (\"k.pem\", from --tls-key) "
                                                            "is set but tls_cert is not"));
  EXPECT_THAT(load_error({"--tls-ca", "ca.pem"}), HasSubstr("tls_ca (\"ca.pem\", from --tls-ca) "
                                                            "needs tls_cert and tls_key"));
  EXPECT_THAT(load_error({"--metrics-address", "0.0.0.0:50051"}),
              HasSubstr("they need different ports"));
  load_ok({"--tls-cert", "c.pem", "--tls-key", "k.pem", "--tls-ca", "ca.pem"});
  load_ok({"--grpc-address", "127.0.0.1:0", "--metrics-address", "127.0.0.1:0"});
}

TEST(ServerConfigTest, UnknownFlagsAndStrayArgumentsAreErrors) {
  EXPECT_THAT(load_error({"--thread", "4"}), HasSubstr("--thread"));
  EXPECT_THAT(load_error({"model.pt"}), HasSubstr("model.pt"));
  EXPECT_THAT(load_error({"--threads"}), HasSubstr("--threads"));
}

TEST(ServerConfigTest, ForecastStoreBoundsComeFromFlagsAndEnvironmentAndMustBePositive) {
  const ServerConfig config = load_ok({"--forecast-store-max-entries", "5"},
                                      {{"TSSERVE_FORECAST_STORE_MAX_AGE_S", "60"}});
  EXPECT_EQ(config.accuracy.forecast_store_max_entries, 5);
  EXPECT_EQ(config.accuracy.forecast_store_max_age_s, 60.0);
  EXPECT_THAT(load_error({"--forecast-store-max-entries", "0"}),
              HasSubstr("--forecast-store-max-entries"));
  EXPECT_THAT(load_error({"--forecast-store-max-age-s", "0"}),
              HasSubstr("--forecast-store-max-age-s"));
}

TEST(ServerConfigTest, SeriesStoreOptionsComeFromFlagsAndEnvironmentWithinTheirRanges) {
  const ServerConfig config =
      load_ok({"--series-store-max-keys", "7", "--series-store-dir", "/var/lib/tsserve"},
              {{"TSSERVE_SERIES_SNAPSHOT_S", "5"}, {"TSSERVE_SERIES_STORE_MAX_BYTES", "65536"}});
  EXPECT_EQ(config.live.series_store_max_keys, 7);
  EXPECT_EQ(config.live.series_store_max_bytes, 65536);
  EXPECT_EQ(config.live.series_store_dir, "/var/lib/tsserve");
  EXPECT_EQ(config.live.series_snapshot_s, 5.0);
  EXPECT_EQ(ServerConfig{}.live.series_store_dir, "");  // memory only unless asked
  EXPECT_THAT(load_error({"--series-store-max-keys", "0"}), HasSubstr("--series-store-max-keys"));
  EXPECT_THAT(load_error({"--series-store-max-bytes", "100"}),
              HasSubstr("--series-store-max-bytes"));
  EXPECT_THAT(load_error({"--series-snapshot-s", "0"}), HasSubstr("--series-snapshot-s"));
}

TEST(ServerConfigTest, LastFlagWins) {
  EXPECT_EQ(load_ok({"--threads", "2", "--threads", "3"}).model.threads, 3);
}

TEST(ServerConfigTest, HelpListsEveryOptionWithItsDefaultAndEnvironmentVariable) {
  const ConfigLoadResult result = load({"--help"}, {{"TSSERVE_THREADS", "not even read"}});
  ASSERT_EQ(result.outcome, Outcome::kHelp);
  EXPECT_EQ(result.exit_code(), 0);
  const std::string& help = result.message;
  EXPECT_THAT(help, HasSubstr("--config"));
  EXPECT_THAT(help, HasSubstr("TSSERVE_CONFIG"));
  // Every option is a key of the config JSON.
  const nlohmann::json defaults = nlohmann::json::parse(to_config_json(ServerConfig{}));
  ASSERT_EQ(defaults.size(), 49u);
  for (const auto& [key, value] : defaults.items()) {
    SCOPED_TRACE(key);
    std::string flag = "--" + key;
    std::replace(flag.begin(), flag.end(), '_', '-');
    std::string env = "TSSERVE_" + key;
    std::transform(env.begin(), env.end(), env.begin(), ::toupper);
    const std::string shown =
        value.is_string() ? (value.get<std::string>().empty() ? "\"\"" : value.get<std::string>())
                          : value.dump();
    EXPECT_THAT(help, HasSubstr(flag + " "));
    EXPECT_THAT(help, HasSubstr("(default: " + shown + "; env: " + env + ")"));
  }
  EXPECT_THAT(help, HasSubstr("(default: 448; env: TSSERVE_MAX_BATCH_ROWS)"));
  EXPECT_THAT(help, HasSubstr("(default: 0.0; env: TSSERVE_MAX_QUEUE_DELAY_MS)"));
  EXPECT_THAT(help, HasSubstr("(default: true; env: TSSERVE_BATCH_INVARIANT)"));
  EXPECT_THAT(help, HasSubstr("(default: 0.0.0.0:9464; env: TSSERVE_METRICS_ADDRESS)"));
  EXPECT_THAT(help, Not(HasSubstr("not even read")));
}

TEST(ServerConfigTest, ArgvOverloadSkipsTheProgramName) {
  const char* argv[] = {"tsserve", "--threads", "3"};
  ConfigLoadResult result = load_server_config(3, argv, fixed_environment({}));
  ASSERT_EQ(result.outcome, Outcome::kRun) << result.message;
  EXPECT_EQ(result.config.model.threads, 3);
}

// The time bound of the queue: off by default, milliseconds from every source, never
// negative.
TEST(ServerConfigTest, MaxQueueWaitIsOffByDefaultAndNeverNegative) {
  EXPECT_EQ(load_ok({}).batching.max_queue_wait_ms, 0.0);
  EXPECT_EQ(load_ok({"--max-queue-wait-ms", "150"}).batching.max_queue_wait_ms, 150.0);
  EXPECT_EQ(load_ok({}, {{"TSSERVE_MAX_QUEUE_WAIT_MS", "2.5"}}).batching.max_queue_wait_ms, 2.5);
  EXPECT_THAT(load_error({"--max-queue-wait-ms", "-1"}),
              HasSubstr("--max-queue-wait-ms must be at least 0"));
}

TEST(ServerConfigTest, IdleSpinIsMicrosecondsFromZeroToOneSecond) {
  EXPECT_EQ(load_ok({"--idle-spin-us", "0"}).batching.idle_spin_us, 0);
  EXPECT_EQ(load_ok({}, {{"TSSERVE_IDLE_SPIN_US", "250"}}).batching.idle_spin_us, 250);
  EXPECT_THAT(load_error({"--idle-spin-us", "-1"}), HasSubstr("--idle-spin-us must be at least 0"));
  EXPECT_THAT(load_error({"--idle-spin-us", "1000001"}),
              HasSubstr("--idle-spin-us must be at most 1000000"));
  EXPECT_THAT(load_error({"--idle-spin-us", "1.5"}), HasSubstr("--idle-spin-us"));
}

}  // namespace
}  // namespace tsserve::server

namespace tsserve::server {
namespace {

TEST(ServerConfigTest, SeriesStoreIsARedisUrlOrNothing) {
  EXPECT_EQ(load_ok({}).live.series_store, "");
  const ServerConfig redis = load_ok({"--series-store", "redis://cache.internal:6380/2"});
  SeriesStoreUrl url;
  ASSERT_TRUE(parse_series_store_url(redis.live.series_store, &url).ok());
  EXPECT_EQ(url.host, "cache.internal");
  EXPECT_EQ(url.port, 6380);
  EXPECT_EQ(url.database, 2);
  EXPECT_EQ(url.text(), "redis://cache.internal:6380/2");
  EXPECT_EQ(load_ok({}, {{"TSSERVE_SERIES_STORE", "redis://r"}}).live.series_store, "redis://r");
  ASSERT_TRUE(parse_series_store_url("redis://r", &url).ok());
  EXPECT_EQ(url.text(), "redis://r:6379/0");

  EXPECT_THAT(load_error({"--series-store", "http://r:6379"}),
              HasSubstr("\"http://r:6379\" is not a redis:// URL; expected redis://HOST:PORT[/DB]"));
  EXPECT_THAT(load_error({"--series-store", "rediss://r:6380"}),
              HasSubstr("rediss:// (TLS) is not built in: this build's hiredis has no TLS. Reach a "
                        "TLS Redis through a local tunnel"));
  EXPECT_THAT(load_error({"--series-store", "redis://r:0"}),
              HasSubstr("port \"0\" is not a number from 1 to 65535"));
  EXPECT_THAT(load_error({"--series-store", "redis://r:6379/16"}),
              HasSubstr("database \"16\" is not a number from 0 to 15"));
  EXPECT_THAT(load_error({"--series-store", "redis://:6379"}), HasSubstr("names no host"));
  const std::string credentials = load_error({"--series-store", "redis://user:secret@r:6379"});
  EXPECT_THAT(credentials, HasSubstr("holds credentials (not shown); give the password in "
                                     "--series-store-password-file"));
  EXPECT_THAT(credentials, Not(HasSubstr("secret"))) << "a refusal never echoes a password";
  EXPECT_THAT(load_error({"--series-store", "redis://r", "--series-store-dir", "/tmp/s"}),
              HasSubstr("give one or the other"));
}

}  // namespace
}  // namespace tsserve::server
