"""Write an untrained TSLib Transformer for the served benchmark (families_bench.sh).

    /usr/bin/python3 tests/bench/make_bench_transformer.py --out DIR

No trained Transformer is bundled, so the served speed of the Transformer family is taken
on untrained weights: Full attention does no data-dependent work, so the weights' values
do not change the timings. Writes DIR/transformer_bench.pt (torch.save(state_dict()) of
tests/reference/encdec_reference.py's model, seeded: deterministic) and
DIR/transformer_bench.json: the bundled Informer's dims and scaler, "model": "Transformer",
Full attention, no distilling, no calibration.
"""

import argparse
import json
import os
import sys

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "reference"))
import encdec_reference as ed  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    with open(os.path.join(ROOT, "model", "default", "informer_etth1.json")) as f:
        informer = json.load(f)
    config = {"model": "Transformer", "seq_len": 96, "label_len": 48, "pred_len": 96,
              "enc_in": 7, "dec_in": 7, "c_out": 7, "d_model": 128, "n_heads": 8,
              "e_layers": 2, "d_layers": 1, "d_ff": 512, "factor": 3, "embed": "timeF",
              "freq": "h", "features": "M", "activation": "gelu", "attention": "full",
              "dropout": 0.1, "name": "transformer-bench", "version": "1",
              "scaler": informer["scaler"]}
    torch.manual_seed(2021)
    model = ed.build_model(config).eval()
    os.makedirs(args.out, exist_ok=True)
    torch.save(model.state_dict(), os.path.join(args.out, "transformer_bench.pt"))
    with open(os.path.join(args.out, "transformer_bench.json"), "w") as f:
        json.dump(config, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
