#include "server/redis/redis_kept_forecasts.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <optional>
#include <cmath>
#include <cstring>
#include <random>
#include <string_view>
#include <unordered_set>
#include <utility>

namespace tsserve::server {
namespace {

// Widths cached at most; past it the cache starts again (a miss costs one round trip).
constexpr std::size_t kMaxCachedWidths = 256;
// Members older than the expiry that one keep drops at most (the next keeps drop the rest).
constexpr int kMaxDroppedPerKeep = 1000;

std::string forecast_key(uint64_t id) { return "tsserve:f:" + std::to_string(id); }
std::string widths_key(const std::string& id) { return "tsserve:fw:" + id; }
std::string index_key(const std::string& key) { return "tsserve:fi:" + key; }
std::string kept_at_key(const std::string& key) { return "tsserve:fk:" + key; }
std::string names_key(const std::string& key) { return "tsserve:fn:" + key; }
std::string sequence_key(const std::string& key) { return "tsserve:fq:" + key; }
std::string marks_key(const std::string& key, int64_t time) {
  return "tsserve:fx:" + key + ":" + std::to_string(time);
}

// KEYS: the forecast, the index, the kept-at set, the names, the sequence, the widths (""
// when the body holds the bounds). ARGV: the expiry in ms, the forecast's bytes, its last
// time, its id, the most members to drop, the widths' bytes ("" when the caller believes
// them held), then the names. {the forecast's sequence, when it was kept (Redis' clock,
// ms)}; 0 = the widths are not held: nothing was written (send them).
// Widths live as long as the newest forecast that uses them. Every 8th keep of a key drops
// its members older than the expiry (a scorer skips them meanwhile: it checks when each
// was kept); the key's sets are renewed to twice the expiry when under one is left (not at
// every keep: four calls fewer), so they outlive its newest forecast by up to one expiry.
constexpr const char* kKeep = R"lua(
local ttl = ARGV[1]
if KEYS[6] ~= '' then
  if ARGV[6] ~= '' then
    redis.call('SET', KEYS[6], ARGV[6], 'PX', ttl)
  elseif redis.call('PEXPIRE', KEYS[6], ttl) == 0 then
    return 0
  end
end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ttl)
local now = redis.call('TIME')
local ms = now[1] .. string.format('%03d', math.floor(tonumber(now[2]) / 1000))
local seq = redis.call('INCR', KEYS[5])
local member = seq .. '-' .. ARGV[4] .. '-' .. ms
if seq % 8 == 1 then
  local old = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', tonumber(ms) - tonumber(ttl), 'LIMIT', 0,
                         ARGV[5])
  if #old > 0 then
    redis.call('ZREM', KEYS[2], unpack(old))
    redis.call('ZREM', KEYS[3], unpack(old))
  end
end
redis.call('ZADD', KEYS[2], ARGV[3], member)
redis.call('ZADD', KEYS[3], ms, member)
redis.call('SADD', KEYS[4], unpack(ARGV, 7))
if redis.call('PTTL', KEYS[2]) < tonumber(ttl) then
  for i = 2, 5 do redis.call('PEXPIRE', KEYS[i], 2 * tonumber(ttl)) end
end
return {seq, tonumber(ms)}
)lua";

// KEYS: the key's sequence, names and index, the guard's hash ("" = none), then the marks
// of each reported time (scoring_plan.h: a hash, column -> the sequence that last scored
// it). ARGV: the sequence the caller's view of the key was taken at ("" = no check), the
// first time its view must cover, the expiry in ms, the revision the guard's field rev
// must hold ("" = no guard), the sequence to mark with (the view's), then per time the
// number of its columns and their names.
// When the guard's rev is another (the write this score rode on did not land): {2}, and
// nothing is marked. When the key was kept to since the caller's view: {0, its sequence,
// its names, its index's members from that time}, and nothing is marked. Otherwise {1, now
// (Redis' clock, ms), then per column its old mark (0 = none)}. A mark only rises, and
// the old one says which forecasts scored before, so of two replicas scoring one point at
// once exactly one scores each pair. A time's marks expire `ttl` after they were last set:
// every forecast they cover was kept before that, and has expired by then. A forecast kept
// longer ago than the expiry scores nothing, so whoever marked it first (after it
// expired) scored nothing either: the caller checks that against `now`. Columns go to
// HMGET and HSET in chunks within Lua's unpack limit.
constexpr const char* kScore = R"lua(
if ARGV[4] ~= '' and redis.call('HGET', KEYS[4], 'rev') ~= ARGV[4] then
  return {2}
