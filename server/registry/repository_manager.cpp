#include "server/registry/repository_manager.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <iterator>

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

std::size_t RepositoryManager::stop_by(std::chrono::steady_clock::time_point deadline,
                                       const Status& cut) {
  // The drain runs on a thread of its own so that this one can keep the time: stop()
  // blocks until every batcher is empty, however long its queue.
  std::future<void> drained = std::async(std::launch::async, [this] { stop(); });
  std::size_t cut_calls = 0;
  if (drained.wait_until(deadline) != std::future_status::ready) {
    cut_calls = registry_.cancel_queued(cut);
  }
  drained.get();  // the batches that were running at the deadline finish
  return cut_calls;
}

RepositoryScan RepositoryManager::scan_without_unloaded() {
  RepositoryScan scan = scanner_();
  MutexLock lock(mutex_);
  for (const RepositoryRefusal& refusal : scan.refusals) {
    if (logged_refusals_.insert(refusal.message()).second)
      spdlog::error("model repository: {} (the rest is served)", refusal.message());
  }
  refusals_ = scan.refusals;
  // The names the repository holds now: folders with a model or with a refusal of their own.
  known_.clear();
  bool listed = true;  // false when the directory itself could not be read
  for (const RepositoryModel& model : scan.models) known_.insert(model.name);
  for (const RepositoryRefusal& refusal : scan.refusals) {
    if (refusal.model.empty()) {
      listed = false;
    } else {
      known_.insert(refusal.model);
    }
  }
  // A folder gone from a complete scan takes its explicit unload with it; a scan that could
  // not list the directory (a transient error) says nothing about what is gone.
  if (listed) {
    for (auto it = unloaded_.begin(); it != unloaded_.end();) {
      it = known_.count(*it) > 0 ? std::next(it) : unloaded_.erase(it);
    }
  }
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
  bool remembered = false;
  {
    // Remembered before the registry unloads, so that a poll running meanwhile cannot load
    // it again; only a name the repository knows, so that callers cannot grow the set.
    MutexLock lock(mutex_);
    if (known_.count(model) > 0) {
      unloaded_.insert(model);
      remembered = true;
    }
  }
  const bool had = registry_.unload_model(model);
  if (had && !remembered) {
    // Loaded, yet not in the latest scan: a poll that dropped its folder is applying now
    // and unloads it too. Remembered all the same, so the unload holds whichever comes
    // first; the next complete scan without the folder forgets it.
    MutexLock lock(mutex_);
    unloaded_.insert(model);
  }
  if (had || remembered) changed();
  return had;
}

std::set<std::string> RepositoryManager::unloaded_models() const {
  MutexLock lock(mutex_);
  return unloaded_;
}

std::vector<RepositoryRefusal> RepositoryManager::refusals() const {
  MutexLock lock(mutex_);
  return refusals_;
}

void RepositoryManager::changed() const {
  if (listener_) listener_();
}

}  // namespace tsserve::server
