#include "server/registry/repository_manager.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

namespace tsserve::server {

RepositoryManager::RepositoryManager(Scanner scanner, ModelRegistry::Loader loader,
                                     ModelRegistry::Options registry_options)
    : scanner_(std::move(scanner)), registry_(std::move(loader), registry_options) {}

RepositoryManager::~RepositoryManager() { stop(); }

void RepositoryManager::stop() {
  {
    MutexLock lock(mutex_);
    stopping_ = true;
  }
  stop_.notify_all();
  if (poller_.joinable()) poller_.join();
  registry_.unload_all();
}

RepositoryScan RepositoryManager::scan_without_unloaded() {
  RepositoryScan scan = scanner_();
  MutexLock lock(mutex_);
  for (const RepositoryRefusal& refusal : scan.refusals) {
    if (logged_refusals_.insert(refusal.message()).second)
      spdlog::error("model repository: {} (the rest is served)", refusal.message());
  }
  refusals_ = scan.refusals;
  scan.models.erase(std::remove_if(scan.models.begin(), scan.models.end(),
                                   [&](const RepositoryModel& model) TSSERVE_REQUIRES(mutex_) {
                                     return unloaded_.count(model.name) > 0;
                                   }),
                    scan.models.end());
  return scan;
}

void RepositoryManager::poll_once() {
  registry_.apply(scan_without_unloaded());
  changed();
}

void RepositoryManager::start_polling(double seconds) {
  poller_ = std::thread([this, seconds] {
    const auto period = std::chrono::duration<double>(seconds);
    MutexLock lock(mutex_);
    while (!stop_.wait_for(lock.native(), period,
                           [this]() TSSERVE_REQUIRES(mutex_) { return stopping_; })) {
      lock.unlock();
      try {
        poll_once();
      } catch (const std::exception& error) {  // a scan never throws; a listener might
        spdlog::error("model repository poll failed: {}", error.what());
      }
      lock.lock();
    }
  });
}

Status RepositoryManager::load_model(const std::string& model) {
  {
    MutexLock lock(mutex_);
    unloaded_.erase(model);
  }
  const RepositoryScan scan = scan_without_unloaded();
  registry_.apply_model(scan, model);
  changed();
  std::string why;
  for (const RepositoryRefusal& refusal : scan.refusals)
    if (refusal.model == model) why += (why.empty() ? "" : "; ") + refusal.message();
  if (!scan.find(model)) {
    return {StatusCode::kNotFound,
            "model \"" + model + "\" is not in the repository" + (why.empty() ? "" : ": " + why)};
  }
  bool ready = false;
  for (const VersionStatus& status : registry_.statuses()) {
    if (status.model != model) continue;
    ready |= status.state == VersionState::kReady;
    if (status.state == VersionState::kFailed) why += (why.empty() ? "" : "; ") + status.reason;
  }
  if (ready) return {};
  return {StatusCode::kFailedPrecondition,
          "model \"" + model + "\" has no ready version: " + (why.empty() ? "none selected" : why)};
}

bool RepositoryManager::unload_model(const std::string& model) {
  {
    MutexLock lock(mutex_);
    unloaded_.insert(model);
  }
  const bool had = registry_.unload_model(model);
  changed();
  return had;
}

std::vector<RepositoryRefusal> RepositoryManager::refusals() const {
  MutexLock lock(mutex_);
  return refusals_;
}

void RepositoryManager::changed() const {
  if (listener_) listener_();
}

}  // namespace tsserve::server
