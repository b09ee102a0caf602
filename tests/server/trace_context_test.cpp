// W3C traceparent as the doors read it, against the specification's examples and rules,
// and the call's log line that carries it with the request id.

#include "server/codec/common/trace_context.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <sstream>
#include <string>
#include <vector>

#include "server/call/call_ending.h"

namespace tsserve::server {
namespace {

using ::testing::HasSubstr;

// The specification's example (trace-context, section 3.2.2.1).
constexpr char kExample[] = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

TEST(TraceContext, ReadsTheSpecificationsExample) {
  const auto trace = parse_traceparent(kExample);
  ASSERT_TRUE(trace.has_value());
  EXPECT_EQ(trace->trace_id, "4bf92f3577b34da6a3ce929d0e0e4736");
  EXPECT_EQ(trace->parent_id, "00f067aa0ba902b7");
  EXPECT_TRUE(trace->sampled);
  EXPECT_FALSE(
      parse_traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00")->sampled);
}

TEST(TraceContext, IgnoresWhatTheSpecificationCallsInvalid) {
  const std::string good = kExample;
  for (const std::string& bad : std::vector<std::string>{
           std::string(),                                              // absent
           good.substr(0, 54),                                         // short
           good + "-",                                                 // version 00 is 55
           "ff" + good.substr(2),                                      // version ff
           "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",  // upper case
           "00-00000000000000000000000000000000-00f067aa0ba902b7-01",  // zero trace-id
           "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",  // zero parent-id
           "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",  // separator
           "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01",  // not hex
           "0x-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",  // version not hex
       }) {
    EXPECT_FALSE(parse_traceparent(bad).has_value()) << bad;
  }
}

TEST(TraceContext, ReadsALaterVersionByVersionZerosFields) {
  const auto trace =
      parse_traceparent("cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-comes-next");
  ASSERT_TRUE(trace.has_value());
  EXPECT_EQ(trace->parent_id, "00f067aa0ba902b7");
  EXPECT_FALSE(parse_traceparent("cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x"));
}

class LoggedCall final : public CallEnding {
 public:
  LoggedCall() : CallEnding(nullptr, Transport::kHttp, Method::kForecast, {}) {}
  void deliver(const Status&) override {}
};

TEST(TraceContext, TheCallsLogLineCarriesTheRequestIdAndTheTrace) {
  std::ostringstream out;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out);
  auto logger = std::make_shared<spdlog::logger>("calls", sink);
  logger->set_level(spdlog::level::debug);
  const auto previous = spdlog::default_logger();
  spdlog::set_default_logger(logger);
  {
    LoggedCall call;
    call.set_request_id("order-17");
    call.set_trace(parse_traceparent(kExample));
    call.end(Status());
  }
  spdlog::set_default_logger(previous);
  EXPECT_THAT(out.str(), HasSubstr("http Forecast finished OK in "));
  EXPECT_THAT(out.str(), HasSubstr(" request_id=order-17 trace_id=4bf92f3577b34da6a3ce929d0e0e4736 "
                                   "parent_id=00f067aa0ba902b7"));
}

}  // namespace
}  // namespace tsserve::server
