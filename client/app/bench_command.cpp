// tsserve-client bench: a load generator for Forecast (closed-loop concurrency or
// open-loop rate, one value or a sweep), reporting throughput, latency percentiles,
// errors by status code and the server's queue/compute split.

#include <algorithm>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <iostream>

#include "commands.h"
#include "connection_flags.h"
#include "exit_codes.h"
#include "tsserve/client/bench_report.h"

namespace tsserve::client::cli {
namespace {

struct BenchFlags {
  ConnectionFlags connection;
  std::string concurrency = "8";
  std::string rate;
  std::string arrival = "constant";
  double warmup = 1;
  double duration = 10;
  int64_t requests = 0;
  std::string model;  // comma-separated: calls spread over the models in turn
  int variables = 7;
  int points = 0;
  bool attention = false;
  bool raw = false;
  bool json = false;
  int max_outstanding = 10000;
  uint64_t seed = 1;
};

std::function<void(const LoadProgress&)> progress_printer(const std::string& label,
                                                          const LoadStage& stage) {
  if (!isatty(STDERR_FILENO)) return {};
  return [label, stage](const LoadProgress& p) {
    const double total = p.warming_up ? stage.warmup_seconds : stage.duration_seconds;
    std::fprintf(stderr, "\r[%s] %s %5.1f/%.0f s  ok %lld  errors %lld  %8.1f req/s   ",
                 label.c_str(), p.warming_up ? "warm-up" : "measure", p.seconds, total,
                 static_cast<long long>(p.ok), static_cast<long long>(p.errors),
                 p.warming_up || p.seconds <= 0 ? 0.0 : static_cast<double>(p.ok) / p.seconds);
  };
}

// SIGINT/SIGTERM end the run early and still print what was measured (as wrk and ghz
// do); a second one kills as usual. The handler only stores atomics.
std::atomic<LoadGenerator*> running_generator{nullptr};

extern "C" void stop_running_bench(int signal_number) {
  if (LoadGenerator* generator = running_generator.load()) generator->stop();
  std::signal(signal_number, SIG_DFL);
}

class StopOnSignals {
 public:
  explicit StopOnSignals(LoadGenerator& generator) {
    running_generator.store(&generator);
    previous_int_ = std::signal(SIGINT, stop_running_bench);
    previous_term_ = std::signal(SIGTERM, stop_running_bench);
  }
  ~StopOnSignals() {
    std::signal(SIGINT, previous_int_);
    std::signal(SIGTERM, previous_term_);
    running_generator.store(nullptr);
  }
  StopOnSignals(const StopOnSignals&) = delete;
  StopOnSignals& operator=(const StopOnSignals&) = delete;

