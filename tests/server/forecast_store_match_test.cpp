// ForecastStore::match at scale and against the plain definition
// (kept_forecasts_parity.h): random stores and reports must score the same pairs in the
// same order with the same outcome as that definition; and what match builds is bounded
// by the report and the key's forecasts, not their product (measured as heap, not time).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "fake_clock.h"
#include "heap_in_use.h"
#include "kept_forecasts_parity.h"
#include "server/accuracy/forecast_store.h"

namespace tsserve::server {
namespace {

using testing::heap_in_use;

TEST(ForecastStoreMatch, RandomStoresAndReportsScoreAsTheDefinition) {
  FakeClock clock;
  kept_forecasts_parity::check_random_stores(
      [&clock] {
        return std::make_unique<ForecastStore>(ForecastStoreLimits{1000, std::chrono::hours(1)},
                                               clock);
      },
      20);
}

// 200 forecasts kept under one key, then one report of 20,000 names of which one is
// theirs: what match holds while it scores is the report's index, not a table of
// forecasts x names (200 x 20,000 indices, 32 MB, before this change).
TEST(ForecastStoreMatch, AReportOfManyNamesBuildsNoTableOfForecastsByNames) {
  FakeClock clock;
  ForecastStore store(ForecastStoreLimits{1000, std::chrono::hours(1)}, clock);
  constexpr int kForecasts = 200;
  for (int i = 0; i < kForecasts; ++i) {
    IssuedForecast forecast;
    forecast.series_key = "k";
    forecast.model = "m";
    forecast.version = "1";
    forecast.variable_names = {"a", "b"};
    forecast.times = {100, 200};
    forecast.values = {1, 2, 3, 4};
    store.add(forecast);
  }
  ActualsReport report;
  report.series_key = "k";
  report.timestamps = {200};
  for (int n = 0; n < 20'000; ++n) report.variable_names.push_back("unknown-" + std::to_string(n));
  report.variable_names.push_back("b");
  report.values.assign(report.variable_names.size(), 5.0);

  const std::size_t before = heap_in_use();
  std::size_t peak = before;
  StoreDrops drops;
  const ActualsOutcome outcome = store.match(
      report, [&peak](const ScoredPoint&) { peak = std::max(peak, heap_in_use()); }, &drops);
  EXPECT_EQ(outcome.matched, kForecasts);
  EXPECT_EQ(outcome.unknown_variable, 20'000);
  // The report's index (20,001 names and one time) is about 1 MB.
  EXPECT_LT(peak - before, std::size_t{8} << 20) << "held " << (peak - before) << " bytes";
}

}  // namespace
}  // namespace tsserve::server
