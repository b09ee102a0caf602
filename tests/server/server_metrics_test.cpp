#include "server/observability/server_metrics.h"

#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace tsserve::server {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kPromtool = "/usr/bin/promtool";

// The exposition's line for one series: "name{labels} value" (labels in name order, as
// prometheus-cpp writes them).
bool has_sample(const std::string& exposition, const std::string& sample) {
  std::istringstream lines(exposition);
  for (std::string line; std::getline(lines, line);) {
    if (line == sample) return true;
  }
  return false;
}

#define EXPECT_SAMPLE(exposition, sample)                                              \
  EXPECT_TRUE(has_sample(exposition, sample)) << "missing \"" << (sample) << "\" in\n" \
                                              << (exposition)

struct PromtoolResult {
  int exit_code;
  std::string output;
};

// `promtool check metrics` with `text` on stdin.
PromtoolResult promtool_check(const std::string& text) {
  const std::string output_path =
      ::testing::TempDir() + "promtool_output_" + std::to_string(::getpid()) + ".txt";
  const std::string command =
      std::string(kPromtool) + " check metrics > '" + output_path + "' 2>&1";
  FILE* pipe = ::popen(command.c_str(), "w");
  if (pipe == nullptr) return {-1, "popen failed"};
  std::fwrite(text.data(), 1, text.size(), pipe);
  const int status = ::pclose(pipe);
  std::ifstream in(output_path);
  std::stringstream output;
  output << in.rdbuf();
  std::remove(output_path.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output.str()};
}

// A minimal HTTP/1.0 GET: the whole response (status line, headers, body), "" on error.
std::string http_get(int port, const std::string& path) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return "";
  timeval timeout{10, 0};  // a broken server fails the test, it does not hang it
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string response;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0) {
    const std::string request =
        "GET " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    if (::send(fd, request.data(), request.size(), 0) == static_cast<ssize_t>(request.size())) {
      char buffer[4096];
      for (ssize_t n; (n = ::recv(fd, buffer, sizeof(buffer), 0)) > 0;) {
        response.append(buffer, static_cast<std::size_t>(n));
      }
    }
  }
  ::close(fd);
  return response;
}

TEST(ServerMetricsTest, NamesMethodsAndProtocols) {
  EXPECT_STREQ(method_name(Method::kForecast), "Forecast");
  EXPECT_STREQ(method_name(Method::kEncode), "Encode");
  EXPECT_STREQ(method_name(Method::kGetModelInfo), "GetModelInfo");
  EXPECT_STREQ(method_name(Method::kServerLive), "ServerLive");
  EXPECT_STREQ(method_name(Method::kModelInfer), "ModelInfer");
  EXPECT_STREQ(protocol_name(Method::kForecast), "v1");
  EXPECT_STREQ(protocol_name(Method::kGetModelInfo), "v1");
  EXPECT_STREQ(protocol_name(Method::kModelMetadata), "oip");
  EXPECT_STREQ(protocol_name(Method::kModelInfer), "oip");
  EXPECT_STREQ(method_name(Method::kReportActuals), "ReportActuals");
  EXPECT_STREQ(protocol_name(Method::kReportActuals), "v1");
}

TEST(ServerMetricsTest, EveryRequestSeriesIsExportedAtZeroFromTheStart) {
  ServerMetrics metrics;
  const std::string text = metrics.exposition();
  for (int m = 0; m < static_cast<int>(kMethodCount); ++m) {
    const auto method = static_cast<Method>(m);
    const std::string labels = std::string("method=\"") + method_name(method) +
                               "\",model=\"\",protocol=\"" + protocol_name(method) + "\"}";
    for (int code = 0; code < kStatusCodeCount; ++code) {
      EXPECT_SAMPLE(text, std::string("tsserve_requests_total{code=\"") + status_code_name(code) +
                              "\"," + labels + " 0");
    }
    EXPECT_SAMPLE(text, "tsserve_request_duration_seconds_count{" + labels + " 0");
  }
  // Each method has its protocol's series only.
  EXPECT_THAT(text, Not(HasSubstr("method=\"ModelInfer\",model=\"\",protocol=\"v1\"")));
  EXPECT_THAT(text, Not(HasSubstr("method=\"Forecast\",model=\"\",protocol=\"oip\"")));
  EXPECT_SAMPLE(text, "tsserve_ready 0");
  EXPECT_SAMPLE(text, "tsserve_inflight_requests 0");
  // No version is loaded: no batch series and no model_info yet.
  EXPECT_THAT(text, Not(HasSubstr("tsserve_queue_depth_rows{")));
  EXPECT_THAT(text, Not(HasSubstr("tsserve_inference_rows_total{")));
  EXPECT_THAT(text, Not(HasSubstr("tsserve_model_info{")));
}

