"""Write golden test fixtures for the C++ implementation (format: FIXTURES.md).

    /usr/bin/python3 tests/reference/make_fixtures.py --out DIR

One `DIR/<case>.pt` per case: a plain dict saved with torch.save (readable by
torch::pickle_load) holding "config" (JSON string), "param.*", "in.*" and "out.*" tensors.
Deterministic: every case seeds torch itself, so cases are independent of each other.
"""

import argparse
import json
import os
import sys
import time

import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import patchtst_reference as ref  # noqa: E402

# ProbSparse selects the top-u queries by a float measure; if two candidates are closer than
# this, float32 rounding differences in C++ could legitimately pick the other one.
MIN_TOPK_GAP = 1e-4


def randomize_norms(module):
    """Non-trivial norm parameters/statistics so that a mix-up of them is detected."""
    with torch.no_grad():
        for m in module.modules():
            if isinstance(m, (nn.LayerNorm, nn.BatchNorm1d)):
                m.weight.copy_(1 + 0.1 * torch.randn_like(m.weight))
                m.bias.copy_(0.1 * torch.randn_like(m.bias))
            if isinstance(m, nn.BatchNorm1d):
                m.running_mean.copy_(0.1 * torch.randn_like(m.running_mean))
                m.running_var.copy_(torch.empty_like(m.running_var).uniform_(0.5, 1.5))
    return module.eval()


def check_topk_gaps(module, case):
    gaps = [m.last_topk_gap for m in module.modules() if isinstance(m, ref.ProbAttention)]
    if gaps:
        assert min(gaps) > MIN_TOPK_GAP, "%s: top-u selection too close to a tie (%g)" % (case, min(gaps))


def save_case(out_dir, case, config, module, inputs, outputs):
    d = {"config": json.dumps(config, sort_keys=True)}
    if module is not None:
        for name, t in module.state_dict().items():
            d["param." + name] = t.detach().clone().contiguous()
    # clone(): each tensor gets its own storage, so no entry drags a larger buffer along.
    for name, t in inputs.items():
        d["in." + name] = t.detach().clone().contiguous()
    for name, t in outputs.items():
        d["out." + name] = t.detach().clone().contiguous()
    torch.save(dict(d), os.path.join(out_dir, case + ".pt"))


# --------------------------------------------------------------------------- case builders


def inner_config(kind, mask_flag=False, factor=5, layout="canonical", seed=0):
    return {"kind": kind, "mask_flag": mask_flag, "factor": factor, "layout": layout, "seed": seed}


def attention_case(out_dir, case, cfg, B, L, S, H, E, valid_lengths=None, data_from=None):
    """data_from: take the random inputs of another case (to compare layouts on equal data)."""
    torch.manual_seed(hash_case(data_from or case))
    inner = ref.make_inner_attention(cfg).eval()
    q, k, v = torch.randn(B, L, H, E), torch.randn(B, S, H, E), torch.randn(B, S, H, E)
    inputs = {"queries": q, "keys": k, "values": v}
    vl = None
    if valid_lengths is not None:
        vl = torch.tensor(valid_lengths, dtype=torch.int64)
        inputs["valid_lengths"] = vl
    with torch.no_grad():
        context, attn = inner(q, k, v, vl)
    assert torch.isfinite(context).all() and torch.isfinite(attn).all(), case
    check_topk_gaps(inner, case)
    save_case(out_dir, case, cfg, None, inputs, {"context": context, "attention": attn})
    return context, attn, inputs


def attention_layer_case(out_dir, case, inner_cfg, B, L, S, D, H):
    torch.manual_seed(hash_case(case))
    layer = randomize_norms(ref.AttentionLayer(ref.make_inner_attention(inner_cfg), D, H))
    q, k, v = torch.randn(B, L, D), torch.randn(B, S, D), torch.randn(B, S, D)
    with torch.no_grad():
        out, attn = layer(q, k, v)
    check_topk_gaps(layer, case)
    config = {"d_model": D, "n_heads": H, "attention": inner_cfg}
    save_case(out_dir, case, config, layer, {"queries": q, "keys": k, "values": v},
              {"output": out, "attention": attn})


