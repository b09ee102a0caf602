// LinearProbe's part in configs and loading, registered with the model library
// (model_family_rules.h, family_loading.h), as every family's folder registers its own.
#include <ATen/ATen.h>

#include "tsserve/model/family_loading.h"
#include "tsserve/model/linear_probe.h"
#include "tsserve/model/model_family_rules.h"

namespace tsserve::model {
namespace {

void check_linear_probe_shapes(const ShapeCheck& check, const ModelConfig& c) {
  check.expect("linear.weight", {c.pred_len, c.seq_len},
               "pred_len=" + std::to_string(c.pred_len) + ", seq_len=" + std::to_string(c.seq_len));
}

// Every variable of every window as a row.
WindowForecast open_linear_probe_windows(const std::string& checkpoint, const ModelConfig& config) {
  LinearProbe probe = load_linear_probe(checkpoint, config);
  return [probe](const at::Tensor& series, const std::vector<std::vector<int64_t>>&) mutable {
    const int64_t B = series.size(0), C = series.size(1), T = series.size(2);
    return probe->forward(series.reshape({B * C, T})).reshape({B, C, -1}).transpose(1, 2);
  };
}

ModelFamilyRules linear_probe_rules() {
  ModelFamilyRules rules;
  rules.name = kLinearProbeFamily;
  rules.checkpoint_markers = {"linear.weight"};
  return rules;
}

const ModelFamilyRegistrar kRules(linear_probe_rules());
const FamilyLoadingRegistrar kLoading({kLinearProbeFamily, check_linear_probe_shapes,
                                       open_linear_probe_windows});

}  // namespace
}  // namespace tsserve::model
