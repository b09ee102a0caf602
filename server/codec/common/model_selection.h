#pragma once
// Which loaded model a request's `model` field names (forecast_service.proto: "Empty: the
// only loaded model; INVALID_ARGUMENT when several are loaded. NOT_FOUND when no model
// has it.").

#include <cstddef>
#include <string>
#include <vector>

#include "server/status/status.h"

namespace tsserve::server {

// OK when `requested` picks exactly one of `loaded` (the names of the loaded models), and
// then stores its index in *index when `index` is not null. Otherwise:
//  - INVALID_ARGUMENT: `requested` is empty and several models are loaded;
//  - NOT_FOUND: no loaded model has the name (or none is loaded at all).
// Each message names the field (`field`: "model" in tsserve.v1) and lists the loaded names.
Status check_model_name(const std::string& requested, const std::vector<std::string>& loaded,
                        std::size_t* index = nullptr, const char* field = "model");

}  // namespace tsserve::server