def encoder_layer_case(out_dir, case, B, L, D, H, d_ff, activation, inner_cfg):
    torch.manual_seed(hash_case(case))
    att = ref.AttentionLayer(ref.make_inner_attention(inner_cfg), D, H)
    layer = randomize_norms(ref.EncoderLayer(att, D, d_ff, activation))
    x = torch.randn(B, L, D)
    with torch.no_grad():
        out, attn = layer(x)
    config = {"d_model": D, "n_heads": H, "d_ff": d_ff, "activation": activation,
              "attention": inner_cfg}
    save_case(out_dir, case, config, layer, {"x": x}, {"output": out, "attention": attn})


def encoder_distil_case(out_dir, case):
    torch.manual_seed(hash_case(case))
    inner_cfg = inner_config("full")
    config = {"d_model": 16, "n_heads": 4, "d_ff": 32, "activation": "gelu", "e_layers": 3,
              "distil": True, "distil_padding": 2, "norm": "layer", "attention": inner_cfg}
    D = config["d_model"]
    layers = [ref.EncoderLayer(ref.AttentionLayer(ref.make_inner_attention(inner_cfg), D, 4),
                               D, 32, "gelu") for _ in range(3)]
    convs = [ref.ConvLayer(D, padding=2) for _ in range(2)]
    enc = randomize_norms(ref.Encoder(layers, convs, nn.LayerNorm(D)))
    x = torch.randn(2, 48, D)
    with torch.no_grad():
        out, attns = enc(x)
    outputs = {"output": out}
    outputs.update({"attention.%d" % i: a for i, a in enumerate(attns)})
    save_case(out_dir, case, config, enc, {"x": x}, outputs)


def patchtst_config(T, F, N, D, H, e, d_ff, patch, stride, norm, act, attention="full",
                    factor=3, layout="canonical", seed=0):
    return {"seq_len": T, "pred_len": F, "enc_in": N, "d_model": D, "n_heads": H,
            "e_layers": e, "d_ff": d_ff, "factor": factor, "activation": act,
            "patch_len": patch, "stride": stride, "norm": norm, "attention": attention,
            "prob_layout": layout, "prob_seed": seed,
            "dropout": 0.1}  # training only: must have no effect in eval


def patchtst_case(out_dir, case, config, B, small_scale=False):
    torch.manual_seed(hash_case(case))
    model = randomize_norms(ref.PatchTST(config))
    T, N = config["seq_len"], config["enc_in"]
    if small_scale:
        # Tiny variance and no large offset: the 1e-5 epsilon dominates the std, while
        # float32 centring stays well conditioned (an offset of 100 would not be).
        x = 1e-3 * torch.randn(B, T, N)
    else:
        x = torch.randn(B, T, N) * 3 + 10
    with torch.no_grad():
        forecast, attns, enc_out = model.forecast_with_details(x)
    check_topk_gaps(model, case)
    P = ref.patch_count(T, config["patch_len"], config["stride"])
    assert forecast.shape == (B, config["pred_len"], N)
    assert enc_out.shape == (B * N, P, config["d_model"])
    outputs = {"forecast": forecast, "encoder_output": enc_out}
    outputs.update({"attention.%d" % i: a for i, a in enumerate(attns)})
    save_case(out_dir, case, config, model, {"x": x}, outputs)


def hash_case(name):
    """Stable per-case seed (Python's hash() is salted per process)."""
    return sum((i + 1) * ord(c) for i, c in enumerate(name)) % (2 ** 31)


# --------------------------------------------------------------------------- case list


