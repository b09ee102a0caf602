#pragma once
// What the codecs need to know about the served model and the server's limits: plain
// data, filled once by whoever loads the model (from model::ModelConfig) and read by every
// request. The codecs depend on neither LibTorch nor the model library, so this struct is
// their only view of the model.

#include <cstdint>
#include <string>
#include <vector>

#include "tsserve/model/calibration.h"
#include "tsserve/model/time_features.h"

namespace tsserve::server {

struct ModelShape {
  // GetModelInfo's name and version, echoed in every response.
  std::string name;
  std::string version;

  int64_t seq_len = 0;      // T: input points per variable the model reads
  int64_t pred_len = 0;     // F: forecast points per variable
  int64_t d_model = 0;      // D: token width (Encode's last dimension)
  int64_t n_heads = 0;      // H
  int64_t e_layers = 0;     // attention layer indices run 0 .. e_layers-1
  int64_t patch_count = 0;  // P: tokens per variable (Forecast's attention maps are P x P)

  // The family, by TSLib's name (model::to_string): "PatchTST" or "iTransformer". An
  // iTransformer's request is one sample whose N variables attend to each other: N is
  // checked against enc_in (unless any_variable_count), its attention maps are one per
  // layer over the N' = N + calendar.size() tokens, and timestamps are required when
  // `calendar` is not empty (they become those tokens).
  std::string family = "PatchTST";
  int64_t enc_in = 0;
  bool any_variable_count = false;
  std::vector<model::TimeFeature> calendar;  // in token order, after the N variables

  bool is_itransformer() const { return family == "iTransformer"; }
  // The side of Forecast's attention maps for a sample of `variables` variables.
  int64_t attention_tokens(int64_t variables) const {
    return is_itransformer() ? variables + static_cast<int64_t>(calendar.size()) : patch_count;
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
  // Most tokens in one Encode request; 0: no limit other than the message size.
  int64_t max_encode_tokens = 4096;
  // Largest answer (serialized bytes): max_message_bytes. gRPC would refuse a bigger one
  // with a bare "Sent message larger than max"; checking first lets the caller learn why
  // and what to ask for instead. 0: no limit.
  int64_t max_response_bytes = 0;
};

}  // namespace tsserve::server
