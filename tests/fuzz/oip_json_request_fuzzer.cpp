// Fuzz target: the body of an Open Inference Protocol REST inference request (the HTTP
// door's input) through parse_oip_json_request, and what it accepts through the shared
// decoder (decode_model_infer_request) against the bundled model's shape.
//
// Input: the body, as sent.
// Invariants: a refusal of the JSON is INVALID_ARGUMENT with a message; an accepted body
// holds only finite float32 values (JSON has no NaN or Infinity, and overflow is
// refused), and written back as JSON (json_writer.h, fewest digits) it parses to the same
// request bit for bit; the decoder then refuses by field (request_checks.h) or accepts.

#include <google/protobuf/util/message_differencer.h>

#include <cmath>
#include <string>

#include "bundled_model_shape.h"
#include "fuzz_target.h"
#include "request_checks.h"
#include "server/codec/json/json_writer.h"
#include "server/codec/oip/oip_request_decoder.h"
#include "server/codec/oip_rest/oip_json_request.h"

namespace tsserve::fuzz {
namespace {

void write_parameters(server::JsonWriter& json,
                      const google::protobuf::Map<std::string, inference::InferParameter>& map) {
  json.begin_object();
  for (const auto& [name, value] : map) {
    json.key(name);
    if (value.has_bool_param()) json.boolean(value.bool_param());
    if (value.has_int64_param()) json.integer(value.int64_param());
    if (value.has_string_param()) json.string(value.string_param());
  }
  json.end_object();
}

// `request` as the REST binding's JSON, every tensor's data flat.
std::string as_json(const inference::ModelInferRequest& request) {
  server::JsonWriter json;
  json.begin_object();
  if (!request.id().empty()) json.key("id").string(request.id());
  if (!request.parameters().empty()) {
    json.key("parameters");
    write_parameters(json, request.parameters());
  }
  json.key("inputs").begin_array();
  for (const auto& input : request.inputs()) {
    json.begin_object();
    json.key("name").string(input.name());
    json.key("datatype").string(input.datatype());
    json.key("shape").begin_array();
    for (int64_t dim : input.shape()) json.integer(dim);
    json.end_array();
    if (!input.parameters().empty()) {
      json.key("parameters");
      write_parameters(json, input.parameters());
    }
    const auto& c = input.contents();
    json.key("data").begin_array();
    for (float v : c.fp32_contents()) json.number(v);
    for (double v : c.fp64_contents()) json.number(v);
    for (int64_t v : c.int64_contents()) json.integer(v);
    for (int32_t v : c.int_contents()) json.integer(v);
    for (uint64_t v : c.uint64_contents()) json.unsigned_integer(v);
    for (uint32_t v : c.uint_contents()) json.unsigned_integer(v);
    for (bool v : c.bool_contents()) json.boolean(v);
    for (const std::string& v : c.bytes_contents()) json.string(v);
    json.end_array();
    json.end_object();
  }
  json.end_array();
  if (request.outputs_size() > 0) {
    json.key("outputs").begin_array();
    for (const auto& output : request.outputs()) {
      json.begin_object();
      json.key("name").string(output.name());
      if (!output.parameters().empty()) {
        json.key("parameters");
        write_parameters(json, output.parameters());
      }
      json.end_object();
    }
    json.end_array();
  }
  json.end_object();
  return json.take();
}

}  // namespace
}  // namespace tsserve::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tsserve;
  std::string body(reinterpret_cast<const char*>(data), size);
  inference::ModelInferRequest request;
  const server::Status parsed = server::parse_oip_json_request(body, &request);
  if (!parsed.ok()) {
    FUZZ_CHECK(parsed.code() == server::StatusCode::kInvalidArgument && !parsed.message().empty(),
               "refused with code " + std::to_string(static_cast<int>(parsed.code())) + ": " +
                   parsed.message());
    return 0;
  }
  for (const auto& input : request.inputs()) {
    for (float v : input.contents().fp32_contents()) {
      FUZZ_CHECK(std::isfinite(v), "accepted a non-finite FP32 value in " + input.name());
    }
  }
  // Names and strings may hold bytes that are not UTF-8, which the writer replaces with
  // U+FFFD: the round trip is only exact for the others.
  std::string again = fuzz::as_json(request);
  if (again.find("\xEF\xBF\xBD") == std::string::npos) {
    inference::ModelInferRequest reparsed;
    const server::Status status = server::parse_oip_json_request(again, &reparsed);
    FUZZ_CHECK(status.ok(), "its own JSON refused: " + status.message() + "\n" + again);
    FUZZ_CHECK(google::protobuf::util::MessageDifferencer::Equals(request, reparsed),
               "written back and parsed again, the request changed:\n" + again);
  }
  const server::ModelShape model = fuzz::bundled_model_shape(true);
  server::ForecastInput input;
  server::OipReply reply;
  const server::Status decoded =
      server::decode_model_infer_request(request, model, server::RequestLimits{}, &input, &reply);
  if (!decoded.ok()) {
    bool required = false;
    for (const auto& [name, value] : request.parameters()) {
      required |= name == "scaler_mode" && value.string_param() == "required";
    }
    fuzz::check_refusal(decoded, {"id", "parameters", "outputs", "inputs", "raw_input_contents"},
                        required && !model.has_scaler());
  }
  return 0;
}
