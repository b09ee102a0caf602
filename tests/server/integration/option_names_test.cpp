// The attention and prob_layout options are spelled once on the server's side
// (kAttentionKinds, kProbLayouts in server_config.h) and converted by the model's own names
// (model::attention_kind_named, prob_layout_named in model_config.h): every name the config
// accepts must be one the model knows.
#include <gtest/gtest.h>

#include <string>

#include "server/config/server_config.h"
#include "tsserve/model/model_config.h"
#include "tsserve/model/model_error.h"

namespace tsserve::server {
namespace {

TEST(OptionNames, EveryAttentionNameTheConfigAcceptsIsTheModels) {
  ASSERT_EQ(kAttentionKinds.size(), 2u);  // kFull, kProb
  for (const char* name : kAttentionKinds) {
    EXPECT_EQ(model::to_string(model::attention_kind_named(name)), name);
  }
  EXPECT_THROW(model::attention_kind_named("sparse"), model::ModelError);
}

TEST(OptionNames, EveryProbLayoutNameTheConfigAcceptsIsTheModels) {
  ASSERT_EQ(kProbLayouts.size(), 2u);  // kCanonical, kTslib
  for (const char* name : kProbLayouts) {
    EXPECT_EQ(model::to_string(model::prob_layout_named(name)), name);
  }
  EXPECT_THROW(model::prob_layout_named("informer"), model::ModelError);
}

}  // namespace
}  // namespace tsserve::server
