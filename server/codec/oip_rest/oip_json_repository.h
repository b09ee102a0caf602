#pragma once
// The model repository extension on the REST binding, as Triton serves it (and KServe's
// load/unload answers):
//
//   POST /v2/repository/index            {"ready": true}? -> [{"name", "version", "state",
//                                                              "reason"}, ...]
//   POST /v2/repository/models/M/load    -> {"name": M, "load": true}
//   POST /v2/repository/models/M/unload  -> {"name": M, "unload": true}
//
// The index lists each version the server knows (tsserve.v1 ListModels), its state in
// Triton's words: READY, LOADING, UNLOADING, UNAVAILABLE (failed, with its reason).

#include <string>

#include "server/status/status.h"
#include "tsserve/v1/forecast_service.pb.h"

namespace tsserve::server {

// An empty body, or {"ready": bool} (true: only the ready versions). INVALID_ARGUMENT
// naming the field otherwise.
Status parse_repository_index_request(std::string& body, bool* ready_only);

std::string oip_json_repository_index(const v1::ListModelsResponse& models, bool ready_only);

// An empty body or {} (a load takes no parameters here). INVALID_ARGUMENT otherwise.
Status check_repository_load_body(std::string& body);

// {"name": M, "load": true} or {"name": M, "unload": true}.
std::string oip_json_repository_action(const std::string& model, const char* action);

}  // namespace tsserve::server