def build_all(out_dir):
    full, prob = "full", "prob"
    attention_case(out_dir, "full_basic", inner_config(full), 2, 12, 12, 4, 8)
    attention_case(out_dir, "full_causal", inner_config(full, mask_flag=True), 2, 12, 12, 2, 8)
    attention_case(out_dir, "full_cross", inner_config(full), 2, 7, 11, 4, 8)
    attention_case(out_dir, "full_key_padding", inner_config(full), 3, 10, 10, 2, 8,
                   valid_lengths=[10, 4, 0])

    attention_case(out_dir, "prob_canonical", inner_config(prob, factor=5, seed=7), 3, 96, 96, 4, 16)
    attention_case(out_dir, "prob_tslib", inner_config(prob, factor=5, layout="tslib", seed=7),
                   3, 96, 96, 4, 16, data_from="prob_canonical")
    attention_case(out_dir, "prob_causal", inner_config(prob, mask_flag=True, factor=3, seed=1),
                   2, 64, 64, 2, 8)
    attention_case(out_dir, "prob_h1_odd", inner_config(prob, factor=2, seed=3), 2, 37, 37, 1, 8)
    attention_case(out_dir, "prob_key_padding", inner_config(prob, factor=3, seed=4),
                   3, 50, 50, 2, 8, valid_lengths=[50, 20, 0])
    ctx, attn, inp = attention_case(out_dir, "prob_full_u", inner_config(prob, factor=100, seed=0),
                                    2, 12, 12, 2, 8)
    full_ctx, full_attn = ref.FullAttention(False)(inp["queries"], inp["keys"], inp["values"])
    assert torch.allclose(ctx, full_ctx, atol=1e-6) and torch.allclose(attn, full_attn, atol=1e-6)
    attention_case(out_dir, "prob_single", inner_config(prob, factor=5), 2, 1, 1, 2, 4)
    attention_case(out_dir, "prob_cross", inner_config(prob, factor=3, seed=9), 2, 20, 30, 2, 8)

    attention_layer_case(out_dir, "layer_full_cross", inner_config(full), 2, 10, 13, 16, 4)
    attention_layer_case(out_dir, "layer_prob_tslib",
                         inner_config(prob, factor=3, layout="tslib", seed=11), 2, 42, 42, 16, 4)

    encoder_layer_case(out_dir, "encoder_layer_gelu", 3, 42, 16, 4, 32, "gelu", inner_config(full))
    encoder_layer_case(out_dir, "encoder_layer_relu", 3, 42, 16, 2, 32, "relu", inner_config(full))
    encoder_distil_case(out_dir, "encoder_distil")

    bn_gelu = patchtst_config(96, 24, 3, 16, 4, 2, 32, 16, 8, "batch", "gelu")
    patchtst_case(out_dir, "patchtst_batchnorm_gelu", bn_gelu, 2)
    patchtst_case(out_dir, "patchtst_layernorm_relu",
                  patchtst_config(64, 12, 2, 16, 2, 2, 32, 12, 6, "layer", "relu"), 2)
    patchtst_case(out_dir, "patchtst_h1_odd",
                  patchtst_config(61, 7, 3, 8, 1, 1, 16, 7, 5, "batch", "gelu"), 2)
    patchtst_case(out_dir, "patchtst_prob_tslib",
                  patchtst_config(336, 96, 2, 16, 4, 3, 128, 16, 8, "batch", "gelu",
                                  attention="prob", factor=3, layout="tslib", seed=5), 2)
    patchtst_case(out_dir, "patchtst_small_scale", bn_gelu, 2, small_scale=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="directory for the <case>.pt files")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.set_num_threads(1)  # same numbers whatever the machine's core count
    t0 = time.time()
    build_all(args.out)
    n = len([f for f in os.listdir(args.out) if f.endswith(".pt")])
    print("wrote %d fixtures to %s in %.1f s" % (n, args.out, time.time() - t0))


if __name__ == "__main__":
    main()
