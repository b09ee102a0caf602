#pragma once
// What a Forecast attention map spans, by its stack (AttentionStack) and layer: its rows
// and columns, and for a model whose tokens are time steps (ModelShape::time_inputs
// kStepMarks: Informer, Transformer) the step each row and column stands for, relative to
// the first forecast step (-seq_len .. -1 the input, 0 .. pred_len-1 the forecast).
//
// A distilled encoder layer's token j stands for token (2j - 1) mod L of the layer before:
// the centre of the three that its max-pool (kernel 3, stride 2, padding 1) reads, each
// the centre of a circular convolution (kernel 3, padding 2) whose output p reads the
// inputs p - 2 .. p. Token 0 thus stands for the last step: circular padding joins the
// window's ends.

#include <cstdint>
#include <string>
#include <vector>

#include "server/request/model_shape.h"
#include "server/request/request_types.h"

namespace tsserve::server {

struct MapExtent {
  int64_t rows = 0;     // queries
  int64_t columns = 0;  // keys
};

// The [rows, columns] of layer `layer`'s map in `stack` for a sample of `variables`
// variables; {-1, -1} for a stack or layer the model does not have.
MapExtent map_extent(const ModelShape& model, AttentionStack stack, int32_t layer,
                     int64_t variables);

struct MapSteps {
  std::vector<int32_t> rows;
  std::vector<int32_t> columns;
};

// The steps of that map's rows and columns; both empty where the tokens are not time steps.
MapSteps map_steps(const ModelShape& model, AttentionStack stack, int32_t layer);

// "encoder", "decoder", "cross", "covariates" (AttentionMap.stack), and back (kEncoder for
// any other).
const char* attention_stack_name(AttentionStack stack);
AttentionStack attention_stack_named(const std::string& name);

}  // namespace tsserve::server
