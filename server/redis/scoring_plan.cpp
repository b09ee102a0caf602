#include "server/redis/scoring_plan.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace tsserve::server {

bool parse_kept_member(std::string_view text, KeptMember* member) {
  const char* at = text.data();
  const char* end = text.data() + text.size();
  const auto seq = std::from_chars(at, end, member->seq);
  if (seq.ec != std::errc() || seq.ptr == end || *seq.ptr != '-') return false;
  const auto id = std::from_chars(seq.ptr + 1, end, member->id);
  if (id.ec != std::errc() || id.ptr == end || *id.ptr != '-') return false;
  const auto kept = std::from_chars(id.ptr + 1, end, member->kept_ms);
  return kept.ec == std::errc() && kept.ptr == end;
}

ScoringPlan plan_scoring(const ActualsReport& report, const std::vector<KeptMember>& members,
                         const std::unordered_map<uint64_t, std::shared_ptr<const ForecastMeta>>& metas) {
  const std::size_t rows = report.timestamps.size();
  const std::size_t columns = report.variable_names.size();
  std::unordered_map<std::string_view, std::size_t> column_of;
  for (std::size_t n = 0; n < columns; ++n) column_of.emplace(report.variable_names[n], n);
  ScoringPlan plan;
  std::vector<int64_t> variable_of_column(columns);
  for (const KeptMember& member : members) {
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
      std::size_t group = plan.groups.size();
      for (std::size_t n = 0; n < columns; ++n) {
        const std::size_t point = t * columns + n;
        const int64_t v = variable_of_column[n];
        if (v < 0 || !std::isfinite(report.values[point])) continue;
        if (group == plan.groups.size()) {
          plan.groups.emplace_back();
          plan.groups.back().member = member;
          plan.groups.back().meta = &meta;
          plan.groups.back().k = k;
        }
        plan.pairs.push_back({point, group, 0, v, false});
      }
    }
  }
  // Made forecast by forecast: a stable sort by point leaves each point's in keep order.
  std::stable_sort(plan.pairs.begin(), plan.pairs.end(),
                   [](const ScoringPair& a, const ScoringPair& b) { return a.point < b.point; });
  // The points covered, each marked once: by row, then column.
  std::size_t marks = 0;
  for (std::size_t c = 0; c < plan.pairs.size(); ++c) {
    const std::size_t point = plan.pairs[c].point;
    if (c == 0 || point != plan.pairs[c - 1].point) {
      const std::size_t row = point / columns;
      if (plan.marks.empty() || plan.marks.back().time != report.timestamps[row]) {
        plan.marks.push_back({report.timestamps[row], {}});
      }
      plan.marks.back().columns.push_back(point % columns);
      ++marks;
    }
    plan.pairs[c].mark = marks - 1;
  }
  return plan;
}

bool read_old_marks(const std::vector<uint64_t>& old_marks, ScoringPlan* plan) {
  for (ScoringPair& pair : plan->pairs) {
    if (pair.mark >= old_marks.size()) return false;
    pair.set_before = plan->groups[pair.group].member.seq <= old_marks[pair.mark];
  }
  return true;
}

void deliver_scores(const ActualsReport& report, const ScoringPlan& plan,
                    const std::unordered_set<std::string_view>& key_names,
                    const KeptForecasts::ScoreSink& score, ActualsOutcome* outcome) {
  const std::size_t columns = report.variable_names.size();
  std::vector<ScoredBand> bands;
  std::size_t c = 0;
  for (std::size_t point = 0; point < report.values.size(); ++point) {
    const double actual = report.values[point];
    if (!std::isfinite(actual)) {
      ++outcome->not_finite;
      continue;
    }
    int64_t scored = 0, covering = 0;
    for (; c < plan.pairs.size() && plan.pairs[c].point == point; ++c) {
      const ScoringPair& pair = plan.pairs[c];
      const ScoringGroup& group = plan.groups[pair.group];
      if (!group.held) continue;
      ++covering;
      if (pair.set_before) continue;
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
}

}  // namespace tsserve::server
