#include "server/redis/redis_series_store.h"

#include <random>
#include <utility>
#include <vector>

#include "server/live/series_snapshot.h"

namespace tsserve::server {
namespace {

// KEYS[1] the window's hash; ARGV: the revision read ("" = none), the new revision, the
// encoded window, the expiry in ms. 1 = written, 0 = the revision moved (read again).
constexpr const char* kCompareAndSet = R"lua(
local held = redis.call('HGET', KEYS[1], 'rev')
if (held or '') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'rev', ARGV[2], 'window', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
)lua";

// Reads kept for the appends that follow them at most; past it they start again (an
// append whose read was dropped reads again).
constexpr std::size_t kMaxRecentReads = 4096;

// A writer that keeps losing the race to others gives up after this many reads; each
// loss means another append to the key succeeded meanwhile.
constexpr int kMaxAttempts = 64;

// 128 random bits: a revision no other write can repeat (so no ABA after an expiry).
std::string new_revision() {
  thread_local std::mt19937_64 random(std::random_device{}());
  return std::to_string(random()) + "-" + std::to_string(random());
}

}  // namespace

std::string redis_window_key(const std::string& series_key) { return "tsserve:w:" + series_key; }

RedisSeriesStore::RedisSeriesStore(RedisClient& client, std::size_t max_bytes,
                                   std::chrono::milliseconds ttl, bool compare_and_set)
    : client_(client), max_bytes_(max_bytes), ttl_(ttl), compare_and_set_(compare_and_set) {}

Status RedisSeriesStore::read(const std::string& key, std::optional<SeriesWindow>* window,
                              std::string* revision) {
  std::vector<RedisReply> replies;
  TSSERVE_RETURN_IF_ERROR(
      client_.run("window_read", {{"HMGET", redis_window_key(key), "rev", "window"}}, &replies));
  window->reset();
  revision->clear();
  const RedisReply& fields = replies.front();
  if (fields.elements.size() != 2 || fields.elements[1].type != RedisReply::Type::kString) {
    return Status();
  }
  *revision = fields.elements[0].text;
  std::vector<SeriesWindow> decoded;
  const Status status = decode_series_snapshot(fields.elements[1].text, &decoded);
  if (!status.ok() || decoded.size() != 1 || decoded.front().series_key != key) {
    return {StatusCode::kInternal, client_.name() + ": the window of key \"" + key +
                                       "\" is unreadable (" +
                                       (status.ok() ? "not one window of this key" : status.message()) +
                                       "); delete " + redis_window_key(key) + " to start it anew"};
  }
  *window = std::move(decoded.front());
  return Status();
}

Status RedisSeriesStore::binding(const std::string& key, std::optional<SeriesBinding>* binding) {
  Read fresh;
  TSSERVE_RETURN_IF_ERROR(read(key, &fresh.window, &fresh.revision));
  binding->reset();
  if (fresh.window) *binding = fresh.window->binding;
  const MutexLock lock(mutex_);
  if (recent_.size() >= kMaxRecentReads) recent_.clear();
  recent_[key] = std::move(fresh);
  return Status();
}

bool RedisSeriesStore::take_recent(const std::string& key, Read* read) {
  const MutexLock lock(mutex_);
  const auto found = recent_.find(key);
  if (found == recent_.end()) return false;
  *read = std::move(found->second);
  recent_.erase(found);
  return true;
}

Status RedisSeriesStore::append(const SeriesAppend& append, SeriesWindow* window,
                                SeriesDrops* /*drops: Redis expires keys itself*/) {
  const std::string key = redis_window_key(append.series_key);
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    Read last;
    // Without the compare-and-set nothing would catch a stale read: read afresh.
    if (attempt > 0 || !compare_and_set_ || !take_recent(append.series_key, &last)) {
      TSSERVE_RETURN_IF_ERROR(read(append.series_key, &last.window, &last.revision));
    }
    std::optional<SeriesWindow>& held = last.window;
    const std::string& revision = last.revision;
    int64_t step_seconds = 0;
    const SeriesWindow* current = held ? &*held : nullptr;
    TSSERVE_RETURN_IF_ERROR(check_series_append(append, current, &step_seconds));
    const SeriesAppendPlan plan = plan_series_append(append, current, max_bytes_);
    TSSERVE_RETURN_IF_ERROR(plan.status);
    SeriesWindow next;
    if (held) {
      next = std::move(*held);
    } else {
      next.series_key = append.series_key;
      next.binding = append.binding;
    }
    apply_series_append(append, plan, step_seconds, &next);
    const std::string encoded = encode_series_snapshot({next});
    const std::string expiry = std::to_string(ttl_.count());
    std::vector<RedisReply> replies;
    if (compare_and_set_) {
      TSSERVE_RETURN_IF_ERROR(client_.run(
          "window_write",
          {{"EVAL", kCompareAndSet, "1", key, revision, new_revision(), encoded, expiry}},
          &replies));
      if (replies.front().integer != 1) continue;  // another append won: read it, check again
    } else {
      TSSERVE_RETURN_IF_ERROR(client_.run(
          "window_write",
          {{"HSET", key, "rev", new_revision(), "window", encoded}, {"PEXPIRE", key, expiry}},
          &replies));
    }
    if (window != nullptr) *window = std::move(next);
    return Status();
  }
  return {StatusCode::kUnavailable, client_.name() + ": key \"" + append.series_key + "\": " +
                                    std::to_string(kMaxAttempts) +
                                    " other appends to it landed while this one was checked; "
                                    "retry"};
}

}  // namespace tsserve::server