TEST(ServerMetricsTest, HttpCallsHaveSeriesOfTheirOwnLabelledProtocolHttp) {
  ServerMetrics metrics;
  EXPECT_SAMPLE(metrics.exposition(),
                "tsserve_requests_total{code=\"OK\",method=\"ModelInfer\",model=\"\","
                "protocol=\"http\"} 0");
  metrics.record_request(Transport::kHttp, Method::kModelInfer, "", 0, 0.25);
  metrics.record_request(Transport::kHttp, Method::kModelInfer, "", 3, 0.5);
  metrics.record_request(Transport::kGrpc, Method::kModelInfer, "", 0, 0.125);
  const std::string text = metrics.exposition();
  EXPECT_SAMPLE(text,
                "tsserve_requests_total{code=\"OK\",method=\"ModelInfer\",model=\"\","
                "protocol=\"http\"} 1");
  EXPECT_SAMPLE(text,
                "tsserve_requests_total{code=\"INVALID_ARGUMENT\",method=\"ModelInfer\","
                "model=\"\",protocol=\"http\"} 1");
  EXPECT_SAMPLE(text,
                "tsserve_request_duration_seconds_sum{method=\"ModelInfer\",model=\"\","
                "protocol=\"http\"} 0.75");
  EXPECT_SAMPLE(text,
                "tsserve_requests_total{code=\"OK\",method=\"ModelInfer\",model=\"\","
                "protocol=\"oip\"} 1");
  EXPECT_STREQ(transport_name(Transport::kHttp), "http");
  EXPECT_STREQ(protocol_label(Transport::kGrpc, Method::kForecast), "v1");
}

TEST(ServerMetricsTest, RequestsAreCountedByMethodAndCodeWithLatency) {
  ServerMetrics metrics;
  // Binary fractions, so the sums print exactly.
  metrics.record_request(Method::kForecast, 0, 0.5);
  metrics.record_request(Method::kForecast, 0, 0.0078125);
  metrics.record_request(Method::kForecast, 3, 0.25);
  metrics.record_request(Method::kEncode, 8, 0.0625);
  metrics.record_request(Method::kGetModelInfo, 99, 0.0);  // out of range -> UNKNOWN
  metrics.record_request(Method::kModelInfer, 0, 0.125);
  const std::string text = metrics.exposition();

  EXPECT_SAMPLE(
      text,
      "tsserve_requests_total{code=\"OK\",method=\"ModelInfer\",model=\"\",protocol=\"oip\"} 1");
  EXPECT_SAMPLE(text,
                "tsserve_request_duration_seconds_sum{method=\"ModelInfer\",model=\"\",protocol="
                "\"oip\"} 0.125");

  EXPECT_SAMPLE(
      text, "tsserve_requests_total{code=\"OK\",method=\"Forecast\",model=\"\",protocol=\"v1\"} 2");
  EXPECT_SAMPLE(text,
                "tsserve_requests_total{code=\"INVALID_ARGUMENT\",method=\"Forecast\",model=\"\","
                "protocol=\"v1\"} 1");
  EXPECT_SAMPLE(text,
                "tsserve_requests_total{code=\"RESOURCE_EXHAUSTED\",method=\"Encode\",model=\"\","
                "protocol=\"v1\"} 1");
  EXPECT_SAMPLE(
      text, "tsserve_requests_total{code=\"OK\",method=\"Encode\",model=\"\",protocol=\"v1\"} 0");
  EXPECT_SAMPLE(text,
                "tsserve_requests_total{code=\"UNKNOWN\",method=\"GetModelInfo\",model=\"\","
                "protocol=\"v1\"} 1");

  EXPECT_SAMPLE(
      text,
      "tsserve_request_duration_seconds_count{method=\"Forecast\",model=\"\",protocol=\"v1\"} 3");
  EXPECT_SAMPLE(text,
                "tsserve_request_duration_seconds_sum{method=\"Forecast\",model=\"\",protocol="
                "\"v1\"} 0.7578125");
  EXPECT_SAMPLE(
      text,
      "tsserve_request_duration_seconds_bucket{method=\"Forecast\",model=\"\",protocol=\"v1\",le="
      "\"0.0001\"} 0");
  EXPECT_SAMPLE(text,
                "tsserve_request_duration_seconds_bucket{method=\"Forecast\",model=\"\",protocol="
                "\"v1\",le=\"0.01\"} 1");
  EXPECT_SAMPLE(text,
                "tsserve_request_duration_seconds_bucket{method=\"Forecast\",model=\"\",protocol="
                "\"v1\",le=\"0.25\"} 2");
  EXPECT_SAMPLE(text,
                "tsserve_request_duration_seconds_bucket{method=\"Forecast\",model=\"\",protocol="
                "\"v1\",le=\"0.5\"} 3");
  EXPECT_SAMPLE(text,
                "tsserve_request_duration_seconds_bucket{method=\"Forecast\",model=\"\",protocol="
                "\"v1\",le=\"10\"} 3");
  EXPECT_SAMPLE(text,
                "tsserve_request_duration_seconds_bucket{method=\"Forecast\",model=\"\",protocol="
                "\"v1\",le=\"+Inf\"} 3");
  EXPECT_SAMPLE(
      text,
      "tsserve_request_duration_seconds_count{method=\"Encode\",model=\"\",protocol=\"v1\"} 1");
  EXPECT_SAMPLE(
      text,
      "tsserve_request_duration_seconds_sum{method=\"Encode\",model=\"\",protocol=\"v1\"} 0.0625");
}

