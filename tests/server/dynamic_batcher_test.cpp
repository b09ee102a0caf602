#include "server/batching/dynamic_batcher.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "fake_clock.h"

namespace tsserve::server {
namespace {

using namespace std::chrono_literals;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// Real-time bound on every cross-thread wait: a broken batcher fails, it does not hang.
constexpr std::chrono::milliseconds kBound = 10s;

// How each task ended, by task id; thread-safe.
class Outcomes {
 public:
  void record(int id, const Status& status) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      by_id_[id].push_back(status);
      ++count_;
    }
    changed_.notify_all();
  }
  // Until `n` completions in all have been recorded, for at most kBound.
  bool await_count(std::size_t n) {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, kBound, [&] { return count_ >= n; });
  }
  std::size_t count() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return count_;
  }
  // Every completion task `id` received (exactly one is right).
  std::vector<Status> of(int id) const {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto found = by_id_.find(id);
    return found == by_id_.end() ? std::vector<Status>{} : found->second;
  }
  std::vector<StatusCode> codes(int id) const {
    std::vector<StatusCode> codes;
    for (const Status& status : of(id)) {
      codes.push_back(status.code());
    }
    return codes;
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::map<int, std::vector<Status>> by_id_;      // guarded by mutex_
  std::size_t count_ = 0;                         // guarded by mutex_
};

class TestTask final : public BatchTask {
 public:
  TestTask(int id, std::size_t rows, Outcomes& outcomes,
           Clock::time_point deadline = Clock::time_point::max())
      : id_(id), rows_(rows), deadline_(deadline), outcomes_(outcomes) {}

  int id() const { return id_; }
  std::size_t rows() const override { return rows_; }
  Clock::time_point deadline() const override { return deadline_; }
  bool cancelled() const override { return cancelled_.load(); }
  void cancel() { cancelled_.store(true); }

 protected:
  void on_complete(const Status& status) override { outcomes_.record(id_, status); }

 private:
  const int id_;
  const std::size_t rows_;
  const Clock::time_point deadline_;
  Outcomes& outcomes_;
  std::atomic<bool> cancelled_{false};
};

int id_of(const BatchTask& task) { return static_cast<const TestTask&>(task).id(); }

void complete_all(Batch& batch) {
  for (auto& task : batch.tasks) {
    task->complete(Status());
  }
}

// What the processor saw of one batch.
struct SeenBatch {
  std::vector<int> ids;
  std::size_t rows = 0;
  Clock::time_point started;
  std::vector<Clock::duration> queue_waits;
};

// A processor that records every batch, then runs a per-test hook (which may block on
// the test, throw, or complete tasks its own way), or without a hook completes all OK.
class Recorder {
 public:
  using Hook = std::function<void(Batch& batch, std::size_t index)>;

  DynamicBatcher::Processor processor(const Hook& hook = {}) {
    return [this, hook](Batch& batch) {
      std::size_t index = 0;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        SeenBatch seen;
        for (const auto& task : batch.tasks) {
          seen.ids.push_back(id_of(*task));
          seen.queue_waits.push_back(batch.started - task->enqueued_at());
          seen.rows += task->rows();
        }
        EXPECT_EQ(seen.rows, batch.rows);
        seen.started = batch.started;
        index = batches_.size();
        batches_.push_back(seen);
      }
      changed_.notify_all();
      if (hook) {
        hook(batch, index);
      } else {
        complete_all(batch);
      }
    };
  }
  bool await_batches(std::size_t n) {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, kBound, [&] { return batches_.size() >= n; });
  }
  std::vector<SeenBatch> batches() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return batches_;
  }
  std::vector<std::size_t> batch_rows() const {
    std::vector<std::size_t> rows;
    for (const SeenBatch& batch : batches()) {
      rows.push_back(batch.rows);
    }
    return rows;
  }
  std::vector<std::vector<int>> batch_ids() const {
    std::vector<std::vector<int>> ids;
    for (const SeenBatch& batch : batches()) {
      ids.push_back(batch.ids);
    }
    return ids;
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<SeenBatch> batches_;  // guarded by mutex_
};

