"""Write the TimeXer parity fixtures (format: FIXTURES.md).

    /usr/bin/python3 tests/reference/make_timexer_fixtures.py --out DIR [--tslib ROOT]

- tx_<case>.pt: TimeXer cases from timexer_reference.py (TSLib's models/TimeXer.py; the
  same dict layout as make_fixtures.py; timestamps as int64 Unix seconds, the time marks
  computed from them by TSLib's time_features via pandas). Features "MS", "M" and "S",
  with and without time marks, use_norm on and off, several seq_len and patch_len (one
  where patch_len does not divide seq_len: TSLib's unfold drops the last points).
- checkpoints/timexer.{pt,json}: a TSLib-style checkpoint (torch.save(model.state_dict()))
  and its config, with the reference forecast of one input (timexer_checkpoint_case.pt).

With --tslib ROOT (a checkout of thuml/Time-Series-Library), every case's forecast is
first checked against TSLib's own module on the same weights (check_against_tslib).
"""

import argparse
import json
import os
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import make_fixtures as mf  # noqa: E402
import make_itransformer_fixtures as mif  # noqa: E402
import timexer_reference as tx  # noqa: E402
import tslib_timefeatures as tf  # noqa: E402


def timexer_config(features, T, F, N, D, H, e, d_ff, patch_len, act, use_norm, freq=None):
    c = {"model": "TimeXer", "features": features, "seq_len": T, "pred_len": F, "enc_in": N,
         "c_out": N, "d_model": D, "n_heads": H, "e_layers": e, "d_ff": d_ff,
         "patch_len": patch_len, "activation": act, "use_norm": use_norm, "factor": 3,
         "dropout": 0.1}  # training only: must have no effect in eval
    if freq is None:
        c["calendar_tokens"] = False
    else:
        c.update({"calendar_tokens": True, "embed": "timeF", "freq": freq})
    return c


def marks_for(case, config, B):
    """Timestamps [B, T] and TSLib's marks of them [B, T, C], or (None, None)."""
    if not config["calendar_tokens"]:
        return None, None
    stamps = mif.timestamps_for(case, B, config["seq_len"], config["freq"])
    x_mark = torch.stack([torch.from_numpy(tf.stamp(s.numpy(), config["freq"])) for s in stamps])
    return stamps, x_mark


def timexer_case(out_dir, case, config, B, tslib_root):
    torch.manual_seed(mf.hash_case(case))
    model = mf.randomize_norms(tx.TimeXer(config))
    T, N = config["seq_len"], config["enc_in"]
    x = torch.randn(B, T, N) * 3 + 10
    inputs = {"x": x}
    stamps, x_mark = marks_for(case, config, B)
    if x_mark is not None:
        inputs.update({"timestamps": stamps, "x_mark": x_mark})
    with torch.no_grad():
        forecast, self_maps, cross_maps, enc_out = model.forecast_with_details(x, x_mark)
    if tslib_root:
        _, worst = tx.check_against_tslib(tslib_root, config, model.state_dict(), x, x_mark)
        print("%s: TSLib's module agrees within %.1e" % (case, worst))
    K = 1 if config["features"] != "M" else N
    assert forecast.shape == (B, config["pred_len"], K)
    outputs = {"forecast": forecast, "encoder_output": enc_out}
    outputs.update({"self_attention.%d" % i: a for i, a in enumerate(self_maps)})
    outputs.update({"cross_attention.%d" % i: a for i, a in enumerate(cross_maps)})
    mf.save_case(out_dir, case, config, model, inputs, outputs)


def checkpoint_files(out_dir):
    d = os.path.join(out_dir, "checkpoints")
    os.makedirs(d, exist_ok=True)
    config = timexer_config("MS", 48, 12, 4, 16, 4, 2, 32, 8, "gelu", 1, freq="h")
    torch.manual_seed(mf.hash_case("timexer_checkpoint"))
    model = mf.randomize_norms(tx.TimeXer(config))
    torch.save(model.state_dict(), os.path.join(d, "timexer.pt"))
    with open(os.path.join(d, "timexer.json"), "w") as f:
        json.dump(dict(config, name="timexer-fixture"), f)
    x = torch.randn(1, 48, 4) * 2 + 1
    stamps, x_mark = marks_for("timexer_checkpoint", config, 1)
    with torch.no_grad():
        forecast = model(x, x_mark)
    mf.save_case(out_dir, "timexer_checkpoint_case", config, None,
                 {"x": x, "timestamps": stamps}, {"forecast": forecast})


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--tslib", default="", help="a TSLib checkout to check every case against")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.set_num_threads(1)
    t0 = time.time()
    cfg = timexer_config
    cases = [
        ("tx_ms_calendar_norm", cfg("MS", 96, 24, 5, 16, 4, 2, 32, 16, "gelu", 1, "h"), 3),
        ("tx_ms_plain_raw", cfg("MS", 64, 12, 3, 16, 2, 1, 32, 8, "relu", 0), 2),
        ("tx_ms_two_variables_calendar_d", cfg("MS", 36, 6, 2, 12, 3, 3, 20, 6, "gelu", 1, "d"), 2),
        ("tx_m_calendar_norm", cfg("M", 48, 12, 3, 8, 1, 2, 16, 12, "gelu", 1, "h"), 2),
        # patch_len 7 does not divide 30: TSLib's unfold takes 4 patches, the last 2 points none.
        ("tx_m_plain_raw_ragged", cfg("M", 30, 7, 4, 16, 4, 1, 24, 7, "gelu", 0), 2),
        ("tx_s_calendar_t", cfg("S", 40, 10, 1, 8, 2, 2, 16, 10, "relu", 1, "t"), 2),
    ]
    for case, config, B in cases:
        timexer_case(args.out, case, config, B, args.tslib)
    checkpoint_files(args.out)
    print("wrote TimeXer fixtures to %s in %.1f s" % (args.out, time.time() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
