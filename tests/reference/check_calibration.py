"""Independent check of `tsserve-calibrate` (model/tools/calibrate_main.cpp).

    /usr/bin/python3 tests/reference/check_calibration.py --tool PATH --model CHECKPOINT \
        --data ETTh1.csv --out DIR

Runs the tool on CHECKPOINT's validation windows (ETTh1's standard split) into DIR, then
recomputes every quantile with the PyTorch reference model (patchtst_reference.py,
itransformer_reference.py, encdec_reference.py or timexer_reference.py, not tsserve's C++): split conformal, the ceil((n+1)*level)-th
smallest of the n absolute residuals per level, horizon step and column, in scaled space.
Passes when (1) the tool's quantiles equal the reference's within 5e-5 (an order statistic
moves by at most what its inputs move, and the two implementations' forecasts differ by
float32 rounding: measured worst 1.9e-6 for the bundled PatchTST, 2.4e-5 for the bundled
iTransformer, whose d_model 256 sums are longer; the quantiles themselves are 0.06 to 4.4),
(2) the block records the rows, windows, split and dataset the reference used, and (3) the
calibration committed beside CHECKPOINT is what the tool writes now (reproducible): every
field equal, the quantiles within the same 5e-5 (another CPU's kernels move their last
digits, so never bit for bit). A model with features "MS" forecasts its target alone (the
scaler's last column), so its residuals and quantiles are that column's. --uncommitted skips
(3), for a model generated at test time that has no committed calibration.
Also checks the tool refuses a level outside (0, 1) naming --levels. Exit status 0 = pass.
"""

import argparse
import calendar
import json
import math
import os
import subprocess
import sys
import time
from fractions import Fraction

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import encdec_reference as encdec  # noqa: E402
import itransformer_reference as itr  # noqa: E402
import patchtst_reference as ref  # noqa: E402
import timexer_reference as txr  # noqa: E402
import tslib_timefeatures as tf  # noqa: E402

N_TRAIN, N_VAL = 8640, 2880
# How far a quantile may move between two float32 computations of the same residuals
# (see the docstring); the bar for the reference and for the committed block alike.
TOLERANCE = 5e-5


def committed_drift(committed, written):
    """Largest |committed - written| quantile, or None when any other field differs.

    The quantiles are float32 order statistics written to 7 digits: another CPU's kernels
    (OpenBLAS's AVX-512 ones, say) round the forecasts differently and move the last
    digit, so they are compared within TOLERANCE, never bit for bit."""
    if committed is None or set(committed) != set(written):
        return None
    if any(committed[key] != written[key] for key in written if key != "quantiles"):
        return None
    old, new = committed["quantiles"], written["quantiles"]
    if np.shape(old) != np.shape(new):
        return None
    return float(np.max(np.abs(np.asarray(old, dtype=np.float64) -
                               np.asarray(new, dtype=np.float64)), initial=0.0))


def conformal_rank(n, level):
    """ceil((n + 1) * level) in exact decimal arithmetic (0.5 * 2786 is 1393, not 1394)."""
    return math.ceil(Fraction(repr(level)) * (n + 1))


