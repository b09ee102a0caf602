#include "tsserve/model/time_features.h"

#include <cctype>

#include "tsserve/model/model_error.h"

namespace tsserve::model {
namespace {

constexpr int64_t kSecondsPerDay = 86400;

int64_t floor_div(int64_t a, int64_t b) {
  return a / b - static_cast<int64_t>((a % b != 0) && ((a < 0) != (b < 0)));
}

// Days since 1970-01-01 of a proleptic Gregorian date, and back (H. Hinnant's algorithms,
// exact for every int64 day count a timestamp in seconds can give).
int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = floor_div(y, 400);
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

struct Date {
  int64_t year, month, day;  // month 1-12, day 1-31
};

Date civil_from_days(int64_t days) {
  const int64_t z = days + 719468;
  const int64_t era = floor_div(z, 146097);
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int64_t day = doy - (153 * mp + 2) / 5 + 1;
  const int64_t month = mp < 10 ? mp + 3 : mp - 9;
  return {yoe + era * 400 + static_cast<int64_t>(month <= 2), month, day};
}

// Monday = 0, as pandas' dayofweek; 1970-01-01 was a Thursday.
int64_t weekday(int64_t days) { return days + 3 - floor_div(days + 3, 7) * 7; }

int64_t day_of_year(int64_t days) {
  return days - days_from_civil(civil_from_days(days).year, 1, 1) + 1;
}

// ISO 8601 week (pandas' isocalendar().week): the week of the year's first Thursday is 1.
int64_t iso_week(int64_t days) {
  const int64_t thursday = days - weekday(days) + 3;
  return (day_of_year(thursday) - 1) / 7 + 1;
}

// Strips a leading multiple ("15min" -> "min"), as pandas' to_offset reads it.
std::string freq_unit(const std::string& freq) {
  size_t i = 0;
  while (i < freq.size() && std::isdigit(static_cast<unsigned char>(freq[i]))) ++i;
  return freq.substr(i);
}

}  // namespace

std::vector<TimeFeature> time_features_for_freq(const std::string& freq) {
  using F = TimeFeature;
  const std::vector<TimeFeature> day = {F::kDayOfWeek, F::kDayOfMonth, F::kDayOfYear};
  const std::string unit = freq_unit(freq);
  std::vector<TimeFeature> out;
  if (unit == "s") out = {F::kSecondOfMinute, F::kMinuteOfHour, F::kHourOfDay};
  if (unit == "t" || unit == "min") out = {F::kMinuteOfHour, F::kHourOfDay};
  if (unit == "h") out = {F::kHourOfDay};
  if (!out.empty() || unit == "d" || unit == "b") {
    out.insert(out.end(), day.begin(), day.end());
    return out;
  }
  if (unit == "w") return {F::kDayOfMonth, F::kWeekOfYear};
  if (unit == "m" || unit == "q") return {F::kMonthOfYear};
  if (unit == "a") return {};
  throw ModelError(
      "'freq' must be one of TSLib's frequencies \"s\", \"t\" (or \"min\"), \"h\", "
      "\"d\", \"b\", \"w\", \"m\", \"q\", \"a\" (optionally with a multiple, "
      "\"15min\"), got \"" +
      freq + "\"");
}

std::string time_feature_name(TimeFeature feature) {
  switch (feature) {
    case TimeFeature::kSecondOfMinute:
      return "SecondOfMinute";
    case TimeFeature::kMinuteOfHour:
      return "MinuteOfHour";
    case TimeFeature::kHourOfDay:
      return "HourOfDay";
    case TimeFeature::kDayOfWeek:
      return "DayOfWeek";
    case TimeFeature::kDayOfMonth:
      return "DayOfMonth";
    case TimeFeature::kDayOfYear:
      return "DayOfYear";
    case TimeFeature::kMonthOfYear:
      return "MonthOfYear";
    case TimeFeature::kWeekOfYear:
      return "WeekOfYear";
  }
  return "unknown";
}

double time_feature_value(TimeFeature feature, int64_t unix_seconds) {
  const int64_t days = floor_div(unix_seconds, kSecondsPerDay);
  const int64_t in_day = unix_seconds - days * kSecondsPerDay;
  // The divisions are TSLib's, in its float64: x / 23.0 - 0.5 and so on.
  switch (feature) {
    case TimeFeature::kSecondOfMinute:
      return static_cast<double>(in_day % 60) / 59.0 - 0.5;
    case TimeFeature::kMinuteOfHour:
      return static_cast<double>(in_day % 3600 / 60) / 59.0 - 0.5;
    case TimeFeature::kHourOfDay:
      return static_cast<double>(in_day / 3600) / 23.0 - 0.5;
    case TimeFeature::kDayOfWeek:
      return static_cast<double>(weekday(days)) / 6.0 - 0.5;
    case TimeFeature::kDayOfMonth:
      return static_cast<double>(civil_from_days(days).day - 1) / 30.0 - 0.5;
    case TimeFeature::kDayOfYear:
      return static_cast<double>(day_of_year(days) - 1) / 365.0 - 0.5;
    case TimeFeature::kMonthOfYear:
      return static_cast<double>(civil_from_days(days).month - 1) / 11.0 - 0.5;
    case TimeFeature::kWeekOfYear:
      return static_cast<double>(iso_week(days) - 1) / 52.0 - 0.5;
  }
  return 0.0;
}

CalendarFields calendar_fields(int64_t unix_seconds) {
  const int64_t days = floor_div(unix_seconds, kSecondsPerDay);
  const int64_t in_day = unix_seconds - days * kSecondsPerDay;
  const Date date = civil_from_days(days);
  return {date.month, date.day, weekday(days), in_day / 3600, in_day % 3600 / 60};
}

std::string timestamps_error(const std::vector<int64_t>& timestamps, size_t expected_count) {
  if (timestamps.empty()) {
    return "'timestamps' are required for this model (it reads calendar features): expected " +
           std::to_string(expected_count) + " Unix seconds (UTC), one per input step";
  }
  if (timestamps.size() != expected_count) {
    return "'timestamps' must hold one Unix time per input step: expected " +
           std::to_string(expected_count) + ", got " + std::to_string(timestamps.size());
  }
  for (size_t i = 1; i < timestamps.size(); ++i) {
    if (timestamps[i] <= timestamps[i - 1]) {
      return "'timestamps' must be strictly increasing: element " + std::to_string(i) + " (" +
             std::to_string(timestamps[i]) + ") is not after element " + std::to_string(i - 1) +
             " (" + std::to_string(timestamps[i - 1]) + ")";
    }
  }
  return "";
}

std::vector<float> time_feature_rows(const std::vector<TimeFeature>& features,
                                     const std::vector<int64_t>& timestamps,
                                     size_t expected_count) {
  const std::string error = timestamps_error(timestamps, expected_count);
  if (!error.empty()) throw ModelError(error);
  std::vector<float> rows;
  rows.reserve(features.size() * timestamps.size());
  for (TimeFeature feature : features) {
    for (int64_t t : timestamps) rows.push_back(static_cast<float>(time_feature_value(feature, t)));
  }
  return rows;
}

}  // namespace tsserve::model
