#include "server/call/model_listing.h"

#include <map>

namespace tsserve::server {
namespace {

v1::ModelVersionStatus::State to_proto(VersionState state) {
  switch (state) {
    case VersionState::kLoading:
      return v1::ModelVersionStatus::STATE_LOADING;
    case VersionState::kReady:
      return v1::ModelVersionStatus::STATE_READY;
    case VersionState::kFailed:
      return v1::ModelVersionStatus::STATE_FAILED;
    case VersionState::kUnloading:
      return v1::ModelVersionStatus::STATE_UNLOADING;
  }
  return v1::ModelVersionStatus::STATE_UNSPECIFIED;
}

}  // namespace

v1::ListModelsResponse list_models(RepositoryManager& repository) {
  v1::ListModelsResponse response;
  std::map<std::string, v1::ListedModel> models;
  for (const std::string& name : repository.registry().configured_models())
    models[name].set_name(name);
  for (const VersionStatus& status : repository.registry().statuses()) {
    v1::ListedModel& model = models[status.model];
    model.set_name(status.model);
    v1::ModelVersionStatus* version = model.add_versions();
    version->set_version(std::to_string(status.version));
    version->set_state(to_proto(status.state));
    version->set_reason(status.reason);
    version->set_resident_bytes(status.resident_bytes);
    version->set_load_seconds(status.load_seconds);
    if (status.state == VersionState::kReady) model.set_default_version(version->version());
  }
  for (auto& [name, model] : models) *response.add_models() = std::move(model);
  for (const RepositoryRefusal& refusal : repository.refusals())
    response.add_refusals(refusal.message());
  return response;
}

}  // namespace tsserve::server
