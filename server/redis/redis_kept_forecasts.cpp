#include "server/redis/redis_kept_forecasts.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

namespace tsserve::server {
namespace {

// Metas cached at most; past it the cache starts again (a miss costs one round trip).
constexpr std::size_t kMaxCachedMetas = 1 << 16;

std::string meta_key(uint64_t id) { return "tsserve:fm:" + std::to_string(id); }
std::string points_key(const std::string& series_key, int64_t time) {
  return "tsserve:fp:" + series_key + ":" + std::to_string(time);
}
std::string marks_key(const std::string& series_key, int64_t time) {
  return "tsserve:fs:" + series_key + ":" + std::to_string(time);
}
std::string names_key(const std::string& series_key) { return "tsserve:fn:" + series_key; }

// KEYS: the names, the meta, then the F times' entry strings. ARGV: the expiry in ms, the
// meta, F, then F entries, then the names. A time's string gets its expiry when this
// append made it (APPEND answers the new length).
constexpr const char* kKeep = R"lua(
local ttl = ARGV[1]
local steps = tonumber(ARGV[3])
for i = 1, steps do
  local entry = ARGV[3 + i]
  if redis.call('APPEND', KEYS[2 + i], entry) == #entry then
    redis.call('PEXPIRE', KEYS[2 + i], ttl)
  end
end
redis.call('SET', KEYS[2], ARGV[2], 'PX', ttl)
local names = {}
for i = 4 + steps, #ARGV do names[#names + 1] = ARGV[i] end
redis.call('SADD', KEYS[1], unpack(names))
redis.call('PEXPIRE', KEYS[1], ttl)
return 1
)lua";

uint64_t new_id() {
  thread_local std::mt19937_64 random(std::random_device{}());
  return random();
}

// One (forecast entry, variable) pair that may score report point (t, n).
struct Candidate {
  std::size_t t = 0;
  int64_t n = 0;
  const ForecastEntry* entry = nullptr;
  const ForecastMeta* meta = nullptr;
  int64_t variable = 0;
  std::size_t bit = 0;  // its mark in the time's bitmap
};

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
  auto meta = std::make_shared<const ForecastMeta>(meta_of(forecast));
  const auto steps = static_cast<std::size_t>(forecast.steps());
  RedisCommand keep{"EVAL", kKeep, std::to_string(2 + steps), names_key(forecast.series_key),
                    meta_key(id)};
  keep.reserve(keep.size() + 2 * steps + 3 + forecast.variable_names.size());
  for (std::size_t k = 0; k < steps; ++k) {
    keep.push_back(points_key(forecast.series_key, forecast.times[k]));
  }
  keep.push_back(std::to_string(ttl_.count()));
  keep.push_back(encode_meta(*meta));
  keep.push_back(std::to_string(steps));
  for (std::size_t k = 0; k < steps; ++k) {
    keep.push_back(encode_entry(forecast, id, static_cast<int64_t>(k)));
  }
  keep.insert(keep.end(), forecast.variable_names.begin(), forecast.variable_names.end());
  std::vector<RedisReply> replies;
  TSSERVE_RETURN_IF_ERROR(client_.run("forecast_keep", {keep}, &replies));
  remember(id, std::move(meta));
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
  const auto columns = static_cast<int64_t>(report.variable_names.size());

  // 1. The key's names and the entries at every reported time, in one round trip.
  std::vector<RedisCommand> reads{{"SMEMBERS", names_key(report.series_key)}};
  for (const int64_t time : report.timestamps) {
    reads.push_back({"GET", points_key(report.series_key, time)});
  }
  std::vector<RedisReply> replies;
  TSSERVE_RETURN_IF_ERROR(client_.run("forecast_read", reads, &replies));
  std::unordered_set<std::string_view> key_names;
  for (const RedisReply& name : replies.front().elements) key_names.insert(name.text);
  if (key_names.empty()) {
    outcome->unknown_key = static_cast<int64_t>(report.values.size());
    return Status();
  }
  std::vector<std::vector<ForecastEntry>> entries(rows);
  std::vector<uint64_t> ids;
  for (std::size_t t = 0; t < rows; ++t) {
    if (replies[t + 1].type != RedisReply::Type::kString) continue;
    TSSERVE_RETURN_IF_ERROR(decode_entries(replies[t + 1].text, &entries[t]));
    for (const ForecastEntry& entry : entries[t]) ids.push_back(entry.id);
  }
  std::unordered_map<uint64_t, Meta> metas;
  TSSERVE_RETURN_IF_ERROR(metas_of(ids, &metas));