// The drain's last log line says what was answered, because /metrics is gone by then.
TEST(ServerMetricsTest, AnsweredSummaryListsTheNonZeroCountsByMethodAndCode) {
  ServerMetrics metrics;
  EXPECT_EQ(metrics.answered_summary(), "none");
  for (int i = 0; i < 3; ++i) metrics.record_request(Method::kForecast, 0, 0.001);
  metrics.record_request(Method::kForecast, 14, 0.001);  // UNAVAILABLE
  metrics.record_request(Method::kGetModelInfo, 0, 0.001);
  EXPECT_EQ(metrics.answered_summary(), "Forecast: OK 3, UNAVAILABLE 1; GetModelInfo: OK 1");
}

TEST(ServerMetricsTest, InflightReadsTheGauge) {
  ServerMetrics metrics;
  metrics.add_inflight(+1);
  metrics.add_inflight(+1);
  metrics.add_inflight(-1);
  EXPECT_EQ(metrics.inflight(), 1);
}

TEST(ServerMetricsTest, BatchesCountRowsAndComputeTimePerVersion) {
  ServerMetrics metrics;
  const auto series = metrics.add_version("etth1", "3", "full", "cpu");
  const auto other = metrics.add_version("etth2", "1", "full", "cpu");
  series->record_batch(7, 0.5);
  series->record_batch(448, 0.25);
  series->record_batch(1, 0.125);
  series->record_queue_wait(0.00002);
  series->record_queue_wait(0.001953125);
  other->record_batch(5, 0.0625);
  const std::string text = metrics.exposition();

  const std::string v = "model=\"etth1\",version=\"3\"";
  EXPECT_SAMPLE(text, "tsserve_inference_rows_total{" + v + "} 456");
  EXPECT_SAMPLE(text, "tsserve_batch_rows_count{" + v + "} 3");
  EXPECT_SAMPLE(text, "tsserve_batch_rows_sum{" + v + "} 456");
  EXPECT_SAMPLE(text, "tsserve_batch_rows_bucket{" + v + ",le=\"1\"} 1");
  EXPECT_SAMPLE(text, "tsserve_batch_rows_bucket{" + v + ",le=\"4\"} 1");
  EXPECT_SAMPLE(text, "tsserve_batch_rows_bucket{" + v + ",le=\"8\"} 2");
  EXPECT_SAMPLE(text, "tsserve_batch_rows_bucket{" + v + ",le=\"256\"} 2");
  EXPECT_SAMPLE(text, "tsserve_batch_rows_bucket{" + v + ",le=\"512\"} 3");
  EXPECT_SAMPLE(text, "tsserve_batch_rows_bucket{" + v + ",le=\"1024\"} 3");
  EXPECT_SAMPLE(text, "tsserve_batch_rows_bucket{" + v + ",le=\"+Inf\"} 3");
  EXPECT_SAMPLE(text, "tsserve_compute_seconds_count{" + v + "} 3");
  EXPECT_SAMPLE(text, "tsserve_compute_seconds_sum{" + v + "} 0.875");

  EXPECT_SAMPLE(text, "tsserve_queue_wait_seconds_count{" + v + "} 2");
  EXPECT_SAMPLE(text, "tsserve_queue_wait_seconds_bucket{" + v + ",le=\"1e-05\"} 0");
  EXPECT_SAMPLE(text, "tsserve_queue_wait_seconds_bucket{" + v + ",le=\"2.5e-05\"} 1");
  EXPECT_SAMPLE(text, "tsserve_queue_wait_seconds_bucket{" + v + ",le=\"0.001\"} 1");
  EXPECT_SAMPLE(text, "tsserve_queue_wait_seconds_bucket{" + v + ",le=\"0.0025\"} 2");

  // The other model's version has its own series, untouched by the first one's batches.
  EXPECT_SAMPLE(text, "tsserve_inference_rows_total{model=\"etth2\",version=\"1\"} 5");
  EXPECT_SAMPLE(text, "tsserve_queue_wait_seconds_count{model=\"etth2\",version=\"1\"} 0");
}

