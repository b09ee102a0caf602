"""How far the server's deterministic ProbSparse sample moves an Informer's forecasts, measured
against the spread of TSLib's own random samples.

    /usr/bin/python3 model/tools/prob_sampling_spread.py                     # bundled Informer
    /usr/bin/python3 model/tools/prob_sampling_spread.py --stem model/default/informer_etth1 --draws 5

On every test window of the model's dataset split (as train_informer.py), with the saved
model in eval mode:
  (a) test MSE/MAE with the deterministic sample (the reference's prob_sample_index at the
      config's prob_seed: what the server serves) and with K random draws as TSLib takes
      them (torch.randint per attention call, batches of 32, draw k seeded --seed + k);
  (b) per forecast value (window x horizon step x variable, scaled space): mean, 99th
      percentile and max of |deterministic - draw k| over all k, against the same of
      |draw i - draw j| over all pairs i < j (TSLib's own spread is the yardstick).
Prints a markdown table; --json writes the figures too.
"""

import argparse
import itertools
import json
import os
import sys
import time

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import train_informer as ti  # noqa: E402


@torch.no_grad()
def predict(model, data, marks, starts, cfg, batch_size=32):
    """-> (forecasts [n,F,N], truth [n,F,N]) in the scaled space."""
    model.eval()
    preds, trues = [], []
    for i in range(0, len(starts), batch_size):
        p, y = ti.forecast(model, data, marks, starts[i:i + batch_size], cfg)
        preds.append(p)
        trues.append(y)
    return torch.cat(preds), torch.cat(trues)


def metrics(pred, true):
    err = (pred - true).double()
    return float((err * err).mean()), float(err.abs().mean())


def summary(diffs):
    """diffs: list of tensors of |a - b| -> mean, p99, max over every value of all of them."""
    allv = torch.cat([d.flatten() for d in diffs]).double()
    k = max(1, int(round(0.99 * allv.numel())))
    return {"mean": float(allv.mean()), "p99": float(allv.kthvalue(k).values),
            "max": float(allv.max())}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--stem", default=ti.DEFAULT_OUT, help="STEM.pt and STEM.json")
    ap.add_argument("--data", default=ti.ev.DEFAULT_DATA)
    ap.add_argument("--draws", type=int, default=5, help="K random draws (TSLib's sampling)")
    ap.add_argument("--seed", type=int, default=2021, help="draw k is seeded seed + k")
    ap.add_argument("--split", default="test", choices=["val", "test"])
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--json", default=None, help="also write the figures to this file")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    t0 = time.time()

    meta, model, data, marks = ti.load_saved(args.stem, args.data)
    starts = ti.windows(meta)[args.split]

    ti.set_sampling(model, "deterministic")
    det, true = predict(model, data, marks, starts, meta)
    ti.set_sampling(model, "tslib")
    draws = []
    for k in range(args.draws):
        torch.manual_seed(args.seed + k)
        draws.append(predict(model, data, marks, starts, meta)[0])

    det_m = metrics(det, true)
    rnd_m = np.array([metrics(d, true) for d in draws])          # [K, 2]
    det_vs = summary([(det - d).abs() for d in draws])
    pairs = summary([(a - b).abs() for a, b in itertools.combinations(draws, 2)])
    mean_draw = torch.stack(draws).mean(0)
    det_vs_mean = summary([(det - mean_draw).abs()])

    out = {
        "model": meta.get("name"), "split": args.split, "windows": len(starts),
        "values_per_forecast_set": int(det.numel()), "draws": args.draws, "seed": args.seed,
        "prob_seed": meta.get("prob_seed", 0), "prob_layout": meta.get("prob_layout"),
        "deterministic": {"mse": det_m[0], "mae": det_m[1]},
        "random": {"mse": rnd_m[:, 0].tolist(), "mae": rnd_m[:, 1].tolist(),
                   "mse_mean": float(rnd_m[:, 0].mean()), "mse_std": float(rnd_m[:, 0].std(ddof=1)),
                   "mae_mean": float(rnd_m[:, 1].mean()), "mae_std": float(rnd_m[:, 1].std(ddof=1))},
        "abs_diff_deterministic_vs_draw": det_vs,
        "abs_diff_draw_vs_draw": pairs,
        "abs_diff_deterministic_vs_mean_of_draws": det_vs_mean,
        "seconds": round(time.time() - t0, 1),
    }

    r = out["random"]
    print("%s, %s split: %d windows x %d steps x %d variables; K = %d random draws (seeds %d..%d), "
          "deterministic sample prob_sample_index(seed %d); scaled space\n"
          % (out["model"], args.split, len(starts), det.shape[1], det.shape[2], args.draws,
             args.seed, args.seed + args.draws - 1, out["prob_seed"]))
    print("| sampler | %s MSE | %s MAE |" % (args.split, args.split))
    print("|---|---|---|")
    print("| deterministic (server) | %.4f | %.4f |" % det_m)
    print("| TSLib random, mean ± sd of %d draws | %.4f ± %.4f | %.4f ± %.4f |"
          % (args.draws, r["mse_mean"], r["mse_std"], r["mae_mean"], r["mae_std"]))
    print("| TSLib random, min .. max | %.4f .. %.4f | %.4f .. %.4f |"
          % (rnd_m[:, 0].min(), rnd_m[:, 0].max(), rnd_m[:, 1].min(), rnd_m[:, 1].max()))
    print()
    print("| per forecast value | mean abs diff | p99 abs diff | max abs diff |")
    print("|---|---|---|---|")
    for label, s in (("deterministic vs random draw (%d pairs)" % args.draws, det_vs),
                     ("random draw i vs draw j (%d pairs)" % (args.draws * (args.draws - 1) // 2), pairs),
                     ("deterministic vs mean of the draws", det_vs_mean)):
        print("| %s | %.4f | %.4f | %.4f |" % (label, s["mean"], s["p99"], s["max"]))
    print("\nratio det-vs-draw / draw-vs-draw: mean %.3f, max %.3f  (%.0f s)"
          % (det_vs["mean"] / pairs["mean"], det_vs["max"] / pairs["max"], out["seconds"]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)
            f.write("\n")


if __name__ == "__main__":
    main()
