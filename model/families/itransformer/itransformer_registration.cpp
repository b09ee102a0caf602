// The iTransformer's part in configs and loading, registered with the model library
// (model_family_rules.h, family_loading.h).
#include <ATen/ATen.h>

#include "tsserve/model/family_loading.h"
#include "tsserve/model/itransformer_checkpoint.h"
#include "tsserve/model/itransformer_family.h"
#include "tsserve/model/model_error.h"
#include "tsserve/model/model_family_rules.h"

namespace tsserve::model {
namespace {

void read_itransformer_keys(const ConfigKeys&, ModelConfig& config) {
  if (!config.norm) config.norm = FinalNorm::kLayer;
}

std::string check_itransformer(const ModelConfig& c) {
  if (c.norm && *c.norm != FinalNorm::kLayer) {
    return "'norm' must be \"layer\" for an iTransformer (TSLib's final LayerNorm), got \"" +
           to_string(*c.norm) + "\"";
  }
  if (c.calendar_tokens && c.embed != "timeF") {
    return "'embed' must be \"timeF\" for an iTransformer with calendar tokens (TSLib's scaled "
           "time features), got \"" +
           c.embed + "\"";
  }
  try {
    time_features_for_freq(c.freq);
  } catch (const ModelError& e) {
    return e.what();
  }
  return "";
}

void summarise_itransformer(const ModelConfig& c, std::ostream& out) {
  summarise_sizes(c, out);
  if (c.calendar_tokens) {
    out << " embed=" << c.embed << " freq=" << c.freq << " (" << calendar_features(c).size()
        << " calendar tokens)";
  } else {
    out << " calendar_tokens=false";
  }
  out << (c.any_variable_count ? " variables=any" : " enc_in=" + std::to_string(c.enc_in));
}

bool reads_calendar(const ModelConfig& c) { return !calendar_features(c).empty(); }

void check_itransformer_shapes(const ShapeCheck& check, const ModelConfig& c) {
  const std::string d = "d_model=" + std::to_string(c.d_model);
  check.expect("enc_embedding.value_embedding.weight", {c.d_model, c.seq_len},
               d + ", seq_len=" + std::to_string(c.seq_len));
  check.expect_encoder_layers(c);
  check.expect("projection.weight", {c.pred_len, c.d_model},
               "pred_len=" + std::to_string(c.pred_len) + ", " + d);
}

// Each window a sample of its C variables, with the calendar rows of its input steps.
WindowForecast open_itransformer_windows(const std::string& checkpoint, const ModelConfig& config) {
  return sample_window_forecast(load_itransformer(checkpoint, config), config.seq_len);
}

ModelFamilyRules itransformer_rules() {
  ModelFamilyRules rules;
  rules.name = kITransformerFamily;
  rules.read_keys = read_itransformer_keys;
  rules.check = check_itransformer;
  rules.summarise = summarise_itransformer;
  rules.reads_timestamps = reads_calendar;
  // Its embedding: a Linear over a variable's whole window.
  rules.checkpoint_markers = {"enc_embedding.value_embedding.weight"};
  return rules;
}

const ModelFamilyRegistrar kRules(itransformer_rules());
const FamilyLoadingRegistrar kLoading({kITransformerFamily, check_itransformer_shapes,
                                       open_itransformer_windows});

}  // namespace
}  // namespace tsserve::model