// A one-shot gate: wait() returns once open() was called, or after kBound (false).
class Gate {
 public:
  void open() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      open_ = true;
    }
    cv_.notify_all();
  }
  bool wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    return cv_.wait_for(lock, kBound, [this] { return open_; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool open_ = false;  // guarded by mutex_
};

// A hook that holds the first batch in the processor (after opening `entered`) until
// `release` opens, so tasks queue behind it; every batch is then completed OK.
Recorder::Hook hold_first_batch(Gate& entered, Gate& release) {
  return [&entered, &release](Batch& batch, std::size_t index) {
    if (index == 0) {
      entered.open();
      release.wait();
    }
    complete_all(batch);
  };
}

SubmitResult submit(DynamicBatcher& batcher, int id, std::size_t rows, Outcomes& outcomes,
                    Clock::time_point deadline = Clock::time_point::max()) {
  auto task = std::make_unique<TestTask>(id, rows, outcomes, deadline);
  return batcher.submit(task);
}

BatcherOptions options_with(std::size_t max_batch_rows, Clock::duration max_queue_delay) {
  BatcherOptions options;
  options.max_batch_rows = max_batch_rows;
  options.max_queue_delay = max_queue_delay;
  return options;
}

TEST(BatcherOptionsTest, DefaultsAreValidAndProblemsAreNamed) {
  const BatcherOptions defaults;
  EXPECT_EQ(defaults.max_batch_rows, 448u);
  EXPECT_EQ(defaults.max_queue_delay, 0ms);
  EXPECT_EQ(defaults.max_queue_rows, 8192u);
  EXPECT_EQ(defaults.workers, 1u);
  EXPECT_TRUE(defaults.validate().ok());

  BatcherOptions options;
  options.max_queue_rows = 100;
  EXPECT_THAT(options.validate().message(), HasSubstr("max_queue_rows (100) must be at least "
                                                      "max_batch_rows (448)"));
  options = BatcherOptions{};
  options.workers = 0;
  EXPECT_THAT(options.validate().message(), HasSubstr("workers"));
  options = BatcherOptions{};
  options.max_batch_rows = 0;
  EXPECT_THAT(options.validate().message(), HasSubstr("max_batch_rows"));
  options = BatcherOptions{};
  options.preferred_batch_rows = 449;
  EXPECT_THAT(options.validate().message(), HasSubstr("preferred_batch_rows (449) must be at most "
                                                      "max_batch_rows (448)"));
  options = BatcherOptions{};
  options.max_queue_delay = -1ms;
  EXPECT_THAT(options.validate().message(), HasSubstr("max_queue_delay"));
  EXPECT_THROW(DynamicBatcher(options, [](Batch&) {}), std::invalid_argument);
}

// The delay can never fire: the clock does not move, and the delay is duration::max()
// (which must saturate, not overflow into the past). Only the size closes the batch,
// exactly when the queued rows reach max_batch_rows.
TEST(DynamicBatcherTest, SizeOnlyBatchClosesExactlyAtMaxBatchRows) {
  FakeClock clock;
  Outcomes outcomes;
  Recorder recorder;
  DynamicBatcher batcher(options_with(8, Clock::duration::max()), recorder.processor(), clock);
  ASSERT_TRUE(clock.await_waiters(1, kBound));  // the worker idles on the empty queue
  const std::uint64_t waits = clock.blocked_waits();

  ASSERT_EQ(submit(batcher, 1, 3, outcomes), SubmitResult::kAccepted);
  // The worker has looked at the 3 queued rows since, and went back to waiting.
  ASSERT_TRUE(clock.await_blocked_waits(waits + 1, kBound));
  EXPECT_EQ(batcher.queued_tasks(), 1u);
  EXPECT_THAT(recorder.batches(), IsEmpty());
  ASSERT_EQ(submit(batcher, 2, 4, outcomes), SubmitResult::kAccepted);
  EXPECT_EQ(batcher.queued_rows(), 7u);
  ASSERT_EQ(submit(batcher, 3, 1, outcomes), SubmitResult::kAccepted);  // 8 rows: full

  ASSERT_TRUE(outcomes.await_count(3));
  const std::vector<SeenBatch> batches = recorder.batches();
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_THAT(batches[0].ids, ElementsAre(1, 2, 3));
  EXPECT_EQ(batches[0].rows, 8u);
  EXPECT_EQ(batches[0].started, clock.now());
  EXPECT_EQ(batcher.queued_rows(), 0u);
}

// Size only with the real clock and a delay of a day: under a stream of 4-row tasks every
// batch holds exactly two of them.
TEST(DynamicBatcherTest, SizeOnlyWithTheSystemClock) {
  Outcomes outcomes;
  Recorder recorder;
  DynamicBatcher batcher(options_with(8, 24h), recorder.processor());
  constexpr int kTasks = 100;
  for (int id = 0; id < kTasks; ++id) {
    ASSERT_EQ(submit(batcher, id, 4, outcomes), SubmitResult::kAccepted);
  }
  ASSERT_TRUE(outcomes.await_count(kTasks));
  const std::vector<SeenBatch> batches = recorder.batches();
  ASSERT_EQ(batches.size(), kTasks / 2u);
  for (std::size_t i = 0; i < batches.size(); ++i) {
    EXPECT_EQ(batches[i].rows, 8u) << "batch " << i;
    EXPECT_THAT(batches[i].ids, ElementsAre(2 * i, 2 * i + 1)) << "batch " << i;
  }
}

TEST(DynamicBatcherTest, DelayClosesTheBatchWhenTheOldestTaskHasWaited) {
  FakeClock clock;
  Outcomes outcomes;
  Recorder recorder;
  DynamicBatcher batcher(options_with(100, 2ms), recorder.processor(), clock);
  const Clock::time_point t0 = clock.now();

  ASSERT_EQ(submit(batcher, 1, 1, outcomes), SubmitResult::kAccepted);
  ASSERT_TRUE(clock.await_waiter_until(t0 + 2ms, kBound));
  clock.advance(1ms);
  ASSERT_EQ(submit(batcher, 2, 2, outcomes), SubmitResult::kAccepted);
  clock.advance(999us);
  // Still waiting for the oldest task's deadline, not the newest's.
  EXPECT_EQ(clock.waiters_until(t0 + 2ms), 1u);
  EXPECT_THAT(recorder.batches(), IsEmpty());
  EXPECT_EQ(batcher.queued_rows(), 3u);
  EXPECT_EQ(batcher.queued_tasks(), 2u);

  clock.advance(1us);  // t0 + 2 ms: the oldest task has waited max_queue_delay
  ASSERT_TRUE(outcomes.await_count(2));
  const std::vector<SeenBatch> batches = recorder.batches();
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_THAT(batches[0].ids, ElementsAre(1, 2));
  EXPECT_EQ(batches[0].rows, 3u);
  EXPECT_EQ(batches[0].started, t0 + 2ms);
  EXPECT_THAT(batches[0].queue_waits, ElementsAre(Clock::duration(2ms), Clock::duration(1ms)));
  EXPECT_THAT(outcomes.codes(1), ElementsAre(StatusCode::kOk));
  EXPECT_THAT(outcomes.codes(2), ElementsAre(StatusCode::kOk));
  EXPECT_EQ(batcher.queued_rows(), 0u);
  EXPECT_EQ(batcher.queued_tasks(), 0u);
}

// The worker is held in a first batch while tasks of mixed sizes queue up; then batches
// are whole tasks, in order, as many as fit in 10 rows (a later small task does not jump
// ahead), and the short remainder waits for the delay.
TEST(DynamicBatcherTest, GroupsWholeTasksFifoWithoutExceedingMaxBatchRows) {
  FakeClock clock;
  Outcomes outcomes;
  Recorder recorder;
  Gate entered;
  Gate release;
  DynamicBatcher batcher(options_with(10, 2ms),
                         recorder.processor(hold_first_batch(entered, release)), clock);
  const Clock::time_point t0 = clock.now();
  ASSERT_EQ(submit(batcher, 0, 10, outcomes), SubmitResult::kAccepted);
  ASSERT_TRUE(entered.wait());

  const std::vector<std::size_t> rows = {4, 3, 2, 5, 1, 6, 3};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    ASSERT_EQ(submit(batcher, static_cast<int>(i) + 1, rows[i], outcomes), SubmitResult::kAccepted);
  }
  EXPECT_EQ(batcher.queued_rows(), 24u);
  release.open();
  ASSERT_TRUE(recorder.await_batches(3));
  ASSERT_TRUE(clock.await_waiter_until(t0 + 2ms, kBound));  // 6 + 3 rows wait
  clock.advance(2ms);

  ASSERT_TRUE(outcomes.await_count(8));
  EXPECT_THAT(recorder.batch_ids(), ElementsAre(ElementsAre(0), ElementsAre(1, 2, 3),
                                                ElementsAre(4, 5), ElementsAre(6, 7)));
  EXPECT_THAT(recorder.batch_rows(), ElementsAre(10, 9, 6, 9));
}

