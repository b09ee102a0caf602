#pragma once
// A family's FamilyRuntime over its runner: every family's runtime is the same forwarding,
// so each family writes only its runner and its Forecast batch processor. A Runner has
// Runner(Model, const RunnerOptions&), config(), device_name(), threads(), kernels() and
// encode(tokens, need_attention) (for the shared Encode processor).

#include <memory>
#include <utility>

#include "server/runtime/encode_batches.h"
#include "server/runtime/family_runtime.h"
#include "server/runtime/module_bytes.h"

namespace tsserve::server {

template <typename Runner>
class RunnerRuntime final : public FamilyRuntime {
 public:
  using ForecastProcessor = DynamicBatcher::Processor (*)(const Runner&, BatchObserver*);

  template <typename Model>
  RunnerRuntime(Model model, const RunnerOptions& options, ForecastProcessor forecast)
      : resident_bytes_(module_bytes(*model)),
        runner_(std::move(model), options),
        forecast_(forecast) {}

  const model::ModelConfig& config() const override { return runner_.config(); }
  const std::string& device_name() const override { return runner_.device_name(); }
  int threads() const override { return runner_.threads(); }
  const ServingKernels& kernels() const override { return runner_.kernels(); }
  int64_t resident_bytes() const override { return resident_bytes_; }
  DynamicBatcher::Processor forecast_processor(BatchObserver* observer) const override {
    return forecast_(runner_, observer);
  }
  DynamicBatcher::Processor encode_processor(BatchObserver* observer) const override {
    return server::encode_processor(runner_, observer);
  }

 private:
  int64_t resident_bytes_;  // measured before the runner takes the model
  Runner runner_;
  ForecastProcessor forecast_;
};

// The runtime of `Runner` over `model`, as a definition's load() returns it.
template <typename Runner, typename Model>
std::unique_ptr<FamilyRuntime> make_runner_runtime(
    Model model, const RunnerOptions& options,
    typename RunnerRuntime<Runner>::ForecastProcessor forecast) {
  return std::make_unique<RunnerRuntime<Runner>>(std::move(model), options, forecast);
}

}  // namespace tsserve::server
