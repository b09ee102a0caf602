// AccuracyMetrics through the tracker and a real store: the exposition's sums and counts
// for points scored by hand, and interval coverage per level from bands built here.
#include "server/accuracy/accuracy_metrics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <prometheus/text_serializer.h>

#include <sstream>
#include <string>

#include "fake_clock.h"
#include "server/accuracy/accuracy_tracker.h"
#include "server/accuracy/forecast_store.h"

namespace tsserve::server {
namespace {

// The value of the exposition's line `series` ("name{labels}"), or NaN when absent.
double sample(const prometheus::Registry& registry, const std::string& series) {
  const std::string text = prometheus::TextSerializer().Serialize(registry.Collect());
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(series + " ", 0) == 0) return std::stod(line.substr(series.size() + 1));
  }
  ADD_FAILURE() << "no " << series << " in\n" << text;
  return std::nan("");
}

IssuedForecast two_step_forecast() {
  IssuedForecast f;
  f.series_key = "k";
  f.model = "etth1";
  f.version = "2";
  f.times = {100, 200};
  f.variable_names = {"OT"};
  f.values = {1.0f, 2.0f};
  return f;
}

class AccuracyMetricsTest : public ::testing::Test {
 protected:
  FakeClock clock;
  ForecastStore store{ForecastStoreLimits{2, std::chrono::hours(1)}, clock};
  prometheus::Registry registry;
  AccuracyMetrics metrics{registry};
  AccuracyTracker tracker{store, &metrics};

  ActualsOutcome report(const ActualsReport& actuals) {
    ActualsOutcome outcome;
    EXPECT_TRUE(tracker.report(actuals, &outcome).ok());
    return outcome;
  }
};

TEST_F(AccuracyMetricsTest, ErrorSumsAndCountsPerHorizonBucket) {
  ASSERT_TRUE(tracker.keep(two_step_forecast()).ok());
  const ActualsOutcome out = report({"k", {"OT"}, {100, 200}, {1.5, 4.0}});
  EXPECT_EQ(out.matched, 2);
  const std::string labels = "{horizon=\"1-24\",model=\"etth1\",version=\"2\"}";
  EXPECT_DOUBLE_EQ(sample(registry, "tsserve_forecast_abs_error_total" + labels), 0.5 + 2.0);
  EXPECT_DOUBLE_EQ(sample(registry, "tsserve_forecast_squared_error_total" + labels), 0.25 + 4.0);
  EXPECT_DOUBLE_EQ(sample(registry, "tsserve_forecast_scored_points_total" + labels), 2);
  EXPECT_DOUBLE_EQ(sample(registry, "tsserve_actuals_points_total{result=\"matched\"}"), 2);
  EXPECT_DOUBLE_EQ(sample(registry, "tsserve_forecast_store_entries"), 1);
}

TEST_F(AccuracyMetricsTest, CoveragePerLevelFromTheKeptBands) {
  IssuedForecast f = two_step_forecast();
  f.bands.push_back({0.8, {0.5f, 1.5f}, {1.5f, 2.5f}});
  f.bands.push_back({0.95, {0.0f, 1.0f}, {2.0f, 3.0f}});
  ASSERT_TRUE(tracker.keep(std::move(f)).ok());
  // t=100: 1.5 is inside both (bounds are inclusive); t=200: 2.9 is outside 0.8, inside 0.95.
  report({"k", {"OT"}, {100, 200}, {1.5, 2.9}});
  const auto series = [](const char* name, const char* level) {
    return std::string(name) + "{horizon=\"1-24\",level=\"" + level +
           "\",model=\"etth1\",version=\"2\"}";
  };
  EXPECT_DOUBLE_EQ(sample(registry, series("tsserve_interval_covered_points_total", "0.8")), 1);
  EXPECT_DOUBLE_EQ(sample(registry, series("tsserve_interval_scored_points_total", "0.8")), 2);
  EXPECT_DOUBLE_EQ(sample(registry, series("tsserve_interval_covered_points_total", "0.95")), 2);
  EXPECT_DOUBLE_EQ(sample(registry, series("tsserve_interval_scored_points_total", "0.95")), 2);
  EXPECT_DOUBLE_EQ(sample(registry, "tsserve_interval_nominal_level{level=\"0.95\",model="
                                    "\"etth1\",version=\"2\"}"),
                   0.95);
}

TEST_F(AccuracyMetricsTest, RefusalsUnmatchedReasonsAndEvictionsAreCounted) {
  IssuedForecast no_times = two_step_forecast();
  no_times.times.clear();
  EXPECT_EQ(tracker.keep(std::move(no_times)).code(), StatusCode::kFailedPrecondition);
  EXPECT_DOUBLE_EQ(
      sample(registry, "tsserve_forecast_store_refused_total{reason=\"no_forecast_timestamps\"}"),
      1);
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(tracker.keep(two_step_forecast()).ok());
  EXPECT_DOUBLE_EQ(sample(registry, "tsserve_forecast_store_dropped_total{reason=\"evicted\"}"), 3);
  EXPECT_DOUBLE_EQ(sample(registry, "tsserve_forecast_store_entries"), 2);
  report({"gone", {"OT"}, {100}, {1}});
  EXPECT_DOUBLE_EQ(sample(registry, "tsserve_actuals_points_total{result=\"unknown_key\"}"), 1);
}

TEST(HorizonBuckets, StepsFallIntoTheDocumentedBuckets) {
  EXPECT_STREQ(horizon_bucket_label(horizon_bucket(1)), "1-24");
  EXPECT_STREQ(horizon_bucket_label(horizon_bucket(24)), "1-24");
  EXPECT_STREQ(horizon_bucket_label(horizon_bucket(25)), "25-48");
  EXPECT_STREQ(horizon_bucket_label(horizon_bucket(96)), "49-96");
  EXPECT_STREQ(horizon_bucket_label(horizon_bucket(97)), "97-192");
  EXPECT_STREQ(horizon_bucket_label(horizon_bucket(720)), "337-720");
  EXPECT_STREQ(horizon_bucket_label(horizon_bucket(721)), "721+");
}

}  // namespace
}  // namespace tsserve::server
