#include "server/redis/scoring_plan.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

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
        const std::size_t bit = mark_bit(meta, k, v);
        plan.groups[group].bits.push_back(bit);
        plan.pairs.push_back({point, group, bit, v});
      }
    }
  }
  // Made forecast by forecast: a stable sort by point leaves each point's in keep order.
  std::stable_sort(plan.pairs.begin(), plan.pairs.end(),
                   [](const ScoringPair& a, const ScoringPair& b) { return a.point < b.point; });
  return plan;
}

std::vector<MarkEdits> mark_edits_of(const ScoringPlan& plan) {
  std::vector<MarkEdits> all;
  std::unordered_map<uint64_t, std::size_t> index_of;  // forecast id -> into all
  for (std::size_t g = 0; g < plan.groups.size(); ++g) {
    const ScoringGroup& group = plan.groups[g];
    const auto [found, added] = index_of.emplace(group.member.id, all.size());
    if (added) all.push_back({group.member, {}, {}});
    all[found->second].groups.push_back(g);
  }
  for (MarkEdits& edits : all) {
    std::map<std::size_t, uint8_t> masks;
    for (const std::size_t g : edits.groups) {
      for (const std::size_t bit : plan.groups[g].bits) {
        masks[bit / 8] |= static_cast<uint8_t>(1U << (bit % 8));
      }
    }
    edits.bytes.assign(masks.begin(), masks.end());
  }
  return all;
}

void read_old_marks(const MarkEdits& edits, const std::vector<uint8_t>& old_bytes,
                    ScoringPlan* plan) {
  for (const std::size_t g : edits.groups) {
    ScoringGroup& group = plan->groups[g];
    group.set_before.clear();
    for (const std::size_t bit : group.bits) {
      const auto edit = std::lower_bound(
          edits.bytes.begin(), edits.bytes.end(), bit / 8,
          [](const std::pair<std::size_t, uint8_t>& e, std::size_t byte) { return e.first < byte; });
      const auto at = static_cast<std::size_t>(edit - edits.bytes.begin());
      if (at < old_bytes.size() && ((old_bytes[at] >> (bit % 8)) & 1U) != 0) {
        group.set_before.push_back(bit);
      }
    }
    std::sort(group.set_before.begin(), group.set_before.end());
  }
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
}

}  // namespace tsserve::server
