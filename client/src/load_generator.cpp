#include "tsserve/client/load_generator.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <random>
#include <thread>

#include "tsserve/client/forecast_call.h"
#include "tsserve/client/tensor_data.h"
#include "tsserve/status/status_code_names.h"
#include "tsserve/v1/forecast_service.grpc.pb.h"

namespace tsserve::client {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_between(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

Clock::duration to_duration(double seconds) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

// How long a target whose call failed UNAVAILABLE stays out of the rotation. Its channel
// still says READY for a moment after its server died (the closed connection reaches the
// state a little after the failed calls), and a draining server stays connected while it
// refuses; a second later the channel state tells (not connected: still skipped).
constexpr std::chrono::seconds kEjection{1};

}  // namespace

int64_t StageRecord::errors() const {
  int64_t total = 0;
  for (const auto& [code, count] : errors_by_code) total += count;
  return total;
}

// One stage's calls and their bookkeeping; every method but execute() may run on gRPC's
// callback threads.
class LoadGenerator::Run {
 public:
  Run(LoadGenerator& generator, const LoadStage& stage)
      : generator_(generator), stage_(stage) {
    for (const auto& target : generator.targets_) {
      stubs_.push_back(v1::ForecastService::NewStub(target.channel));
    }
    record_.stage = stage;
    for (const auto& target : generator.targets_) record_.per_target[target.name];
    ejected_until_.assign(generator.targets_.size(), Clock::time_point{});
  }

  StageRecord execute(const std::function<void(const LoadProgress&)>& on_progress,
                      std::chrono::milliseconds interval) {
    begin_ = Clock::now();
    measure_begin_ = begin_ + to_duration(stage_.warmup_seconds);
    measure_end_ = measure_begin_ + to_duration(stage_.duration_seconds);
    if (stage_.open_loop) {
      dispatch_open_loop(on_progress, interval);
    } else {
      for (int i = 0; i < stage_.concurrency; ++i) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!may_start(Clock::now())) break;
        start_call(Clock::now());
      }
    }
    std::unique_lock<std::mutex> lock(mutex_);
    while (outstanding_ > 0) {
      if (all_ended_.wait_for(lock, interval) == std::cv_status::timeout && on_progress) {
        const LoadProgress progress = progress_locked();
        lock.unlock();
        on_progress(progress);
        lock.lock();
      }
    }
    record_.elapsed_seconds =
        last_end_ > measure_begin_ ? seconds_between(measure_begin_, last_end_) : 0;
    record_.stopped_early = generator_.stop_requested();
    return std::move(record_);
  }

 private:
  struct Call {
    grpc::ClientContext context;
    v1::ForecastResponse response;
    Clock::time_point scheduled;  // latency counts from here
    size_t target = 0;
    bool recorded = false;
  };

  // Holding mutex_: whether the stage wants another call started at `now`.
  bool may_start(Clock::time_point now) const {
    if (generator_.stop_requested()) return false;
    if (stage_.requests > 0) return recorded_started_ < stage_.requests;
    return now < measure_end_;
  }

  // Holding mutex_.
  void start_call(Clock::time_point scheduled) {
    auto* call = new Call;
    call->scheduled = scheduled;
    call->recorded = Clock::now() >= measure_begin_;
    if (call->recorded) ++recorded_started_;
    call->target = pick_target(Clock::now());
    prepare_context(call->context, generator_.settings_);
    ++outstanding_;
    const v1::ForecastRequest& request =
        generator_.requests_[next_request_++ % generator_.requests_.size()];
    stubs_[call->target]->async()->Forecast(&call->context, &request, &call->response,
                                            [this, call](grpc::Status status) {
                                              on_done(call, status);
                                            });
  }

  void on_done(Call* call, const grpc::Status& status) {
    const Clock::time_point end = Clock::now();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (status.error_code() == grpc::StatusCode::UNAVAILABLE) {
        ejected_until_[call->target] = end + kEjection;
      }
      if (call->recorded) record(*call, status, end);
      if (!stage_.open_loop && may_start(end)) start_call(end);
    }
    // The call's context holds a reference to its channel, so it goes before the stage can
    // end: were it the last reference once the caller has let the channels go, the
    // channel's teardown would run on this gRPC thread and join the thread itself (gRPC
    // 1.51 then ran its completion queue after deleting it: a SIGSEGV at about 1 bench
    // exit in 60 with a target down).
    delete call;
    std::lock_guard<std::mutex> lock(mutex_);
    if (--outstanding_ == 0) all_ended_.notify_all();
  }

  // Holding mutex_. Round-robin over the targets that can take a call (connected, not
  // ejected; see the header); a skipped idle channel is asked to connect, so a target that
  // lost its connection comes back. With none available, plain round-robin.
  size_t pick_target(Clock::time_point now) {
    const size_t count = stubs_.size();
    for (size_t tried = 0; tried < count; ++tried) {
      const size_t candidate = next_target_++ % count;
      const auto& channel = generator_.targets_[candidate].channel;
      const bool connected = channel->GetState(/*try_to_connect=*/true) == GRPC_CHANNEL_READY;
      if (connected && now >= ejected_until_[candidate]) return candidate;
    }
    return next_target_++ % count;
  }

  // Holding mutex_.
  void record(const Call& call, const grpc::Status& status, Clock::time_point end) {
    last_end_ = std::max(last_end_, end);
    TargetCounts& counts = record_.per_target[generator_.targets_[call.target].name];
    if (!status.ok()) {
      const std::string code = status_code_name(static_cast<int>(status.error_code()));
      ++record_.errors_by_code[code];
      record_.error_latencies[code].push_back(seconds_between(call.scheduled, end));
      record_.error_examples.emplace(code, status.error_message());
      ++counts.errors;
      ++counts.errors_by_code[code];
      return;
    }
    ++record_.ok;
    ++counts.ok;
    record_.latencies.push_back(seconds_between(call.scheduled, end));
    record_.server_queue.push_back(call.response.timing().queue_seconds());
    record_.server_compute.push_back(call.response.timing().compute_seconds());
    record_.batch_rows.push_back(call.response.timing().batch_rows());
  }

  LoadProgress progress_locked() const {
    const Clock::time_point now = Clock::now();
    return LoadProgress{now < measure_begin_ ? seconds_between(begin_, now)
                                             : seconds_between(measure_begin_, now),
                        record_.ok, record_.errors(), now < measure_begin_};
  }

  // The calling thread keeps the schedule; replies arrive on gRPC's threads meanwhile.
  void dispatch_open_loop(const std::function<void(const LoadProgress&)>& on_progress,
                          std::chrono::milliseconds interval) {
    ArrivalSchedule schedule(stage_.rate, stage_.arrival, stage_.seed);
    Clock::time_point next_progress = begin_ + interval;
    for (;;) {
      const Clock::time_point send = begin_ + to_duration(schedule.next_send_seconds());
      while (on_progress && next_progress < send) {
        std::this_thread::sleep_until(next_progress);
        on_progress(locked_progress());
        next_progress += interval;
      }
      std::this_thread::sleep_until(send);
      std::lock_guard<std::mutex> lock(mutex_);
      if (!may_start(send)) break;
      if (outstanding_ >= stage_.max_outstanding) {
        if (send >= measure_begin_) ++record_.not_sent;
        continue;
      }
      start_call(send);
    }
  }

  LoadProgress locked_progress() {
    std::lock_guard<std::mutex> lock(mutex_);
    return progress_locked();
  }

  LoadGenerator& generator_;
  const LoadStage stage_;
  std::vector<std::unique_ptr<v1::ForecastService::Stub>> stubs_;
  Clock::time_point begin_, measure_begin_, measure_end_, last_end_{};
  std::mutex mutex_;
  std::condition_variable all_ended_;
  int outstanding_ = 0;
  int64_t recorded_started_ = 0;
  uint64_t next_target_ = 0;
  uint64_t next_request_ = 0;  // guarded like next_target_: calls take the requests in turn
  std::vector<Clock::time_point> ejected_until_;  // by target; see kEjection
  StageRecord record_;
};