// preferred_batch_rows = 4 under max_batch_rows = 10: batches close at 4 rows, FIFO; a
// 6-row task still runs, alone; the 2-row remainder waits for the delay, as a short
// batch does.
TEST(DynamicBatcherTest, PreferredBatchRowsCloseBatchesEarlierAndALargerTaskRunsAlone) {
  FakeClock clock;
  Outcomes outcomes;
  Recorder recorder;
  Gate entered;
  Gate release;
  BatcherOptions options = options_with(10, 2ms);
  options.preferred_batch_rows = 4;
  DynamicBatcher batcher(options, recorder.processor(hold_first_batch(entered, release)), clock);
  const Clock::time_point t0 = clock.now();
  ASSERT_EQ(submit(batcher, 0, 4, outcomes), SubmitResult::kAccepted);  // full at once
  ASSERT_TRUE(entered.wait());

  const std::vector<std::size_t> rows = {2, 1, 3, 6, 2};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    ASSERT_EQ(submit(batcher, static_cast<int>(i) + 1, rows[i], outcomes), SubmitResult::kAccepted);
  }
  release.open();
  ASSERT_TRUE(recorder.await_batches(4));
  ASSERT_TRUE(clock.await_waiter_until(t0 + 2ms, kBound));  // task 5's 2 rows wait
  EXPECT_EQ(batcher.queued_rows(), 2u);
  clock.advance(2ms);

  ASSERT_TRUE(outcomes.await_count(6));
  EXPECT_THAT(recorder.batch_ids(), ElementsAre(ElementsAre(0), ElementsAre(1, 2), ElementsAre(3),
                                                ElementsAre(4), ElementsAre(5)));
  EXPECT_THAT(recorder.batch_rows(), ElementsAre(4, 3, 3, 6, 2));
}

// Two workers and a preferred batch of one task: while one worker is held in its batch,
// the other takes the next task rather than both tasks going to the first.
TEST(DynamicBatcherTest, PreferredBatchRowsShareTheQueueBetweenWorkers) {
  FakeClock clock;
  Outcomes outcomes;
  Recorder recorder;
  Gate entered;
  Gate release;
  BatcherOptions options = options_with(8, Clock::duration::max());
  options.preferred_batch_rows = 2;
  options.workers = 2;
  DynamicBatcher batcher(options, recorder.processor(hold_first_batch(entered, release)), clock);
  ASSERT_TRUE(clock.await_waiters(2, kBound));
  ASSERT_EQ(submit(batcher, 1, 2, outcomes), SubmitResult::kAccepted);
  ASSERT_TRUE(entered.wait());
  ASSERT_EQ(submit(batcher, 2, 2, outcomes), SubmitResult::kAccepted);
  ASSERT_TRUE(outcomes.await_count(1)) << "the free worker did not take task 2";
  EXPECT_THAT(outcomes.codes(2), ElementsAre(StatusCode::kOk));
  EXPECT_THAT(outcomes.of(1), IsEmpty());
  release.open();
  ASSERT_TRUE(outcomes.await_count(2));
  EXPECT_THAT(recorder.batch_ids(), ElementsAre(ElementsAre(1), ElementsAre(2)));
}

