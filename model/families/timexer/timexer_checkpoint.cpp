#include "tsserve/model/timexer_checkpoint.h"

#include "tsserve/model/checkpoint_file.h"
#include "tsserve/model/family_loading.h"

namespace tsserve::model {

StateDict normalise_timexer_keys(StateDict state, const ModelConfig& config,
                                 const std::string& origin, const std::string& context) {
  state = strip_parallel_prefix(std::move(state));
  check_family_of_keys(state, config, origin, context);
  return state;
}

TimeXer load_timexer(const std::string& checkpoint_path, ModelConfig config,
                     const std::string& config_origin) {
  const std::string context = loading_context(config_origin, config);
  StateDict state = normalise_timexer_keys(read_checkpoint_file(checkpoint_path), config,
                                           checkpoint_path, context);
  return build_from_state<TimeXer>(state, config, checkpoint_path, context);
}

TimeXer load_timexer(const std::string& checkpoint_path) {
  const std::string config_path = config_path_for(checkpoint_path);
  return load_timexer(checkpoint_path, load_model_config(config_path), config_path);
}

}  // namespace tsserve::model