  // 2. The pairs, as the in-process store picks them: by row, by column, then in the
  // order the forecasts were kept; a column takes a forecast's first variable of its name.
  std::unordered_map<std::string_view, int64_t> column_of;
  for (int64_t n = 0; n < columns; ++n) {
    column_of.emplace(report.variable_names[static_cast<std::size_t>(n)], n);
  }
  std::vector<Candidate> candidates;
  std::vector<std::size_t> first_of_point(report.values.size() + 1, 0);  // CSR by point
  // A key's forecasts mostly share their names: the columns of the last names looked up
  // are reused while the next forecast's names equal them.
  const std::vector<std::string>* mapped_names = nullptr;
  std::vector<int64_t> column_of_variable;  // -1: no column
  std::vector<std::vector<Candidate>> by_column(static_cast<std::size_t>(columns));
  for (std::size_t t = 0; t < rows; ++t) {
    for (std::vector<Candidate>& of_column : by_column) {
      of_column.clear();
      of_column.reserve(entries[t].size());
    }
    std::size_t bits = 0;  // the marks of the entries before this one
    for (const ForecastEntry& entry : entries[t]) {
      const std::size_t base = bits;
      bits += entry.values.size();
      const auto found = metas.find(entry.id);
      if (found == metas.end()) continue;
      const ForecastMeta& meta = *found->second;
      if (entry.values.size() != meta.variable_names.size()) continue;
      if (mapped_names == nullptr || *mapped_names != meta.variable_names) {
        mapped_names = &meta.variable_names;
        column_of_variable.assign(meta.variable_names.size(), -1);
        for (std::size_t v = 0; v < meta.variable_names.size(); ++v) {
          const auto column = column_of.find(meta.variable_names[v]);
          if (column != column_of.end()) column_of_variable[v] = column->second;
        }
      }
      for (std::size_t v = 0; v < meta.variable_names.size(); ++v) {
        const int64_t column = column_of_variable[v];
        if (column < 0) continue;
        // A column takes the forecast's first variable of its name.
        std::vector<Candidate>& of_column = by_column[static_cast<std::size_t>(column)];
        if (!of_column.empty() && of_column.back().entry == &entry) continue;
        of_column.push_back({t, column, &entry, &meta, static_cast<int64_t>(v), base + v});
      }
    }
    for (int64_t n = 0; n < columns; ++n) {
      const std::size_t point = t * static_cast<std::size_t>(columns) + static_cast<std::size_t>(n);
      first_of_point[point] = candidates.size();
      if (std::isfinite(report.values[point])) {
        const std::vector<Candidate>& of_column = by_column[static_cast<std::size_t>(n)];
        candidates.insert(candidates.end(), of_column.begin(), of_column.end());
      }
    }
  }
  first_of_point[report.values.size()] = candidates.size();

