#pragma once
// The one model a version serves, of any family, on its device: what the server's wiring
// (app/version_loader.cpp) holds, so it needs no branch per family. Its config is read
// once, the server's options applied (served_model_config.h), and its family's definition
// (model_families.h) loads its forecaster (model/forecasting's Forecaster: config, device,
// threads, kernels, bytes) and makes its batch processors.
//
// Thread safety: const members may be called from any thread once load() returned.
//
// No LibTorch in this header: a family's forecast calls are behind its processors.

#include <memory>

#include "server/batching/dynamic_batcher.h"
#include "server/config/server_config.h"
#include "server/families/model_family_definition.h"
#include "server/observability/server_metrics.h"
#include "server/request/model_shape.h"
#include "server/runtime/metrics_observer.h"
#include "tsserve/model/forecaster.h"

namespace tsserve::server {

class ServedModel {
 public:
  // Loads options.model as its config's family says, moves it to the device and warms it
  // up. Throws model::ModelError (or std::exception) with a message for the operator.
  static std::unique_ptr<ServedModel> load(const ModelOptions& options,
                                           const model::ForecasterOptions& forecaster_options);

  // Config, device, threads, which forward serves, resident bytes.
  const model::Forecaster& forecaster() const { return *loaded_.forecaster; }
  // The codecs' view of the model (model_shape_of).
  const ModelShape& shape() const { return shape_; }

  // Keeps the version's metrics: the processors made after this report each batch to an
  // observer that feeds `series` (metrics_observer.h). At most once, before the processors.
  void observe(std::shared_ptr<ServerMetrics::VersionSeries> series);
  // The batchers the processors run in, whose queue depth the observer reports (no-op
  // without one). Once, before any batch runs.
  void watch(const DynamicBatcher* forecast, const DynamicBatcher* encode);

  // The processors of the model's family; they hold a reference to this object.
  DynamicBatcher::Processor forecast_processor() const { return loaded_.forecast(observer_.get()); }
  DynamicBatcher::Processor encode_processor() const { return loaded_.encode(observer_.get()); }

 private:
  explicit ServedModel(LoadedFamily loaded);

  LoadedFamily loaded_;  // the forecaster and its processors' factories
  ModelShape shape_;
  std::unique_ptr<MetricsObserver> observer_;  // null without metrics
};

}  // namespace tsserve::server
