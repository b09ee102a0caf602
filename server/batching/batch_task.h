#pragma once
// What the dynamic batcher batches: a task of one or more rows (series) with a deadline,
// a cancellation probe and exactly one completion. A batcher serves one kind of task (one
// batcher per method), so its processor static_casts to that concrete type.
//
// Completion: whoever ends the task (the processor with an OK Status, the batcher with
// a drop or failure outcome) calls complete(); the first call delivers the outcome
// through on_complete(), later calls do nothing. So a task is never finished twice, and
// the batcher can finish whatever a failed processor left unfinished.

#include <atomic>
#include <cstddef>
#include <string>

#include "server/batching/clock.h"
#include "server/status/status.h"

namespace tsserve::server {

// A task's outcome is a Status (status.h): OK (processed; the result is in the task),
// CANCELLED (the caller went away before it was processed), DEADLINE_EXCEEDED (the deadline
// passed while it was queued), INTERNAL (the batch failed; the message says why) or
// UNAVAILABLE (the server stopped before it ran, the drain's bound passed: retryable
// elsewhere; the message says why). The batcher gives no other code.

class BatchTask {
 public:
  BatchTask() = default;
  BatchTask(const BatchTask&) = delete;
  BatchTask& operator=(const BatchTask&) = delete;
  virtual ~BatchTask() = default;

  // Rows this task adds to a batch: one per series. Read once, by submit().
  // REQUIRES: >= 1.
  virtual std::size_t rows() const = 0;

  // When the caller stops waiting, by the batcher's clock; time_point::max() for never.
  // Called by a worker with the batcher's mutex held: must be cheap and must not call
  // into the batcher.
  virtual Clock::time_point deadline() const { return Clock::time_point::max(); }

  // Whether the caller has gone away (e.g. the RPC was cancelled). Thread-safe; called by
  // a worker with the batcher's mutex held, like deadline().
  virtual bool cancelled() const { return false; }

  // Called by a processor on each task of a batch that finished OK, before it completes
  // any of them (runtime/batch_completion.h), so that work the completions share can
  // start for all of them first: the keeps of a batch's forecasts go to a shared store in
  // one round trip (accuracy/kept_forecasts.h). On the worker; must not throw.
  virtual void prepare_to_complete() noexcept {}

  // Ends the task with `status`. The first call runs on_complete() on the calling thread
  // and returns true; later calls return false and do nothing. Thread-safe.
  bool complete(const Status& status) noexcept;
  bool completed() const noexcept { return completed_.load(std::memory_order_acquire); }

  // When the batcher accepted the task, by its clock; set by DynamicBatcher::submit().
  // The queue wait of a task is Batch::started - enqueued_at().
  Clock::time_point enqueued_at() const { return enqueued_at_; }

 protected:
  // Delivers the outcome (e.g. finishes the RPC with the matching status). Called exactly
  // once. Must not throw: complete() is noexcept, so a throw terminates the process.
  virtual void on_complete(const Status& status) = 0;

 private:
  friend class DynamicBatcher;

  std::atomic<bool> completed_{false};
  // Written by submit() under the batcher's mutex before any worker can see the task.
  Clock::time_point enqueued_at_{};
};

}  // namespace tsserve::server
