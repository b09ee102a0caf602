#pragma once
// Invariants shared by the request fuzzers: how a refusal must look, and what an accepted
// series must have become, computed here independently of the codec (series_rows.cpp)
// from the rules the protos state.

#include <google/protobuf/repeated_ptr_field.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "fuzz_target.h"
#include "server/codec/v1/forecast_request_decoder.h"
#include "server/request/model_shape.h"
#include "server/status/status.h"
#include "tsserve/v1/forecast_service.pb.h"

namespace tsserve::fuzz {

// `message` starts with the name of one of `fields` ("series", "attention.layers",
// "parameters[\"scaler_mode\"]", ...) followed by ':', '.', ' ' or '[' - the field it is
// about - and says more than the name.
inline void check_names_field(const std::string& message,
                              std::initializer_list<const char*> fields) {
  bool names_field = false;
  for (const char* field : fields) {
    const std::size_t length = std::strlen(field);
    if (message.size() > length + 2 && message.compare(0, length, field) == 0 &&
        std::strchr(":. [", message[length]) != nullptr) {
      names_field = true;
    }
  }
  FUZZ_CHECK(names_field, "the message names no request field: \"" + message + "\"");
}

// A refused request: INVALID_ARGUMENT (or FAILED_PRECONDITION where `precondition_allowed`)
// whose message names the field (check_names_field).
inline void check_refusal(const server::Status& status, std::initializer_list<const char*> fields,
                          bool precondition_allowed = false) {
  const bool code_ok =
      status.code() == server::StatusCode::kInvalidArgument ||
      (precondition_allowed && status.code() == server::StatusCode::kFailedPrecondition);
  FUZZ_CHECK(code_ok,
             std::string("code ") + status_code_name(static_cast<int>(status.code())) + ": " + status.message());
  check_names_field(status.message(), fields);
}

// Whether two floats are the same bits: "copied exactly" tells -0.0 from 0.0, and every
// value compared here is finite.
inline bool same_bits(float a, float b) {
  uint32_t a_bits;
  uint32_t b_bits;
  std::memcpy(&a_bits, &a, sizeof a_bits);
  std::memcpy(&b_bits, &b, sizeof b_bits);
  return a_bits == b_bits;
}

// A series as the request sent it: `samples` blocks of [variables, points] (by variable)
// or [points, variables] (by time), row-major.
struct SentSeries {
  std::vector<float> values;
  int64_t samples = 1;
  int64_t variables = 0;
  int64_t points = 0;
  bool by_variable = true;

