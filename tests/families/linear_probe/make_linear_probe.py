#!/usr/bin/env python3
"""The test family's fixture (tests/families/linear_probe/): a LinearProbe checkpoint saved
by PyTorch, its config, and PyTorch's forecast of a seeded input, the independent reference
the served answer is compared with.

  make_linear_probe.py --out DIR   (writes DIR/linear_probe.{pt,json}, DIR/linear_probe_case.json)
"""
import argparse
import json
import os

import torch


class LinearProbe(torch.nn.Module):
    """forecast = linear(window), per variable: the model tsserve's family reproduces."""

    def __init__(self, seq_len, pred_len):
        super().__init__()
        self.linear = torch.nn.Linear(seq_len, pred_len)

    def forward(self, rows):
        return self.linear(rows)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    seq_len, pred_len, variables = 48, 12, 3
    torch.manual_seed(7)
    model = LinearProbe(seq_len, pred_len).eval()
    torch.save(model.state_dict(), os.path.join(args.out, "linear_probe.pt"))
    config = {"model": "LinearProbe", "name": "linear-probe", "version": "1",
              "seq_len": seq_len, "pred_len": pred_len,
              # Required by the shared config, unused by this family.
              "d_model": 1, "n_heads": 1, "e_layers": 1, "d_ff": 1}
    with open(os.path.join(args.out, "linear_probe.json"), "w") as f:
        json.dump(config, f)
    series = torch.randn(variables, seq_len) * 2 + 10
    with torch.no_grad():
        forecast = model(series)
    case = {"series": series.tolist(), "forecast": forecast.tolist()}
    with open(os.path.join(args.out, "linear_probe_case.json"), "w") as f:
        json.dump(case, f)


if __name__ == "__main__":
    main()
