// RepositoryManager::stop_by, the drain's bound (--drain-timeout-s): a version whose
// batch is held in its processor while calls queue behind it. At the deadline the queued
// calls are answered UNAVAILABLE at once, though the running batch is still held; that
// batch then finishes with its result, and only then does the drain return. A drain with
// nothing left to do returns at once, long before its deadline. Synchronised by condition
// variables with bounds, never by sleeps.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <future>
#include <memory>
#include <mutex>

#include "server/registry/repository_manager.h"

namespace tsserve::server {
namespace bounded_drain_test {
namespace {

using namespace std::chrono_literals;
using Steady = std::chrono::steady_clock;

// Every cross-thread wait is bounded: a broken drain fails the test, it does not hang it.
constexpr auto kBound = 30s;

// A one-shot flag threads can wait for, with a bound.
class Flag {
 public:
  void raise() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      raised_ = true;
    }
    raised_cv_.notify_all();
  }
  bool wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    return raised_cv_.wait_for(lock, kBound, [this] { return raised_; });
  }
  bool raised() {
    std::lock_guard<std::mutex> lock(mutex_);
    return raised_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable raised_cv_;
  bool raised_ = false;
};

// One call: its outcome, and when it came.
struct Call {
  Status status;
  Steady::time_point answered_at;
  Flag answered;
};

class CallTask final : public BatchTask {
 public:
  explicit CallTask(std::shared_ptr<Call> call) : call_(std::move(call)) {}
  std::size_t rows() const override { return 1; }

 protected:
  void on_complete(const Status& status) override {
    call_->status = status;
    call_->answered_at = Steady::now();
    call_->answered.raise();
  }

 private:
  const std::shared_ptr<Call> call_;
};

// A repository of one model whose batches wait for `gate` once `running` is raised.
class GatedRepository {
 public:
  GatedRepository()
      : manager_(
            [] {
              RepositoryModel model;
              model.name = "m";
              model.versions.push_back(RepositoryVersion{1, "", "", "", "f"});
              RepositoryScan scan;
              scan.models.push_back(model);
              return scan;
            },
            [this](const RepositoryModel&, const RepositoryVersion&,
                   std::shared_ptr<ModelVersion>* loaded) {
              auto processor = [this](Batch& batch) {
                running.raise();
                gate.wait();
                for (auto& task : batch.tasks) task->complete(Status());
              };
              ModelVersion::Parts parts;
              parts.name = "m";
              parts.version = 1;
              parts.forecast_batcher = std::make_unique<DynamicBatcher>(BatcherOptions{}, processor);
              parts.encode_batcher = std::make_unique<DynamicBatcher>(BatcherOptions{}, processor);
              *loaded = std::make_shared<ModelVersion>(std::move(parts));
              return Status();
            },
            {}) {
    manager_.poll_once();
  }
  ~GatedRepository() { gate.raise(); }  // whatever a failed test left held

  // Submits one call to the model, as a handler does.
  std::shared_ptr<Call> submit() {
    auto call = std::make_shared<Call>();
    std::unique_ptr<BatchTask> task = std::make_unique<CallTask>(call);
    VersionLease lease = std::move(manager_.registry().resolve("m", "").lease);
    EXPECT_EQ(lease->forecast_batcher().submit(task), SubmitResult::kAccepted);
    return call;
  }
  RepositoryManager& manager() { return manager_; }

  Flag running;  // a batch is in the processor
  Flag gate;     // lets it finish

 private:
  RepositoryManager manager_;
};

const Status kCut{StatusCode::kUnavailable,
                  "draining: the drain timeout of 0.3 s passed before this call ran; retry "
                  "on another replica"};

TEST(BoundedDrainTest, QueuedCallsAreAnsweredUnavailableAtTheBoundWhileTheRunningBatchFinishes) {
  GatedRepository repository;
  const std::shared_ptr<Call> running = repository.submit();
  ASSERT_TRUE(repository.running.wait());
  // One worker, busy: these two queue behind the running batch.
  const std::shared_ptr<Call> queued[] = {repository.submit(), repository.submit()};

  const Steady::time_point start = Steady::now();
  const Steady::time_point deadline = start + 300ms;
  std::future<std::size_t> drain = std::async(std::launch::async, [&] {
    return repository.manager().stop_by(deadline, kCut);
  });
  for (const std::shared_ptr<Call>& call : queued) {
    ASSERT_TRUE(call->answered.wait()) << "a queued call was not answered at the bound";
    EXPECT_EQ(call->status.code(), StatusCode::kUnavailable);
    EXPECT_EQ(call->status.message(), kCut.message());
    EXPECT_GE(call->answered_at, deadline);  // not before the bound: it had its chance
    EXPECT_LT(call->answered_at, deadline + 5s);
  }
  // The batch that was running is not interrupted, and the drain waits for it.
  EXPECT_FALSE(running->answered.raised());
  EXPECT_EQ(drain.wait_for(0s), std::future_status::timeout);
  repository.gate.raise();
  ASSERT_EQ(drain.wait_for(kBound), std::future_status::ready);
  EXPECT_EQ(drain.get(), 2u);  // the caller's exit code: 1
  ASSERT_TRUE(running->answered.wait());
  EXPECT_TRUE(running->status.ok());
  // Stopped: nothing resolves any more.
  EXPECT_FALSE(repository.manager().registry().resolve("m", "").lease);
}

TEST(BoundedDrainTest, ADrainThatFinishesInTimeCutsNothingAndReturnsAtOnce) {
  GatedRepository repository;
  repository.gate.raise();  // batches run through
  const std::shared_ptr<Call> call = repository.submit();
  const Steady::time_point deadline = Steady::now() + kBound;
  EXPECT_EQ(repository.manager().stop_by(deadline, kCut), 0u);  // the caller's exit code: 0
  EXPECT_LT(Steady::now(), deadline);
  ASSERT_TRUE(call->answered.raised());  // answered before the drain returned
  EXPECT_TRUE(call->status.ok());
}

}  // namespace
}  // namespace bounded_drain_test
}  // namespace tsserve::server
