#pragma once
// An Open Inference Protocol ModelInferRequest built from fuzzer bytes: usually the
// documented request (one FP32 input "series" [B, T, N] in fp32_contents or
// raw_input_contents, outputs "forecast"/"attention", tsserve's parameters), with every
// part sometimes missing, repeated, misnamed, mistyped or hostile.

#include <string>
#include <vector>

#include "fuzz_input.h"
#include "inference/grpc_service.pb.h"
#include "request_builder.h"

namespace tsserve::fuzz {

inline std::string index_list(FuzzInput& in) {
  return in.pick<std::string>(
      {"0", "0,2", "1, 2", " 2 ", "", "0,,1", "a", "-1", "3", "99999999999", "6,0"});
}

inline void add_parameter(FuzzInput& in,
                          google::protobuf::Map<std::string, inference::InferParameter>* map) {
  const std::string name = in.pick<std::string>(
      {"scaler_mode", "variable_names", "attention_layers", "attention_variables",
       "attention_average_heads", "shared_memory_region", "unknown", in.text(12)});
  inference::InferParameter& value = (*map)[name];
  const int kind = in.byte() % 8;
  if (kind == 0) return;  // no value at all
  if (kind == 1) return value.set_bool_param(in.coin());
  if (kind == 2) return value.set_int64_param(in.pick<int64_t>({0, 1, 2, -1, INT64_MAX, 6}));
  if (name == "scaler_mode") {
    return value.set_string_param(in.pick<std::string>({"auto", "none", "required", "Auto", ""}));
  }
  if (name == "attention_average_heads") return value.set_bool_param(in.coin());
  if (name == "variable_names") {
    std::string names;
    for (int64_t n = 0, count = in.pick<int64_t>({7, 7, 1, 3, 8, 0}); n < count; ++n) {
      names += (n > 0 ? "," : "") + variable_name(in, n);
    }
    return value.set_string_param(names);
  }
  value.set_string_param(index_list(in));
}

inline void add_input(FuzzInput& in, inference::ModelInferRequest* request) {
  auto* input = request->add_inputs();
  input->set_name(in.pick<std::string>({"series", "series", "series", "x", ""}));
  input->set_datatype(in.pick<std::string>({"FP32", "FP32", "FP32", "FP64", "INT32", ""}));
  std::vector<int64_t> shape{dimension(in, in.pick<int64_t>({1, 1, 2, 64})),
                             dimension(in, in.coin() ? 336 : 336 + in.byte()),
                             dimension(in, in.pick<int64_t>({7, 7, 1, 3}))};
  if (in.byte() % 16 == 0) shape.resize(in.byte() % 5, 2);  // another rank
  input->mutable_shape()->Add(shape.begin(), shape.end());
  if (in.byte() % 16 == 0) add_parameter(in, input->mutable_parameters());
  const std::vector<float> values = series_values(in, data_count(in, shape));
  switch (in.byte() % 8) {
    case 0:
    case 1:
    case 2:
      request->add_raw_input_contents(raw_bytes(values));
      break;
    case 3:  // both, which the protocol forbids
      request->add_raw_input_contents(raw_bytes(values));
      input->mutable_contents()->mutable_fp32_contents()->Add(values.begin(), values.end());
      break;
    case 4:  // another type's contents
      input->mutable_contents()->add_int_contents(1);
      break;
    case 5:  // no data
      break;
    default:
      input->mutable_contents()->mutable_fp32_contents()->Add(values.begin(), values.end());
  }
}

inline inference::ModelInferRequest build_model_infer_request(FuzzInput& in) {
  inference::ModelInferRequest request;
  request.set_model_name("patchtst-etth1");
  request.set_id(request_id(in));
  for (int k = in.byte() % 5; k > 0; --k) add_parameter(in, request.mutable_parameters());
  for (int64_t k = in.pick<int64_t>({1, 1, 1, 1, 0, 2}); k > 0; --k) add_input(in, &request);
  for (int k = in.byte() % 4; k > 0; --k) {
    auto* output = request.add_outputs();
    output->set_name(in.pick<std::string>({"forecast", "attention", "attention", "x"}));
    if (in.byte() % 16 == 0) add_parameter(in, output->mutable_parameters());
  }
  if (in.byte() % 16 == 0) request.add_raw_input_contents(in.text(16));  // one too many
  return request;
}

}  // namespace tsserve::fuzz
