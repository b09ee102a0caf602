#pragma once
// ModelInferRequest (Open Inference Protocol) -> the same validated ForecastInput a
// tsserve.v1 Forecast request becomes, plus what the answer needs (OipReply). The series
// goes through the same checks and gather as tsserve.v1's (series_rows.h); only finding
// the tensor and naming the fields is this file's.
//
// The request: the input "series", FP32, [B, T_in, N] (T_in >= T: the last T points are
// used), its data in contents.fp32_contents or in raw_input_contents (little-endian), and
// optionally "timestamps" INT64 [B, T_in] (oip_timestamps.h; an iTransformer's rules:
// sample_request.h);
// `outputs` empty (the forecast) or naming "forecast" and/or "attention"; parameters as
// oip_parameters.h says. model_name/model_version are the service's to check (they pick
// the ModelShape passed here).

#include <string>
#include <vector>

#include "inference/grpc_service.pb.h"
#include "server/request/model_shape.h"
#include "server/request/request_types.h"
#include "server/status/status.h"

namespace tsserve::server {

enum class OipOutput { kForecast, kAttention };

// What the answer holds, decided with the request.
struct OipReply {
  std::string id;                  // the request's id, echoed as sent (may be empty)
  std::vector<OipOutput> outputs;  // in the request's order; {kForecast} when it named none
  bool raw = false;                // inputs came raw: outputs go to raw_output_contents
};

// Validates `request` for `model` under `limits`; fills *input (rows, B samples of N
// variables, attention selection over the B * N rows) and *reply. INVALID_ARGUMENT naming
// the field and the expectation: a missing, repeated or unknown input or output, a
// datatype other than FP32, another rank, a shape the data does not fill (typed count or
// raw byte length), contents in a type other than fp32_contents, contents beside
// raw_input_contents, per-tensor parameters, unknown or ill-typed request parameters, and
// every rule tsserve.v1 applies to a series and its options; FAILED_PRECONDITION for
// scaler_mode "required" on a model without a scaler.
Status decode_model_infer_request(const inference::ModelInferRequest& request,
                                  const ModelShape& model, const RequestLimits& limits,
                                  ForecastInput* input, OipReply* reply);

}  // namespace tsserve::server
