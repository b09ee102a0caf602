// The REST binding's binary tensor extension: a JSON header then the inputs' bytes become
// the gRPC binding's raw form (JSON-given inputs packed beside the binary ones), outputs
// asked for as binary come back as bytes after the JSON answer, and every inconsistency
// between the header and the bytes is refused by field.

#include "server/codec/oip_rest/oip_binary_tensors.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace tsserve::server {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

template <typename T>
std::string bytes_of(const std::vector<T>& values) {
  std::string bytes(values.size() * sizeof(T), '\0');
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

// A body of `header` JSON followed by `tail`, parsed with its header length.
Status parse_binary(const std::string& header, const std::string& tail, OipRestRequest* request) {
  std::string body = header + tail;
  return parse_oip_rest_request(body, header.size(), request);
}

const std::vector<float> kSeries = {1.5f, -2.25f, 3.0f, 0.1f};

TEST(OipBinaryTensorsTest, BinaryInputsAndJsonInputsBecomeOneRawForm) {
  const std::string header =
      R"({"inputs": [{"name": "series", "shape": [1, 2, 2], "datatype": "FP32",
                      "parameters": {"binary_data_size": 16}},
                     {"name": "timestamps", "shape": [1, 2], "datatype": "INT64",
                      "data": [1700000000, 1700003600]}],
          "outputs": [{"name": "forecast", "parameters": {"binary_data": true}},
                      {"name": "attention"}]})";
  OipRestRequest request;
  const Status status = parse_binary(header, bytes_of(kSeries), &request);
  ASSERT_TRUE(status.ok()) << status.message();
  const auto& message = request.message;
  ASSERT_EQ(message.raw_input_contents_size(), 2);
  EXPECT_EQ(message.raw_input_contents(0), bytes_of(kSeries));
  EXPECT_EQ(message.raw_input_contents(1), bytes_of(std::vector<int64_t>{1700000000, 1700003600}));
  for (const auto& input : message.inputs()) {
    EXPECT_TRUE(input.parameters().empty()) << input.name();
    EXPECT_EQ(input.contents().fp32_contents_size() + input.contents().int64_contents_size(), 0);
  }
  EXPECT_THAT(request.binary_outputs, ElementsAre("forecast"));
  EXPECT_TRUE(message.outputs(0).parameters().empty());
}

TEST(OipBinaryTensorsTest, ARequestMayAskForEveryOutputAsBinaryWithoutBinaryInputs) {
  std::string body = R"({"parameters": {"binary_data_output": true, "scaler_mode": "none"},
      "inputs": [{"name": "series", "shape": [1, 2, 2], "datatype": "FP32", "data": [1, 2, 3, 4]}],
      "outputs": [{"name": "forecast"}, {"name": "attention", "parameters": {"binary_data": false}}]})";
  OipRestRequest request;
  ASSERT_TRUE(parse_oip_rest_request(body, std::nullopt, &request).ok());
  EXPECT_TRUE(request.all_binary);
  EXPECT_THAT(request.binary_outputs, ElementsAre("forecast"));  // attention said false
  EXPECT_EQ(request.message.parameters().size(), 1u);            // scaler_mode only
  EXPECT_EQ(request.message.raw_input_contents_size(), 0);       // no binary input
  EXPECT_EQ(request.message.inputs(0).contents().fp32_contents_size(), 4);
}

TEST(OipBinaryTensorsTest, RefusesBytesThatDoNotMatchTheHeader) {
  const std::string header =
      R"({"inputs": [{"name": "series", "shape": [1, 2, 2], "datatype": "FP32",
                      "parameters": {"binary_data_size": 16}}]})";
  OipRestRequest request;
  Status status = parse_binary(header, bytes_of(kSeries).substr(0, 12), &request);
  EXPECT_THAT(status.message(), HasSubstr("inputs[0].parameters.binary_data_size: 16 bytes, but "
                                          "only 12 follow"));
  OipRestRequest leftover;
  status = parse_binary(header, bytes_of(kSeries) + "xx", &leftover);
  EXPECT_THAT(status.message(), HasSubstr("the body: 2 bytes after the inputs' binary data"));
  std::string short_body = "{}";
  status = parse_oip_rest_request(short_body, 10, &request);
  EXPECT_THAT(status.message(), HasSubstr("inference-header-content-length: 10 bytes, but the "
                                          "body has 2"));
  OipRestRequest both;
  status = parse_binary(
      R"({"inputs": [{"name": "s", "shape": [1], "datatype": "FP32", "data": [1],
                      "parameters": {"binary_data_size": 4}}]})",
      bytes_of(std::vector<float>{1}), &both);
  EXPECT_THAT(status.message(), HasSubstr("inputs[0]: both data and parameters.binary_data_size"));
  OipRestRequest wrong_type;
  status = parse_binary(
      R"({"inputs": [{"name": "s", "shape": [1], "datatype": "FP32",
                      "parameters": {"binary_data_size": "4"}}]})",
      bytes_of(std::vector<float>{1}), &wrong_type);
  EXPECT_THAT(status.message(), HasSubstr("binary_data_size: expected a byte count"));
  OipRestRequest wrong_flag;
  std::string flag_body = R"({"inputs": [], "outputs": [{"name": "forecast",
                              "parameters": {"binary_data": 1}}]})";
  status = parse_oip_rest_request(flag_body, std::nullopt, &wrong_flag);
  EXPECT_THAT(status.message(), HasSubstr("outputs[0].parameters.binary_data: expected true or "
                                          "false"));
}

TEST(OipBinaryTensorsTest, BinaryOutputsFollowTheJsonAnswerInOutputOrder) {
  inference::ModelInferResponse response;
  response.set_model_name("m");
  for (const char* name : {"forecast", "attention"}) {
    auto* output = response.add_outputs();
    output->set_name(name);
    output->set_datatype("FP32");
    output->add_shape(2);
  }
  response.mutable_outputs(0)->mutable_contents()->add_fp32_contents(1.5f);
  response.mutable_outputs(0)->mutable_contents()->add_fp32_contents(-0.0f);
  response.mutable_outputs(1)->mutable_contents()->add_fp32_contents(0.25f);
  response.mutable_outputs(1)->mutable_contents()->add_fp32_contents(4.0f);
  OipRestRequest request;
  request.binary_outputs = {"forecast"};
  const OipRestAnswer answer = write_oip_rest_answer(request, response);
  const std::string json = answer.body.substr(0, answer.header_length);
  EXPECT_THAT(json, HasSubstr(R"("name":"forecast","datatype":"FP32","shape":[2],)"
                              R"("parameters":{"binary_data_size":8}})"));
  EXPECT_THAT(json,
              HasSubstr(R"("name":"attention","datatype":"FP32","shape":[2],"data":[0.25,4])"));
  EXPECT_EQ(answer.body.substr(answer.header_length), bytes_of(std::vector<float>{1.5f, -0.0f}));
}

}  // namespace
}  // namespace tsserve::server
