#include "tsserve/client/bench_report.h"

#include <cmath>
#include <cstdio>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include "tsserve/client/latency_summary.h"

namespace tsserve::client {
namespace {

double positive_number(const std::string& text, const std::string& option) {
  size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || !(value > 0) || !std::isfinite(value)) {
    throw std::invalid_argument(option + ": '" + text + "' is not a positive number");
  }
  return value;
}

double mean(const std::vector<double>& values) {
  return values.empty() ? 0
                        : std::accumulate(values.begin(), values.end(), 0.0) /
                              static_cast<double>(values.size());
}

double throughput(const StageRecord& record) {
  return record.elapsed_seconds > 0 ? static_cast<double>(record.ok) / record.elapsed_seconds : 0;
}

nlohmann::ordered_json milliseconds_json(const LatencySummary& s) {
  return {{"mean", s.mean * 1e3}, {"p50", s.p50 * 1e3},   {"p90", s.p90 * 1e3},
          {"p99", s.p99 * 1e3},   {"p99.9", s.p999 * 1e3}, {"max", s.max * 1e3}};
}

std::string stage_label(const LoadStage& stage) {
  char text[64];
  if (stage.open_loop) {
    std::snprintf(text, sizeof text, "%s %g/s", stage.arrival == Arrival::kPoisson ? "poisson" : "rate",
                  stage.rate);
  } else {
    std::snprintf(text, sizeof text, "conc %d", stage.concurrency);
  }
  return text;
}

}  // namespace

std::vector<double> parse_sweep(const std::string& text, const std::string& option) {
  std::vector<double> values;
  const auto range = text.find("..");
  if (range != std::string::npos) {
    const double low = positive_number(text.substr(0, range), option);
    const double high = positive_number(text.substr(range + 2), option);
    if (high < low) throw std::invalid_argument(option + ": '" + text + "' runs backwards");
    for (double v = low; v < high; v *= 2) values.push_back(v);
    values.push_back(high);
    return values;
  }
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) values.push_back(positive_number(item, option));
  if (values.empty()) throw std::invalid_argument(option + ": no value given");
  return values;
}

nlohmann::ordered_json stage_json(const StageRecord& record, int rows_per_request) {
  nlohmann::ordered_json json;
  json["mode"] = record.stage.open_loop ? "open" : "closed";
  if (record.stage.open_loop) {
    json["rate"] = record.stage.rate;
    json["arrival"] = record.stage.arrival == Arrival::kPoisson ? "poisson" : "constant";
  } else {
    json["concurrency"] = record.stage.concurrency;
  }
  json["elapsed_seconds"] = record.elapsed_seconds;
  json["requests_ok"] = record.ok;
  json["requests_failed"] = record.errors();
  json["errors"] = record.errors_by_code;
  auto& error_latency = json["error_latency_ms"] = nlohmann::ordered_json::object();
  for (const auto& [code, latencies] : record.error_latencies) {
    error_latency[code] = milliseconds_json(summarize_latencies(latencies));
  }
  json["error_examples"] = record.error_examples;
  json["not_sent"] = record.not_sent;
  json["throughput_rps"] = throughput(record);
  json["rows_per_second"] = throughput(record) * rows_per_request;
  json["latency_ms"] = milliseconds_json(summarize_latencies(record.latencies));
  json["server"] = {{"queue_ms", milliseconds_json(summarize_latencies(record.server_queue))},
                    {"compute_ms", milliseconds_json(summarize_latencies(record.server_compute))},
                    {"batch_rows_mean", mean(record.batch_rows)}};
  auto& targets = json["targets"] = nlohmann::ordered_json::object();
  for (const auto& [name, counts] : record.per_target) {
    targets[name] = {
        {"ok", counts.ok}, {"errors", counts.errors}, {"errors_by_code", counts.errors_by_code}};
  }
  json["stopped_early"] = record.stopped_early;
  return json;
}

nlohmann::ordered_json bench_json(const BenchDescription& description,
                                  const std::vector<StageRecord>& records) {
  nlohmann::ordered_json json;
  json["targets"] = description.targets;
  json["request"] = {{"method", "Forecast"},
                     {"variables", description.variables},
                     {"points", description.points},
                     {"attention", description.attention}};
  auto& stages = json["stages"] = nlohmann::ordered_json::array();
  for (const auto& record : records) stages.push_back(stage_json(record, description.variables));
  return json;
}

void write_bench_table(std::ostream& out, const BenchDescription& description,
                       const std::vector<StageRecord>& records) {
  out << "Forecast " << description.variables << " variables x " << description.points
      << " points" << (description.attention ? " with attention maps" : "") << " -> "
      << description.targets.size() << " target(s)\n";
  char line[256];
  std::snprintf(line, sizeof line, "%-14s %9s %9s %8s %8s %8s %8s %8s %8s %8s %9s %9s %7s\n",
                "load", "req/s", "rows/s", "p50 ms", "p90 ms", "p99 ms", "p99.9", "max ms", "ok",
                "errors", "queue p50", "comp p50", "batch");
  out << line;
  for (const auto& record : records) {
    const LatencySummary latency = summarize_latencies(record.latencies);
    const LatencySummary queue = summarize_latencies(record.server_queue);
    const LatencySummary compute = summarize_latencies(record.server_compute);
    std::snprintf(line, sizeof line,
                  "%-14s %9.1f %9.0f %8.2f %8.2f %8.2f %8.2f %8.2f %8lld %8lld %9.2f %9.2f %7.1f\n",
                  stage_label(record.stage).c_str(), throughput(record),
                  throughput(record) * description.variables, latency.p50 * 1e3, latency.p90 * 1e3,
                  latency.p99 * 1e3, latency.p999 * 1e3, latency.max * 1e3,
                  static_cast<long long>(record.ok), static_cast<long long>(record.errors()),
                  queue.p50 * 1e3, compute.p50 * 1e3, mean(record.batch_rows));
    out << line;
  }
  for (const auto& record : records) {
    for (const auto& [code, count] : record.errors_by_code) {
      const LatencySummary latency = summarize_latencies(record.error_latencies.at(code));
      std::snprintf(line, sizeof line, " (answered in p50 %.2f ms, p99 %.2f ms)", latency.p50 * 1e3,
                    latency.p99 * 1e3);
      out << "  " << stage_label(record.stage) << ": " << count << " x " << code << line << "\n";
    }
    if (record.stopped_early) out << "  " << stage_label(record.stage) << ": stopped early\n";
    if (record.not_sent > 0) {
      out << "  " << stage_label(record.stage) << ": " << record.not_sent
          << " sends skipped (client at max outstanding)\n";
    }
  }
  if (description.targets.size() > 1) {
    for (const auto& record : records) {
      out << "  " << stage_label(record.stage) << " per target:";
      for (const auto& [name, counts] : record.per_target) {
        out << " " << name << " ok " << counts.ok << " err " << counts.errors;
        for (const auto& [code, count] : counts.errors_by_code) out << " " << code << " " << count;
        out << ";";
      }
      out << "\n";
    }
  }
  out << "latency: client-side, from the scheduled send to the reply; queue/comp: server-side "
         "Timing (ms); batch: mean rows per batch\n";
}

}  // namespace tsserve::client
