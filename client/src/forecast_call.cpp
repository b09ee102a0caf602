#include "tsserve/client/forecast_call.h"

#include <stdexcept>

#include "tsserve/csv/row_time.h"

namespace tsserve::client {

v1::ForecastRequest build_forecast_request(const TensorData& series,
                                           const std::vector<std::string>& variable_names,
                                           const std::vector<int64_t>& timestamps,
                                           const ForecastOptions& options) {
  v1::ForecastRequest request;
  request.set_model(options.model);
  request.set_model_version(options.model_version);
  request.set_layout(v1::SERIES_LAYOUT_VARIABLES_BY_TIME);
  request.set_scaler_mode(options.scaler_mode);
  request.set_request_id(options.request_id);
  request.set_output_encoding(options.raw_tensors ? v1::TENSOR_ENCODING_RAW
                                                  : v1::TENSOR_ENCODING_VALUES);
  write_tensor(series, options.raw_tensors, request.mutable_series());
  for (const auto& name : variable_names) request.add_variable_names(name);
  for (int64_t time : timestamps) request.add_timestamps(time);
  for (double level : options.interval_levels) request.add_interval_levels(level);
  if (options.attention.enabled) {
    auto* attention = request.mutable_attention();
    attention->set_enabled(true);
    attention->set_average_heads(options.attention.average_heads);
    for (int layer : options.attention.layers) attention->add_layers(layer);
    for (int variable : options.attention.variables) attention->add_variables(variable);
    attention->set_decoder(options.attention.decoder);
  }
  return request;
}

v1::ForecastRequest build_forecast_request(const CsvWindow& window,
                                           const ForecastOptions& options) {
  TensorData series;
  const size_t points = window.values.empty() ? 0 : window.values.front().size();
  series.shape = {static_cast<int64_t>(window.values.size()), static_cast<int64_t>(points)};
  for (const auto& column : window.values) {
    for (double value : column) series.values.push_back(static_cast<float>(value));
  }
  const auto times = csv::parse_row_times(window.row_labels);
  return build_forecast_request(series, window.columns, times ? *times : std::vector<int64_t>{},
                                options);
}

namespace {

// A [N, F] response tensor as [variable][step].
std::vector<std::vector<double>> per_variable(const v1::Tensor& tensor, size_t variables,
                                              const std::string& field) {
  const TensorData data = read_tensor(tensor);
  if (data.shape.size() != 2 || data.dim(0) != static_cast<int64_t>(variables)) {
    throw std::runtime_error("response " + field + ": expected shape [" +
                             std::to_string(variables) + ", F]");
  }
  const auto steps = static_cast<size_t>(data.dim(1));
  std::vector<std::vector<double>> out;
  for (size_t v = 0; v < variables; ++v) {
    out.emplace_back(data.values.begin() + static_cast<long>(v * steps),
                     data.values.begin() + static_cast<long>((v + 1) * steps));
  }
  return out;
}

}  // namespace

ForecastResult read_forecast_response(const v1::ForecastResponse& response,
                                      const std::vector<std::string>& variables) {
  ForecastResult result;
  result.model_name = response.model_name();
  result.model_version = response.model_version();
  result.request_id = response.request_id();
  if (response.forecast_variables_size() == 0) {
    result.variables = variables;
    for (size_t v = 0; v < variables.size(); ++v) result.variable_columns.push_back(v);
  }
  for (int32_t index : response.forecast_variables()) {
    if (index < 0 || static_cast<size_t>(index) >= variables.size()) {
      throw std::runtime_error("response forecast_variables: " + std::to_string(index) +
                               " is not one of the request's " + std::to_string(variables.size()) +
                               " variables");
    }
    result.variables.push_back(variables[static_cast<size_t>(index)]);
    result.variable_columns.push_back(static_cast<size_t>(index));
  }
  const size_t rows = result.variables.size();
  result.timing = response.timing();
  result.scaler_applied = response.scaler_applied();
  result.input_points_used = response.input_points_used();

  result.forecast = per_variable(response.forecast(), rows, "forecast");
  for (int i = 0; i < response.intervals_size(); ++i) {
    const auto& interval = response.intervals(i);
    const std::string field = "intervals[" + std::to_string(i) + "]";
    result.intervals.push_back({interval.level(),
                                per_variable(interval.lower(), rows, field + ".lower"),
                                per_variable(interval.upper(), rows, field + ".upper")});
  }

  for (const auto& map : response.attention()) {
    const TensorData weights = read_tensor(map.weights());
    const size_t rank = map.heads_averaged() ? 2 : 3;
    if (weights.shape.size() != rank) {
      throw std::runtime_error("response attention weights: expected rank " +
                               std::to_string(rank));
    }
    const int heads = map.heads_averaged() ? 1 : static_cast<int>(weights.dim(0));
    const int queries = static_cast<int>(weights.dim(rank - 2));
    const int keys = static_cast<int>(weights.dim(rank - 1));
    const size_t cells = static_cast<size_t>(queries) * static_cast<size_t>(keys);
    for (int head = 0; head < heads; ++head) {
      AttentionPanelData panel{map.layer(), map.variable(), map.heads_averaged() ? -1 : head,
                               queries, keys, {}};
      const auto begin = weights.values.begin() + static_cast<long>(static_cast<size_t>(head) * cells);
      panel.weights.assign(begin, begin + static_cast<long>(cells));
      panel.token_names.assign(map.token_names().begin(), map.token_names().end());
      if (!map.stack().empty()) panel.stack = map.stack();
      panel.row_steps.assign(map.row_steps().begin(), map.row_steps().end());
      panel.column_steps.assign(map.column_steps().begin(), map.column_steps().end());
      result.attention.push_back(std::move(panel));
    }
  }
  return result;
}

}  // namespace tsserve::client
