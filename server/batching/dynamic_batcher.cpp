#include "server/batching/dynamic_batcher.h"

#include <cassert>
#include <exception>
#include <stdexcept>
#include <utility>

#include "server/batching/idle_spin.h"

// Admission in time: under overload an admitted task waits about max_queue_wait plus the
// batch running at most, and a refusal costs a few arithmetic steps under the lock.
// A task over max_batch_rows is refused rather than split: splitting would make one
// request finish in pieces from several batches, and the handler can tell the caller the
// limit in one precise message.

namespace tsserve::server {
namespace {

// t + d without overflow, so a huge max_queue_delay means "size only". REQUIRES: d >= 0.
Clock::time_point saturating_add(Clock::time_point t, Clock::duration d) {
  if (d >= Clock::time_point::max() - t) {
    return Clock::time_point::max();
  }
  return t + d;
}

}  // namespace

std::vector<std::string> row_limit_problems(
    std::size_t max_batch_rows, std::size_t preferred_batch_rows, std::size_t max_queue_rows,
    const std::function<std::string(const char* option)>& describe) {
  std::vector<std::string> problems;
  if (max_queue_rows < max_batch_rows) {
    problems.push_back("max_queue_rows (" + describe("max_queue_rows") +
                       ") must be at least max_batch_rows (" + describe("max_batch_rows") +
                       "), or a full batch could never queue");
  }
  if (preferred_batch_rows > max_batch_rows) {
    problems.push_back("preferred_batch_rows (" + describe("preferred_batch_rows") +
                       ") must be at most max_batch_rows (" + describe("max_batch_rows") +
                       "), or 0 for max_batch_rows");
  }
  return problems;
}

Status BatcherOptions::validate() const {
  if (max_batch_rows < 1) {
    return invalid_argument("max_batch_rows is 0; it must be at least 1");
  }
  if (max_queue_delay < Clock::duration::zero()) {
    return invalid_argument("max_queue_delay is negative; it must be 0 or more");
  }
  if (max_queue_wait < Clock::duration::zero()) {
    return invalid_argument("max_queue_wait is negative; it must be 0 (no bound in time) or more");
  }
  const std::vector<std::string> problems = row_limit_problems(
      max_batch_rows, preferred_batch_rows, max_queue_rows, [this](const char* option) {
        const std::string name = option;
        return std::to_string(name == "max_batch_rows"   ? max_batch_rows
                              : name == "max_queue_rows" ? max_queue_rows
                                                         : preferred_batch_rows);
      });
  if (!problems.empty()) return invalid_argument(problems.front());
  if (workers < 1) {
    return invalid_argument("workers is 0; it must be at least 1");
  }
  if (idle_spin < std::chrono::nanoseconds::zero()) {
    return invalid_argument("idle_spin is negative; it must be 0 (no spin) or more");
  }
  return Status();
}

const char* to_string(SubmitResult result) {
  switch (result) {
    case SubmitResult::kAccepted:
      return "accepted";
    case SubmitResult::kQueueFull:
      return "queue full";
    case SubmitResult::kQueueWaitTooLong:
      return "expected queue wait too long";
    case SubmitResult::kShuttingDown:
      return "shutting down";
    case SubmitResult::kTooManyRows:
      return "too many rows for one batch";
  }
  return "unknown";
}

DynamicBatcher::DynamicBatcher(const BatcherOptions& options, Processor processor, Clock& clock)
    : options_(options), processor_(std::move(processor)), clock_(clock) {
  if (const Status problem = options_.validate(); !problem.ok()) {
    throw std::invalid_argument("DynamicBatcher: " + problem.message());
  }
  if (!processor_) {
    throw std::invalid_argument("DynamicBatcher: the processor is empty");
  }
  try {
    workers_.reserve(options_.workers);
    for (std::size_t i = 0; i < options_.workers; ++i) {
      workers_.emplace_back([this] { work(); });
    }
  } catch (...) {
    shutdown();  // joins the workers already started; the destructor will not run
    throw;
  }
}

DynamicBatcher::~DynamicBatcher() { shutdown(); }

SubmitResult DynamicBatcher::submit(std::unique_ptr<BatchTask>& task) {
  assert(task != nullptr);
  const std::size_t rows = task->rows();
  assert(rows >= 1);
  if (rows > options_.max_batch_rows) {
    return SubmitResult::kTooManyRows;
  }
  bool wake = false;
  {
    MutexLock lock(mutex_);
    if (stopping_) {
      return SubmitResult::kShuttingDown;
    }
    if (rows > options_.max_queue_rows - queued_rows_) {
      return SubmitResult::kQueueFull;
    }
    if (options_.max_queue_wait > Clock::duration::zero()) {
      const auto wait = wait_estimate_.wait_behind(queued_rows_, options_.workers);
      if (wait && *wait > options_.max_queue_wait) {
        return SubmitResult::kQueueWaitTooLong;
      }
    }
    // A waiting worker's decision changes only when the queue stops being empty (a new
    // oldest task to time) or the rows reach a full batch; other arrivals need no wake-up.
    // A spinning worker sees the arrival by itself, so it costs no futex wake-up.
    wake = (queue_.empty() && !spinning_) ||
           (queued_rows_ < full_batch_rows() && queued_rows_ + rows >= full_batch_rows());
    task->enqueued_at_ = clock_.now();
    queued_rows_ += rows;
    queue_.push_back(Queued{std::move(task), rows});
    arrivals_.fetch_add(1, std::memory_order_release);
  }
  if (wake) {
    work_available_.notify_one();
  }
  return SubmitResult::kAccepted;
}

void DynamicBatcher::shutdown() {
  {
    MutexLock lock(mutex_);
    stopping_ = true;
    arrivals_.fetch_add(1, std::memory_order_release);
  }
  work_available_.notify_all();
  MutexLock join_lock(join_mutex_);
  for (std::thread& worker : workers_) {
    if (worker.joinable()) {
      worker.join();
    }
  }
}

std::size_t DynamicBatcher::cancel_queued(const Status& status) {
  std::deque<Queued> cut;
  {
    MutexLock lock(mutex_);
    stopping_ = true;
    arrivals_.fetch_add(1, std::memory_order_release);
    cut.swap(queue_);
    queued_rows_ = 0;
  }
  // Workers waiting for a batch to fill, or for work, find the queue empty and stop.
  work_available_.notify_all();
  // Outside the lock: a completion answers its call and may take a while.
  for (Queued& queued : cut) queued.task->complete(status);
  return cut.size();
}

std::size_t DynamicBatcher::queued_rows() const {
  MutexLock lock(mutex_);
  return queued_rows_;
}

std::size_t DynamicBatcher::queued_tasks() const {
  MutexLock lock(mutex_);
  return queue_.size();
}

void DynamicBatcher::work() {
  MutexLock lock(mutex_);
  for (;;) {
    if (queue_.empty()) {
      if (stopping_) {
        return;
      }
      if (!spin_for_work(lock)) {
        clock_.wait_until(lock.native(), work_available_, Clock::time_point::max());
      }
      continue;
    }
    // Draining closes batches at once: nothing more is coming to fill them.
    if (!stopping_ && queued_rows_ < full_batch_rows()) {
      const Clock::time_point close_at =
          saturating_add(queue_.front().task->enqueued_at(), options_.max_queue_delay);
      if (clock_.now() < close_at) {
        clock_.wait_until(lock.native(), work_available_, close_at);
        continue;
      }
    }

    Batch batch;
    std::vector<Dropped> dropped;
    take_batch(batch, dropped);
    const bool more = !queue_.empty();
    lock.unlock();
    // Another worker may start on the rest while this one computes.
    if (more) {
      work_available_.notify_one();
    }
    for (Dropped& drop : dropped) {
      drop.task->complete(drop.status);
    }
    dropped.clear();
    const bool ran = !batch.tasks.empty();
    if (ran) {
      process(batch);
    }
    const Clock::time_point finished = clock_.now();
    batch.tasks.clear();  // tasks are destroyed outside the lock
    lock.lock();
    if (ran) {
      wait_estimate_.record_batch(batch.rows, finished - batch.started);
    }
  }
}

bool DynamicBatcher::spin_for_work(MutexLock& lock) {
  if (options_.idle_spin <= std::chrono::nanoseconds::zero() || spinning_) {
    return false;
  }
  spinning_ = true;
  const std::uint64_t seen = arrivals_.load(std::memory_order_acquire);
  lock.run_unlocked([&] { spin_until_changed(arrivals_, seen, options_.idle_spin); });
  spinning_ = false;
  // Under the lock again: a task that came after the poll ended has notified no waiter.
  return !queue_.empty() || stopping_;
}

std::size_t DynamicBatcher::full_batch_rows() const {
  return options_.preferred_batch_rows > 0 ? options_.preferred_batch_rows
                                           : options_.max_batch_rows;
}

void DynamicBatcher::take_batch(Batch& batch, std::vector<Dropped>& dropped) {
  batch.started = clock_.now();
  while (!queue_.empty()) {
    Queued& front = queue_.front();
    if (front.task->cancelled()) {
      dropped.push_back(
          Dropped{std::move(front.task),
                  {StatusCode::kCancelled, "the request was cancelled while queued"}});
    } else if (front.task->deadline() <= batch.started) {
      dropped.push_back(Dropped{std::move(front.task),
                                {StatusCode::kDeadlineExceeded,
                                 "the deadline passed while the request was queued for a batch"}});
    } else if (batch.tasks.empty() || batch.rows + front.rows <= full_batch_rows()) {
      // The first task always fits: submit() refused any over max_batch_rows.
      batch.rows += front.rows;
      batch.tasks.push_back(std::move(front.task));
    } else {
      break;  // FIFO: a later, smaller task does not jump ahead
    }
    queued_rows_ -= front.rows;
    queue_.pop_front();
  }
}

void DynamicBatcher::process(Batch& batch) noexcept {
  Status leftover{StatusCode::kInternal,
                  "the batch processor returned without completing this request"};
  try {
    processor_(batch);
  } catch (const std::exception& e) {
    leftover = {StatusCode::kInternal, std::string("batch processing failed: ") + e.what()};
  } catch (...) {
    leftover = {StatusCode::kInternal, "batch processing failed with an exception of unknown type"};
  }
  for (const std::unique_ptr<BatchTask>& task : batch.tasks) {
    if (task != nullptr) {
      task->complete(leftover);  // no-op for completed tasks
    }
  }
}

}  // namespace tsserve::server
