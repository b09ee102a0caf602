#pragma once
// One loaded model of some family, on its device: what ServedModel (families/) holds,
// whatever the family, so that nothing above it (app/, registry/, call/) names one.
// Each family implements it in its own folder, server/families/<family>/, and registers
// its loader in server/families/model_families.cpp.
//
// Thread safety: const members may be called from any thread once the runtime is built;
// the processors run on the batchers' workers, several at once.
//
// No LibTorch in this header, so the server's wiring compiles without it.

#include <cstdint>
#include <string>

#include "server/batching/dynamic_batcher.h"
#include "server/runtime/batch_observer.h"
#include "server/runtime/runner_options.h"
#include "tsserve/model/model_config.h"

namespace tsserve::server {

class FamilyRuntime {
 public:
  virtual ~FamilyRuntime() = default;

  virtual const model::ModelConfig& config() const = 0;
  // "cpu" or "cuda:N".
  virtual const std::string& device_name() const = 0;
  virtual int threads() const = 0;
  // Which forward serves forecasts and, when the fused kernels were asked for and do not
  // serve, why.
  virtual const ServingKernels& kernels() const = 0;
  // Bytes of the model's parameters and buffers (what a repository's memory bound counts);
  // repacked weights and LibTorch's caches are not included.
  virtual int64_t resident_bytes() const = 0;

  // What a batcher worker runs on a closed Forecast or Encode batch. They hold a reference
  // to this object, which must outlive their batchers.
  virtual DynamicBatcher::Processor forecast_processor(BatchObserver* observer) const = 0;
  virtual DynamicBatcher::Processor encode_processor(BatchObserver* observer) const = 0;
};

}  // namespace tsserve::server
