#include "server/observability/model_version_metrics.h"

namespace tsserve::server {

ModelVersionMetrics::ModelVersionMetrics(prometheus::Registry& registry)
    : state_(&prometheus::BuildGauge()
                  .Name("tsserve_model_state")
                  .Help("1 for each model version's current state (loading, ready, failed, "
                        "unloading); series are removed with the version.")
                  .Register(registry)),
      load_seconds_(&prometheus::BuildGauge()
                         .Name("tsserve_model_load_seconds")
                         .Help("How long loading, validating and warming up the version took.")
                         .Register(registry)),
      resident_bytes_(&prometheus::BuildGauge()
                           .Name("tsserve_model_resident_bytes")
                           .Help("Bytes of the version's parameters and buffers.")
                           .Register(registry)),
      load_failures_(&prometheus::BuildCounter()
                          .Name("tsserve_model_load_failures_total")
                          .Help("Model version loads that failed, by model.")
                          .Register(registry)) {}

void ModelVersionMetrics::set_version(const std::string& model, int64_t version,
                                      const std::string& state, double load_seconds,
                                      int64_t resident_bytes) {
  const std::string number = std::to_string(version);
  MutexLock lock(mutex_);
  Series& series = versions_[{model, version}];
  if (series.state != state) {
    if (series.state_gauge) state_->Remove(series.state_gauge);
    series.state = state;
    series.state_gauge = &state_->Add({{"model", model}, {"version", number}, {"state", state}});
    series.state_gauge->Set(1.0);
  }
  if (load_seconds > 0) {
    if (!series.load_seconds)
      series.load_seconds = &load_seconds_->Add({{"model", model}, {"version", number}});
    series.load_seconds->Set(load_seconds);
  }
  if (!series.resident_bytes)
    series.resident_bytes = &resident_bytes_->Add({{"model", model}, {"version", number}});
  series.resident_bytes->Set(static_cast<double>(resident_bytes));
}

void ModelVersionMetrics::count_load_failure(const std::string& model) {
  load_failures_->Add({{"model", model}}).Increment();
}

void ModelVersionMetrics::remove_version(const std::string& model, int64_t version) {
  MutexLock lock(mutex_);
  auto it = versions_.find({model, version});
  if (it == versions_.end()) return;
  remove_locked(it->second);
  versions_.erase(it);
}

void ModelVersionMetrics::remove_locked(Series& series) {
  if (series.state_gauge) state_->Remove(series.state_gauge);
  if (series.load_seconds) load_seconds_->Remove(series.load_seconds);
  if (series.resident_bytes) resident_bytes_->Remove(series.resident_bytes);
}

}  // namespace tsserve::server
