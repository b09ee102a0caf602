#pragma once
// The load generator behind `tsserve-client bench`, in the manner of perf_analyzer and
// ghz: one stage is either closed-loop (a fixed number of calls always in flight; a new
// one starts when one ends) or open-loop (calls start on an arrival schedule whatever
// the server does, so an overloaded server shows up as latency and errors, not as a
// politely slower client). Calls are gRPC async callbacks spread round-robin over the
// channels (one per target). Open-loop latency counts from the scheduled send time, so a
// late sender never hides queueing (no coordinated omission).
//
// Targets that are down: round-robin skips a target whose channel is not connected, and
// for a second one whose call just failed UNAVAILABLE (its server died or is draining),
// while another target can take the call; so when a replica dies only its calls in flight
// fail, and it rejoins the rotation once its channel reconnects. When no target can,
// every target takes its turn, so the failures show. Every channel is connected (or has
// failed to) before the first stage.

#include <grpcpp/channel.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tsserve/client/arrival_schedule.h"
#include "tsserve/client/tsserve_client.h"
#include "tsserve/v1/forecast_service.pb.h"

namespace tsserve::client {

struct LoadStage {
  bool open_loop = false;
  int concurrency = 1;        // closed loop: calls in flight
  double rate = 0;            // open loop: calls started per second
  Arrival arrival = Arrival::kConstant;
  double warmup_seconds = 1;  // calls started before this are not recorded
  double duration_seconds = 10;
  int64_t requests = 0;       // > 0: stop after this many recorded calls instead of a duration
  int max_outstanding = 10000;  // open loop: a send beyond this many in flight is skipped
  uint64_t seed = 1;
};

struct TargetCounts {
  int64_t ok = 0;
  int64_t errors = 0;
  std::map<std::string, int64_t> errors_by_code;  // "UNAVAILABLE" -> count
};

// Everything recorded about the calls started after the warm-up.
struct StageRecord {
  LoadStage stage;
  double elapsed_seconds = 0;           // first recorded start .. last recorded end
  int64_t ok = 0;
  std::map<std::string, int64_t> errors_by_code;  // "RESOURCE_EXHAUSTED" -> count
  int64_t not_sent = 0;                 // open loop: skipped at max_outstanding
  std::vector<double> latencies;        // seconds, successful calls
  std::vector<double> server_queue;     // Timing.queue_seconds, successful calls
  std::vector<double> server_compute;   // Timing.compute_seconds
  std::vector<double> batch_rows;       // Timing.batch_rows
  // Seconds from the scheduled send to the failure, by code: how fast errors come back
  // (a shedding server should refuse at once, not after a queue wait).
  std::map<std::string, std::vector<double>> error_latencies;
  // The first message of each error code: why calls failed, in the server's words.
  std::map<std::string, std::string> error_examples;
  // Every target, including one that got no call (its channel never connected).
  std::map<std::string, TargetCounts> per_target;
  bool stopped_early = false;           // stop() ended the stage before its end

  int64_t errors() const;
};

// Live counters for a progress line: calls recorded so far and seconds into the stage.
struct LoadProgress {
  double seconds = 0;
  int64_t ok = 0;
  int64_t errors = 0;
  bool warming_up = true;
};

class LoadGenerator {
 public:
  struct Target {
    std::string name;
    std::shared_ptr<grpc::Channel> channel;
  };
  LoadGenerator(std::vector<Target> targets, CallSettings settings, v1::ForecastRequest request);
  // Calls take `requests` in turn (e.g. one per model, to spread a bench over models).
  // REQUIRES: not empty.
  LoadGenerator(std::vector<Target> targets, CallSettings settings,
                std::vector<v1::ForecastRequest> requests);
  ~LoadGenerator();

  // Runs one stage to completion (every started call ended). `on_progress` is called
  // about every `progress_interval` from the calling thread.
  StageRecord run(const LoadStage& stage,
                  const std::function<void(const LoadProgress&)>& on_progress = {},
                  std::chrono::milliseconds progress_interval = std::chrono::milliseconds(500));

  // Ends the running stage early (no new calls; those in flight finish and are recorded)
  // and makes later run() calls return at once, marked stopped_early. Only stores to a
  // lock-free atomic, so a signal handler may call it (Ctrl-C prints what was measured).
  void stop() noexcept { stop_requested_.store(true, std::memory_order_relaxed); }
  bool stop_requested() const noexcept {
    return stop_requested_.load(std::memory_order_relaxed);
  }

 private:
  class Run;
  // Waits (bounded by the call timeout) for every channel to connect, so the first calls
  // of a stage are not spread by connection order; a target still down is then skipped.
  void connect_all();

  std::vector<Target> targets_;
  CallSettings settings_;
  std::vector<v1::ForecastRequest> requests_;
  bool connected_ = false;
  std::atomic<bool> stop_requested_{false};
  static_assert(std::atomic<bool>::is_always_lock_free, "stop() must be async-signal-safe");
};

// The request a bench sends: `variables` seeded random walks of `points` points.
v1::ForecastRequest synthetic_forecast_request(int variables, int points, bool attention,
                                               bool raw, uint64_t seed);

}  // namespace tsserve::client