  // 3. Marked in one round trip, one BITFIELD per time; a pair scores when its bit was
  // not set before. A run of adjacent bits (an entry's variables, all reported at once
  // by an Observe) is one SET of an unsigned field of ones: setting ones ORs, and the
  // field's old value says which of them were set.
  std::vector<bool> newly(candidates.size(), false);
  if (!candidates.empty()) {
    std::vector<RedisCommand> sets;
    std::vector<std::vector<std::pair<std::size_t, std::size_t>>> runs;  // per time: (bit, length)
    std::vector<std::size_t> first_of_time;
    for (std::size_t c = 0; c < candidates.size();) {
      const std::size_t t = candidates[c].t;
      std::size_t end = c;
      while (end < candidates.size() && candidates[end].t == t) ++end;
      std::vector<std::size_t> bits;
      for (std::size_t i = c; i < end; ++i) bits.push_back(candidates[i].bit);
      std::sort(bits.begin(), bits.end());
      const std::string key = marks_key(report.series_key, report.timestamps[t]);
      RedisCommand bitfield{"BITFIELD", key};
      runs.emplace_back();
      for (std::size_t i = 0; i < bits.size();) {
        std::size_t length = 1;
        while (i + length < bits.size() && bits[i + length] == bits[i] + length && length < 63) ++length;
        bitfield.insert(bitfield.end(), {"SET", "u" + std::to_string(length),
                                         std::to_string(bits[i]),
                                         std::to_string((uint64_t{1} << length) - 1)});
        runs.back().emplace_back(bits[i], length);
        i += length;
      }
      sets.push_back(std::move(bitfield));
      sets.push_back({"PEXPIRE", key, std::to_string(ttl_.count())});
      first_of_time.push_back(c);
      c = end;
    }
    std::vector<RedisReply> marks;
    TSSERVE_RETURN_IF_ERROR(client_.run("forecast_mark", sets, &marks));
    for (std::size_t group = 0; group < first_of_time.size(); ++group) {
      // The bits that were set before, of this time.
      std::vector<bool> was_set;
      const std::vector<RedisReply>& old = marks[2 * group].elements;
      for (std::size_t r = 0; r < runs[group].size() && r < old.size(); ++r) {
        const auto [bit, length] = runs[group][r];
        const auto value = static_cast<uint64_t>(old[r].integer);
        for (std::size_t i = 0; i < length; ++i) {
          // The field's most significant bit is its first (lowest) offset.
          if ((value >> (length - 1 - i)) & 1U) {
            if (was_set.size() <= bit + i) was_set.resize(bit + i + 1, false);
            was_set[bit + i] = true;
          }
        }
      }
      const std::size_t end =
          group + 1 < first_of_time.size() ? first_of_time[group + 1] : candidates.size();
      for (std::size_t c = first_of_time[group]; c < end; ++c) {
        const std::size_t bit = candidates[c].bit;
        newly[c] = bit >= was_set.size() || !was_set[bit];
      }
    }
  }

  // 4. The outcome and the scores, in the pairs' order.
  std::vector<ScoredBand> bands;
  for (std::size_t point = 0; point < report.values.size(); ++point) {
    const double actual = report.values[point];
    if (!std::isfinite(actual)) {
      ++outcome->not_finite;
      continue;
    }
    int64_t scored = 0;
    for (std::size_t c = first_of_point[point]; c < first_of_point[point + 1]; ++c) {
      if (!newly[c]) continue;
      ++scored;
      const Candidate& pair = candidates[c];
      const ForecastMeta& meta = *pair.meta;
      const auto v = static_cast<std::size_t>(pair.variable);
      const std::size_t variables = meta.variable_names.size();
      bands.clear();
      for (std::size_t b = 0; b < meta.levels.size(); ++b) {
        bands.push_back({meta.levels[b], pair.entry->lower[b * variables + v],
                         pair.entry->upper[b * variables + v]});
      }
      const bool scaled = !meta.scaler_mean.empty();
      ScoredPoint scored_point{report.series_key,
                               meta.model,
                               meta.version,
                               pair.variable,
                               pair.entry->step + 1,
                               pair.entry->values[v],
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
    const std::string& name = report.variable_names[point % static_cast<std::size_t>(columns)];
    if (scored > 0) {
      outcome->matched += scored;
    } else if (key_names.count(name) == 0) {
      ++outcome->unknown_variable;
    } else if (first_of_point[point] == first_of_point[point + 1]) {
      ++outcome->no_forecast;
    } else {
      ++outcome->already_reported;
    }
  }
  return Status();
}

}  // namespace tsserve::server
