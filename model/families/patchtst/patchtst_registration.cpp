// PatchTST's part in configs and loading, registered with the model library
// (model_family_rules.h, family_loading.h).
#include <ATen/ATen.h>

#include "tsserve/model/family_loading.h"
#include "tsserve/model/model_family_rules.h"
#include "tsserve/model/patchtst_checkpoint.h"
#include "tsserve/model/patchtst_family.h"

namespace tsserve::model {
namespace {

std::string check_patchtst(const ModelConfig& c) {
  if (c.seq_len + c.stride < c.patch_len) {
    return "'patch_len' (" + std::to_string(c.patch_len) + ") must be at most seq_len + stride (" +
           std::to_string(c.seq_len + c.stride) + ")";
  }
  // Checked here, not first at the first forecast (or the warm-up): the table is part of
  // the weights, so such a config describes no model that can run.
  if (c.patch_count() > kMaxPositions) {
    return "seq_len " + std::to_string(c.seq_len) + ", patch_len " + std::to_string(c.patch_len) +
           " and stride " + std::to_string(c.stride) + " give " + std::to_string(c.patch_count()) +
           " patches; the position embedding covers at most " + std::to_string(kMaxPositions);
  }
  return "";
}

void summarise_patchtst(const ModelConfig& c, std::ostream& out) {
  summarise_sizes(c, out);
  out << " patch_len=" << c.patch_len << " stride=" << c.stride << " (P=" << c.patch_count() << ")";
}

void check_patchtst_shapes(const ShapeCheck& check, const ModelConfig& c) {
  const std::string d = "d_model=" + std::to_string(c.d_model);
  check.expect("patch_embedding.value_embedding.weight", {c.d_model, c.patch_len},
               d + ", patch_len=" + std::to_string(c.patch_len));
  check.expect_encoder_layers(c);
  check.expect("head.linear.weight", {c.pred_len, c.d_model * c.patch_count()},
               "pred_len=" + std::to_string(c.pred_len) + ", " + d + " x " +
                   std::to_string(c.patch_count()) + " patches (seq_len=" +
                   std::to_string(c.seq_len) + ", patch_len=" + std::to_string(c.patch_len) +
                   ", stride=" + std::to_string(c.stride) + ")");
}

// Every variable of every window as a row of its own (channel independence).
WindowForecast open_patchtst_windows(const std::string& checkpoint, const ModelConfig& config) {
  PatchTST patchtst = load_patchtst(checkpoint, config);
  return [patchtst](const at::Tensor& series, const std::vector<std::vector<int64_t>>&) mutable {
    const int64_t B = series.size(0), C = series.size(1), T = series.size(2);
    const int64_t F = patchtst->config().pred_len;
    return patchtst->forecast_rows(series.reshape({B * C, T}))
        .forecast.reshape({B, C, F})
        .transpose(1, 2);
  };
}

ModelFamilyRules patchtst_rules() {
  ModelFamilyRules rules;
  rules.name = kPatchTSTFamily;
  rules.check = check_patchtst;
  rules.summarise = summarise_patchtst;
  // The Linear patch embedding, and the Conv1d one of TSLib before 2023-03 (refused by
  // normalise_patchtst_keys with its own message).
  rules.checkpoint_markers = {"patch_embedding.value_embedding.weight",
                              "patch_embedding.value_embedding.tokenConv.weight"};
  return rules;
}

const ModelFamilyRegistrar kRules(patchtst_rules());
const FamilyLoadingRegistrar kLoading({kPatchTSTFamily, check_patchtst_shapes,
                                       open_patchtst_windows});

}  // namespace
}  // namespace tsserve::model
