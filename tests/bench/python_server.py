"""The baseline a user would otherwise write: a Python gRPC server (Debian's python3-grpcio)
running the same PatchTST weights in PyTorch eager (Debian's python3-torch), speaking the
same tsserve.v1 protocol, one forward pass per request (no batching across requests).

    /usr/bin/python3 tests/bench/python_server.py [--port 0] [--model model/default/patchtst_etth1.pt]
                                                  [--threads 1] [--workers 8]

Prints "python-server listening grpc_port=N" once it serves. Serves Forecast (series
[N, T] or [T, N], values or raw bytes, the model's scaler applied as the real server does
in its default mode) and GetModelInfo; other calls answer UNIMPLEMENTED. The model is
the independent reference in tests/reference (the TSLib architecture, written from the spec).
"""

import argparse
import json
import os
import signal
import sys
import threading
import time
from concurrent import futures

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "reference"))
sys.path.insert(0, os.path.join(ROOT, "client", "python"))

import grpc  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402

import patchtst_reference as ref  # noqa: E402
from forecast_from_csv import load_stubs  # noqa: E402

pb, pb_grpc = load_stubs()
from tsserve.v1 import tensor_pb2  # noqa: E402  (on the path load_stubs set up)


def series_array(tensor):
    """tsserve.v1.Tensor -> float32 numpy array of its shape."""
    if tensor.raw_values:
        flat = np.frombuffer(tensor.raw_values, dtype="<f4")
    else:
        flat = np.asarray(tensor.values, dtype=np.float32)
    return flat.reshape(tuple(tensor.shape))


class ForecastServicer(pb_grpc.ForecastServiceServicer):
    def __init__(self, model, config):
        self.model = model
        self.config = config
        scaler = config.get("scaler")
        self.scaler = None
        if scaler:
            self.scaler = (scaler["columns"], np.asarray(scaler["mean"], np.float32),
                           np.asarray(scaler["std"], np.float32))

    def _scaler_for(self, names, n):
        """(mean, std) per variable, as the real server's default: by name, else by count."""
        if self.scaler is None:
            return None
        columns, mean, std = self.scaler
        if names:
            if all(name in columns for name in names):
                index = [columns.index(name) for name in names]
                return mean[index], std[index]
            return None
        return (mean, std) if n == len(columns) else None

    def Forecast(self, request, context):
        arrived = time.perf_counter()
        x = series_array(request.series)
        if x.ndim != 2:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, "series: rank must be 2")
        time_by_vars = request.layout == pb.SERIES_LAYOUT_TIME_BY_VARIABLES
        rows = x.T if time_by_vars else x                       # [N, T_in]
        T = self.config["seq_len"]
        if rows.shape[1] < T:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                          "series: %d points; the model needs at least %d" % (rows.shape[1], T))
        rows = rows[:, -T:]
        scaler = self._scaler_for(list(request.variable_names), rows.shape[0])
        if scaler is not None:
            rows = (rows - scaler[0][:, None]) / scaler[1][:, None]
        started = time.perf_counter()
        with torch.no_grad():
            y = self.model(torch.from_numpy(np.ascontiguousarray(rows.T))[None])[0].numpy().T  # [N, F]
        computed = time.perf_counter()
        if scaler is not None:
            y = y * scaler[1][:, None] + scaler[0][:, None]
        out = y.T if time_by_vars else y
        response = pb.ForecastResponse(model_name=self.config.get("name", "patchtst"),
                                       model_version=str(self.config.get("version", "0")),
                                       input_points_used=T, scaler_applied=scaler is not None,
                                       request_id=request.request_id)
        response.forecast.shape.extend(out.shape)
        if request.output_encoding == tensor_pb2.TENSOR_ENCODING_RAW:
            response.forecast.raw_values = np.ascontiguousarray(out, dtype="<f4").tobytes()
        else:
            response.forecast.values.extend(out.ravel().tolist())
        response.timing.queue_seconds = started - arrived
        response.timing.compute_seconds = computed - started
        response.timing.batch_rows = rows.shape[0]
        return response

    def GetModelInfo(self, request, context):
        c = self.config
        info = pb.ModelInfo(name=c.get("name", "patchtst"), version=str(c.get("version", "0")),
                            seq_len=c["seq_len"], pred_len=c["pred_len"], d_model=c["d_model"],
                            n_heads=c["n_heads"], e_layers=c["e_layers"], d_ff=c["d_ff"],
                            patch_len=c["patch_len"], stride=c["stride"], device="cpu",
                            intra_op_threads=torch.get_num_threads(), ready=True)
        return pb.GetModelInfoResponse(info=info)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--model", default=os.path.join(ROOT, "model", "default", "patchtst_etth1.pt"))
    parser.add_argument("--threads", type=int, default=1, help="torch intra-op threads")
    parser.add_argument("--workers", type=int, default=8, help="gRPC handler threads")
    args = parser.parse_args()

    torch.set_num_threads(args.threads)
    with open(os.path.splitext(args.model)[0] + ".json") as f:
        config = json.load(f)
    model = ref.PatchTST(config)
    state = torch.load(args.model, map_location="cpu")
    model.load_state_dict({k.removeprefix("module."): v for k, v in state.items()})
    model.eval()

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=args.workers))
    pb_grpc.add_ForecastServiceServicer_to_server(ForecastServicer(model, config), server)
    port = server.add_insecure_port("127.0.0.1:%d" % args.port)
    server.start()
    print("python-server listening grpc_port=%d" % port, flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    stop.wait()
    server.stop(grace=5).wait()


if __name__ == "__main__":
    main()
