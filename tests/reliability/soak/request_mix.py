"""The soak's request mix: valid calls of every shape tsserve serves, and invalid ones of
every kind its decoders reject, each with the one status code it must get.

A kind is (name, call, expected code, check): `call` performs one RPC and returns the
response, `check` (valid kinds only) looks at the response, so a wrong answer counts as an
error even when the status is OK. Requests are built once and re-sent; values are seeded.
"""

import math
import random
import struct

TENSOR_ENCODING_RAW = 2  # tsserve.v1.TensorEncoding, defined in tensor.proto


def seeded_series(seed, variables, points):
    """[variables][points] random walks in roughly the bundled model's raw units."""
    rng = random.Random(seed)
    rows = []
    for v in range(variables):
        x, row = 5.0 + v, []
        for _ in range(points):
            x += rng.gauss(0, 0.3)
            row.append(x)
        rows.append(row)
    return rows


class RequestMix:
    def __init__(self, grpc, v1, v1_grpc, oip, oip_grpc, channel, info, message_limit):
        self.grpc = grpc
        self.v1 = v1
        self.oip = oip
        self.forecast = v1_grpc.ForecastServiceStub(channel)
        self.infer = oip_grpc.GRPCInferenceServiceStub(channel)
        self.info = info
        self.message_limit = message_limit
        self.T, self.F, self.D = info.seq_len, info.pred_len, info.d_model
        self.columns = list(info.scaler_columns)
        self.valid = self._valid_kinds()
        self.invalid = self._invalid_kinds()

    # ------------------------------------------------------------------ building blocks

    def series_request(self, rows, **fields):
        request = self.v1.ForecastRequest(**fields)
        request.series.shape.extend([len(rows), len(rows[0])])
        request.series.values.extend(x for row in rows for x in row)
        return request

    def forecast_call(self, request, timeout=30):
        return lambda: self.forecast.Forecast(request, timeout=timeout)

    def forecast_shape_check(self, variables):
        def check(response):
            return list(response.forecast.shape) == [variables, self.F] and all(
                math.isfinite(x) for x in response.forecast.values[:variables * self.F])
        return check

    # ------------------------------------------------------------------ valid kinds

    def _valid_kinds(self):
        v1, T, D = self.v1, self.T, self.D
        rows7 = seeded_series(1, 7, T)
        kinds = []
        kinds.append(("forecast_7_variables", self.forecast_call(self.series_request(rows7)),
                      self.forecast_shape_check(7)))
        named = self.series_request(seeded_series(2, len(self.columns), T + 64),
                                    variable_names=self.columns,
                                    scaler_mode=v1.SCALER_MODE_REQUIRED)
        kinds.append(("forecast_named_scaled_longer", self.forecast_call(named),
                      lambda r: r.scaler_applied and r.input_points_used == T))
        by_time = v1.ForecastRequest(layout=v1.SERIES_LAYOUT_TIME_BY_VARIABLES,
                                     output_encoding=TENSOR_ENCODING_RAW)
        rows3 = seeded_series(3, 3, T)
        by_time.series.shape.extend([T, 3])
        by_time.series.raw_values = struct.pack("<%df" % (3 * T), *(rows3[v][t] for t in range(T)
                                                                    for v in range(3)))
        kinds.append(("forecast_time_by_variables_raw", self.forecast_call(by_time),
                      lambda r: len(r.forecast.raw_values) == 3 * self.F * 4))
        attention = self.series_request(seeded_series(4, 2, T))
        attention.attention.enabled = True
        attention.attention.layers.append(self.info.e_layers - 1)
        attention.attention.average_heads = True
        kinds.append(("forecast_attention_maps", self.forecast_call(attention),
                      lambda r: len(r.attention) == 2))
        tokens = v1.EncodeRequest()
        tokens.tokens.shape.extend([self.info.patch_count, D])
        rng = random.Random(5)
        tokens.tokens.values.extend(rng.gauss(0, 1) for _ in range(self.info.patch_count * D))
        kinds.append(("encode_tokens", lambda: self.forecast.Encode(tokens, timeout=30),
                      lambda r: list(r.output.shape) == [self.info.patch_count, D]))
        kinds.append(("get_model_info",
                      lambda: self.forecast.GetModelInfo(v1.GetModelInfoRequest(), timeout=30),
                      lambda r: r.info.seq_len == T))
        oip_request = self.oip.ModelInferRequest(model_name=self.info.name)
        flat = [x for t in range(T) for x in (row[t] for row in rows7)]
        oip_request.inputs.add(name="series", datatype="FP32",
                               shape=[1, T, 7]).contents.fp32_contents.extend(flat)
        kinds.append(("oip_model_infer", lambda: self.infer.ModelInfer(oip_request, timeout=30),
                      lambda r: list(r.outputs[0].shape) == [1, self.F, 7]))
        return kinds

    # ------------------------------------------------------------------ invalid kinds

    def _invalid_kinds(self):
        v1, T, D = self.v1, self.T, self.D
        code = self.grpc.StatusCode
        rows = seeded_series(6, 7, T)
        kinds = []

        def forecast(name, request, expected):
            kinds.append((name, self.forecast_call(request), expected))

        def edited(edit, source_rows=rows, **fields):
            request = self.series_request(source_rows, **fields)
            edit(request)
            return request

        forecast("series_3_dims", edited(lambda r: r.series.shape.insert(0, 1)), code.INVALID_ARGUMENT)
        forecast("values_one_short", edited(lambda r: r.series.values.pop()), code.INVALID_ARGUMENT)
        forecast("too_few_points", self.series_request(seeded_series(7, 7, T - 1)), code.INVALID_ARGUMENT)

        def put(index, value):
            return lambda r: r.series.values.__setitem__(index, value)

        forecast("nan_value", edited(put(100, float("nan"))), code.INVALID_ARGUMENT)
        forecast("infinite_value", edited(put(7, float("-inf"))), code.INVALID_ARGUMENT)
        forecast("unknown_model", self.series_request(rows, model="no-such-model"), code.NOT_FOUND)
        too_many = self.info.max_batch_rows + 1
        if too_many * T * 4 + 4096 < self.message_limit:  # packed floats plus framing
            forecast("too_many_variables", self.series_request(seeded_series(8, too_many, T)),
                     code.INVALID_ARGUMENT)
        oversize_rows = self.message_limit // (4 * T) + 8
        oversize = v1.ForecastRequest()
        oversize.series.shape.extend([oversize_rows, T])
        oversize.series.raw_values = bytes(4 * T * oversize_rows)
        forecast("over_max_message_bytes", oversize, code.RESOURCE_EXHAUSTED)
        forecast("attention_layer_out_of_range",
                 edited(lambda r: (r.attention.__setattr__("enabled", True),
                                   r.attention.layers.append(self.info.e_layers))),
                 code.INVALID_ARGUMENT)
        forecast("attention_variable_out_of_range",
                 edited(lambda r: (r.attention.__setattr__("enabled", True),
                                   r.attention.variables.append(7))),
                 code.INVALID_ARGUMENT)
        forecast("attention_negative_layer",
                 edited(lambda r: (r.attention.__setattr__("enabled", True),
                                   r.attention.layers.append(-1))),
                 code.INVALID_ARGUMENT)
        forecast("names_fewer_than_variables", self.series_request(rows, variable_names=["a", "b"]),
                 code.INVALID_ARGUMENT)
        forecast("scaler_required_unknown_names",
                 self.series_request(rows, variable_names=["v%d" % i for i in range(7)],
                                     scaler_mode=v1.SCALER_MODE_REQUIRED),
                 code.INVALID_ARGUMENT)
        raw_short = v1.ForecastRequest()
        raw_short.series.shape.extend([7, T])
        raw_short.series.raw_values = bytes(4 * 7 * T - 2)
        forecast("raw_bytes_short", raw_short, code.INVALID_ARGUMENT)
        forecast("values_and_raw_both", edited(lambda r: r.series.__setattr__("raw_values", b"\0" * 8)),
                 code.INVALID_ARGUMENT)
        negative = v1.ForecastRequest()
        negative.series.shape.extend([-7, T])
        forecast("negative_dimension", negative, code.INVALID_ARGUMENT)
        huge = v1.ForecastRequest()
        huge.series.shape.extend([1 << 40, 1 << 40])
        forecast("dimensions_2_80", huge, code.INVALID_ARGUMENT)
        forecast("unknown_layout", edited(lambda r: r.__setattr__("layout", 99)), code.INVALID_ARGUMENT)
        forecast("unknown_output_encoding", edited(lambda r: r.__setattr__("output_encoding", 9)),
                 code.INVALID_ARGUMENT)
        forecast("timestamps_not_increasing",
                 edited(lambda r: r.timestamps.extend([5] * T)), code.INVALID_ARGUMENT)
        forecast("timestamps_count", edited(lambda r: r.timestamps.extend([1, 2, 3])),
                 code.INVALID_ARGUMENT)
        forecast("empty_request", v1.ForecastRequest(), code.INVALID_ARGUMENT)

        def encode(name, shape, values, expected, edit=None):
            request = v1.EncodeRequest()
            request.tokens.shape.extend(shape)
            request.tokens.values.extend(values)
            if edit:
                edit(request)
            kinds.append((name, lambda: self.forecast.Encode(request, timeout=30), expected))

        encode("encode_wrong_width", [4, D + 1], [0.5] * (4 * (D + 1)), code.INVALID_ARGUMENT)
        limit = self.info.max_encode_tokens
        if limit > 0 and (limit + 1) * D * 4 < self.message_limit // 2:
            encode("encode_too_many_tokens", [limit + 1, D], [0.5] * ((limit + 1) * D),
                   code.INVALID_ARGUMENT)
        encode("encode_nan", [2, D], [0.5] * D + [float("nan")] + [0.5] * (D - 1), code.INVALID_ARGUMENT)
        encode("encode_no_tokens", [0, D], [], code.INVALID_ARGUMENT)
        encode("encode_attention_variables", [2, D], [0.5] * (2 * D), code.INVALID_ARGUMENT,
               edit=lambda r: (r.attention.__setattr__("enabled", True), r.attention.variables.append(0)))
        kinds.append(("model_info_unknown_model",
                      lambda: self.forecast.GetModelInfo(v1.GetModelInfoRequest(model="nope"), timeout=30),
                      code.NOT_FOUND))

        oip = self.oip

        def infer(name, edit, expected):
            request = oip.ModelInferRequest(model_name=self.info.name)
            tensor = request.inputs.add(name="series", datatype="FP32", shape=[1, T, 7])
            tensor.contents.fp32_contents.extend([1.0] * (T * 7))
            edit(request)
            kinds.append((name, lambda: self.infer.ModelInfer(request, timeout=30), expected))

        infer("oip_fp64_datatype", lambda r: r.inputs[0].__setattr__("datatype", "FP64"), code.INVALID_ARGUMENT)
        infer("oip_unknown_model", lambda r: r.__setattr__("model_name", "nope"), code.NOT_FOUND)
        infer("oip_short_contents", lambda r: r.inputs[0].contents.fp32_contents.pop(), code.INVALID_ARGUMENT)
        infer("oip_unknown_input", lambda r: r.inputs[0].__setattr__("name", "tokens"), code.INVALID_ARGUMENT)
        return kinds
