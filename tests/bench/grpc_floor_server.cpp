// grpc_floor_server: the floor under tsserve's serving overhead. It serves
// tsserve.v1.ForecastService/Forecast with gRPC's callback API, exactly as tsserve does,
// but computes nothing: the answer is a forecast tensor of zeros of the size and layout
// tsserve would send (the request's variables x horizon). So `tsserve-client bench` against it
// measures what gRPC on loopback, protobuf and the client cost, which no server of this
// protocol can go below on this machine.
//
//   grpc_floor_server --answer inline|worker [--horizon 96] [--idle-spin-us 0]
//                     [--map-layers 3] [--map-tokens 42] [--workers 1] [--busy-us-per-row 0]
//
//   inline: Finish inside the handler, on gRPC's thread (no hand-off at all);
//   worker: the handler queues the call and one worker thread answers it: the hand-off
//           tsserve makes (gRPC thread -> batcher worker -> Finish), without the batcher.
//           --idle-spin-us: the worker polls for that long before it blocks, as tsserve's
//           batcher workers do (--idle-spin-us, server/batching/idle_spin.h).
//           --workers N: N such workers share the queue, as tsserve's --instances do.
//           --busy-us-per-row X: a worker takes every call queued (a batch, as tsserve's
//           batcher forms one), keeps its core busy for X us of its own CPU time per
//           series row in it (the model's cost, without the model), then answers them.
//           At saturation this is tsserve with its own code costing nothing: gRPC,
//           protobuf, the hand-off and the client beside the same compute per row.
// A request that asks for attention maps gets zero maps of the size tsserve would send:
// one [map-tokens, map-tokens] map per layer and variable (heads averaged; the bundled
// PatchTST's 3 layers of 42 patches), so the maps' own serving cost has a floor too.
// Prints "grpc_port=N" once listening on 127.0.0.1:0; serves until SIGTERM or SIGINT.
#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "server/batching/idle_spin.h"
#include "tsserve/v1/forecast_service.grpc.pb.h"

namespace {

using tsserve::v1::ForecastRequest;
using tsserve::v1::ForecastResponse;

struct AnswerShape {
  int horizon = 96;
  int map_layers = 3;
  int map_tokens = 42;
};

// The forecast tsserve would return, in the request's layout: [variables, horizon] for the
// default ([N, T] in), [horizon, variables] for TIME_BY_VARIABLES ([T, N] in); and the
// maps, when asked.
void fill_answer(const ForecastRequest& request, const AnswerShape& shape_of,
                 ForecastResponse* response) {
  const auto& shape = request.series().shape();
  const bool by_time = request.layout() == tsserve::v1::SERIES_LAYOUT_TIME_BY_VARIABLES;
  const long variables = shape.size() == 2 ? shape[by_time ? 1 : 0] : 1;
  auto* forecast = response->mutable_forecast();
  if (by_time) {
    forecast->add_shape(shape_of.horizon);
    forecast->add_shape(variables);
  } else {
    forecast->add_shape(variables);
    forecast->add_shape(shape_of.horizon);
  }
  forecast->mutable_values()->Resize(static_cast<int>(shape_of.horizon * variables), 0.0f);
  if (!request.attention().enabled()) return;
  for (int layer = 0; layer < shape_of.map_layers; ++layer) {
    for (long variable = 0; variable < variables; ++variable) {
      tsserve::v1::AttentionMap* map = response->add_attention();
      map->set_layer(layer);
      map->set_variable(static_cast<int>(variable));
      map->set_heads_averaged(true);
      map->mutable_weights()->add_shape(shape_of.map_tokens);
      map->mutable_weights()->add_shape(shape_of.map_tokens);
      map->mutable_weights()->mutable_values()->Resize(shape_of.map_tokens * shape_of.map_tokens,
                                                       0.0f);
    }
  }
}

struct PendingCall {
  grpc::ServerUnaryReactor* reactor;
  const ForecastRequest* request;
  ForecastResponse* response;
};

// Series rows of a request (its variables), as tsserve counts a batch's rows.
long rows_of(const ForecastRequest& request) {
  const auto& shape = request.series().shape();
  const bool by_time = request.layout() == tsserve::v1::SERIES_LAYOUT_TIME_BY_VARIABLES;
  return shape.size() == 2 ? shape[by_time ? 1 : 0] : 1;
}

// Keeps this thread busy until it has used `cpu` of its own CPU time since `from`.
double thread_cpu_us() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}
void burn_cpu_us(double cpu) {
  const double until = thread_cpu_us() + cpu;
  while (thread_cpu_us() < until) {
  }
}

