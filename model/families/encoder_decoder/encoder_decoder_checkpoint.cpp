#include "tsserve/model/encoder_decoder_checkpoint.h"

#include "tsserve/model/checkpoint_file.h"
#include "tsserve/model/family_loading.h"
#include "tsserve/model/model_error.h"

namespace tsserve::model {

StateDict normalise_encoder_decoder_keys(StateDict state, const ModelConfig& config,
                                         const std::string& origin, const std::string& context) {
  state = strip_parallel_prefix(std::move(state));
  check_family_of_keys(state, config, origin, context);
  const std::string suffix = context.empty() ? "" : " (" + context + ")";
  const bool distilling = has_state_key(state, kEncoderDecoderDistilMarker);
  if (distilling && !config.distil) {
    throw ModelError("checkpoint " + origin + ": has Informer's distilling layers (key '" +
                     kEncoderDecoderDistilMarker + "') but the config's 'distil' is false" +
                     suffix + "; set \"distil\": true");
  }
  if (!distilling && config.distil && config.e_layers > 1) {
    throw ModelError("checkpoint " + origin + ": the config's 'distil' is true (e_layers=" +
                     std::to_string(config.e_layers) +
                     ") but the checkpoint has no distilling layers (no key '" +
                     kEncoderDecoderDistilMarker + "')" + suffix + "; set \"distil\": false");
  }
  return state;
}

EncoderDecoder load_encoder_decoder(const std::string& checkpoint_path, ModelConfig config,
                                    const std::string& config_origin) {
  const std::string context = loading_context(config_origin, config);
  StateDict state = normalise_encoder_decoder_keys(read_checkpoint_file(checkpoint_path), config,
                                                   checkpoint_path, context);
  return build_from_state<EncoderDecoder>(state, config, checkpoint_path, context);
}

EncoderDecoder load_encoder_decoder(const std::string& checkpoint_path) {
  const std::string config_path = config_path_for(checkpoint_path);
  return load_encoder_decoder(checkpoint_path, load_model_config(config_path), config_path);
}

}  // namespace tsserve::model
