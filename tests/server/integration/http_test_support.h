#pragma once
// Shared by the HTTP door's integration tests: requests built for the bundled model, the
// REST binding's JSON of a gRPC request, and replies read with nlohmann-json,
// independently of the server's own JSON reader and writer.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "../oip_test_support.h"
#include "raw_http_client.h"
#include "server_harness.h"

namespace tsserve::server::testing {

using tsserve::testing::http_call;
using tsserve::testing::HttpReply;

inline const std::vector<std::pair<std::string, std::string>> kJsonHeaders = {
    {"Content-Type", "application/json"}};

inline nlohmann::json json_body(const HttpReply& reply) {
  return nlohmann::json::parse(reply.body, nullptr, /*allow_exceptions=*/false);
}

// The gRPC request as the REST binding's JSON: the same tensors and parameters. Floats
// are printed as doubles (17 digits): exact, so they read back as the same float32.
inline std::string rest_json(const inference::ModelInferRequest& request) {
  nlohmann::json body;
  if (!request.id().empty()) body["id"] = request.id();
  for (const auto& [name, parameter] : request.parameters()) {
    if (parameter.has_string_param()) body["parameters"][name] = parameter.string_param();
    if (parameter.has_bool_param()) body["parameters"][name] = parameter.bool_param();
    if (parameter.has_int64_param()) body["parameters"][name] = parameter.int64_param();
  }
  for (const auto& input : request.inputs()) {
    nlohmann::json tensor = {
        {"name", input.name()},
        {"datatype", input.datatype()},
        {"shape", std::vector<int64_t>(input.shape().begin(), input.shape().end())}};
    std::vector<double> data(input.contents().fp32_contents().begin(),
                             input.contents().fp32_contents().end());
    tensor["data"] = data;
    body["inputs"].push_back(tensor);
  }
  for (const auto& output : request.outputs()) body["outputs"].push_back({{"name", output.name()}});
  return body.dump();
}

inline std::vector<float> json_floats(const nlohmann::json& data) {
  std::vector<float> out;
  for (const auto& value : data) out.push_back(static_cast<float>(value.get<double>()));
  return out;
}

inline inference::ModelInferRequest bundled_infer_request(uint64_t seed, int64_t variables = 7) {
  const v1::ForecastRequest sample = forecast_request(variables, 336, seed);
  std::vector<float> data;
  for (int64_t t = 0; t < 336; ++t) {
    for (int64_t v = 0; v < variables; ++v) {
      data.push_back(sample.series().values(static_cast<int>(v * 336 + t)));
    }
  }
  inference::ModelInferRequest request = infer_request(1, 336, variables, data);
  request.set_model_name("patchtst-etth1");
  request.mutable_parameters()->erase("scaler_mode");
  return request;
}

inline inference::ModelInferResponse grpc_infer(ServerHarness& harness,
                                                const inference::ModelInferRequest& request) {
  inference::ModelInferResponse response;
  grpc::ClientContext context;
  const grpc::Status status = harness.oip().ModelInfer(&context, request, &response);
  EXPECT_TRUE(status.ok()) << status.error_message();
  return response;
}

}  // namespace tsserve::server::testing
