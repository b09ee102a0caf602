"""A PatchTST built for ETTh2, of another shape than the bundled ETTh1 model (T=96, F=48,
D=32, 2 layers), for the repository's mixed-model test: weights randomly initialised with
a fixed seed by the independent reference (patchtst_reference.py), and ETTh2's
StandardScaler over the training split (its first 8640 rows; population std, as the
bundled config's was computed), saved as PyTorch saves a state_dict, config beside it.

    /usr/bin/python3 tests/reference/make_etth2_model.py --out DIR [--data ETTh2.csv]
        -> DIR/patchtst_etth2.pt, DIR/patchtst_etth2.json
Without ETTh2.csv: DIR/patchtst_etth2.skipped naming it, and exit 77 (dataset_skip.py).
"""

import argparse
import csv
import json
import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import dataset_skip  # noqa: E402
import patchtst_reference as ref  # noqa: E402

DATA = os.path.join(HERE, "..", "..", "..", "shared", "data", "ETTh2.csv")
TRAIN_ROWS = 8640  # ETT's 12/4/4-month split of hourly data: 8640/2880/2880

CONFIG = {"name": "patchtst-etth2", "version": "1", "seq_len": 96, "pred_len": 48,
          "enc_in": 7, "d_model": 32, "n_heads": 4, "e_layers": 2, "d_ff": 64,
          "patch_len": 16, "stride": 8, "activation": "gelu", "norm": "batch",
          "attention": "full"}


def etth2_scaler(path):
    with open(path) as f:
        rows = list(csv.reader(f))
    columns = rows[0][1:]
    train = np.array([[float(x) for x in row[1:]] for row in rows[1:1 + TRAIN_ROWS]])
    return {"columns": columns, "mean": train.mean(axis=0).tolist(),
            "std": train.std(axis=0).tolist()}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--data", default=os.environ.get("TSSERVE_ETTH2", DATA))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    if not os.path.exists(args.data):
        # No ETTh2 scaler without ETTh2: no model, and the repository test that serves it
        # skips naming the file.
        dataset_skip.skip_case(args.out, "patchtst_etth2", args.data,
                               ["patchtst_etth2.pt", "patchtst_etth2.json"])
        return dataset_skip.SKIPPED
    config = dict(CONFIG, scaler=etth2_scaler(args.data))
    torch.manual_seed(2)
    model = ref.PatchTST(config).eval()
    torch.save(model.state_dict(), os.path.join(args.out, "patchtst_etth2.pt"))
    with open(os.path.join(args.out, "patchtst_etth2.json"), "w") as f:
        json.dump(config, f, indent=1)
    dataset_skip.case_made(args.out, "patchtst_etth2")
    return 0


if __name__ == "__main__":
    sys.exit(main())
