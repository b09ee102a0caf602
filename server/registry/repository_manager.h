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
// What is remembered is bounded by the repository, never by what callers send: unload
// remembers a name only when the repository knows it (the latest scan lists its folder,
// valid or refused, or a version of it is loaded); an unload of any other name is refused
// (false) and leaves no trace, so unknown names cannot grow the set or block a model that
// is added later. A remembered name is forgotten once a complete scan (the directory
// itself listed) no longer holds its folder: a folder added again later is a new model
// and is served. A scan that could not list the directory forgets nothing.
//
// Thread safety: every member from any thread. poll_once() is what the poller's thread
// runs; tests call it directly instead of waiting for the poller.

#include <chrono>
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
  // stop() with a bound: from `deadline` on, every call still queued is answered with
  // `cut` (UNAVAILABLE, saying why) instead of waiting its turn; batches running then
  // finish (a forward pass cannot be interrupted), so this returns once they have.
  // Returns how many calls were cut: 0 when everything admitted ran before the deadline.
  std::size_t stop_by(std::chrono::steady_clock::time_point deadline, const Status& cut);

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
  // Unloads every version of `model` (draining them) and keeps it unloaded across polls
  // when the repository knows it (above). False when none was loaded.
  bool unload_model(const std::string& model);
  // The names explicitly unloaded and still remembered (for tests and diagnostics).
  std::set<std::string> unloaded_models() const;

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
  // Explicitly unloaded names; a subset of known_ (or of what was loaded at the unload).
  std::set<std::string> unloaded_ TSSERVE_GUARDED_BY(mutex_);
  // The model folders of the latest scan, valid or refused: what an unload may remember.
  std::set<std::string> known_ TSSERVE_GUARDED_BY(mutex_);
  bool stopping_ TSSERVE_GUARDED_BY(mutex_) = false;
  std::condition_variable stop_;
  std::thread poller_;
};

}  // namespace tsserve::server