TEST(DynamicBatcherTest, RefusesATaskWhenTheQueueIsFull) {
  FakeClock clock;
  Outcomes outcomes;
  Recorder recorder;
  BatcherOptions options = options_with(8, 2ms);
  options.max_queue_rows = 8;
  DynamicBatcher batcher(options, recorder.processor(), clock);

  ASSERT_EQ(submit(batcher, 1, 3, outcomes), SubmitResult::kAccepted);
  ASSERT_EQ(submit(batcher, 2, 3, outcomes), SubmitResult::kAccepted);
  auto refused = std::make_unique<TestTask>(3, 3, outcomes);
  EXPECT_EQ(batcher.submit(refused), SubmitResult::kQueueFull);
  ASSERT_NE(refused, nullptr) << "a refused task stays with the caller";
  EXPECT_FALSE(refused->completed());
  EXPECT_EQ(batcher.queued_rows(), 6u);
  EXPECT_EQ(batcher.queued_tasks(), 2u);

  ASSERT_EQ(submit(batcher, 4, 2, outcomes), SubmitResult::kAccepted);  // 8: fits, full
  ASSERT_TRUE(outcomes.await_count(3));
  EXPECT_THAT(recorder.batch_ids(), ElementsAre(ElementsAre(1, 2, 4)));
  EXPECT_THAT(outcomes.of(3), IsEmpty());

  // The batch left the queue, so the same task fits now.
  EXPECT_EQ(batcher.submit(refused), SubmitResult::kAccepted);
  EXPECT_EQ(refused, nullptr);
  batcher.shutdown();
  EXPECT_THAT(outcomes.codes(3), ElementsAre(StatusCode::kOk));
}

TEST(DynamicBatcherTest, RefusesATaskWithMoreRowsThanABatch) {
  FakeClock clock;
  Outcomes outcomes;
  Recorder recorder;
  DynamicBatcher batcher(options_with(8, 2ms), recorder.processor(), clock);

  auto too_big = std::make_unique<TestTask>(1, 9, outcomes);
  EXPECT_EQ(batcher.submit(too_big), SubmitResult::kTooManyRows);
  ASSERT_NE(too_big, nullptr);
  EXPECT_EQ(batcher.queued_rows(), 0u);

  ASSERT_EQ(submit(batcher, 2, 8, outcomes), SubmitResult::kAccepted);  // exactly a batch
  ASSERT_TRUE(outcomes.await_count(1));
  EXPECT_THAT(recorder.batch_ids(), ElementsAre(ElementsAre(2)));
  EXPECT_THAT(outcomes.of(1), IsEmpty());
}

TEST(DynamicBatcherTest, DropsCancelledAndExpiredTasksBeforeProcessing) {
  FakeClock clock;
  Outcomes outcomes;
  Recorder recorder;
  DynamicBatcher batcher(options_with(100, 2ms), recorder.processor(), clock);
  const Clock::time_point t0 = clock.now();

  ASSERT_EQ(submit(batcher, 1, 1, outcomes), SubmitResult::kAccepted);
  auto cancelled = std::make_unique<TestTask>(2, 1, outcomes);
  TestTask* cancelled_view = cancelled.get();  // queued, so alive until completed
  ASSERT_EQ(batcher.submit(cancelled), SubmitResult::kAccepted);
  ASSERT_EQ(submit(batcher, 3, 1, outcomes, t0 + 1ms), SubmitResult::kAccepted);
  ASSERT_EQ(submit(batcher, 4, 1, outcomes, t0 + 5ms), SubmitResult::kAccepted);
  ASSERT_EQ(submit(batcher, 5, 1, outcomes, t0 + 2ms), SubmitResult::kAccepted);
  ASSERT_TRUE(clock.await_waiter_until(t0 + 2ms, kBound));
  cancelled_view->cancel();
  clock.advance(2ms);  // the batch starts at t0 + 2 ms

  ASSERT_TRUE(outcomes.await_count(5));
  EXPECT_THAT(recorder.batch_ids(), ElementsAre(ElementsAre(1, 4)));
  EXPECT_THAT(outcomes.codes(1), ElementsAre(StatusCode::kOk));
  EXPECT_THAT(outcomes.codes(2), ElementsAre(StatusCode::kCancelled));
  EXPECT_THAT(outcomes.codes(3), ElementsAre(StatusCode::kDeadlineExceeded));
  EXPECT_THAT(outcomes.codes(4), ElementsAre(StatusCode::kOk));
  EXPECT_THAT(outcomes.codes(5), ElementsAre(StatusCode::kDeadlineExceeded))
      << "a deadline equal to the batch start has passed";
  EXPECT_THAT(outcomes.of(2)[0].message(), HasSubstr("cancelled"));
  EXPECT_THAT(outcomes.of(3)[0].message(), HasSubstr("deadline"));
}

TEST(DynamicBatcherTest, ABatchOfOnlyDroppedTasksNeverReachesTheProcessor) {
  FakeClock clock;
  Outcomes outcomes;
  Recorder recorder;
  DynamicBatcher batcher(options_with(100, 2ms), recorder.processor(), clock);
  const Clock::time_point t0 = clock.now();
  ASSERT_EQ(submit(batcher, 1, 1, outcomes, t0 + 1ms), SubmitResult::kAccepted);
  ASSERT_TRUE(clock.await_waiter_until(t0 + 2ms, kBound));
  clock.advance(2ms);
  ASSERT_TRUE(outcomes.await_count(1));
  batcher.shutdown();  // the worker is done with that batch
  EXPECT_THAT(outcomes.codes(1), ElementsAre(StatusCode::kDeadlineExceeded));
  EXPECT_THAT(recorder.batches(), IsEmpty());
}

