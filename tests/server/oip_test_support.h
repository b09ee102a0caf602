#pragma once
// Shared by the Open Inference Protocol codec tests: ModelInferRequests for the small
// model of codec_test_support.h.

#include <cstdint>
#include <string>
#include <vector>

#include "codec_test_support.h"
#include "inference/grpc_service.pb.h"

namespace tsserve::server::testing {

// A request with one input "series" FP32 [B, T_in, N] holding `data` (row-major), in
// fp32_contents or, when `raw`, in raw_input_contents[0]; scaler off unless a test turns
// it on.
inline inference::ModelInferRequest infer_request(int64_t samples, int64_t points,
                                                  int64_t variables, const std::vector<float>& data,
                                                  bool raw = false) {
  inference::ModelInferRequest request;
  request.set_model_name("small");
  auto* input = request.add_inputs();
  input->set_name("series");
  input->set_datatype("FP32");
  for (int64_t d : {samples, points, variables}) input->add_shape(d);
  if (raw) {
    request.add_raw_input_contents(little_endian_bytes(data));
  } else {
    input->mutable_contents()->mutable_fp32_contents()->Add(data.begin(), data.end());
  }
  (*request.mutable_parameters())["scaler_mode"].set_string_param("none");
  return request;
}

inline void set_string_parameter(inference::ModelInferRequest* request, const std::string& name,
                                 const std::string& value) {
  (*request->mutable_parameters())[name].set_string_param(value);
}

// Output `index`'s floats, whichever encoding carries them (typed contents must then be
// empty).
inline std::vector<float> output_floats(const inference::ModelInferResponse& response, int index) {
  if (response.raw_output_contents_size() > 0) {
    EXPECT_EQ(response.outputs(index).contents().fp32_contents_size(), 0);
    return floats_from_little_endian(response.raw_output_contents(index));
  }
  const auto& values = response.outputs(index).contents().fp32_contents();
  return {values.begin(), values.end()};
}

inline std::vector<int64_t> output_shape(const inference::ModelInferResponse& response, int index) {
  return {response.outputs(index).shape().begin(), response.outputs(index).shape().end()};
}

inline void request_outputs(inference::ModelInferRequest* request,
                            const std::vector<std::string>& names) {
  for (const std::string& name : names) request->add_outputs()->set_name(name);
}

}  // namespace tsserve::server::testing
