#pragma once
// The last guard on the way out: an answer never carries a value that is not a number.
// The input line (input_magnitude.h) keeps the instance normalisation finite, but it does
// not bound the network between the normalisation and its undoing, nor the dataset
// scaler's unscaling into float; a forecast value or attention weight that comes out NaN
// or infinite is refused, naming its variable, instead of sent.
//
// The status is OUT_OF_RANGE, not INTERNAL: the server did what it specifies on an input
// whose answer lies outside float32's range. Retrying gives the same answer, the caller's
// fix is the input (smaller numbers), and INTERNAL is what the alerts
// (deploy/prometheus/alerts.yml) count as a server fault.

#include <string>

#include "server/request/model_shape.h"
#include "server/request/request_types.h"
#include "server/status/status.h"

namespace tsserve::server {

// How an answer's messages name its tensors: tsserve.v1's fields by default; the Open
// Inference Protocol passes its outputs ("outputs[0] (\"forecast\")").
struct AnswerFields {
  std::string forecast = "forecast";
  std::string attention = "attention";
};

// OK when every forecast value as it will be sent (in the data's units when the scaler
// applied, computed as store_forecast does) and every attention weight in `result` is
// finite. OUT_OF_RANGE naming the first that is not otherwise: the field, the sample when
// there are several, the variable (by input.variable_names, else by index), and the
// forecast point or the map's layer. The forecast is checked even when an Open Inference
// Protocol request asked for the attention alone: its maps come from the same overflowing
// arithmetic. REQUIRES: check_forecast_output(input, model,
// result).ok().
Status check_forecast_finite(const ForecastInput& input, const ModelShape& model,
                             const ForecastOutput& result, const AnswerFields& fields = {});

// The same for Encode: every output value and attention weight finite; OUT_OF_RANGE naming
// "output" and the token, or "attention" and the layer, otherwise.
Status check_encode_finite(const EncodeInput& input, const ModelShape& model,
                           const EncodeOutput& result);

}  // namespace tsserve::server