// Workers answering queued calls in order, polling then woken by a condition variable as
// tsserve's batcher workers are.
class Worker {
 public:
  Worker(AnswerShape answer, std::chrono::microseconds idle_spin, int workers,
         double busy_us_per_row)
      : answer_(answer), idle_spin_(idle_spin), busy_us_per_row_(busy_us_per_row) {
    for (int i = 0; i < workers; ++i) threads_.emplace_back([this] { run(); });
  }
  ~Worker() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
      arrivals_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    for (std::thread& thread : threads_) thread.join();
  }
  void submit(PendingCall call) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      queue_.push_back(call);
      arrivals_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_one();
  }

 private:
  void run() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (true) {
      if (queue_.empty() && !stopping_) {
        const std::uint64_t seen = arrivals_.load(std::memory_order_acquire);
        lock.unlock();
        tsserve::server::spin_until_changed(arrivals_, seen, idle_spin_);
        lock.lock();
      }
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, nothing left
      std::deque<PendingCall> batch;
      if (busy_us_per_row_ > 0) {
        batch.swap(queue_);
      } else {
        batch.push_back(queue_.front());
        queue_.pop_front();
      }
      lock.unlock();
      long rows = 0;
      for (const PendingCall& call : batch) rows += rows_of(*call.request);
      if (busy_us_per_row_ > 0) burn_cpu_us(busy_us_per_row_ * static_cast<double>(rows));
      for (const PendingCall& call : batch) {
        fill_answer(*call.request, answer_, call.response);
        call.reactor->Finish(grpc::Status::OK);
      }
      lock.lock();
    }
  }

  const AnswerShape answer_;
  const std::chrono::microseconds idle_spin_;
  const double busy_us_per_row_;
  std::atomic<std::uint64_t> arrivals_{0};  // bumped under mutex_ by submit and stop
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<PendingCall> queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;  // last: start once the members above exist
};

class FloorService final : public tsserve::v1::ForecastService::CallbackService {
 public:
  FloorService(AnswerShape answer, Worker* worker) : answer_(answer), worker_(worker) {}

  grpc::ServerUnaryReactor* Forecast(grpc::CallbackServerContext* context,
                                     const ForecastRequest* request,
                                     ForecastResponse* response) override {
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    if (worker_ != nullptr) {
      worker_->submit({reactor, request, response});
    } else {
      fill_answer(*request, answer_, response);
      reactor->Finish(grpc::Status::OK);
    }
    return reactor;
  }

 private:
  const AnswerShape answer_;
  Worker* const worker_;
};

int usage() {
  std::fprintf(stderr,
               "usage: grpc_floor_server --answer inline|worker [--horizon N] [--idle-spin-us N]"
               " [--map-layers N] [--map-tokens N] [--workers N] [--busy-us-per-row X]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string answer;
  AnswerShape shape;
  int idle_spin_us = 0;
  int workers = 1;
  double busy_us_per_row = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--answer") == 0) {
      answer = argv[i + 1];
    } else if (std::strcmp(argv[i], "--horizon") == 0) {
      shape.horizon = std::atoi(argv[i + 1]);
    } else if (std::strcmp(argv[i], "--map-layers") == 0) {
      shape.map_layers = std::atoi(argv[i + 1]);
    } else if (std::strcmp(argv[i], "--map-tokens") == 0) {
      shape.map_tokens = std::atoi(argv[i + 1]);
    } else if (std::strcmp(argv[i], "--idle-spin-us") == 0) {
      idle_spin_us = std::atoi(argv[i + 1]);
    } else if (std::strcmp(argv[i], "--workers") == 0) {
      workers = std::atoi(argv[i + 1]);
    } else if (std::strcmp(argv[i], "--busy-us-per-row") == 0) {
      busy_us_per_row = std::atof(argv[i + 1]);
    } else {
      return usage();
    }
  }
  if ((answer != "inline" && answer != "worker") || shape.horizon <= 0 || idle_spin_us < 0 ||
      shape.map_layers < 0 || shape.map_tokens < 0 || workers < 1 || busy_us_per_row < 0 ||
      argc % 2 == 0) {
    return usage();
  }

  // Signals are taken synchronously by this thread (sigwait), so nothing runs in a handler.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);  // before any thread starts

  std::unique_ptr<Worker> worker;
  if (answer == "worker") {
    worker = std::make_unique<Worker>(shape, std::chrono::microseconds(idle_spin_us), workers,
                                      busy_us_per_row);
  }
  FloorService service(shape, worker.get());
  int port = 0;
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || port == 0) {
    std::fprintf(stderr, "grpc_floor_server: could not listen on 127.0.0.1:0\n");
    return 1;
  }
  std::printf("grpc_port=%d\n", port);
  std::fflush(stdout);

  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  server->Shutdown();
  return 0;
}
