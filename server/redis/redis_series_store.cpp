#include "server/redis/redis_series_store.h"

#include <random>
#include <utility>
#include <vector>

#include "server/accuracy/issued_forecast.h"
#include "server/redis/window_layout.h"

namespace tsserve::server {
namespace {

// KEYS[1] the hash, KEYS[2] the ring. An array of the revision, the head and the ring
// ("" for each when the key is not held).
constexpr const char* kRead = R"lua(
local fields = redis.call('HMGET', KEYS[1], 'rev', 'head')
return {fields[1] or '', fields[2] or '', redis.call('GET', KEYS[2]) or ''}
)lua";

// KEYS as kRead. ARGV: the revision seen ("" = none; "*" = write without comparing), the
// new revision, the new head, the expiry in ms, then "set" and the whole ring, or "range"
// and (offset, bytes) pairs. 1 = written; otherwise the key's current state, as kRead's.
// The ring outlives the hash by a minute, so a held head always finds its ring.
constexpr const char* kAppend = R"lua(
local held = redis.call('HGET', KEYS[1], 'rev') or ''
if ARGV[1] ~= '*' and held ~= ARGV[1] then
  return {held, redis.call('HGET', KEYS[1], 'head') or '', redis.call('GET', KEYS[2]) or ''}
end
redis.call('HSET', KEYS[1], 'rev', ARGV[2], 'head', ARGV[3])
if ARGV[5] == 'set' then
  redis.call('SET', KEYS[2], ARGV[6])
else
  for i = 6, #ARGV, 2 do redis.call('SETRANGE', KEYS[2], ARGV[i], ARGV[i + 1]) end
end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[4]) + 60000)
return 1
)lua";

// A writer that keeps losing the race to others gives up after this many tries; each
// loss means another append to the key succeeded meanwhile.
constexpr int kMaxAttempts = 64;

// 128 random bits: a revision no other write can repeat (so no ABA after an expiry).
std::string new_revision() {
  thread_local std::mt19937_64 random(std::random_device{}());
  return std::to_string(random()) + "-" + std::to_string(random());
}

// The report Observe scores after its append (call/observe_call.cpp's report_of): the
// appended points, named as the window after the append names its variables.
ActualsReport scored_report(const SeriesAppend& append, const SeriesWindow& after) {
  ActualsReport report;
  report.series_key = append.series_key;
  report.variable_names =
      stored_variable_names(after.binding.variable_names, after.binding.variables);
  report.timestamps = append.timestamps;
  report.values = *append.scored_values;
  return report;
}

}  // namespace

std::string redis_window_key(const std::string& series_key) { return "tsserve:w:" + series_key; }
std::string redis_window_ring_key(const std::string& series_key) {
  return "tsserve:wv:" + series_key;
}

RedisSeriesStore::RedisSeriesStore(RedisClient& client, std::size_t max_bytes,
                                   std::chrono::milliseconds ttl, bool compare_and_set,
                                   RedisKeptForecasts* kept)
    : client_(client),
      max_bytes_(max_bytes),
      ttl_(ttl),
      compare_and_set_(compare_and_set),
      kept_(kept) {}

Status RedisSeriesStore::decode(const std::string& key, const RedisReply& answer,
                                SeenPtr* seen) const {
  auto state = std::make_shared<Seen>();
  state->at = std::chrono::steady_clock::now();
  const std::vector<RedisReply>& parts = answer.elements;
  if (answer.type != RedisReply::Type::kArray || parts.size() != 3) {
    return {StatusCode::kInternal, client_.name() + ": a window script answered no state"};
  }
  state->revision = parts[0].text;
  if (!state->revision.empty()) {
    SeriesWindow window;
    const Status decoded = decode_window(parts[1].text, parts[2].text, &window, &state->capacity);
    if (!decoded.ok() || window.series_key != key) {
      return {StatusCode::kInternal,
              client_.name() + ": the window of key \"" + key + "\" is unreadable (" +
                  (decoded.ok() ? "another key's window" : decoded.message()) + "); delete " +
                  redis_window_key(key) + " and " + redis_window_ring_key(key) +
                  " to start it anew"};
    }
    state->window = std::move(window);
  }
  *seen = std::move(state);
  return Status();
}

Status RedisSeriesStore::read(const std::string& key, SeenPtr* seen) {
  std::vector<RedisReply> replies;
  TSSERVE_RETURN_IF_ERROR(client_.run(
      "window_read",
      {{"EVAL", kRead, "2", redis_window_key(key), redis_window_ring_key(key)}}, &replies));
  TSSERVE_RETURN_IF_ERROR(decode(key, replies.front(), seen));
  remember(key, *seen);
  return Status();
}

RedisSeriesStore::SeenPtr RedisSeriesStore::recall(const std::string& key) {
  const MutexLock lock(mutex_);
  const auto found = seen_.find(key);
  if (found == seen_.end()) return nullptr;
  if (std::chrono::steady_clock::now() - found->second->at >= ttl_) return nullptr;
  return found->second;
}

