#include "server/redis/redis_kept_forecasts.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <cmath>
#include <random>
#include <string_view>
#include <unordered_set>
#include <utility>

namespace tsserve::server {
namespace {

// Metas and widths cached at most; past it a cache starts again (a miss costs one round
// trip).
constexpr std::size_t kMaxCachedMetas = 1 << 14;
constexpr std::size_t kMaxCachedWidths = 256;
// Members older than the expiry that one keep drops at most (the next keeps drop the rest).
constexpr int kMaxDroppedPerKeep = 1000;
// A run of marks is one BITFIELD field; Lua numbers hold 53 bits exactly.
constexpr std::size_t kMaxRunBits = 52;

std::string meta_key(uint64_t id) { return "tsserve:fm:" + std::to_string(id); }
std::string body_key(uint64_t id) { return "tsserve:fb:" + std::to_string(id); }
std::string widths_key(const std::string& id) { return "tsserve:fw:" + id; }
std::string index_key(const std::string& key) { return "tsserve:fi:" + key; }
std::string kept_at_key(const std::string& key) { return "tsserve:fk:" + key; }
std::string names_key(const std::string& key) { return "tsserve:fn:" + key; }
std::string sequence_key(const std::string& key) { return "tsserve:fq:" + key; }

// KEYS: the meta, the body, the index, the kept-at set, the names, the sequence, the
// widths ("" when the body holds the bounds). ARGV: the expiry in ms, the meta, the body,
// the last time, the id, the most members to drop, the widths' bytes ("" when the caller
// believes them held), then the names. The forecast's sequence; 0 = the widths are not
// held: nothing was written (send them). Widths live as long as the newest forecast that
// uses them.
constexpr const char* kKeep = R"lua(
local ttl = tonumber(ARGV[1])
if KEYS[7] ~= '' then
  if ARGV[7] ~= '' then
    redis.call('SET', KEYS[7], ARGV[7], 'PX', ttl)
  elseif redis.call('PEXPIRE', KEYS[7], ttl) == 0 then
    return 0
  end
end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ttl)
redis.call('SET', KEYS[2], ARGV[3], 'PX', ttl)
local member = redis.call('INCR', KEYS[6]) .. '-' .. ARGV[5]
local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local old = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', ms - ttl, 'LIMIT', 0, ARGV[6])
if #old > 0 then
  redis.call('ZREM', KEYS[3], unpack(old))
  redis.call('ZREM', KEYS[4], unpack(old))
end
redis.call('ZADD', KEYS[3], ARGV[4], member)
redis.call('ZADD', KEYS[4], ms, member)
local names = {}
for i = 8, #ARGV do names[#names + 1] = ARGV[i] end
redis.call('SADD', KEYS[5], unpack(names))
for i = 3, 6 do redis.call('PEXPIRE', KEYS[i], ttl) end
return tonumber(string.match(member, '^(%d+)'))
)lua";

// KEYS: the key's sequence, names and index, then one body per (forecast, step) read.
// ARGV: the sequence the caller's view of the key was taken at ("" = no check), the first
// time its view must cover, then per body: the entry's offset and length, the number of
// runs, then per run its bit offset, its length and its value (all ones).
// When the key was kept to since the caller's view: {0, its sequence, its names, its
// index's members from that time}, and nothing is read or marked. Otherwise {1, then per
// body its entry ("" when the body expired) and, when the entry is there, the old value of
// each run (BITFIELD SET answers what it replaced)}.
constexpr const char* kScore = R"lua(
if ARGV[1] ~= '' then
  local seq = redis.call('GET', KEYS[1]) or '0'
  if seq ~= ARGV[1] then
    return {0, seq, redis.call('SMEMBERS', KEYS[2]),
            redis.call('ZRANGEBYSCORE', KEYS[3], ARGV[2], '+inf')}
  end