TEST(DynamicBatcherTest, AThrowingProcessorFailsItsBatchAndTheNextBatchRuns) {
  FakeClock clock;
  Outcomes outcomes;
  Recorder recorder;
  DynamicBatcher batcher(options_with(2, 2ms),
                         recorder.processor([](Batch& batch, std::size_t index) {
                           if (index == 0) {
                             batch.tasks[0]->complete(Status());
                             throw std::runtime_error("CUDA error: device lost");
                           }
                           if (index == 1) {
                             throw 42;
                           }
                           complete_all(batch);
                         }),
                         clock);
  for (int id = 1; id <= 6; ++id) {
    ASSERT_EQ(submit(batcher, id, 1, outcomes), SubmitResult::kAccepted);
  }
  ASSERT_TRUE(outcomes.await_count(6));
  EXPECT_THAT(recorder.batch_ids(),
              ElementsAre(ElementsAre(1, 2), ElementsAre(3, 4), ElementsAre(5, 6)));
  // Completed before the throw: kept. The rest: INTERNAL with the exception's message.
  EXPECT_THAT(outcomes.codes(1), ElementsAre(StatusCode::kOk));
  ASSERT_THAT(outcomes.codes(2), ElementsAre(StatusCode::kInternal));
  EXPECT_THAT(outcomes.of(2)[0].message(), HasSubstr("CUDA error: device lost"));
  ASSERT_THAT(outcomes.codes(3), ElementsAre(StatusCode::kInternal));
  EXPECT_THAT(outcomes.of(3)[0].message(), HasSubstr("unknown type"));
  EXPECT_THAT(outcomes.codes(4), ElementsAre(StatusCode::kInternal));
  EXPECT_THAT(outcomes.codes(5), ElementsAre(StatusCode::kOk));
  EXPECT_THAT(outcomes.codes(6), ElementsAre(StatusCode::kOk));
}

TEST(DynamicBatcherTest, TasksTheProcessorLeavesUncompletedEndAsInternal) {
  FakeClock clock;
  Outcomes outcomes;
  Recorder recorder;
  DynamicBatcher batcher(options_with(2, 2ms), recorder.processor([](Batch& batch, std::size_t) {
    batch.tasks[1]->complete(Status());
  }),
                         clock);
  ASSERT_EQ(submit(batcher, 1, 1, outcomes), SubmitResult::kAccepted);
  ASSERT_EQ(submit(batcher, 2, 1, outcomes), SubmitResult::kAccepted);
  ASSERT_TRUE(outcomes.await_count(2));
  ASSERT_THAT(outcomes.codes(1), ElementsAre(StatusCode::kInternal));
  EXPECT_THAT(outcomes.of(1)[0].message(), HasSubstr("without completing"));
  EXPECT_THAT(outcomes.codes(2), ElementsAre(StatusCode::kOk));
}

TEST(DynamicBatcherTest, ShutdownProcessesQueuedTasksThenRefusesNewOnes) {
  FakeClock clock;
  Outcomes outcomes;
  Recorder recorder;
  DynamicBatcher batcher(options_with(100, 2ms), recorder.processor(), clock);
  const Clock::time_point t0 = clock.now();
  for (int id = 1; id <= 5; ++id) {
    ASSERT_EQ(submit(batcher, id, 2, outcomes), SubmitResult::kAccepted);
  }
  ASSERT_TRUE(clock.await_waiter_until(t0 + 2ms, kBound));

  batcher.shutdown();  // without the clock moving: draining does not wait for the delay
  EXPECT_EQ(outcomes.count(), 5u);
  EXPECT_THAT(recorder.batch_ids(), ElementsAre(ElementsAre(1, 2, 3, 4, 5)));
  for (int id = 1; id <= 5; ++id) {
    EXPECT_THAT(outcomes.codes(id), ElementsAre(StatusCode::kOk));
  }
  EXPECT_EQ(clock.now(), t0);

  auto late = std::make_unique<TestTask>(6, 1, outcomes);
  EXPECT_EQ(batcher.submit(late), SubmitResult::kShuttingDown);
  ASSERT_NE(late, nullptr);
  EXPECT_FALSE(late->completed());
  batcher.shutdown();  // idempotent
  EXPECT_EQ(batcher.submit(late), SubmitResult::kShuttingDown);
  EXPECT_EQ(outcomes.count(), 5u);
}

TEST(DynamicBatcherTest, DestructorDrainsTheQueue) {
  FakeClock clock;
  Outcomes outcomes;
  Recorder recorder;
  {
    DynamicBatcher batcher(options_with(2, 2ms), recorder.processor(), clock);
    for (int id = 1; id <= 5; ++id) {
      ASSERT_EQ(submit(batcher, id, 1, outcomes), SubmitResult::kAccepted);
    }
  }
  EXPECT_EQ(outcomes.count(), 5u);
  for (int id = 1; id <= 5; ++id) {
    EXPECT_THAT(outcomes.codes(id), ElementsAre(StatusCode::kOk));
  }
}