end
if ARGV[1] ~= '' then
  local seq = redis.call('GET', KEYS[1]) or '0'
  if seq ~= ARGV[1] then
    return {0, seq, redis.call('SMEMBERS', KEYS[2]),
            redis.call('ZRANGEBYSCORE', KEYS[3], ARGV[2], '+inf')}
  end
end
local now = redis.call('TIME')
local out = {1, tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)}
local seq = tonumber(ARGV[5])
local a = 6
for k = 5, #KEYS do
  local last = a + tonumber(ARGV[a])
  for first = a + 1, last, 2000 do
    local upto = math.min(first + 1999, last)
    local olds = redis.call('HMGET', KEYS[k], unpack(ARGV, first, upto))
    local writes = {}
    for c = first, upto do
      local old = tonumber(olds[c - first + 1] or 0)
      out[#out + 1] = old
      if old < seq then
        writes[#writes + 1] = ARGV[c]
        writes[#writes + 1] = ARGV[5]
      end
    end
    if #writes > 0 then
      redis.call('HSET', KEYS[k], unpack(writes))
      redis.call('PEXPIRE', KEYS[k], ARGV[3])
    end
  end
  a = last + 1
end
return out
)lua";

// A view of a key that is refused (the key kept to meanwhile, every time) this many times
// is used unchecked: scored against the forecasts it saw, as a report racing a keep is.
constexpr int kMaxViewChecks = 4;
// Keys whose view is remembered at most; past it the memory starts again.
constexpr std::size_t kMaxViews = 4096;

uint64_t new_id() {
  thread_local std::mt19937_64 random(std::random_device{}());
  return random();
}

}  // namespace

RedisKeptForecasts::RedisKeptForecasts(RedisClient& client, std::chrono::milliseconds ttl,
                                       std::size_t max_cached)
    : client_(client), ttl_(ttl), max_cached_(std::max<std::size_t>(max_cached, 1)) {}

void RedisKeptForecasts::remember(uint64_t id, Held forecast) {
  const MutexLock lock(mutex_);
  if (!held_.emplace(id, std::move(forecast)).second) return;
  held_order_.push_back(id);
  while (held_order_.size() > max_cached_) {
    held_.erase(held_order_.front());
    held_order_.pop_front();
  }
}

RedisKeptForecasts::KeepCall RedisKeptForecasts::keep_call(IssuedForecast forecast) const {
  KeepCall call;
  call.id = new_id();
  if (!widths_of(forecast, &call.widths, &call.widths_id)) call.widths.clear();
  auto held = std::make_shared<HeldForecast>();
  held->meta = meta_of(forecast, call.widths_id);
  call.bytes = encode_forecast(forecast, held->meta);
  held->body =
      call.bytes.substr(call.bytes.size() - held->meta.times.size() * entry_bytes(held->meta));
  call.held = std::move(held);
  call.forecast = std::move(forecast);
  return call;
}

bool RedisKeptForecasts::widths_unheld(const KeepCall& call) {
  // Widths this replica wrote or read within half their expiry are held still (each keep
  // renews them); the script says when they are not, and they are sent then.
  return !call.widths_id.empty() && !widths_held(call.widths_id);
}

RedisCommand RedisKeptForecasts::keep_command(const KeepCall& call, bool send_widths) const {
  const IssuedForecast& forecast = call.forecast;
  const std::string& key = forecast.series_key;
  RedisCommand keep{"EVAL",
                    kKeep,
                    "6",
                    forecast_key(call.id),
                    index_key(key),
                    kept_at_key(key),
                    names_key(key),
                    sequence_key(key),
                    call.widths_id.empty() ? std::string() : widths_key(call.widths_id),
                    std::to_string(ttl_.count()),
                    call.bytes,
                    std::to_string(forecast.times.back()),
                    std::to_string(call.id),
                    std::to_string(kMaxDroppedPerKeep),
                    send_widths ? call.widths : std::string()};
  keep.insert(keep.end(), forecast.variable_names.begin(), forecast.variable_names.end());
  return keep;
}

bool RedisKeptForecasts::landed(const KeepCall& call, const RedisReply& kept) {
  if (kept.type != RedisReply::Type::kArray || kept.elements.size() != 2) return false;
  if (!call.widths_id.empty()) remember_widths(call.widths_id, nullptr);
  saw_kept(call.forecast,
           {static_cast<uint64_t>(kept.elements[0].integer), call.id, kept.elements[1].integer});
  remember(call.id, call.held);
  return true;
}

Status RedisKeptForecasts::send_keep(const KeepCall& call, bool send_widths) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    std::vector<RedisReply> replies;
    TSSERVE_RETURN_IF_ERROR(
        client_.run("forecast_keep", {keep_command(call, send_widths)}, &replies));
    if (landed(call, replies.front())) return Status();
    send_widths = true;  // they expired since this replica last saw them
  }
  return {StatusCode::kInternal, client_.name() + ": a kept forecast's widths were refused twice"};
}