def reference_residuals(checkpoint, config, data_path):
    """|forecast - actual| of every validation window, scaled: [n, F, K] float32 (K = C, or 1
    for "MS")."""
    columns = config["scaler"]["columns"]
    with open(data_path) as f:
        header = f.readline().strip().split(",")
        rows = [line.strip().split(",") for line in f if line.strip()]
    index = [header.index(c) for c in columns]
    raw = np.array([[float(r[i]) for i in index] for r in rows], dtype=np.float64)
    scaled = torch.from_numpy((raw - np.array(config["scaler"]["mean"])) /
                              np.array(config["scaler"]["std"])).float()
    seconds = np.array([calendar.timegm(time.strptime(r[0], "%Y-%m-%d %H:%M:%S")) for r in rows],
                       dtype=np.int64)
    T, F = config["seq_len"], config["pred_len"]
    begin, end = N_TRAIN - T, N_TRAIN + N_VAL
    starts = list(range(begin, end - T - F + 1))
    family = config.get("model", "PatchTST")
    # The families that read calendar rows of the input steps (TSLib's x_mark), when given.
    calendar_tokens = family in ("iTransformer", "TimeXer") and config.get("calendar_tokens", True)
    encoder_decoder = family in ("Informer", "Transformer")
    if encoder_decoder:  # the server's deterministic ProbSparse sample
        model = encdec.build_model(config).eval()
    elif family == "iTransformer":
        model = itr.ITransformer(config).eval()
    elif family == "TimeXer":
        model = txr.TimeXer(config).eval()
    else:
        model = ref.PatchTST(config).eval()
    model.load_state_dict(torch.load(checkpoint, map_location="cpu"))
    out = []
    with torch.no_grad():
        for i in range(0, len(starts), 128):
            batch = starts[i:i + 128]
            x = torch.stack([scaled[s:s + T] for s in batch])
            y = torch.stack([scaled[s + T:s + T + F] for s in batch])
            if encoder_decoder:
                # Marks of the input and forecast steps from the dataset's dates (TSLib's
                # data_stamp), the decoder's input as TSLib builds it.
                c = encdec.complete_config(config)
                L, embed = c["label_len"], c.get("embed", "timeF")
                marks = torch.stack([encdec.marks(seconds[s:s + T + F], config["freq"], embed)
                                     for s in batch])
                forecast = encdec.forecast_columns(
                    model(x, marks[:, :T], encdec.decoder_input(x, L, F),
                          encdec.decoder_marks(marks, L, F)), c["features"])
            elif calendar_tokens:
                marks = torch.stack([torch.from_numpy(tf.stamp(seconds[s:s + T], config["freq"]))
                                     for s in batch])
                forecast = model(x, marks)
            elif family == "TimeXer":
                forecast = model(x, None)
            else:
                forecast = model(x)
            # "MS": the forecast is the target alone, the last column.
            out.append((forecast - y[..., y.shape[-1] - forecast.shape[-1]:]).abs())
    return torch.cat(out), (begin, end)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tool", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--uncommitted", action="store_true",
                    help="the model has no committed calibration to compare with")
    args = ap.parse_args()
    torch.set_num_threads(2)
    os.makedirs(args.out, exist_ok=True)
    stem = os.path.splitext(args.model)[0]
    written = os.path.join(args.out, os.path.basename(stem) + ".calibrated.json")
    subprocess.run([args.tool, "--model", args.model, "--data", args.data, "--out", written],
                   check=True)
    with open(written) as f:
        block = json.load(f)["calibration"]
    with open(stem + ".json") as f:
        config = json.load(f)
    committed = config.pop("calibration", None)

    residuals, (begin, end) = reference_residuals(args.model, config, args.data)
    n = residuals.shape[0]
    failures = []
    if block["windows"] != n or block["rows"] != [begin, end]:
        failures.append("block says %d windows, rows %s; the reference used %d, [%d, %d)" %
                        (block["windows"], block["rows"], n, begin, end))
    if block["split"] != "8640/2880/2880" or block["dataset"] != os.path.basename(args.data):
        failures.append("block names split %r, dataset %r" % (block["split"], block["dataset"]))
    ordered = residuals.sort(dim=0).values
    worst = 0.0
    for level, stored in zip(block["levels"], block["quantiles"]):
        expected = ordered[conformal_rank(n, level) - 1].double()
        diff = (torch.tensor(stored, dtype=torch.float64) - expected).abs().max().item()
        worst = max(worst, diff)
        if diff > TOLERANCE:
            failures.append("level %g: quantiles differ from the reference by %.3g" % (level, diff))
    print("%s: %d windows, levels %s, max |tool - reference| = %.3g" %
          (os.path.basename(args.model), n, block["levels"], worst))
    drift = None if args.uncommitted else committed_drift(committed, block)
    if args.uncommitted:
        if committed is not None:
            failures.append("--uncommitted, but %s.json has a calibration" % stem)
    elif drift is None:
        failures.append("the calibration committed in %s.json is not what the tool writes now "
                        "(fields other than the quantiles differ): rerun tsserve-calibrate and "
                        "commit it" % stem)
    elif drift > TOLERANCE:
        failures.append("the calibration committed in %s.json differs from what the tool writes "
                        "now by %.3g (> %g): rerun tsserve-calibrate and commit it" %
                        (stem, drift, TOLERANCE))
    else:
        print("committed calibration: within %.3g of what the tool writes now" % drift)

    bad = subprocess.run([args.tool, "--model", args.model, "--data", args.data, "--levels",
                          "0.8,1.2", "--out", os.path.join(args.out, "never.json")],
                         capture_output=True, text=True)
    if bad.returncode == 0 or "--levels" not in bad.stderr or "(0, 1)" not in bad.stderr:
        failures.append("--levels 0.8,1.2 was not refused naming --levels: %r" % bad.stderr)

    for failure in failures:
        print("FAIL:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
