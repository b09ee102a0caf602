// tsserve-client observe: feeds a CSV to a live series point by point, as a meter would.
// The rows before --start go first (the history a forecast needs), in calls of at most
// seq_len + pred_len rows, the most one Observe call may carry; then each
// row is one Observe call with `forecast` set, so every row is flagged against the
// forecast made one row before it. Prints each anomaly (outside the highest level's
// interval) and a summary; --out writes every point's flags (JSON lines) for an offline
// evaluation (tests/live/detection_eval.py).

#include <algorithm>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "connection_flags.h"
#include "exit_codes.h"
#include "observe_walk.h"
#include "tsserve/client/forecast_call.h"
#include "tsserve/client/key_routing.h"
#include "tsserve/csv/row_time.h"

namespace tsserve::client::cli {
namespace {

// Rows [first, last) of `table` as one Observe call for `flags.series_key`.
v1::ObserveRequest rows_request(const csv::CsvWindow& table, const std::vector<int64_t>& times,
                                std::size_t first, std::size_t last, const ObserveWalk& flags) {
  v1::ObserveRequest request;
  request.set_series_key(flags.series_key);
  request.set_model(flags.model);
  for (const std::string& name : table.columns) request.add_variable_names(name);
  for (std::size_t row = first; row < last; ++row) {
    request.add_timestamps(times[row]);
    for (const auto& column : table.values) request.add_values(column[row]);
  }
  for (const double level : flags.intervals) request.add_interval_levels(level);
  request.set_forecast(true);
  return request;
}

nlohmann::json point_json(const v1::ObservedPoint& point, const std::string& name) {
  nlohmann::json line = {{"timestamp", point.timestamp()},
                         {"variable", name},
                         {"value", point.value()},
                         {"scored", point.scored()}};
  if (!point.scored()) return line;
  line["forecast"] = point.forecast();
  line["step"] = point.step();
  line["score"] = point.score();
  line["anomaly"] = point.anomaly();
  for (const v1::IntervalFlag& interval : point.intervals()) {
    line["intervals"].push_back({{"level", interval.level()},
                                 {"lower", interval.lower()},
                                 {"upper", interval.upper()},
                                 {"outside", interval.outside()}});
  }
  return line;
}

}  // namespace

int run_observe_walk(const ObserveWalk& flags) {
  // A key's window lives on one server: with several targets, the key picks its own.
  const std::vector<std::string> targets = resolve_targets(flags.connection);
  const std::string target = target_for_key(flags.series_key, targets);
  if (targets.size() > 1)
    std::cout << "observe: key " << flags.series_key << " on " << target << "\n";
  TsserveClient client(make_channel(channel_options(flags.connection, target)),
                       call_settings(flags.connection));
  v1::ModelInfo info;
  grpc::Status status = client.model_info(flags.model, &info);
  if (!status.ok()) return report_call_failure("GetModelInfo", status, client, target);
  const auto seq_len = static_cast<std::size_t>(info.seq_len());
  const std::size_t most_rows = seq_len + static_cast<std::size_t>(info.pred_len());

  CsvSelection selection;
  selection.columns = flags.columns;
  const csv::CsvWindow table = read_csv_window(flags.csv, selection);
  const auto times = csv::parse_row_times(table.row_labels);
  if (!times) {
    throw std::invalid_argument(
        "csv: the first column must hold increasing row times "
        "(e.g. 2016-07-01 00:00:00): points are appended by time");
  }
  const std::size_t rows = flags.end == 0 ? times->size() : std::min(flags.end, times->size());
  const std::size_t start = flags.start == 0 ? seq_len : flags.start;
  if (start < 1 || start > rows) {
    throw std::invalid_argument("start: row " + std::to_string(start) + " is outside the " +
                                std::to_string(rows) + " rows sent");
  }
  std::ofstream out;
  if (!flags.out.empty()) {
    out.open(flags.out);
    if (!out) throw std::invalid_argument("out: cannot write '" + flags.out + "'");
  }

  int64_t calls = 0, points = 0, scored = 0, anomalies = 0;
  std::size_t first = 0;
  for (;;) {
    const std::size_t last = first < start ? std::min(start, first + most_rows) : first + 1;
    v1::ObserveResponse response;
    status = client.observe(rows_request(table, *times, first, last, flags), &response);
    if (!status.ok()) return report_call_failure("Observe", status, client, target);
    ++calls;
    const std::size_t variables = table.columns.size();
    for (int i = 0; i < response.points_size(); ++i) {
      const v1::ObservedPoint& point = response.points(i);
      const std::string& name = table.columns[static_cast<std::size_t>(point.variable())];
      ++points;
      scored += point.scored() ? 1 : 0;
      if (out.is_open()) out << point_json(point, name).dump() << "\n";
      if (!point.anomaly()) continue;
      ++anomalies;
      if (flags.quiet) continue;
      const v1::IntervalFlag& widest = point.intervals(point.intervals_size() - 1);
      std::cout << table.row_labels[first + static_cast<std::size_t>(i) / variables] << " " << name
                << " value " << point.value() << " forecast " << point.forecast() << " outside ["
                << widest.lower() << ", " << widest.upper() << "] at " << widest.level()
                << " (score " << point.score() << ")\n";
    }
    first = last;
    if (last >= rows) break;
  }
  std::cout << "observe: " << calls << " Observe calls, " << points << " points, " << scored
            << " scored against a kept forecast, " << anomalies << " anomalies\n";
  return kExitOk;
}

CommandRunner add_observe_command(CLI::App& app) {
  auto* command = app.add_subcommand(
      "observe",
      "feed a CSV to a live series point by point (Observe): each row is flagged "
      "against the forecast made one row before it");
  auto flags = std::make_shared<ObserveWalk>();
  add_connection_flags(*command, flags->connection, 30000);  // several targets: by key
  command->add_option("csv", flags->csv, "CSV file with a header row and a time column first")
      ->required()
      ->check(CLI::ExistingFile);
  command->add_option("--series-key", flags->series_key, "the live series' key")->required();
  command
      ->add_option("-c,--columns", flags->columns,
                   "columns to send, by header name (default: every numeric column)")
      ->delimiter(',');
  command->add_option("--model", flags->model, "model name (default: the server's only model)");
  command->add_option("--start", flags->start,
                      "first row sent alone (0-based data row; the rows before it go in the "
                      "first call as history; default: seq_len)");
  command->add_option("--end", flags->end, "rows from here on are not sent (0: all)");
  command
      ->add_option("--intervals", flags->intervals,
                   "levels of the forecasts' intervals (default: every calibrated level)")
      ->delimiter(',');
  command->add_option("-o,--out", flags->out,
                      "write every point's flags to this file (JSON lines)");
  command->add_flag("-q,--quiet", flags->quiet, "print the summary only");
  return [flags] { return run_observe_walk(*flags); };
}

}  // namespace tsserve::client::cli
