#pragma once
// Admission of a call that names a model and maybe a version, for every door: who asks
// (the bearer token, checked by the door), whether the server serves, then which loaded
// version answers (ModelRegistry::resolve, once: the call holds that version to its end).
//
// An empty model name picks the only configured model; with several it is
// INVALID_ARGUMENT listing them. An unknown model or version is NOT_FOUND naming it and
// listing what is served; a configured model with no ready version yet is UNAVAILABLE;
// a version that is not a positive integer is INVALID_ARGUMENT.

#include <string>

#include "server/registry/model_registry.h"
#include "server/status/status.h"

namespace tsserve::server {

struct ServiceContext;

struct ModelRoute {
  Status status;  // OK: `lease` holds the version
  VersionLease lease;
};

// `authenticated` is the door's token check (service_context.h). `model_field` and
// `version_field` name the request's fields in messages ("model", "model_version"; the
// Open Inference Protocol's "model_name", "model_version").
ModelRoute route_call(const ServiceContext& service, const Status& authenticated,
                      const std::string& model, const std::string& version,
                      const char* model_field = "model",
                      const char* version_field = "model_version");

// The same without the token and serving checks (for callers that made them).
ModelRoute route_to_version(ModelRegistry& registry, const std::string& model,
                            const std::string& version, const char* model_field,
                            const char* version_field);

}  // namespace tsserve::server
