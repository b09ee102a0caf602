#pragma once
// The models the server serves, kept in line with where they come from: a scanner (the
// repository directory, repository_scan.h, or the single --model as a repository of one)
// applied to the registry (model_registry.h) at start, by the poller every
// `poll_seconds`, and by explicit load/unload calls (the Open Inference Protocol's
// RepositoryModelLoad/Unload).
//
// Explicit unload outlasts polls: a model unloaded by name stays unloaded until it is
// loaded by name again (as Triton's explicit mode), even though its folder is still
// there; removing the folder is the way to unload it for good.
//
// Thread safety: every member from any thread. poll_once() is what the poller's thread
// runs; tests call it directly instead of waiting for the poller.

#include <condition_variable>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "server/registry/model_registry.h"
#include "server/repository/repository_scan.h"
#include "server/status/status.h"
#include "server/sync/mutex.h"

namespace tsserve::server {

class RepositoryManager {
 public:
  using Scanner = std::function<RepositoryScan()>;
  // After every change of what is loaded (poll, load, unload): readiness and health.
  using ChangeListener = std::function<void()>;

  RepositoryManager(Scanner scanner, ModelRegistry::Loader loader,
                    ModelRegistry::Options registry_options);
  RepositoryManager(const RepositoryManager&) = delete;
  RepositoryManager& operator=(const RepositoryManager&) = delete;
  ~RepositoryManager();  // stop()

  // Stops the poller, then unloads (drains) every version: every admitted request is
  // answered. Idempotent; the object stays usable for lookups (nothing resolves).
  void stop();

  // REQUIRES: called before poll_once and start_polling, at most once.
  void on_change(ChangeListener listener) { listener_ = std::move(listener); }

  // Scans and applies the scan, logging each refusal the first time it is seen.
  void poll_once();
  // Runs poll_once() every `seconds` on a thread of its own until destruction.
  // REQUIRES: seconds > 0; called at most once.
  void start_polling(double seconds);

  // Loads (or reloads) `model` from a fresh scan. OK when a version of it is ready
  // afterwards; else NOT_FOUND (not in the repository) or FAILED_PRECONDITION (refused or
  // failed to load), the message giving the reasons.
  Status load_model(const std::string& model);
  // Unloads every version of `model` (draining them). False when none was loaded.
  bool unload_model(const std::string& model);

  ModelRegistry& registry() { return registry_; }
  // The refusals of the latest scan.
  std::vector<RepositoryRefusal> refusals() const;

 private:
  RepositoryScan scan_without_unloaded();
  void changed() const;

  const Scanner scanner_;
  ChangeListener listener_;  // constant once polling starts
  ModelRegistry registry_;

  mutable Mutex mutex_;
  std::vector<RepositoryRefusal> refusals_ TSSERVE_GUARDED_BY(mutex_);
  std::set<std::string> logged_refusals_ TSSERVE_GUARDED_BY(mutex_);
  std::set<std::string> unloaded_ TSSERVE_GUARDED_BY(mutex_);  // explicitly unloaded names
  bool stopping_ TSSERVE_GUARDED_BY(mutex_) = false;
  std::condition_variable stop_;
  std::thread poller_;
};

}  // namespace tsserve::server
