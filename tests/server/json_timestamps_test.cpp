// The JSON API's timestamps: ISO 8601 text <-> Unix seconds, against the C library's
// timegm/gmtime_r over every day of 1970-2100 and against known instants.

#include "server/codec/v1_json/json_timestamps.h"

#include <gtest/gtest.h>

#include <ctime>

namespace tsserve::server {
namespace {

TEST(JsonTimestamps, KnownInstants) {
  std::int64_t seconds = 0;
  ASSERT_TRUE(parse_iso8601_seconds("2016-07-01 00:00:00", &seconds));
  EXPECT_EQ(seconds, 1467331200);
  ASSERT_TRUE(parse_iso8601_seconds("2016-07-01T00:00:00Z", &seconds));
  EXPECT_EQ(seconds, 1467331200);
  ASSERT_TRUE(parse_iso8601_seconds("2016-07-01T02:30:00+02:30", &seconds));
  EXPECT_EQ(seconds, 1467331200);
  ASSERT_TRUE(parse_iso8601_seconds("2016-06-30T19:00:00-05:00", &seconds));
  EXPECT_EQ(seconds, 1467331200);
  ASSERT_TRUE(parse_iso8601_seconds("2000-02-29T12:00:00Z", &seconds));
  EXPECT_EQ(seconds, 951825600);
  EXPECT_EQ(iso8601_utc(1467331200), "2016-07-01T00:00:00Z");
  EXPECT_EQ(iso8601_utc(0), "1970-01-01T00:00:00Z");
}

TEST(JsonTimestamps, RefusesWhatIsNotADateTime) {
  std::int64_t seconds = 0;
  for (const char* bad :
       {"", "2016-07-01", "2016-07-01T00:00", "2016-13-01 00:00:00", "2015-02-29 00:00:00",
        "1900-02-29 00:00:00", "2016-07-01 24:00:00", "2016-07-01 00:60:00", "2016-07-01 00:00:60",
        "2016-07-01x00:00:00", "2016-07-01T00:00:00.5Z", "2016-07-01T00:00:00+2",
        "1969-12-31 23:59:59", "2016-07-01T00:00:00+24:00", "2016-07-01T00:00:00z",
        "+016-07-01 00:00:00"}) {
    EXPECT_FALSE(parse_iso8601_seconds(bad, &seconds)) << bad;
  }
}

TEST(JsonTimestamps, EveryDayAgreesWithTheCLibrary) {
  for (std::int64_t day = 0; day < 47847; ++day) {    // 1970-01-01 .. 2100-12-31
    const std::int64_t seconds = day * 86400 + 3723;  // 01:02:03
    const std::time_t time = static_cast<std::time_t>(seconds);
    std::tm parts{};
    ASSERT_NE(gmtime_r(&time, &parts), nullptr);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &parts);
    ASSERT_EQ(iso8601_utc(seconds), text) << day;
    std::int64_t parsed = 0;
    ASSERT_TRUE(parse_iso8601_seconds(text, &parsed)) << text;
    ASSERT_EQ(parsed, seconds) << text;
  }
}

}  // namespace
}  // namespace tsserve::server
