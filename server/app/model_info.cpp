#include "server/app/model_info.h"

#include "tsserve/model/time_marks.h"

namespace tsserve::server {

v1::ModelInfo model_info_of(const model::ModelConfig& config, const ServedModel& served,
                            const ServerConfig& server) {
  v1::ModelInfo info;
  info.set_name(config.name);
  info.set_version(config.version);
  info.set_seq_len(static_cast<int32_t>(config.seq_len));
  info.set_pred_len(static_cast<int32_t>(config.pred_len));
  info.set_d_model(static_cast<int32_t>(config.d_model));
  info.set_n_heads(static_cast<int32_t>(config.n_heads));
  info.set_e_layers(static_cast<int32_t>(config.e_layers));
  info.set_d_ff(static_cast<int32_t>(config.d_ff));
  // What the family does with a request, from the codecs' view of it (no branch on the
  // family here: model_families.h).
  const ModelShape& shape = served.shape();
  info.set_family(shape.family);
  info.set_enc_in(static_cast<int32_t>(config.enc_in));
  info.set_any_variable_count(shape.unit == SampleUnit::kSample && shape.any_variable_count);
  for (model::TimeFeature feature : shape.calendar) {
    info.add_calendar_features(model::time_feature_name(feature));
  }
  info.set_maps_per_sample(shape.maps_per_sample());
  info.set_d_layers(static_cast<int32_t>(shape.d_layers));
  info.set_label_len(static_cast<int32_t>(shape.label_len));
  info.set_features(shape.features);
  if (shape.covariate_maps) {
    info.set_covariate_tokens(static_cast<int32_t>(shape.covariate_tokens()));
    info.set_covariate_variables(static_cast<int32_t>(shape.covariate_variables));
  }
  info.set_timestamps_required(shape.time_inputs != TimeInputs::kNone);
  if (shape.time_inputs == TimeInputs::kStepMarks) {
    for (const std::string& mark : model::mark_names(shape.mark_embed, shape.mark_freq))
      info.add_time_marks(mark);
  }
  info.set_patch_len(static_cast<int32_t>(shape.patch_len));
  info.set_stride(static_cast<int32_t>(shape.stride));
  info.set_patch_count(static_cast<int32_t>(shape.patch_count));
  // 0 when the side depends on the request's N.
  const bool depends_on_n = shape.map_sides.empty() && !shape.fixes_variable_count();
  info.set_attention_tokens(
      depends_on_n ? 0 : static_cast<int32_t>(shape.attention_tokens(shape.enc_in)));
  const bool prob = config.attention == model::AttentionKind::kProb;
  info.set_attention(prob ? v1::ATTENTION_KIND_PROB : v1::ATTENTION_KIND_FULL);
  info.set_factor(static_cast<int32_t>(config.factor));
  info.set_prob_layout(config.prob_layout == model::ProbLayout::kTslib ? v1::PROB_LAYOUT_TSLIB
                                                                       : v1::PROB_LAYOUT_CANONICAL);
  info.set_device(served.forecaster().device_name());
  info.set_intra_op_threads(served.forecaster().threads());
  info.set_forward_kernels(served.forecaster().kernels().name);
  info.set_forward_fallback_reason(served.forecaster().kernels().fallback_reason);
  if (config.scaler) {
    for (const auto& column : config.scaler->columns) info.add_scaler_columns(column);
  }
  if (config.calibration) {
    const model::Calibration& c = *config.calibration;
    for (double level : c.levels) info.add_calibration_levels(level);
    info.set_calibration_source(c.dataset + " split " + c.split + ", rows [" +
                                std::to_string(c.row_begin) + ", " + std::to_string(c.row_end) +
                                "), " + std::to_string(c.windows) + " windows");
  }
  info.set_max_batch_rows(server.batching.max_batch_rows);
  info.set_max_encode_tokens(server.batching.max_encode_tokens);
  // The fused kernels are batch-invariant by construction, whatever the option says;
  // LibTorch's operators are with the option on the CPU (each row or sample a pass of its
  // own, model/layers/include/tsserve/model/unit_passes.h), never on a GPU.
  const bool fused = served.forecaster().kernels().name != "torch";
  const bool on_cpu = served.forecaster().device_name() == "cpu";
  info.set_batch_invariant(fused || (config.batch_invariant && on_cpu));
  info.set_ready(true);
  return info;
}

}  // namespace tsserve::server
