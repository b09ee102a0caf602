#pragma once
// Runs a loaded TimeXer on its device, with the contract of the other families'
// forecasters (CPU tensors in and out, inference mode, concurrent calls from several
// batcher workers, LibTorch's exceptions let through). Its unit is a sample: the enc_in
// variables of one window (the target last for "MS"), with the calendar rows of its
// input steps when the model has calendar tokens.
//
// Forecasts run on the fused CPU forward (fused_timexer.h) when ForecasterOptions::
// cpu_kernels asks for it and the model is on the CPU, else on the LibTorch module;
// kernels() says which and why. Attention maps come from the same path, in the forecast's
// own pass on the fused kernels: a sample's forecast is the same whether or not maps were
// asked for, and whatever else shares its batch.

#include <ATen/core/Tensor.h>

#include <optional>
#include <string>
#include <vector>

#include "tsserve/model/encoder.h"
#include "tsserve/model/fused_timexer.h"
#include "tsserve/model/model_config.h"
#include "tsserve/model/placed_forecaster.h"
#include "tsserve/model/timexer.h"

namespace tsserve::model {

// Why Encode (the encoder alone over caller-given tokens) is not served for a TimeXer.
extern const char kTimeXerEncodeRefusal[];

class TimeXerForecaster final : public PlacedForecaster<TimeXer> {
 public:
  // Moves `model` to the device, sets the threads and warms up (a sample, and
  // warm_up_rows / enc_in of them, with and without maps). Throws ModelError.
  TimeXerForecaster(TimeXer model, const ForecasterOptions& options);

  // series [S, enc_in, seq_len], calendar [S, C, seq_len] (undefined when C = 0), float32
  // CPU -> forecast [S, K, pred_len] on the CPU in the series' units (K: the endogenous
  // variables, timexer_family.h).
  at::Tensor forecast(const at::Tensor& series, const at::Tensor& calendar) const;

  // As forecast(), with one map request per sample (fused_timexer.h's TimeXerMaps).
  TimeXerForecastWithMaps forecast_with_maps(const at::Tensor& series, const at::Tensor& calendar,
                                             const std::vector<TimeXerMapRequest>& requests) const;

  // Refused (kTimeXerEncodeRefusal, as ModelError): each layer also reads covariate
  // tokens, which Encode's tokens do not carry. The server refuses Encode before it comes
  // here (ModelShape::encode_refusal).
  EncoderOutput encode(const at::Tensor& tokens, bool need_attention) const;

 private:
  // Built after the model is on its device; empty when the LibTorch module forecasts.
  std::optional<FusedTimeXer> fused_;
};

}  // namespace tsserve::model
