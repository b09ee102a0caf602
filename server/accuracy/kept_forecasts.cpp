#include "server/accuracy/kept_forecasts.h"

#include <utility>

namespace tsserve::server {
namespace {

// A keep that was made when it was begun.
class KeptAlready final : public PendingKeep {
 public:
  KeptAlready(Status status, StoreDrops drops) : status_(std::move(status)), drops_(drops) {}
  Status wait(StoreDrops* drops) override {
    *drops = drops_;
    return status_;
  }

 private:
  const Status status_;
  const StoreDrops drops_;
};

}  // namespace

std::unique_ptr<PendingKeep> KeptForecasts::begin_keep(IssuedForecast forecast) {
  StoreDrops drops;
  Status status = keep(std::move(forecast), &drops);
  return std::make_unique<KeptAlready>(std::move(status), drops);
}

ScoredPoint scored_point_of(const IssuedForecast& forecast, int64_t variable, int64_t k,
                            double actual, std::size_t report_point,
                            std::vector<ScoredBand>* bands) {
  const auto at = static_cast<std::size_t>(variable * forecast.steps() + k);
  bands->clear();
  for (const IntervalBand& band : forecast.bands) {
    bands->push_back({band.level, band.lower[at], band.upper[at]});
  }
  ScoredPoint point{forecast.series_key, forecast.model, forecast.version, variable, k + 1, forecast.values[at],
                    forecast.to_model_space(variable, actual), report_point, *bands};
  if (!forecast.scaler_mean.empty()) {
    point.scaled = true;
    point.mean = forecast.scaler_mean[static_cast<std::size_t>(variable)];
    point.std = forecast.scaler_std[static_cast<std::size_t>(variable)];
  }
  return point;
}

}  // namespace tsserve::server
