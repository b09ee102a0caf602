// The replay's origins and its ReportActuals requests.
#include "tsserve/client/replay_plan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tsserve::client {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(ReplayPlan, OriginsNeedFullHistoryAndAWholeForecastBeforeTheEnd) {
  // seq_len 4, pred_len 3, 12 rows: origins 4 .. 9 (9 + 3 = 12).
  EXPECT_THAT(replay_origins(12, 4, 3, {0, 0, 2, 0}), ElementsAre(4, 6, 8));
  EXPECT_THAT(replay_origins(12, 4, 3, {5, 10, 1, 0}), ElementsAre(5, 6, 7));
  EXPECT_THAT(replay_origins(12, 4, 3, {0, 0, 1, 2}), ElementsAre(4, 5));
}

TEST(ReplayPlan, NoOriginOrNoStrideIsAnErrorNamingTheField) {
  try {
    replay_origins(6, 4, 3, {});
    FAIL() << "no origin fits";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("start: no forecast fits"));
  }
  EXPECT_THROW(replay_origins(100, 4, 3, {0, 0, 0, 0}), std::invalid_argument);
}

TEST(ReplayPlan, ActualsRequestHoldsTheRowsTimeByVariable) {
  csv::CsvWindow table;
  table.columns = {"a", "b"};
  table.values = {{1, 2, 3}, {10, 20, 30}};
  const v1::ReportActualsRequest r = build_actuals_request(table, {100, 200, 300}, "k", 1, 3);
  EXPECT_EQ(r.series_key(), "k");
  EXPECT_THAT(r.variable_names(), ElementsAre("a", "b"));
  EXPECT_THAT(r.timestamps(), ElementsAre(200, 300));
  EXPECT_THAT(r.values(), ElementsAre(2, 20, 3, 30));
}

}  // namespace
}  // namespace tsserve::client
