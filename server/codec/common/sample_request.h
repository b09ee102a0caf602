#pragma once
// The rules a model whose unit is a sample (ModelShape::unit kSample: iTransformer) adds to
// a Forecast request, and what timestamps become for every model, for both protocols. Its
// request is one sample (tsserve.v1) or B samples (the Open Inference Protocol) of N
// variables read together, so beyond a channel-independent model's checks:
//  - N must equal the model's enc_in, unless its config says "any_variable_count": the
//    weights run any N, but a model trained on 7 variables has never seen 6 or 8 attend to
//    each other, so a wrong column count is far likelier a client mistake than intent;
//  - timestamps (Unix seconds, UTC, one per input point, strictly increasing within each
//    sample) are required when the model reads time inputs (ModelShape::time_inputs); the
//    last T of each sample become TSLib's time features, computed here (plain C++) so the
//    runtime only stacks;
//  - attention maps are per sample and layer over all the sample's tokens, so the request
//    names no variables, and the maps' token names are resolved here.

#include <cstdint>
#include <string>

#include "server/codec/common/attention_selection.h"
#include "server/codec/common/name_list.h"
#include "server/codec/common/series_rows.h"
#include "server/request/model_shape.h"
#include "server/request/request_types.h"
#include "server/status/status.h"

namespace tsserve::server {

// N (g.variables) against the model's enc_in; INVALID_ARGUMENT naming names.spec.field
// and what is expected. OK for any N unless model.fixes_variable_count().
Status check_sample_variables(const SeriesGeometry& g, const SeriesNames& names,
                              const ModelShape& model);

// Timestamps as sent: `count` values, g.samples blocks of g.points (T_in) each. None
// (count 0) is OK here; otherwise INVALID_ARGUMENT naming `field` for the wrong count or an
// entry not after the one before it within its sample.
Status check_timestamps(const int64_t* timestamps, int64_t count, const SeriesGeometry& g,
                        const std::string& field);

// Fills out->calendar with what model.time_inputs says (kFeatureTokens: [B, C, T], the
// features of each sample's last T timestamps); INVALID_ARGUMENT naming `field` when
// there are no timestamps (the model needs them). Nothing to do for kNone.
// REQUIRES: check_timestamps OK.
Status gather_time_inputs(const int64_t* timestamps, int64_t count, const SeriesGeometry& g,
                          const ModelShape& model, const std::string& field, ForecastInput* out);

// OK unless `options` asks for the decoder's maps (enabled and decoder) of a model without
// a decoder: INVALID_ARGUMENT naming fields.decoder.
Status check_decoder_maps(const AttentionRequest& options, const ModelShape& model,
                          const AttentionFields& fields = {});

// The attention selection of a request to a model with maps per sample: `options` resolved with one
// map per sample and layer (out->attention.variables = 0 .. g.samples-1); INVALID_ARGUMENT naming
// fields.variables when the request lists variables. Sets out->attention_token_names when enabled:
// `variable_names` (or "0" .. "N-1" when empty), then the calendar features' names.
Status resolve_sample_attention(const AttentionRequest& options, const SeriesGeometry& g,
                                const ModelShape& model, NameList variable_names,
                                ForecastInput* out, const AttentionFields& fields = {});

}  // namespace tsserve::server
