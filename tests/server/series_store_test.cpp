// MemorySeriesStore: the live series' windows. Every rule of an append (binding, shape, finite
// values, one regular step) with a refused append leaving the store as it was, the window
// trimmed to keep_points, the byte accounting, LRU eviction by keys and by bytes, restore
// order, and two threads at once.
#include "server/live/memory_series_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <thread>
#include <vector>

namespace tsserve::server {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr int64_t kT0 = 1'700'000'000;
constexpr int64_t kHour = 3600;

// `count` hourly points of `key` from `first` for model "m", N = `variables`; the value of
// point t (counted from kT0) and variable n is 10 * t + n.
SeriesAppend hourly_points(const std::string& key, int64_t first, int64_t count, int64_t keep,
                           int64_t variables = 2) {
  SeriesAppend append;
  append.series_key = key;
  append.binding.model = "m";
  append.binding.variables = variables;
  append.keep_points = keep;
  for (int64_t i = 0; i < count; ++i) {
    const int64_t time = first + i * kHour;
    append.timestamps.push_back(time);
    for (int64_t n = 0; n < variables; ++n) {
      append.values.push_back(static_cast<float>(10 * ((time - kT0) / kHour) + n));
    }
  }
  return append;
}

// The same points at arbitrary `times`.
SeriesAppend points_at(const std::string& key, std::vector<int64_t> times, int64_t keep = 16) {
  SeriesAppend append = hourly_points(key, kT0, static_cast<int64_t>(times.size()), keep);
  append.timestamps = std::move(times);
  return append;
}

// The key's keys in snapshot order.
std::vector<std::string> snapshot_keys(const MemorySeriesStore& store) {
  std::vector<std::string> out;
  for (const SeriesWindow& window : store.snapshot()) out.push_back(window.series_key);
  return out;
}

// series_window_bytes as series_store.h documents it, for a window whose values have
// `floats` of capacity.
std::size_t documented_bytes(const std::string& key, const SeriesBinding& binding,
                             std::size_t floats) {
  std::size_t bytes =
      256 + 2 * key.size() + binding.model.size() + binding.pinned_version.size() + 4 * floats;
  for (const std::string& name : binding.variable_names) bytes += sizeof(std::string) + name.size();
  return bytes;
}

class SeriesStoreTest : public ::testing::Test {
 protected:
  Status add(const SeriesAppend& append) {
    SeriesDrops drops;
    const Status status = store.append(append, &window, &drops);
    evicted += drops.evicted;
    return status;
  }

  // `append` is refused with `code`; the store is as it was.
  Status refused(const SeriesAppend& append, StatusCode code = StatusCode::kInvalidArgument) {
    const std::vector<SeriesWindow> before = store.snapshot();
    const std::size_t bytes = store.bytes();
    SeriesWindow untouched;
    untouched.series_key = "untouched";
    SeriesWindow out = untouched;
    const Status status = store.append(append, &out, nullptr);
    EXPECT_EQ(status.code(), code) << status.message();
    EXPECT_EQ(store.snapshot(), before);
    EXPECT_EQ(store.bytes(), bytes);
    EXPECT_EQ(out, untouched);
    return status;
  }

