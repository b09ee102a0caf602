#include "tsserve/csv/row_time.h"

#include <gtest/gtest.h>

namespace tsserve::csv {
namespace {

TEST(RowTimeTest, ParsesDatesAndDateTimesAsUtc) {
  EXPECT_EQ(parse_row_time("1970-01-02"), 86400);
  EXPECT_EQ(parse_row_time("2016-07-01 00:00:00"), 1467331200);
  EXPECT_EQ(parse_row_time("2016-07-01T01:30"), 1467331200 + 5400);
  EXPECT_FALSE(parse_row_time("yesterday"));
  EXPECT_FALSE(parse_row_time("2016-13-01"));
  EXPECT_FALSE(parse_row_time("2016-07-01x"));
}

TEST(RowTimeTest, AllOrNothingAndStrictlyIncreasing) {
  EXPECT_EQ(parse_row_times({"2016-07-01", "2016-07-02"}),
            (std::vector<int64_t>{1467331200, 1467417600}));
  EXPECT_FALSE(parse_row_times({"2016-07-02", "2016-07-01"}));
  EXPECT_FALSE(parse_row_times({"2016-07-01", "later"}));
}

TEST(RowTimeTest, ForecastTimesAreWrittenLikeTheRowLabels) {
  EXPECT_EQ(format_row_times({1530043200, 1530046800}, "2018-06-26 19:00:00"),
            (std::vector<std::string>{"2018-06-26 20:00:00", "2018-06-26 21:00:00"}));
  EXPECT_EQ(format_row_times({1546300800}, "2018-12-31"), (std::vector<std::string>{"2019-01-01"}));
  EXPECT_TRUE(format_row_times({}, "2018-12-31").empty());
}

}  // namespace
}  // namespace tsserve::csv
