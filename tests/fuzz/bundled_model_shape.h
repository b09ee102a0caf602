#pragma once
// What the request codec sees of the bundled model (model/default/patchtst_etth1.json;
// the same shape as tests/support/default_model_shape.h, which needs LibTorch): the
// realistic model the request fuzzers decode against, with or without its scaler.

#include "server/request/model_shape.h"

namespace tsserve::fuzz {

inline server::ModelShape bundled_model_shape(bool with_scaler) {
  server::ModelShape model;
  model.name = "patchtst-etth1";
  model.version = "1";
  model.seq_len = 336;
  model.pred_len = 96;
  model.d_model = 16;
  model.n_heads = 4;
  model.e_layers = 3;
  model.patch_count = 42;  // (seq_len - patch_len 16) / stride 8 + 2
  model.map_sides = {42, 42, 42};
  if (with_scaler) {
    model.scaler_columns = {"HUFL", "HULL", "MUFL", "MULL", "LUFL", "LULL", "OT"};
    model.scaler_mean = {7.937742245659508,  2.0210386567335163, 5.079770601157927,
                         0.7461858799957015, 2.781762386375555,  0.7884531235540096,
                         17.1282616982271};
    model.scaler_std = {5.81274940914376,   2.0901046504075986, 5.51879357903625,
                        1.9263792741329897, 1.0235226594952223, 0.6302366362251974,
                        9.176491024944383};
  }
  return model;
}

// The bundled Informer's view (model/default/informer_etth1.json): a sample of 7 variables
// with the time marks of its input and forecast steps, encoder maps of 96 and 49 steps,
// one decoder layer.
inline server::ModelShape bundled_informer_shape() {
  server::ModelShape model = bundled_model_shape(true);
  model.name = "informer-etth1";
  model.family = "Informer";
  model.seq_len = 96;
  model.pred_len = 96;
  model.d_model = 128;
  model.n_heads = 8;
  model.e_layers = 2;
  model.patch_count = model.patch_len = model.stride = 0;
  model.unit = server::SampleUnit::kSample;
  model.enc_in = 7;
  model.time_inputs = server::TimeInputs::kStepMarks;
  model.mark_embed = "timeF";
  model.mark_freq = "h";
  model.map_sides = {96, 49};
  model.d_layers = 1;
  model.label_len = 48;
  return model;
}

}  // namespace tsserve::fuzz
