"""ETTh1 data split + metrics, and a CLI that re-evaluates a saved checkpoint.

    /usr/bin/python3 model/tools/evaluate_patchtst.py \
        --checkpoint model/default/patchtst_etth1.pt --config model/default/patchtst_etth1.json

Recomputes test MSE/MAE (scaled space, every test window) with the scaler stored in the
JSON, so the figures written by train_patchtst.py can be reproduced. train_patchtst.py
imports the data and metric helpers from here so both use one definition.
"""

import argparse
import csv
import json
import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "reference"))
import patchtst_reference as ref  # noqa: E402

DEFAULT_DATA = os.path.join(HERE, "..", "..", "..", "shared", "data", "ETTh1.csv")
# Standard ETTh1 split (PatchTST/TSLib): 12 / 4 / 4 months of hourly rows.
N_TRAIN, N_VAL, N_TEST = 12 * 30 * 24, 4 * 30 * 24, 4 * 30 * 24


def read_csv(path):
    """-> (column names without 'date', float64 array [rows, N])."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    assert header[0] == "date", header
    return header[1:], np.array([[float(v) for v in r[1:]] for r in body], dtype=np.float64)


def fit_scaler(raw):
    """StandardScaler on the training rows (population std, ddof=0)."""
    train = raw[:N_TRAIN]
    return train.mean(axis=0), train.std(axis=0)


def split_bounds(seq_len):
    """Row ranges [begin, end) of train/val/test; val/test start seq_len rows early so their
    first forecast starts exactly at the split boundary."""
    return {"train": (0, N_TRAIN),
            "val": (N_TRAIN - seq_len, N_TRAIN + N_VAL),
            "test": (N_TRAIN + N_VAL - seq_len, N_TRAIN + N_VAL + N_TEST)}


def window_starts(bounds, seq_len, pred_len):
    begin, end = bounds
    return torch.arange(begin, end - seq_len - pred_len + 1)


def gather(data, starts, seq_len, pred_len):
    """data [rows,N] float32, starts [n] -> (x [n,T,N], y [n,F,N]) on data's device."""
    starts = starts.to(data.device)
    x = data[starts[:, None] + torch.arange(seq_len, device=data.device)[None, :]]
    y = data[starts[:, None] + seq_len + torch.arange(pred_len, device=data.device)[None, :]]
    return x, y


@torch.no_grad()
def evaluate(model, data, starts, seq_len, pred_len, batch_size=256):
    """-> (MSE, MAE) over every window, variable and horizon step (float64 sums)."""
    model.eval()
    se = ae = 0.0
    n = 0
    for i in range(0, len(starts), batch_size):
        x, y = gather(data, starts[i:i + batch_size], seq_len, pred_len)
        err = (model(x) - y).double()
        se += float((err * err).sum())
        ae += float(err.abs().sum())
        n += err.numel()
    return se / n, ae / n


def main():
    ap = argparse.ArgumentParser(description="Re-evaluate a saved PatchTST ETTh1 checkpoint.")
    ap.add_argument("--checkpoint", default=os.path.join(HERE, "..", "default", "patchtst_etth1.pt"))
    ap.add_argument("--config", default=None, help="JSON beside the checkpoint by default")
    ap.add_argument("--data", default=DEFAULT_DATA)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    cfg_path = args.config or os.path.splitext(args.checkpoint)[0] + ".json"
    with open(cfg_path) as f:
        cfg = json.load(f)

    model = ref.PatchTST(cfg)
    model.load_state_dict(torch.load(args.checkpoint, map_location="cpu"), strict=True)
    model.eval()

    columns, raw = read_csv(args.data)
    scaler = cfg["scaler"]
    assert columns == scaler["columns"], (columns, scaler["columns"])
    data = torch.from_numpy((raw - np.array(scaler["mean"])) / np.array(scaler["std"])).float()
    T, F = cfg["seq_len"], cfg["pred_len"]
    starts = window_starts(split_bounds(T)["test"], T, F)
    mse, mae = evaluate(model, data, starts, T, F)
    print("test windows %d  MSE %.6f  MAE %.6f" % (len(starts), mse, mae))
    stored = cfg.get("training", {})
    if "test_mse" in stored:
        print("stored in JSON:   MSE %.6f  MAE %.6f" % (stored["test_mse"], stored["test_mae"]))
        if abs(mse - stored["test_mse"]) > 1e-5 or abs(mae - stored["test_mae"]) > 1e-5:
            sys.exit("recomputed metrics differ from the stored ones")


if __name__ == "__main__":
    main()
