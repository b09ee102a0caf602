#include "tsserve/csv/row_time.h"

#include <cstdio>
#include <ctime>

namespace tsserve::csv {

std::optional<int64_t> parse_row_time(const std::string& text) {
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  char separator = ' ';
  int used = 0;
  const int fields = std::sscanf(text.c_str(), "%4d-%2d-%2d%n%c%2d:%2d:%2d", &year, &month, &day,
                                 &used, &separator, &hour, &minute, &second);
  const bool date_only = fields == 3 && static_cast<size_t>(used) == text.size();
  const bool with_time = fields >= 6 && (separator == ' ' || separator == 'T');
  if (!date_only && !with_time) return std::nullopt;
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) {
    return std::nullopt;
  }
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  return static_cast<int64_t>(timegm(&tm));
}

std::optional<std::vector<int64_t>> parse_row_times(const std::vector<std::string>& labels) {
  std::vector<int64_t> times;
  for (const auto& label : labels) {
    auto time = parse_row_time(label);
    if (!time || (!times.empty() && *time <= times.back())) return std::nullopt;
    times.push_back(*time);
  }
  return times;
}

std::vector<std::string> format_row_times(const std::vector<int64_t>& times,
                                          const std::string& like) {
  const bool date_only = like.size() <= 10;
  std::vector<std::string> labels;
  for (const int64_t time : times) {
    const auto t = static_cast<std::time_t>(time);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char text[32];
    std::strftime(text, sizeof text, date_only ? "%Y-%m-%d" : "%Y-%m-%d %H:%M:%S", &tm);
    labels.emplace_back(text);
  }
  return labels;
}

}  // namespace tsserve::csv
