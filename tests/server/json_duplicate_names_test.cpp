// The JSON doors' column names at scale: a repeat is refused at any distance, with the
// message it always had, by a set of the names met (JsonNames) rather than a comparison
// with every earlier name; attention.variables resolve by a map of the columns; a report
// of actuals is bounded in columns and values as it is read.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "server/codec/json/json_reading.h"
#include "server/codec/v1_json/actuals_json.h"
#include "server/codec/v1_json/forecast_json_request.h"
#include "server/codec/v1_json/observe_json.h"
#include "server/request/actuals_report.h"

namespace tsserve::server {
namespace {

using ::testing::HasSubstr;

// Many enough that comparing each name with every earlier one would cost ~10^9 string
// comparisons per body; the set makes it a few milliseconds.
constexpr int kManyColumns = 50'000;

// "c0":[1],"c1":[1],... then `tail` (e.g. a repeat), as the fields of one object.
std::string many_columns(int count, const std::string& tail = "") {
  std::string fields;
  for (int n = 0; n < count; ++n) {
    if (n > 0) fields += ',';
    fields += "\"c" + std::to_string(n) + "\":[1]";
  }
  return "{" + fields + tail + "}";
}

std::string forecast_body(const std::string& columns, const std::string& more = "") {
  return "{\"series\":" + columns + more + "}";
}

std::string observe_body(const std::string& columns) {
  return "{\"timestamps\":[1700000000],\"values\":" + columns + "}";
}

std::string actuals_body(const std::string& columns) {
  return "{\"series_key\":\"k\",\"timestamps\":[1700000000],\"actuals\":" + columns + "}";
}

TEST(JsonNames, RefusesARepeatAtAnyDistanceNamingItsPath) {
  JsonNames names;
  std::vector<std::string> texts;
  for (int n = 0; n < kManyColumns; ++n) texts.push_back("c" + std::to_string(n));
  for (const std::string& text : texts) ASSERT_TRUE(names.add("series", text).ok());
  const Status first = names.add("series", "c0");
  EXPECT_EQ(first.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(first.message(), "series.c0: given twice; each field once");
  EXPECT_EQ(names.add("", texts.back()).message(),
            "c" + std::to_string(kManyColumns - 1) + ": given twice; each field once");
  EXPECT_TRUE(names.add("series", "c" + std::to_string(kManyColumns)).ok());
}

TEST(JsonDuplicateNames, ForecastTakesManyColumnsAndRefusesARepeatOfTheFirstAtTheEnd) {
  std::string body = forecast_body(many_columns(kManyColumns));
  ForecastJsonRequest request;
  ASSERT_TRUE(parse_forecast_json_request(body, &request).ok());
  ASSERT_EQ(request.columns.size(), static_cast<std::size_t>(kManyColumns));
  EXPECT_EQ(request.columns[kManyColumns - 1], "c" + std::to_string(kManyColumns - 1));
  EXPECT_EQ(request.shape[0], kManyColumns);

  std::string repeated = forecast_body(many_columns(kManyColumns, ",\"c0\":[2]"));
  ForecastJsonRequest refused;
  const Status status = parse_forecast_json_request(repeated, &refused);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "series.c0: given twice; each field once");
  // Names compare unescaped: "c\u0030" is "c0".
  std::string escaped = forecast_body(many_columns(3, ",\"c\\u0030\":[2]"));
  ForecastJsonRequest escaped_request;
  EXPECT_EQ(parse_forecast_json_request(escaped, &escaped_request).message(),
            "series.c0: given twice; each field once");
}

TEST(JsonDuplicateNames, AttentionVariablesResolveAgainstManyColumns) {
  std::string variables;
  for (int n = kManyColumns - 1; n >= 0; n -= 2) {
    variables += (variables.empty() ? "\"c" : ",\"c") + std::to_string(n) + "\"";
  }
  std::string body = forecast_body(many_columns(kManyColumns),
                                   ",\"attention\":{\"variables\":[" + variables + "]}");
  ForecastJsonRequest request;
  const Status status = parse_forecast_json_request(body, &request);
  ASSERT_TRUE(status.ok()) << status.message();
  const auto& indices = request.attention.variables;
  ASSERT_EQ(indices.size(), static_cast<std::size_t>(kManyColumns / 2));
  EXPECT_EQ(indices.front(), kManyColumns - 1);
  EXPECT_EQ(indices.back(), 1);

  std::string unknown =
      forecast_body(many_columns(kManyColumns), ",\"attention\":{\"variables\":[\"c1\",\"nope\"]}");
  ForecastJsonRequest refused;
  EXPECT_EQ(parse_forecast_json_request(unknown, &refused).message(),
            "attention.variables[1]: \"nope\" is not a column of series");
}

TEST(JsonDuplicateNames, ObserveAndActualsRefuseARepeatAtTheEnd) {
  std::string observe = observe_body(many_columns(kManyColumns));
  ObserveJsonRequest observation;
  ASSERT_TRUE(parse_observe_json_request(observe, "k", &observation).ok());
  EXPECT_EQ(observation.observation.variable_names.size(), static_cast<std::size_t>(kManyColumns));
  std::string observe_repeat = observe_body(many_columns(kManyColumns, ",\"c0\":[2]"));
  ObserveJsonRequest refused_observation;
  EXPECT_EQ(parse_observe_json_request(observe_repeat, "k", &refused_observation).message(),
            "values.c0: given twice; each field once");

  std::string actuals = actuals_body(many_columns(kManyColumns));
  v1::ReportActualsRequest report;
  ASSERT_TRUE(parse_actuals_json_request(actuals, &report).ok());
  EXPECT_EQ(report.variable_names_size(), kManyColumns);
  std::string actuals_repeat = actuals_body(many_columns(kManyColumns, ",\"c0\":[2]"));
  v1::ReportActualsRequest refused_report;
  EXPECT_EQ(parse_actuals_json_request(actuals_repeat, &refused_report).message(),
            "actuals.c0: given twice; each field once");
}

// The bounds of request/actuals_report.h, met as the body is read.
TEST(JsonDuplicateNames, ActualsAreBoundedInColumnsAndValuesAsTheyAreRead) {
  std::string columns;
  for (int64_t n = 0; n <= kMaxReportedVariables; ++n) {
    columns += (n == 0 ? "\"v" : ",\"v") + std::to_string(n) + "\":[]";
  }
  std::string wide = actuals_body("{" + columns + "}");
  v1::ReportActualsRequest report;
  Status status = parse_actuals_json_request(wide, &report);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "actuals.v" + std::to_string(kMaxReportedVariables) + ": more than " +
                                  std::to_string(kMaxReportedVariables) +
                                  " columns; a report names at most that many variables");

  std::string values;
  for (int64_t i = 0; i <= kMaxReportedPoints; ++i) values += i == 0 ? "1" : ",1";
  std::string tall = actuals_body("{\"a\":[" + values + "]}");
  v1::ReportActualsRequest tall_report;
  status = parse_actuals_json_request(tall, &tall_report);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              HasSubstr("actuals.a[" + std::to_string(kMaxReportedPoints) + "]: more than " +
                        std::to_string(kMaxReportedPoints) + " values"));
}

}  // namespace
}  // namespace tsserve::server
