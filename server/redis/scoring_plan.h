#pragma once
// Which (forecast, point) pairs a report scores against a key's kept forecasts in the
// shared store (redis_kept_forecasts.h), picked exactly as the in-process store picks them
// (accuracy/kept_forecasts.h): by point, then in the order the forecasts were kept; a
// column takes a forecast's first variable of its name. Grouped by (forecast, step), the
// unit the store reads an entry of and sets marks in; then delivered, once the store says
// which marks were already set, as ScoredPoints and the report's outcome. The marks are
// set forecast by forecast, as byte edits (mark_edits_of).

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

// One (forecast, step) a report reads the entry of and sets marks in.
struct ScoringGroup {
  KeptMember member;
  const ForecastMeta* meta = nullptr;
  int64_t k = 0;
  std::vector<std::size_t> bits;  // its pairs' marks
  bool held = false;              // its entry was read and its forecast had not expired
  ForecastEntry entry;
  std::vector<std::size_t> set_before;  // the bits that were set, sorted
};

// One (forecast, point) pair that may score report point `point`.
struct ScoringPair {
  std::size_t point = 0;
  std::size_t group = 0;
  std::size_t bit = 0;
  int64_t variable = 0;
};

struct ScoringPlan {
  std::vector<ScoringGroup> groups;
  std::vector<ScoringPair> pairs;  // by point, then keep order
};

// The pairs of `report` against `members` (in keep order) whose metas are in `metas`
// (members without one expired and are skipped).
ScoringPlan plan_scoring(const ActualsReport& report, const std::vector<KeptMember>& members,
                         const std::unordered_map<uint64_t, std::shared_ptr<const ForecastMeta>>& metas);

// One forecast's marks that a plan sets: its groups' bits as (byte, mask) edits, bytes
// increasing, one per byte.
struct MarkEdits {
  KeptMember member;
  std::vector<std::size_t> groups;  // into the plan's groups
  std::vector<std::pair<std::size_t, uint8_t>> bytes;
};
// The plan's marks, forecast by forecast in the order of their first group.
std::vector<MarkEdits> mark_edits_of(const ScoringPlan& plan);
// Each group of `edits` given the old values of its bytes (`old_bytes`, one per edit, in
// order): its set_before bits.
void read_old_marks(const MarkEdits& edits, const std::vector<uint8_t>& old_bytes,
                    ScoringPlan* plan);

// Calls `score` for every pair of a held group whose bit was not set before, in the plan's
// order, and counts each point's outcome. `key_names`: every variable name of the key's
// forecasts.
void deliver_scores(const ActualsReport& report, const ScoringPlan& plan,
                    const std::unordered_set<std::string_view>& key_names,
                    const KeptForecasts::ScoreSink& score, ActualsOutcome* outcome);

}  // namespace tsserve::server
