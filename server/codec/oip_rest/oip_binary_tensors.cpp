#include "server/codec/oip_rest/oip_binary_tensors.h"

#include <algorithm>

#include "server/codec/oip_rest/oip_json_request.h"
#include "server/codec/oip_rest/oip_json_response.h"
#include "server/codec/oip_rest/oip_packed_contents.h"

namespace tsserve::server {
namespace {

constexpr char kBinarySize[] = "binary_data_size";
constexpr char kBinaryOutput[] = "binary_data";
constexpr char kAllBinary[] = "binary_data_output";

// Reads and removes a boolean parameter; INVALID_ARGUMENT when it is not a boolean.
Status take_flag(google::protobuf::Map<std::string, inference::InferParameter>* parameters,
                 const char* name, const std::string& path, bool* value) {
  const auto it = parameters->find(name);
  if (it == parameters->end()) return {};
  if (!it->second.has_bool_param()) {
    return invalid_argument(path + ".parameters." + name + ": expected true or false");
  }
  *value = it->second.bool_param();
  parameters->erase(it);
  return {};
}

// Every input's bytes, in input order, when some come after the JSON header (at `offset`):
// the binary ones from the body's tail, the others packed from their JSON data, so that
// the decoder sees one raw form. Nothing changes when no input is binary.
Status take_binary_inputs(const std::string& body, std::size_t offset,
                          inference::ModelInferRequest* message) {
  std::vector<std::string> raw;
  bool any_binary = false;
  for (int i = 0; i < message->inputs_size(); ++i) {
    auto* input = message->mutable_inputs(i);
    const std::string path = "inputs[" + std::to_string(i) + "]";
    const auto it = input->parameters().find(kBinarySize);
    if (it == input->parameters().end()) {
      raw.push_back(packed_bytes(input->contents()));
      continue;
    }
    if (!it->second.has_int64_param() || it->second.int64_param() < 0) {
      return invalid_argument(path +
                              ".parameters.binary_data_size: expected a byte count, an "
                              "integer >= 0");
    }
    const auto size = static_cast<std::size_t>(it->second.int64_param());
    if (size > body.size() - offset) {
      return invalid_argument(path + ".parameters.binary_data_size: " + std::to_string(size) +
                              " bytes, but only " + std::to_string(body.size() - offset) +
                              " follow (the binary data comes after the JSON header, whose "
                              "length the header inference-header-content-length gives)");
    }
    raw.push_back(body.substr(offset, size));
    offset += size;
    input->mutable_parameters()->erase(kBinarySize);
    any_binary = true;
  }
  if (offset != body.size()) {
    return invalid_argument("the body: " + std::to_string(body.size() - offset) +
                            " bytes after the inputs' binary data; the sizes given by "
                            "binary_data_size must add up to the bytes after the header");
  }
  if (!any_binary) return {};
  for (int i = 0; i < message->inputs_size(); ++i) message->mutable_inputs(i)->clear_contents();
  for (std::string& bytes : raw) message->add_raw_input_contents(std::move(bytes));
  return {};
}

}  // namespace

Status parse_oip_rest_request(std::string& body, std::optional<std::size_t> header_length,
                              OipRestRequest* request) {
  inference::ModelInferRequest& message = request->message;
  if (header_length && *header_length > body.size()) {
    return invalid_argument("inference-header-content-length: " + std::to_string(*header_length) +
                            " bytes, but the body has " + std::to_string(body.size()));
  }
  if (header_length) {
    std::string header = body.substr(0, *header_length);
    TSSERVE_RETURN_IF_ERROR(parse_oip_json_request(header, &message));
  } else {
    TSSERVE_RETURN_IF_ERROR(parse_oip_json_request(body, &message));
  }
  TSSERVE_RETURN_IF_ERROR(take_binary_inputs(body, header_length.value_or(body.size()), &message));
  TSSERVE_RETURN_IF_ERROR(
      take_flag(message.mutable_parameters(), kAllBinary, "the request", &request->all_binary));
  for (int i = 0; i < message.outputs_size(); ++i) {
    bool binary = request->all_binary;
    auto* output = message.mutable_outputs(i);
    TSSERVE_RETURN_IF_ERROR(take_flag(output->mutable_parameters(), kBinaryOutput,
                                      "outputs[" + std::to_string(i) + "]", &binary));
    if (binary) request->binary_outputs.push_back(output->name());
  }
  return {};
}

OipRestAnswer write_oip_rest_answer(const OipRestRequest& request,
                                    const inference::ModelInferResponse& response) {
  OipRestAnswer answer;
  if (!request.all_binary && request.binary_outputs.empty()) {
    answer.body = oip_json_infer_response(response);
    answer.header_length = answer.body.size();
    return answer;
  }
  std::string tail;
  answer.body = oip_json_infer_response(
      response,
      [&](const std::string& output) {
        return std::find(request.binary_outputs.begin(), request.binary_outputs.end(), output) !=
                   request.binary_outputs.end() ||
               (request.all_binary && request.message.outputs_size() == 0);
      },
      &tail);
  answer.header_length = answer.body.size();
  answer.body += tail;
  return answer;
}

}  // namespace tsserve::server
