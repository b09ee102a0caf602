#pragma once
// TSLib's calendar features (utils/timefeatures.py, embed='timeF') from Unix seconds (UTC),
// in plain C++ (no LibTorch), so a request codec can check and compute them cheaply.
//
// Every feature is a calendar field scaled to [-0.5, 0.5] exactly as TSLib does it
// (HourOfDay = hour / 23 - 0.5, DayOfMonth = (day - 1) / 30 - 0.5, ...), computed in double
// and rounded to float once, as TSLib's float64 data_stamp becomes float32 in training.
// Which features a model reads follows its `freq`, in TSLib's order:
//   "h": HourOfDay, DayOfWeek, DayOfMonth, DayOfYear
//   "t"/"min": MinuteOfHour + the "h" list;  "s": SecondOfMinute + the "t" list
//   "d"/"b": DayOfWeek, DayOfMonth, DayOfYear;  "w": DayOfMonth, WeekOfYear
//   "m"/"q": MonthOfYear;  "a": none
// A multiple ("15min", "4h") reads the same features as its unit, as pandas' to_offset does.

#include <cstdint>
#include <string>
#include <vector>

namespace tsserve::model {

enum class TimeFeature {
  kSecondOfMinute,
  kMinuteOfHour,
  kHourOfDay,
  kDayOfWeek,
  kDayOfMonth,
  kDayOfYear,
  kMonthOfYear,
  kWeekOfYear,
};

// The features TSLib derives for `freq`. Throws ModelError naming 'freq' and the accepted
// values for anything else.
std::vector<TimeFeature> time_features_for_freq(const std::string& freq);

// TSLib's class name ("HourOfDay"), used to label calendar tokens.
std::string time_feature_name(TimeFeature feature);

// One feature of one instant, in double (TSLib's float64).
double time_feature_value(TimeFeature feature, int64_t unix_seconds);

// The calendar fields of one instant (UTC, proleptic Gregorian), as pandas' accessors give
// them: TSLib's timeenc=0 marks (time_marks.h) are built from these.
struct CalendarFields {
  int64_t month;    // 1-12
  int64_t day;      // 1-31
  int64_t weekday;  // Monday = 0
  int64_t hour;     // 0-23
  int64_t minute;   // 0-59
};
CalendarFields calendar_fields(int64_t unix_seconds);

// "" when `timestamps` holds `expected_count` strictly increasing values, else a message
// naming the field 'timestamps' and what was expected.
std::string timestamps_error(const std::vector<int64_t>& timestamps, size_t expected_count);

// The features of every timestamp, feature-major: result[c * T + t] is feature c of step t
// (one row per calendar token, the layout iTransformer embeds). Throws ModelError with
// timestamps_error's message.
std::vector<float> time_feature_rows(const std::vector<TimeFeature>& features,
                                     const std::vector<int64_t>& timestamps, size_t expected_count);

}  // namespace tsserve::model
