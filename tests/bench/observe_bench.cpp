// observe_bench: what a live series costs against resending the whole window. One run on
// one server, the same keys and concurrency for every phase:
//
//   setup     each of --keys keys gets --history points (seq_len) in one Observe call
//   observe   one new point per call (no forecast): appended, scored and flagged
//   forecast  one new point per call with forecast: true (the next forecast, through the
//             batcher, kept under the key)
//   window    what a caller without Observe sends for the same: ReportActuals of the new
//             point (scoring its kept forecasts, as Observe does), then a Forecast call
//             carrying the whole window ([seq_len, N] and its timestamps) with a series key
//             and the same interval levels (every calibrated one, Observe's default); the
//             two calls count as one step
//
// --concurrency threads, each with its own keys (a key's points must arrive in order, so
// one key is never in flight twice) and a blocking stub, call in a closed loop for
// --seconds per phase. Per phase: calls/s, points/s (new time points x N), keys/s and the
// latency p50/p99. After the setup, the store's accounted bytes per key (from /metrics,
// --metrics-port) and, with --server-pid, the server's resident memory per key (the growth
// of VmRSS over the setup). Per phase with --json, CPU microseconds per call: the server's
// (--server-pid), a shared store's (--store-pid: redis-server) and this client's, so that a
// ratio between two runs on the same cores can be read as where the CPU went. --json prints
// one JSON object instead of the table.
#include <grpcpp/grpcpp.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "child_process.h"
#include "tsserve/v1/forecast_service.grpc.pb.h"

namespace {

using Clock = std::chrono::steady_clock;
namespace v1 = tsserve::v1;

struct Options {
  std::string target;
  int metrics_port = 0;
  int server_pid = 0;
  int store_pid = 0;  // a shared store's process (redis-server), for its CPU per call
  int keys = 64;
  int concurrency = 8;
  int variables = 7;
  int history = 336;
  double seconds = 5;
  bool json = false;
  std::vector<double> levels;  // the model's calibrated levels (GetModelInfo)
  std::vector<std::string> phases{"observe", "forecast", "window"};
};

constexpr int64_t kStart = 1'600'000'000;
constexpr int64_t kStep = 3600;

// Each key's series: a seeded random walk per variable, extended as it is sent.
class KeySeries {
 public:
  KeySeries(int variables, uint64_t seed) : random_(seed), level_(variables, 10.0) {}
  std::vector<double> next() {
    for (double& level : level_) level += step_(random_);
    return level_;
  }
  int64_t points = 0;                       // sent so far
  std::vector<std::vector<double>> window;  // the last seq_len points, for `window`

 private:
  std::mt19937_64 random_;
  std::normal_distribution<double> step_{0.0, 0.3};
  std::vector<double> level_;
};

struct Phase {
  std::string name;
  int64_t calls = 0;
  int64_t errors = 0;
  double seconds = 0;
  int64_t points = 0;  // new time points x N
  std::vector<double> latencies;
  // CPU seconds over the phase (0 when not measured): the server, the store, this client.
  double server_cpu = 0, store_cpu = 0, client_cpu = 0;
};

// User + system CPU seconds of process `pid`, its waited-for children included (Redis'
// AOF rewrites run in a child); 0 when unreadable.
double process_cpu_seconds(int pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');
  if (pid <= 0 || close == std::string::npos) return 0;
  std::vector<std::string> fields;
  std::string field;
  for (const char c : text.substr(close + 2)) {
    if (c == ' ') {
      fields.push_back(field);
      field.clear();
    } else {
      field += c;
    }
  }
  if (fields.size() < 15) return 0;
  double ticks = 0;
  for (const int i : {11, 12, 13, 14}) ticks += std::stod(fields[static_cast<size_t>(i)]);
  return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// This process's own user + system CPU seconds.
double own_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](const timeval& t) { return t.tv_sec + 1e-6 * t.tv_usec; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[static_cast<size_t>(std::min<double>(values.size() - 1, p * values.size()))];
}

int64_t resident_kib(int pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmRSS:", 0) == 0) return std::atoll(line.c_str() + 6);
  }
  return 0;
}

