// set_intra_op_threads(): one setting sizes both LibTorch's pool and OpenBLAS's, and an
// operator's OPENBLAS_NUM_THREADS keeps OpenBLAS's pool as they set it.
#include "tsserve/model/intra_op_threads.h"

#include <ATen/Parallel.h>
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>

namespace tsserve::model {
namespace {

EnvironmentLookup fake_environment(std::map<std::string, std::string> variables) {
  return [variables = std::move(variables)](const char* name) -> const char* {
    const auto found = variables.find(name);
    return found == variables.end() ? nullptr : found->second.c_str();
  };
}

const EnvironmentLookup kNoOperatorSetting = fake_environment({});

// Both pools are process-wide: each test leaves them as it found them.
class IntraOpThreadsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // The set-up installs libopenblas0-pthread (deploy/install-deps.sh); without it this has
    // nothing to test.
    if (!blas_pool_threads()) GTEST_SKIP() << "the process's BLAS is not OpenBLAS";
    torch_before_ = at::get_num_threads();
    blas_before_ = *blas_pool_threads();
  }
  void TearDown() override {
    if (!blas_before_) return;
    set_intra_op_threads(*blas_before_, kNoOperatorSetting);
    at::set_num_threads(torch_before_);
  }

 private:
  int torch_before_ = 1;
  std::optional<int> blas_before_;
};

TEST_F(IntraOpThreadsTest, OneSettingSizesLibTorchsPoolAndOpenBlassPool) {
  for (int threads : {2, 1, 3}) {
    set_intra_op_threads(threads, kNoOperatorSetting);
    EXPECT_EQ(at::get_num_threads(), threads);
    EXPECT_EQ(blas_pool_threads(), threads);
  }
  EXPECT_EQ(describe_blas_pool(kNoOperatorSetting), "OpenBLAS pool: 3 threads");
  set_intra_op_threads(1, kNoOperatorSetting);
  EXPECT_EQ(describe_blas_pool(kNoOperatorSetting), "OpenBLAS pool: 1 thread");
}

TEST_F(IntraOpThreadsTest, AnOperatorsOpenBlasSettingKeepsOpenBlassPool) {
  set_intra_op_threads(2, kNoOperatorSetting);
  for (const char* variable : {"OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS"}) {
    const EnvironmentLookup operator_set = fake_environment({{variable, "2"}});
    set_intra_op_threads(1, operator_set);
    EXPECT_EQ(at::get_num_threads(), 1) << "LibTorch's pool still follows the setting";
    EXPECT_EQ(blas_pool_threads(), 2) << variable;
    EXPECT_EQ(describe_blas_pool(operator_set),
              std::string("OpenBLAS pool: 2 threads, as ") + variable + " sets");
  }
  // An empty value is no setting.
  set_intra_op_threads(1, fake_environment({{"OPENBLAS_NUM_THREADS", ""}}));
  EXPECT_EQ(blas_pool_threads(), 1);
}

}  // namespace
}  // namespace tsserve::model
