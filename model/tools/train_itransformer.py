"""Train the bundled iTransformer on ETTh1 (horizon 96, calendar tokens) on CPU, and evaluate it.

    /usr/bin/python3 model/tools/train_itransformer.py --time-budget 600 > /tmp/train_itr.log 2>&1
    /usr/bin/python3 model/tools/train_itransformer.py --evaluate-only   # re-checks the saved model

The ETTh1 recipe of the paper's repository (scripts/multivariate_forecasting/ETT/iTransformer_ETTh1.sh;
TSLib's script differs only in d_model = d_ff = 128) with TSLib's defaults: seq_len 96,
d_model 256, d_ff 256, 2 layers, 8 heads, gelu, dropout 0.1,
embed 'timeF' at freq 'h' (4 calendar tokens), Adam lr 1e-4 halved each epoch, batch 32,
10 epochs, patience 3. Data split and scaler as train_patchtst.py (evaluate_patchtst.py);
test MSE/MAE over every test window in the scaled space, as TSLib reports them.

Uses the independent reference (tests/reference/itransformer_reference.py), so the saved
state_dict has TSLib's keys. Writes <out>.pt (torch.save(model.state_dict())) and <out>.json.
"""

import argparse
import calendar
import csv
import json
import os
import sys
import time

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import training_loop  # noqa: E402
import evaluate_patchtst as ev  # noqa: E402  (data split; also puts tests/reference on sys.path)
import itransformer_reference as itr  # noqa: E402
import tslib_timefeatures as tf  # noqa: E402

DEFAULT_OUT = os.path.normpath(os.path.join(HERE, "..", "default", "itransformer_etth1"))
PAPER = {"mse": 0.386, "mae": 0.405}  # iTransformer paper, ETTh1, horizon 96


def model_config(n_vars, dropout, d_model, d_ff):
    return {"model": "iTransformer", "seq_len": 96, "pred_len": 96, "enc_in": n_vars,
            "d_model": d_model, "n_heads": 8, "e_layers": 2, "d_ff": d_ff, "factor": 1,
            "activation": "gelu", "attention": "full", "embed": "timeF", "freq": "h",
            "calendar_tokens": True, "dropout": dropout}


def read_unix_seconds(path):
    """The CSV's 'date' column (naive, taken as UTC) -> int64 Unix seconds."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))[1:]
    return np.array([calendar.timegm(time.strptime(r[0], "%Y-%m-%d %H:%M:%S")) for r in rows],
                    dtype=np.int64)


def gather(data, marks, starts, T, F):
    x, y = ev.gather(data, starts, T, F)
    return x, marks[starts[:, None] + torch.arange(T)[None, :]], y


@torch.no_grad()
def evaluate(model, data, marks, starts, T, F, batch_size=256):
    """-> (MSE, MAE) over every window, variable and horizon step (float64 sums)."""
    model.eval()
    se = ae = 0.0
    n = 0
    for i in range(0, len(starts), batch_size):
        x, m, y = gather(data, marks, starts[i:i + batch_size], T, F)
        err = (model(x, m) - y).double()
        se += float((err * err).sum())
        ae += float(err.abs().sum())
        n += err.numel()
    return se / n, ae / n


def load_data(path, mean=None, std=None):
    columns, raw = ev.read_csv(path)
    if mean is None:
        mean, std = ev.fit_scaler(raw)
    data = torch.from_numpy((raw - np.asarray(mean)) / np.asarray(std)).float()
    marks = torch.from_numpy(tf.stamp(read_unix_seconds(path), "h", "timeF"))
    return columns, np.asarray(mean), np.asarray(std), data, marks


def evaluate_saved(args):
    with open(args.out + ".json") as f:
        meta = json.load(f)
    _, _, _, data, marks = load_data(args.data, meta["scaler"]["mean"], meta["scaler"]["std"])
    model = itr.ITransformer(meta)
    model.load_state_dict(torch.load(args.out + ".pt"))
    T, F = meta["seq_len"], meta["pred_len"]
    starts = ev.window_starts(ev.split_bounds(T)["test"], T, F)
    mse, mae = evaluate(model, data, marks, starts, T, F)
    print("test MSE %.4f MAE %.4f over %d windows (paper: MSE %.3f MAE %.3f)"
          % (mse, mae, len(starts), PAPER["mse"], PAPER["mae"]))


def main():
    ap = argparse.ArgumentParser(description="Train iTransformer on ETTh1 (horizon 96).")
    ap.add_argument("--data", default=ev.DEFAULT_DATA)
    ap.add_argument("--out", default=DEFAULT_OUT, help="output stem: writes STEM.pt and STEM.json")
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--lr-decay", type=float, default=0.5, help="lr multiplier after each epoch")
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--dropout", type=float, default=0.1)
    ap.add_argument("--d-model", type=int, default=256,
                    help="the paper's repository's ETTh1 script: 256 (TSLib's: 128, test MSE 0.399)")
    ap.add_argument("--d-ff", type=int, default=256)
    ap.add_argument("--patience", type=int, default=3, help="epochs without val improvement")
    ap.add_argument("--seed", type=int, default=2021)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--time-budget", type=float, default=600.0,
                    help="seconds of wall time; no epoch is started that would overrun it")
    ap.add_argument("--evaluate-only", action="store_true",
                    help="re-evaluate STEM.pt/STEM.json on the test split instead of training")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    if args.evaluate_only:
        evaluate_saved(args)
        return

    t_start = time.time()
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)
    columns, mean, std, data, marks = load_data(args.data)
    cfg = model_config(len(columns), args.dropout, args.d_model, args.d_ff)
    T, F = cfg["seq_len"], cfg["pred_len"]
    bounds = ev.split_bounds(T)
    starts = {k: ev.window_starts(b, T, F) for k, b in bounds.items()}
    print("windows:", {k: len(v) for k, v in starts.items()}, flush=True)

    model = itr.ITransformer(cfg)
    loss_fn = torch.nn.MSELoss()

    def batch_loss(batch):
        x, m, y = gather(data, marks, batch, T, F)
        return loss_fn(model(x, m), y)

    best, curve = training_loop.train(
        model, starts["train"], batch_loss,
        lambda: evaluate(model, data, marks, starts["val"], T, F), args, t_start)
    test_mse, test_mae = evaluate(model, data, marks, starts["test"], T, F)
    train_seconds = time.time() - t_start
    print("best epoch %d  val MSE %.4f  test MSE %.4f MAE %.4f  (paper %.3f / %.3f; %d test windows, %.0f s)"
          % (best["epoch"], best["val_mse"], test_mse, test_mae, PAPER["mse"], PAPER["mae"],
             len(starts["test"]), train_seconds), flush=True)

    scaler = {"columns": columns, "mean": mean.tolist(), "std": std.tolist()}
    split = "%d/%d/%d" % (ev.N_TRAIN, ev.N_VAL, ev.N_TEST)
    training_loop.save_checkpoint(args, model, cfg, "itransformer-etth1", scaler, best, len(curve),
                                  (test_mse, test_mae), starts, split, t_start,
                                  extra={"paper_test_mse": PAPER["mse"], "paper_test_mae": PAPER["mae"]})


if __name__ == "__main__":
    main()
