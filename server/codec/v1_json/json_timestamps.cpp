#include "server/codec/v1_json/json_timestamps.h"

#include <algorithm>
#include <cstdio>

#include "server/codec/json/json_numbers.h"

namespace tsserve::server {
namespace {

constexpr std::int64_t kDay = 86400;

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

void civil_from_days(std::int64_t z, std::int64_t* y, unsigned* m, unsigned* d) {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp < 10 ? mp + 3 : mp - 9;
  *y = static_cast<std::int64_t>(yoe) + era * 400 + (*m <= 2);
}

// `count` digits at text[at...] as a number, or false.
bool digits(std::string_view text, std::size_t at, std::size_t count, unsigned* value) {
  if (at + count > text.size()) return false;
  *value = 0;
  for (std::size_t i = at; i < at + count; ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
    *value = *value * 10 + static_cast<unsigned>(text[i] - '0');
  }
  return true;
}

bool leap(unsigned year) { return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0; }

unsigned days_in_month(unsigned year, unsigned month) {
  static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && leap(year) ? 29 : kDays[month - 1];
}

}  // namespace

bool parse_iso8601_seconds(std::string_view text, std::int64_t* seconds) {
  unsigned year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (text.size() < 19 || !digits(text, 0, 4, &year) || text[4] != '-' ||
      !digits(text, 5, 2, &month) || text[7] != '-' || !digits(text, 8, 2, &day) ||
      (text[10] != 'T' && text[10] != ' ') || !digits(text, 11, 2, &hour) || text[13] != ':' ||
      !digits(text, 14, 2, &minute) || text[16] != ':' || !digits(text, 17, 2, &second)) {
    return false;
  }
  if (year < 1970 || month < 1 || month > 12 || day < 1 || day > days_in_month(year, month) ||
      hour > 23 || minute > 59 || second > 59) {
    return false;
  }
  std::int64_t offset = 0;
  const std::string_view zone = text.substr(19);
  if (zone == "Z") {
  } else if (!zone.empty()) {
    unsigned zone_hours = 0, zone_minutes = 0;
    if (zone.size() != 6 || (zone[0] != '+' && zone[0] != '-') ||
        !digits(zone, 1, 2, &zone_hours) || zone[3] != ':' || !digits(zone, 4, 2, &zone_minutes) ||
        zone_hours > 23 || zone_minutes > 59) {
      return false;
    }
    offset = static_cast<std::int64_t>(zone_hours * 3600 + zone_minutes * 60) *
             (zone[0] == '+' ? 1 : -1);
  }
  *seconds = days_from_civil(year, month, day) * kDay + hour * 3600 + minute * 60 + second - offset;
  return true;
}

std::string iso8601_utc(std::int64_t seconds) {
  // 1970-01-01 .. 9999-12-31T23:59:59.
  seconds = std::clamp<std::int64_t>(seconds, 0, 253402300799);
  std::int64_t year = 0;
  unsigned month = 0, day = 0;
  civil_from_days(seconds / kDay, &year, &month, &day);
  const std::int64_t in_day = seconds % kDay;
  char text[32];
  std::snprintf(text, sizeof text, "%04lld-%02u-%02uT%02lld:%02lld:%02lldZ",
                static_cast<long long>(year), month, day, static_cast<long long>(in_day / 3600),
                static_cast<long long>(in_day / 60 % 60), static_cast<long long>(in_day % 60));
  return text;
}

Status read_json_timestamps(json_od::value& value, const std::string& path,
                            std::vector<std::int64_t>* seconds_out, bool* text) {
  bool numbers = false, texts = false;
  return for_each_json_element(
      value, path, "an array of Unix seconds or ISO 8601 texts",
      [&](json_od::value& item, const JsonElementPath& at) -> Status {
        json_od::json_type type;
        if (auto error = item.type().get(type)) return json_malformed(error, at.text());
        std::int64_t seconds = 0;
        if (type == json_od::json_type::number) {
          numbers = true;
          if (parse_json_int64(item.raw_json_token(), &seconds) != JsonNumberError::kNone) {
            return invalid_argument(at.text() + ": " + std::string(item.raw_json_token()) +
                                    "; expected whole Unix seconds");
          }
        } else if (type == json_od::json_type::string) {
          texts = true;
          std::string_view text;
          if (auto error = item.get_string().get(text)) return json_malformed(error, at.text());
          if (!parse_iso8601_seconds(text, &seconds)) {
            return invalid_argument(at.text() + ": \"" + std::string(text) +
                                    "\"; expected ISO 8601 such as \"2016-07-01T00:00:00Z\" or "
                                    "\"2016-07-01 00:00:00\" (UTC), whole seconds");
          }
        } else {
          return invalid_argument(at.text() + ": expected Unix seconds or ISO 8601 text");
        }
        if (numbers && texts) {
          return invalid_argument(at.text() + ": timestamps mix numbers and texts; use one form");
        }
        seconds_out->push_back(seconds);
        *text = texts;
        return Status();
      });
}

}  // namespace tsserve::server
