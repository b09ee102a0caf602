// decode_report_actuals: each rule of ReportActualsRequest gives INVALID_ARGUMENT naming
// the field; a NaN value is kept (the store counts it), not refused.
#include "server/codec/v1/report_actuals_codec.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

namespace tsserve::server {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

v1::ReportActualsRequest valid_request() {
  v1::ReportActualsRequest r;
  r.set_series_key("site-7");
  r.add_variable_names("HUFL");
  r.add_variable_names("OT");
  r.add_timestamps(3600);
  r.add_timestamps(7200);
  for (double v : {1.0, 2.0, 3.0, 4.0}) r.add_values(v);
  return r;
}

Status decode(const v1::ReportActualsRequest& r) {
  ActualsReport out;
  return decode_report_actuals(r, &out);
}

void expect_invalid(const v1::ReportActualsRequest& r, const std::string& field,
                    const std::string& says) {
  const Status status = decode(r);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), StartsWith(field + ":"));
  EXPECT_THAT(status.message(), HasSubstr(says));
}

TEST(ReportActualsCodec, AValidRequestDecodesAsSent) {
  ActualsReport out;
  ASSERT_TRUE(decode_report_actuals(valid_request(), &out).ok());
  EXPECT_EQ(out.series_key, "site-7");
  EXPECT_EQ(out.variable_names, (std::vector<std::string>{"HUFL", "OT"}));
  EXPECT_EQ(out.timestamps, (std::vector<int64_t>{3600, 7200}));
  EXPECT_EQ(out.values, (std::vector<double>{1, 2, 3, 4}));
}

TEST(ReportActualsCodec, NaNValuesAreKeptForTheStoreToCount) {
  v1::ReportActualsRequest r = valid_request();
  r.set_values(1, std::numeric_limits<double>::quiet_NaN());
  ActualsReport out;
  ASSERT_TRUE(decode_report_actuals(r, &out).ok());
  EXPECT_TRUE(std::isnan(out.values[1]));
}

TEST(ReportActualsCodec, EachBrokenRuleNamesItsField) {
  v1::ReportActualsRequest r = valid_request();
  r.clear_series_key();
  expect_invalid(r, "series_key", "required");
  r = valid_request();
  r.set_series_key(std::string("a\nb"));
  expect_invalid(r, "series_key", "printable ASCII");
  r = valid_request();
  r.clear_variable_names();
  expect_invalid(r, "variable_names", "required");
  r = valid_request();
  r.set_variable_names(1, "HUFL");
  expect_invalid(r, "variable_names", "'HUFL' appears twice");
  r = valid_request();
  r.clear_timestamps();
  expect_invalid(r, "timestamps", "required");
  r = valid_request();
  r.set_timestamps(1, 3600);
  expect_invalid(r, "timestamps", "3600 appears twice");
  r = valid_request();
  r.add_values(5);
  expect_invalid(r, "values", "5 entries; expected T * N = 2 * 2 = 4");
}

// A report's size is bounded before anything is copied or matched: its names, and its
// points (T x N), each refused naming the field and the bound; at the bounds it is taken.
TEST(ReportActualsCodec, TooManyNamesOrPointsAreRefusedNamingTheBound) {
  v1::ReportActualsRequest wide;
  wide.set_series_key("site-7");
  wide.add_timestamps(3600);
  for (int64_t n = 0; n < kMaxReportedVariables; ++n) {
    wide.add_variable_names("v" + std::to_string(n));
    wide.add_values(1.0);
  }
  EXPECT_TRUE(decode(wide).ok()) << decode(wide).message();
  wide.add_variable_names("one-more");
  wide.add_values(1.0);
  expect_invalid(wide, "variable_names",
                 std::to_string(kMaxReportedVariables + 1) + " names; a report names at most " +
                     std::to_string(kMaxReportedVariables));

  v1::ReportActualsRequest tall;
  tall.set_series_key("site-7");
  tall.add_variable_names("a");
  tall.add_variable_names("b");
  for (int64_t t = 0; t < kMaxReportedPoints / 2; ++t) {
    tall.add_timestamps(t);
    tall.add_values(1.0);
    tall.add_values(2.0);
  }
  EXPECT_TRUE(decode(tall).ok()) << decode(tall).message();
  tall.add_timestamps(kMaxReportedPoints);
  tall.add_values(1.0);
  tall.add_values(2.0);
  expect_invalid(tall, "timestamps",
                 "= " + std::to_string(kMaxReportedPoints + 2) +
                     " points; a report carries at most " + std::to_string(kMaxReportedPoints));
}

TEST(ReportActualsCodec, OutcomeFieldsAreCopiedOneToOne) {
  v1::ReportActualsResponse response;
  encode_report_actuals({1, 2, 3, 4, 5, 6}, &response);
  EXPECT_EQ(response.matched(), 1);
  EXPECT_EQ(response.unmatched_unknown_key(), 2);
  EXPECT_EQ(response.unmatched_not_finite(), 3);
  EXPECT_EQ(response.unmatched_unknown_variable(), 4);
  EXPECT_EQ(response.unmatched_no_forecast(), 5);
  EXPECT_EQ(response.unmatched_already_reported(), 6);
}

}  // namespace
}  // namespace tsserve::server
