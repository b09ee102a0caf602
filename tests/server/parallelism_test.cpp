// --instances auto / --threads auto on machines of fixed core counts.

#include "server/config/parallelism.h"

#include <gtest/gtest.h>

namespace tsserve::server {
namespace {

ModelOptions options(int instances, int threads) {
  ModelOptions o;
  o.instances = instances;
  o.threads = threads;
  return o;
}

TEST(Parallelism, AutoIsOneInstancePerCoreAtOneThreadEach) {
  for (int cores : {1, 2, 16, 96}) {
    const Parallelism p = resolve_parallelism(options(kAuto, kAuto), cores, false);
    EXPECT_EQ(p.instances, cores) << cores << " cores";
    EXPECT_EQ(p.threads, 1) << cores << " cores";
  }
}

TEST(Parallelism, AutoInstancesShareTheCoresAmongTheGivenThreads) {
  EXPECT_EQ(resolve_parallelism(options(kAuto, 4), 16, false).instances, 4);
  EXPECT_EQ(resolve_parallelism(options(kAuto, 3), 16, false).instances, 5);
  // More threads than cores still leaves one instance.
  const Parallelism p = resolve_parallelism(options(kAuto, 8), 2, false);
  EXPECT_EQ(p.instances, 1);
  EXPECT_EQ(p.threads, 8);
}

TEST(Parallelism, GivenValuesAreKeptWhateverTheMachine) {
  const Parallelism p = resolve_parallelism(options(3, 2), 64, false);
  EXPECT_EQ(p.instances, 3);
  EXPECT_EQ(p.threads, 2);
  EXPECT_EQ(resolve_parallelism(options(6, kAuto), 2, false).instances, 6);
}

TEST(Parallelism, AutoOnAGpuIsOneInstance) {
  const Parallelism p = resolve_parallelism(options(kAuto, kAuto), 16, true);
  EXPECT_EQ(p.instances, 1);
  EXPECT_EQ(p.threads, 1);
}

TEST(Parallelism, NoCoresReportedCountsAsOne) {
  EXPECT_EQ(resolve_parallelism(options(kAuto, kAuto), 0, false).instances, 1);
}

TEST(Parallelism, UsableCoresIsAtLeastOne) { EXPECT_GE(usable_cpu_cores(), 1); }

}  // namespace
}  // namespace tsserve::server
