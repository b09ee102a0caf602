// Fuzz target: a tsserve.v1 ForecastRequest through check_model_name and
// decode_forecast_request against the bundled model's shape and the default limits, and
// what they accept through encode_forecast_response.
//
// Input: byte 0 says how the rest becomes a request and which model it meets:
//   bit 0  0: the rest is a serialized ForecastRequest (what does not parse is skipped);
//          1: the rest drives the fields one by one (build_request), so that shapes
//             usually match their data and the deeper rules are reached;
//   bit 1  0: the model with its dataset scaler; 1: the same model without one.
// Invariants: a refusal is INVALID_ARGUMENT naming a field (FAILED_PRECONDITION only for
// SCALER_MODE_REQUIRED without a scaler); an acceptance obeys every rule of the proto, holds
// exactly the documented rows (request_checks.h) and attention selection, and encodes
// into a response whose every value sits where forecast_service.proto says. Extreme
// magnitudes: the accepted rows are within the normalisation's line, and a successful
// answer is always finite, even when the stand-in model output holds an extreme value
// (finite_answer_checks.h).

#include <algorithm>
#include <string>
#include <vector>

#include "bundled_model_shape.h"
#include "finite_answer_checks.h"
#include "fuzz_input.h"
#include "fuzz_target.h"
#include "request_builder.h"
#include "request_checks.h"
#include "response_checks.h"
#include "server/codec/common/model_selection.h"
#include "server/codec/common/request_id.h"
#include "server/codec/v1/forecast_request_decoder.h"
#include "server/codec/v1/forecast_response_encoder.h"
#include "v1_tensor_checks.h"

