#pragma once
// The plain definition of scoring kept forecasts (accuracy/kept_forecasts.h), and random
// stores and reports checked against it: every (point, kept forecast) pair in report
// order, a forecast's first variable of the point's name, each pair scored once. Shared
// by the in-process store's test and the shared (Redis) store's, so both are held to the
// one definition.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "server/accuracy/kept_forecasts.h"

namespace tsserve::server::kept_forecasts_parity {

// One score call, the forecast known by its model field (unique per forecast here); its
// bands at the point as (level, lower, upper) triples, flattened.
using ScoreCall =
    std::tuple<std::string, int64_t, int64_t, double, double, std::size_t, std::vector<double>>;

// The definition: each point of the report in order (t, then n), each kept forecast of
// the key in the order added, its first variable of the point's name, at the point's time.
struct ReferenceStore {
  struct Kept {
    IssuedForecast forecast;
    std::vector<uint8_t> scored;
  };
  std::vector<Kept> kept;

  void add(const IssuedForecast& forecast) {
    kept.push_back({forecast, std::vector<uint8_t>(forecast.values.size(), 0)});
  }

  ActualsOutcome match(const ActualsReport& report, std::vector<ScoreCall>* calls) {
    ActualsOutcome outcome;
    std::vector<Kept*> of_key;
    for (Kept& entry : kept) {
      if (entry.forecast.series_key == report.series_key) of_key.push_back(&entry);
    }
    if (of_key.empty()) {
      outcome.unknown_key = static_cast<int64_t>(report.values.size());
      return outcome;
    }
    const std::size_t variables = report.variable_names.size();
    for (std::size_t t = 0; t < report.timestamps.size(); ++t) {
      for (std::size_t n = 0; n < variables; ++n) {
        const std::size_t point = t * variables + n;
        const double actual = report.values[point];
        if (!std::isfinite(actual)) {
          ++outcome.not_finite;
          continue;
        }
        bool has_variable = false, covered = false;
        int64_t scored = 0;
        for (Kept* entry : of_key) {
          const auto& names = entry->forecast.variable_names;
          const auto name = std::find(names.begin(), names.end(), report.variable_names[n]);
          if (name == names.end()) continue;
          has_variable = true;
          const auto& times = entry->forecast.times;
          const auto time = std::find(times.begin(), times.end(), report.timestamps[t]);
          if (time == times.end()) continue;
          covered = true;
          const int64_t v = name - names.begin(), k = time - times.begin();
          const auto index = static_cast<std::size_t>(v * entry->forecast.steps() + k);
          if (entry->scored[index] != 0) continue;
          entry->scored[index] = 1;
          ++scored;
          std::vector<double> bands;
          for (const IntervalBand& band : entry->forecast.bands) {
            bands.insert(bands.end(), {band.level, band.lower[index], band.upper[index]});
          }
          calls->emplace_back(entry->forecast.model, v, k + 1, entry->forecast.values[index],
                              entry->forecast.to_model_space(v, actual), point, bands);
        }
        if (scored > 0) {
          outcome.matched += scored;
        } else if (!has_variable) {
          ++outcome.unknown_variable;
        } else if (!covered) {
          ++outcome.no_forecast;
        } else {
          ++outcome.already_reported;
        }
      }
    }
    return outcome;
  }
};

inline std::vector<int64_t> outcome_fields(const ActualsOutcome& o) {
  return {o.matched,          o.unknown_key, o.not_finite,
          o.unknown_variable, o.no_forecast, o.already_reported};
}

// `rounds` rounds of 30 random forecasts kept in a fresh store from `make_store`, then 25
// random reports scored by it and by the definition: the same outcomes, the same pairs in
// the same order.
inline void check_random_stores(const std::function<std::unique_ptr<KeptForecasts>()>& make_store,
                                int rounds) {
  std::mt19937 random(20240611);
  const std::vector<std::string> pool = {"a", "b", "c", "d", "e", "f", "g", "h"};
  const auto pick = [&random](int64_t low, int64_t high) {
    return std::uniform_int_distribution<int64_t>(low, high)(random);
  };
  for (int round = 0; round < rounds; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const std::unique_ptr<KeptForecasts> store = make_store();
    ReferenceStore reference;
    const auto keep_one = [&](int i) {
      IssuedForecast forecast;
      forecast.series_key = pick(0, 2) == 0 ? "j" : "k";
      forecast.model = "f" + std::to_string(i);
      forecast.version = "1";
      std::vector<std::string> names = pool;
      std::shuffle(names.begin(), names.end(), random);
      names.resize(static_cast<std::size_t>(pick(1, 5)));
      if (pick(0, 4) == 0) names.push_back(names.front());  // a repeated name: the first counts
      forecast.variable_names = names;
      const int64_t start = 10 * pick(0, 20);
      for (int64_t k = 0, steps = pick(1, 12); k < steps; ++k)
        forecast.times.push_back(start + 10 * k);
      for (std::size_t j = 0; j < names.size() * forecast.times.size(); ++j) {
        forecast.values.push_back(static_cast<float>(pick(-100, 100)) / 4.0F);
      }
      // Bands: none; calibrated ones (forecast +- widths, as the Forecast path records
      // them, widths given); or bounds that are no such thing.
      const int64_t bands = pick(0, 2);
      for (const double level : {0.8, 0.95}) {
        if (bands == 0) break;
        std::vector<double> widths;
        for (std::size_t j = 0; j < forecast.values.size(); ++j) {
          widths.push_back(static_cast<double>(pick(1, 400)) / 7.0 * level);
        }
        if (bands == 1) {
          forecast.bands.push_back(band_around(level, forecast.values, widths));
          forecast.band_widths.push_back(std::move(widths));
        } else {
          IntervalBand band;
          band.level = level;
          for (std::size_t j = 0; j < forecast.values.size(); ++j) {
            band.lower.push_back(forecast.values[j] - static_cast<float>(widths[j]));
            band.upper.push_back(forecast.values[j] + 2.0F * static_cast<float>(widths[j]));
          }
          forecast.bands.push_back(std::move(band));
        }
      }
      if (pick(0, 1) == 0) {
        for (std::size_t v = 0; v < names.size(); ++v) {
          forecast.scaler_mean.push_back(static_cast<double>(pick(-5, 5)));
          forecast.scaler_std.push_back(static_cast<double>(pick(1, 4)));
        }
      }
      reference.add(forecast);
      StoreDrops kept_drops;
      ASSERT_TRUE(store->keep(forecast, &kept_drops).ok());
    };
    const auto report_one = [&](int r) {
      ActualsReport report;
      report.series_key =
          std::vector<std::string>{"k", "j", "x"}[static_cast<std::size_t>(pick(0, 2))];
      std::vector<std::string> names = pool;
      names.push_back("zz");
      std::shuffle(names.begin(), names.end(), random);
      names.resize(static_cast<std::size_t>(pick(1, 9)));
      report.variable_names = names;
      std::vector<int64_t> times;
      for (int64_t time = 0; time < 330; time += 10) times.push_back(time);
      std::shuffle(times.begin(), times.end(), random);  // distinct, in any order
      times.resize(static_cast<std::size_t>(pick(1, 12)));
      report.timestamps = times;
      for (std::size_t j = 0; j < names.size() * times.size(); ++j) {
        report.values.push_back(pick(0, 9) == 0 ? std::numeric_limits<double>::quiet_NaN()
                                                : static_cast<double>(pick(-40, 40)) / 8.0);
      }
      std::vector<ScoreCall> want, got;
      const ActualsOutcome expected = reference.match(report, &want);
      StoreDrops drops;
      ActualsOutcome outcome;
      ASSERT_TRUE(store
                      ->score(
                          report,
                          [&got](const ScoredPoint& p) {
                            std::vector<double> bands;
                            for (const ScoredBand& band : p.bands) {
                              bands.insert(bands.end(), {band.level, band.lower, band.upper});
                            }
                            got.emplace_back(p.model, p.variable, p.step, p.forecast_value,
                                             p.actual, p.report_point, bands);
                          },
                          &drops, &outcome)
                      .ok());
      ASSERT_EQ(outcome_fields(outcome), outcome_fields(expected)) << "report " << r;
      ASSERT_EQ(got, want) << "report " << r;
    };
    // Keeps and reports interleaved, so a report can follow keeps that came after the
    // previous one (a shared store's view of the key must follow them).
    for (int kept = 0, reported = 0; kept < 30 || reported < 25;) {
      if (kept < 30 && (reported == 25 || pick(0, 1) == 0)) {
        keep_one(kept++);
      } else {
        report_one(reported++);
      }
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}


}  // namespace tsserve::server::kept_forecasts_parity
