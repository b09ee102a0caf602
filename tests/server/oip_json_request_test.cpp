// The REST binding's inference request JSON -> the gRPC binding's ModelInferRequest: the
// spec's own example, data flat or nested alike, every datatype into its contents field,
// and each kind of bad JSON refused by the field it is in.

#include "server/codec/oip_rest/oip_json_request.h"

#include <gmock/gmock.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <string>

namespace tsserve::server {
namespace {

using ::testing::HasSubstr;

Status parse_json_body(std::string body, inference::ModelInferRequest* request) {
  return parse_oip_json_request(body, request);
}

inference::ModelInferRequest parsed_request(const std::string& body) {
  inference::ModelInferRequest request;
  const Status status = parse_json_body(body, &request);
  EXPECT_TRUE(status.ok()) << status.message();
  return request;
}

// The message of the json_refusal of `body` (INVALID_ARGUMENT expected).
std::string json_refusal(const std::string& body) {
  inference::ModelInferRequest request;
  const Status status = parse_json_body(body, &request);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << body;
  return status.message();
}

std::string series_body(const std::string& data, const std::string& shape = "[1, 2, 2]",
                        const std::string& datatype = "FP32") {
  return R"({"inputs": [{"name": "series", "shape": )" + shape + R"(, "datatype": ")" + datatype +
         R"(", "data": )" + data + "}]}";
}

// "data" before "datatype" (as a client that sorts its keys sends it): the numbers are
// read before their type is known, and still come out as that type, refusals included.
TEST(OipJsonRequestTest, ReadsDataGivenBeforeItsDatatype) {
  const auto sorted_body = [](const std::string& data, const std::string& datatype) {
    return R"({"inputs": [{"data": )" + data + R"(, "datatype": ")" + datatype +
           R"(", "name": "x", "shape": [2, 2]}]})";
  };
  EXPECT_THAT(parsed_request(sorted_body("[[0.1, -2], [3e2, 4.25]]", "FP32"))
                  .inputs(0)
                  .contents()
                  .fp32_contents(),
              ::testing::ElementsAre(0.1f, -2.0f, 300.0f, 4.25f));
  EXPECT_THAT(parsed_request(sorted_body("[[1, -2], [3, 9007199254740993]]", "INT64"))
                  .inputs(0)
                  .contents()
                  .int64_contents(),
              ::testing::ElementsAre(1, -2, 3, 9007199254740993));
  EXPECT_THAT(parsed_request(sorted_body("[[1e39, 0.1], [2, 3]]", "FP64"))
                  .inputs(0)
                  .contents()
                  .fp64_contents(),
              ::testing::ElementsAre(1e39, 0.1, 2.0, 3.0));
  EXPECT_THAT(json_refusal(sorted_body("[[1, 2], [1e39, 4]]", "FP32")),
              HasSubstr("inputs[0].data[2]: 1e39 is out of range for FP32"));
  EXPECT_THAT(json_refusal(sorted_body("[[1, 2.5], [3, 4]]", "INT32")),
              HasSubstr("inputs[0].data[1]: 2.5 is not an integer for INT32"));
}

TEST(OipJsonRequestTest, ParsesTheSpecificationsExample) {
  // inference_rest.md, "Inference Request Examples".
  const inference::ModelInferRequest request = parsed_request(R"({
      "id" : "42",
      "inputs" : [
        {"name" : "input0", "shape" : [ 2, 2 ], "datatype" : "UINT32", "data" : [ 1, 2, 3, 4 ]},
        {"name" : "input1", "shape" : [ 3 ], "datatype" : "BOOL", "data" : [ true ]}
      ],
      "outputs" : [ {"name" : "output0"} ]
    })");
  EXPECT_EQ(request.id(), "42");
  ASSERT_EQ(request.inputs_size(), 2);
  EXPECT_EQ(request.inputs(0).name(), "input0");
  EXPECT_EQ(request.inputs(0).datatype(), "UINT32");
  EXPECT_THAT(request.inputs(0).shape(), ::testing::ElementsAre(2, 2));
  EXPECT_THAT(request.inputs(0).contents().uint_contents(), ::testing::ElementsAre(1, 2, 3, 4));
  // The count against the shape is the shared decoder's to check (codec/oip).
  EXPECT_THAT(request.inputs(1).contents().bool_contents(), ::testing::ElementsAre(true));
  ASSERT_EQ(request.outputs_size(), 1);
  EXPECT_EQ(request.outputs(0).name(), "output0");
}

