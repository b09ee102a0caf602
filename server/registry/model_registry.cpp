#include "server/registry/model_registry.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <set>
#include <sstream>

namespace tsserve::server {
namespace {

int64_t checkpoint_bytes(const RepositoryVersion& version) {
  std::error_code code;
  const auto size = std::filesystem::file_size(version.checkpoint, code);
  return code ? 0 : static_cast<int64_t>(size);
}

}  // namespace

const char* to_string(VersionState state) {
  switch (state) {
    case VersionState::kLoading:
      return "loading";
    case VersionState::kReady:
      return "ready";
    case VersionState::kFailed:
      return "failed";
    case VersionState::kUnloading:
      return "unloading";
  }
  return "unknown";
}

ModelRegistry::ModelRegistry(Loader loader, Options options)
    : loader_(std::move(loader)), options_(options) {}

ModelRegistry::~ModelRegistry() { unload_all(); }

void ModelRegistry::unload_all() {
  MutexLock serial(apply_mutex_);
  std::vector<Key> loaded;
  {
    MutexLock lock(mutex_);
    for (const auto& [key, entry] : entries_)
      if (entry.loaded) loaded.push_back(key);
  }
  for (const Key& key : loaded) unload(key);
}

std::size_t ModelRegistry::cancel_queued(const Status& status) {
  // Not under apply_mutex_: unload_all() holds it for the whole drain this bounds.
  std::vector<std::shared_ptr<ModelVersion>> loaded;
  {
    MutexLock lock(mutex_);
    for (const auto& [key, entry] : entries_)
      if (entry.loaded) loaded.push_back(entry.loaded);
  }
  std::size_t cut = 0;
  for (const std::shared_ptr<ModelVersion>& version : loaded) {
    cut += version->forecast_batcher().cancel_queued(status);
    cut += version->encode_batcher().cancel_queued(status);
  }
  return cut;
}

ModelRegistry::Resolution ModelRegistry::resolve(const std::string& model,
                                                 const std::string& version) {
  Resolution result;
  int64_t wanted = 0;
  if (!version.empty() && !parse_version_number(version, &wanted)) {
    result.blames_version = true;
    result.status = invalid_argument(
        "model_version \"" + version +
        "\" is not a version; expected \"\" (the newest ready) or a positive integer");
    return result;
  }
  MutexLock lock(mutex_);
  auto first = entries_.lower_bound({model, 0});
  auto last = entries_.upper_bound({model, INT64_MAX});
  // The newest ready version, or the one asked for if ready.
  for (auto it = std::make_reverse_iterator(last); it != std::make_reverse_iterator(first); ++it) {
    const Entry& entry = it->second;
    if (entry.status.state != VersionState::kReady) continue;
    if (wanted != 0 && entry.status.version != wanted) continue;
    entry.loaded->begin_admission();
    result.lease = VersionLease(entry.loaded);
    return result;
  }
  const bool configured =
      std::find(configured_.begin(), configured_.end(), model) != configured_.end();
  if (first == last && !configured) {
    result.status = {StatusCode::kNotFound,
                     "model \"" + model + "\" is not served; served: " + served_summary()};
    return result;
  }
  if (wanted != 0) {
    auto it = entries_.find({model, wanted});
    std::string error = "model \"" + model + "\" has no ready version " + version;
    if (it != entries_.end()) {
      error += std::string(" (it is ") + to_string(it->second.status.state) +
               (it->second.status.reason.empty() ? "" : ": " + it->second.status.reason) + ")";
    }
    error += "; served: " + served_summary();
    result.blames_version = true;
    result.status = {StatusCode::kNotFound, error};
    return result;
  }
  std::string error = "model \"" + model + "\" has no ready version yet";
  for (auto it = first; it != last; ++it) {
    error += "; version " + std::to_string(it->second.status.version) + " is " +
             to_string(it->second.status.state) +
             (it->second.status.reason.empty() ? "" : ": " + it->second.status.reason);
  }
  result.status = {StatusCode::kUnavailable, error};
  return result;
}

void ModelRegistry::apply(const RepositoryScan& scan) {
  MutexLock serial(apply_mutex_);
  std::set<std::string> names;
  {
    MutexLock lock(mutex_);
    configured_.clear();
    for (const auto& [key, entry] : entries_) names.insert(key.first);
    // A model folder with no valid version is a refusal, not a model the server waits
    // for; unless one of its versions is loaded: then it stays (and keeps serving).
    for (const RepositoryModel& model : scan.models) {
      if (!model.versions.empty() || names.count(model.name)) configured_.push_back(model.name);
    }
  }
  for (const RepositoryModel& model : scan.models) names.insert(model.name);
  for (const std::string& name : names) apply_locked_model(scan.find(name), name);
}

void ModelRegistry::apply_model(const RepositoryScan& scan, const std::string& name) {
  MutexLock serial(apply_mutex_);
  const RepositoryModel* model = scan.find(name);
  {
    MutexLock lock(mutex_);
    auto it = std::find(configured_.begin(), configured_.end(), name);
    if (model && it == configured_.end()) configured_.push_back(name);
    if (!model && it != configured_.end()) configured_.erase(it);
  }
  apply_locked_model(model, name);
}

bool ModelRegistry::unload_model(const std::string& name) {
  MutexLock serial(apply_mutex_);
  bool had = false;
  {
    MutexLock lock(mutex_);
    configured_.erase(std::remove(configured_.begin(), configured_.end(), name), configured_.end());
    had = entries_.lower_bound({name, 0}) != entries_.upper_bound({name, INT64_MAX});
  }
  apply_locked_model(nullptr, name);
  return had;
}

void ModelRegistry::apply_locked_model(const RepositoryModel* model, const std::string& name) {
  const std::vector<int64_t> selected = model ? model->selected_versions() : std::vector<int64_t>{};
  for (int64_t number : selected) {
    const RepositoryVersion& version = model->version(number);
    {
      MutexLock lock(mutex_);
      auto it = entries_.find({name, number});
      if (it != entries_.end() && (it->second.status.state != VersionState::kFailed ||
                                   it->second.fingerprint == version.fingerprint))
        continue;  // loaded, or failed on these very files
    }
    load(*model, version);
  }
  std::vector<Key> to_unload;
  std::vector<Key> to_forget;
  {
    MutexLock lock(mutex_);
    auto first = entries_.lower_bound({name, 0});
    auto last = entries_.upper_bound({name, INT64_MAX});
    auto is_selected = [&](int64_t number) {
      return std::find(selected.begin(), selected.end(), number) != selected.end();
    };
    bool selected_ready = false;
    for (auto it = first; it != last; ++it) {
      selected_ready |=
          it->second.status.state == VersionState::kReady && is_selected(it->first.second);
    }
    for (auto it = first; it != last; ++it) {
      if (is_selected(it->first.second)) continue;
      if (it->second.status.state == VersionState::kFailed) to_forget.push_back(it->first);
      if (it->second.status.state == VersionState::kReady && (!model || selected_ready))
        to_unload.push_back(it->first);
    }
  }
  for (const Key& key : to_forget) erase_failed(key);
  for (const Key& key : to_unload) unload(key);
}

void ModelRegistry::load(const RepositoryModel& model, const RepositoryVersion& version) {
  const Key key{model.name, version.version};
  const int64_t estimate = checkpoint_bytes(version);
  std::string refusal;
  {
    MutexLock lock(mutex_);
    if (options_.max_loaded_bytes > 0) {
      int64_t held = 0;
      for (const auto& [other, entry] : entries_) held += entry.status.resident_bytes;
      if (held + estimate > options_.max_loaded_bytes) {
        refusal = "loading it (checkpoint " + std::to_string(estimate) + " bytes) beside the " +
                  std::to_string(held) + " bytes loaded would pass max_loaded_bytes (" +
                  std::to_string(options_.max_loaded_bytes) +
                  "); unload a model or raise the bound";
      }
    }
    Entry& entry = entries_[key];
    entry = Entry{};
    entry.status.model = model.name;
    entry.status.version = version.version;
    entry.status.state = refusal.empty() ? VersionState::kLoading : VersionState::kFailed;
    entry.status.reason = refusal.empty() ? "" : version.directory + ": " + refusal;
    entry.status.resident_bytes = refusal.empty() ? estimate : 0;  // reserved while loading
    entry.fingerprint = version.fingerprint;
  }
  if (!refusal.empty()) {
    spdlog::error("model {} version {} not loaded: {}: {}", model.name, version.version,
                  version.directory, refusal);
    VersionStatus status;
    {
      MutexLock lock(mutex_);
      status = entries_[key].status;
    }
    notify(status);
    return;
  }
  set_state(key, VersionState::kLoading);
  spdlog::info("loading model {} version {} from {}", model.name, version.version,
               version.directory);
  const auto start = std::chrono::steady_clock::now();
  std::shared_ptr<ModelVersion> loaded;
  std::string error;
  try {
    const Status refusal = loader_(model, version, &loaded);
    if (!refusal.ok()) {
      error = refusal.message();
    } else if (!loaded) {
      error = "the loader returned no model";
    }
  } catch (const std::exception& exception) {
    error = exception.what();
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  VersionStatus status;
  {
    MutexLock lock(mutex_);
    Entry& entry = entries_[key];
    entry.status.load_seconds = seconds;
    if (error.empty()) {
      entry.loaded = loaded;
      entry.status.state = VersionState::kReady;
      entry.status.resident_bytes = loaded->resident_bytes();
    } else {
      entry.status.state = VersionState::kFailed;
      entry.status.reason = version.directory + ": " + error;
      entry.status.resident_bytes = 0;
    }
    status = entry.status;
  }
  if (error.empty()) {
    spdlog::info("model {} version {} ready in {:.3f} s ({} resident bytes)", model.name,
                 version.version, seconds, status.resident_bytes);
  } else if (options_.log_failures) {
    spdlog::error("model {} version {} failed to load from {}: {}", model.name, version.version,
                  version.directory, error);
  }
  notify(status);
}

void ModelRegistry::unload(const Key& key) {
  std::shared_ptr<ModelVersion> version;
  {
    MutexLock lock(mutex_);
    auto it = entries_.find(key);
    if (it == entries_.end() || !it->second.loaded) return;
    version = it->second.loaded;
  }
  set_state(key, VersionState::kUnloading);  // from here resolve() cannot hand it out
  spdlog::info("unloading model {} version {}: draining {} queued rows", key.first, key.second,
               version->forecast_batcher().queued_rows() + version->encode_batcher().queued_rows());
  version->drain();
  {
    MutexLock lock(mutex_);
    entries_.erase(key);
  }
  if (options_.observer) options_.observer->on_removed(key.first, key.second);
  spdlog::info("model {} version {} unloaded", key.first, key.second);
  // The last lease frees it; every request it admitted was answered by drain().
}

void ModelRegistry::erase_failed(const Key& key) {
  {
    MutexLock lock(mutex_);
    entries_.erase(key);
  }
  if (options_.observer) options_.observer->on_removed(key.first, key.second);
}

void ModelRegistry::set_state(const Key& key, VersionState state, const std::string& reason) {
  VersionStatus status;
  {
    MutexLock lock(mutex_);
    auto it = entries_.find(key);
    if (it == entries_.end()) return;
    it->second.status.state = state;
    if (!reason.empty()) it->second.status.reason = reason;
    status = it->second.status;
  }
  notify(status);
}

void ModelRegistry::notify(const VersionStatus& status) const {
  if (options_.observer) options_.observer->on_state(status);
}

std::string ModelRegistry::served_summary() const {
  std::map<std::string, std::vector<int64_t>> ready;
  for (const std::string& name : configured_) ready[name];
  for (const auto& [key, entry] : entries_)
    if (entry.status.state == VersionState::kReady) ready[key.first].push_back(key.second);
  if (ready.empty()) return "none";
  std::ostringstream text;
  bool first = true;
  for (const auto& [name, versions] : ready) {
    text << (first ? "" : ", ") << name << " (";
    first = false;
    if (versions.empty()) text << "no version ready";
    for (std::size_t i = 0; i < versions.size(); ++i)
      text << (i ? ", " : "versions ") << versions[i];
    text << ")";
  }
  return text.str();
}

std::vector<VersionStatus> ModelRegistry::statuses() const {
  MutexLock lock(mutex_);
  std::vector<VersionStatus> out;
  for (const auto& [key, entry] : entries_) out.push_back(entry.status);
  return out;
}

std::vector<std::string> ModelRegistry::configured_models() const {
  MutexLock lock(mutex_);
  return configured_;
}

bool ModelRegistry::all_ready() const {
  MutexLock lock(mutex_);
  for (const std::string& name : configured_) {
    bool ready = false;
    for (auto it = entries_.lower_bound({name, 0}); it != entries_.upper_bound({name, INT64_MAX});
         ++it)
      ready |= it->second.status.state == VersionState::kReady;
    if (!ready) return false;
  }
  return true;
}

bool ModelRegistry::any_ready() const {
  MutexLock lock(mutex_);
  for (const auto& [key, entry] : entries_)
    if (entry.status.state == VersionState::kReady) return true;
  return false;
}

std::pair<std::size_t, std::size_t> ModelRegistry::queued_rows() const {
  MutexLock lock(mutex_);
  std::pair<std::size_t, std::size_t> rows{0, 0};
  for (const auto& [key, entry] : entries_) {
    if (!entry.loaded) continue;
    rows.first += entry.loaded->forecast_batcher().queued_rows();
    rows.second += entry.loaded->encode_batcher().queued_rows();
  }
  return rows;
}

}  // namespace tsserve::server
