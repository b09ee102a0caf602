#pragma once
// Which (forecast, point) pairs a report scores against a key's kept forecasts in the
// shared store (redis_kept_forecasts.h), picked exactly as the in-process store picks them
// (accuracy/kept_forecasts.h): by point, then in the order the forecasts were kept; a
// column takes a forecast's first variable of its name. Grouped by (forecast, step), the
// unit the store reads an entry of; then delivered, once the store says which pairs were
// scored before, as ScoredPoints and the report's outcome.
//
// What was scored is marked per reported point (time, column), not per pair: the point's
// mark is the keep sequence of the key's view that last scored it. A report scores every
// forecast of its view that covers the point (an expired one scores nothing), and a view
// at sequence S holds every forecast kept up to S, so a pair was scored before exactly
// when its forecast's sequence is at most the point's old mark. One mark per point is
// read and set however many forecasts cover it.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "server/accuracy/kept_forecasts.h"
#include "server/redis/forecast_layout.h"

namespace tsserve::server {

// One kept forecast of a key: its keep sequence (the order it was kept), its id and when
// it was kept (Redis' clock, ms since the epoch).
struct KeptMember {
  uint64_t seq = 0;
  uint64_t id = 0;
  int64_t kept_ms = 0;
};
// "<seq>-<id>-<kept ms>", as the keep script names a member of the key's index.
bool parse_kept_member(std::string_view text, KeptMember* member);

// One (forecast, step) a report reads the entry of.
struct ScoringGroup {
  KeptMember member;
  const ForecastMeta* meta = nullptr;
  int64_t k = 0;
  bool held = false;  // its entry was read and its forecast had not expired
  ForecastEntry entry;
};

// One (forecast, point) pair that may score report point `point`.
struct ScoringPair {
  std::size_t point = 0;
  std::size_t group = 0;
  std::size_t mark = 0;  // into the plan's marked points
  int64_t variable = 0;
  bool set_before = false;  // scored by an earlier report
};

// The report's points that some forecast covers, by time: their marks are read and set.
struct MarkedTime {
  int64_t time = 0;
  std::vector<std::size_t> columns;  // increasing
};

struct ScoringPlan {
  std::vector<ScoringGroup> groups;
  std::vector<ScoringPair> pairs;  // by point, then keep order
  std::vector<MarkedTime> marks;   // by the report's row; a pair's mark counts across them
};

// The pairs of `report` against `members` (in keep order) whose metas are in `metas`
// (members without one expired and are skipped).
ScoringPlan plan_scoring(const ActualsReport& report, const std::vector<KeptMember>& members,
                         const std::unordered_map<uint64_t, std::shared_ptr<const ForecastMeta>>& metas);

// Each pair's set_before, given the old marks of the plan's points (`old_marks`, one per
// marked point, in order; 0 = never scored). False when there are not as many.
bool read_old_marks(const std::vector<uint64_t>& old_marks, ScoringPlan* plan);

// Calls `score` for every pair of a held group not set before, in the plan's
// order, and counts each point's outcome. `key_names`: every variable name of the key's
// forecasts.
void deliver_scores(const ActualsReport& report, const ScoringPlan& plan,
                    const std::unordered_set<std::string_view>& key_names,
                    const KeptForecasts::ScoreSink& score, ActualsOutcome* outcome);

}  // namespace tsserve::server
