// TimeXer's part in configs and loading, registered with the model library
// (model_family_rules.h, family_loading.h).
#include <ATen/ATen.h>

#include "tsserve/model/family_loading.h"
#include "tsserve/model/model_error.h"
#include "tsserve/model/model_family_rules.h"
#include "tsserve/model/timexer_checkpoint.h"
#include "tsserve/model/timexer_family.h"

namespace tsserve::model {
namespace {

void read_timexer_keys(const ConfigKeys& keys, ModelConfig& config) {
  keys.read_choice(
      "features", config.features,
      {{"M", ForecastFeatures::kM}, {"S", ForecastFeatures::kS}, {"MS", ForecastFeatures::kMS}});
  config.c_out = config.enc_in;  // TSLib passes it; TimeXer's forecast ignores it
  keys.read_int("c_out", config.c_out, false);
  keys.read_flag("use_norm", config.use_norm);
  if (!config.norm) config.norm = FinalNorm::kLayer;
}

std::string check_timexer(const ModelConfig& c) {
  if (c.enc_in < 1) {
    return "'enc_in' is required for a TimeXer (the variables it was trained on, >= 1), got " +
           std::to_string(c.enc_in);
  }
  std::string error = size_in_range_error("enc_in", c.enc_in);
  if (!error.empty()) return error;
  if (c.patch_len < 1 || c.patch_len > c.seq_len) {
    return "'patch_len' must be in [1, seq_len = " + std::to_string(c.seq_len) +
           "] (TimeXer cuts seq_len / patch_len non-overlapping patches), got " +
           std::to_string(c.patch_len);
  }
  if (c.features == ForecastFeatures::kS && c.enc_in != 1) {
    return "'features' \"S\" forecasts one variable from itself: 'enc_in' must be 1, got " +
           std::to_string(c.enc_in);
  }
  if (c.attention != AttentionKind::kFull) {
    return "'attention' must be \"full\" for a TimeXer (TSLib's TimeXer has FullAttention only)";
  }
  if (c.norm && *c.norm != FinalNorm::kLayer) {
    return "'norm' must be \"layer\" for a TimeXer (TSLib's final LayerNorm), got \"" +
           to_string(*c.norm) + "\"";
  }
  if (c.calendar_tokens && c.embed != "timeF") {
    return "'embed' must be \"timeF\" for a TimeXer with calendar tokens (TSLib's scaled time "
           "features, embedded as covariate tokens), got \"" +
           c.embed + "\"";
  }
  try {
    time_features_for_freq(c.freq);
  } catch (const ModelError& e) {
    return e.what();
  }
  if (timexer_covariate_count(c, c.enc_in) < 1) {
    return "a TimeXer with 'features' \"" + to_string(c.features) +
           "\" and 'enc_in' 1 needs calendar tokens ('calendar_tokens': true): its target "
           "attends to covariate tokens, and it has no other (TSLib's module fails without any)";
  }
  return "";
}

void summarise_timexer(const ModelConfig& c, std::ostream& out) {
  summarise_sizes(c, out, " patch_len=" + std::to_string(c.patch_len));
  out << " features=" << to_string(c.features) << " use_norm=" << (c.use_norm ? 1 : 0);
  if (c.calendar_tokens) {
    out << " embed=" << c.embed << " freq=" << c.freq << " (" << timexer_calendar_features(c).size()
        << " calendar tokens)";
  } else {
    out << " calendar_tokens=false";
  }
  out << " enc_in=" << c.enc_in;
}

bool reads_calendar(const ModelConfig& c) { return !timexer_calendar_features(c).empty(); }

void check_timexer_shapes(const ShapeCheck& check, const ModelConfig& c) {
  const std::string d = "d_model=" + std::to_string(c.d_model);
  check.expect("en_embedding.value_embedding.weight", {c.d_model, c.patch_len},
               d + ", patch_len=" + std::to_string(c.patch_len));
  check.expect(
      "en_embedding.glb_token", {1, timexer_endogenous_count(c, c.enc_in), 1, c.d_model},
      "features=" + to_string(c.features) + ", enc_in=" + std::to_string(c.enc_in) + ", " + d);
  check.expect("ex_embedding.value_embedding.weight", {c.d_model, c.seq_len},
               d + ", seq_len=" + std::to_string(c.seq_len));
  for (int64_t i = 0; i < c.e_layers; ++i) {
    const std::string layer = "encoder.layers." + std::to_string(i) + ".";
    const std::string fields = "e_layers=" + std::to_string(c.e_layers) + ", " + d;
    check.expect(layer + "self_attention.query_projection.weight", {c.d_model, c.d_model}, fields);
    check.expect(layer + "cross_attention.query_projection.weight", {c.d_model, c.d_model}, fields);
    check.expect(layer + "conv1.weight", {c.d_ff, c.d_model, 1},
                 fields + ", d_ff=" + std::to_string(c.d_ff));
  }
  check.expect("head.linear.weight", {c.pred_len, c.d_model * timexer_token_count(c)},
               "pred_len=" + std::to_string(c.pred_len) + ", " + d +
                   " x (seq_len / patch_len + 1 = " + std::to_string(timexer_token_count(c)) +
                   " tokens)");
}

// Each window a sample of its variables, with the calendar rows of its input steps.
WindowForecast open_timexer_windows(const std::string& checkpoint, const ModelConfig& config) {
  return sample_window_forecast(load_timexer(checkpoint, config), config.seq_len);
}

ModelFamilyRules timexer_rules() {
  ModelFamilyRules rules;
  rules.name = kTimeXerFamily;
  rules.read_keys = read_timexer_keys;
  rules.check = check_timexer;
  rules.summarise = summarise_timexer;
  rules.reads_timestamps = reads_calendar;
  // Its endogenous variables' learned global tokens.
  rules.checkpoint_markers = {"en_embedding.glb_token"};
  return rules;
}

const ModelFamilyRegistrar kRules(timexer_rules());
const FamilyLoadingRegistrar kLoading({kTimeXerFamily, check_timexer_shapes, open_timexer_windows});

}  // namespace
}  // namespace tsserve::model
