#include "tsserve/model/timexer_family.h"

namespace tsserve::model {

std::vector<TimeFeature> timexer_calendar_features(const ModelConfig& config) {
  if (config.family != kTimeXerFamily || !config.calendar_tokens) return {};
  return time_features_for_freq(config.freq);
}

bool timexer_forecasts_every_variable(const ModelConfig& config) {
  return config.features == ForecastFeatures::kM;
}

int64_t timexer_endogenous_count(const ModelConfig& config, int64_t variables) {
  return timexer_forecasts_every_variable(config) ? variables : 1;
}

int64_t timexer_covariate_count(const ModelConfig& config, int64_t variables) {
  const int64_t covariate_variables =
      timexer_forecasts_every_variable(config) ? variables : variables - 1;
  return covariate_variables + static_cast<int64_t>(timexer_calendar_features(config).size());
}

}  // namespace tsserve::model
