#include "server/app/model_info.h"

namespace tsserve::server {

v1::ModelInfo model_info_of(const model::ModelConfig& config, const ModelRunner& runner,
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
  info.set_patch_len(static_cast<int32_t>(config.patch_len));
  info.set_stride(static_cast<int32_t>(config.stride));
  info.set_patch_count(static_cast<int32_t>(config.patch_count()));
  const bool prob = config.attention == model::AttentionKind::kProb;
  info.set_attention(prob ? v1::ATTENTION_KIND_PROB : v1::ATTENTION_KIND_FULL);
  info.set_factor(static_cast<int32_t>(config.factor));
  info.set_prob_layout(config.prob_layout == model::ProbLayout::kTslib ? v1::PROB_LAYOUT_TSLIB
                                                                       : v1::PROB_LAYOUT_CANONICAL);
  info.set_device(runner.device_name());
  info.set_intra_op_threads(runner.threads());
  info.set_forward_kernels(runner.kernels().name);
  info.set_forward_fallback_reason(runner.kernels().fallback_reason);
  if (config.scaler) {
    for (const auto& column : config.scaler->columns) info.add_scaler_columns(column);
  }
  info.set_max_batch_rows(server.batching.max_batch_rows);
  info.set_max_encode_tokens(server.batching.max_encode_tokens);
  // The fused kernels are batch-invariant by construction, whatever the option says.
  info.set_batch_invariant(config.batch_invariant || runner.kernels().name != "torch");
  info.set_ready(true);
  return info;
}

}  // namespace tsserve::server
