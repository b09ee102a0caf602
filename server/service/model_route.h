#pragma once
// Admission of a call that names a model and maybe a version, for both protocols: who
// asks (the bearer token), whether the server serves, then which loaded version answers
// (ModelRegistry::resolve, once: the call holds that version to its end).
//
// An empty model name picks the only configured model; with several it is
// INVALID_ARGUMENT listing them. An unknown model or version is NOT_FOUND naming it and
// listing what is served; a configured model with no ready version yet is UNAVAILABLE;
// a version that is not a positive integer is INVALID_ARGUMENT.

#include <grpcpp/grpcpp.h>

#include <string>

#include "server/registry/model_registry.h"

namespace tsserve::server {

struct ServiceContext;

struct ModelRoute {
  grpc::Status status;  // OK: `lease` holds the version
  VersionLease lease;
};

// `model_field`/`version_field` name the request's fields in messages ("model",
// "model_version"; the Open Inference Protocol's "model_name", "model_version").
ModelRoute route_call(const ServiceContext& service, const grpc::ServerContextBase& context,
                      const std::string& model, const std::string& version,
                      const char* model_field = "model",
                      const char* version_field = "model_version");

// The same without the token and serving checks (for callers that made them).
ModelRoute route_to_version(ModelRegistry& registry, const std::string& model,
                            const std::string& version, const char* model_field,
                            const char* version_field);

}  // namespace tsserve::server