Status RedisKeptForecasts::keep(IssuedForecast forecast, StoreDrops* /*drops*/) {
  const KeepCall call = keep_call(std::move(forecast));
  return send_keep(call, widths_unheld(call));
}

// The keeps one thread began and has not yet waited on: the first wait (or a keep
// destroyed unwaited) sends them all, pipelined, and each learns its status.
class RedisKeptForecasts::KeepGroup {
 public:
  // Index of *call in the group, moved in; nullopt, *call untouched, once the group was
  // sent (start another).
  std::optional<std::size_t> add(KeepCall* call) {
    const MutexLock lock(mutex_);
    if (sent_) return std::nullopt;
    calls_.push_back(std::move(*call));
    return calls_.size() - 1;
  }
  // Sends the group unless it was sent.
  void send(RedisKeptForecasts& store) {
    const MutexLock lock(mutex_);
    send_locked(store);
  }
  // Sends the group unless it was sent; then the status of keep `index`.
  Status status(RedisKeptForecasts& store, std::size_t index) {
    const MutexLock lock(mutex_);
    send_locked(store);
    return statuses_.at(index);
  }

 private:
  void send_locked(RedisKeptForecasts& store) TSSERVE_REQUIRES(mutex_) {
    if (sent_) return;
    sent_ = true;
    statuses_ = store.send_keeps(calls_);
    calls_.clear();
  }

  Mutex mutex_;
  bool sent_ TSSERVE_GUARDED_BY(mutex_) = false;
  std::vector<KeepCall> calls_ TSSERVE_GUARDED_BY(mutex_);
  std::vector<Status> statuses_ TSSERVE_GUARDED_BY(mutex_);
};