TEST(ServerMetricsTest, GaugesFollowTheirSetters) {
  ServerMetrics metrics;
  const auto first_version = metrics.add_version("etth1", "1", "full", "cpu");
  const auto second_version = metrics.add_version("etth1", "2", "full", "cpu");
  first_version->set_queue_depth_rows(4096);
  second_version->set_queue_depth_rows(3);
  metrics.set_ready(true);
  {
    ServerMetrics::InflightRequest first(metrics);
    ServerMetrics::InflightRequest second(metrics);
    ServerMetrics::InflightRequest moved(std::move(second));
    EXPECT_SAMPLE(metrics.exposition(), "tsserve_inflight_requests 2");
  }
  metrics.add_inflight(1);
  const std::string text = metrics.exposition();
  EXPECT_SAMPLE(text, "tsserve_inflight_requests 1");
  // Each version's batchers have their own depth: neither overwrites the other.
  EXPECT_SAMPLE(text, "tsserve_queue_depth_rows{model=\"etth1\",version=\"1\"} 4096");
  EXPECT_SAMPLE(text, "tsserve_queue_depth_rows{model=\"etth1\",version=\"2\"} 3");
  EXPECT_SAMPLE(text, "tsserve_ready 1");
  metrics.set_ready(false);
  EXPECT_SAMPLE(metrics.exposition(), "tsserve_ready 0");
}

TEST(ServerMetricsTest, ModelInfoHasOneSeriesPerLoadedVersion) {
  ServerMetrics metrics;
  auto first = metrics.add_version("patchtst-etth1", "1", "full", "cpu");
  const auto second = metrics.add_version("patchtst-etth1", "2", "prob", "cuda:0");
  const auto other = metrics.add_version("patchtst-etth2", "7", "full", "cpu");
  std::string text = metrics.exposition();
  EXPECT_SAMPLE(text,
                "tsserve_model_info{attention=\"full\",device=\"cpu\",name=\"patchtst-etth1\","
                "version=\"1\"} 1");
  EXPECT_SAMPLE(text,
                "tsserve_model_info{attention=\"prob\",device=\"cuda:0\",name=\"patchtst-etth1\","
                "version=\"2\"} 1");
  EXPECT_SAMPLE(text,
                "tsserve_model_info{attention=\"full\",device=\"cpu\",name=\"patchtst-etth2\","
                "version=\"7\"} 1");
  first.reset();
  text = metrics.exposition();
  EXPECT_THAT(text, Not(HasSubstr("version=\"1\"")));
  EXPECT_THAT(text, HasSubstr("name=\"patchtst-etth1\",version=\"2\""));
}

