// The comparison the parity tests use (reference_fixture.h): held to the output's own
// scale, so small outputs are not compared against a bar of 1 (the old floor let an error
// of 1 % pass on outputs of about 1e-3).

#include "reference_fixture.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>

namespace tsserve::testing {
namespace {

TEST(MatchesReference, AnErrorOfAFewPercentOfSmallOutputsFails) {
  const at::Tensor expected = torch::full({4, 8}, 1e-3);
  at::Tensor actual = expected.clone();
  actual[2][5] += 1e-5;  // 1 % of the output: within the old max(1, scale) bar of 1e-5
  EXPECT_FALSE(matches_reference(actual, expected));
  actual[2][5] = 1e-3 + 0.5e-8;  // 5e-6 of the scale: within 1e-5 of it
  EXPECT_TRUE(matches_reference(actual, expected));
}

TEST(MatchesReference, NamesTheWorstElementAndTheBar) {
  const at::Tensor expected = torch::arange(6, torch::kFloat).reshape({2, 3});
  at::Tensor actual = expected.clone();
  actual[1][1] += 0.25f;
  const ::testing::AssertionResult result = matches_reference(actual, expected);
  ASSERT_FALSE(result);
  const std::string message = result.message();
  EXPECT_NE(message.find("1 of 6 elements"), std::string::npos) << message;
  EXPECT_NE(message.find("flat index 4"), std::string::npos) << message;
  EXPECT_NE(message.find("atol 5e-05"), std::string::npos) << message;
}

TEST(MatchesReference, NonFiniteOrMisshapenResultsFail) {
  const at::Tensor expected = torch::ones({3});
  EXPECT_FALSE(matches_reference(torch::tensor({1.0f, NAN, 1.0f}), expected));
  EXPECT_FALSE(matches_reference(torch::ones({4}), expected));
}

TEST(AllClose, AppliesAtolPlusRtolTimesEachExpectedElement) {
  const at::Tensor expected = torch::tensor({100.0, 0.0});
  EXPECT_TRUE(all_close(torch::tensor({100.005, 0.0}), expected, {0.0, 1e-4}));
  EXPECT_FALSE(all_close(torch::tensor({100.0, 0.01}), expected, {0.0, 1e-4}));
  EXPECT_TRUE(all_close(torch::tensor({100.0, 0.01}), expected, {0.01, 1e-4}));
}

}  // namespace
}  // namespace tsserve::testing
