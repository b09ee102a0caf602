#pragma once
// Runs a loaded PatchTST on its device.
//
// Inputs and outputs are CPU tensors; the forecaster moves them to and from the device and
// runs under inference mode. Forward calls may come from several batcher workers at once
// (the model holds no mutable state in eval mode, so instances share its weights).
//
// Forecasts and their attention maps run on the kernels ForecasterOptions::cpu_kernels names
// (row_forecaster.h): the fused CPU forward by default, the LibTorch modules where
// it does not apply (a GPU, a config it does not cover: kernels() says which and why).
// Encode runs on the same kernels, except a ProbSparse model's at a token count other than
// its patch count (fused_encode.h), which the LibTorch modules encode. A row's forecast is
// the same whether or not maps are asked for, and whatever else shares its batch.
//
// Errors: the constructor throws ModelError for a device it cannot use (e.g. cuda
// with a CPU-only LibTorch); forward calls let LibTorch's exceptions through, and the
// batch processors turn them into INTERNAL for the batch's requests.

#include <ATen/core/Tensor.h>

#include <string>
#include <vector>

#include "tsserve/model/patchtst.h"
#include "tsserve/model/placed_forecaster.h"
#include "tsserve/model/row_forecaster.h"

namespace tsserve::model {

// Privately a RowForecaster (the fused-or-LibTorch choice and its forecasts), built after
// its PlacedForecaster base has put the model on its device, so the forecaster holds the
// fused kernels' weights itself.
class PatchTSTForecaster final : public PlacedForecaster<PatchTST>, private RowForecaster {
 public:
  // Moves `model` to the device, sets the threads and warms up (forecast at 1 and
  // warm_up_rows rows, encode at patch_count tokens). Throws ModelError.
  PatchTSTForecaster(PatchTST model, const ForecasterOptions& options);

  // rows [R, seq_len] float32 CPU -> forecast [R, pred_len] CPU, in the rows' units.
  at::Tensor forecast(const at::Tensor& rows) const;
  // rows [R, seq_len] float32 CPU and one request per row -> the forecast of every row
  // and each row's maps where it asked (row_attention_maps.h), on the CPU: one pass
  // of the serving kernels, whose maps are the forecast's own softmax weights.
  ForecastWithRowMaps forecast_with_maps(const at::Tensor& rows,
                                         const std::vector<RowMapRequest>& requests) const;

  // On the fused kernels only (writes_maps_in_place()): rows [R, seq_len] float32 CPU and
  // one request per row (FusedRowMaps{} for none) -> forecast [R, pred_len], each row's
  // maps written where its request points (the server's answer buffers: no copy between
  // the kernels and the answer). Bitwise forecast_with_maps's forecast and maps.
  bool writes_maps_in_place() const { return fused_model() != nullptr; }
  at::Tensor forecast_with_maps_into(const at::Tensor& rows,
                                     const std::vector<FusedRowMaps>& maps) const;

  // tokens [B, L, d_model] float32 CPU -> output [B, L, d_model] CPU; attention per layer
  // [B, H, L, L] when asked.
  EncoderOutput encode(const at::Tensor& tokens, bool need_attention) const;

 private:
  // The placed model (RowForecaster keeps a handle to the same module).
  using PlacedForecaster<PatchTST>::model_;
};

}  // namespace tsserve::model