end
local out = {1}
local a = 3
for i = 4, #KEYS do
  local offset, length, runs = tonumber(ARGV[a]), tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
  a = a + 3
  local entry = redis.call('GETRANGE', KEYS[i], offset, offset + length - 1)
  out[#out + 1] = entry
  if #entry == length then
    local fields = {}
    for r = 1, runs do
      fields[#fields + 1] = 'SET'
      fields[#fields + 1] = 'u' .. ARGV[a + 1]
      fields[#fields + 1] = ARGV[a]
      fields[#fields + 1] = ARGV[a + 2]
      a = a + 3
    end
    local replaced = redis.call('BITFIELD', KEYS[i], unpack(fields))
    for r = 1, #replaced do out[#out + 1] = replaced[r] end
  else
    a = a + 3 * runs
  end
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

RedisKeptForecasts::RedisKeptForecasts(RedisClient& client, std::chrono::milliseconds ttl)
    : client_(client), ttl_(ttl) {}

void RedisKeptForecasts::remember(uint64_t id, Meta meta) {
  const MutexLock lock(mutex_);
  if (metas_.size() >= kMaxCachedMetas) metas_.clear();
  metas_.emplace(id, std::move(meta));
}

Status RedisKeptForecasts::keep(IssuedForecast forecast, StoreDrops* /*drops*/) {
  const uint64_t id = new_id();
  std::string widths, widths_id;
  if (!widths_of(forecast, &widths, &widths_id)) widths.clear();
  auto meta = std::make_shared<const ForecastMeta>(meta_of(forecast, widths_id));
  const std::string& key = forecast.series_key;
  // Widths this replica wrote or read within half their expiry are held still (each keep
  // renews them); the script says when they are not, and they are sent then.
  bool send_widths = !widths_id.empty() && !widths_held(widths_id);
  for (int attempt = 0; attempt < 2; ++attempt) {
    RedisCommand keep{"EVAL",
                      kKeep,
                      "7",
                      meta_key(id),
                      body_key(id),
                      index_key(key),
                      kept_at_key(key),
                      names_key(key),
                      sequence_key(key),
                      widths_id.empty() ? std::string() : widths_key(widths_id),
                      std::to_string(ttl_.count()),
                      encode_meta(*meta),
                      encode_body(forecast, *meta),
                      std::to_string(forecast.times.back()),
                      std::to_string(id),
                      std::to_string(kMaxDroppedPerKeep),
                      send_widths ? widths : std::string()};
    keep.insert(keep.end(), forecast.variable_names.begin(), forecast.variable_names.end());
    std::vector<RedisReply> replies;
    TSSERVE_RETURN_IF_ERROR(client_.run("forecast_keep", {keep}, &replies));
    if (replies.front().integer > 0) {
      if (!widths_id.empty()) remember_widths(widths_id, nullptr);
      saw_kept(forecast, {static_cast<uint64_t>(replies.front().integer), id});
      remember(id, std::move(meta));
      return Status();
    }
    send_widths = true;  // they expired since this replica last saw them
  }
  return {StatusCode::kInternal, client_.name() + ": a kept forecast's widths were refused twice"};
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

Status RedisKeptForecasts::metas_of(const std::vector<uint64_t>& ids,
                                    std::unordered_map<uint64_t, Meta>* metas) {
  std::vector<uint64_t> missing;
  {
    const MutexLock lock(mutex_);
    for (const uint64_t id : ids) {
      const auto found = metas_.find(id);
      if (found != metas_.end()) {
        metas->emplace(id, found->second);
      } else {
        missing.push_back(id);
      }
    }
  }
  if (missing.empty()) return Status();
  RedisCommand get{"MGET"};
  for (const uint64_t id : missing) get.push_back(meta_key(id));
  std::vector<RedisReply> replies;
  TSSERVE_RETURN_IF_ERROR(client_.run("forecast_read", {get}, &replies));
  const std::vector<RedisReply>& values = replies.front().elements;
  for (std::size_t i = 0; i < missing.size() && i < values.size(); ++i) {
    if (values[i].type != RedisReply::Type::kString) continue;  // expired
    auto meta = std::make_shared<ForecastMeta>();
    TSSERVE_RETURN_IF_ERROR(decode_meta(values[i].text, meta.get()));
    metas->emplace(missing[i], meta);
    remember(missing[i], meta);
  }
  return Status();
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

Status RedisKeptForecasts::score(const ActualsReport& report, const ScoreSink& score,
                                 StoreDrops* /*drops*/, ActualsOutcome* outcome) {
  *outcome = ActualsOutcome();
  const std::string& key = report.series_key;
  // The forecasts that may cover the report: those whose last time is at its first.
  const int64_t from_time =
      report.timestamps.empty()
          ? std::numeric_limits<int64_t>::max()
          : *std::min_element(report.timestamps.begin(), report.timestamps.end());
  const std::string from = report.timestamps.empty() ? "+inf" : std::to_string(from_time);

  // 1. The key's view (its names and the forecasts that may cover the report): the one
  // this replica remembers, checked by the script below, or read in one round trip.
  KeyView view;
  bool checked = false;  // the view needs no check by the script
  if (!recall_view(key, from_time, &view)) {
    std::vector<RedisReply> replies;
    TSSERVE_RETURN_IF_ERROR(client_.run(
        "forecast_read",
        {{"GET", sequence_key(key)},
         {"SMEMBERS", names_key(key)},
         {"ZRANGEBYSCORE", index_key(key), from, "+inf"}},
        &replies));
    TSSERVE_RETURN_IF_ERROR(view_of(replies[0], replies[1], replies[2], from_time, &view));
    checked = true;
  }
  for (int check = 0;; ++check) {
    if (view.names.empty() && checked) {  // no forecast was ever kept with this key
      outcome->unknown_key = static_cast<int64_t>(report.values.size());
      return Status();
    }
    std::vector<uint64_t> ids;
    for (const KeptMember& member : view.members) ids.push_back(member.id);
    std::unordered_map<uint64_t, Meta> metas;
    TSSERVE_RETURN_IF_ERROR(metas_of(ids, &metas));
    // Members that ended before the report's first time cannot cover it, nor any later
    // report this view serves.
    view.members.erase(
        std::remove_if(view.members.begin(), view.members.end(),
                       [&](const KeptMember& member) {
                         const auto found = metas.find(member.id);
                         return found == metas.end() || found->second->times.back() < from_time;
                       }),
        view.members.end());
    view.from_time = std::max(view.from_time, from_time);
    std::vector<const ForecastMeta*> held;
    held.reserve(metas.size());
    for (const auto& [id, meta] : metas) held.push_back(meta.get());
    std::unordered_map<std::string, Widths> widths;
    TSSERVE_RETURN_IF_ERROR(widths_for(held, &widths));

    // 2. The pairs, as the in-process store picks them.
    ScoringPlan plan = plan_scoring(report, view.members, metas, kMaxRunBits);
    if (plan.groups.empty() && checked) {
      remember_view(key, view);
      const std::unordered_set<std::string_view> names(view.names.begin(), view.names.end());
      deliver_scores(report, plan, names, score, outcome);
      return Status();
    }

    // 3. The view checked, the entries read and the marks set in one script; a pair
    // scores when its bit was not set before. A run of adjacent bits (a step's variables,
    // all reported at once by an Observe) is one SET of an unsigned field of ones: setting
    // ones ORs, and the field's old value says which of them were set.
    const bool check_view = !checked && check < kMaxViewChecks;
    RedisCommand command{"EVAL",          kScore,          std::to_string(3 + plan.groups.size()),
                         sequence_key(key), names_key(key), index_key(key)};
    for (const ScoringGroup& group : plan.groups) command.push_back(body_key(group.id));
    command.push_back(check_view ? std::to_string(view.seq) : std::string());
    command.push_back(from);
    for (const ScoringGroup& group : plan.groups) {
      const std::size_t bytes = entry_bytes(*group.meta);
      command.insert(command.end(), {std::to_string(static_cast<std::size_t>(group.k) * bytes),
                                     std::to_string(bytes), std::to_string(group.runs.size())});
      for (const auto& [bit, length] : group.runs) {
        command.insert(command.end(), {std::to_string(bit), std::to_string(length),
                                       std::to_string((uint64_t{1} << length) - 1)});
      }
    }
    std::vector<RedisReply> answers;
    TSSERVE_RETURN_IF_ERROR(client_.run("forecast_mark", {command}, &answers));
    const std::vector<RedisReply>& parts = answers.front().elements;
    if (parts.empty()) return {StatusCode::kInternal, client_.name() + ": a scoring script answered nothing"};
    if (parts[0].integer == 0 && parts.size() == 4) {
      // Kept to since this view: the script answered the key's current one.
      TSSERVE_RETURN_IF_ERROR(view_of(parts[1], parts[2], parts[3], from_time, &view));
      checked = true;
      continue;
    }
    read_marks(parts, widths, &plan);
    remember_view(key, view);
    const std::unordered_set<std::string_view> names(view.names.begin(), view.names.end());
    deliver_scores(report, plan, names, score, outcome);
    return Status();
  }
}

void RedisKeptForecasts::read_marks(const std::vector<RedisReply>& parts,
                                    const std::unordered_map<std::string, Widths>& widths,
                                    ScoringPlan* plan) const {
  static const std::vector<double> kNoWidths;
  std::size_t at = 1;  // after the script's 1
  for (ScoringGroup& group : plan->groups) {
    if (at >= parts.size()) break;
    const RedisReply& entry = parts[at++];
    const std::size_t runs = group.runs.size();
    const std::string& widths_id = group.meta->widths_id;
    const auto found = widths.find(widths_id);
    const bool whole = entry.text.size() == entry_bytes(*group.meta);
    if (!whole || (!widths_id.empty() && found == widths.end())) {
      // Expired (a body, or the widths it needs): scores nothing. Its marks, set or not,
      // are skipped.
      if (whole) at += runs;
      continue;
    }
    if (!decode_entry(entry.text, *group.meta, widths_id.empty() ? kNoWidths : *found->second,
                      group.k, &group.entry)
             .ok()) {
      at += runs;  // unreadable: scores nothing
      continue;
    }
    group.held = true;
    for (const auto& [bit, length] : group.runs) {
      if (at >= parts.size()) break;
      const auto old = static_cast<uint64_t>(parts[at++].integer);
      for (std::size_t i = 0; i < length; ++i) {
        // The field's most significant bit is its first (lowest) offset.
        if ((old >> (length - 1 - i)) & 1U) group.set_before.push_back(bit + i);
      }
    }
  }
}

}  // namespace tsserve::server