TEST(ServerMetricsTest, RequestsAreLabelledByTheResolvedModelWhileItIsLoaded) {
  ServerMetrics metrics;
  auto version = metrics.add_version("etth1", "1", "full", "cpu");
  metrics.record_request(Method::kForecast, "etth1", 0, 0.5);
  metrics.record_request(Method::kForecast, "etth1", 0, 0.25);
  metrics.record_request(Method::kForecast, "", 5, 0.125);  // NOT_FOUND: resolved none
  std::string text = metrics.exposition();
  EXPECT_SAMPLE(text,
                "tsserve_requests_total{code=\"OK\",method=\"Forecast\",model=\"etth1\","
                "protocol=\"v1\"} 2");
  EXPECT_SAMPLE(text,
                "tsserve_request_duration_seconds_sum{method=\"Forecast\",model=\"etth1\","
                "protocol=\"v1\"} 0.75");
  EXPECT_SAMPLE(text,
                "tsserve_requests_total{code=\"NOT_FOUND\",method=\"Forecast\",model=\"\","
                "protocol=\"v1\"} 1");
  // A loaded model's series appear on first use, not for every method and code.
  EXPECT_THAT(text, Not(HasSubstr("method=\"Encode\",model=\"etth1\"")));
  EXPECT_EQ(metrics.answered_summary(), "Forecast: OK 2, NOT_FOUND 1");

  // A name no loaded version has (say a late call of an unloaded model) counts as "".
  metrics.record_request(Method::kForecast, "never-loaded", 0, 0.5);
  EXPECT_SAMPLE(metrics.exposition(),
                "tsserve_requests_total{code=\"OK\",method=\"Forecast\",model=\"\",protocol="
                "\"v1\"} 1");
  EXPECT_THAT(metrics.exposition(), Not(HasSubstr("never-loaded")));
}

TEST(ServerMetricsTest, UnloadingAVersionRemovesItsSeriesAndTheLastOneTheModels) {
  ServerMetrics metrics;
  auto one = metrics.add_version("etth1", "1", "full", "cpu");
  auto two = metrics.add_version("etth1", "2", "full", "cpu");
  one->record_batch(4, 0.01);
  two->record_batch(4, 0.01);
  metrics.record_request(Method::kForecast, "etth1", 0, 0.01);

  one.reset();
  std::string text = metrics.exposition();
  EXPECT_THAT(text, Not(HasSubstr("version=\"1\"")));
  EXPECT_SAMPLE(text, "tsserve_inference_rows_total{model=\"etth1\",version=\"2\"} 4");
  // Version 2 still serves the model: its request series stay.
  EXPECT_THAT(text, HasSubstr("model=\"etth1\",protocol=\"v1\""));

  two.reset();
  text = metrics.exposition();
  EXPECT_THAT(text, Not(HasSubstr("etth1")));
  for (const char* family :
       {"tsserve_queue_wait_seconds", "tsserve_compute_seconds", "tsserve_batch_rows",
        "tsserve_inference_rows_total", "tsserve_queue_depth_rows", "tsserve_model_info"}) {
    EXPECT_THAT(text, Not(HasSubstr(std::string(family) + "{"))) << family;
  }
}

// The registry unloads a version (drained) while a finishing call may still hold it: its
// series go at once, the lingering object records nothing, and a reload of the same
// version starts fresh series that the old object's end leaves alone.
TEST(ServerMetricsTest, RemoveVersionDropsTheSeriesWhileTheObjectLingers) {
  ServerMetrics metrics;
  auto lingering = metrics.add_version("etth1", "1", "full", "cpu");
  lingering->record_batch(4, 0.01);
  metrics.record_request(Method::kForecast, "etth1", 0, 0.01);
  metrics.remove_version("etth1", "1");
  metrics.remove_version("etth1", "9");  // unknown: ignored
  EXPECT_THAT(metrics.exposition(), Not(HasSubstr("etth1")));
  lingering->record_batch(4, 0.01);  // no effect, no series brought back
  lingering->set_queue_depth_rows(3);
  EXPECT_THAT(metrics.exposition(), Not(HasSubstr("etth1")));

  const auto reloaded = metrics.add_version("etth1", "1", "full", "cpu");
  reloaded->record_batch(2, 0.01);
  lingering.reset();
  const std::string text = metrics.exposition();
  EXPECT_SAMPLE(text, "tsserve_inference_rows_total{model=\"etth1\",version=\"1\"} 2");
  EXPECT_SAMPLE(text,
                "tsserve_model_info{attention=\"full\",device=\"cpu\",name=\"etth1\",version="
                "\"1\"} 1");
}

