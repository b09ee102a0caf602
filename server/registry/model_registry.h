#pragma once
// The loaded versions of every model, and the one place a request finds its version.
//
// A request resolves (model, version) once, at admission, and holds a VersionLease to it
// until answered; "" = the newest ready version. Only ready versions resolve.
//
// apply(scan) brings the loaded set in line with a repository scan (repository_scan.h),
// model by model:
//   1. each version the model's policy selects that is not loaded is loaded beside the
//      ones serving (state loading; the loader loads, validates and warms it up), then
//      published (ready) in one step under the lock. A load that fails (the loader throws,
//      or --max-loaded-bytes would be passed) is logged with the path and the reason and
//      shown as failed; it is tried again only when its files change (fingerprint).
//   2. then each loaded version the policy no longer selects is unloaded, but only once
//      the model has a ready selected version: a failed new version leaves the old one
//      serving. A model gone from the scan is unloaded whole.
// Unload = unpublish (state unloading: no new admission), drain (ModelVersion::drain:
// every admitted request is answered), forget; the last lease frees it.
//
// Loading runs on the thread that calls apply() (the repository poller's, never a
// request's); resolve() only takes a short lock, so serving any model never waits for a
// load. apply(), load_model() and unload_model() are serialised among themselves.
//
// Thread safety: every member from any thread.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "server/registry/model_version.h"
#include "server/repository/repository_scan.h"
#include "server/status/status.h"
#include "server/sync/mutex.h"

namespace tsserve::server {

enum class VersionState { kLoading, kReady, kFailed, kUnloading };
const char* to_string(VersionState state);  // "loading", "ready", "failed", "unloading"

struct VersionStatus {
  std::string model;
  int64_t version = 0;
  VersionState state = VersionState::kLoading;
  std::string reason;          // kFailed: why (naming the file)
  int64_t resident_bytes = 0;  // kReady, kUnloading
  double load_seconds = 0.0;   // kReady, kFailed: how long the load took
};

// What the registry reports as it changes (metrics); called without the registry's lock,
// from the thread that applies.
class RegistryObserver {
 public:
  virtual ~RegistryObserver() = default;
  virtual void on_state(const VersionStatus& status) = 0;
  // The version is forgotten (unloaded, or a failed one no longer selected).
  virtual void on_removed(const std::string& model, int64_t version) = 0;
};

class ModelRegistry {
 public:
  // Loads one version, validated and warmed up, into *loaded, or returns the refusal; what
  // the model library throws (ModelError, LibTorch's errors: std::exception) is caught as
  // a refusal too, its what() the reason (the registry adds the path).
  using Loader =
      std::function<Status(const RepositoryModel& model, const RepositoryVersion& version,
                           std::shared_ptr<ModelVersion>* loaded)>;
  struct Options {
    // Resident bytes of all versions at most, counting one being loaded by its checkpoint's
    // size (a state_dict's size is its parameters' plus a small header); 0 = no bound.
    int64_t max_loaded_bytes = 0;
    RegistryObserver* observer = nullptr;  // not owned; may be null
    // Whether a failed load is logged as an error. False when the caller turns the failure
    // into its own (the single --model at start: the server refuses to start, logging the
    // same reason once, as critical).
    bool log_failures = true;
  };

  explicit ModelRegistry(Loader loader, Options options);
  ModelRegistry(const ModelRegistry&) = delete;
  ModelRegistry& operator=(const ModelRegistry&) = delete;
  ~ModelRegistry();  // unloads (drains) every version

  struct Resolution {
    VersionLease lease;  // set when status is OK
    // NOT_FOUND: no such model, or the model has no such ready version; UNAVAILABLE: the
    // model is configured but no version is ready yet; INVALID_ARGUMENT: `version` is not
    // "" or a positive integer. The message says what was not found or is wrong, and what
    // is served.
    Status status;
    bool blames_version = false;  // the version asked for is at fault, not the model name
  };
  // `version`: "" (newest ready) or a positive integer in decimal.
  Resolution resolve(const std::string& model, const std::string& version);

  // Brings every model in line with `scan` (see above). Models not in the scan are
  // unloaded; its refusals are the caller's to report.
  void apply(const RepositoryScan& scan);
  // The same for one model: explicit load (the scan's entry for `model`; absent = unload).
  void apply_model(const RepositoryScan& scan, const std::string& model);
  // Unloads every version of `model`. False when it had none.
  bool unload_model(const std::string& model);
  // Unloads (drains) every version, for the server's drain; the models stay configured,
  // so a later resolve() is kNotReady. The destructor does the same.
  void unload_all();
  // The drain's bound: completes every task still queued in any loaded version's batchers
  // with `status` (DynamicBatcher::cancel_queued), and they accept nothing more; batches
  // running now finish. May run while unload_all() drains. Returns the tasks cut.
  std::size_t cancel_queued(const Status& status);

  // Every version known, by model then version.
  std::vector<VersionStatus> statuses() const;
  // The models the last apply() was asked to serve: those of the scan with a valid
  // version folder or a version loaded.
  std::vector<std::string> configured_models() const;
  // Every configured model has a ready version.
  bool all_ready() const;
  // Some model has a ready version: what this replica can serve (readiness, replica_ready.h).
  bool any_ready() const;
  // Rows waiting in the batchers of every loaded version: {Forecast, Encode}.
  std::pair<std::size_t, std::size_t> queued_rows() const;

 private:
  struct Entry {
    VersionStatus status;
    std::string fingerprint;
    std::shared_ptr<ModelVersion> loaded;  // kReady, kUnloading
  };
  using Key = std::pair<std::string, int64_t>;

  // The steps of apply(), apply_model(), unload_model() and unload_all(): each takes
  // mutex_ for its own short reads and writes.
  void apply_locked_model(const RepositoryModel* model, const std::string& name)
      TSSERVE_REQUIRES(apply_mutex_);
  void load(const RepositoryModel& model, const RepositoryVersion& version)
      TSSERVE_REQUIRES(apply_mutex_);
  void unload(const Key& key) TSSERVE_REQUIRES(apply_mutex_);
  void erase_failed(const Key& key) TSSERVE_REQUIRES(apply_mutex_);
  void set_state(const Key& key, VersionState state, const std::string& reason = "")
      TSSERVE_REQUIRES(apply_mutex_);
  void notify(const VersionStatus& status) const;
  std::string served_summary() const TSSERVE_REQUIRES(mutex_);

  // Constant after construction.
  const Loader loader_;
  const Options options_;

  Mutex apply_mutex_;  // serialises apply, apply_model, unload_model, unload_all

  mutable Mutex mutex_;
  std::map<Key, Entry> entries_ TSSERVE_GUARDED_BY(mutex_);
  std::vector<std::string> configured_ TSSERVE_GUARDED_BY(mutex_);
};

}  // namespace tsserve::server
