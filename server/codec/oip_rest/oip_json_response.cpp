#include "server/codec/oip_rest/oip_json_response.h"

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "server/codec/json/json_writer.h"
#include "server/codec/oip_rest/oip_packed_contents.h"

namespace tsserve::server {
namespace {

void write_parameter_entries(
    JsonWriter& json, const google::protobuf::Map<std::string, inference::InferParameter>& map) {
  for (const auto& [name, parameter] : map) {
    json.key(name);
    switch (parameter.parameter_choice_case()) {
      case inference::InferParameter::kBoolParam:
        json.boolean(parameter.bool_param());
        break;
      case inference::InferParameter::kInt64Param:
        json.integer(parameter.int64_param());
        break;
      case inference::InferParameter::kStringParam:
        json.string(parameter.string_param());
        break;
      default:
        json.null();
    }
  }
}

void write_parameters(JsonWriter& json,
                      const google::protobuf::Map<std::string, inference::InferParameter>& map) {
  json.begin_object();
  write_parameter_entries(json, map);
  json.end_object();
}

// The output's elements as little-endian bytes, as raw_output_contents holds them.
std::string output_bytes(const inference::ModelInferResponse& response, int index) {
  if (index < response.raw_output_contents_size()) return response.raw_output_contents(index);
  return packed_bytes(response.outputs(index).contents());
}

void write_shape(JsonWriter& json, const google::protobuf::RepeatedField<int64_t>& shape) {
  json.begin_array();
  for (int64_t dim : shape) json.integer(dim);
  json.end_array();
}

// Little-endian elements of type T in `bytes`, one JSON value each.
template <typename T, typename Write>
void write_raw(JsonWriter& json, const std::string& bytes, Write write) {
  json.begin_array();
  const std::size_t count = bytes.size() / sizeof(T);
  for (std::size_t i = 0; i < count; ++i) {
    T value;
    std::memcpy(&value, bytes.data() + i * sizeof(T), sizeof(T));
    write(value);
  }
  json.end_array();
}

void write_raw_data(JsonWriter& json, const std::string& datatype, const std::string& bytes) {
  if (datatype == "FP32") {
    const std::size_t count = bytes.size() / sizeof(float);
    std::vector<float> values(count);
    if (count != 0) std::memcpy(values.data(), bytes.data(), count * sizeof(float));
    json.numbers(values.data(), count);
  } else if (datatype == "FP64") {
    write_raw<double>(json, bytes, [&](double v) { json.number(v); });
  } else if (datatype == "INT64") {
    write_raw<std::int64_t>(json, bytes, [&](std::int64_t v) { json.integer(v); });
  } else if (datatype == "INT32") {
    write_raw<std::int32_t>(json, bytes, [&](std::int32_t v) { json.integer(v); });
  } else {
    json.begin_array().end_array();  // tsserve answers FP32 and INT64 only
  }
}

void write_typed_data(JsonWriter& json, const inference::InferTensorContents& contents) {
  if (contents.fp32_contents_size() > 0) {
    json.numbers(contents.fp32_contents().data(),
                 static_cast<std::size_t>(contents.fp32_contents_size()));
  } else if (contents.int64_contents_size() > 0) {
    json.begin_array();
    for (int64_t v : contents.int64_contents()) json.integer(v);
    json.end_array();
  } else if (contents.fp64_contents_size() > 0) {
    json.begin_array();
    for (double v : contents.fp64_contents()) json.number(v);
    json.end_array();
  } else if (contents.int_contents_size() > 0) {
    json.begin_array();
    for (int32_t v : contents.int_contents()) json.integer(v);
    json.end_array();
  } else if (contents.bool_contents_size() > 0) {
    json.begin_array();
    for (bool v : contents.bool_contents()) json.boolean(v);
    json.end_array();
  } else if (contents.bytes_contents_size() > 0) {
    json.begin_array();
    for (const std::string& v : contents.bytes_contents()) json.string(v);
    json.end_array();
  } else {
    json.begin_array().end_array();
  }
}

void write_metadata_tensor(JsonWriter& json,
                           const inference::ModelMetadataResponse::TensorMetadata& tensor) {
  json.begin_object();
  json.key("name").string(tensor.name());
  json.key("datatype").string(tensor.datatype());
  json.key("shape");
  write_shape(json, tensor.shape());
  json.end_object();
}

}  // namespace

std::string oip_json_infer_response(const inference::ModelInferResponse& response,
                                    const std::function<bool(const std::string&)>& binary,
                                    std::string* tail) {
  JsonWriter json;
  json.begin_object();
  json.key("model_name").string(response.model_name());
  if (!response.model_version().empty()) json.key("model_version").string(response.model_version());
  if (!response.id().empty()) json.key("id").string(response.id());
  if (!response.parameters().empty()) {
    json.key("parameters");
    write_parameters(json, response.parameters());
  }
  json.key("outputs").begin_array();
  for (int i = 0; i < response.outputs_size(); ++i) {
    const auto& output = response.outputs(i);
    json.begin_object();
    json.key("name").string(output.name());
    json.key("datatype").string(output.datatype());
    json.key("shape");
    write_shape(json, output.shape());
    if (binary && tail != nullptr && binary(output.name())) {
      const std::string bytes = output_bytes(response, i);
      json.key("parameters").begin_object();
      write_parameter_entries(json, output.parameters());
      json.key("binary_data_size").unsigned_integer(bytes.size());
      json.end_object();
      json.end_object();
      tail->append(bytes);
      continue;
    }
    if (!output.parameters().empty()) {
      json.key("parameters");
      write_parameters(json, output.parameters());
    }
    json.key("data");
    if (i < response.raw_output_contents_size()) {
      write_raw_data(json, output.datatype(), response.raw_output_contents(i));
    } else {
      write_typed_data(json, output.contents());
    }
    json.end_object();
  }
  json.end_array();
  json.end_object();
  return json.take();
}

std::string oip_json_model_metadata(const inference::ModelMetadataResponse& response) {
  JsonWriter json;
  json.begin_object();
  json.key("name").string(response.name());
  json.key("versions").begin_array();
  for (const std::string& version : response.versions()) json.string(version);
  json.end_array();
  json.key("platform").string(response.platform());
  json.key("inputs").begin_array();
  for (const auto& tensor : response.inputs()) write_metadata_tensor(json, tensor);
  json.end_array();
  json.key("outputs").begin_array();
  for (const auto& tensor : response.outputs()) write_metadata_tensor(json, tensor);
  json.end_array();
  json.end_object();
  return json.take();
}

std::string oip_json_server_metadata(const inference::ServerMetadataResponse& response) {
  JsonWriter json;
  json.begin_object();
  json.key("name").string(response.name());
  json.key("version").string(response.version());
  json.key("extensions").begin_array();
  for (const std::string& extension : response.extensions()) json.string(extension);
  json.end_array();
  json.end_object();
  return json.take();
}

std::string oip_json_server_live(const inference::ServerLiveResponse& response) {
  return JsonWriter().begin_object().key("live").boolean(response.live()).end_object().take();
}

std::string oip_json_server_ready(const inference::ServerReadyResponse& response) {
  return JsonWriter().begin_object().key("ready").boolean(response.ready()).end_object().take();
}

std::string oip_json_model_ready(const std::string& name,
                                 const inference::ModelReadyResponse& response) {
  return JsonWriter()
      .begin_object()
      .key("name")
      .string(name)
      .key("ready")
      .boolean(response.ready())
      .end_object()
      .take();
}

}  // namespace tsserve::server