namespace tsserve::fuzz {
namespace {

v1::ForecastRequest build_request(FuzzInput& in) {
  v1::ForecastRequest request;
  request.set_model(in.pick<std::string>({"", "", "patchtst-etth1", "other"}));
  const int layout = in.pick<int>({0, 1, 2, 2, 1, 0, 3, -1});
  request.set_layout(static_cast<v1::SeriesLayout>(layout));
  const int64_t variables = dimension(in, 7);
  const int64_t points = dimension(in, in.coin() ? 336 : 336 + in.byte());
  std::vector<int64_t> shape = layout == 2 ? std::vector<int64_t>{points, variables}
                                           : std::vector<int64_t>{variables, points};
  if (in.byte() % 16 == 0) shape.resize(in.byte() % 4, 1);  // another rank
  v1::Tensor* series = request.mutable_series();
  series->mutable_shape()->Add(shape.begin(), shape.end());
  const std::vector<float> values = series_values(in, data_count(in, shape));
  const int encoding = in.byte() % 8;
  if (encoding < 4 || encoding == 7) series->set_raw_values(raw_bytes(values));
  if (encoding >= 4) series->mutable_values()->Add(values.begin(), values.end());
  if (encoding == 3 && !values.empty()) series->mutable_raw_values()->push_back('\0');

  for (int64_t n = repeat_count(in, variables, 64); n > 0; --n) {
    request.add_variable_names(variable_name(in, request.variable_names_size()));
  }
  const int64_t timestamps = repeat_count(in, points, 4096);
  const auto start = static_cast<int64_t>(in.bits(4));
  const int64_t step = in.pick<int64_t>({3600, 1, 3600, 0, -1});
  for (int64_t t = 0; t < timestamps; ++t) request.add_timestamps(start + t * step);
  if (timestamps > 0 && in.byte() % 4 == 0) {
    request.set_timestamps(static_cast<int>(in.below(static_cast<uint64_t>(timestamps))),
                           static_cast<int64_t>(in.bits(8)));
  }
  request.set_scaler_mode(static_cast<v1::ScalerMode>(in.pick<int>({0, 1, 2, 0, 3, -1})));

  v1::AttentionOptions* attention = request.mutable_attention();
  attention->set_enabled(in.coin());
  attention->set_average_heads(in.coin());
  for (int k = in.byte() % 5; k > 0; --k)
    attention->add_layers(in.pick<int32_t>({0, 1, 2, 3, -1, 2}));
  const int64_t n = std::clamp<int64_t>(variables, 0, 1 << 20);  // any dimension()
  for (int k = in.byte() % 5; k > 0; --k) {
    attention->add_variables(
        static_cast<int32_t>(in.pick<int64_t>({0, 1, 6, n - 1, n, -1, 1 << 30})));
  }
  request.set_request_id(request_id(in));
  request.set_output_encoding(static_cast<v1::TensorEncoding>(in.pick<int>({0, 1, 2, 3, -2})));
  attention->set_decoder(in.byte() % 8 == 7);  // last: the older corpus reads as before
  return request;
}

SentSeries sent_series(const v1::ForecastRequest& request) {
  const v1::Tensor& series = request.series();
  FUZZ_CHECK(series.shape_size() == 2,
             "accepted a series of rank " + std::to_string(series.shape_size()));
  FUZZ_CHECK(series.values_size() == 0 || series.raw_values().empty(),
             "accepted a series with both values and raw_values");
  SentSeries sent;
  sent.by_variable = request.layout() != v1::SERIES_LAYOUT_TIME_BY_VARIABLES;
  sent.variables = series.shape(sent.by_variable ? 0 : 1);
  sent.points = series.shape(sent.by_variable ? 1 : 0);
  sent.values = series.raw_values().empty()
                    ? std::vector<float>(series.values().begin(), series.values().end())
                    : floats_of(series.raw_values());
  FUZZ_CHECK(series.raw_values().size() % 4 == 0, "accepted a ragged raw_values");
  FUZZ_CHECK(sent.variables >= 1 && sent.variables <= server::RequestLimits{}.max_series_rows,
             "accepted N = " + std::to_string(sent.variables));
  FUZZ_CHECK(sent.points >= 336, "accepted T_in = " + std::to_string(sent.points));
  FUZZ_CHECK(static_cast<int64_t>(sent.values.size()) == sent.variables * sent.points,
             "accepted " + std::to_string(sent.values.size()) + " values for its shape");
  return sent;
}

void check_accepted(const v1::ForecastRequest& request, const server::ForecastInput& input,
                    const server::ModelShape& model) {
  FUZZ_CHECK(v1::SeriesLayout_IsValid(request.layout()), "accepted an unknown layout");
  FUZZ_CHECK(v1::ScalerMode_IsValid(request.scaler_mode()), "accepted an unknown scaler_mode");
  const int encoding = request.output_encoding();
  FUZZ_CHECK(encoding >= 0 && encoding <= 2, "accepted an unknown output_encoding");
  FUZZ_CHECK(input.raw_output == (encoding == v1::TENSOR_ENCODING_RAW), "raw_output");
  if (request.request_id().empty()) {
    FUZZ_CHECK(!input.request_id.empty(), "no request id was generated");
  } else {
    FUZZ_CHECK(input.request_id == request.request_id() &&
                   request.request_id().size() <= server::kMaxRequestIdBytes,
               "request_id \"" + input.request_id + "\"");
    for (char c : request.request_id()) FUZZ_CHECK(c >= 0x20 && c <= 0x7e, "request_id byte");
  }

  const SentSeries sent = sent_series(request);
  FUZZ_CHECK(input.variables_by_time == sent.by_variable, "variables_by_time");
  const auto& names = request.variable_names();
  FUZZ_CHECK(names.empty() || names.size() == sent.variables, "accepted a names count");
  for (int i = 0; i < names.size(); ++i) {
    for (int j = 0; j < i; ++j) FUZZ_CHECK(names.Get(i) != names.Get(j), "accepted a repeat");
  }
  const auto& timestamps = request.timestamps();
  FUZZ_CHECK(timestamps.empty() || timestamps.size() == sent.points, "accepted a stamps count");
  for (int i = 1; i < timestamps.size(); ++i) {
    FUZZ_CHECK(timestamps.Get(i) > timestamps.Get(i - 1), "accepted unordered timestamps");
  }
  const std::vector<int32_t> columns =
      expected_scaler_columns(request.scaler_mode(), names, sent.variables, model);
  FUZZ_CHECK(request.scaler_mode() != v1::SCALER_MODE_REQUIRED || !columns.empty(),
             "SCALER_MODE_REQUIRED accepted without the scaler applying");
  check_rows(input, sent, columns, model);
  check_within_normalisation_line(input, model);

  const v1::AttentionOptions& attention = request.attention();
  FUZZ_CHECK(input.attention.enabled == attention.enabled(), "attention.enabled");
  if (attention.enabled()) {
    FUZZ_CHECK(input.attention.average_heads == attention.average_heads(), "average_heads");
    check_indices(input.attention.layers, attention.layers(), model.e_layers, "layers");
    check_indices(input.attention.variables, attention.variables(), sent.variables, "variables");
  }
}

void check_response(server::ForecastInput& input, const server::ModelShape& model) {
  server::ForecastOutput output;
  output.forecast = numbered_forecast(input.series_rows, model.pred_len);
  bool fits = false;
  output.attention = marked_attention(input.attention, model.n_heads, model.patch_count, &fits);
  output.batch_rows = static_cast<int32_t>(input.series_rows);
  v1::ForecastResponse response;
  const server::Status status =
      server::encode_forecast_response(input, model, std::move(output), &response);
  FUZZ_CHECK(status.ok(), "encode_forecast_response: " + status.message());

  const int64_t n = input.series_rows;
  const std::vector<int64_t> shape = input.variables_by_time
                                         ? std::vector<int64_t>{n, model.pred_len}
                                         : std::vector<int64_t>{model.pred_len, n};
  check_forecast_values(response_floats(response.forecast(), shape, input.raw_output), input,
                        model);
  FUZZ_CHECK(response.model_name() == model.name && response.model_version() == model.version,
             "model name or version");
  FUZZ_CHECK(response.request_id() == input.request_id, "request_id not echoed");
  FUZZ_CHECK(response.input_points_used() == model.seq_len, "input_points_used");
  FUZZ_CHECK(response.scaler_applied() == input.scaler_applied, "scaler_applied");
  FUZZ_CHECK(response.timing().batch_rows() == n, "timing.batch_rows");
  if (fits) {
    check_attention_maps(response.attention(), input.attention, model.n_heads, model.patch_count,
                         input.raw_output);
  } else {
    FUZZ_CHECK(response.attention().empty(), "attention maps nobody computed");
  }
}

// A successful answer is always finite (finite_answer_checks.h).
void check_poisoned_response(const server::ForecastInput& input,
                             const server::ModelShape& model) {
  server::ForecastOutput output;
  output.forecast = numbered_forecast(input.series_rows, model.pred_len);
  const Poison poison = pick_poison(input.rows, output.forecast.size());
  output.forecast[poison.at] = poison.value;
  v1::ForecastResponse response;
  const server::Status status =
      server::encode_forecast_response(input, model, std::move(output), &response);
  const int64_t n = input.series_rows;
  const std::vector<int64_t> shape = input.variables_by_time
                                         ? std::vector<int64_t>{n, model.pred_len}
                                         : std::vector<int64_t>{model.pred_len, n};
  const std::vector<float> sent =
      status.ok() ? response_floats(response.forecast(), shape, input.raw_output)
                  : std::vector<float>();
  check_finite_answer(status, sendable_forecast_value(input, model, poison.at, poison.value), sent,
                      "forecast");
}

// What an encoder-decoder model's decoding promises: a refusal names a field; an accepted
// request carries exactly enc_in variables and timestamps, became one sample's rows, and
// its marks are [T + F, C] (4 hourly timeF columns) per sample, each in [-0.5, 0.5].
void check_informer_decoding(const v1::ForecastRequest& request, const server::Status& status,
                             const server::ForecastInput& input, const server::ModelShape& model) {
  if (!status.ok()) {
    check_refusal(
        status,
        {"request_id", "layout", "output_encoding", "series", "variable_names", "timestamps",
         "scaler_mode", "attention.layers", "attention.variables", "attention.decoder"},
        false);
    return;
  }
  FUZZ_CHECK(input.series_rows == model.enc_in,
             "accepted " + std::to_string(input.series_rows) + " variables for enc_in 7");
  FUZZ_CHECK(request.timestamps_size() > 0, "accepted a request without timestamps");
  const auto marks = static_cast<size_t>((model.seq_len + model.pred_len) * 4);
  FUZZ_CHECK(input.calendar.size() == marks, "marks: " + std::to_string(input.calendar.size()) +
                                                 " values, expected " + std::to_string(marks));
  for (float mark : input.calendar) FUZZ_CHECK(mark >= -0.5f && mark <= 0.5f, "mark out of range");
  FUZZ_CHECK(
      input.attention.decoder == (request.attention().enabled() && request.attention().decoder()),
      "attention.decoder");
  if (input.attention.enabled) {
    FUZZ_CHECK(input.attention.variables == std::vector<int32_t>{0}, "maps per sample");
  }
}

// features "MS" (the target alone, the sample's last variable): an accepted request's
// answer is one row, said to be variable N - 1 and unscaled with that variable's column.
void check_target_response(server::ForecastInput& input, const server::ModelShape& model) {
  const int64_t target = model.enc_in - 1;
  FUZZ_CHECK(input.forecast_rows() == 1 && input.series_row_of(0) == target,
             "the target row: " + std::to_string(input.series_row_of(0)));
  server::ForecastOutput output;
  output.forecast = numbered_forecast(1, model.pred_len);
  output.batch_rows = static_cast<int32_t>(input.series_rows);
  input.attention.enabled = false;  // the maps are the plain Informer's check
  v1::ForecastResponse response;
  const server::Status status =
      server::encode_forecast_response(input, model, std::move(output), &response);
  FUZZ_CHECK(status.ok(), "encode_forecast_response: " + status.message());
  FUZZ_CHECK(response.forecast_variables_size() == 1 && response.forecast_variables(0) == target,
             "forecast_variables");
  const std::vector<int64_t> shape = input.variables_by_time
                                         ? std::vector<int64_t>{1, model.pred_len}
                                         : std::vector<int64_t>{model.pred_len, 1};
  const std::vector<float> got = response_floats(response.forecast(), shape, input.raw_output);
  for (int64_t f = 0; f < model.pred_len; ++f) {
    float expected = static_cast<float>(f);
    if (input.scaler_applied) {
      const auto c =
          static_cast<std::size_t>(input.scaler_column[static_cast<std::size_t>(target)]);
      expected =
          static_cast<float>(static_cast<double>(f) * model.scaler_std[c] + model.scaler_mean[c]);
    }
    FUZZ_CHECK(got[static_cast<std::size_t>(f)] == expected,
               "target point " + std::to_string(f) + " unscaled with another column");
  }
}

}  // namespace
}  // namespace tsserve::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tsserve;
  if (size == 0) return 0;
  v1::ForecastRequest request;
  if (!fuzz::request_from_bytes(data, size, fuzz::build_request, request)) return 0;
  const server::ModelShape model = fuzz::bundled_model_shape((data[0] & 2) == 0);

  const server::Status picked = server::check_model_name(request.model(), {model.name});
  FUZZ_CHECK(picked.ok() == (request.model().empty() || request.model() == model.name),
             "check_model_name: " + picked.message());
  if (!picked.ok()) {
    FUZZ_CHECK(picked.code() == server::StatusCode::kNotFound, picked.message());
    fuzz::check_names_field(picked.message(), {"model"});
  }

  server::ForecastInput input;
  if (data[0] & 4) {  // the encoder-decoder families' rules: N, timestamps and their marks
    server::ModelShape informer = fuzz::bundled_informer_shape();
    const bool target_only = (data[0] & 8) != 0;  // features "MS"
    if (target_only) {
      informer.features = "MS";
      informer.forecast_variables = 1;
    }
    const server::Status decoded =
        server::decode_forecast_request(request, informer, server::RequestLimits{}, &input);
    fuzz::check_informer_decoding(request, decoded, input, informer);
    if (decoded.ok() && target_only) fuzz::check_target_response(input, informer);
    return 0;
  }
  const server::Status status =
      server::decode_forecast_request(request, model, server::RequestLimits{}, &input);
  if (!status.ok()) {
    fuzz::check_refusal(
        status,
        {"request_id", "layout", "output_encoding", "series", "variable_names", "timestamps",
         "scaler_mode", "attention.layers", "attention.variables", "attention.decoder"},
        request.scaler_mode() == v1::SCALER_MODE_REQUIRED && !model.has_scaler());
    return 0;
  }
  fuzz::check_accepted(request, input, model);
  fuzz::check_response(input, model);
  fuzz::check_poisoned_response(input, model);
  return 0;
}
