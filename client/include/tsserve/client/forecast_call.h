#pragma once
// A forecast request built from CSV columns, and its response read back as one forecast
// series per variable.

#include <string>
#include <vector>

#include "tsserve/client/tensor_data.h"
#include "tsserve/csv/csv_window.h"
#include "tsserve/v1/forecast_service.pb.h"

namespace tsserve::client {

// The CSV reader is csv/'s (tsserve_csv, shared with tsserve-forecast-csv); requests are
// built from its windows.
using csv::CsvError;
using csv::CsvSelection;
using csv::CsvWindow;
using csv::read_csv_window;

struct AttentionRequest {
  bool enabled = false;
  bool average_heads = true;
  std::vector<int> layers;     // empty: all
  std::vector<int> variables;  // indices into the request's variables; empty: all
  bool decoder = false;        // an encoder-decoder model's decoder maps too
};

struct ForecastOptions {
  std::string model;  // empty: the server's only model
  std::string model_version;  // empty: the newest ready version
  AttentionRequest attention;
  v1::ScalerMode scaler_mode = v1::SCALER_MODE_UNSPECIFIED;
  bool raw_tensors = false;  // send and receive raw little-endian bytes
  std::string request_id;
  std::vector<double> interval_levels;  // prediction intervals to ask for (calibrated levels)
};

// One request from a series tensor [N, T] (variables by time), with optional variable
// names (N or none) and timestamps (T Unix seconds or none).
v1::ForecastRequest build_forecast_request(const TensorData& series,
                                           const std::vector<std::string>& variable_names,
                                           const std::vector<int64_t>& timestamps,
                                           const ForecastOptions& options);

// One [N, T] request from CSV columns (N = the window's columns, named), with the rows'
// times when the window's labels are timestamps.
v1::ForecastRequest build_forecast_request(const CsvWindow& window, const ForecastOptions& options);

struct AttentionPanelData {
  int layer = 0;
  int variable = 0;
  int head = -1;  // -1: averaged over heads
  int queries = 0, keys = 0;
  std::vector<float> weights;  // row-major [queries, keys]
  // The tokens' names when the map carries them (an iTransformer's: variables, then
  // calendar features); empty otherwise.
  std::vector<std::string> token_names{};
  // "encoder", "decoder" or "cross" (AttentionMap.stack).
  std::string stack = "encoder";
  // Where the tokens are time steps (Informer, Transformer): each row's and column's step,
  // relative to the first forecast step; empty otherwise.
  std::vector<int> row_steps{};
  std::vector<int> column_steps{};
};

// One prediction interval: per variable, per step, like ForecastResult::forecast.
struct IntervalData {
  double level = 0;
  std::vector<std::vector<double>> lower;  // [variable][step]
  std::vector<std::vector<double>> upper;
};

struct ForecastResult {
  std::string model_name, model_version, request_id;
  // The forecast's variables: the request's N, or the K a model forecasts alone ("MS":
  // the target), with each one's index among the request's.
  std::vector<std::string> variables;
  std::vector<size_t> variable_columns;
  std::vector<std::vector<double>> forecast;   // [variable][step]
  std::vector<std::string> step_labels;        // F times, or empty
  v1::Timing timing;
  bool scaler_applied = false;
  int input_points_used = 0;
  std::vector<AttentionPanelData> attention;   // one per (layer, variable[, head])
  std::vector<IntervalData> intervals;         // in the request's level order
};

// Reads a [N, F] (or [K, F]: ForecastResponse.forecast_variables) response for the
// request's `variables` (intervals too); attention maps
// are split per head unless averaged. Throws std::runtime_error on a malformed response.
ForecastResult read_forecast_response(const v1::ForecastResponse& response,
                                      const std::vector<std::string>& variables);

}  // namespace tsserve::client
