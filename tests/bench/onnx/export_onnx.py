#!/usr/bin/python3
"""Export the bundled PatchTST to ONNX for the ONNX Runtime peer benchmark (onnx_bench.js).

The model is the independent PyTorch reference (tests/reference/patchtst_reference.py)
with the bundled weights. torch 1.13 cannot export Tensor.unfold, so the patches are cut
with one index gather (same values). Input x [B, 336, 7] (B dynamic) -> forecast
[B, 96, 7]. Beside the .onnx file it writes a check case (input and PyTorch output, run on
a copy of the input so an in-place op in the export cannot change the reference), which
onnx_bench.js compares with ONNX Runtime's output (within 1e-4) before timing anything.

    /usr/bin/python3 tests/bench/onnx/export_onnx.py --out build/onnx
"""

import argparse
import json
import os
import sys

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "reference"))
import make_bundled_model_fixture as bundled  # noqa: E402


def gather_patches(embedding):
    """PatchEmbedding.forward with an index gather in place of unfold."""
    def forward(x):
        n_vars = x.shape[1]
        x = F.pad(x, (0, embedding.stride), mode="replicate")
        count = (x.shape[-1] - embedding.patch_len) // embedding.stride + 1
        index = (torch.arange(count).unsqueeze(1) * embedding.stride +
                 torch.arange(embedding.patch_len).unsqueeze(0))          # [P, patch_len]
        x = x[..., index]                                               # [B, N, P, patch_len]
        x = x.reshape(-1, x.shape[2], x.shape[3])
        x = embedding.value_embedding(x) + embedding.position_embedding(x.shape[1])
        return embedding.dropout(x), n_vars
    return forward


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="directory for patchtst.onnx and check.json")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(0)
    model, config = bundled.load_reference()
    x = torch.randn(2, config["seq_len"], 7) * 3 + 1
    with torch.no_grad():
        expected = model(x.clone())
        model.patch_embedding.forward = gather_patches(model.patch_embedding)
        gathered = model(x.clone())
        if not torch.equal(gathered, expected):
            raise SystemExit("the gather patching differs from unfold: %g" %
                             (gathered - expected).abs().max().item())
        path = os.path.join(args.out, "patchtst.onnx")
        torch.onnx.export(model, (x.clone(),), path, input_names=["x"], output_names=["forecast"],
                          dynamic_axes={"x": {0: "batch"}, "forecast": {0: "batch"}},
                          opset_version=13)
    with open(os.path.join(args.out, "check.json"), "w") as f:
        json.dump({"shape": list(x.shape), "x": x.flatten().tolist(),
                   "forecast_shape": list(expected.shape),
                   "forecast": expected.flatten().tolist()}, f)
    print(path)


if __name__ == "__main__":
    main()
