#pragma once
// Where a Forecast request's series sits in its tensor and how messages name it: what the
// gather (series_rows.h) and the input line (input_magnitude.h) both read. Its own header
// so that neither of those two includes the other's header for it.

#include <cstdint>

#include "server/codec/common/tensor_codec.h"

namespace tsserve::server {

// Where the series' numbers sit: B consecutive samples, each [N, T_in] (by variable) or
// [T_in, N] (by time). tsserve.v1 sends one sample; the Open Inference Protocol a batch
// [B, T_in, N]. Row r of the model's input is variable r % N of sample r / N.
struct SeriesGeometry {
  bool by_variable = true;
  int64_t samples = 1;    // B
  int64_t variables = 0;  // N, per sample
  int64_t points = 0;     // T_in
  int64_t used = 0;       // T: the last `used` points of each variable reach the model

  // REQUIRES: check_series_geometry(*this, ...).ok() (B * N may overflow before).
  int64_t rows() const { return samples * variables; }
  int64_t skipped() const { return points - used; }
  // The model row (b * N + n) and the time index of flat element `flat` of the series.
  int64_t row_of(int64_t flat) const;
  int64_t point_of(int64_t flat) const;
};

// How messages name the series: its field and dimensions ({"series", 2, "[N, T_in]"}), its
// layout ("layout VARIABLES_BY_TIME") and how the caller turns the scaler off
// ("SCALER_MODE_NONE").
struct SeriesNames {
  TensorSpec spec;
  const char* layout;
  const char* scaler_off;
};

}  // namespace tsserve::server
