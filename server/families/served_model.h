#pragma once
// The one model a version serves, of any family, on its device: what the server's wiring
// (app/version_loader.cpp) holds, so it needs no branch per family. Its config is read
// once, the server's options applied (served_model_config.h), and its family's definition
// (model_families.h) loads it.
//
// Thread safety: const members may be called from any thread once load() returned.
//
// No LibTorch in this header: the families' runtimes are behind FamilyRuntime.

#include <cstdint>
#include <memory>
#include <string>

#include "server/batching/dynamic_batcher.h"
#include "server/config/server_config.h"
#include "server/request/model_shape.h"
#include "server/runtime/batch_observer.h"
#include "server/runtime/family_runtime.h"
#include "server/runtime/runner_options.h"
#include "tsserve/model/model_config.h"

namespace tsserve::server {

class ServedModel {
 public:
  // Loads options.model as its config's family says, moves it to the device and warms it
  // up. Throws model::ModelError (or std::exception) with a message for the operator.
  static std::unique_ptr<ServedModel> load(const ModelOptions& options,
                                           const RunnerOptions& runner_options);

  const model::ModelConfig& config() const { return runtime_->config(); }
  // The codecs' view of the model (model_shape_of).
  const ModelShape& shape() const { return shape_; }
  const std::string& device_name() const { return runtime_->device_name(); }
  int threads() const { return runtime_->threads(); }
  // Which forward serves forecasts and why a fallback happened.
  const ServingKernels& kernels() const { return runtime_->kernels(); }
  // Bytes of the model's parameters and buffers (what a repository's memory bound
  // counts); the fused kernels' repacked weights and LibTorch's caches are not included.
  int64_t resident_bytes() const { return runtime_->resident_bytes(); }

  // The processors of the model's family; they hold a reference to this object.
  DynamicBatcher::Processor forecast_processor(BatchObserver* observer) const {
    return runtime_->forecast_processor(observer);
  }
  DynamicBatcher::Processor encode_processor(BatchObserver* observer) const {
    return runtime_->encode_processor(observer);
  }

 private:
  ServedModel() = default;
  std::unique_ptr<FamilyRuntime> runtime_;
  ModelShape shape_;
};

}  // namespace tsserve::server
