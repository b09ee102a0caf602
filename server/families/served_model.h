#pragma once
// The one model this process serves, of either family, on its device: what the server's
// wiring (app/inference_server.cpp) holds, so it needs no branch per family. The config's
// "model" field picks the runner (ModelRunner for PatchTST, ITransformerRunner) and with
// it the batch processors.
//
// Thread safety: const members may be called from any thread once load() returned.
//
// No LibTorch in this header: the runners are declared only, so the server's wiring
// (app/) compiles without it.

#include <cstdint>
#include <memory>
#include <string>

#include "server/batching/dynamic_batcher.h"
#include "server/config/server_config.h"
#include "server/runtime/batch_observer.h"
#include "server/runtime/runner_options.h"
#include "tsserve/model/model_config.h"

namespace tsserve::server {

class ModelRunner;
class ITransformerRunner;

class ServedModel {
 public:
  // Loads options.model as its config's family says, moves it to the device and warms it
  // up. Throws model::ModelError (or std::exception) with a message for the operator.
  static std::unique_ptr<ServedModel> load(const ModelOptions& options,
                                           const RunnerOptions& runner_options);
  ~ServedModel();

  const model::ModelConfig& config() const;
  const std::string& device_name() const;
  int threads() const;
  // Which forward serves forecasts and why a fallback happened (PatchTST: the runner's;
  // iTransformer: always LibTorch, the fused kernels being PatchTST's).
  const ServingKernels& kernels() const;
  // Bytes of the model's parameters and buffers (what a repository's memory bound
  // counts); the fused kernels' repacked weights and LibTorch's caches are not included.
  int64_t resident_bytes() const { return resident_bytes_; }

  // The processors of the model's family; they hold a reference to this object.
  DynamicBatcher::Processor forecast_processor(BatchObserver* observer) const;
  DynamicBatcher::Processor encode_processor(BatchObserver* observer) const;

 private:
  ServedModel() = default;
  std::unique_ptr<ModelRunner> patchtst_;           // exactly one of the two is set
  std::unique_ptr<ITransformerRunner> itransformer_;
  ServingKernels itransformer_kernels_;
  int64_t resident_bytes_ = 0;
};

}  // namespace tsserve::server
