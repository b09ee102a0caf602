#include "server/codec/v1_json/model_info_json.h"

#include <google/protobuf/util/json_util.h>

namespace tsserve::server {
namespace {

std::string canonical_json(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  std::string text;
  // Printing a well-formed message cannot fail; an empty object is the fallback.
  if (!google::protobuf::util::MessageToJsonString(message, &text, options).ok()) text = "{}";
  return text;
}

}  // namespace

std::string write_model_list_json(const v1::ListModelsResponse& list) {
  return canonical_json(list);
}

std::string write_model_info_json(const v1::ModelInfo& info) { return canonical_json(info); }

}  // namespace tsserve::server
