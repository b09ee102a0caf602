#pragma once
// Dynamic batching of row tasks (batch_task.h) for one model instance group.
//
// Tasks queue FIFO. A worker closes a batch when the queued rows reach a full batch
// (preferred_batch_rows, else max_batch_rows) or when the oldest queued task has waited
// max_queue_delay (by the injected Clock), takes whole tasks from the front while they fit
// in a full batch (a task is never split, a batch never holds more than max_batch_rows
// rows, a task larger than preferred_batch_rows runs alone, and a task never jumps ahead
// of an older one), drops
// the cancelled and expired ones it meets (completing them kCancelled /
// kDeadlineExceeded), and runs the processor on its own thread. Each worker is one model
// instance, so `workers` batches run at once.
//
// Admission is bounded twice: in rows (max_queue_rows, kQueueFull) and, when
// max_queue_wait is set, in time: a task whose expected wait (queue_wait_estimate.h) is
// over max_queue_wait is refused (kQueueWaitTooLong). A task with more rows than
// max_batch_rows is refused (kTooManyRows), never split.
//
// Locking: one mutex and one condition variable. Workers wait with
// clock.wait_until(oldest + delay); submit() and shutdown() notify outside the lock.
//
// Idle spin (idle_spin.h): a worker that finds the queue empty may first poll it for
// idle_spin (real time, not the injected Clock: it is about the CPU, and changes no
// batching decision) before it blocks. A forward that starts on a thread that has just
// slept runs slower (model_bench BM_FusedForwardAfterIdle; the figures are in
// BENCHMARKS.md), and at low load every batch starts so. One worker per batcher spins at a time;
// the others block as before.
//
// Thread safety: submit(), shutdown() and the getters may be called from any thread.
// REQUIRES: shutdown() and the destructor are not called from the processor.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "server/batching/batch_task.h"
#include "server/batching/batcher_defaults.h"
#include "server/batching/clock.h"
#include "server/batching/queue_wait_estimate.h"
#include "server/status/status.h"
#include "server/sync/mutex.h"

namespace tsserve::server {

struct BatcherOptions {
  // Rows (series) in one forward pass at most; a task with more is refused.
  std::size_t max_batch_rows = kDefaultMaxBatchRows;
  // A worker stops adding tasks to a batch at this many rows, leaving the rest queued for
  // the next free worker: with several workers the queue is shared rather than taken by
  // the first, and no request waits behind one wide batch. A single task with more rows
  // (up to max_batch_rows) still runs, alone. 0: max_batch_rows.
  std::size_t preferred_batch_rows = 0;
  // How long the oldest queued task may wait for company before its batch runs anyway;
  // 0: a free worker takes what is queued at once (batches form while it is busy).
  Clock::duration max_queue_delay = std::chrono::milliseconds(0);
  // Rows queued at most (excluding batches being processed); more is kQueueFull.
  std::size_t max_queue_rows = kDefaultMaxQueueRows;
  // A task expected to wait longer than this in the queue is refused (kQueueWaitTooLong);
  // 0: no bound in time, only max_queue_rows.
  Clock::duration max_queue_wait = Clock::duration::zero();
  // Worker threads, one per model instance.
  std::size_t workers = 1;
  // How long one idle worker polls the queue before it blocks (see the header comment);
  // zero: it blocks at once.
  std::chrono::nanoseconds idle_spin = std::chrono::nanoseconds::zero();

  // OK when the options are usable, else INVALID_ARGUMENT saying what is wrong and what is
  // expected.
  Status validate() const;
};

// The rules between the row limits, written once for the batcher (validate()) and the
// server's config (which says where each value came from): one message per broken rule,
// each value shown as `describe(option name)` gives it, e.g. "max_queue_rows (100) must be
// at least max_batch_rows (448), or a full batch could never queue".
std::vector<std::string> row_limit_problems(
    std::size_t max_batch_rows, std::size_t preferred_batch_rows, std::size_t max_queue_rows,
    const std::function<std::string(const char* option)>& describe);

enum class SubmitResult {
  kAccepted,          // the batcher owns the task and will complete it
  kQueueFull,         // -> RESOURCE_EXHAUSTED
  kQueueWaitTooLong,  // expected queue wait > max_queue_wait; -> RESOURCE_EXHAUSTED
  kShuttingDown,      // -> UNAVAILABLE
  kTooManyRows,       // task.rows() > max_batch_rows: it can never run; -> INVALID_ARGUMENT
};

const char* to_string(SubmitResult result);

// A closed batch, as the processor sees it.
struct Batch {
  // FIFO order; none completed yet; no cancelled or expired task at `started`.
  std::vector<std::unique_ptr<BatchTask>> tasks;
  // sum of tasks[i]->rows(): <= preferred_batch_rows, or one task <= max_batch_rows
  std::size_t rows = 0;
  // When the worker closed the batch, by the batcher's clock. A task's queue wait is
  // started - task->enqueued_at().
  Clock::time_point started{};
};

class DynamicBatcher {
 public:
  // Runs on a worker thread and must complete every task of the batch (complete(kOk)
  // after filling its result, or a failure status). Tasks it leaves uncompleted are
  // completed kInternal when it returns; if it throws, those tasks are completed
  // kInternal with the exception's message, and the worker goes on with the next batch.
  // It may move tasks out of batch.tasks; those are then its own to complete.
  using Processor = std::function<void(Batch& batch)>;

