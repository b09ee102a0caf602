// tsserve-client replay: walks a CSV forward as if its rows arrived one at a time. At each
// forecast origin it first reports the actuals that arrived since the last origin
// (ReportActuals), then forecasts the next F rows with a series key and the rows' times,
// so the server's accuracy metrics fill as they would in production. --out writes every
// forecast (JSON lines) for an offline check of those metrics.

#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "connection_flags.h"
#include "exit_codes.h"
#include "observe_walk.h"
#include "tsserve/client/forecast_call.h"
#include "tsserve/client/replay_plan.h"
#include "tsserve/csv/row_time.h"

namespace tsserve::client::cli {
namespace {

struct ReplayFlags {
  ConnectionFlags connection;
  std::string csv;
  std::vector<std::string> columns;
  ReplayRange range;
  std::string series_key = "replay";
  int keys = 1;
  std::string model;
  std::vector<double> intervals;  // asked at every origin, so reports score coverage too
  std::string out;
  bool observe = false;  // the live-series mode: every row through Observe instead
};

// --observe: the same rows of the same key through Observe (observe_walk.h), each row
// flagged against the forecast made one row before it.
int run_replay_observing(const ReplayFlags& flags) {
  if (flags.keys != 1 || flags.range.stride != 1 || flags.range.limit != 0) {
    throw std::invalid_argument(
        "observe: a live series takes every row of one key: --keys, --stride and --limit do "
        "not apply");
  }
  ObserveWalk walk;
  walk.connection = flags.connection;
  walk.csv = flags.csv;
  walk.columns = flags.columns;
  walk.series_key = flags.series_key;
  walk.model = flags.model;
  walk.start = flags.range.start;
  walk.end = flags.range.end;
  walk.intervals = flags.intervals;
  walk.out = flags.out;
  return run_observe_walk(walk);
}

struct Totals {
  int64_t forecasts = 0, stored = 0, reports = 0;
  v1::ReportActualsResponse points;  // summed over reports
};

void add_outcome(const v1::ReportActualsResponse& r, v1::ReportActualsResponse* sum) {
  sum->set_matched(sum->matched() + r.matched());
  sum->set_unmatched_unknown_key(sum->unmatched_unknown_key() + r.unmatched_unknown_key());
  sum->set_unmatched_not_finite(sum->unmatched_not_finite() + r.unmatched_not_finite());
  sum->set_unmatched_unknown_variable(sum->unmatched_unknown_variable() +
                                      r.unmatched_unknown_variable());
  sum->set_unmatched_no_forecast(sum->unmatched_no_forecast() + r.unmatched_no_forecast());
  sum->set_unmatched_already_reported(sum->unmatched_already_reported() +
                                      r.unmatched_already_reported());
}

// The forecast of rows [origin, origin + F) from rows [origin - T, origin).
v1::ForecastRequest origin_request(const csv::CsvWindow& table, const std::vector<int64_t>& times,
                                   size_t origin, size_t seq_len, const ReplayFlags& flags,
                                   const std::string& key) {
  TensorData series;
  series.shape = {static_cast<int64_t>(table.values.size()), static_cast<int64_t>(seq_len)};
  for (const auto& column : table.values) {
    for (size_t row = origin - seq_len; row < origin; ++row) {
      series.values.push_back(static_cast<float>(column[row]));
    }
  }
  ForecastOptions options;
  options.model = flags.model;
  options.interval_levels = flags.intervals;
  v1::ForecastRequest request = build_forecast_request(
      series, table.columns,
      std::vector<int64_t>(times.begin() + static_cast<long>(origin - seq_len),
                           times.begin() + static_cast<long>(origin)),
      options);
  request.set_series_key(key);
  return request;
}

int run_replay(const ReplayFlags& flags) {
  if (flags.observe) return run_replay_observing(flags);
  TsserveClient client = make_client(flags.connection);
  const std::string target = resolve_targets(flags.connection).front();
  v1::ModelInfo info;
  grpc::Status status = client.model_info(flags.model, &info);
  if (!status.ok()) return report_call_failure("GetModelInfo", status, client, target);
  const auto seq_len = static_cast<size_t>(info.seq_len());
  const auto pred_len = static_cast<size_t>(info.pred_len());

  CsvSelection selection;
  selection.columns = flags.columns;
  const csv::CsvWindow table = read_csv_window(flags.csv, selection);
  const auto times = csv::parse_row_times(table.row_labels);
  if (!times) {
    throw std::invalid_argument("csv: the first column must hold increasing row times "
                                "(e.g. 2016-07-01 00:00:00): actuals are matched by time");
  }
  const size_t rows = times->size();
  const std::vector<size_t> origins = replay_origins(rows, seq_len, pred_len, flags.range);
  std::ofstream out;
  if (!flags.out.empty()) {
    out.open(flags.out);
    if (!out) throw std::invalid_argument("out: cannot write '" + flags.out + "'");
  }

  Totals totals;
  std::map<std::string, size_t> last_origin;  // key -> its latest forecast's origin
  // Reports rows [from, to) to every key whose latest forecast reaches into them.
  auto report = [&](size_t from, size_t to) -> grpc::Status {
    for (const auto& [key, origin] : last_origin) {
      if (from >= to || origin + pred_len <= from) continue;
      v1::ReportActualsResponse response;
      const grpc::Status reported = client.report_actuals(
          build_actuals_request(table, *times, key, from, std::min(to, origin + pred_len)),
          &response);
      if (!reported.ok()) return reported;
      ++totals.reports;
      add_outcome(response, &totals.points);
    }
    return grpc::Status::OK;
  };

  size_t reported_until = origins.front();  // rows before the first origin are history only
  for (size_t i = 0; i < origins.size(); ++i) {
    const size_t origin = origins[i];
    status = report(reported_until, origin);
    if (!status.ok()) return report_call_failure("ReportActuals", status, client, target);
    reported_until = std::max(reported_until, origin);
    const std::string key =
        flags.keys == 1 ? flags.series_key
                        : flags.series_key + "-" + std::to_string(i % static_cast<size_t>(flags.keys));
    v1::ForecastResponse response;
    status = client.forecast(origin_request(table, *times, origin, seq_len, flags, key), &response);
    if (!status.ok()) return report_call_failure("Forecast", status, client, target);
    ++totals.forecasts;
    totals.stored += response.forecast_stored() ? 1 : 0;
    last_origin[key] = origin;
    if (out.is_open()) {
      const ForecastResult result = read_forecast_response(response, table.columns);
      nlohmann::json line = {{"series_key", key},
                             {"origin_row", origin},
                             {"variables", table.columns},
                             {"forecast_timestamps", response.forecast_timestamps()},
                             {"scaler_applied", response.scaler_applied()},
                             {"forecast", result.forecast}};
      for (const IntervalData& interval : result.intervals) {
        line["intervals"].push_back(
            {{"level", interval.level}, {"lower", interval.lower}, {"upper", interval.upper}});
      }
      out << line.dump() << "\n";
    }
  }
  status = report(reported_until, std::min(rows, origins.back() + pred_len));
  if (!status.ok()) return report_call_failure("ReportActuals", status, client, target);

  const v1::ReportActualsResponse& p = totals.points;
  std::cout << "replay: " << totals.forecasts << " forecasts (" << totals.stored
            << " kept by the server), " << totals.reports << " ReportActuals calls\n"
            << "matched (forecast, point) pairs: " << p.matched() << "\n"
            << "unmatched points: unknown_key " << p.unmatched_unknown_key() << ", not_finite "
            << p.unmatched_not_finite() << ", unknown_variable " << p.unmatched_unknown_variable()
            << ", no_forecast " << p.unmatched_no_forecast() << ", already_reported "
            << p.unmatched_already_reported() << "\n";
  return kExitOk;
}

}  // namespace

CommandRunner add_replay_command(CLI::App& app) {
  auto* command = app.add_subcommand(
      "replay", "walk a CSV forward: forecast at each origin with a series key, then report "
                "the actuals as they arrive (ReportActuals), filling the accuracy metrics");
  auto flags = std::make_shared<ReplayFlags>();
  add_connection_flags(*command, flags->connection, 30000);
  command->add_option("csv", flags->csv, "CSV file with a header row and a time column first")
      ->required()
      ->check(CLI::ExistingFile);
  command->add_option("-c,--columns", flags->columns,
                      "columns to forecast, by header name (default: every numeric column)")
      ->delimiter(',');
  command->add_option("--start", flags->range.start,
                      "first origin row (0-based data row forecast first; at least seq_len)");
  command->add_option("--end", flags->range.end, "rows from here on are never used (0: all)");
  command->add_option("--stride", flags->range.stride, "rows between forecast origins")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  command->add_option("--limit", flags->range.limit, "forecasts at most (0: no limit)");
  command->add_option("--series-key", flags->series_key, "series key (the prefix with --keys)")
      ->capture_default_str();
  command->add_option("--keys", flags->keys,
                      "spread the forecasts over this many keys, KEY-0 .. KEY-(n-1), round robin")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  command->add_option("--model", flags->model, "model name (default: the server's only model)");
  command->add_option("--intervals", flags->intervals,
                      "ask every forecast for prediction intervals at these calibrated levels "
                      "(e.g. 0.8,0.95), so the server also scores their coverage")
      ->delimiter(',');
  command->add_option("-o,--out", flags->out,
                      "write every forecast (with --observe: every point's flags) to this file "
                      "(JSON lines)");
  command->add_flag("--observe", flags->observe,
                    "live-series mode: send each row alone through Observe (the rows before "
                    "--start as history) and print the anomalies, as tsserve-client observe");
  return [flags] { return run_replay(*flags); };
}

}  // namespace tsserve::client::cli
