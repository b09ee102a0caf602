#include "server/live/memory_series_store.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <sstream>
#include <utility>

namespace tsserve::server {
namespace {

// The window object, its list node's links, the index's hash node and bucket slot (see
// kSeriesEntryOverheadBytes): if a standard library lays these out larger, the constant
// must grow with it.
static_assert(sizeof(SeriesWindow) + 2 * sizeof(void*) + sizeof(std::string) + 4 * sizeof(void*) <=
                  kSeriesEntryOverheadBytes,
              "kSeriesEntryOverheadBytes no longer covers a key's fixed structures");

}  // namespace

MemorySeriesStore::MemorySeriesStore(SeriesStoreLimits limits) : limits_(limits) {}

std::optional<SeriesBinding> MemorySeriesStore::binding(const std::string& key) const {
  const MutexLock lock(mutex_);
  const auto found = by_key_.find(key);
  if (found == by_key_.end()) return std::nullopt;
  return found->second->binding;
}

std::size_t MemorySeriesStore::keys() const {
  const MutexLock lock(mutex_);
  return lru_.size();
}

std::size_t MemorySeriesStore::bytes() const {
  const MutexLock lock(mutex_);
  return bytes_;
}

bool MemorySeriesStore::over_limits_locked() const {
  return lru_.size() > limits_.max_keys || bytes_ > limits_.max_bytes;
}

void MemorySeriesStore::remove_locked(WindowList::iterator window) {
  bytes_ -= series_window_bytes(*window);
  by_key_.erase(window->series_key);
  lru_.erase(window);
}

Status MemorySeriesStore::binding(const std::string& key, std::optional<SeriesBinding>* binding) {
  *binding = static_cast<const MemorySeriesStore*>(this)->binding(key);
  return Status();
}

Status MemorySeriesStore::append(const SeriesAppend& append, SeriesWindow* window, SeriesDrops* drops) {
  const MutexLock lock(mutex_);
  const auto found = by_key_.find(append.series_key);
  const SeriesWindow* held = found == by_key_.end() ? nullptr : &*found->second;
  int64_t step_seconds = 0;
  TSSERVE_RETURN_IF_ERROR(check_series_append(append, held, &step_seconds));
  const SeriesAppendPlan plan = plan_series_append(append, held, limits_.max_bytes);
  TSSERVE_RETURN_IF_ERROR(plan.status);

  // Checked: from here on nothing fails.
  WindowList::iterator entry;
  if (held != nullptr) {
    entry = found->second;
    bytes_ -= series_window_bytes(*entry);
    lru_.splice(lru_.begin(), lru_, entry);
  } else {
    lru_.emplace_front();
    entry = lru_.begin();
    entry->series_key = append.series_key;
    entry->binding = append.binding;
    by_key_.emplace(append.series_key, entry);
  }
  apply_series_append(append, plan, step_seconds, &*entry);
  bytes_ += series_window_bytes(*entry);

  while (lru_.size() > 1 && over_limits_locked()) {
    remove_locked(std::prev(lru_.end()));
    if (drops != nullptr) ++drops->evicted;
  }
  if (window != nullptr) *window = *entry;
  return Status();
}

std::vector<SeriesWindow> MemorySeriesStore::snapshot() const {
  const MutexLock lock(mutex_);
  return std::vector<SeriesWindow>(lru_.rbegin(), lru_.rend());
}

void MemorySeriesStore::restore(std::vector<SeriesWindow> windows, SeriesDrops* drops) {
  const MutexLock lock(mutex_);
  lru_.clear();
  by_key_.clear();
  bytes_ = 0;
  for (SeriesWindow& window : windows) {
    const auto found = by_key_.find(window.series_key);
    if (found != by_key_.end()) remove_locked(found->second);
    lru_.push_front(std::move(window));
    by_key_.emplace(lru_.front().series_key, lru_.begin());
    bytes_ += series_window_bytes(lru_.front());
  }
  while (!lru_.empty() && over_limits_locked()) {
    remove_locked(std::prev(lru_.end()));
    if (drops != nullptr) ++drops->evicted;
  }
}

}  // namespace tsserve::server
