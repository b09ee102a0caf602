#pragma once
// The model config file that sits beside a checkpoint (JSON, TSLib/TFB argument names):
//
//   {"seq_len": 336, "pred_len": 96, "enc_in": 7, "d_model": 16, "n_heads": 4,
//    "e_layers": 3, "d_ff": 128, "patch_len": 16, "stride": 8, "factor": 3,
//    "activation": "gelu", "norm": "batch", "attention": "full",
//    "prob_layout": "canonical", "prob_seed": 0,
//    "name": "patchtst-etth1", "version": "1",
//    "scaler": {"columns": ["HUFL", ...], "mean": [...], "std": [...]}}
//
// Required: seq_len, pred_len, d_model, n_heads, e_layers, d_ff. The rest default as in
// TSLib (patch_len 16, stride 8, factor 1, gelu, full attention). "norm" ("batch" |
// "layer") may be left out: the checkpoint's keys decide. Unknown keys (TSLib's many
// training arguments, "training", "dropout", ...) are ignored.
//
// "model" names the family with TSLib's names: "PatchTST" (the default, so configs without
// the key keep working), "iTransformer", "Informer", "Transformer" or "TimeXer": any family
// the build registers (model_family_rules.h). The shared keys are read here; each family reads its
// own and checks them in its folder (model/families/<f>/). The fields stay one struct, as
// TSLib's arguments are one namespace every family reads from. An iTransformer reads
// patch_len/stride not at all, its final norm is always a LayerNorm, and it adds TSLib's calendar
// arguments:
//   "embed": "timeF" (the only encoding whose features iTransformer embeds as tokens here),
//   "freq": "h" (TSLib's frequency; time_features.h lists them and their features),
//   "calendar_tokens": true (TSLib's runner always passes x_mark; false for a model trained
//   without it, as iTransformer's own repository does for PEMS and Solar),
//   "any_variable_count": false (the server's N rule: a request must carry exactly enc_in
//   variables, the count the model was trained on; true lets any N >= 1 through, which the
//   weights allow, for a model trained on variable subsets).
//
// "Informer" and "Transformer" (TSLib's encoder-decoder families, encoder_decoder.h) add
// TSLib's arguments: "label_len" (required, 1..seq_len: the input steps the decoder starts
// from), "d_layers" (1), "dec_in" and "c_out" (enc_in; dec_in must equal enc_in, as the
// decoder's input is the encoder's last label_len steps), "features" ("M" forecasts every
// output column; "S" one variable in and out; "MS" only the last output column, TSLib's
// f_dim = -1), "embed" ("timeF" | "fixed" | "learned", time_marks.h), "freq", and "distil"
// (Informer only, default true; a Transformer has no distilling, so true is refused).
// Informer's attention defaults to "prob" with prob_layout "tslib" (TSLib's Informer was
// trained with that layout) and TSLib's factor (1 unless given; its scripts use 3); a
// Transformer's to "full".
//
// "TimeXer" (timexer.h) reads "features" ("MS": the last variable is the target, the others
// its covariates; "M": every variable forecast and a covariate; "S": one variable),
// "patch_len" (non-overlapping patches; stride is not read), "use_norm" (1, TSLib's flag),
// "enc_in" (required) and the iTransformer's calendar keys, whose features become
// covariate tokens.
//
// "calibration" (optional, written by tsserve-calibrate): calibration_json.h's block;
// quantiles are [levels][pred_len][scaler columns], so it requires "scaler".
// (With features "MS", only the target's column: ModelConfig::calibrated_columns.)

#include <algorithm>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "tsserve/model/architecture_choices.h"
#include "tsserve/model/calibration.h"
#include "tsserve/model/scaler_stats.h"
#include "tsserve/model/time_features.h"

