#pragma once
// A model family's part in loading a checkpoint and in forecasting a dataset's windows
// offline (tsserve-calibrate), written in the family's folder and registered from there
// beside its config rules (model_family_rules.h), so neither the loader's shared steps
// (state_dict_loading.h) nor the tools name a family.

#include <ATen/core/Tensor.h>
#include <ATen/ops/stack.h>

#include <functional>
#include <string>
#include <vector>

#include "tsserve/model/model_config.h"
#include "tsserve/model/state_dict_loading.h"

namespace tsserve::model {

// Forecasts of a batch of windows, in the scaler's space: series [B, C, seq_len] and, per
// window, its seq_len + pred_len timestamps (unix seconds; empty when the dataset has no
// dates and the family reads none) -> [B, pred_len, C'] (C' the family's output columns).
using WindowForecast = std::function<at::Tensor(
    const at::Tensor& series, const std::vector<std::vector<int64_t>>& timestamps)>;

struct FamilyLoading {
  std::string name;  // the family's ModelFamilyRules::name
  // The keys that fix the config's sizes (check_config_against_weights).
  void (*check_shapes)(const ShapeCheck& check, const ModelConfig& config) = nullptr;
  // Loads `checkpoint` as `config` says (CPU, LibTorch modules) for window forecasts.
  WindowForecast (*open_windows)(const std::string& checkpoint,
                                 const ModelConfig& config) = nullptr;
};

// Adds a family's loading; a second of the same name is a std::logic_error.
void register_family_loading(FamilyLoading loading);

// The loading of the family named `name`; throws ModelError when this build has none.
const FamilyLoading& family_loading(const std::string& name);

// Checks the tensors that fix the model's sizes (the embedding, every layer's query
// projection and conv1, the head or projection: the family's check_shapes) against
// `config`, before the model is built: building allocates what the config claims, so a
// config that disagrees with the weights (d_model 10^6, e_layers 10^6) must be refused
// first. After it passes, building costs about what the checkpoint holds. Throws
// ModelError naming the key and the config fields.
void check_config_against_weights(const StateDict& state, const ModelConfig& config,
                                  const std::string& origin, const std::string& context);

// The steps after a family normalised its keys, the same for every family: sizes against
// the config before anything is allocated, then build, copy, and refuse non-finite
// weights. Model is a TORCH_MODULE holder built from a ModelConfig.
template <typename Model>
Model build_from_state(const StateDict& state, const ModelConfig& config,
                       const std::string& checkpoint_path, const std::string& context) {
  check_config_against_weights(state, config, checkpoint_path, context);
  Model model(config);
  load_state_dict_into(*model, state, checkpoint_path, context);
  check_weights_are_finite(state, checkpoint_path);
  model->eval();
  return model;
}

// The calendar rows [B, C, seq_len] of each window's input steps (its first seq_len
// timestamps), by `rows_of` (a model's calendar_rows: timestamps -> [C, seq_len]), for the
// families whose tokens include calendar features; undefined when the model has none.
template <typename RowsOf>
at::Tensor window_calendar_rows(const std::vector<std::vector<int64_t>>& stamps, int64_t seq_len,
                                bool has_calendar, RowsOf rows_of) {
  if (!has_calendar) return {};
  std::vector<at::Tensor> rows;
  for (const std::vector<int64_t>& window : stamps) {
    rows.push_back(rows_of(std::vector<int64_t>(window.begin(), window.begin() + seq_len)));
  }
  return at::stack(rows);
}

// The window forecast of a family whose unit is a sample read with the calendar rows of its
// input steps (the iTransformer, TimeXer): Model is its TORCH_MODULE holder, with
// calendar_token_count(), calendar_rows(timestamps) and forecast_samples(series, calendar).
template <typename Model>
WindowForecast sample_window_forecast(Model model, int64_t seq_len) {
  return [model, seq_len](const at::Tensor& series,
                          const std::vector<std::vector<int64_t>>& stamps) mutable {
    const at::Tensor calendar = window_calendar_rows(
        stamps, seq_len, model->calendar_token_count() > 0,
        [&](const std::vector<int64_t>& window) { return model->calendar_rows(window); });
    return model->forecast_samples(series, calendar).forecast.transpose(1, 2);
  };
}

// Registers `loading` when constructed: one static instance in the family's folder.
struct FamilyLoadingRegistrar {
  explicit FamilyLoadingRegistrar(FamilyLoading loading) {
    register_family_loading(std::move(loading));
  }
};

}  // namespace tsserve::model
