#include "server/redis/redis_kept_forecasts.h"

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
  const std::string expiry = std::to_string(ttl_.count());
  std::vector<RedisCommand> commands;
  commands.push_back({"MULTI"});
  commands.push_back({"SET", meta_key(id), encode_meta(*meta), "PX", expiry});
  for (int64_t k = 0; k < forecast.steps(); ++k) {
    const std::string key = points_key(forecast.series_key, forecast.times[static_cast<std::size_t>(k)]);
    commands.push_back({"APPEND", key, encode_entry(forecast, id, k)});
    commands.push_back({"PEXPIRE", key, expiry});
  }
  RedisCommand names{"SADD", names_key(forecast.series_key)};
  names.insert(names.end(), forecast.variable_names.begin(), forecast.variable_names.end());
  commands.push_back(std::move(names));
  commands.push_back({"PEXPIRE", names_key(forecast.series_key), expiry});
  commands.push_back({"EXEC"});
  std::vector<RedisReply> replies;
  TSSERVE_RETURN_IF_ERROR(client_.run("forecast_keep", commands, &replies));
  if (replies.back().type != RedisReply::Type::kArray) {
    return {StatusCode::kUnavailable, client_.name() + ": forecast_keep: the transaction was not run"};
  }
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
  for (std::size_t t = 0; t < rows; ++t) {
    std::vector<std::vector<Candidate>> by_column(static_cast<std::size_t>(columns));
    for (const ForecastEntry& entry : entries[t]) {
      const auto found = metas.find(entry.id);
      if (found == metas.end()) continue;
      const ForecastMeta& meta = *found->second;
      if (entry.values.size() != meta.variable_names.size()) continue;
      std::unordered_set<int64_t> taken;
      for (std::size_t v = 0; v < meta.variable_names.size(); ++v) {
        const auto column = column_of.find(meta.variable_names[v]);
        if (column == column_of.end() || !taken.insert(column->second).second) continue;
        by_column[static_cast<std::size_t>(column->second)].push_back(
            {t, column->second, &entry, &meta, static_cast<int64_t>(v)});
      }
    }
    for (int64_t n = 0; n < columns; ++n) {
      const std::size_t point = t * static_cast<std::size_t>(columns) + static_cast<std::size_t>(n);
      first_of_point[point] = candidates.size();
      if (std::isfinite(report.values[point])) {
        for (const Candidate& c : by_column[static_cast<std::size_t>(n)]) candidates.push_back(c);
      }
    }
  }
  first_of_point[report.values.size()] = candidates.size();

  // 3. Marked in one round trip; a pair scores when its bit was not set before.
  std::vector<RedisReply> marks;
  if (!candidates.empty()) {
    std::vector<RedisCommand> sets;
    std::vector<bool> expiring(rows, false);
    for (const Candidate& c : candidates) {
      const std::string key = marks_key(report.series_key, report.timestamps[c.t]);
      sets.push_back({"SETBIT", key, std::to_string(c.entry->offset + static_cast<std::size_t>(c.variable)), "1"});
      if (!expiring[c.t]) {
        expiring[c.t] = true;
        sets.push_back({"PEXPIRE", key, std::to_string(ttl_.count())});
      }
    }
    TSSERVE_RETURN_IF_ERROR(client_.run("forecast_mark", sets, &marks));
  }

  // 4. The outcome and the scores, in the pairs' order.
  std::size_t mark = 0;
  std::vector<bool> newly(candidates.size(), false);
  {
    std::vector<bool> expiring(rows, false);
    for (std::size_t c = 0; c < candidates.size(); ++c) {
      newly[c] = marks[mark++].integer == 0;
      if (!expiring[candidates[c].t]) {
        expiring[candidates[c].t] = true;
        ++mark;  // the PEXPIRE's reply
      }
    }
  }
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
