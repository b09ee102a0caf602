#pragma once
// The dataset StandardScaler a model was trained behind (ModelConfig::scaler), one column
// at a time: x' = (x - mean) / std into the model's space, x = x' * std + mean back. The
// one place its arithmetic is written; the server's codecs (series_rows, forecast_values)
// and tsserve-forecast-csv all use it, so they agree to the bit. Header-only and free of
// LibTorch (target tsserve_model_config).
//
// Both directions compute in double, as the training pipeline did, and round once.

namespace tsserve::model {

struct ScalerColumn {
  double mean = 0;
  double std = 1;  // > 0 (the model config loader enforces it)

  // Into the model's space. Not finite when `x` is not, or when the result leaves float's
  // range (a caller that must refuse those checks the result).
  float scale(double x) const { return static_cast<float>((x - mean) / std); }
  // Back into the data's units, in double; a float answer rounds this once.
  double unscale(float y) const { return static_cast<double>(y) * std + mean; }
};

}  // namespace tsserve::model
