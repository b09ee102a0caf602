#pragma once
// A Forecast (tsserve.v1 Forecast or the Open Inference Protocol's ModelInfer) or Encode
// request on its way through the batcher: the validated input (request_types.h, whatever
// protocol it came in), the result the runtime fills, and how to end the call.
//
// Ownership: the handler creates the task and submits it; on acceptance the batcher
// owns it until complete() runs the completion, which answers the caller (finishes the
// RPC). The completion runs exactly once, on the thread that completes the task.

#include <atomic>
#include <functional>

#include "server/batching/batch_task.h"
#include "server/request/request_types.h"

namespace tsserve::server {

// How a task learns that its caller went away; thread-safe, cheap.
using CancelProbe = std::function<bool()>;

template <typename InputT, typename OutputT>
class RequestTask final : public BatchTask {
 public:
  using Input = InputT;
  using Output = OutputT;
  using Completion = std::function<void(RequestTask& task, const Status& status)>;
  // Runs from prepare_to_complete(), with the output filled; may be empty.
  using Preparation = std::function<void(RequestTask& task)>;

  RequestTask(Input input, Clock::time_point deadline, CancelProbe cancelled, Completion completion,
              Preparation preparation = nullptr)
      : input(std::move(input)),
        deadline_(deadline),
        cancelled_(std::move(cancelled)),
        completion_(std::move(completion)),
        preparation_(std::move(preparation)) {}

  std::size_t rows() const override;
  Clock::time_point deadline() const override { return deadline_; }
  // True once the call has ended without this task (the caller cancelled, or gRPC ended
  // it at its deadline: the door's CallEnding reports which).
  bool cancelled() const override { return cancelled_ && cancelled_(); }
  void prepare_to_complete() noexcept override {
    if (preparation_) preparation_(*this);
  }

  Input input;    // set by the handler, read by the processor
  Output output;  // filled by the processor before it completes the task with kOk

 protected:
  void on_complete(const Status& status) override { completion_(*this, status); }

 private:
  const Clock::time_point deadline_;
  const CancelProbe cancelled_;
  const Completion completion_;
  const Preparation preparation_;
};

using ForecastTask = RequestTask<ForecastInput, ForecastOutput>;
using EncodeTask = RequestTask<EncodeInput, EncodeOutput>;

// A Forecast task adds its series rows; an Encode task one token sequence.
template <>
inline std::size_t ForecastTask::rows() const {
  return static_cast<std::size_t>(input.series_rows);
}
template <>
inline std::size_t EncodeTask::rows() const {
  return 1;
}

}  // namespace tsserve::server