LoadGenerator::LoadGenerator(std::vector<Target> targets, CallSettings settings,
                             v1::ForecastRequest request)
    : LoadGenerator(std::move(targets), std::move(settings),
                    std::vector<v1::ForecastRequest>{std::move(request)}) {}

LoadGenerator::LoadGenerator(std::vector<Target> targets, CallSettings settings,
                             std::vector<v1::ForecastRequest> requests)
    : targets_(std::move(targets)), settings_(std::move(settings)), requests_(std::move(requests)) {
  if (targets_.empty()) throw std::invalid_argument("target: give at least one host:port");
  if (requests_.empty()) throw std::invalid_argument("LoadGenerator needs a request");
}

LoadGenerator::~LoadGenerator() = default;

StageRecord LoadGenerator::run(const LoadStage& stage,
                               const std::function<void(const LoadProgress&)>& on_progress,
                               std::chrono::milliseconds progress_interval) {
  if (!stage.open_loop && stage.concurrency < 1) {
    throw std::invalid_argument("concurrency: must be >= 1");
  }
  if (stage.requests <= 0 && !(stage.duration_seconds > 0)) {
    throw std::invalid_argument("duration: must be > 0 seconds when no request count is given");
  }
  if (stop_requested()) {
    StageRecord skipped;
    skipped.stage = stage;
    skipped.stopped_early = true;
    for (const auto& target : targets_) skipped.per_target[target.name];
    return skipped;
  }
  if (!connected_) connect_all();
  Run run(*this, stage);
  return run.execute(on_progress, progress_interval);
}

void LoadGenerator::connect_all() {
  connected_ = true;
  const auto deadline = std::chrono::system_clock::now() + settings_.timeout;
  for (const auto& target : targets_) target.channel->GetState(/*try_to_connect=*/true);
  // Until each channel has connected or failed its first attempt (a target that is down
  // fails at once on a refused port; waiting for READY would wait the whole timeout).
  for (const auto& target : targets_) {
    grpc_connectivity_state state = target.channel->GetState(/*try_to_connect=*/true);
    while (state != GRPC_CHANNEL_READY && state != GRPC_CHANNEL_TRANSIENT_FAILURE &&
           !stop_requested()) {
      if (!target.channel->WaitForStateChange(state, deadline)) break;
      state = target.channel->GetState(/*try_to_connect=*/true);
    }
  }
}

v1::ForecastRequest synthetic_forecast_request(int variables, int points, bool attention,
                                               bool raw, uint64_t seed) {
  std::mt19937_64 random(seed);
  std::normal_distribution<float> step(0.0f, 1.0f);
  TensorData series;
  series.shape = {variables, points};
  for (int v = 0; v < variables; ++v) {
    float level = 0;
    for (int t = 0; t < points; ++t) series.values.push_back(level += step(random));
  }
  ForecastOptions options;
  options.raw_tensors = raw;
  options.attention.enabled = attention;  // heads averaged: the cheaper, common choice
  return build_forecast_request(series, {}, {}, options);
}

}  // namespace tsserve::client
