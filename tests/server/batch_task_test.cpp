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
  TaskCode last_code() const { return last_code_; }

 protected:
  void on_complete(const TaskStatus& status) override {
    last_code_ = status.code;
    completions_.fetch_add(1);
  }

 private:
  std::atomic<int> completions_{0};
  TaskCode last_code_ = TaskCode::kOk;
};

TEST(BatchTaskTest, DefaultsToNoDeadlineAndNotCancelled) {
  CountingTask task;
  EXPECT_EQ(task.deadline(), Clock::time_point::max());
  EXPECT_FALSE(task.cancelled());
  EXPECT_FALSE(task.completed());
}

TEST(BatchTaskTest, OnlyTheFirstCompletionIsDelivered) {
  CountingTask task;
  EXPECT_TRUE(task.complete({TaskCode::kCancelled, "gone"}));
  EXPECT_TRUE(task.completed());
  EXPECT_FALSE(task.complete(TaskStatus::ok()));
  EXPECT_FALSE(task.complete({TaskCode::kInternal, "late"}));
  EXPECT_EQ(task.completions(), 1);
  EXPECT_EQ(task.last_code(), TaskCode::kCancelled);
}

TEST(BatchTaskTest, RacingCompletionsDeliverExactlyOnce) {
  for (int round = 0; round < 200; ++round) {
    CountingTask task;
    std::atomic<int> winners{0};
    std::vector<std::thread> threads;
    threads.reserve(4);
    for (int i = 0; i < 4; ++i) {
      threads.emplace_back([&] {
        if (task.complete(TaskStatus::ok())) {
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

TEST(BatchTaskTest, CodesHaveTheirGrpcNames) {
  EXPECT_STREQ(to_string(TaskCode::kOk), "OK");
  EXPECT_STREQ(to_string(TaskCode::kCancelled), "CANCELLED");
  EXPECT_STREQ(to_string(TaskCode::kDeadlineExceeded), "DEADLINE_EXCEEDED");
  EXPECT_STREQ(to_string(TaskCode::kInternal), "INTERNAL");
  EXPECT_STREQ(to_string(TaskCode::kUnavailable), "UNAVAILABLE");
}

}  // namespace
}  // namespace tsserve::server
