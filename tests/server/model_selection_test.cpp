#include "server/codec/common/model_selection.h"

#include <gtest/gtest.h>

#include "codec_test_support.h"

namespace tsserve::server {
namespace {

using testing::has_status;

TEST(ModelSelectionTest, EmptyNamePicksTheOnlyModel) {
  std::size_t index = 9;
  ASSERT_TRUE(check_model_name("", {"etth1"}, &index).ok());
  EXPECT_EQ(index, 0u);
  EXPECT_TRUE(check_model_name("", {"etth1"}).ok());
}

TEST(ModelSelectionTest, EmptyNameIsAmbiguousWithSeveralModels) {
  EXPECT_TRUE(has_status(check_model_name("", {"etth1", "ettm2"}), StatusCode::kInvalidArgument,
                         {"model: empty, but 2 models are loaded", "\"etth1\", \"ettm2\""}));
}

TEST(ModelSelectionTest, NamedModelIsFoundOrNotFound) {
  std::size_t index = 0;
  ASSERT_TRUE(check_model_name("ettm2", {"etth1", "ettm2"}, &index).ok());
  EXPECT_EQ(index, 1u);
  EXPECT_TRUE(has_status(check_model_name("weather", {"etth1", "ettm2"}), StatusCode::kNotFound,
                         {"model: no loaded model is named \"weather\"", "loaded: \"etth1\""}));
  EXPECT_TRUE(
      has_status(check_model_name("etth1", {}), StatusCode::kNotFound, {"no model is loaded"}));
  EXPECT_TRUE(has_status(check_model_name("", {}), StatusCode::kNotFound, {"no model is loaded"}));
}

}  // namespace
}  // namespace tsserve::server