TEST(OipJsonRequestTest, FlatAndNestedDataGiveTheSameRequest) {
  const inference::ModelInferRequest flat = parsed_request(series_body("[1.5, -2, 3e-1, 4]"));
  const inference::ModelInferRequest nested =
      parsed_request(series_body("[[[1.5, -2], [3e-1, 4]]]"));
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(flat, nested));
  EXPECT_THAT(flat.inputs(0).contents().fp32_contents(),
              ::testing::ElementsAre(1.5f, -2.0f, 0.3f, 4.0f));
}

TEST(OipJsonRequestTest, ParametersKeepTheirKinds) {
  const inference::ModelInferRequest request = parsed_request(
      R"({"parameters": {"scaler_mode": "none", "attention_average_heads": true,
                         "attention_layers": 2}, "inputs": []})");
  EXPECT_EQ(request.parameters().at("scaler_mode").string_param(), "none");
  EXPECT_TRUE(request.parameters().at("attention_average_heads").bool_param());
  EXPECT_EQ(request.parameters().at("attention_layers").int64_param(), 2);
}

TEST(OipJsonRequestTest, EveryDatatypeFillsItsContentsField) {
  EXPECT_THAT(
      parsed_request(series_body("[1, 2]", "[2]", "INT64")).inputs(0).contents().int64_contents(),
      ::testing::ElementsAre(1, 2));
  EXPECT_THAT(
      parsed_request(series_body("[-1, 2]", "[2]", "INT8")).inputs(0).contents().int_contents(),
      ::testing::ElementsAre(-1, 2));
  EXPECT_THAT(
      parsed_request(series_body("[0.5]", "[1]", "FP64")).inputs(0).contents().fp64_contents(),
      ::testing::ElementsAre(0.5));
  EXPECT_THAT(parsed_request(series_body(R"(["a", "b"])", "[2]", "BYTES"))
                  .inputs(0)
                  .contents()
                  .bytes_contents(),
              ::testing::ElementsAre("a", "b"));
}

TEST(OipJsonRequestTest, RefusesTextThatIsNotJson) {
  EXPECT_THAT(json_refusal("{"), HasSubstr("the body: malformed JSON"));
  EXPECT_THAT(json_refusal(series_body("[1, 2").substr(0, 40)), HasSubstr("malformed JSON"));
  EXPECT_THAT(json_refusal(series_body("[1, 2, 3, 4]") + " {}"),
              HasSubstr("text after the JSON object"));
  EXPECT_THAT(json_refusal(series_body("[NaN, 1, 2, 3]")), HasSubstr("malformed JSON"));
  EXPECT_THAT(json_refusal(series_body("[Infinity, 1, 2, 3]")), HasSubstr("malformed JSON"));
  EXPECT_THAT(json_refusal(""), HasSubstr("the body"));
  EXPECT_THAT(json_refusal("[1, 2]"), HasSubstr("the body: expected a JSON object"));
}