// Keys of this run alone, so runs against one server never meet each other's windows.
std::string key_name(int k) {
  static const std::string run = std::to_string(::getpid()) + "-" +
                                 std::to_string(Clock::now().time_since_epoch().count() % 1000000);
  return "bench-" + run + "-" + std::to_string(k);
}

// The next point of key k as an Observe request (and into its window).
v1::ObserveRequest next_point(KeySeries& series, int k, int history, bool forecast) {
  v1::ObserveRequest request;
  request.set_series_key(key_name(k));
  request.add_timestamps(kStart + series.points * kStep);
  const std::vector<double> values = series.next();
  for (double value : values) request.add_values(value);
  series.window.push_back(values);
  if (static_cast<int>(series.window.size()) > history) series.window.erase(series.window.begin());
  ++series.points;
  request.set_forecast(forecast);
  return request;
}

// The new point of key k as a caller keeping its own history reports it (ReportActuals,
// scoring the forecasts kept for it, as Observe does), after adding it to its window.
v1::ReportActualsRequest window_report(KeySeries& series, int k, int history) {
  const v1::ObserveRequest point = next_point(series, k, history, false);
  v1::ReportActualsRequest report;
  report.set_series_key(key_name(k) + "-window");
  for (int n = 0; n < point.values_size(); ++n) report.add_variable_names(std::to_string(n));
  report.add_timestamps(point.timestamps(0));
  for (double value : point.values()) report.add_values(value);
  return report;
}

// Forecast from key k's whole window, as a caller keeping its own history sends it.
v1::ForecastRequest window_request(KeySeries& series, int k, int history,
                                   const std::vector<double>& levels) {
  v1::ForecastRequest request;
  request.set_layout(v1::SERIES_LAYOUT_TIME_BY_VARIABLES);
  const auto variables = static_cast<int64_t>(series.window.front().size());
  request.mutable_series()->add_shape(history);
  request.mutable_series()->add_shape(variables);
  for (int t = 0; t < history; ++t) {
    for (double value : series.window[static_cast<size_t>(t)]) {
      request.mutable_series()->add_values(static_cast<float>(value));
    }
    request.add_timestamps(kStart + (series.points - history + t) * kStep);
  }
  request.set_series_key(key_name(k) + "-window");
  for (double level : levels) request.add_interval_levels(level);
  return request;
}

