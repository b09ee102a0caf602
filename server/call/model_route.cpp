#include "server/call/model_route.h"

#include "server/call/call_status.h"
#include "server/call/service_context.h"
#include "server/codec/common/model_selection.h"

namespace tsserve::server {

ModelRoute route_to_version(ModelRegistry& registry, const std::string& model,
                            const std::string& version, const char* model_field,
                            const char* version_field) {
  ModelRoute route;
  std::string name = model;
  if (name.empty()) {
    const std::vector<std::string> configured = registry.configured_models();
    std::size_t index = 0;
    route.status = check_model_name(model, configured, &index, model_field);
    if (!route.status.ok()) return route;
    name = configured[index];
  }
  ModelRegistry::Resolution resolved = registry.resolve(name, version);
  route.status = with_field(resolved.status, resolved.blames_version ? version_field : model_field);
  route.lease = std::move(resolved.lease);
  return route;
}

ModelRoute route_call(const ServiceContext& service, const Status& authenticated,
                      const std::string& model, const std::string& version, const char* model_field,
                      const char* version_field) {
  // Who asks comes first: an unauthenticated caller learns nothing, not even whether the
  // server is draining or which models it has.
  ModelRoute route;
  route.status = authenticated;
  if (route.status.ok()) route.status = serving_status(*service.state);
  if (!route.status.ok()) return route;
  return route_to_version(*service.registry, model, version, model_field, version_field);
}

}  // namespace tsserve::server