std::vector<Status> RedisKeptForecasts::send_keeps(const std::vector<KeepCall>& calls) {
  if (calls.size() == 1) return {send_keep(calls[0], widths_unheld(calls[0]))};
  std::vector<RedisCommand> commands;
  commands.reserve(calls.size());
  for (const KeepCall& call : calls) commands.push_back(keep_command(call, widths_unheld(call)));
  std::vector<RedisReply> replies;
  const Status ran = client_.run("forecast_keep", commands, &replies);
  std::vector<Status> statuses(calls.size());
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const RedisReply* reply = i < replies.size() ? &replies[i] : nullptr;
    if (reply != nullptr && landed(calls[i], *reply)) continue;
    // Sent again alone when it ran nothing: the widths were not held, or Redis had
    // forgotten the script (SCRIPT FLUSH; one script alone is sent as its text).
    const bool not_run =
        reply != nullptr && (reply->type == RedisReply::Type::kInteger ||
                             (reply->type == RedisReply::Type::kError &&
                              reply->text.rfind("NOSCRIPT", 0) == 0));
    // Otherwise it may have run before the pipeline failed: not sent twice (a second
    // keep would score its actuals twice); refused as a keep alone that failed is.
    statuses[i] = not_run ? send_keep(calls[i], reply->type == RedisReply::Type::kInteger)
                  : ran.ok() ? Status(StatusCode::kInternal,
                                      client_.name() + ": a keep script answered neither")
                             : ran;
  }
  return statuses;
}

namespace {

// The group of keeps this thread is gathering, and the store it is for.
struct OpenKeepGroup {
  const void* store = nullptr;
  std::shared_ptr<void> group;
};
thread_local OpenKeepGroup open_keeps;

}  // namespace

class RedisKeptForecasts::PendingRedisKeep final : public PendingKeep {
 public:
  PendingRedisKeep(RedisKeptForecasts& store, std::shared_ptr<KeepGroup> group, std::size_t index)
      : store_(store), group_(std::move(group)), index_(index) {}
  ~PendingRedisKeep() override {
    if (!waited_) group_->send(store_);  // kept all the same
  }
  Status wait(StoreDrops* /*drops*/) override {
    waited_ = true;
    return group_->status(store_, index_);
  }

 private:
  RedisKeptForecasts& store_;
  const std::shared_ptr<KeepGroup> group_;
  const std::size_t index_;
  bool waited_ = false;
};

std::unique_ptr<PendingKeep> RedisKeptForecasts::begin_keep(IssuedForecast forecast) {
  KeepCall call = keep_call(std::move(forecast));
  std::shared_ptr<KeepGroup> group;
  std::optional<std::size_t> index;
  if (open_keeps.store == this) {
    group = std::static_pointer_cast<KeepGroup>(open_keeps.group);
    index = group->add(&call);
  }
  if (!index) {
    group = std::make_shared<KeepGroup>();
    open_keeps = {this, group};
    index = group->add(&call);
  }
  return std::make_unique<PendingRedisKeep>(*this, std::move(group), *index);
}

bool RedisKeptForecasts::widths_held(const std::string& id) {
  const MutexLock lock(mutex_);
  const auto found = widths_.find(id);
  return found != widths_.end() &&
         std::chrono::steady_clock::now() - found->second.at < ttl_ / 2;
}

void RedisKeptForecasts::remember_widths(const std::string& id, Widths widths) {
  const MutexLock lock(mutex_);
  if (widths_.size() >= kMaxCachedWidths) widths_.clear();
  SeenWidths& seen = widths_[id];
  seen.at = std::chrono::steady_clock::now();
  if (widths != nullptr) seen.widths = std::move(widths);
}

Status RedisKeptForecasts::widths_for(const std::vector<const ForecastMeta*>& metas,
                                      std::unordered_map<std::string, Widths>* widths) {
  std::vector<const ForecastMeta*> missing;
  {
    const MutexLock lock(mutex_);
    for (const ForecastMeta* meta : metas) {
      if (meta->widths_id.empty() || widths->count(meta->widths_id) != 0) continue;
      const auto found = widths_.find(meta->widths_id);
      if (found != widths_.end() && found->second.widths != nullptr) {
        widths->emplace(meta->widths_id, found->second.widths);
      } else if (std::none_of(missing.begin(), missing.end(), [meta](const ForecastMeta* m) {
                   return m->widths_id == meta->widths_id;
                 })) {
        missing.push_back(meta);
      }
    }
  }
  if (missing.empty()) return Status();
  RedisCommand get{"MGET"};
  for (const ForecastMeta* meta : missing) get.push_back(widths_key(meta->widths_id));
  std::vector<RedisReply> replies;
  TSSERVE_RETURN_IF_ERROR(client_.run("forecast_read", {get}, &replies));
  const std::vector<RedisReply>& values = replies.front().elements;
  for (std::size_t i = 0; i < missing.size() && i < values.size(); ++i) {
    if (values[i].type != RedisReply::Type::kString) continue;  // expired
    auto decoded = std::make_shared<std::vector<double>>();
    TSSERVE_RETURN_IF_ERROR(decode_widths(values[i].text, *missing[i], decoded.get()));
    widths->emplace(missing[i]->widths_id, decoded);
    remember_widths(missing[i]->widths_id, decoded);
  }
  return Status();
}

