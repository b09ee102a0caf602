#pragma once
// The load generator behind `tsserve-client bench`, in the manner of perf_analyzer and
// ghz: one stage is either closed-loop (a fixed number of calls always in flight; a new
// one starts when one ends) or open-loop (calls start on an arrival schedule whatever
// the server does, so an overloaded server shows up as latency and errors, not as a
// politely slower client). Calls are gRPC async callbacks spread round-robin over the
// channels (one per target). Open-loop latency counts from the scheduled send time, so a
// late sender never hides queueing (no coordinated omission).

#include <grpcpp/channel.h>

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
  std::map<std::string, TargetCounts> per_target;

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
  ~LoadGenerator();

  // Runs one stage to completion (every started call ended). `on_progress` is called
  // about every `progress_interval` from the calling thread.
  StageRecord run(const LoadStage& stage,
                  const std::function<void(const LoadProgress&)>& on_progress = {},
                  std::chrono::milliseconds progress_interval = std::chrono::milliseconds(500));

 private:
  class Run;
  std::vector<Target> targets_;
  CallSettings settings_;
  v1::ForecastRequest request_;
};

// The request a bench sends: `variables` seeded random walks of `points` points.
v1::ForecastRequest synthetic_forecast_request(int variables, int points, bool attention,
                                               bool raw, uint64_t seed);

}  // namespace tsserve::client