 private:
  void (*previous_int_)(int) = SIG_DFL;
  void (*previous_term_)(int) = SIG_DFL;
};

int run_bench(const BenchFlags& flags) {
  const auto targets = resolve_targets(flags.connection);
  const CallSettings settings = call_settings(flags.connection);
  std::vector<LoadGenerator::Target> channels;
  for (const auto& target : targets) {
    channels.push_back({target, make_channel(channel_options(flags.connection, target))});
  }

  // One request per model (--model a,b: calls take them in turn), each of its model's
  // input length, from the first target that answers (one may be down).
  std::vector<std::string> models;
  for (std::size_t start = 0; start <= flags.model.size();) {
    const std::size_t comma = std::min(flags.model.find(',', start), flags.model.size());
    models.push_back(flags.model.substr(start, comma - start));
    start = comma + 1;
  }
  std::vector<v1::ForecastRequest> requests;
  int first_points = 0;  // the first model's input length, for the report
  for (const std::string& model : models) {
    int points = flags.points;
    bool needs_timestamps = false;  // an iTransformer with calendar tokens
    for (size_t i = 0; points == 0; ++i) {
      TsserveClient client(channels[i].channel, settings);
      v1::ModelInfo info;
      const grpc::Status status = client.model_info(model, &info);
      if (status.ok()) {
        points = info.seq_len();
        needs_timestamps = info.timestamps_required() || info.calendar_features_size() > 0;
      } else if (i + 1 == channels.size()) {
        return report_call_failure("GetModelInfo", status, client, targets[i]);
      }
    }
    v1::ForecastRequest request =
        synthetic_forecast_request(flags.variables, points, flags.attention, flags.raw, flags.seed);
    request.set_model(model);
    // Hourly from ETTh1's first row (2016-07-01 00:00 UTC); PatchTST needs none, so its
    // requests stay as small as before.
    for (int t = 0; needs_timestamps && t < points; ++t)
      request.add_timestamps(1467331200 + 3600 * t);
    requests.push_back(std::move(request));
    if (first_points == 0) first_points = points;
  }

  LoadStage base;
  base.open_loop = !flags.rate.empty();
  base.arrival = parse_arrival(flags.arrival);
  base.warmup_seconds = flags.warmup;
  base.duration_seconds = flags.duration;
  base.requests = flags.requests;
  base.max_outstanding = flags.max_outstanding;
  base.seed = flags.seed;
  const auto sweep = base.open_loop ? parse_sweep(flags.rate, "rate")
                                    : parse_sweep(flags.concurrency, "concurrency");

  LoadGenerator generator(channels, settings, std::move(requests));
  std::vector<StageRecord> records;
  const StopOnSignals stop_on_signals(generator);
  for (double value : sweep) {
    if (generator.stop_requested()) break;
    LoadStage stage = base;
    if (stage.open_loop) {
      stage.rate = value;
    } else {
      stage.concurrency = static_cast<int>(value);
    }
    const std::string label = (stage.open_loop ? "rate " : "concurrency ") + std::to_string(
        static_cast<long long>(value));
    records.push_back(generator.run(stage, progress_printer(label, stage)));
    const StageRecord& record = records.back();
    std::fprintf(stderr, "%s[%s] done: ok %lld, errors %lld in %.1f s\n",
                 isatty(STDERR_FILENO) ? "\r" : "", label.c_str(),
                 static_cast<long long>(record.ok), static_cast<long long>(record.errors()),
                 record.elapsed_seconds);
  }

  const BenchDescription description{targets, flags.variables, first_points, flags.attention};
  if (flags.json) {
    std::cout << bench_json(description, records).dump(2) << "\n";
  } else {
    write_bench_table(std::cout, description, records);
  }
  return kExitOk;
}

}  // namespace

CommandRunner add_bench_command(CLI::App& app) {
  auto* command = app.add_subcommand(
      "bench", "load-test Forecast: closed-loop concurrency or open-loop rate, one value or a sweep");
  auto flags = std::make_shared<BenchFlags>();
  add_connection_flags(*command, flags->connection, 10000);
  command->add_option("-c,--concurrency", flags->concurrency,
                      "closed loop: calls in flight; a list (1,4,16) or a doubling range (1..128)")
      ->capture_default_str();
  command->add_option("-r,--rate", flags->rate,
                      "open loop instead: calls started per second; a list or range like "
                      "--concurrency")
      ->excludes(command->get_option("--concurrency"));
  command->add_option("--model", flags->model,
                      "model name, or several comma-separated (calls take them in turn); "
                      "default: the server's only model");
  command->add_option("--arrival", flags->arrival, "open loop: constant or poisson gaps")
      ->check(CLI::IsMember({"constant", "poisson"}))
      ->capture_default_str();
  command->add_option("--warmup-s", flags->warmup, "seconds of unrecorded warm-up per stage")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  command->add_option("-d,--duration-s", flags->duration, "seconds recorded per stage")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  command->add_option("-n,--requests", flags->requests,
                      "recorded calls per stage (instead of a duration)")
      ->check(CLI::PositiveNumber);
  command->add_option("--variables", flags->variables, "variables (series rows) per request")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  command->add_option("--points", flags->points,
                      "points per series (default: the model's seq_len)")
      ->check(CLI::PositiveNumber);
  command->add_flag("--attention", flags->attention, "ask for attention maps (heads averaged)");
  command->add_flag("--raw", flags->raw, "tensors as raw bytes instead of packed floats");
  command->add_flag("--json", flags->json, "print the results as JSON");
  command->add_option("--max-outstanding", flags->max_outstanding,
                      "open loop: most calls in flight before sends are skipped (and counted)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  command->add_option("--seed", flags->seed, "seed of the series and Poisson arrivals")
      ->capture_default_str();
  return [flags] { return run_bench(*flags); };
}

}  // namespace tsserve::client::cli
