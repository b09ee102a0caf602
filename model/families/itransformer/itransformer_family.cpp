#include "tsserve/model/itransformer_family.h"

namespace tsserve::model {

std::vector<TimeFeature> calendar_features(const ModelConfig& config) {
  if (config.family != kITransformerFamily || !config.calendar_tokens) return {};
  return time_features_for_freq(config.freq);
}

}  // namespace tsserve::model
