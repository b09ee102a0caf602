#include "server/redis/redis_kept_forecasts.h"

#include <algorithm>
#include <charconv>
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
// believes them held), then the names. 0 = the widths are not held: nothing was written
// (send them). Widths live as long as the newest forecast that uses them.
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
return 1
)lua";

// KEYS: one body per (forecast, step) read. ARGV, per key: the entry's offset and length,
// the number of runs, then per run its bit offset, its length and its value (all ones).
// Answers per key: its entry ("" when the body expired) and, when the entry is there, the
// old value of each run (BITFIELD SET answers what it replaced).
constexpr const char* kScore = R"lua(
local out = {}
local a = 1
for i = 1, #KEYS do
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

uint64_t new_id() {
  thread_local std::mt19937_64 random(std::random_device{}());
  return random();
}

// "<seq>-<id>", as kKeep names a member.
struct Member {
  uint64_t seq = 0;
  uint64_t id = 0;
};
bool parse_member(std::string_view text, Member* member) {
  const auto dash = text.find('-');
  if (dash == std::string_view::npos) return false;
  const char* end = text.data() + text.size();
  const auto seq = std::from_chars(text.data(), text.data() + dash, member->seq);
  const auto id = std::from_chars(text.data() + dash + 1, end, member->id);
  return seq.ec == std::errc() && seq.ptr == text.data() + dash && id.ec == std::errc() &&
         id.ptr == end;
}

// One (forecast, step) a report reads the entry of and sets marks in.
struct Group {
  uint64_t id = 0;
  const ForecastMeta* meta = nullptr;
  int64_t k = 0;
  std::vector<std::size_t> bits;               // its pairs' marks
  std::vector<std::pair<std::size_t, std::size_t>> runs;  // (first bit, length), sorted
  bool held = false;                            // its entry was read (the body is there)
  ForecastEntry entry;
  std::vector<std::size_t> set_before;          // the bits that were set, sorted
};

// One (forecast, point) pair that may score report point `point`.
struct Candidate {
  std::size_t point = 0;
  std::size_t group = 0;
  std::size_t bit = 0;
  int64_t variable = 0;
};

