#pragma once
// How long a request arriving now would wait in a batcher's queue: the rows queued ahead
// of it times the recent model time per row, shared by the workers. The batcher refuses
// at admission what it could not start within max_queue_wait, so an admitted request's
// latency stays bounded in time however fast or slow the model and the machine are (a
// bound in rows is a bound in time for one model on one machine only).
//
// The time per row comes from decayed sums of the rows and the time of the batches the
// workers ran: a full batch weighs more than a lone row (overload is when batches are
// full, and a batch's fixed cost per row falls as it fills), and the estimate follows a
// change of speed (another process taking the CPU) within a few batches. Before the first
// batch nothing is known, and nothing is refused by time.
//
// Not thread-safe: the batcher calls it under its mutex. Header-only: a few arithmetic
// lines on the submit path.

#include <chrono>
#include <cstddef>
#include <optional>

#include "server/batching/clock.h"

namespace tsserve::server {

class QueueWaitEstimate {
 public:
  // One worker ran a batch of `rows` (>= 1) rows in `took`.
  void record_batch(std::size_t rows, Clock::duration took) {
    rows_ = rows_ * kKeep + static_cast<double>(rows);
    seconds_ = seconds_ * kKeep + std::chrono::duration<double>(took).count();
  }

  // The wait of a request behind `queued_rows` rows with `workers` (>= 1) workers;
  // nullopt before any batch was recorded.
  std::optional<Clock::duration> wait_behind(std::size_t queued_rows, std::size_t workers) const {
    if (rows_ <= 0) return std::nullopt;
    const double seconds =
        static_cast<double>(queued_rows) * (seconds_ / rows_) / static_cast<double>(workers);
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  }

 private:
  // Each batch keeps 7/8 of what came before: a memory of about eight batches.
  static constexpr double kKeep = 0.875;
  double rows_ = 0;
  double seconds_ = 0;
};

}  // namespace tsserve::server