Status RedisKeptForecasts::forecasts_of(const std::vector<uint64_t>& ids,
                                        std::unordered_map<uint64_t, Held>* forecasts) {
  std::vector<uint64_t> missing;
  {
    const MutexLock lock(mutex_);
    for (const uint64_t id : ids) {
      const auto found = held_.find(id);
      if (found != held_.end()) {
        forecasts->emplace(id, found->second);
      } else {
        missing.push_back(id);
      }
    }
  }
  if (missing.empty()) return Status();
  RedisCommand get{"MGET"};
  for (const uint64_t id : missing) get.push_back(forecast_key(id));
  std::vector<RedisReply> replies;
  TSSERVE_RETURN_IF_ERROR(client_.run("forecast_read", {get}, &replies));
  const std::vector<RedisReply>& values = replies.front().elements;
  for (std::size_t i = 0; i < missing.size() && i < values.size(); ++i) {
    if (values[i].type != RedisReply::Type::kString) continue;  // expired
    auto held = std::make_shared<HeldForecast>();
    TSSERVE_RETURN_IF_ERROR(decode_forecast(values[i].text, &held->meta, &held->body));
    forecasts->emplace(missing[i], held);
    remember(missing[i], std::move(held));
  }
  return Status();
}

bool RedisKeptForecasts::cached_forecasts(const std::vector<uint64_t>& ids,
                                          std::unordered_map<uint64_t, Held>* forecasts) {
  const MutexLock lock(mutex_);
  for (const uint64_t id : ids) {
    const auto found = held_.find(id);
    if (found == held_.end()) return false;
    forecasts->emplace(id, found->second);
  }
  return true;
}

bool RedisKeptForecasts::cached_widths(const std::vector<const ForecastMeta*>& metas,
                                       std::unordered_map<std::string, Widths>* widths) {
  const MutexLock lock(mutex_);
  for (const ForecastMeta* meta : metas) {
    if (meta->widths_id.empty() || widths->count(meta->widths_id) != 0) continue;
    const auto found = widths_.find(meta->widths_id);
    if (found == widths_.end() || found->second.widths == nullptr) return false;
    widths->emplace(meta->widths_id, found->second.widths);
  }
  return true;
}

void RedisKeptForecasts::saw_kept(const IssuedForecast& forecast, KeptMember member) {
  const MutexLock lock(mutex_);
  const auto found = views_.find(forecast.series_key);
  if (found == views_.end()) return;
  KeyView& view = found->second;
  // Only a view that saw every forecast before this one stays whole with it.
  if (view.seq + 1 != member.seq) {
    views_.erase(found);
    return;
  }
  view.seq = member.seq;
  if (forecast.times.back() >= view.from_time) view.members.push_back(member);
  for (const std::string& name : forecast.variable_names) {
    if (std::find(view.names.begin(), view.names.end(), name) == view.names.end()) {
      view.names.push_back(name);
    }
  }
}

bool RedisKeptForecasts::recall_view(const std::string& key, int64_t from_time, KeyView* view) {
  const MutexLock lock(mutex_);
  const auto found = views_.find(key);
  if (found == views_.end() || found->second.from_time > from_time ||
      std::chrono::steady_clock::now() - found->second.at >= ttl_) {
    return false;
  }
  *view = found->second;
  return true;
}

