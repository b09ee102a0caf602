// ForecastStore: matching actuals to kept forecasts once each, by reason when not, and
// its bounds (LRU over entries, age) with a fake clock.
#include "server/accuracy/forecast_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "fake_clock.h"

namespace tsserve::server {
namespace {

struct Scored {
  std::string key;
  int64_t variable, step;
  double forecast, actual;
};

// A forecast of variables `names` for `times`, value at [n, k] = 10 * n + k.
IssuedForecast forecast_for(const std::string& key, std::vector<int64_t> times,
                            std::vector<std::string> names = {"a", "b"}) {
  IssuedForecast f;
  f.series_key = key;
  f.model = "m";
  f.version = "1";
  f.times = std::move(times);
  f.variable_names = std::move(names);
  for (int64_t n = 0; n < f.variables(); ++n) {
    for (int64_t k = 0; k < f.steps(); ++k) f.values.push_back(static_cast<float>(10 * n + k));
  }
  return f;
}

ActualsReport report_of(const std::string& key, std::vector<std::string> names,
                        std::vector<int64_t> times, std::vector<double> values) {
  return ActualsReport{key, std::move(names), std::move(times), std::move(values)};
}

class ForecastStoreTest : public ::testing::Test {
 protected:
  ActualsOutcome match(const ActualsReport& report) {
    StoreDrops drops;
    const ActualsOutcome outcome = store.match(
        report,
        [this](const ScoredPoint& p) {
          scored.push_back({p.series_key, p.variable, p.step, p.forecast_value, p.actual});
        },
        &drops);
    expired += drops.expired;
    return outcome;
  }

  FakeClock clock;
  ForecastStore store{ForecastStoreLimits{3, std::chrono::hours(1)}, clock};
  std::vector<Scored> scored;
  int64_t expired = 0;
};

TEST_F(ForecastStoreTest, ScoresEachCoveredPointWithItsStepAndValue) {
  store.add(forecast_for("k", {100, 200, 300}));
  // Rows: t = 200 and 300; columns b, a (another order than the forecast's).
  const ActualsOutcome out = match(report_of("k", {"b", "a"}, {200, 300}, {1.5, 2.5, 3.5, 4.5}));
  EXPECT_EQ(out.matched, 4);
  ASSERT_EQ(scored.size(), 4u);
  // t = 200 is step 2 (index 1); b is variable 1 of the forecast: 10 * 1 + 1.
  EXPECT_EQ(scored[0].variable, 1);
  EXPECT_EQ(scored[0].step, 2);
  EXPECT_EQ(scored[0].forecast, 11.0);
  EXPECT_EQ(scored[0].actual, 1.5);
  EXPECT_EQ(scored[1].variable, 0);
  EXPECT_EQ(scored[1].forecast, 1.0);
  EXPECT_EQ(scored[1].actual, 2.5);
  EXPECT_EQ(scored[3].step, 3);
}

TEST_F(ForecastStoreTest, ReportingTheSameActualTwiceScoresItOnce) {
  store.add(forecast_for("k", {100, 200}));
  EXPECT_EQ(match(report_of("k", {"a"}, {100}, {7})).matched, 1);
  const ActualsOutcome again = match(report_of("k", {"a"}, {100, 200}, {7, 8}));
  EXPECT_EQ(again.matched, 1);  // only t = 200 is new
  EXPECT_EQ(again.already_reported, 1);
  EXPECT_EQ(scored.size(), 2u);
}

TEST_F(ForecastStoreTest, OnePointScoresEveryOverlappingForecastOnce) {
  store.add(forecast_for("k", {100, 200, 300}));
  store.add(forecast_for("k", {200, 300, 400}));
  const ActualsOutcome out = match(report_of("k", {"a"}, {300}, {0}));
  EXPECT_EQ(out.matched, 2);
  ASSERT_EQ(scored.size(), 2u);
  EXPECT_EQ(scored[0].step + scored[1].step, 3 + 2);  // step 3 of one, step 2 of the other
}

TEST_F(ForecastStoreTest, UnmatchedPointsAreCountedByTheFirstReasonThatApplies) {
  store.add(forecast_for("k", {100, 200}));
  EXPECT_EQ(match(report_of("nobody", {"a", "b"}, {100, 200}, {1, 2, 3, 4})).unknown_key, 4);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const ActualsOutcome out =
      match(report_of("k", {"a", "zzz"}, {100, 999}, {nan, 1, 2, inf}));
  EXPECT_EQ(out.not_finite, 2);        // (100, a) and (999, zzz)
  EXPECT_EQ(out.unknown_variable, 1);  // (100, zzz)
  EXPECT_EQ(out.no_forecast, 1);       // (999, a)
  EXPECT_EQ(out.matched, 0);
  EXPECT_TRUE(scored.empty());
}

TEST_F(ForecastStoreTest, ScaledForecastsScoreActualsInTheModelSpace) {
  IssuedForecast f = forecast_for("k", {100});
  f.scaler_mean = {10.0, 0.0};
  f.scaler_std = {4.0, 1.0};
  store.add(std::move(f));
  match(report_of("k", {"a"}, {100}, {18.0}));
  ASSERT_EQ(scored.size(), 1u);
  EXPECT_DOUBLE_EQ(scored[0].actual, 2.0);  // (18 - 10) / 4
}

TEST_F(ForecastStoreTest, BeyondMaxEntriesTheLeastRecentlyUsedGoes) {
  store.add(forecast_for("old", {100}));
  store.add(forecast_for("used", {100}));
  store.add(forecast_for("other", {100}));
  // Scoring "old" makes it the most recently used: "used" is now the oldest use.
  EXPECT_EQ(match(report_of("old", {"a"}, {100}, {0})).matched, 1);
  const StoreDrops drops = store.add(forecast_for("new", {100}));
  EXPECT_EQ(drops.evicted, 1);
  EXPECT_EQ(store.entries(), 3u);
  EXPECT_EQ(match(report_of("used", {"a"}, {100}, {0})).unknown_key, 1);
  EXPECT_EQ(match(report_of("old", {"b"}, {100}, {0})).matched, 1);
}

TEST_F(ForecastStoreTest, EntriesExpireAtMaxAgeAfterIssue) {
  store.add(forecast_for("k", {100}));
  clock.advance(std::chrono::minutes(30));
  store.add(forecast_for("k", {200}));
  clock.advance(std::chrono::minutes(30));  // the first is an hour old now
  const ActualsOutcome out = match(report_of("k", {"a"}, {100, 200}, {0, 0}));
  EXPECT_EQ(expired, 1);
  EXPECT_EQ(out.no_forecast, 1);
  EXPECT_EQ(out.matched, 1);
  EXPECT_EQ(store.entries(), 1u);
  clock.advance(std::chrono::minutes(30));
  EXPECT_EQ(store.add(forecast_for("x", {1})).expired, 1);
  EXPECT_EQ(store.entries(), 1u);
}

TEST_F(ForecastStoreTest, ManyKeysNeverGrowItPastTheLimit) {
  int64_t evicted = 0;
  for (int i = 0; i < 1000; ++i) {
    evicted += store.add(forecast_for("key" + std::to_string(i), {i})).evicted;
    ASSERT_LE(store.entries(), 3u);
  }
  EXPECT_EQ(evicted, 1000 - 3);
}

}  // namespace
}  // namespace tsserve::server