TEST(ServerMetricsTest, ConcurrentRecordsAreAllCounted) {
  ServerMetrics metrics;
  const auto version = metrics.add_version("etth1", "1", "full", "cpu");
  constexpr int kThreads = 4;
  constexpr int kPerThread = 5000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&metrics, &version] {
      for (int i = 0; i < kPerThread; ++i) {
        ServerMetrics::InflightRequest inflight(metrics);
        metrics.record_request(Method::kForecast, "etth1", 0, 0.001);
        version->record_batch(2, 0.001);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  const std::string text = metrics.exposition();
  EXPECT_SAMPLE(text,
                "tsserve_requests_total{code=\"OK\",method=\"Forecast\",model=\"etth1\","
                "protocol=\"v1\"} 20000");
  EXPECT_SAMPLE(text, "tsserve_inference_rows_total{model=\"etth1\",version=\"1\"} 40000");
  EXPECT_SAMPLE(text, "tsserve_batch_rows_count{model=\"etth1\",version=\"1\"} 20000");
  EXPECT_SAMPLE(text, "tsserve_inflight_requests 0");
}

TEST(ServerMetricsTest, ExpositionPassesPromtool) {
  if (::access(kPromtool, X_OK) != 0) {
    GTEST_SKIP() << kPromtool << " not found: install Debian's `prometheus` package "
                 << "(deploy/install-deps.sh) to lint the exposition";
  }
  ServerMetrics metrics;
  metrics.record_request(Method::kForecast, 0, 0.003);
  metrics.record_request(Method::kEncode, 3, 0.0001);
  const auto version = metrics.add_version("patchtst-etth1", "1", "full", "cpu");
  metrics.record_request(Method::kForecast, "patchtst-etth1", 0, 0.003);
  version->record_batch(32, 0.01);
  version->record_queue_wait(0.002);
  metrics.set_ready(true);
  const PromtoolResult result = promtool_check(metrics.exposition());
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(result.output, "");
}

TEST(ServerMetricsTest, ServesMetricsOverHttpOnAnyFreePort) {
  ServerMetrics metrics;
  EXPECT_TRUE(metrics.listening_ports().empty());
  ASSERT_TRUE(metrics.serve("127.0.0.1:0").ok());
  const std::vector<int> ports = metrics.listening_ports();
  ASSERT_EQ(ports.size(), 1u);
  ASSERT_GT(ports[0], 0);
  metrics.set_ready(true);
  metrics.record_request(Method::kGetModelInfo, 0, 0.001);

  const std::string response = http_get(ports[0], "/metrics");
  EXPECT_THAT(response, ::testing::StartsWith("HTTP/1.1 200"));
  const std::size_t body_start = response.find("\r\n\r\n");
  ASSERT_NE(body_start, std::string::npos) << response;
  const std::string body = response.substr(body_start + 4);
  EXPECT_SAMPLE(body, "tsserve_ready 1");
  EXPECT_SAMPLE(
      body,
      "tsserve_requests_total{code=\"OK\",method=\"GetModelInfo\",model=\"\",protocol=\"v1\"} 1");

  EXPECT_THAT(http_get(ports[0], "/other"), ::testing::StartsWith("HTTP/1.1 404"));
  const Status again = metrics.serve("127.0.0.1:0");
  EXPECT_EQ(again.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(again.message(), HasSubstr("already"));
}

TEST(ServerMetricsTest, ServeReportsAnAddressInUse) {
  ServerMetrics first;
  ASSERT_TRUE(first.serve("127.0.0.1:0").ok());
  const std::string taken = "127.0.0.1:" + std::to_string(first.listening_ports().at(0));
  ServerMetrics second;
  const Status refused = second.serve(taken);
  EXPECT_EQ(refused.code(), StatusCode::kUnavailable);
  const std::string error = refused.message();
  EXPECT_THAT(error, HasSubstr("cannot serve metrics on '" + taken + "'"));
  EXPECT_THAT(error, HasSubstr("in use"));
  EXPECT_TRUE(second.listening_ports().empty());
}

}  // namespace
}  // namespace tsserve::server
