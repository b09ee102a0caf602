#include "tsserve/model/patchtst_checkpoint.h"

#include "tsserve/model/checkpoint_file.h"
#include "tsserve/model/family_loading.h"
#include "tsserve/model/model_error.h"

namespace tsserve::model {

StateDict normalise_patchtst_keys(StateDict state, ModelConfig& config, const std::string& origin,
                                  const std::string& context) {
  state = strip_parallel_prefix(std::move(state));
  check_family_of_keys(state, config, origin, context);
  if (has_state_key(state, "patch_embedding.value_embedding.tokenConv.weight")) {
    throw ModelError("checkpoint " + origin +
                     ": has a Conv1d token embedding (TSLib before 2023-03); tsserve serves "
                     "the Linear patch embedding (patch_embedding.value_embedding.weight)");
  }
  std::optional<FinalNorm> detected;
  if (has_state_key(state, "encoder.norm.1.weight")) detected = FinalNorm::kBatch;
  if (has_state_key(state, "encoder.norm.weight")) detected = FinalNorm::kLayer;
  if (!detected) {
    throw ModelError("checkpoint " + origin +
                     ": no final norm found (expected encoder.norm.1.weight for TSLib's "
                     "BatchNorm or encoder.norm.weight for the LayerNorm variant)");
  }
  if (config.norm && *config.norm != *detected) {
    throw ModelError("checkpoint " + origin + ": the config says norm \"" +
                     to_string(*config.norm) + "\" but the checkpoint holds the \"" +
                     to_string(*detected) + "\" variant's keys" +
                     (context.empty() ? "" : " (" + context + ")"));
  }
  config.norm = detected;
  return state;
}

PatchTST load_patchtst(const std::string& checkpoint_path, ModelConfig config,
                       const std::string& config_origin) {
  const std::string origin = config_origin.empty() ? "config" : "model config " + config_origin;
  StateDict state = normalise_patchtst_keys(read_checkpoint_file(checkpoint_path), config,
                                            checkpoint_path, origin);
  // The summary after the keys filled the norm.
  return build_from_state<PatchTST>(state, config, checkpoint_path,
                                    loading_context(config_origin, config));
}

PatchTST load_patchtst(const std::string& checkpoint_path) {
  const std::string config_path = config_path_for(checkpoint_path);
  return load_patchtst(checkpoint_path, load_model_config(config_path), config_path);
}

}  // namespace tsserve::model