void RedisSeriesStore::remember(const std::string& key, SeenPtr seen) {
  const std::size_t bytes = bytes_of(key, seen);
  const MutexLock lock(mutex_);
  auto found = seen_.find(key);
  if (found != seen_.end()) {
    seen_bytes_ -= bytes_of(key, found->second);
    seen_.erase(found);
  }
  if (seen_bytes_ + bytes > max_bytes_) {  // past the bound, remember anew
    seen_.clear();
    seen_bytes_ = 0;
  }
  seen_bytes_ += bytes;
  seen_.emplace(key, std::move(seen));
}

std::size_t RedisSeriesStore::bytes_of(const std::string& key, const SeenPtr& seen) {
  return seen->window ? series_window_bytes(*seen->window) : 2 * key.size() + 64;
}

Status RedisSeriesStore::binding(const std::string& key, std::optional<SeriesBinding>* binding) {
  SeenPtr seen = recall(key);
  if (seen == nullptr) TSSERVE_RETURN_IF_ERROR(read(key, &seen));
  binding->reset();
  if (seen->window) *binding = seen->window->binding;
  return Status();
}

Status RedisSeriesStore::append(const SeriesAppend& append, SeriesWindow* window,
                                SeriesDrops* /*drops: Redis expires keys itself*/) {
  const std::string key = redis_window_key(append.series_key);
  const std::string ring_key = redis_window_ring_key(append.series_key);
  // Without the compare-and-set nothing would catch a stale state: read afresh.
  SeenPtr seen = compare_and_set_ ? recall(append.series_key) : nullptr;
  bool fresh = seen == nullptr;  // seen as Redis holds it now, not as remembered
  if (fresh) TSSERVE_RETURN_IF_ERROR(read(append.series_key, &seen));
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    const SeriesWindow* current = seen->window ? &*seen->window : nullptr;
    int64_t step_seconds = 0;
    Status checked = check_series_append(append, current, &step_seconds);
    SeriesAppendPlan plan;
    if (checked.ok()) {
      plan = plan_series_append(append, current, max_bytes_);
      checked = plan.status;
    }
    if (!checked.ok()) {
      // A refusal stands only on the key's current state: what this replica remembers
      // may be behind another replica's appends.
      if (fresh) return checked;
      TSSERVE_RETURN_IF_ERROR(read(append.series_key, &seen));
      fresh = true;
      continue;
    }
    SeriesWindow next;
    if (current != nullptr) {
      next = *current;
    } else {
      next.series_key = append.series_key;
      next.binding = append.binding;
    }
    apply_series_append(append, plan, step_seconds, &next);
    const int64_t capacity = append.keep_points;
    auto written = std::make_shared<Seen>();
    written->revision = new_revision();
    written->capacity = capacity;
    RedisCommand command{"EVAL", kAppend, "2", key, ring_key,
                         compare_and_set_ ? seen->revision : "*", written->revision,
                         encode_window_head(next, capacity), std::to_string(ttl_.count())};
    if (current == nullptr || seen->capacity != capacity) {
      command.insert(command.end(), {"set", whole_ring(next, capacity)});
    } else {
      command.push_back("range");
      for (RingWrite& write : ring_writes_of_newest(next, capacity,
                                                    static_cast<int64_t>(plan.new_kept))) {
        command.push_back(std::to_string(write.offset));
        command.push_back(std::move(write.bytes));
      }
    }
    // The points' score rides on the write when the caller scores them next: one round
    // trip for both, the score marking only if this write landed.
    std::vector<RedisCommand> commands;
    commands.push_back(std::move(command));
    RedisCommand score;
    RedisKeptForecasts::Ride ride;
    const bool riding = kept_ != nullptr && append.scored_values != nullptr &&
                        compare_and_set_ &&
                        kept_->prepare_ride(scored_report(append, next), key, written->revision,
                                            &score, &ride);
    if (riding) commands.push_back(std::move(score));
    std::vector<RedisReply> replies;
    TSSERVE_RETURN_IF_ERROR(client_.run("window_write", commands, &replies));
    if (riding && replies.size() == 2) kept_->finish_ride(std::move(ride), replies[1]);
    if (replies.front().type != RedisReply::Type::kInteger) {
      // Another append won: its state came back; check this one again on it.
      TSSERVE_RETURN_IF_ERROR(decode(append.series_key, replies.front(), &seen));
      remember(append.series_key, seen);
      fresh = true;
      continue;
    }
    written->at = std::chrono::steady_clock::now();
    if (window != nullptr) *window = next;
    written->window = std::move(next);
    remember(append.series_key, std::move(written));
    return Status();
  }
  return {StatusCode::kUnavailable, client_.name() + ": key \"" + append.series_key + "\": " +
                                    std::to_string(kMaxAttempts) +
                                    " other appends to it landed while this one was checked; "
                                    "retry"};
}

}  // namespace tsserve::server
