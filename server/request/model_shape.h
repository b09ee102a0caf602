#pragma once
// What the codecs need to know about one loaded model version and the server's limits:
// plain data, filled once when the version loads (from model::ModelConfig; each version
// of each model has its own) and read by every request that version admits. The codecs
// depend on neither LibTorch nor the model library, so this struct is their only view of
// the model.

#include <cstdint>
#include <string>
#include <vector>

#include "tsserve/model/calibration.h"
#include "tsserve/model/time_features.h"

namespace tsserve::server {

// How a request's N variables reach the model.
enum class SampleUnit {
  kVariableRow,  // each variable is a row of its own (channel independence: PatchTST)
  kSample,       // the N variables of a sample are read together (iTransformer)
};

// What a model reads from a request's timestamps (Unix seconds, UTC, one per input point).
enum class TimeInputs {
  kNone,           // nothing; timestamps only continue into the forecast's times
  kFeatureTokens,  // per calendar feature, one token over the last T input steps
  kStepMarks,      // per step, TSLib's time marks of the T input steps and the F forecast steps
};

struct ModelShape {
  // GetModelInfo's name and version, echoed in every response.
  std::string name;
  std::string version;

  int64_t seq_len = 0;      // T: input points per variable the model reads
  int64_t pred_len = 0;     // F: forecast points per variable
  int64_t d_model = 0;      // D: token width (Encode's last dimension)
  int64_t n_heads = 0;      // H
  int64_t e_layers = 0;     // attention layer indices run 0 .. e_layers-1

  // The family, by TSLib's name (model::ModelConfig::family): a label for GetModelInfo and
  // messages. No rule reads it: the fields below say what the family does with a request.
  std::string family = "PatchTST";

  // How a request's N variables reach the model.
  SampleUnit unit = SampleUnit::kVariableRow;
  // kSample: N must equal enc_in unless any_variable_count (the weights may run any N, but
  // a model trained on 7 variables attending to each other has never seen 6 or 8).
  int64_t enc_in = 0;
  bool any_variable_count = false;

  // What the request's timestamps become; with anything but kNone they are required.
  TimeInputs time_inputs = TimeInputs::kNone;
  // kFeatureTokens: the calendar features, in token order after the N variables.
  std::vector<model::TimeFeature> calendar;
  // kStepMarks: TSLib's embed and freq, which say the marks' columns
  // (tsserve/model/time_marks.h).
  std::string mark_embed;
  std::string mark_freq;

  // The side of each layer's Forecast attention maps when it does not depend on N, per
  // layer (PatchTST: the patch count P for every layer; a distilling encoder's shrinking
  // lengths); empty when the tokens are the sample's N variables and its calendar tokens
  // (attention_tokens says N + C), whose names the maps then carry.
  std::vector<int64_t> map_sides;
  // Encoder-decoder models: the decoder's layers and the input steps it starts from; 0
  // for a model without a decoder. Its maps are [L_dec, L_dec] (self) and
  // [L_dec, map_sides.back()] (cross), L_dec = label_len + pred_len.
  int64_t d_layers = 0;
  int64_t label_len = 0;
  int64_t decoder_length() const { return label_len + pred_len; }
  // What the forecast holds, by TSLib's `features` ("M", "S", "MS"): a label for
  // GetModelInfo. forecast_variables says the rows: 0 when the forecast has every one of
  // a sample's N variables; K > 0 when only the sample's last K ("MS": 1, the target, which
  // TSLib's loader puts last).
  std::string features = "M";
  int64_t forecast_variables = 0;
  int64_t forecast_rows_per_sample(int64_t variables) const {
    return forecast_variables > 0 ? forecast_variables : variables;
  }
  // Why Encode (the encoder alone over caller-given tokens) is not served; "" when it is.
  std::string encode_refusal;
  // TimeXer: each encoder layer also has a map of every endogenous variable's global token
  // over the sample's covariate tokens (AttentionStack::kCovariates): the first
  // covariate_variables variables of the sample ("MS": N - 1; "M": N), then the calendar
  // features.
  bool covariate_maps = false;
  int64_t covariate_variables = 0;
  int64_t covariate_tokens() const {
    return covariate_variables + static_cast<int64_t>(calendar.size());
  }
  // PatchTST's patching, for GetModelInfo; 0 for a family without patches.
  int64_t patch_len = 0;
  int64_t stride = 0;
  int64_t patch_count = 0;

  // Forecast's maps are one per sample and layer rather than one per variable and layer.
  bool maps_per_sample() const { return unit == SampleUnit::kSample; }
  // Whether a request must carry exactly enc_in variables.
  bool fixes_variable_count() const { return unit == SampleUnit::kSample && !any_variable_count; }
  // The side of layer `layer`'s Forecast attention maps for a sample of `variables`
  // variables.
  int64_t attention_tokens(int64_t variables, int64_t layer = 0) const {
    if (map_sides.empty()) return variables + static_cast<int64_t>(calendar.size());
    return map_sides.at(static_cast<size_t>(layer));
  }
  // Whether every layer's maps have the same side (a rectangular tensor holds them all).
  bool map_sides_equal() const {
    for (int64_t side : map_sides)
      if (side != map_sides.front()) return false;
    return true;
  }

  // The dataset StandardScaler, x' = (x - mean[c]) / std[c]; all three empty when the
  // model has none. REQUIRES (when present): equal sizes, unique columns, std > 0 (the
  // model config loader enforces these).
  std::vector<std::string> scaler_columns;
  std::vector<double> scaler_mean;
  std::vector<double> scaler_std;

  bool has_scaler() const { return !scaler_columns.empty(); }

  // Split-conformal quantiles per level, step and scaler column (tsserve/model/
  // calibration.h); empty() when the model has none. REQUIRES (when present): columns =
  // scaler_columns.size(), pred_len = pred_len (the model config loader enforces these).
  model::Calibration calibration;
};

// Per-request size limits, as GetModelInfo reports them.
struct RequestLimits {
  // Most series rows (ForecastInput::series_rows) in one Forecast request: the batcher's
  // max_batch_rows, so a request never straddles batches.
  int64_t max_series_rows = 448;
  // Most tokens in one Encode request; 0: no limit other than the message size (the
  // server's --max-encode-tokens is at least 1, so the server always sets a limit).
  int64_t max_encode_tokens = 4096;
  // Largest answer (serialized bytes): max_message_bytes. gRPC would refuse a bigger one
  // with a bare "Sent message larger than max"; checking first lets the caller learn why
  // and what to ask for instead. 0: no limit.
  int64_t max_response_bytes = 0;
};

}  // namespace tsserve::server
