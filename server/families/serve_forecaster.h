#pragma once
// A family's forecaster with its Forecast processor (the family's own) and the Encode
// processor every family shares (encode_batches.h), both over that forecaster: what each
// family's definition returns from load().

#include <memory>
#include <utility>

#include "server/families/model_family_definition.h"
#include "server/runtime/encode_batches.h"

namespace tsserve::server {

template <typename Forecaster>
LoadedFamily serve_forecaster(std::unique_ptr<Forecaster> forecaster,
                              DynamicBatcher::Processor (*forecast_processor)(const Forecaster&,
                                                                              BatchObserver*)) {
  const Forecaster& served = *forecaster;  // on the heap: moving the pointer keeps it
  LoadedFamily loaded;
  loaded.forecast = [&served, forecast_processor](BatchObserver* observer) {
    return forecast_processor(served, observer);
  };
  loaded.encode = [&served](BatchObserver* observer) { return encode_processor(served, observer); };
  loaded.forecaster = std::move(forecaster);
  return loaded;
}

}  // namespace tsserve::server