// The drain's bound: what is queued is answered at once with the given status, the batch
// already in the processor is left to finish, and nothing more is accepted.
TEST(DynamicBatcherTest, CancelQueuedAnswersTheQueueNowAndLeavesTheRunningBatchToFinish) {
  FakeClock clock;
  Outcomes outcomes;
  Recorder recorder;
  Gate entered;
  Gate release;
  DynamicBatcher batcher(options_with(100, 0ms),
                         recorder.processor(hold_first_batch(entered, release)), clock);
  ASSERT_EQ(submit(batcher, 1, 1, outcomes), SubmitResult::kAccepted);
  ASSERT_TRUE(entered.wait());  // task 1 runs, held in the processor
  ASSERT_EQ(submit(batcher, 2, 1, outcomes), SubmitResult::kAccepted);
  ASSERT_EQ(submit(batcher, 3, 2, outcomes), SubmitResult::kAccepted);

  EXPECT_EQ(batcher.cancel_queued({StatusCode::kUnavailable, "draining: cut"}), 2u);
  // Answered on this thread, before it returned, while task 1 is still running.
  ASSERT_EQ(outcomes.count(), 2u);
  for (int id : {2, 3}) {
    ASSERT_THAT(outcomes.codes(id), ElementsAre(StatusCode::kUnavailable));
    EXPECT_EQ(outcomes.of(id).front().message(), "draining: cut");
  }
  EXPECT_EQ(batcher.queued_rows(), 0u);
  EXPECT_EQ(submit(batcher, 4, 1, outcomes), SubmitResult::kShuttingDown);

  release.open();
  batcher.shutdown();
  EXPECT_THAT(outcomes.codes(1), ElementsAre(StatusCode::kOk));
  EXPECT_THAT(recorder.batch_ids(), ElementsAre(ElementsAre(1)));  // 2 and 3 never ran
  EXPECT_EQ(batcher.cancel_queued({StatusCode::kUnavailable, "again"}), 0u);
  EXPECT_EQ(outcomes.count(), 3u);
}

// The test plays puppeteer: the processor of the first batch returns only when the test
// lets it, and what was submitted meanwhile forms the next batch, timed from its own
// oldest task.
TEST(DynamicBatcherTest, TasksSubmittedWhileTheProcessorRunsFormTheNextBatch) {
  FakeClock clock;
  Outcomes outcomes;
  Recorder recorder;
  Gate entered;
  Gate release;
  DynamicBatcher batcher(options_with(100, 2ms),
                         recorder.processor(hold_first_batch(entered, release)), clock);
  const Clock::time_point t0 = clock.now();
  ASSERT_EQ(submit(batcher, 1, 1, outcomes), SubmitResult::kAccepted);
  ASSERT_EQ(submit(batcher, 2, 1, outcomes), SubmitResult::kAccepted);
  ASSERT_TRUE(clock.await_waiter_until(t0 + 2ms, kBound));
  clock.advance(2ms);
  ASSERT_TRUE(entered.wait());

  for (int id = 3; id <= 5; ++id) {
    ASSERT_EQ(submit(batcher, id, 1, outcomes), SubmitResult::kAccepted);
  }
  EXPECT_EQ(batcher.queued_tasks(), 3u);
  EXPECT_EQ(outcomes.count(), 0u);
  release.open();
  ASSERT_TRUE(outcomes.await_count(2));
  // Tasks 3..5 arrived at t0 + 2 ms, so their batch closes at t0 + 4 ms.
  ASSERT_TRUE(clock.await_waiter_until(t0 + 4ms, kBound));
  EXPECT_EQ(batcher.queued_tasks(), 3u);
  clock.advance(2ms);

  ASSERT_TRUE(outcomes.await_count(5));
  const std::vector<SeenBatch> batches = recorder.batches();
  ASSERT_EQ(batches.size(), 2u);
  EXPECT_THAT(batches[0].ids, ElementsAre(1, 2));
  EXPECT_THAT(batches[1].ids, ElementsAre(3, 4, 5));
  EXPECT_EQ(batches[1].started, t0 + 4ms);
  EXPECT_THAT(batches[1].queue_waits,
              ElementsAre(Clock::duration(2ms), Clock::duration(2ms), Clock::duration(2ms)));
}

// Two workers: while one is held in the processor, the other takes what the first left
// in the queue and times it from its own oldest task.
TEST(DynamicBatcherTest, ASecondWorkerTakesTheRestWhileTheFirstIsBusy) {
  FakeClock clock;
  Outcomes outcomes;
  Recorder recorder;
  Gate entered;
  Gate release;
  BatcherOptions options = options_with(4, 2ms);
  options.workers = 2;
  DynamicBatcher batcher(options, recorder.processor(hold_first_batch(entered, release)), clock);
  const Clock::time_point t0 = clock.now();
  ASSERT_TRUE(clock.await_waiters(2, kBound));
  ASSERT_EQ(submit(batcher, 1, 3, outcomes), SubmitResult::kAccepted);
  ASSERT_TRUE(clock.await_waiter_until(t0 + 2ms, kBound));
  clock.advance(1ms);
  ASSERT_EQ(submit(batcher, 2, 3, outcomes), SubmitResult::kAccepted);  // 6 rows >= 4
  ASSERT_TRUE(entered.wait());  // one worker holds batch [1]; task 2 did not fit
  ASSERT_TRUE(clock.await_waiter_until(t0 + 3ms, kBound)) << "nobody times task 2";
  clock.advance(2ms);

  ASSERT_TRUE(outcomes.await_count(1));
  EXPECT_THAT(outcomes.codes(2), ElementsAre(StatusCode::kOk));
  EXPECT_THAT(outcomes.of(1), IsEmpty());
  release.open();
  ASSERT_TRUE(outcomes.await_count(2));
  EXPECT_THAT(recorder.batch_ids(), ElementsAre(ElementsAre(1), ElementsAre(2)));
}