void RedisKeptForecasts::remember_view(const std::string& key, KeyView view) {
  const MutexLock lock(mutex_);
  if (views_.size() >= kMaxViews && views_.count(key) == 0) views_.clear();
  views_[key] = std::move(view);
}

Status RedisKeptForecasts::view_of(const RedisReply& seq, const RedisReply& names,
                                   const RedisReply& members, int64_t from_time,
                                   KeyView* view) const {
  KeyView fresh;
  fresh.at = std::chrono::steady_clock::now();
  fresh.from_time = from_time;
  if (seq.type == RedisReply::Type::kString) {
    const auto parsed = std::from_chars(seq.text.data(), seq.text.data() + seq.text.size(), fresh.seq);
    if (parsed.ec != std::errc()) {
      return {StatusCode::kInternal, client_.name() + ": a key's keep sequence is not a number"};
    }
  }
  for (const RedisReply& name : names.elements) fresh.names.push_back(name.text);
  for (const RedisReply& text : members.elements) {
    KeptMember member;
    if (parse_kept_member(text.text, &member)) fresh.members.push_back(member);
  }
  std::sort(fresh.members.begin(), fresh.members.end(),
            [](const KeptMember& a, const KeptMember& b) { return a.seq < b.seq; });
  *view = std::move(fresh);
  return Status();
}

Status RedisKeptForecasts::prepare(const ActualsReport& report, bool may_read, Prepared* p,
                                   bool* complete) {
  *complete = false;
  const std::string& key = report.series_key;
  // The forecasts that may cover the report: those whose last time is at its first.
  p->from_time = report.timestamps.empty()
                     ? std::numeric_limits<int64_t>::max()
                     : *std::min_element(report.timestamps.begin(), report.timestamps.end());
  p->from = report.timestamps.empty() ? "+inf" : std::to_string(p->from_time);
  // The key's view (its names and the forecasts that may cover the report): the one this
  // replica remembers, checked by the scoring script, or read in one round trip.
  p->checked = false;
  if (!recall_view(key, p->from_time, &p->view)) {
    if (!may_read) return Status();
    std::vector<RedisReply> replies;
    TSSERVE_RETURN_IF_ERROR(client_.run(
        "forecast_read",
        {{"GET", sequence_key(key)},
         {"SMEMBERS", names_key(key)},
         {"ZRANGEBYSCORE", index_key(key), p->from, "+inf"}},
        &replies));
    TSSERVE_RETURN_IF_ERROR(view_of(replies[0], replies[1], replies[2], p->from_time, &p->view));
    p->checked = true;
  }
  TSSERVE_RETURN_IF_ERROR(plan(report, may_read, p, complete));
  return Status();
}

Status RedisKeptForecasts::plan(const ActualsReport& report, bool may_read, Prepared* p,
                                bool* complete) {
  *complete = false;
  std::vector<uint64_t> ids;
  for (const KeptMember& member : p->view.members) ids.push_back(member.id);
  p->forecasts.clear();
  if (may_read) {
    TSSERVE_RETURN_IF_ERROR(forecasts_of(ids, &p->forecasts));
  } else if (!cached_forecasts(ids, &p->forecasts)) {
    return Status();
  }
  // Members that ended before the report's first time cannot cover it, nor any later
  // report this view serves.
  p->view.members.erase(std::remove_if(p->view.members.begin(), p->view.members.end(),
                                       [&](const KeptMember& member) {
                                         const auto found = p->forecasts.find(member.id);
                                         return found == p->forecasts.end() ||
                                                found->second->meta.times.back() < p->from_time;
                                       }),
                        p->view.members.end());
  p->view.from_time = std::max(p->view.from_time, p->from_time);
  p->metas.clear();
  std::vector<const ForecastMeta*> held;
  held.reserve(p->forecasts.size());
  for (const auto& [id, forecast] : p->forecasts) {
    p->metas.emplace(id, Meta(forecast, &forecast->meta));  // shares the forecast's life
    held.push_back(&forecast->meta);
  }
  p->widths.clear();
  if (may_read) {
    TSSERVE_RETURN_IF_ERROR(widths_for(held, &p->widths));
  } else if (!cached_widths(held, &p->widths)) {
    return Status();
  }
  // The pairs, as the in-process store picks them.
  p->plan = plan_scoring(report, p->view.members, p->metas);
  *complete = true;
  return Status();
}

