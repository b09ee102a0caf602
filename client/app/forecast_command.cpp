// tsserve-client forecast: the last T rows of a CSV -> Forecast -> a table, CSV or JSON,
// and optionally a plot and attention heatmaps.

#include <fstream>
#include <iostream>
#include <sstream>

#include "commands.h"
#include "connection_flags.h"
#include "exit_codes.h"
#include "forecast_pictures.h"
#include "tsserve/client/forecast_output.h"
#include "tsserve/csv/row_time.h"

namespace tsserve::client::cli {
namespace {

struct ForecastFlags {
  ConnectionFlags connection;
  std::string csv;
  std::vector<std::string> columns;
  int points = 0;
  std::string format = "table";
  std::string out;
  std::string plot;
  int plot_history = 0;
  std::string attention;
  std::string heads = "mean";
  std::vector<int> layers;
  std::vector<std::string> attention_variables;
  std::string scaler = "auto";
  std::string model;
  std::string model_version;
  bool raw = false;
  std::string request_id;
  std::vector<double> intervals;
};

v1::ScalerMode parse_scaler_mode(const std::string& text) {
  if (text == "auto") return v1::SCALER_MODE_UNSPECIFIED;
  if (text == "none") return v1::SCALER_MODE_NONE;
  if (text == "required") return v1::SCALER_MODE_REQUIRED;
  throw std::invalid_argument("scaler: '" + text + "' is not one of auto, none, required");
}

// Variable names -> indices into the window's columns.
std::vector<int> variable_indices(const std::vector<std::string>& names, const CsvWindow& window) {
  std::vector<int> indices;
  for (const auto& name : names) {
    auto it = std::find(window.columns.begin(), window.columns.end(), name);
    if (it == window.columns.end()) {
      throw std::invalid_argument("attention-variables: '" + name +
                                  "' is not one of the forecast's columns");
    }
    indices.push_back(static_cast<int>(it - window.columns.begin()));
  }
  return indices;
}

ForecastOptions request_options(const ForecastFlags& flags, const CsvWindow& window,
                                const v1::ModelInfo& info) {
  ForecastOptions options;
  options.model = flags.model;
  options.model_version = flags.model_version;
  options.scaler_mode = parse_scaler_mode(flags.scaler);
  options.raw_tensors = flags.raw;
  options.request_id = flags.request_id;
  options.interval_levels = flags.intervals;
  options.attention.enabled = !flags.attention.empty();
  options.attention.average_heads = flags.heads == "mean";
  options.attention.layers = flags.layers;
  options.attention.variables = variable_indices(flags.attention_variables, window);
  // An encoder-decoder's pictures show its decoder's self- and cross-attention too.
  options.attention.decoder = options.attention.enabled && info.d_layers() > 0;
  return options;
}

int run_forecast(const ForecastFlags& flags) {
  const OutputFormat format = parse_output_format(flags.format);
  if (!flags.out.empty()) output_format_for_path(flags.out);  // fail before calling
  TsserveClient client = make_client(flags.connection);
  const std::string target = resolve_targets(flags.connection).front();

  int points = flags.points;
  v1::ModelInfo info;  // the input length, and the heatmaps' token names
  if (points == 0 || !flags.attention.empty()) {
    const grpc::Status status = client.model_info(flags.model, &info, flags.model_version);
    if (!status.ok()) return report_call_failure("GetModelInfo", status, client, target);
    if (points == 0) points = info.seq_len();
  }
  CsvSelection selection;
  selection.columns = flags.columns;
  selection.rows = static_cast<size_t>(points);
  const CsvWindow window = read_csv_window(flags.csv, selection);

  v1::ForecastResponse response;
  const grpc::Status status = client.forecast(
      build_forecast_request(window, request_options(flags, window, info)), &response);
  if (!status.ok()) return report_call_failure("Forecast", status, client, target);
  ForecastResult result = read_forecast_response(response, window.columns);
  // The server's forecast times (it continued the rows' step), written like the rows.
  const std::vector<int64_t> times(response.forecast_timestamps().begin(),
                                   response.forecast_timestamps().end());
  if (!window.row_labels.empty()) {
    result.step_labels = csv::format_row_times(times, window.row_labels.back());
  }
  if (!response.forecast_timestamps_note().empty()) {
    std::cerr << "note: " << response.forecast_timestamps_note() << "\n";
  }

  write_forecast(std::cout, result, format);
  if (!flags.out.empty()) {
    std::ofstream file(flags.out);
    if (!file) throw std::invalid_argument("out: cannot write '" + flags.out + "'");
    write_forecast(file, result, output_format_for_path(flags.out));
  }
  if (!flags.plot.empty()) draw_forecast_plot(flags.plot, window, result, flags.plot_history);
  if (!flags.attention.empty()) draw_attention_heatmaps(flags.attention, result, info, window);
  return kExitOk;
}

}  // namespace

CommandRunner add_forecast_command(CLI::App& app) {
  auto* command = app.add_subcommand(
      "forecast", "forecast the rows after the last T rows of a CSV (header row; a date column is "
                  "allowed)");
  auto flags = std::make_shared<ForecastFlags>();
  add_connection_flags(*command, flags->connection, 30000);
  command->add_option("csv", flags->csv, "CSV file with a header row")->required()
      ->check(CLI::ExistingFile);
  command->add_option("-c,--columns", flags->columns,
                      "columns to forecast, by header name (default: every numeric column)")
      ->delimiter(',');
  command->add_option("--points", flags->points,
                      "rows to send (default: the model's seq_len, from GetModelInfo)")
      ->check(CLI::PositiveNumber);
  command->add_option("-f,--format", flags->format, "stdout format: table, csv or json")
      ->check(CLI::IsMember({"table", "csv", "json"}))
      ->capture_default_str();
  command->add_option("-o,--out", flags->out, "also write the forecast to a .csv or .json file");
  command->add_option("--plot", flags->plot, "draw history and forecast per variable to a PNG");
  command->add_option("--plot-history", flags->plot_history,
                      "history points drawn before the forecast (default: all sent)")
      ->check(CLI::NonNegativeNumber);
  command->add_option("--attention", flags->attention,
                      "ask for attention maps and draw them as heatmaps to a PNG");
  command->add_option("--heads", flags->heads,
                      "attention heads: mean (averaged, one map per layer and variable) or "
                      "each (one map per head)")
      ->check(CLI::IsMember({"mean", "each"}))
      ->capture_default_str();
  command->add_option("--layers", flags->layers, "attention layers to return (default: all)")
      ->delimiter(',');
  command->add_option("--attention-variables", flags->attention_variables,
                      "columns whose attention to return (default: all)")
      ->delimiter(',');
  command->add_option("--scaler", flags->scaler,
                      "server-side dataset scaler: auto (by column name), none, required")
      ->check(CLI::IsMember({"auto", "none", "required"}))
      ->capture_default_str();
  command->add_option("--model", flags->model, "model name (default: the server's only model)");
  command->add_option("--intervals", flags->intervals,
                      "prediction intervals at these calibrated levels, e.g. 0.8,0.95: printed "
                      "beside each variable and shaded in --plot")
      ->delimiter(',');
  command->add_option("--model-version", flags->model_version,
                      "model version (default: the newest ready one)");
  command->add_flag("--raw", flags->raw, "send and receive tensors as raw little-endian bytes");
  command->add_option("--request-id", flags->request_id, "id echoed by the server and in its logs");
  return [flags] { return run_forecast(*flags); };
}

}  // namespace tsserve::client::cli
