"""Train the bundled default model: PatchTST/42 on ETTh1, horizon 96, on CPU.

    nohup /usr/bin/python3 model/tools/train_patchtst.py > /tmp/train.log 2>&1 &

Uses the independent reference model (tests/reference/patchtst_reference.py), so the saved
state_dict has exactly TSLib's keys (BatchNorm final norm variant). Writes
<out>.pt (torch.save(model.state_dict()), as TSLib does) and <out>.json (model config +
scaler + training summary). Validation MSE picks the best epoch (early stopping); a wall-clock
budget stops training early on slow machines. Re-check with evaluate_patchtst.py.
"""

import argparse
import os
import sys
import time

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import training_loop  # noqa: E402
import evaluate_patchtst as ev  # noqa: E402  (data split + metrics; also puts the reference on sys.path)
import patchtst_reference as ref  # noqa: E402


def model_config(n_vars, dropout):
    # PatchTST/42 ETTh1 hyper-parameters from the paper (D=16, H=4, 3 layers, d_ff=128).
    return {"seq_len": 336, "pred_len": 96, "enc_in": n_vars, "d_model": 16, "n_heads": 4,
            "e_layers": 3, "d_ff": 128, "factor": 3, "activation": "gelu",
            "patch_len": 16, "stride": 8, "norm": "batch", "attention": "full",
            "prob_layout": "canonical", "prob_seed": 0, "dropout": dropout}


def main():
    ap = argparse.ArgumentParser(description="Train PatchTST on ETTh1 (horizon 96).")
    ap.add_argument("--data", default=ev.DEFAULT_DATA)
    ap.add_argument("--out", default=os.path.normpath(os.path.join(HERE, "..", "default", "patchtst_etth1")),
                    help="output stem: writes STEM.pt and STEM.json")
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--lr-decay", type=float, default=0.6, help="lr multiplier after each epoch")
    ap.add_argument("--batch-size", type=int, default=128)
    ap.add_argument("--dropout", type=float, default=0.2)
    ap.add_argument("--patience", type=int, default=3, help="epochs without val improvement")
    ap.add_argument("--seed", type=int, default=2021)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--time-budget", type=float, default=690.0,
                    help="seconds of wall time; no epoch is started that would overrun it")
    args = ap.parse_args()

    t_start = time.time()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)

    columns, raw = ev.read_csv(args.data)
    mean, std = ev.fit_scaler(raw)
    data = torch.from_numpy((raw - mean) / std).float()
    cfg = model_config(len(columns), args.dropout)
    T, F = cfg["seq_len"], cfg["pred_len"]
    bounds = ev.split_bounds(T)
    starts = {k: ev.window_starts(b, T, F) for k, b in bounds.items()}
    print("windows:", {k: len(v) for k, v in starts.items()}, flush=True)

    model = ref.PatchTST(cfg)
    # The attention-weight dropout (TSLib applies it) is switched off: on this CPU it costs
    # ~1/3 of a training step, and the time is better spent on more steps.
    for m in model.modules():
        if isinstance(m, ref.FullAttention):
            m.dropout.p = 0.0
    loss_fn = torch.nn.MSELoss()

    def batch_loss(batch):
        x, y = ev.gather(data, batch, T, F)
        return loss_fn(model(x), y)

    best, epochs_run = training_loop.train(model, starts["train"], batch_loss,
                                           lambda: ev.evaluate(model, data, starts["val"], T, F),
                                           args, t_start)
    test_mse, test_mae = ev.evaluate(model, data, starts["test"], T, F)
    train_seconds = time.time() - t_start
    print("best epoch %d  val MSE %.4f  test MSE %.4f MAE %.4f  (%d test windows, %.0f s)"
          % (best["epoch"], best["val_mse"], test_mse, test_mae, len(starts["test"]), train_seconds),
          flush=True)

    scaler = {"columns": columns, "mean": mean.tolist(), "std": std.tolist()}
    split = "%d/%d/%d" % (ev.N_TRAIN, ev.N_VAL, ev.N_TEST)
    training_loop.save_checkpoint(args, model, cfg, "patchtst-etth1", scaler, best, epochs_run,
                                  (test_mse, test_mae), starts, split, t_start)


if __name__ == "__main__":
    main()