Status RedisKeptForecasts::score_command(const ActualsReport& report, const Prepared& p,
                                         bool check_view, const std::string& guard_key,
                                         const std::string& guard_revision,
                                         RedisCommand* command) const {
  const std::string& key = report.series_key;
  *command = {"EVAL", kScore, std::to_string(4 + p.plan.marks.size()), sequence_key(key),
              names_key(key), index_key(key), guard_key};
  for (const MarkedTime& marked : p.plan.marks) command->push_back(marks_key(key, marked.time));
  command->push_back(check_view ? std::to_string(p.view.seq) : std::string());
  command->push_back(p.from);
  command->push_back(std::to_string(ttl_.count()));
  command->push_back(guard_revision);
  command->push_back(std::to_string(p.view.seq));
  for (const MarkedTime& marked : p.plan.marks) {
    command->push_back(std::to_string(marked.columns.size()));
    for (const std::size_t column : marked.columns) {
      command->push_back(report.variable_names[column]);
    }
  }
  return Status();
}

void RedisKeptForecasts::deliver(const ActualsReport& report, Prepared* p,
                                 const std::vector<RedisReply>* parts, const ScoreSink& score,
                                 ActualsOutcome* outcome) {
  if (parts != nullptr) read_marks(*parts, p->forecasts, p->widths, &p->plan);
  remember_view(report.series_key, p->view);
  const std::unordered_set<std::string_view> names(p->view.names.begin(), p->view.names.end());
  deliver_scores(report, p->plan, names, score, outcome);
}

Status RedisKeptForecasts::score(const ActualsReport& report, const ScoreSink& score,
                                 StoreDrops* /*drops*/, ActualsOutcome* outcome) {
  *outcome = ActualsOutcome();
  if (std::optional<Prepared> ridden = take_ride(report)) {
    deliver(report, &*ridden, nullptr, score, outcome);
    return Status();
  }
  Prepared p;
  bool complete = false;
  TSSERVE_RETURN_IF_ERROR(prepare(report, true, &p, &complete));
  for (int check = 0;; ++check) {
    if (p.view.names.empty() && p.checked) {  // no forecast was ever kept with this key
      outcome->unknown_key = static_cast<int64_t>(report.values.size());
      return Status();
    }
    if (p.plan.groups.empty() && p.checked) {
      deliver(report, &p, nullptr, score, outcome);
      return Status();
    }
    // The view checked and the marks set in one script; a pair scores when its bit was
    // not set before.
    RedisCommand command;
    TSSERVE_RETURN_IF_ERROR(score_command(report, p, !p.checked && check < kMaxViewChecks, "",
                                          "", &command));
    std::vector<RedisReply> answers;
    TSSERVE_RETURN_IF_ERROR(client_.run("forecast_mark", {command}, &answers));
    const std::vector<RedisReply>& parts = answers.front().elements;
    if (parts.empty()) return {StatusCode::kInternal, client_.name() + ": a scoring script answered nothing"};
    if (parts[0].integer == 0 && parts.size() == 4) {
      // Kept to since this view: the script answered the key's current one.
      TSSERVE_RETURN_IF_ERROR(view_of(parts[1], parts[2], parts[3], p.from_time, &p.view));
      p.checked = true;
      TSSERVE_RETURN_IF_ERROR(plan(report, true, &p, &complete));
      continue;
    }
    deliver(report, &p, &parts, score, outcome);
    return Status();
  }
}