Phase run_phase(const Options& options, v1::ForecastService::Stub& stub,
                std::vector<KeySeries>& keys, const std::string& name) {
  Phase phase;
  phase.name = name;
  std::vector<Phase> per_thread(static_cast<size_t>(options.concurrency));
  const double server_before = process_cpu_seconds(options.server_pid);
  const double store_before = process_cpu_seconds(options.store_pid);
  const double client_before = own_cpu_seconds();
  const auto until = Clock::now() + std::chrono::duration<double>(options.seconds);
  const auto started = Clock::now();
  std::vector<std::thread> threads;
  for (int w = 0; w < options.concurrency; ++w) {
    threads.emplace_back([&, w] {
      Phase& mine = per_thread[static_cast<size_t>(w)];
      for (int turn = 0; Clock::now() < until; ++turn) {
        // Thread w owns keys w, w + C, w + 2C, ...
        const int owned = (options.keys - w + options.concurrency - 1) / options.concurrency;
        const int k = w + (turn % owned) * options.concurrency;
        KeySeries& series = keys[static_cast<size_t>(k)];
        grpc::ClientContext context;
        const auto sent = Clock::now();
        grpc::Status status;
        if (name == "window") {
          v1::ReportActualsResponse reported;
          status =
              stub.ReportActuals(&context, window_report(series, k, options.history), &reported);
          grpc::ClientContext forecast_context;
          v1::ForecastResponse response;
          if (status.ok())
            status = stub.Forecast(&forecast_context,
                                   window_request(series, k, options.history, options.levels),
                                   &response);
        } else {
          v1::ObserveResponse response;
          status = stub.Observe(
              &context, next_point(series, k, options.history, name == "forecast"), &response);
          if (status.ok() && name == "forecast" && response.forecast_code() != 0) {
            status = grpc::Status(grpc::StatusCode::INTERNAL, response.forecast_message());
          }
        }
        const double took = std::chrono::duration<double>(Clock::now() - sent).count();
        if (!status.ok()) {
          ++mine.errors;
          if (mine.errors == 1)
            std::fprintf(stderr, "%s: %s\n", name.c_str(), status.error_message().c_str());
          continue;
        }
        ++mine.calls;
        mine.points += options.variables;
        mine.latencies.push_back(took);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  phase.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  if (options.server_pid) phase.server_cpu = process_cpu_seconds(options.server_pid) - server_before;
  if (options.store_pid) phase.store_cpu = process_cpu_seconds(options.store_pid) - store_before;
  phase.client_cpu = own_cpu_seconds() - client_before;
  for (const Phase& mine : per_thread) {
    phase.calls += mine.calls;
    phase.errors += mine.errors;
    phase.points += mine.points;
    phase.latencies.insert(phase.latencies.end(), mine.latencies.begin(), mine.latencies.end());
  }
  return phase;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    auto value = [&] {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", flag.c_str());
        std::exit(64);
      }
      return std::string(argv[++i]);
    };
    if (flag == "--target")
      o.target = value();
    else if (flag == "--metrics-port")
      o.metrics_port = std::stoi(value());
    else if (flag == "--server-pid")
      o.server_pid = std::stoi(value());
    else if (flag == "--store-pid")
      o.store_pid = std::stoi(value());
    else if (flag == "--keys")
      o.keys = std::stoi(value());
    else if (flag == "--concurrency")
      o.concurrency = std::stoi(value());
    else if (flag == "--history")
      o.history = std::stoi(value());
    else if (flag == "--seconds")
      o.seconds = std::stod(value());
    else if (flag == "--json")
      o.json = true;
    else if (flag == "--phases") {
      o.phases.clear();
      const std::string list = value();
      for (size_t at = 0; at <= list.size();) {
        const size_t comma = std::min(list.find(',', at), list.size());
        o.phases.push_back(list.substr(at, comma - at));
        at = comma + 1;
      }
    } else {
      std::fprintf(stderr, "unknown option %s\n", flag.c_str());
      std::exit(64);
    }
  }
  if (o.target.empty() || o.keys < o.concurrency || o.concurrency < 1) {
    std::fprintf(stderr,
                 "usage: observe_bench --target HOST:PORT [--metrics-port P] "
                 "[--server-pid PID] [--store-pid PID] [--keys K >= C] [--concurrency C] [--seconds S] "
                 "[--history T] [--phases observe,forecast,window] [--json]\n");
    std::exit(64);
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  Options options = parse(argc, argv);
  auto stub = v1::ForecastService::NewStub(
      grpc::CreateChannel(options.target, grpc::InsecureChannelCredentials()));
  {
    grpc::ClientContext context;
    v1::GetModelInfoRequest request;
    v1::GetModelInfoResponse info;
    const grpc::Status status = stub->GetModelInfo(&context, request, &info);
    if (!status.ok()) {
      std::fprintf(stderr, "GetModelInfo: %s\n", status.error_message().c_str());
      return 1;
    }
    options.levels.assign(info.info().calibration_levels().begin(),
                          info.info().calibration_levels().end());
  }
  std::vector<KeySeries> keys;
  for (int k = 0; k < options.keys; ++k) keys.emplace_back(options.variables, 1000 + k);

  const int64_t rss_before = options.server_pid ? resident_kib(options.server_pid) : 0;
  for (int k = 0; k < options.keys; ++k) {
    v1::ObserveRequest request;
    request.set_series_key(key_name(k));
    KeySeries& series = keys[static_cast<size_t>(k)];
    for (int t = 0; t < options.history; ++t) {
      const v1::ObserveRequest point = next_point(series, k, options.history, false);
      request.add_timestamps(point.timestamps(0));
      for (double value : point.values()) request.add_values(value);
    }
    grpc::ClientContext context;
    v1::ObserveResponse response;
    const grpc::Status status = stub->Observe(&context, request, &response);
    if (!status.ok()) {
      std::fprintf(stderr, "setup of %s: %s\n", key_name(k).c_str(),
                   status.error_message().c_str());
      return 1;
    }
  }
  const int64_t rss_after = options.server_pid ? resident_kib(options.server_pid) : 0;
  double store_bytes = 0, store_keys = 0;
  if (options.metrics_port) {
    const std::string metrics = tsserve::testing::http_get(options.metrics_port, "/metrics");
    store_bytes = tsserve::testing::metric_total(metrics, "tsserve_series_store_bytes").value_or(-1);
    store_keys = tsserve::testing::metric_total(metrics, "tsserve_series_store_keys").value_or(-1);
  }

  std::vector<Phase> phases;
  // Always in this order: `window` sends the keys' next points elsewhere, so an Observe
  // after it would find a gap.
  for (const char* name : {"observe", "forecast", "window"}) {
    if (std::find(options.phases.begin(), options.phases.end(), name) != options.phases.end()) {
      phases.push_back(run_phase(options, *stub, keys, name));
    }
  }
  if (options.json) {
    std::printf(
        "{\"keys\": %d, \"concurrency\": %d, \"variables\": %d, \"history\": %d,"
        " \"store_bytes_per_key\": %.1f, \"rss_bytes_per_key\": %.1f, \"phases\": [",
        options.keys, options.concurrency, options.variables, options.history,
        store_keys > 0 ? store_bytes / store_keys : 0.0,
        options.server_pid ? 1024.0 * static_cast<double>(rss_after - rss_before) / options.keys
                           : 0.0);
    for (size_t i = 0; i < phases.size(); ++i) {
      const Phase& p = phases[i];
      std::printf(
          "%s{\"name\": \"%s\", \"calls\": %lld, \"errors\": %lld, \"seconds\": %.3f,"
          " \"calls_per_s\": %.1f, \"points_per_s\": %.1f, \"p50_ms\": %.4f,"
          " \"p99_ms\": %.4f, \"server_cpu_us_per_call\": %.1f,"
          " \"store_cpu_us_per_call\": %.1f, \"client_cpu_us_per_call\": %.1f}",
          i ? ", " : "", p.name.c_str(), static_cast<long long>(p.calls),
          static_cast<long long>(p.errors), p.seconds, p.calls / p.seconds, p.points / p.seconds,
          1e3 * percentile(p.latencies, 0.5), 1e3 * percentile(p.latencies, 0.99),
          p.calls ? 1e6 * p.server_cpu / p.calls : 0.0, p.calls ? 1e6 * p.store_cpu / p.calls : 0.0,
          p.calls ? 1e6 * p.client_cpu / p.calls : 0.0);
    }
    std::printf("]}\n");
    return 0;
  }
  std::printf("%d keys x %d variables, seq_len %d, concurrency %d, %.0f s per phase\n",
              options.keys, options.variables, options.history, options.concurrency,
              options.seconds);
  if (store_keys > 0)
    std::printf("store: %.0f bytes per key (accounted)\n", store_bytes / store_keys);
  if (options.server_pid) {
    std::printf("server RSS growth over the setup: %.0f bytes per key\n",
                1024.0 * static_cast<double>(rss_after - rss_before) / options.keys);
  }
  std::printf("%-9s %10s %12s %10s %10s %7s\n", "phase", "calls/s", "points/s", "p50 ms", "p99 ms",
              "errors");
  for (const Phase& p : phases) {
    std::printf("%-9s %10.1f %12.1f %10.3f %10.3f %7lld\n", p.name.c_str(), p.calls / p.seconds,
                p.points / p.seconds, 1e3 * percentile(p.latencies, 0.5),
                1e3 * percentile(p.latencies, 0.99), static_cast<long long>(p.errors));
  }
  return 0;
}
