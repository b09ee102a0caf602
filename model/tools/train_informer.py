"""Train the bundled Informer on ETTh1 (horizon 96) on CPU with TSLib's recipe, and evaluate it.

    /usr/bin/python3 model/tools/train_informer.py > /tmp/train_informer.log 2>&1
    /usr/bin/python3 model/tools/train_informer.py --evaluate-only   # re-checks the saved model

TSLib's recipe (scripts/long_term_forecast/ETT_script/Informer_ETTh1.sh with run.py's
defaults): seq_len 96, label_len 48, pred_len 96, features M (7 in, 7 out), e_layers 2,
d_layers 1, factor 3, distil on, embed 'timeF' at freq 'h', gelu, dropout 0.1, Adam at lr
1e-4 halved each epoch (lradj 'type1'), batch 32, 10 epochs, patience 3 on the validation
MSE, MSE loss, seed 2021. Every attention is ProbSparse with TSLib's random key sample
(torch.randint from the global stream, in training and in evaluation alike, as TSLib's
vali/test run it) and TSLib's context layout (prob_layout 'tslib').

One deviation, to keep the checkpoint small in git and training in minutes on 2 cores:
d_model 128, n_heads 8, d_ff 512 (TSLib: 512 / 8 / 2048); the config's training block says
so ("width_note").

Data as TSLib's Dataset_ETT_hour: borders 12/4/4 months (the val/test windows start
seq_len rows before their split), StandardScaler fitted on the training rows, timeF marks
(tests/reference/tslib_timefeatures.py), x_dec = the last label_len input steps followed by
pred_len zeros, x_mark_dec = the marks of those steps. Test MSE/MAE over every test window
in the scaled space, as TSLib reports them; the random-sample figures are those of one
draw stream seeded with --eval-seed (so --evaluate-only reproduces them); the figures with
the server's deterministic sample (prob_sample_index, seed prob_seed) are recorded beside
them (model/tools/prob_sampling_spread.py measures the difference in detail).

Uses the independent reference (tests/reference/encdec_reference.py), so the saved
state_dict has TSLib's keys. Writes <out>.pt (torch.save(model.state_dict())) and <out>.json.
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
import training_loop  # noqa: E402
import evaluate_patchtst as ev  # noqa: E402  (data split; also puts tests/reference on sys.path)
import train_itransformer as itr_train  # noqa: E402  (timeF marks of the CSV's dates)
import encdec_reference as edr  # noqa: E402

DEFAULT_OUT = os.path.normpath(os.path.join(HERE, "..", "default", "informer_etth1"))
# TSLib-based papers' Informer on ETTh1, horizon 96 (MODEL_SPEC.md: about 0.87 / 0.71).
PAPER = {"mse": 0.865, "mae": 0.713}
WIDTH_NOTE = ("d_model 128, n_heads 8, d_ff 512 instead of TSLib's 512 / 8 / 2048: a small "
              "checkpoint in git and minutes of training on 2 CPU cores")


def model_config(n_vars, d_model, n_heads, d_ff, dropout):
    return {"model": "Informer", "seq_len": 96, "label_len": 48, "pred_len": 96,
            "enc_in": n_vars, "dec_in": n_vars, "c_out": n_vars,
            "d_model": d_model, "n_heads": n_heads, "e_layers": 2, "d_layers": 1, "d_ff": d_ff,
            "factor": 3, "distil": True, "embed": "timeF", "freq": "h", "features": "M",
            "activation": "gelu", "attention": "prob", "prob_layout": "tslib", "prob_seed": 0,
            "dropout": dropout}


# --------------------------------------------------------------------------- the model


def build_model(cfg, sampling="tslib"):
    """The reference's Informer (TSLib's module tree and state_dict names)."""
    return edr.build_model(cfg, sampling=sampling)


def set_sampling(model, mode):
    """mode "tslib": TSLib's torch.randint key sample from the global stream, one per
    attention call; "deterministic": prob_sample_index at the config's prob_seed (what the
    server computes)."""
    assert mode in ("tslib", "deterministic"), mode
    n = 0
    for m in model.modules():
        if isinstance(m, edr.ref.ProbAttention):
            m.sampling = mode
            n += 1
    assert n > 0, "no ProbAttention in the model"


# --------------------------------------------------------------------------- data


def load_data(path, mean=None, std=None):
    """-> (columns, mean, std, scaled data [rows, N] float32, timeF marks [rows, 4] float32)."""
    return itr_train.load_data(path, mean, std)


def gather(data, marks, starts, cfg):
    """-> x_enc [n,T,N], x_mark_enc [n,T,C], x_dec [n,label+F,N], x_mark_dec [n,label+F,C],
    y [n,F,N] (TSLib's Dataset_ETT_hour.__getitem__ and its decoder input)."""
    T, Lb, F = cfg["seq_len"], cfg["label_len"], cfg["pred_len"]
    enc = starts[:, None] + torch.arange(T)[None, :]
    dec = starts[:, None] + (T - Lb) + torch.arange(Lb + F)[None, :]
    x, x_mark = data[enc], marks[enc]
    seq_y, y_mark = data[dec], marks[dec]
    x_dec = edr.decoder_input_from_batch_y(seq_y, Lb, F)
    return x, x_mark, x_dec, y_mark, seq_y[:, Lb:]


def forecast(model, data, marks, starts, cfg):
    x, xm, xd, ym, y = gather(data, marks, starts, cfg)
    pred = edr.forecast_columns(model(x, xm, xd, ym), cfg["features"])
    return pred, edr.forecast_columns(y, cfg["features"])


@torch.no_grad()
def evaluate(model, data, marks, starts, cfg, batch_size=32):
    """-> (MSE, MAE) over every window, variable and horizon step (float64 sums). Batches of
    32 as TSLib's vali/test loaders: a random key sample is drawn per attention call, so the
    batch size sets how many independent draws a figure averages over."""
    model.eval()
    se = ae = 0.0
    n = 0
    for i in range(0, len(starts), batch_size):
        pred, y = forecast(model, data, marks, starts[i:i + batch_size], cfg)
        err = (pred - y).double()
        se += float((err * err).sum())
        ae += float(err.abs().sum())
        n += err.numel()
    return se / n, ae / n


def evaluate_random(model, data, marks, starts, cfg, seed):
    """Random-sample figures of one draw stream seeded with `seed` (TSLib's vali/test sample
    with the global stream; seeding it makes the figure reproducible)."""
    set_sampling(model, "tslib")
    state = torch.get_rng_state()
    torch.manual_seed(seed)
    try:
        return evaluate(model, data, marks, starts, cfg)
    finally:
        torch.set_rng_state(state)


def evaluate_deterministic(model, data, marks, starts, cfg):
    set_sampling(model, "deterministic")
    try:
        return evaluate(model, data, marks, starts, cfg)
    finally:
        set_sampling(model, "tslib")


def windows(cfg):
    """Window starts per split. TSLib's borders; a window spans seq_len + pred_len rows (its
    label_len decoder steps lie inside the input)."""
    T, F = cfg["seq_len"], cfg["pred_len"]
    return {k: ev.window_starts(b, T, F) for k, b in ev.split_bounds(T).items()}


def load_saved(stem, data_path=ev.DEFAULT_DATA):
    """-> (meta, model in eval mode, data, marks) of a saved STEM.pt / STEM.json."""
    with open(stem + ".json") as f:
        meta = json.load(f)
    columns, _, _, data, marks = load_data(data_path, meta["scaler"]["mean"], meta["scaler"]["std"])
    assert columns == meta["scaler"]["columns"], (columns, meta["scaler"]["columns"])
    model = build_model(meta)
    model.load_state_dict(torch.load(stem + ".pt", map_location="cpu"), strict=True)
    model.eval()
    return meta, model, data, marks


def evaluate_saved(args):
    meta, model, data, marks = load_saved(args.out, args.data)
    starts = windows(meta)
    seed = meta["training"]["eval_seed"]
    for split in ("val", "test"):
        mse, mae = evaluate_random(model, data, marks, starts[split], meta, seed)
        dmse, dmae = evaluate_deterministic(model, data, marks, starts[split], meta)
        stored = meta["training"]
        print("%s (%d windows): random sample (seed %d) MSE %.6f MAE %.6f  [stored %.6f / %.6f];"
              "  deterministic MSE %.6f MAE %.6f  [stored %.6f / %.6f]"
              % (split, len(starts[split]), seed, mse, mae, stored[split + "_mse"],
                 stored[split + "_mae"], dmse, dmae, stored[split + "_mse_deterministic"],
                 stored[split + "_mae_deterministic"]))
    print("paper: MSE %.3f MAE %.3f" % (PAPER["mse"], PAPER["mae"]))


def main():
    ap = argparse.ArgumentParser(description="Train Informer on ETTh1 (horizon 96), TSLib's recipe.")
    ap.add_argument("--data", default=ev.DEFAULT_DATA)
    ap.add_argument("--out", default=DEFAULT_OUT, help="output stem: writes STEM.pt and STEM.json")
    ap.add_argument("--epochs", type=int, default=6,
                    help="TSLib: 10. 6 here: an epoch takes about 5 minutes on one CPU thread, and "
                         "lradj type1 has the lr at 1/32 of its start by epoch 6")
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--lr-decay", type=float, default=0.5,
                    help="lr multiplier after each epoch (0.5: TSLib's lradj type1)")
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--dropout", type=float, default=0.1)
    ap.add_argument("--d-model", type=int, default=128, help="TSLib: 512 (see WIDTH_NOTE)")
    ap.add_argument("--n-heads", type=int, default=8)
    ap.add_argument("--d-ff", type=int, default=512, help="TSLib: 2048 (see WIDTH_NOTE)")
    ap.add_argument("--patience", type=int, default=3, help="epochs without val improvement")
    ap.add_argument("--seed", type=int, default=2021)
    ap.add_argument("--eval-seed", type=int, default=2021,
                    help="seed of the random key samples behind the stored val/test figures")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--time-budget", type=float, default=0.0,
                    help="seconds of wall time; no epoch is started that would overrun it (0: none)")
    ap.add_argument("--evaluate-only", action="store_true",
                    help="re-evaluate STEM.pt/STEM.json on the val and test splits instead of training")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    if args.evaluate_only:
        evaluate_saved(args)
        return

    t_start = time.time()
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)
    columns, mean, std, data, marks = load_data(args.data)
    cfg = model_config(len(columns), args.d_model, args.n_heads, args.d_ff, args.dropout)
    starts = windows(cfg)
    print("torch %s, %d thread(s); windows: %s" % (torch.__version__, torch.get_num_threads(),
                                                  {k: len(v) for k, v in starts.items()}), flush=True)

    model = build_model(cfg)
    set_sampling(model, "tslib")
    print("parameters: %d" % sum(p.numel() for p in model.parameters()), flush=True)
    loss_fn = torch.nn.MSELoss()

    def batch_loss(batch):
        pred, y = forecast(model, data, marks, batch, cfg)
        return loss_fn(pred, y)

    # Validation during training draws from the global stream, as TSLib's vali() does.
    best, curve = training_loop.train(
        model, starts["train"], batch_loss,
        lambda: evaluate(model, data, marks, starts["val"], cfg), args, t_start)
    train_seconds = time.time() - t_start
    epoch_seconds = train_seconds / len(curve)

    figures = {}
    for split in ("val", "test"):
        figures[split] = evaluate_random(model, data, marks, starts[split], cfg, args.eval_seed)
        figures[split + "_det"] = evaluate_deterministic(model, data, marks, starts[split], cfg)
    print("best epoch %d  val MSE %.4f  test MSE %.4f MAE %.4f (random sample, seed %d); "
          "deterministic sample: test MSE %.4f MAE %.4f  (paper %.3f / %.3f; %d test windows, %.0f s)"
          % (best["epoch"], figures["val"][0], figures["test"][0], figures["test"][1],
             args.eval_seed, figures["test_det"][0], figures["test_det"][1], PAPER["mse"],
             PAPER["mae"], len(starts["test"]), train_seconds), flush=True)

    scaler = {"columns": columns, "mean": mean.tolist(), "std": std.tolist()}
    split = "%d/%d/%d" % (ev.N_TRAIN, ev.N_VAL, ev.N_TEST)
    extra = {
        "recipe": "TSLib scripts/long_term_forecast/ETT_script/Informer_ETTh1.sh (run.py defaults)",
        "width_note": WIDTH_NOTE,
        "lradj": "type1", "train_epochs": args.epochs, "patience": args.patience,
        "epochs_note": ("TSLib: train_epochs 10; %d here (an epoch took about %.0f s with one "
                        "CPU thread), early stopping on validation kept" % (args.epochs, epoch_seconds)
                        if args.epochs != 10 else "TSLib's train_epochs 10"),
        "epoch_seconds_mean": round(epoch_seconds, 1),
        "dropout": args.dropout, "loss": "MSE", "optimizer": "Adam",
        "torch": torch.__version__, "threads": args.threads,
        "prob_sampling": "training, validation and the val/test figures: TSLib's random "
                         "torch.randint key sample; *_deterministic: prob_sample_index with "
                         "prob_seed, as the server computes it",
        "eval_seed": args.eval_seed,
        "val_mse_during_training": best["val_mse"],
        "val_mse": figures["val"][0], "val_mae": figures["val"][1],
        "val_mse_deterministic": figures["val_det"][0], "val_mae_deterministic": figures["val_det"][1],
        "test_mse_deterministic": figures["test_det"][0],
        "test_mae_deterministic": figures["test_det"][1],
        "paper_test_mse": PAPER["mse"], "paper_test_mae": PAPER["mae"],
        "curve": curve,
    }
    training_loop.save_checkpoint(args, model, cfg, "informer-etth1", scaler, best, len(curve),
                                  figures["test"], starts, split, t_start, extra=extra)


if __name__ == "__main__":
    main()
