// Rendezvous hashing of live-series keys over targets: the choice is the highest score,
// independent of the list's order; keys spread evenly; removing a target moves only the
// keys it had, and adding one takes keys only for itself.

#include "tsserve/client/key_routing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace tsserve::client {
namespace {

const std::vector<std::string> kTargets = {"10.0.0.1:50051", "10.0.0.2:50051", "10.0.0.3:50051"};

TEST(KeyRouting, TheTargetWithTheHighestScoreWinsWhateverTheListsOrder) {
  for (int k = 0; k < 200; ++k) {
    const std::string key = "meter-" + std::to_string(k);
    const std::string& chosen = target_for_key(key, kTargets);
    for (const std::string& target : kTargets) {
      EXPECT_GE(rendezvous_score(key, chosen), rendezvous_score(key, target));
    }
    std::vector<std::string> reversed(kTargets.rbegin(), kTargets.rend());
    EXPECT_EQ(target_for_key(key, reversed), chosen);
  }
}

TEST(KeyRouting, KeysSpreadEvenlyAndOnlyARemovedTargetsKeysMove) {
  std::map<std::string, int> load;
  int moved = 0, changed = 0;
  std::map<std::string, int> moved_to;  // where the removed target's keys went
  const std::vector<std::string> two = {kTargets[0], kTargets[2]};
  for (int k = 0; k < 3000; ++k) {
    const std::string key = "sensor/" + std::to_string(k);
    const std::string& before = target_for_key(key, kTargets);
    ++load[before];
    const std::string& after = target_for_key(key, two);
    EXPECT_TRUE(after == two[0] || after == two[1]) << key << " -> " << after;
    if (after != before) ++changed;
    if (before == kTargets[1]) {
      ++moved;
      ++moved_to[after];
    } else {
      EXPECT_EQ(after, before) << key;  // keys of the targets that stayed do not move
    }
  }
  for (const std::string& target : kTargets) {
    EXPECT_GT(load[target], 850) << target;  // 1000 each on average
    EXPECT_LT(load[target], 1150) << target;
  }
  // Every key whose target changed was the removed target's (counted apart from `moved`,
  // so a kept key that moved fails here too), and the removed target's keys spread over
  // both that remain (rendezvous: each key's second choice), not onto one.
  EXPECT_EQ(changed, moved);
  EXPECT_GT(moved, 850);
  for (const std::string& target : two) {
    EXPECT_GT(moved_to[target], moved * 4 / 10) << target;
    EXPECT_LT(moved_to[target], moved * 6 / 10) << target;
  }
}

TEST(KeyRouting, TheScoreIsFnv1aOfKeyZeroByteTargetThenMixed) {
  // Fixed, so that every client build on every machine routes a key alike; the values
  // were computed by a separate Python implementation of the same definition.
  EXPECT_EQ(rendezvous_score("meter-1", "10.0.0.1:50051"), 7842802607182085977ull);
  EXPECT_EQ(rendezvous_score("", ""), 13331581593930102267ull);
  EXPECT_NE(rendezvous_score("a", "b"), rendezvous_score("ab", ""));  // the zero byte separates
}

}  // namespace
}  // namespace tsserve::client
