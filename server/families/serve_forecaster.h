#pragma once
// A family's forecaster as a ServedModel: its Forecast processor (the family's own) and
// the Encode processor every family shares (encode_batches.h), both over the forecaster
// the ServedModel then owns. What each family's definition returns from load().

#include <memory>
#include <utility>

#include "server/families/served_model.h"
#include "server/runtime/encode_batches.h"

namespace tsserve::server {

template <typename Forecaster>
std::unique_ptr<ServedModel> serve_forecaster(
    std::unique_ptr<Forecaster> forecaster,
    DynamicBatcher::Processor (*forecast_processor)(const Forecaster&, BatchObserver*)) {
  const Forecaster& served = *forecaster;  // on the heap: moving the pointer keeps it
  return std::make_unique<ServedModel>(
      std::move(forecaster),
      [&served, forecast_processor](BatchObserver* observer) {
        return forecast_processor(served, observer);
      },
      [&served](BatchObserver* observer) { return encode_processor(served, observer); });
}

}  // namespace tsserve::server
