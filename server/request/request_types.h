#pragma once
// The plain data a request becomes and the result the runtime hands back, whatever
// protocol carried it: what the codecs (codec/), the batcher's tasks (batching/) and the
// runtime (runtime/) share. No protobuf, no gRPC, no LibTorch: each protocol decodes into
// these types and encodes from them, so none depends on another.

#include <cstdint>
#include <string>
#include <vector>

namespace tsserve::server {

// Which encoder layers and which variables get attention maps, resolved against the model
// and the request (codec/common/attention_selection.h).
struct AttentionSelection {
  bool enabled = false;
  // Only meaningful when enabled. Ascending, without repeats; an empty request list
  // becomes the full range. The response orders maps by variable, then layer, in
  // ascending index order whatever the request's order, so sorted lists are that order.
  std::vector<int32_t> layers;     // 0 .. e_layers-1
  bool average_heads = false;      // maps are [P, P] instead of [H, P, P]
  std::vector<int32_t> variables;  // Forecast: 0 .. series_rows-1; Encode: always {0}
  // Encoder-decoder models: also every decoder layer's self- and cross-attention.
  bool decoder = false;
};

// Which attention a map is (an encoder-decoder model has all three).
enum class AttentionStack {
  kEncoder,  // self-attention of an encoder layer
  kDecoder,  // masked self-attention of a decoder layer
  kCross,    // a decoder layer's queries over the encoder's output
  // TimeXer: an encoder layer's cross-attention, each endogenous variable's global token
  // over the sample's covariate tokens ([H, 1, V])
  kCovariates,
};

// One encoder layer's attention for one series row (Forecast) or the sequence (Encode).
struct AttentionBlock {
  AttentionStack stack = AttentionStack::kEncoder;
  int32_t layer = 0;
  int32_t variable = 0;  // Forecast: index into the request's series rows; Encode: 0
  bool heads_averaged = false;
  std::vector<int64_t> shape;  // [H, P, P], or [P, P] when heads_averaged
  std::vector<float> weights;  // row-major, the product of `shape` floats
};

// One validated Forecast request.
struct ForecastInput {
  std::string request_id;  // the request's, or a generated one when it was empty
  // Series rows: N for tsserve.v1; B * N for a batch of B samples of N variables each (the
  // Open Inference Protocol), row b * N + n being variable n of sample b. The rows this
  // request adds to a batch.
  int64_t series_rows = 0;
  int64_t samples = 1;  // B; the forecast comes back as B consecutive blocks
  // [series_rows, T] row-major (T = seq_len): the last T points of each variable, oldest
  // first, in the model's space (scaled when scaler_applied).
  std::vector<float> rows;
  int32_t input_points_used = 0;  // T
  // The forecast's rows per sample (ModelShape::forecast_rows_per_sample): 0 or N when it
  // has every variable; K < N when only each sample's last K. The result is then
  // [forecast_rows(), F], row r standing for series row series_row_of(r).
  int64_t forecast_variables = 0;
  bool scaler_applied = false;
  std::vector<int32_t> scaler_column;  // when scaler_applied: the column of each row
  // The layout of each sample, so the forecast comes back in it: true for [N, T_in] (and
  // UNSPECIFIED), false for [T_in, N].
  bool variables_by_time = true;
  // The N variables' names as the request gave them (empty when it gave none), so that
  // the answer's messages name a variable as the request did.
  std::vector<std::string> variable_names;
  // When the decode put the variables in the model's order (a target and its covariates by
  // name, codec/common/target_columns.h): the request's index of each variable, which the
  // answer's variable indices are given in; empty when the order is the request's.
  std::vector<int32_t> request_variables;
  AttentionSelection attention;
  bool raw_output = false;  // output_encoding: raw_values instead of values
  // Prediction intervals asked for: indices into ModelShape::calibration.levels, in the
  // request's order (codec/common/prediction_intervals.h); empty when none.
  std::vector<int32_t> interval_levels;

  // A model with maps per sample (ModelShape::maps_per_sample) has one attention
  // "variable" per sample (0 .. samples-1: a map spans all the sample's variables).
  // What the timestamps became (ModelShape::time_inputs; empty for kNone):
  // kFeatureTokens: the calendar tokens' rows, [samples, C, T] row-major
  // (C = ModelShape::calendar.size()), TSLib's time features of each sample's last T
  // timestamps.
  std::vector<float> calendar;
  // When attention is enabled: the names of the N' = N + C tokens the maps index.
  std::vector<std::string> attention_token_names;
  // ... and of the V covariate tokens a TimeXer's "covariates" maps index (its covariate
  // variables, then the calendar features).
  std::vector<std::string> covariate_token_names;

  // tsserve.v1 only. The forecast's F times, continued from the request's timestamps
  // (codec/common/forecast_timestamps.h), or none and why.
  std::vector<int64_t> forecast_timestamps;
  std::string forecast_timestamps_note;
  // The caller's name for the series ("" = none): the forecast is kept for ReportActuals.
  std::string series_key;

  int64_t variables_per_sample() const { return samples > 0 ? series_rows / samples : 0; }
  int64_t forecast_per_sample() const {
    return forecast_variables > 0 ? forecast_variables : variables_per_sample();
  }
  int64_t forecast_rows() const { return samples * forecast_per_sample(); }
  // The series row (variable b * N + n) that forecast row r stands for.
  int64_t series_row_of(int64_t forecast_row) const {
    const int64_t k = forecast_per_sample();
    const int64_t n = variables_per_sample();
    return forecast_row / k * n + (n - k) + forecast_row % k;
  }
};

// What the runtime produces for one Forecast request.
struct ForecastOutput {
  // [input.forecast_rows(), F] row-major (F = pred_len), in the model's space (scaled when
  // the input was).
  std::vector<float> forecast;
  // The maps input.attention selected, in any order.
  std::vector<AttentionBlock> attention;
  double queue_seconds = 0;    // arrival -> start of the batch
  double compute_seconds = 0;  // the batch's model call
  int32_t batch_rows = 0;      // rows in that batch
};

// One validated Encode request.
struct EncodeInput {
  std::string request_id;        // the request's, or a generated one when it was empty
  int64_t tokens = 0;            // L
  std::vector<float> values;     // [L, D] row-major (D = d_model), as sent: no scaling
  AttentionSelection attention;  // variables are {0} when enabled
  bool raw_output = false;       // output_encoding: raw_values instead of values
};

// What the runtime produces for one Encode request.
struct EncodeOutput {
  std::vector<float> output;              // [L, D] row-major, after the encoder's final norm
  std::vector<AttentionBlock> attention;  // the layers input.attention selected, variable 0
  double queue_seconds = 0;
  double compute_seconds = 0;
  int32_t batch_rows = 0;  // sequences in the batch
};

}  // namespace tsserve::server