  float at(int64_t sample, int64_t variable, int64_t point) const {
    const int64_t within = by_variable ? variable * points + point : point * variables + variable;
    return values[static_cast<std::size_t>(sample * variables * points + within)];
  }
};

// Little-endian float32 bytes (raw_values, raw_input_contents) as floats.
inline std::vector<float> floats_of(const std::string& bytes) {
  std::vector<float> values(bytes.size() / 4);
  if (!values.empty()) std::memcpy(values.data(), bytes.data(), values.size() * 4);
  return values;
}

// The scaler column of each of the N variables when the scaler applies (ScalerMode in
// forecast_service.proto, scaler_matching.h); empty when it does not.
inline std::vector<int32_t> expected_scaler_columns(
    int scaler_mode, const google::protobuf::RepeatedPtrField<std::string>& names,
    int64_t variables, const server::ModelShape& model) {
  if (scaler_mode == v1::SCALER_MODE_NONE || !model.has_scaler()) return {};
  const std::vector<std::string>& columns = model.scaler_columns;
  std::vector<int32_t> chosen;
  if (names.empty()) {
    if (variables != static_cast<int64_t>(columns.size())) return {};
    for (int32_t c = 0; c < variables; ++c) chosen.push_back(c);
    return chosen;
  }
  for (const std::string& name : names) {
    const auto it = std::find(columns.begin(), columns.end(), name);
    if (it == columns.end()) return {};  // not every name is a column: no positional fallback
    chosen.push_back(static_cast<int32_t>(it - columns.begin()));
  }
  return chosen;
}

// An accepted series: every value sent was finite, and row b * N + n of the input holds
// the last T points of variable n of sample b, scaled as float((x - mean[c]) / std[c])
// (in double) with c = columns[n] when the scaler applies - bit for bit.
inline void check_rows(const server::ForecastInput& input, const SentSeries& sent,
                       const std::vector<int32_t>& columns, const server::ModelShape& model) {
  for (float x : sent.values) FUZZ_CHECK(std::isfinite(x), "accepted a non-finite value");
  const int64_t rows = sent.samples * sent.variables;
  const int64_t used = model.seq_len;
  FUZZ_CHECK(input.series_rows == rows && input.samples == sent.samples,
             "rows " + std::to_string(input.series_rows) + ", samples " +
                 std::to_string(input.samples) + " for " + std::to_string(sent.samples) + " x " +
                 std::to_string(sent.variables));
  FUZZ_CHECK(input.rows.size() == static_cast<std::size_t>(rows * used),
             std::to_string(input.rows.size()) + " input floats for " + std::to_string(rows) +
                 " rows of " + std::to_string(used));
  FUZZ_CHECK(input.input_points_used == used,
             "input_points_used " + std::to_string(input.input_points_used));
  FUZZ_CHECK(input.scaler_applied == !columns.empty(), "scaler_applied disagrees with ScalerMode");
  if (input.scaler_applied) {
    FUZZ_CHECK(input.scaler_column.size() == static_cast<std::size_t>(rows),
               "scaler_column has " + std::to_string(input.scaler_column.size()) + " entries");
  }
  for (int64_t row = 0; row < rows; ++row) {
    const int64_t sample = row / sent.variables;
    const int64_t variable = row % sent.variables;
    const auto n = static_cast<std::size_t>(variable);
    if (input.scaler_applied) {
      FUZZ_CHECK(input.scaler_column[static_cast<std::size_t>(row)] == columns[n],
                 "row " + std::to_string(row) + " has scaler column " +
                     std::to_string(input.scaler_column[static_cast<std::size_t>(row)]));
    }
    for (int64_t t = 0; t < used; ++t) {
      const float x = sent.at(sample, variable, sent.points - used + t);
      float expected = x;
      if (input.scaler_applied) {
        const auto c = static_cast<std::size_t>(columns[n]);
        expected = static_cast<float>((static_cast<double>(x) - model.scaler_mean[c]) /
                                      model.scaler_std[c]);
        FUZZ_CHECK(std::isfinite(expected), "accepted a value that overflows once scaled");
      }
      const float got = input.rows[static_cast<std::size_t>(row * used + t)];
      FUZZ_CHECK(same_bits(got, expected), "row " + std::to_string(row) + " point " +
                                               std::to_string(t) + ": " + std::to_string(got) +
                                               ", expected " + std::to_string(expected));
    }
  }
}

// An accepted selection of indices: ascending, no repeats, within [0, extent), and the
// requested set (or the full range when none was requested).
inline void check_indices(const std::vector<int32_t>& selected,
                          const google::protobuf::RepeatedField<int32_t>& requested, int64_t extent,
                          const char* what) {
  std::vector<int32_t> expected(requested.begin(), requested.end());
  if (expected.empty()) {
    for (int64_t i = 0; i < extent; ++i) expected.push_back(static_cast<int32_t>(i));
  }
  std::sort(expected.begin(), expected.end());
  FUZZ_CHECK(std::adjacent_find(expected.begin(), expected.end()) == expected.end(),
             std::string("accepted repeated ") + what);
  for (int32_t index : expected) {
    FUZZ_CHECK(index >= 0 && index < extent, std::string("accepted ") + what + " " +
                                                 std::to_string(index) + " of " +
                                                 std::to_string(extent));
  }
  FUZZ_CHECK(selected == expected,
             std::string("the selected ") + what + " are not the requested ones, sorted");
}

}  // namespace tsserve::fuzz