TEST(OipJsonRequestTest, RefusesNumbersTheDatatypeCannotHold) {
  EXPECT_THAT(json_refusal(series_body("[1, 2, 1e39, 4]")),
              HasSubstr("inputs[0].data[2]: 1e39 is out of range for FP32"));
  EXPECT_THAT(json_refusal(series_body("[300]", "[1]", "UINT8")),
              HasSubstr("inputs[0].data[0]: 300 is out of range for UINT8"));
  EXPECT_THAT(json_refusal(series_body("[1.5]", "[1]", "INT64")),
              HasSubstr("inputs[0].data[0]: 1.5 is not an integer for INT64"));
  EXPECT_THAT(json_refusal(series_body("[1]", "[1]", "FP16")), HasSubstr("FP16 has no JSON form"));
  EXPECT_THAT(json_refusal(series_body("[1]", "[1]", "FLOAT")),
              HasSubstr("datatype \"FLOAT\" is not one"));
  EXPECT_THAT(json_refusal(series_body("[true]", "[1]", "FP32")),
              HasSubstr("booleans for a FP32 tensor; it takes numbers"));
  EXPECT_THAT(json_refusal(series_body("[1, true]", "[2]")),
              HasSubstr("mixes numbers and booleans"));
  EXPECT_THAT(json_refusal(series_body("[1, null]", "[2]")), HasSubstr("inputs[0].data[1]: null"));
}

TEST(OipJsonRequestTest, RefusesDataNestedOtherwiseThanItsShape) {
  EXPECT_THAT(json_refusal(series_body("[[1, 2], [3, 4]]")),
              HasSubstr("nested 2 levels deep for a shape of 3"));
  EXPECT_THAT(json_refusal(series_body("[[[1, 2, 3], [4]]]")),
              HasSubstr("arrays at depth 2 hold 3 elements where shape dimension 2 is 2"));
  EXPECT_THAT(json_refusal(series_body("[[1, 2], 3]", "[2]")),
              HasSubstr("elements at different depths"));
  std::string deep = "1";
  for (int i = 0; i < 5000; ++i) deep = "[" + deep + "]";
  const std::string message = json_refusal(series_body(deep));
  EXPECT_THAT(message, HasSubstr("inputs[0].data"));
}

TEST(OipJsonRequestTest, RefusesDuplicateKeysWrongTypesAndUnknownFields) {
  EXPECT_THAT(json_refusal(R"({"inputs": [], "inputs": []})"), HasSubstr("inputs: given twice"));
  EXPECT_THAT(json_refusal(R"({"inputs": [{"name": "a", "name": "b"}]})"),
              HasSubstr("inputs[0].name: given twice"));
  EXPECT_THAT(json_refusal(R"({"parameters": {"x": 1, "x": 2}, "inputs": []})"),
              HasSubstr("parameters.x: given twice"));
  EXPECT_THAT(json_refusal(R"({"inputs": {}})"),
              HasSubstr("inputs: expected an array of input tensors"));
  EXPECT_THAT(json_refusal(R"({"id": 42, "inputs": []})"), HasSubstr("id: expected a string"));
  EXPECT_THAT(json_refusal(series_body("[1]", "\"1\"")),
              HasSubstr("inputs[0].shape: expected an array"));
  EXPECT_THAT(json_refusal(series_body("[1]", "[-1]")),
              HasSubstr("inputs[0].shape[0]: expected a dimension"));
  EXPECT_THAT(json_refusal(R"({"inputs": [], "extra": 1})"), HasSubstr("extra: unknown field"));
  EXPECT_THAT(json_refusal(R"({"inputs": [{"name": "a", "shape": [1], "datatype": "FP32"}]})"),
              HasSubstr("inputs[0].data: missing"));
  EXPECT_THAT(json_refusal(R"({"id": "1"})"), HasSubstr("inputs: missing"));
  EXPECT_THAT(json_refusal(R"({"parameters": {"p": 0.5}, "inputs": []})"),
              HasSubstr("parameters.p: is not an integer"));
  EXPECT_THAT(json_refusal(R"({"parameters": {"p": [1]}, "inputs": []})"),
              HasSubstr("parameters.p: expected a string, a boolean or an integer"));
}

}  // namespace
}  // namespace tsserve::server