namespace tsserve::model {

enum class AttentionKind { kFull, kProb };
// The family of a config without "model" (PatchTST, the only family before there were
// others; its summary line has no "model=" either).
inline constexpr char kDefaultModelFamily[] = "PatchTST";
// TSLib's `features`: which output columns are the forecast (encoder-decoder families).
enum class ForecastFeatures { kM, kS, kMS };

struct ModelConfig {
  // TSLib's name of the family (a registered one: model_family_rules.h).
  std::string family = kDefaultModelFamily;
  std::string name = "patchtst";
  std::string version = "0";
  int64_t seq_len = 0;
  int64_t pred_len = 0;
  // Shapes no weight. PatchTST: informative only (channel independence). iTransformer: the
  // variable count a request must carry unless any_variable_count.
  int64_t enc_in = 0;
  int64_t d_model = 0;
  int64_t n_heads = 0;
  int64_t e_layers = 0;
  int64_t d_ff = 0;
  int64_t patch_len = 16;
  int64_t stride = 8;
  int64_t factor = 1;
  Activation activation = Activation::kGelu;
  std::optional<FinalNorm> norm;  // absent: detected from the checkpoint's keys
  AttentionKind attention = AttentionKind::kFull;
  ProbLayout prob_layout = ProbLayout::kCanonical;
  uint64_t prob_seed = 0;
  // Serving option, not a property of the weights: see row_linear.h.
  bool batch_invariant = true;
  std::optional<ScalerStats> scaler;
  // iTransformer's calendar tokens (TSLib's embed/freq); unused by PatchTST.
  std::string embed = "timeF";
  std::string freq = "h";
  bool calendar_tokens = true;
  // iTransformer only: serve any number of variables, not just enc_in (see above).
  bool any_variable_count = false;
  // Encoder-decoder families (Informer, Transformer) only; see above. dec_in and c_out are
  // enc_in when the config leaves them out.
  int64_t label_len = 0;
  int64_t d_layers = 1;
  int64_t dec_in = 0;
  int64_t c_out = 0;
  bool distil = false;
  ForecastFeatures features = ForecastFeatures::kM;
  // TSLib's use_norm (TimeXer; the iTransformer always normalises): the non-stationary
  // normalisation of each input series (instance_norm.h) before the network, undone after.
  // TSLib's default is 1.
  bool use_norm = true;
  // Split-conformal quantiles for prediction intervals (calibration.h), per scaler column;
  // absent until tsserve-calibrate has run. Requires `scaler`.
  std::optional<Calibration> calibration;

  // The forecast's columns (encoder-decoder families): c_out for "M", 1 for "S" and "MS".
  int64_t output_variables() const { return features == ForecastFeatures::kM ? c_out : 1; }
  // The scaler columns a calibration covers: every one, or with "MS" the target alone (the
  // scaler's last column, as TSLib's loader orders the target last).
  int64_t calibrated_columns() const {
    const int64_t columns = scaler ? static_cast<int64_t>(scaler->columns.size()) : 0;
    return features == ForecastFeatures::kMS ? std::min<int64_t>(columns, 1) : columns;
  }
  // The columns of the time marks (time_marks.h) an encoder-decoder model reads.
  int64_t mark_width() const;
  // P = floor((seq_len - patch_len) / stride) + 2 (one extra patch from the padding).
  int64_t patch_count() const { return (seq_len - patch_len) / stride + 2; }

  // Throws ModelError naming the first field that is out of range (the shared sizes, then
  // the family's own rules; an unregistered family is refused too).
  void validate() const;
  // The same check as a message ("" when valid), for callers that name the source.
  std::string validation_error() const;

  // One line for messages and logs: "seq_len=336 pred_len=96 d_model=16 ..." (an
  // iTransformer's starts "model=iTransformer" and names its calendar tokens).
  std::string summary() const;
};

// For the families' rules (model_family_rules.h): "" when a size key's value is positive and
// fits an int32 (sizes travel as int32 and are multiplied together to build the model),
// else the message naming the key.
std::string size_in_range_error(const char* key, int64_t value);

// The shared sizes as every family's summary starts them: "seq_len=... pred_len=...
// d_model=... n_heads=... e_layers=... d_ff=...", with `after_seq_len` and
// `after_e_layers` (each "" or " key=value ...") where a family adds its own.
void summarise_sizes(const ModelConfig& config, std::ostream& out,
                     const std::string& after_seq_len = "", const std::string& after_e_layers = "");

// `origin` names the source in error messages (a path, or "<inline>").
ModelConfig parse_model_config(const std::string& json_text, const std::string& origin);
ModelConfig load_model_config(const std::string& path);

// The config beside a checkpoint: same folder and stem, ".json" extension
// (model/default/patchtst_etth1.pt -> model/default/patchtst_etth1.json).
std::string config_path_for(const std::string& checkpoint_path);

std::string to_string(ForecastFeatures features);  // "M", "S", "MS"
std::string to_string(AttentionKind kind);
std::string to_string(ProbLayout layout);
std::string to_string(FinalNorm norm);
std::string to_string(Activation activation);

// to_string's inverse, for a name given outside a config (a server option): throws
// ModelError naming `option` and the names it takes for any other name.
AttentionKind attention_kind_named(const std::string& name, const char* option = "attention");
ProbLayout prob_layout_named(const std::string& name, const char* option = "prob_layout");

}  // namespace tsserve::model
