"""Train the bundled default model: PatchTST/42 on ETTh1, horizon 96.

    /usr/bin/python3 model/tools/train_patchtst.py                 # CPU, Debian's torch 1.13
    python3 model/tools/train_patchtst.py --device cuda --time-budget 0   # a GPU, torch 2.x

The defaults are the recipe of PatchTST's official supervised ETTh1 script
(PatchTST_supervised/scripts/PatchTST/etth1.sh with run_longExp.py's defaults): 100 epochs,
Adam at lr 1e-4, batch 128, lradj 'type3' (lr held for 3 epochs, then x0.9 per epoch),
dropout 0.3 in the backbone, no head dropout, no attention-weight dropout, instance
normalisation without affine weights (RevIN, affine=0). Validation MSE picks the epoch kept;
training stops after --patience epochs without a validation improvement, or before an epoch
that would overrun --time-budget (0: no budget).

Uses the independent reference model (tests/reference/patchtst_reference.py), so the saved
state_dict has exactly TSLib's keys (BatchNorm final norm variant). Writes <out>.pt
(torch.save(model.state_dict()), as TSLib does) and <out>.json (model config + scaler +
training summary with the validation curve). Test figures are computed on the CPU, so
evaluate_patchtst.py reproduces them wherever the model was trained.
"""

import argparse
import json
import os
import sys
import time

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import evaluate_patchtst as ev  # noqa: E402  (data split + metrics; also puts the reference on sys.path)
import patchtst_reference as ref  # noqa: E402
import training_loop  # noqa: E402


def model_config(n_vars, dropout):
    # PatchTST/42 ETTh1 hyper-parameters from the paper (D=16, H=4, 3 layers, d_ff=128).
    return {"seq_len": 336, "pred_len": 96, "enc_in": n_vars, "d_model": 16, "n_heads": 4,
            "e_layers": 3, "d_ff": 128, "factor": 3, "activation": "gelu",
            "patch_len": 16, "stride": 8, "norm": "batch", "attention": "full",
            "prob_layout": "canonical", "prob_seed": 0, "dropout": dropout}


def learning_rate(args, epoch):
    """lr of 1-based `epoch`. 'type3' is PatchTST's default schedule (utils/tools.py:
    adjust_learning_rate); 'exp' multiplies by --lr-decay after every epoch."""
    if args.lradj == "type3":
        return args.lr * 0.9 ** max(0, epoch - 3)
    return args.lr * args.lr_decay ** (epoch - 1)


def pick_device(name):
    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cuda" and not torch.cuda.is_available():
        sys.exit("--device cuda: no CUDA device is visible to torch %s" % torch.__version__)
    return torch.device(name)


def parse_args():
    ap = argparse.ArgumentParser(description="Train PatchTST on ETTh1 (horizon 96).")
    ap.add_argument("--data", default=ev.DEFAULT_DATA)
    ap.add_argument("--out", default=os.path.normpath(os.path.join(HERE, "..", "default", "patchtst_etth1")),
                    help="output stem: writes STEM.pt and STEM.json")
    ap.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    ap.add_argument("--epochs", type=int, default=100)
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--lradj", default="type3", choices=["type3", "exp"])
    ap.add_argument("--lr-decay", type=float, default=0.6, help="with --lradj exp: lr multiplier per epoch")
    ap.add_argument("--batch-size", type=int, default=128)
    ap.add_argument("--dropout", type=float, default=0.3, help="backbone dropout (embedding, residuals, FFN)")
    ap.add_argument("--head-dropout", type=float, default=0.0)
    ap.add_argument("--patience", type=int, default=20, help="epochs without val improvement")
    ap.add_argument("--seed", type=int, default=2021)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--time-budget", type=float, default=690.0,
                    help="seconds of wall time; no epoch is started that would overrun it (0: none)")
    return ap.parse_args()


def main():
    args = parse_args()
    t_start = time.time()
    device = pick_device(args.device)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)

    columns, raw = ev.read_csv(args.data)
    mean, std = ev.fit_scaler(raw)
    data_cpu = torch.from_numpy((raw - mean) / std).float()
    data = data_cpu.to(device)
    cfg = model_config(len(columns), args.dropout)
    T, F = cfg["seq_len"], cfg["pred_len"]
    bounds = ev.split_bounds(T)
    starts = {k: ev.window_starts(b, T, F) for k, b in bounds.items()}
    print("torch %s on %s; windows: %s" % (torch.__version__, device,
                                           {k: len(v) for k, v in starts.items()}), flush=True)

    model = ref.PatchTST(cfg)
    # As PatchTST's official model: no dropout on the attention weights (attn_dropout=0) and
    # head_dropout separate from the backbone's dropout. TSLib's module tree has one dropout
    # for all, so the rates are set per module; the keys and shapes stay TSLib's.
    for m in model.modules():
        if isinstance(m, ref.FullAttention):
            m.dropout.p = 0.0
    model.head.dropout.p = args.head_dropout
    model.to(device)
    loss_fn = torch.nn.MSELoss()

    def batch_loss(batch):
        x, y = ev.gather(data, batch, T, F)
        return loss_fn(model(x), y)

    best, curve = training_loop.train(model, starts["train"], batch_loss,
                                      lambda: ev.evaluate(model, data, starts["val"], T, F),
                                      args, t_start, lambda epoch: learning_rate(args, epoch))
    model.cpu()
    val_mse, val_mae = ev.evaluate(model, data_cpu, starts["val"], T, F)
    test_mse, test_mae = ev.evaluate(model, data_cpu, starts["test"], T, F)
    train_seconds = time.time() - t_start
    print("best epoch %d  val MSE %.4f  test MSE %.4f MAE %.4f  (%d test windows, %.0f s)"
          % (best["epoch"], val_mse, test_mse, test_mae, len(starts["test"]), train_seconds),
          flush=True)

    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    torch.save(model.state_dict(), args.out + ".pt")
    meta = dict(cfg)
    meta.update({
        "name": "patchtst-etth1",
        "version": "1",
        "scaler": {"columns": columns, "mean": mean.tolist(), "std": std.tolist()},
        "training": {
            "data": "ETTh1", "split": "%d/%d/%d" % (ev.N_TRAIN, ev.N_VAL, ev.N_TEST),
            "torch": torch.__version__, "device": str(device),
            "epochs_run": len(curve), "best_epoch": best["epoch"], "lr": args.lr,
            "lradj": args.lradj, "batch_size": args.batch_size, "dropout": args.dropout,
            "head_dropout": args.head_dropout, "attention_dropout": 0.0,
            "patience": args.patience, "seed": args.seed,
            "val_mse": val_mse, "val_mae": val_mae, "test_mse": test_mse, "test_mae": test_mae,
            "windows": {k: len(v) for k, v in starts.items()},
            "train_seconds": round(train_seconds, 1),
            "curve": curve,
        },
    })
    if args.lradj == "exp":
        meta["training"]["lr_decay"] = args.lr_decay
    with open(args.out + ".json", "w") as f:
        json.dump(meta, f, indent=2)
        f.write("\n")
    print("wrote %s.pt and %s.json" % (args.out, args.out), flush=True)


if __name__ == "__main__":
    main()