// Sorted `bits` as runs of adjacent bits, each at most kMaxRunBits long.
std::vector<std::pair<std::size_t, std::size_t>> runs_of(std::vector<std::size_t> bits) {
  std::sort(bits.begin(), bits.end());
  std::vector<std::pair<std::size_t, std::size_t>> runs;
  for (std::size_t i = 0; i < bits.size();) {
    std::size_t length = 1;
    while (i + length < bits.size() && bits[i + length] == bits[i] + length &&
           length < kMaxRunBits) {
      ++length;
    }
    runs.emplace_back(bits[i], length);
    i += length;
  }
  return runs;
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
    if (replies.front().integer == 1) {
      if (!widths_id.empty()) remember_widths(widths_id, nullptr);
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

Status RedisKeptForecasts::score(const ActualsReport& report, const ScoreSink& score,
                                 StoreDrops* /*drops*/, ActualsOutcome* outcome) {
  *outcome = ActualsOutcome();
  const std::size_t rows = report.timestamps.size();
  const std::size_t columns = report.variable_names.size();

  // 1. The key's names and the forecasts that may cover the report, in one round trip.
  const std::string first_time =
      rows == 0 ? "+inf"
                : std::to_string(*std::min_element(report.timestamps.begin(),
                                                   report.timestamps.end()));
  std::vector<RedisReply> replies;
  TSSERVE_RETURN_IF_ERROR(client_.run(
      "forecast_read",
      {{"SMEMBERS", names_key(report.series_key)},
       {"ZRANGEBYSCORE", index_key(report.series_key), first_time, "+inf"}},
      &replies));
  std::unordered_set<std::string_view> key_names;
  for (const RedisReply& name : replies[0].elements) key_names.insert(name.text);
  if (key_names.empty()) {
    outcome->unknown_key = static_cast<int64_t>(report.values.size());
    return Status();
  }
  std::vector<Member> members;
  for (const RedisReply& text : replies[1].elements) {
    Member member;
    if (parse_member(text.text, &member)) members.push_back(member);
  }
  std::sort(members.begin(), members.end(),
            [](const Member& a, const Member& b) { return a.seq < b.seq; });
  std::vector<uint64_t> ids;
  for (const Member& member : members) ids.push_back(member.id);
  std::unordered_map<uint64_t, Meta> metas;
  TSSERVE_RETURN_IF_ERROR(metas_of(ids, &metas));
  std::vector<const ForecastMeta*> held;
  for (const auto& [id, meta] : metas) held.push_back(meta.get());
  std::unordered_map<std::string, Widths> widths;
  TSSERVE_RETURN_IF_ERROR(widths_for(held, &widths));
  static const std::vector<double> kNoWidths;

  // 2. The pairs, as the in-process store picks them: by point, then in the order the
  // forecasts were kept; a column takes a forecast's first variable of its name.
  std::unordered_map<std::string_view, std::size_t> column_of;
  for (std::size_t n = 0; n < columns; ++n) column_of.emplace(report.variable_names[n], n);
  std::vector<Group> groups;
  std::vector<Candidate> candidates;
  std::vector<int64_t> variable_of_column(columns);
  for (const Member& member : members) {
    const auto found = metas.find(member.id);
    if (found == metas.end()) continue;  // expired
    const ForecastMeta& meta = *found->second;
    std::fill(variable_of_column.begin(), variable_of_column.end(), -1);
    for (std::size_t v = meta.variables(); v-- > 0;) {  // the first of a name wins
      const auto column = column_of.find(meta.variable_names[v]);
      if (column != column_of.end()) variable_of_column[column->second] = static_cast<int64_t>(v);
    }
    for (std::size_t t = 0; t < rows; ++t) {
      const int64_t k = meta.step_of(report.timestamps[t]);
      if (k < 0) continue;
      std::size_t group = groups.size();
      for (std::size_t n = 0; n < columns; ++n) {
        const std::size_t point = t * columns + n;
        const int64_t v = variable_of_column[n];
        if (v < 0 || !std::isfinite(report.values[point])) continue;
        if (group == groups.size()) {
          groups.emplace_back();
          groups.back().id = member.id;
          groups.back().meta = &meta;
          groups.back().k = k;
        }
        const std::size_t bit = mark_bit(meta, k, v);
        groups[group].bits.push_back(bit);
        candidates.push_back({point, group, bit, v});
      }
    }
  }
  // Made forecast by forecast: a stable sort by point leaves each point's in keep order.
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& a, const Candidate& b) { return a.point < b.point; });

  // 3. The entries read and the marks set in one script; a pair scores when its bit was
  // not set before. A run of adjacent bits (a step's variables, all reported at once by
  // an Observe) is one SET of an unsigned field of ones: setting ones ORs, and the
  // field's old value says which of them were set.
  if (!groups.empty()) {
    RedisCommand command{"EVAL", kScore, std::to_string(groups.size())};
    for (const Group& group : groups) command.push_back(body_key(group.id));
    for (Group& group : groups) {
      const std::size_t bytes = entry_bytes(*group.meta);
      group.runs = runs_of(group.bits);
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
    std::size_t at = 0;
    for (Group& group : groups) {
      if (at >= parts.size()) break;
      const RedisReply& entry = parts[at++];
      const std::size_t runs = group.runs.size();
      const std::string& widths_id = group.meta->widths_id;
      const auto found = widths.find(widths_id);
      if (entry.text.size() != entry_bytes(*group.meta) ||
          (!widths_id.empty() && found == widths.end())) {
        // Expired (a body, or the widths it needs): scores nothing. Its marks, set or not,
        // are skipped.
        if (entry.text.size() == entry_bytes(*group.meta)) at += runs;
        continue;
      }
      TSSERVE_RETURN_IF_ERROR(decode_entry(entry.text, *group.meta,
                                           widths_id.empty() ? kNoWidths : *found->second,
                                           group.k, &group.entry));
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

  // 4. The outcome and the scores, in the pairs' order.
  std::vector<ScoredBand> bands;
  std::size_t c = 0;
  for (std::size_t point = 0; point < report.values.size(); ++point) {
    const double actual = report.values[point];
    if (!std::isfinite(actual)) {
      ++outcome->not_finite;
      continue;
    }
    int64_t scored = 0, covering = 0;
    for (; c < candidates.size() && candidates[c].point == point; ++c) {
      const Candidate& pair = candidates[c];
      const Group& group = groups[pair.group];
      if (!group.held) continue;
      ++covering;
      if (std::binary_search(group.set_before.begin(), group.set_before.end(), pair.bit)) {
        continue;
      }
      ++scored;
      const ForecastMeta& meta = *group.meta;
      const auto v = static_cast<std::size_t>(pair.variable);
      const std::size_t variables = meta.variables();
      bands.clear();
      for (std::size_t b = 0; b < meta.levels.size(); ++b) {
        bands.push_back({meta.levels[b], group.entry.lower[b * variables + v],
                         group.entry.upper[b * variables + v]});
      }
      const bool scaled = !meta.scaler_mean.empty();
      ScoredPoint scored_point{report.series_key,
                               meta.model,
                               meta.version,
                               pair.variable,
                               group.k + 1,
                               group.entry.values[v],
                               scaled ? (actual - meta.scaler_mean[v]) / meta.scaler_std[v] : actual,
                               point,
                               bands};
      if (scaled) {
        scored_point.scaled = true;
        scored_point.mean = meta.scaler_mean[v];
        scored_point.std = meta.scaler_std[v];
      }
      score(scored_point);
    }
    const std::string& name = report.variable_names[point % columns];
    if (scored > 0) {
      outcome->matched += scored;
    } else if (key_names.count(name) == 0) {
      ++outcome->unknown_variable;
    } else if (covering == 0) {
      ++outcome->no_forecast;
    } else {
      ++outcome->already_reported;
    }
  }
  return Status();
}

}  // namespace tsserve::server
