#include "server/batching/batch_task.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace tsserve::server {
namespace {

class CountingTask final : public BatchTask {
 public:
  std::size_t rows() const override { return 1; }
  int completions() const { return completions_.load(); }
  StatusCode last_code() const { return last_code_; }

 protected:
  void on_complete(const Status& status) override {
    last_code_ = status.code();
    completions_.fetch_add(1);
  }

 private:
  std::atomic<int> completions_{0};
  StatusCode last_code_ = StatusCode::kOk;
};

TEST(BatchTaskTest, DefaultsToNoDeadlineAndNotCancelled) {
  CountingTask task;
  EXPECT_EQ(task.deadline(), Clock::time_point::max());
  EXPECT_FALSE(task.cancelled());
  EXPECT_FALSE(task.completed());
}

TEST(BatchTaskTest, OnlyTheFirstCompletionIsDelivered) {
  CountingTask task;
  EXPECT_TRUE(task.complete({StatusCode::kCancelled, "gone"}));
  EXPECT_TRUE(task.completed());
  EXPECT_FALSE(task.complete(Status()));
  EXPECT_FALSE(task.complete({StatusCode::kInternal, "late"}));
  EXPECT_EQ(task.completions(), 1);
  EXPECT_EQ(task.last_code(), StatusCode::kCancelled);
}

TEST(BatchTaskTest, RacingCompletionsDeliverExactlyOnce) {
  for (int round = 0; round < 200; ++round) {
    CountingTask task;
    std::atomic<int> winners{0};
    std::vector<std::thread> threads;
    threads.reserve(4);
    for (int i = 0; i < 4; ++i) {
      threads.emplace_back([&] {
        if (task.complete(Status())) {
          winners.fetch_add(1);
        }
      });
    }
    for (std::thread& thread : threads) {
      thread.join();
    }
    ASSERT_EQ(winners.load(), 1);
    ASSERT_EQ(task.completions(), 1);
  }
}

// The names the logs give the codes a batch task can end with (status.h's status_code_name).
const char* name(StatusCode code) { return status_code_name(static_cast<int>(code)); }

TEST(BatchTaskTest, CodesHaveTheirGrpcNames) {
  EXPECT_STREQ(name(StatusCode::kOk), "OK");
  EXPECT_STREQ(name(StatusCode::kCancelled), "CANCELLED");
  EXPECT_STREQ(name(StatusCode::kDeadlineExceeded), "DEADLINE_EXCEEDED");
  EXPECT_STREQ(name(StatusCode::kInternal), "INTERNAL");
  EXPECT_STREQ(name(StatusCode::kUnavailable), "UNAVAILABLE");
}

}  // namespace
}  // namespace tsserve::server
