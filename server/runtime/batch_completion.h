#pragma once
// What every batch processor does around its model call, whatever the family: copy a
// result tensor out, cut one attention map into an AttentionBlock, fill the tasks' timing
// and complete them, and log a failed batch before the batcher completes it INTERNAL.
// Shared by the families' processors (server/families/).

#include <ATen/core/Tensor.h>
#include <c10/util/Exception.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include "server/batching/dynamic_batcher.h"
#include "server/request/request_types.h"
#include "server/runtime/batch_observer.h"

namespace tsserve::server {

// The tensor's floats, row-major (made contiguous first).
std::vector<float> copy_floats(const at::Tensor& t);

// One map [H, Q, K] as a block, averaged over heads to [Q, K] when `average_heads`.
AttentionBlock attention_block(const at::Tensor& map, int32_t layer, int32_t variable,
                               bool average_heads);
// One map as the model gave it: [H, Q, K], or [Q, K] already averaged over heads.
AttentionBlock attention_block_as_given(const at::Tensor& map, int32_t layer, int32_t variable,
                                        bool heads_averaged);

// The maps a task asked for, cut from a batch's per-layer weights: weights[layer] is
// [R, H, Q, K], the task's unit `v` (a variable's row, a sample, a sequence) sits at row
// first_row + v; ordered by unit, then layer.
std::vector<AttentionBlock> select_attention(const std::vector<at::Tensor>& weights,
                                             int64_t first_row, const AttentionSelection& want,
                                             const std::vector<int32_t>& units);

double seconds_between(Clock::time_point from, Clock::time_point to);

// Fills every task's timing (queue wait from its arrival to the batch's start, the
// batch's compute time and rows), reports to `observer` (may be null), prepares every task
// to complete, then completes each OK.
template <typename Task>
void finish_tasks(Batch& batch, double compute_seconds, BatchObserver* observer) {
  if (observer) observer->on_batch(batch.rows, compute_seconds);
  for (auto& base : batch.tasks) {
    auto& task = static_cast<Task&>(*base);
    task.output.queue_seconds = seconds_between(task.enqueued_at(), batch.started);
    task.output.compute_seconds = compute_seconds;
    task.output.batch_rows = static_cast<int32_t>(batch.rows);
    if (observer) observer->on_queue_wait(task.output.queue_seconds);
    task.prepare_to_complete();
  }
  for (auto& task : batch.tasks) task->complete(Status());
}

// `run(batch, forecaster, observer)` as a processor that logs a failure with the batch's size
// and rethrows it; LibTorch's errors lose their C++ backtrace on the way to the caller.
template <typename Forecaster, typename Run>
DynamicBatcher::Processor logged(const char* method, const Forecaster& forecaster,
                                 BatchObserver* observer, Run run) {
  return [method, &forecaster, observer, run](Batch& batch) {
    try {
      run(batch, forecaster, observer);
    } catch (const c10::Error& e) {
      const std::string message = e.what_without_backtrace();
      spdlog::error("{} batch of {} rows ({} requests) failed: {}", method, batch.rows,
                    batch.tasks.size(), message);
      throw std::runtime_error("the model failed on this batch: " + message);
    } catch (const std::exception& e) {
      spdlog::error("{} batch of {} rows ({} requests) failed: {}", method, batch.rows,
                    batch.tasks.size(), e.what());
      throw;
    }
  };
}

}  // namespace tsserve::server