  MemorySeriesStore store{SeriesStoreLimits{}};
  SeriesWindow window;
  int64_t evicted = 0;
};

TEST_F(SeriesStoreTest, FirstAppendHoldsItsPointsOnTheirStep) {
  SeriesAppend append = hourly_points("k", kT0, 3, 8);
  append.binding.variable_names = {"x", "y"};
  append.binding.pinned_version = "2";
  ASSERT_TRUE(add(append).ok());
  EXPECT_EQ(window.series_key, "k");
  EXPECT_EQ(window.binding, append.binding);
  EXPECT_EQ(window.step_seconds, 3600);
  EXPECT_EQ(window.last_timestamp, kT0 + 7200);
  EXPECT_THAT(window.values, ElementsAre(0, 1, 10, 11, 20, 21));
  EXPECT_EQ(window.accepted_total, 3);
  EXPECT_EQ(window.points(), 3);
  EXPECT_THAT(window.timestamps(), ElementsAre(kT0, kT0 + 3600, kT0 + 7200));
  EXPECT_EQ(store.keys(), 1u);
  EXPECT_EQ(store.binding("k"), append.binding);
  EXPECT_EQ(store.binding("other"), std::nullopt);
  EXPECT_EQ(store.snapshot(), std::vector<SeriesWindow>{window});
}

TEST_F(SeriesStoreTest, LaterAppendsContinueTheWindow) {
  ASSERT_TRUE(add(hourly_points("k", kT0, 2, 8)).ok());
  // A known key's caller may leave the names and the version out.
  ASSERT_TRUE(add(hourly_points("k", kT0 + 2 * kHour, 2, 8)).ok());
  EXPECT_THAT(window.values, ElementsAre(0, 1, 10, 11, 20, 21, 30, 31));
  EXPECT_THAT(window.timestamps(), ElementsAre(kT0, kT0 + kHour, kT0 + 2 * kHour, kT0 + 3 * kHour));
  EXPECT_EQ(window.accepted_total, 4);
  // A null window and null drops are allowed.
  EXPECT_TRUE(store.append(hourly_points("k", kT0 + 4 * kHour, 1, 8), nullptr, nullptr).ok());
  EXPECT_EQ(store.snapshot()[0].accepted_total, 5);
}

TEST_F(SeriesStoreTest, StepIsLearntFromTheFirstTwoPointsTheKeyEverSees) {
  ASSERT_TRUE(add(points_at("k", {kT0})).ok());
  EXPECT_EQ(window.step_seconds, 0);
  EXPECT_EQ(window.points(), 1);
  ASSERT_TRUE(add(points_at("k", {kT0 + 900})).ok());
  EXPECT_EQ(window.step_seconds, 900);
  ASSERT_TRUE(add(points_at("k", {kT0 + 1800, kT0 + 2700})).ok());
  EXPECT_THAT(window.timestamps(), ElementsAre(kT0, kT0 + 900, kT0 + 1800, kT0 + 2700));
  const Status gap = refused(points_at("k", {kT0 + 4500}));
  EXPECT_THAT(gap.message(), HasSubstr("gap"));
}

TEST_F(SeriesStoreTest, FirstCallOfSeveralPointsLearnsItsStepFromItsFirstTwo) {
  EXPECT_THAT(
      refused(points_at("k", {0, 60, 120, 200})).message(),
      AllOf(HasSubstr("timestamps[3]: 200"), HasSubstr("irregular"), HasSubstr("expected 180")));
  EXPECT_THAT(refused(points_at("k", {0, 60, 180})).message(),
              AllOf(HasSubstr("timestamps[2]: 180"), HasSubstr("gap"), HasSubstr("expected 120")));
  ASSERT_TRUE(add(points_at("k", {0, 60, 120})).ok());
  EXPECT_EQ(window.step_seconds, 60);
}

TEST_F(SeriesStoreTest, GapIsRefusedNamingTheTimestampAndTheOneExpected) {
  ASSERT_TRUE(add(hourly_points("k", kT0, 2, 8)).ok());  // last: kT0 + 1 h
  const Status status = refused(hourly_points("k", kT0 + 4 * kHour, 1, 8));
  EXPECT_THAT(status.message(),
              AllOf(HasSubstr("timestamps[0]: " + std::to_string(kT0 + 4 * kHour)),
                    HasSubstr("expected " + std::to_string(kT0 + 2 * kHour)), HasSubstr("gap"),
                    HasSubstr("send the missing points")));
  // Later in the call too: its second point skips one.
  SeriesAppend skips = points_at("k", {kT0 + 2 * kHour, kT0 + 4 * kHour});
  EXPECT_THAT(refused(skips).message(),
              AllOf(HasSubstr("timestamps[1]: " + std::to_string(kT0 + 4 * kHour)),
                    HasSubstr("expected " + std::to_string(kT0 + 3 * kHour)), HasSubstr("gap")));
}

TEST_F(SeriesStoreTest, OffTheGridIsIrregularNotAGap) {
  ASSERT_TRUE(add(hourly_points("k", kT0, 2, 8)).ok());
  for (const int64_t time : {kT0 + kHour + 1800, kT0 + 2 * kHour + 1, kT0 + 5 * kHour / 2}) {
    const Status status = refused(points_at("k", {time}));
    EXPECT_THAT(
        status.message(),
        AllOf(HasSubstr("timestamps[0]: " + std::to_string(time)), HasSubstr("irregular"),
              HasSubstr("expected " + std::to_string(kT0 + 2 * kHour)), Not(HasSubstr("gap"))));
  }
}

TEST_F(SeriesStoreTest, TimestampThatRepeatsOrPrecedesTheLastPointIsRefused) {
  ASSERT_TRUE(add(hourly_points("k", kT0, 2, 8)).ok());
  EXPECT_EQ(refused(points_at("k", {kT0})).message(),
            "timestamps[0]: 1700000000 repeats or precedes the key's last point 1700003600");
  EXPECT_EQ(refused(points_at("k", {kT0 + kHour, kT0 + 2 * kHour})).message(),
            "timestamps[0]: 1700003600 repeats or precedes the key's last point 1700003600");
}

TEST_F(SeriesStoreTest, TimestampsMustIncreaseWithinACall) {
  EXPECT_THAT(refused(points_at("k", {kT0, kT0})).message(),
              AllOf(HasSubstr("timestamps[1]: 1700000000"), HasSubstr("strictly increase")));
  EXPECT_THAT(refused(points_at("k", {kT0, kT0 + 60, kT0 + 30})).message(),
              HasSubstr("timestamps[2]: 1700000030"));
  // Extreme values: no overflow in the step or the expected time.
  const int64_t lowest = std::numeric_limits<int64_t>::min();
  const int64_t highest = std::numeric_limits<int64_t>::max();
  EXPECT_THAT(refused(points_at("k", {lowest, highest})).message(), HasSubstr("irregular"));
  ASSERT_TRUE(add(points_at("k", {highest - 3, highest - 1})).ok());  // the next: past int64
  EXPECT_THAT(refused(points_at("k", {highest})).message(),
              AllOf(HasSubstr("timestamps[0]"), HasSubstr("irregular")));
}

TEST_F(SeriesStoreTest, KnownKeyKeepsItsModelVersionNamesAndN) {
  SeriesAppend first = hourly_points("k", kT0, 1, 8);
  first.binding.pinned_version = "2";
  first.binding.variable_names = {"a", "b"};
  ASSERT_TRUE(add(first).ok());
  const int64_t next = kT0 + kHour;

  SeriesAppend other_model = hourly_points("k", next, 1, 8);
  other_model.binding.model = "other";
  EXPECT_THAT(refused(other_model).message(),
              AllOf(HasSubstr("model: \"other\""), HasSubstr("follows model \"m\"")));

  SeriesAppend other_version = hourly_points("k", next, 1, 8);
  other_version.binding.pinned_version = "3";
  EXPECT_THAT(refused(other_version).message(),
              AllOf(HasSubstr("model_version: \"3\""), HasSubstr("pinned to version \"2\"")));

  SeriesAppend other_names = hourly_points("k", next, 1, 8);
  other_names.binding.variable_names = {"b", "a"};
  EXPECT_THAT(refused(other_names).message(),
              AllOf(HasSubstr("variable_names: [\"b\", \"a\"]"), HasSubstr("[\"a\", \"b\"]")));

  SeriesAppend other_n = hourly_points("k", next, 1, 8, 3);
  EXPECT_THAT(refused(other_n).message(),
              HasSubstr("values: N=3 but key \"k\" holds N=2 variables"));

  // The same version and names, or none of them: accepted.
  SeriesAppend same = hourly_points("k", next, 1, 8);
  same.binding.pinned_version = "2";
  same.binding.variable_names = {"a", "b"};
  ASSERT_TRUE(add(same).ok());
  ASSERT_TRUE(add(hourly_points("k", next + kHour, 1, 8)).ok());
  EXPECT_EQ(window.binding, first.binding);  // the first call's binding stays
  EXPECT_EQ(window.accepted_total, 3);
}

// Names in a refusal are the first few, each cut short: the message stays small whatever
// the names (here 20 of 10,000 bytes each).
TEST_F(SeriesStoreTest, ARefusalNamesAFewNamesEachCutShort) {
  SeriesAppend first = hourly_points("k", kT0, 1, 8, 20);
  for (int n = 0; n < 20; ++n) {
    first.binding.variable_names.push_back(std::to_string(n) + std::string(10'000, 'x'));
  }
  ASSERT_TRUE(add(first).ok());
  SeriesAppend other = hourly_points("k", kT0 + kHour, 1, 8, 20);
  other.binding.variable_names = first.binding.variable_names;
  other.binding.variable_names[19] = "other";
  const std::string message = refused(other).message();
  EXPECT_LT(message.size(), 4000u);
  EXPECT_THAT(message, AllOf(HasSubstr("\"0xxxx"), HasSubstr("x...\""), HasSubstr("(20 names)")));
}

TEST_F(SeriesStoreTest, KeyOfTheDefaultVersionRefusesAPinAndNamelessKeyRefusesNames) {
  ASSERT_TRUE(add(hourly_points("k", kT0, 1, 8)).ok());
  SeriesAppend pinned = hourly_points("k", kT0 + kHour, 1, 8);
  pinned.binding.pinned_version = "1";
  EXPECT_THAT(refused(pinned).message(), AllOf(HasSubstr("model_version: \"1\""),
                                               HasSubstr("default version of model \"m\"")));
  SeriesAppend named = hourly_points("k", kT0 + kHour, 1, 8);
  named.binding.variable_names = {"a", "b"};
  EXPECT_THAT(refused(named).message(), AllOf(HasSubstr("variable_names"), HasSubstr("by index")));
}

TEST_F(SeriesStoreTest, MalformedAppendsAreRefusedNamingTheField) {
  ASSERT_TRUE(add(hourly_points("held", kT0, 2, 8)).ok());

  SeriesAppend no_key = hourly_points("", kT0, 1, 8);
  EXPECT_THAT(refused(no_key).message(), HasSubstr("series_key"));

  SeriesAppend no_points = hourly_points("k", kT0, 0, 8);
  EXPECT_THAT(refused(no_points).message(), HasSubstr("timestamps: none"));

  EXPECT_THAT(refused(hourly_points("k", kT0, 1, 0)).message(), HasSubstr("keep_points: 0"));

  SeriesAppend no_model = hourly_points("k", kT0, 1, 8);
  no_model.binding.model.clear();
  EXPECT_THAT(refused(no_model).message(), HasSubstr("model: empty"));

  SeriesAppend no_variables = hourly_points("k", kT0, 1, 8, 0);
  EXPECT_THAT(refused(no_variables).message(), HasSubstr("values: N=0"));

  SeriesAppend short_values = hourly_points("k", kT0, 3, 8);
  short_values.values.pop_back();
  EXPECT_THAT(refused(short_values).message(),
              HasSubstr("values: 5 floats; expected T x N = 3 x 2"));

  SeriesAppend too_many_names = hourly_points("k", kT0, 1, 8);
  too_many_names.binding.variable_names = {"a", "b", "c"};
  EXPECT_THAT(refused(too_many_names).message(),
              HasSubstr("variable_names: 3 names for N=2 variables"));
  // The same rules for the held key.
  SeriesAppend held_short = hourly_points("held", kT0 + 2 * kHour, 2, 8);
  held_short.values.push_back(1);
  EXPECT_THAT(refused(held_short).message(), HasSubstr("values: 5 floats"));
}

TEST_F(SeriesStoreTest, NonFiniteValuesAreRefusedNamingTheirPointAndVariable) {
  for (const float bad :
       {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
        -std::numeric_limits<float>::infinity()}) {
    SeriesAppend append = hourly_points("k", kT0, 3, 8);
    append.values[2 * 2 + 1] = bad;  // t = 2, n = 1
    EXPECT_THAT(refused(append).message(),
                AllOf(HasSubstr("values[5] (t=2, n=1)"), HasSubstr("finite")));
  }
}

TEST_F(SeriesStoreTest, WindowKeepsTheNewestKeepPoints) {
  ASSERT_TRUE(add(hourly_points("k", kT0, 3, 4)).ok());
  ASSERT_TRUE(add(hourly_points("k", kT0 + 3 * kHour, 3, 4)).ok());
  EXPECT_THAT(window.values, ElementsAre(20, 21, 30, 31, 40, 41, 50, 51));
  EXPECT_THAT(window.timestamps(),
              ElementsAre(kT0 + 2 * kHour, kT0 + 3 * kHour, kT0 + 4 * kHour, kT0 + 5 * kHour));
  EXPECT_EQ(window.accepted_total, 6);
  EXPECT_EQ(store.snapshot()[0], window);  // the store holds what it handed back
}

TEST_F(SeriesStoreTest, OneCallLongerThanTheWindowKeepsItsTail) {
  ASSERT_TRUE(add(hourly_points("k", kT0, 5, 3)).ok());
  EXPECT_THAT(window.values, ElementsAre(20, 21, 30, 31, 40, 41));
  EXPECT_EQ(window.last_timestamp, kT0 + 4 * kHour);
  EXPECT_EQ(window.step_seconds, kHour);
  EXPECT_EQ(window.accepted_total, 5);
}

TEST_F(SeriesStoreTest, WindowGrowsWhenKeepPointsGrowsAndShrinksWhenItShrinks) {
  ASSERT_TRUE(add(hourly_points("k", kT0, 3, 2)).ok());
  EXPECT_EQ(window.points(), 2);
  ASSERT_TRUE(add(hourly_points("k", kT0 + 3 * kHour, 2, 5)).ok());
  EXPECT_THAT(window.values, ElementsAre(10, 11, 20, 21, 30, 31, 40, 41));  // t = 0 is gone
  ASSERT_TRUE(add(hourly_points("k", kT0 + 5 * kHour, 1, 5)).ok());
  EXPECT_EQ(window.points(), 5);
  ASSERT_TRUE(add(hourly_points("k", kT0 + 6 * kHour, 1, 5)).ok());
  EXPECT_THAT(window.timestamps(), ElementsAre(kT0 + 2 * kHour, kT0 + 3 * kHour, kT0 + 4 * kHour,
                                               kT0 + 5 * kHour, kT0 + 6 * kHour));
  ASSERT_TRUE(add(hourly_points("k", kT0 + 7 * kHour, 1, 2)).ok());
  EXPECT_THAT(window.values, ElementsAre(60, 61, 70, 71));
  // The surplus of the longer window is given back.
  EXPECT_EQ(store.bytes(), documented_bytes("k", window.binding, 2 * 2));
}

TEST_F(SeriesStoreTest, BytesFollowTheDocumentedFormula) {
  SeriesAppend append = hourly_points("key", kT0, 3, 8);
  append.binding.model = "model";
  append.binding.pinned_version = "v1";
  append.binding.variable_names = {"x", "yy"};
  ASSERT_TRUE(add(append).ok());
  // A first append reserves exactly its points: 3 x 2 floats.
  const std::size_t expected =
      256 + 2 * 3 + 5 + 2 + (sizeof(std::string) + 1) + (sizeof(std::string) + 2) + 3 * 2 * 4;
  EXPECT_EQ(store.bytes(), expected);
  EXPECT_EQ(series_window_bytes(store.snapshot()[0]), expected);
}

TEST_F(SeriesStoreTest, FullWindowTakesNewPointsWithoutGrowing) {
  int64_t time = kT0;
  for (; time < kT0 + 3 * kHour; time += kHour) {
    ASSERT_TRUE(add(hourly_points("k", time, 1, 3)).ok());
  }
  // Growing one point at a time doubles the capacity (2, 4, then 8 floats) but never past
  // the window: 3 x 2 floats.
  const std::size_t full = documented_bytes("k", window.binding, 3 * 2);
  EXPECT_EQ(store.bytes(), full);
  for (int i = 0; i < 20; ++i, time += kHour) {
    ASSERT_TRUE(add(hourly_points("k", time, 1, 3)).ok());
    ASSERT_EQ(store.bytes(), full);
  }
  EXPECT_EQ(window.accepted_total, 23);
  EXPECT_THAT(window.values, ElementsAre(200, 201, 210, 211, 220, 221));
}

TEST_F(SeriesStoreTest, EvictsTheLeastRecentlyAppendedKeyBeyondMaxKeys) {
  MemorySeriesStore small(SeriesStoreLimits{2, 1u << 20});
  SeriesDrops drops;
  ASSERT_TRUE(small.append(hourly_points("a", kT0, 1, 4), nullptr, &drops).ok());
  ASSERT_TRUE(small.append(hourly_points("b", kT0, 1, 4), nullptr, &drops).ok());
  ASSERT_TRUE(small.append(hourly_points("a", kT0 + kHour, 1, 4), nullptr, &drops).ok());
  EXPECT_EQ(drops.evicted, 0);
  // binding() is no use: "b" stays the least recently appended.
  EXPECT_TRUE(small.binding("b").has_value());
  ASSERT_TRUE(small.append(hourly_points("c", kT0, 1, 4), nullptr, &drops).ok());
  EXPECT_EQ(drops.evicted, 1);
  EXPECT_EQ(small.keys(), 2u);
  EXPECT_EQ(small.binding("b"), std::nullopt);
  EXPECT_THAT(snapshot_keys(small), ElementsAre("a", "c"));
  // An evicted key starts afresh.
  ASSERT_TRUE(small.append(hourly_points("b", kT0 + 9 * kHour, 1, 4), nullptr, &drops).ok());
  EXPECT_EQ(drops.evicted, 2);
  EXPECT_THAT(snapshot_keys(small), ElementsAre("c", "b"));
}

TEST_F(SeriesStoreTest, EvictsBeyondMaxBytesCountingEachKeyDropped) {
  // One point of N = 2 under a 2-character key: 256 + 4 + 1 ("m") + 8 = 269 bytes.
  const std::size_t one_point = 269;
  MemorySeriesStore small(SeriesStoreLimits{100, 2 * one_point + 100});
  SeriesDrops drops;
  for (const char* key : {"k1", "k2", "k3"}) {
    ASSERT_TRUE(small.append(hourly_points(key, kT0, 1, 64), nullptr, &drops).ok());
  }
  EXPECT_EQ(drops.evicted, 1);
  EXPECT_EQ(small.bytes(), 2 * one_point);
  EXPECT_THAT(snapshot_keys(small), ElementsAre("k2", "k3"));
  // Ten points: 269 - 8 + 80 = 341; k2 goes (269 + 341 = 610 fits 638).
  ASSERT_TRUE(small.append(hourly_points("k4", kT0, 10, 64), nullptr, &drops).ok());
  EXPECT_EQ(drops.evicted, 2);
  EXPECT_EQ(small.bytes(), one_point + 341);
  // Thirty points: 261 + 240 = 501; k3 and k4 both go.
  ASSERT_TRUE(small.append(hourly_points("k5", kT0, 30, 64), nullptr, &drops).ok());
  EXPECT_EQ(drops.evicted, 4);
  EXPECT_THAT(snapshot_keys(small), ElementsAre("k5"));
  EXPECT_EQ(small.bytes(), 501u);
}

TEST_F(SeriesStoreTest, WindowOverMaxBytesAloneIsResourceExhausted) {
  MemorySeriesStore small(SeriesStoreLimits{100, 300});
  ASSERT_TRUE(small.append(hourly_points("k", kT0, 1, 64), nullptr, nullptr).ok());  // 267
  const std::vector<SeriesWindow> before = small.snapshot();
  const Status status = small.append(hourly_points("k", kT0 + kHour, 10, 64), nullptr, nullptr);
  EXPECT_EQ(status.code(), StatusCode::kResourceExhausted);
  EXPECT_THAT(status.message(), AllOf(HasSubstr("values"), HasSubstr("300")));
  EXPECT_EQ(small.snapshot(), before);
  EXPECT_EQ(small.bytes(), 267u);
}

TEST_F(SeriesStoreTest, SnapshotListsLeastRecentlyUsedFirstAndRestoreKeepsTheOrder) {
  for (const char* key : {"a", "b", "c"}) ASSERT_TRUE(add(hourly_points(key, kT0, 2, 4)).ok());
  ASSERT_TRUE(add(hourly_points("a", kT0 + 2 * kHour, 1, 4)).ok());
  const std::vector<SeriesWindow> saved = store.snapshot();
  EXPECT_THAT(snapshot_keys(store), ElementsAre("b", "c", "a"));

  MemorySeriesStore restored(SeriesStoreLimits{});
  SeriesDrops drops;
  restored.restore(saved, &drops);
  EXPECT_EQ(drops.evicted, 0);
  EXPECT_EQ(restored.snapshot(), saved);
  // Restored windows hold their points exactly (the copies' capacity), where "a" had grown
  // to 4 points of room while it filled.
  std::size_t exact = 0;
  for (const SeriesWindow& held : saved) {
    exact += documented_bytes(held.series_key, held.binding, held.values.size());
  }
  EXPECT_EQ(restored.bytes(), exact);
  EXPECT_EQ(store.bytes(), exact + 2 * 4);
  // The restored windows go on on their step.
  ASSERT_TRUE(restored.append(hourly_points("b", kT0 + 2 * kHour, 1, 4), &window, nullptr).ok());
  EXPECT_THAT(window.values, ElementsAre(0, 1, 10, 11, 20, 21));
  EXPECT_EQ(restored.append(hourly_points("c", kT0 + 3 * kHour, 1, 4), nullptr, nullptr).code(),
            StatusCode::kInvalidArgument);
  EXPECT_THAT(snapshot_keys(restored), ElementsAre("c", "a", "b"));

  // Restore replaces what was held and applies the limits from the oldest end.
  MemorySeriesStore two(SeriesStoreLimits{2, 1u << 20});
  ASSERT_TRUE(two.append(hourly_points("x", kT0, 1, 4), nullptr, nullptr).ok());
  two.restore(saved, &drops);
  EXPECT_EQ(drops.evicted, 1);
  EXPECT_THAT(snapshot_keys(two), ElementsAre("c", "a"));
  MemorySeriesStore tiny(SeriesStoreLimits{100, 100});
  tiny.restore(saved, &drops);
  EXPECT_EQ(drops.evicted, 4);
  EXPECT_EQ(tiny.keys(), 0u);
  EXPECT_EQ(tiny.bytes(), 0u);
}

TEST_F(SeriesStoreTest, RestoreKeepsTheLastWindowOfARepeatedKey) {
  ASSERT_TRUE(add(hourly_points("a", kT0, 1, 4)).ok());
  SeriesWindow first = window;
  ASSERT_TRUE(add(hourly_points("b", kT0, 1, 4)).ok());
  ASSERT_TRUE(add(hourly_points("a", kT0 + kHour, 1, 4)).ok());
  store.restore({first, store.snapshot()[0], window}, nullptr);
  EXPECT_THAT(snapshot_keys(store), ElementsAre("b", "a"));
  EXPECT_EQ(store.snapshot()[1].accepted_total, 2);
  EXPECT_EQ(store.bytes(),
            series_window_bytes(store.snapshot()[0]) + series_window_bytes(store.snapshot()[1]));
}

TEST_F(SeriesStoreTest, TwoThreadsAppendingToTheirOwnKeys) {
  constexpr int64_t kAppends = 500;
  auto feed = [this](const std::string& key, std::vector<std::string>* errors) {
    for (int64_t i = 0; i < kAppends; ++i) {
      const Status status =
          store.append(hourly_points(key, kT0 + i * kHour, 1, 8), nullptr, nullptr);
      if (!status.ok()) errors->push_back(status.message());
      store.snapshot();  // a reader interleaved with the writers
    }
  };
  std::vector<std::string> errors_a, errors_b;
  std::thread a(feed, "a", &errors_a);
  std::thread b(feed, "b", &errors_b);
  a.join();
  b.join();
  EXPECT_THAT(errors_a, ::testing::IsEmpty());
  EXPECT_THAT(errors_b, ::testing::IsEmpty());
  ASSERT_EQ(store.keys(), 2u);
  for (const SeriesWindow& held : store.snapshot()) {
    EXPECT_EQ(held.accepted_total, kAppends);
    EXPECT_EQ(held.points(), 8);
    EXPECT_EQ(held.last_timestamp, kT0 + (kAppends - 1) * kHour);
    EXPECT_EQ(held.values.back(), static_cast<float>(10 * (kAppends - 1) + 1));
  }
}

}  // namespace
}  // namespace tsserve::server
