#include "server/codec/oip_rest/oip_json_repository.h"

#include <string_view>

#include "server/codec/json/json_reading.h"
#include "server/codec/json/json_writer.h"
#include "server/codec/json/reused_json_parser.h"

namespace tsserve::server {
namespace {

const char* triton_state(v1::ModelVersionStatus::State state) {
  switch (state) {
    case v1::ModelVersionStatus::STATE_READY:
      return "READY";
    case v1::ModelVersionStatus::STATE_LOADING:
      return "LOADING";
    case v1::ModelVersionStatus::STATE_UNLOADING:
      return "UNLOADING";
    default:
      return "UNAVAILABLE";
  }
}

bool blank(const std::string& body) {
  return body.find_first_not_of(" \t\r\n") == std::string::npos;
}

}  // namespace

Status parse_repository_index_request(std::string& body, bool* ready_only) {
  *ready_only = false;
  if (blank(body)) return {};
  ReusedJsonParser parser;
  json_od::document document;
  json_od::object root;
  TSSERVE_RETURN_IF_ERROR(
      open_json_object(body, parser.get(), &document, &root, "a JSON object: {\"ready\": bool}"));
  bool ready = false;
  TSSERVE_RETURN_IF_ERROR(
      for_each_json_field(root, "", [&](std::string_view key, json_od::value& value) -> Status {
        if (key != "ready") {
          return invalid_argument(std::string(key) + ": unknown field; the index takes ready");
        }
        TSSERVE_RETURN_IF_ERROR(first_time(&ready, "", key));
        return read_json_bool(value, "ready", ready_only);
      }));
  return json_ends_after_object(document);
}

std::string oip_json_repository_index(const v1::ListModelsResponse& models, bool ready_only) {
  JsonWriter json;
  json.begin_array();
  for (const v1::ListedModel& model : models.models()) {
    for (const v1::ModelVersionStatus& version : model.versions()) {
      if (ready_only && version.state() != v1::ModelVersionStatus::STATE_READY) continue;
      json.begin_object();
      json.key("name").string(model.name());
      json.key("version").string(version.version());
      json.key("state").string(triton_state(version.state()));
      json.key("reason").string(version.reason());
      json.end_object();
    }
  }
  json.end_array();
  return json.take();
}

Status check_repository_load_body(std::string& body) {
  if (blank(body)) return {};
  ReusedJsonParser parser;
  json_od::document document;
  json_od::object root;
  TSSERVE_RETURN_IF_ERROR(
      open_json_object(body, parser.get(), &document, &root, "an empty object"));
  TSSERVE_RETURN_IF_ERROR(
      for_each_json_field(root, "", [&](std::string_view key, json_od::value&) -> Status {
        return invalid_argument(std::string(key) +
                                ": not taken; a model loads from its repository folder as it "
                                "is (send no body, or {})");
      }));
  return json_ends_after_object(document);
}

std::string oip_json_repository_action(const std::string& model, const char* action) {
  JsonWriter json;
  json.begin_object().key("name").string(model).key(action).boolean(true).end_object();
  return json.take();
}

}  // namespace tsserve::server