// 1000 tasks from 4 threads, 2 workers: every task is processed and completed exactly
// once, no batch is over the limit, and the two workers really do run at the same time
// (the first batch waits, bounded, until a second batch is being processed).
TEST(DynamicBatcherTest, TwoWorkersProcessConcurrentlyWithoutLosingOrDuplicatingTasks) {
  Outcomes outcomes;
  Recorder recorder;
  std::mutex mutex;
  std::condition_variable cv;
  int active = 0;           // guarded by mutex
  int max_active = 0;       // guarded by mutex
  bool overlapped = false;  // guarded by mutex
  BatcherOptions options = options_with(16, 500us);
  options.workers = 2;
  DynamicBatcher batcher(options, recorder.processor([&](Batch& batch, std::size_t) {
    {
      std::unique_lock<std::mutex> lock(mutex);
      max_active = std::max(max_active, ++active);
      if (active >= 2) {
        overlapped = true;
      }
      cv.notify_all();
      cv.wait_for(lock, kBound, [&] { return overlapped; });
    }
    complete_all(batch);
    std::lock_guard<std::mutex> lock(mutex);
    --active;
  }));

  constexpr int kThreads = 4;
  constexpr int kPerThread = 250;
  constexpr std::size_t kTasks = static_cast<std::size_t>(kThreads) * kPerThread;
  std::atomic<int> refused{0};
  std::vector<std::thread> submitters;
  submitters.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    submitters.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        const int id = t * kPerThread + i;
        if (submit(batcher, id, 1 + id % 4, outcomes) != SubmitResult::kAccepted) {
          refused.fetch_add(1);
        }
      }
    });
  }
  for (std::thread& submitter : submitters) {
    submitter.join();
  }
  ASSERT_EQ(refused.load(), 0);
  ASSERT_TRUE(outcomes.await_count(kTasks));
  batcher.shutdown();

  std::map<int, int> seen;
  for (const SeenBatch& batch : recorder.batches()) {
    EXPECT_LE(batch.rows, 16u);
    for (int id : batch.ids) {
      ++seen[id];
    }
  }
  ASSERT_EQ(seen.size(), kTasks);
  for (int id = 0; id < static_cast<int>(kTasks); ++id) {
    EXPECT_EQ(seen[id], 1) << "task " << id << " processed " << seen[id] << " times";
    EXPECT_THAT(outcomes.codes(id), ElementsAre(StatusCode::kOk)) << "task " << id;
  }
  EXPECT_EQ(outcomes.count(), kTasks);
  std::lock_guard<std::mutex> lock(mutex);
  EXPECT_EQ(max_active, 2) << "the two workers never processed batches at the same time";
}

// With an idle spin far longer than the test, the worker polls and never waits on the
// clock: each task, submitted one at a time, is taken without a notification.
TEST(DynamicBatcherTest, APollingWorkerTakesEveryTaskWithoutBlocking) {
  FakeClock clock;
  Outcomes outcomes;
  Recorder recorder;
  BatcherOptions options = options_with(8, 0ms);
  options.idle_spin = 24h;
  auto batcher = std::make_unique<DynamicBatcher>(options, recorder.processor(), clock);
  constexpr int kTasks = 20;
  for (int id = 0; id < kTasks; ++id) {
    ASSERT_EQ(submit(*batcher, id, 1, outcomes), SubmitResult::kAccepted);
    ASSERT_TRUE(outcomes.await_count(static_cast<std::size_t>(id) + 1)) << "task " << id;
    EXPECT_THAT(outcomes.codes(id), ElementsAre(StatusCode::kOk)) << "task " << id;
  }
  EXPECT_EQ(clock.blocked_waits(), 0u) << "the worker blocked instead of polling";
  // Shutdown reaches the polling worker too: joined within the bound, not after 24 h.
  auto joined = std::async(std::launch::async, [&batcher] { batcher.reset(); });
  EXPECT_EQ(joined.wait_for(kBound), std::future_status::ready) << "shutdown missed the poller";
}

// Of two idle workers only one polls; the other blocks on the clock.
TEST(DynamicBatcherTest, OneIdleWorkerPollsTheOthersBlock) {
  FakeClock clock;
  Outcomes outcomes;
  Recorder recorder;
  BatcherOptions options = options_with(8, 0ms);
  options.workers = 3;
  options.idle_spin = 24h;
  DynamicBatcher batcher(options, recorder.processor(), clock);
  ASSERT_TRUE(clock.await_waiters(2, kBound));
  ASSERT_EQ(submit(batcher, 1, 1, outcomes), SubmitResult::kAccepted);
  ASSERT_TRUE(outcomes.await_count(1));
  EXPECT_THAT(outcomes.codes(1), ElementsAre(StatusCode::kOk));
}

