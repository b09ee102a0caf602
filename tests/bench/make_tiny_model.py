"""A trivially small PatchTST checkpoint (T=16, F=4, D=8, 1 layer), randomly initialised and
saved as PyTorch saves a state_dict, with its config beside it. Serving it exposes the
server's own overhead: its forward pass takes microseconds.

    /usr/bin/python3 tests/bench/make_tiny_model.py OUT_DIR   -> OUT_DIR/tiny.pt, tiny.json
"""

import json
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference"))
import patchtst_reference as ref  # noqa: E402

CONFIG = {"name": "tiny", "version": "1", "seq_len": 16, "pred_len": 4, "d_model": 8,
          "n_heads": 2, "e_layers": 1, "d_ff": 16, "patch_len": 8, "stride": 8,
          "activation": "gelu", "norm": "batch", "attention": "full"}


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    model = ref.PatchTST(CONFIG).eval()
    torch.save(model.state_dict(), os.path.join(out, "tiny.pt"))
    with open(os.path.join(out, "tiny.json"), "w") as f:
        json.dump(CONFIG, f, indent=1)


if __name__ == "__main__":
    main()
