"""Reference outputs of the bundled checkpoint (model/default), computed by PyTorch.

    /usr/bin/python3 tests/reference/make_bundled_model_fixture.py --out DIR

Loads model/default/patchtst_etth1.pt exactly as TSLib users have it (the OrderedDict
from torch.save(model.state_dict())) into the independent reference module and writes
DIR/bundled_model.pt (format: FIXTURES.md) with
  in.x              [2, 336, 7] scaled input windows (synthetic, seeded)
  out.forecast      [2, 96, 7]  the model's forecast (full attention, as trained)
  out.forecast_prob [2, 96, 7]  the same weights served with ProbSparse attention
                                (canonical layout, factor and seed from the config)
"""

import argparse
import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import patchtst_reference as ref  # noqa: E402

CHECKPOINT = os.path.join(ROOT, "model", "default", "patchtst_etth1.pt")


def load_reference(config_overrides=None):
    with open(CHECKPOINT[:-3] + ".json") as f:
        config = json.load(f)
    config.update(config_overrides or {})
    model = ref.PatchTST(config)
    model.load_state_dict(torch.load(CHECKPOINT, map_location="cpu"))
    return model.eval(), config


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)

    model, config = load_reference()
    prob_model, _ = load_reference({"attention": "prob", "prob_layout": "canonical"})
    torch.manual_seed(1234)
    # A random walk is closer to real load curves than white noise.
    x = torch.randn(2, config["seq_len"], config["enc_in"]).cumsum(1) * 0.2
    with torch.no_grad():
        d = {
            "config": json.dumps(config),
            "in.x": x,
            "out.forecast": model(x),
            "out.forecast_prob": prob_model(x),
        }
    torch.save(d, os.path.join(args.out, "bundled_model.pt"))
    print("wrote", os.path.join(args.out, "bundled_model.pt"))


if __name__ == "__main__":
    main()