// The poll is bounded: after its idle spin a worker blocks on the clock like any other.
TEST(DynamicBatcherTest, AnIdleWorkerWaitsOnceItsSpinIsOver) {
  FakeClock clock;
  Outcomes outcomes;
  Recorder recorder;
  BatcherOptions options = options_with(8, 0ms);
  options.idle_spin = 1ms;
  DynamicBatcher batcher(options, recorder.processor(), clock);
  ASSERT_TRUE(clock.await_waiters(1, kBound));
  ASSERT_EQ(submit(batcher, 1, 1, outcomes), SubmitResult::kAccepted);
  ASSERT_TRUE(outcomes.await_count(1));
  ASSERT_TRUE(clock.await_blocked_waits(2, kBound)) << "the worker kept polling after its spin";
  EXPECT_THAT(outcomes.codes(1), ElementsAre(StatusCode::kOk));
}

TEST(BatcherOptionsTest, MaxQueueWaitAndIdleSpinAreOffByDefaultAndNeverNegative) {
  EXPECT_EQ(BatcherOptions{}.max_queue_wait, Clock::duration::zero());
  EXPECT_EQ(BatcherOptions{}.idle_spin, std::chrono::nanoseconds::zero());
  BatcherOptions options;
  options.max_queue_wait = -1ms;
  EXPECT_THAT(options.validate().message(), HasSubstr("max_queue_wait is negative"));
  options.max_queue_wait = 0ms;
  options.idle_spin = -1us;
  EXPECT_THAT(options.validate().message(), HasSubstr("idle_spin is negative"));
}

// The time bound: the first batch teaches the batcher 1 ms per row (its processor moves
// the fake clock by a millisecond per row); then, with the worker held in a second batch,
// tasks are admitted while the rows ahead of them would take at most max_queue_wait (5 ms)
// and refused beyond, and the refused task stays with the caller.
TEST(DynamicBatcherTest, RefusesATaskExpectedToWaitLongerThanMaxQueueWait) {
  FakeClock clock;
  Outcomes outcomes;
  Recorder recorder;
  Gate entered;
  Gate release;
  BatcherOptions options = options_with(8, 0ms);
  options.max_queue_wait = 5ms;
  DynamicBatcher batcher(options, recorder.processor([&](Batch& batch, std::size_t index) {
    if (index == 0) clock.advance(std::chrono::milliseconds(batch.rows));
    if (index == 1) {
      entered.open();
      release.wait();
    }
    complete_all(batch);
  }),
                         clock);
  // Nothing is known before the first batch: a full queue of work is admitted.
  ASSERT_EQ(submit(batcher, 1, 8, outcomes), SubmitResult::kAccepted);
  ASSERT_TRUE(outcomes.await_count(1));
  ASSERT_EQ(submit(batcher, 2, 1, outcomes), SubmitResult::kAccepted);
  ASSERT_TRUE(entered.wait());

  EXPECT_EQ(submit(batcher, 3, 3, outcomes), SubmitResult::kAccepted);  // behind 0 rows
  EXPECT_EQ(submit(batcher, 4, 2, outcomes), SubmitResult::kAccepted);  // behind 3: 3 ms
  EXPECT_EQ(submit(batcher, 5, 1, outcomes), SubmitResult::kAccepted);  // behind 5: 5 ms
  auto refused = std::make_unique<TestTask>(6, 1, outcomes);            // behind 6: 6 ms
  EXPECT_EQ(batcher.submit(refused), SubmitResult::kQueueWaitTooLong);
  ASSERT_NE(refused, nullptr) << "a refused task stays with the caller";
  EXPECT_FALSE(refused->completed());
  EXPECT_EQ(batcher.queued_rows(), 6u);

  release.open();
  ASSERT_TRUE(outcomes.await_count(5));
  for (int id = 1; id <= 5; ++id) {
    EXPECT_THAT(outcomes.codes(id), ElementsAre(StatusCode::kOk)) << "task " << id;
  }
  EXPECT_THAT(outcomes.of(6), IsEmpty());
  // Nothing is queued now, so the same task is admitted.
  EXPECT_EQ(batcher.submit(refused), SubmitResult::kAccepted);
  ASSERT_TRUE(outcomes.await_count(6));
  EXPECT_THAT(outcomes.codes(6), ElementsAre(StatusCode::kOk));
}

// The same queue with no time bound admits everything up to max_queue_rows.
TEST(DynamicBatcherTest, WithoutMaxQueueWaitOnlyRowsBoundTheQueue) {
  FakeClock clock;
  Outcomes outcomes;
  Recorder recorder;
  Gate entered;
  Gate release;
  BatcherOptions options = options_with(8, 0ms);
  options.max_queue_rows = 16;
  DynamicBatcher batcher(options, recorder.processor([&](Batch& batch, std::size_t index) {
    if (index == 0) clock.advance(std::chrono::milliseconds(batch.rows));
    if (index == 1) {
      entered.open();
      release.wait();
    }
    complete_all(batch);
  }),
                         clock);
  ASSERT_EQ(submit(batcher, 1, 8, outcomes), SubmitResult::kAccepted);
  ASSERT_TRUE(outcomes.await_count(1));
  ASSERT_EQ(submit(batcher, 2, 1, outcomes), SubmitResult::kAccepted);
  ASSERT_TRUE(entered.wait());
  for (int id = 3; id <= 6; ++id) {
    EXPECT_EQ(submit(batcher, id, 4, outcomes), SubmitResult::kAccepted) << "task " << id;
  }
  EXPECT_EQ(submit(batcher, 7, 1, outcomes), SubmitResult::kQueueFull);
  release.open();
  ASSERT_TRUE(outcomes.await_count(6));
}

}  // namespace
}  // namespace tsserve::server
