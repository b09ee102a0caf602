#pragma once
// Where the forecasts issued with a series key are kept until their actuals arrive: in
// this process (forecast_store.h, the default) or in a store every replica shares
// (server/redis/redis_kept_forecasts.h), so that an actual is scored on whichever replica
// receives it. Both score a report alike: the same outcomes, the same (forecast, point)
// pairs in the same order (the key's forecasts in the order they were kept), each pair at
// most once however many replicas receive the report.
//
// Thread safety: every member may be called from any thread.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "server/accuracy/issued_forecast.h"
#include "server/request/actuals_report.h"
#include "server/status/status.h"

namespace tsserve::server {

// Entries a store removed during one call, by reason (the in-process store's bounds; a
// shared store expires entries itself and counts none).
struct StoreDrops {
  int64_t evicted = 0;  // least recently used, beyond max_entries
  int64_t expired = 0;  // older than max_age
};

// One band of the scored forecast at the scored point, in the model's space.
struct ScoredBand {
  double level = 0;
  float lower = 0;
  float upper = 0;
};

// One (forecast, point) pair being scored; valid during the callback only.
struct ScoredPoint {
  const std::string& series_key;
  const std::string& model;    // the forecast's, for the metrics' labels
  const std::string& version;
  int64_t variable = 0;         // index into the forecast's variable names
  int64_t step = 0;             // 1..F: how far ahead the forecast was for this point
  double forecast_value = 0;    // the model's space
  double actual = 0;            // the model's space (scaled as the forecast was)
  std::size_t report_point = 0;  // t * N + n: the point's index in the report's values
  const std::vector<ScoredBand>& bands;  // the forecast's bands at this point, in its order
  bool scaled = false;  // the forecast's scaler applied: raw = value * std + mean
  double mean = 0;
  double std = 1;
};

// The ScoredPoint of `forecast`'s point (variable, 0-based step k) against `actual` (raw
// units). *bands is filled and referenced by the result.
ScoredPoint scored_point_of(const IssuedForecast& forecast, int64_t variable, int64_t k,
                            double actual, std::size_t report_point,
                            std::vector<ScoredBand>* bands);

// A keep begun (KeptForecasts::begin_keep) and not yet known to have landed.
class PendingKeep {
 public:
  virtual ~PendingKeep() = default;
  // keep()'s status, waiting for it when it is not known yet; *drops as keep()'s. Called
  // at most once.
  virtual Status wait(StoreDrops* drops) = 0;
};

class KeptForecasts {
 public:
  using ScoreSink = std::function<void(const ScoredPoint&)>;

  virtual ~KeptForecasts() = default;

  // Keeps `forecast`. REQUIRES: a series key, times increasing, values (and each band's
  // bounds) of K * F floats, scaler vectors K or none. UNAVAILABLE when a shared store
  // cannot be reached (nothing is kept).
  virtual Status keep(IssuedForecast forecast, StoreDrops* drops) = 0;
  // keep(), begun now and finished by the PendingKeep's wait(): the keeps a thread begins
  // before it waits on any of them may go together (the shared store sends them in one
  // round trip: a batch's forecasts). Until wait() returns the forecast may not be kept.
  // A PendingKeep destroyed unwaited still keeps its forecast. The default keeps at once.
  virtual std::unique_ptr<PendingKeep> begin_keep(IssuedForecast forecast);

  // Scores every finite point of `report` against the key's covering forecasts, calling
  // `score` once per (forecast, point) pair never scored before, and says in *outcome what
  // became of each point. REQUIRES: report.variable_names unique, report.timestamps
  // distinct. UNAVAILABLE when a shared store cannot be reached: then `score` was not
  // called and nothing was marked scored.
  virtual Status score(const ActualsReport& report, const ScoreSink& score, StoreDrops* drops,
                       ActualsOutcome* outcome) = 0;

  // The forecasts held now, when the store counts them (the in-process one does).
  virtual std::optional<std::size_t> held_entries() const = 0;
};

}  // namespace tsserve::server