bool RedisKeptForecasts::prepare_ride(ActualsReport report, const std::string& guard_key,
                                      const std::string& guard_revision, RedisCommand* command,
                                      Ride* ride) {
  Prepared p;
  bool complete = false;
  // Only what needs no round trip of its own: a remembered view, cached forecasts.
  if (!prepare(report, false, &p, &complete).ok() || !complete || p.view.names.empty()) {
    return false;
  }
  if (!score_command(report, p, true, guard_key, guard_revision, command).ok()) {
    return false;
  }
  ride->report = std::move(report);
  ride->prepared = std::move(p);
  return true;
}

namespace {

// The ride that marked, waiting for the score() of its report on the thread that wrote it
// (Observe scores right after its write): one per thread, the store it belongs to named.
struct WaitingRide {
  const void* store = nullptr;
  std::optional<RedisKeptForecasts::Ride> ride;
};
thread_local WaitingRide waiting_ride;

bool same_doubles(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

}  // namespace

void RedisKeptForecasts::finish_ride(Ride ride, const RedisReply& answer) {
  waiting_ride.ride.reset();
  const std::vector<RedisReply>& parts = answer.elements;
  // {1, now, old bytes...}: marked. {2}: the write it rode on did not land; {0, ...}: the
  // key was kept to since the view. Either way nothing was marked: score() reads afresh.
  if (answer.type != RedisReply::Type::kArray || parts.size() < 2 || parts[0].integer != 1) {
    return;
  }
  read_marks(parts, ride.prepared.forecasts, ride.prepared.widths, &ride.prepared.plan);
  waiting_ride.store = this;
  waiting_ride.ride = std::move(ride);
}

std::optional<RedisKeptForecasts::Prepared> RedisKeptForecasts::take_ride(
    const ActualsReport& report) {
  if (!waiting_ride.ride || waiting_ride.store != this) return std::nullopt;
  Ride ride = std::move(*waiting_ride.ride);
  waiting_ride.ride.reset();
  const ActualsReport& ridden = ride.report;
  if (ridden.series_key != report.series_key || ridden.variable_names != report.variable_names ||
      ridden.timestamps != report.timestamps || !same_doubles(ridden.values, report.values)) {
    // Not the report the marks were set for: cannot happen on Observe's path (its write,
    // then its score); were it to, those pairs stay marked and unscored.
    return std::nullopt;
  }
  return std::move(ride.prepared);
}

void RedisKeptForecasts::read_marks(const std::vector<RedisReply>& parts,
                                    const std::unordered_map<uint64_t, Held>& forecasts,
                                    const std::unordered_map<std::string, Widths>& widths,
                                    ScoringPlan* plan) const {
  static const std::vector<double> kNoWidths;
  if (parts.size() < 2) return;
  const int64_t now_ms = parts[1].integer;
  std::vector<uint64_t> old_marks;
  old_marks.reserve(parts.size() - 2);
  for (std::size_t at = 2; at < parts.size(); ++at) {  // after the script's 1 and now
    if (parts[at].integer < 0) return;                  // not the script's answer: scores nothing
    old_marks.push_back(static_cast<uint64_t>(parts[at].integer));
  }
  if (!read_old_marks(old_marks, plan)) return;
  for (ScoringGroup& group : plan->groups) {
    // Kept longer ago than the expiry (by the script's clock, as the keep's): scores nothing.
    if (group.member.kept_ms <= now_ms - ttl_.count()) continue;
    const auto held = forecasts.find(group.member.id);
    if (held == forecasts.end()) continue;
    const ForecastMeta& meta = held->second->meta;
    const auto found = widths.find(meta.widths_id);
    if (!meta.widths_id.empty() && found == widths.end()) continue;  // the widths expired
    const std::size_t bytes = entry_bytes(meta);
    const std::string_view entry =
        std::string_view(held->second->body).substr(static_cast<std::size_t>(group.k) * bytes, bytes);
    group.held = decode_entry(entry, meta, meta.widths_id.empty() ? kNoWidths : *found->second,
                              group.k, &group.entry)
                     .ok();  // unreadable: scores nothing
  }
}

}  // namespace tsserve::server