  // Starts options.workers threads. Throws std::invalid_argument when
  // options.validate() finds a problem. REQUIRES: `clock` outlives the batcher.
  DynamicBatcher(const BatcherOptions& options, Processor processor,
                 Clock& clock = SystemClock::instance());
  DynamicBatcher(const DynamicBatcher&) = delete;
  DynamicBatcher& operator=(const DynamicBatcher&) = delete;
  // shutdown(): no accepted task is lost.
  ~DynamicBatcher();

  // Queues `task`. On kAccepted the batcher owns it and `task` is null; on any other
  // result `task` is untouched and the caller still owns it (and answers the request).
  // REQUIRES: task != nullptr.
  SubmitResult submit(std::unique_ptr<BatchTask>& task);

  // The same for a pointer to a concrete task type.
  template <typename T>
  SubmitResult submit(std::unique_ptr<T>& task) {
    static_assert(std::is_base_of_v<BatchTask, T>, "T must derive from BatchTask");
    std::unique_ptr<BatchTask> base(task.release());
    const SubmitResult result = submit(base);
    task.reset(static_cast<T*>(base.release()));  // null when accepted
    return result;
  }

  // Stops accepting (submit() answers kShuttingDown from now on), processes everything
  // already queued without waiting for the delay, and joins the workers. Idempotent;
  // concurrent callers all return once the workers are gone.
  void shutdown();

  // The drain's bound (RepositoryManager::stop_by): stops accepting, as shutdown() does, and
  // completes every task still queued with `status` at once, on the calling thread. Tasks
  // in a batch already running are not touched: a forward pass cannot be interrupted, so
  // they finish with their results. Returns how many tasks it completed so. Does not join
  // the workers (shutdown() does); may run before, during or after it.
  std::size_t cancel_queued(const Status& status);

  // Queue depth now (tasks in batches being processed are not counted).
  std::size_t queued_rows() const;
  std::size_t queued_tasks() const;

  const BatcherOptions& options() const { return options_; }

 private:
  struct Queued {
    std::unique_ptr<BatchTask> task;
    std::size_t rows;
  };
  struct Dropped {
    std::unique_ptr<BatchTask> task;
    Status status;
  };

  void work();
  // Polls for a submit() or shutdown() for options_.idle_spin with `lock` released, unless
  // another worker is already spinning. Returns whether there is something to act on
  // (a queued task or stopping_), checked under `lock` again. `lock` is the caller's hold
  // on mutex_ (MutexLock::run_unlocked releases it for the poll).
  bool spin_for_work(MutexLock& lock) TSSERVE_REQUIRES(mutex_);
  // The rows at which a batch is full: preferred_batch_rows, else max_batch_rows.
  std::size_t full_batch_rows() const;
  // Moves the tasks of the next batch out of queue_ into `batch`, and the cancelled and
  // expired tasks met on the way into `dropped`.
  void take_batch(Batch& batch, std::vector<Dropped>& dropped) TSSERVE_REQUIRES(mutex_);
  // Runs the processor and completes what it left. Never throws.
  void process(Batch& batch) noexcept;

  // Constant after construction.
  const BatcherOptions options_;
  const Processor processor_;
  Clock& clock_;

  mutable Mutex mutex_;
  // Notified when a worker may have something to do: a task arrives in an empty queue,
  // the queued rows reach a full batch, tasks remain after a batch was taken, shutdown.
  std::condition_variable work_available_;
  std::deque<Queued> queue_ TSSERVE_GUARDED_BY(mutex_);
  std::size_t queued_rows_ TSSERVE_GUARDED_BY(mutex_) = 0;  // sum of queue_[i].rows
  bool stopping_ TSSERVE_GUARDED_BY(mutex_) = false;
  bool spinning_ TSSERVE_GUARDED_BY(mutex_) = false;  // a worker is in spin_for_work
  // Bumped by every submit() and by shutdown(), so a spinning worker sees them without the
  // lock.
  std::atomic<std::uint64_t> arrivals_{0};
  QueueWaitEstimate wait_estimate_ TSSERVE_GUARDED_BY(mutex_);  // fed by every processed batch

  Mutex join_mutex_;  // serialises shutdown()'s joins
  // Filled by the constructor (exempt from the analysis), joined under join_mutex_.
  std::vector<std::thread> workers_ TSSERVE_GUARDED_BY(join_mutex_);
};

}  // namespace tsserve::server
