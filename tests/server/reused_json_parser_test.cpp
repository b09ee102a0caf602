// ReusedJsonParser: a thread's simdjson parser is reused from body to body, but one that
// read a body above kKeptJsonCapacity gives its buffers back, on every JSON door, so a
// maximum-size body leaves no thread holding buffers sized for it. Measured as capacity
// and as heap in use, not as time.
#include "server/codec/json/reused_json_parser.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "heap_in_use.h"
#include "server/codec/json/json_float_array.h"
#include "server/codec/oip_rest/oip_json_repository.h"
#include "server/codec/oip_rest/oip_json_request.h"
#include "server/codec/v1_json/actuals_json.h"
#include "server/codec/v1_json/forecast_json_request.h"
#include "server/codec/v1_json/observe_json.h"

namespace tsserve::server {
namespace {

using testing::heap_in_use;

constexpr std::size_t kLargeBody = 2 * kKeptJsonCapacity;

// `json` followed by whitespace up to `size` bytes: a valid body of that size.
std::string padded(std::string json, std::size_t size) {
  json.resize(std::max(size, json.size()), ' ');
  return json;
}

struct JsonDoor {
  const char* name;
  std::string body;
  std::function<Status(std::string&)> parse;
};

std::vector<JsonDoor> every_json_door() {
  return {
      {"forecast", "{\"series\":{\"a\":[1,2,3]}}",
       [](std::string& body) {
         ForecastJsonRequest request;
         return parse_forecast_json_request(body, &request);
       }},
      {"observe", "{\"timestamps\":[1],\"values\":{\"a\":[1]}}",
       [](std::string& body) {
         ObserveJsonRequest request;
         return parse_observe_json_request(body, "k", &request);
       }},
      {"actuals", "{\"series_key\":\"k\",\"timestamps\":[1],\"actuals\":{\"a\":[1]}}",
       [](std::string& body) {
         v1::ReportActualsRequest request;
         return parse_actuals_json_request(body, &request);
       }},
      {"oip infer",
       "{\"inputs\":[{\"name\":\"series\",\"shape\":[1,3],\"datatype\":\"FP32\","
       "\"data\":[1,2,3]}]}",
       [](std::string& body) {
         inference::ModelInferRequest request;
         return parse_oip_json_request(body, &request);
       }},
      {"repository index", "{\"ready\":true}",
       [](std::string& body) {
         bool ready = false;
         return parse_repository_index_request(body, &ready);
       }},
      {"repository load", "{}", [](std::string& body) { return check_repository_load_body(body); }},
  };
}

TEST(ReusedJsonParser, EveryDoorKeepsItsBuffersForSmallBodiesAndGivesBackLargeOnes) {
  for (JsonDoor& door : every_json_door()) {
    SCOPED_TRACE(door.name);
    std::string small = door.body;
    ASSERT_TRUE(door.parse(small).ok());
    const std::size_t kept = ReusedJsonParser::kept_capacity();
    EXPECT_GT(kept, 0u);  // reused: the next small body allocates nothing
    EXPECT_LE(kept, kKeptJsonCapacity);

    std::string large = padded(door.body, kLargeBody);
    const Status status = door.parse(large);
    ASSERT_TRUE(status.ok()) << status.message();
    EXPECT_LE(ReusedJsonParser::kept_capacity(), kKeptJsonCapacity);

    // A refused large body gives its buffers back too.
    std::string refused = padded("{\"unknown\":1}", kLargeBody);
    EXPECT_FALSE(door.parse(refused).ok());
    EXPECT_LE(ReusedJsonParser::kept_capacity(), kKeptJsonCapacity);
  }
}

// The heap a thread holds after a large forecast body (its parser's buffers and the
// column scan's) is back where it was once the request is gone.
TEST(ReusedJsonParser, ALargeForecastLeavesNoHeapBehind) {
  const auto parse_forecast = [](std::string body) {
    ForecastJsonRequest request;
    return parse_forecast_json_request(body, &request);
  };
  ASSERT_TRUE(parse_forecast("{\"series\":{\"a\":[1,2,3]}}").ok());  // warm: one-time state
  const std::size_t before = heap_in_use();
  {
    std::string column = "1";
    while (column.size() < kLargeBody) column += ",1";
    const Status status = parse_forecast("{\"series\":{\"a\":[" + column + "]}}");
    ASSERT_TRUE(status.ok()) << status.message();
  }
  const std::size_t after = heap_in_use();
  // Kept before this change: the parser's buffers (several times the body) and the scan's
  // million floats, together well over 10 MB.
  EXPECT_LT(after, before + kKeptJsonCapacity) << "before " << before << ", after " << after;
}

TEST(ReusedJsonParser, ALeaseTakenDuringAnotherGetsItsOwnParser) {
  ReusedJsonParser outer;
  ReusedJsonParser inner;
  EXPECT_NE(&outer.get(), &inner.get());
}

TEST(JsonFloatArrayClearKeeping, GivesBackVectorsAboveTheBound) {
  JsonFloatArray scan;
  scan.overflow_ok = true;
  scan.values.assign(1000, 1.0F);
  scan.clear_keeping(kKeptJsonCapacity);
  EXPECT_TRUE(scan.values.empty());
  EXPECT_GE(scan.values.capacity(), 1000u);  // kept: small

  scan.values.assign(kKeptJsonCapacity, 1.0F);  // 4 bytes each: above the bound
  scan.clear_keeping(kKeptJsonCapacity);
  EXPECT_TRUE(scan.values.empty());
  EXPECT_EQ(scan.values.capacity(), 0u);
  EXPECT_TRUE(scan.overflow_ok);  // the settings stay
}

}  // namespace
}  // namespace tsserve::server
