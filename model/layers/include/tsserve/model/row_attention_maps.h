#pragma once
// Attention maps asked for row by row: what a batch of series rows from several requests
// needs, when some requests ask for maps (of different layers, per head or averaged) and
// others for none. RowForecaster::forecast_rows_with_maps (row_forecaster.h) answers it
// in one call: the forecast of every row, and each row's maps only where it asked.

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

namespace tsserve::model {

struct RowMapRequest {
  // Encoder layers whose maps the row wants, in the order they come back (a layer may be
  // named twice); empty: no maps for this row.
  std::vector<int32_t> layers;
  bool average_heads = false;  // [P, P] (the mean over heads) instead of [H, P, P]
};

struct ForecastWithRowMaps {
  at::Tensor forecast;  // [R, F], in the units of the input series
  // One entry per row: [layers.size(), H, P, P], or [layers.size(), P, P] with
  // average_heads (query position, then key position); undefined for a row that asked
  // for none.
  std::vector<at::Tensor> maps;
};

}  // namespace tsserve::model
