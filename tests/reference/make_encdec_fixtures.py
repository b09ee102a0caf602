"""Write the Informer / Transformer fixtures (format: FIXTURES.md, "Encoder-decoder").

    /usr/bin/python3 tests/reference/make_encdec_fixtures.py --out DIR

- encdec/<case>.pt + encdec/<case>.json: a TSLib-style checkpoint
  (torch.save(model.state_dict())) of encdec_reference.py's model and its config (the
  model.json format: TSLib argument names); encdec/inf_distil_parallel.pt carries
  nn.DataParallel's `module.` prefix.
- encdec_<case>.pt: inputs (x_enc, x_mark_enc, x_dec, x_mark_dec in TSLib's layout, the
  timestamps [B, seq_len + pred_len] the marks come from, marks [B, seq_len + pred_len, C])
  and the reference's outputs: forecast [B, pred_len, c_out] (every column), served
  [B, n_out, pred_len] (TSLib's f_dim applied), encoder_attention.<i>, decoder_attention.<i>,
  cross_attention.<i>.
- encdec_marks.pt: the marks (pandas, TSLib's loader) of random instants 1900-2100 and of
  year edges, per (embed, freq).
Deterministic: every case seeds torch itself.
"""

import argparse
import calendar as cal
import json
import os
import sys
import time

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import encdec_reference as ed  # noqa: E402
import make_fixtures as mf  # noqa: E402

STEP_SECONDS = {"h": 3600, "t": 900}
MARK_ENCODINGS = [("timeF", "h"), ("timeF", "t"), ("fixed", "h"), ("fixed", "t"),
                  ("learned", "15min"), ("fixed", "d")]


def encdec_config(model, T, label, F, N, e, d, embed, freq, features="M", factor=1,
                  distil=None, layout=None, seed=0, c_out=None, H=4, act="gelu"):
    c = {"model": model, "seq_len": T, "label_len": label, "pred_len": F, "enc_in": N,
         "dec_in": N, "c_out": N if c_out is None else c_out, "d_model": 16, "n_heads": H,
         "e_layers": e, "d_layers": d, "d_ff": 32, "factor": factor, "activation": act,
         "embed": embed, "freq": freq, "features": features, "prob_seed": seed,
         "name": "encdec-fixture", "version": "1",
         "dropout": 0.1}  # training only: must have no effect in eval
    if distil is not None:
        c["distil"] = distil
    if layout is not None:
        c["prob_layout"] = layout
    return c


def timestamps_for(case, B, length, freq):
    """B windows of `length` steps at freq's step, from random hours in 2016-2020."""
    gen = torch.Generator().manual_seed(mf.hash_case(case) + 1)
    starts = 1451606400 + torch.randint(0, 5 * 365 * 24, (B,), generator=gen) * 3600
    return starts[:, None] + torch.arange(length)[None, :] * STEP_SECONDS[freq]


def encdec_case(out_dir, case, config, B=3, every_query_active=False):
    torch.manual_seed(mf.hash_case(case))
    model = mf.randomize_norms(ed.build_model(config))
    c = model.config
    T, label, F, N = c["seq_len"], c["label_len"], c["pred_len"], c["enc_in"]
    stamps = timestamps_for(case, B, T + F, c["freq"])
    marks = torch.stack([ed.marks(s.numpy(), c["freq"], c["embed"]) for s in stamps])
    x_enc = torch.randn(B, T, N) * 2 + 1
    x_dec = ed.decoder_input(x_enc, label, F)
    x_mark_enc, x_mark_dec = marks[:, :T], ed.decoder_marks(marks, label, F)
    with torch.no_grad():
        details = model.forecast_with_details(x_enc, x_mark_enc, x_dec, x_mark_dec)
    mf.check_topk_gaps(model, case)
    forecast = details["forecast"]
    assert forecast.shape == (B, F, c["c_out"]) and torch.isfinite(forecast).all(), case
    if every_query_active:
        # Every query active: TSLib's random sample gives the same answer.
        tslib = ed.build_model(config, sampling="tslib").eval()
        tslib.load_state_dict(model.state_dict())
        with torch.no_grad():
            again = tslib(x_enc, x_mark_enc, x_dec, x_mark_dec)
        assert torch.allclose(again, forecast, atol=1e-6), case
    served = ed.forecast_columns(forecast, c["features"]).transpose(1, 2)
    outputs = {"forecast": forecast, "served": served}
    for kind in ("encoder_attention", "decoder_attention", "cross_attention"):
        outputs.update({"%s.%d" % (kind, i): a for i, a in enumerate(details[kind])})
    inputs = {"x_enc": x_enc, "x_mark_enc": x_mark_enc, "x_dec": x_dec, "x_mark_dec": x_mark_dec,
              "timestamps": stamps, "marks": marks}
    mf.save_case(out_dir, "encdec_" + case, config, None, inputs, outputs)

    d = os.path.join(out_dir, "encdec")
    os.makedirs(d, exist_ok=True)
    torch.save(model.state_dict(), os.path.join(d, case + ".pt"))
    with open(os.path.join(d, case + ".json"), "w") as f:
        json.dump(config, f, indent=1)
    return model


def marks_case(out_dir):
    gen = np.random.default_rng(23)
    synthetic = np.unique(gen.integers(-2208988800, 4102444800, 3000, dtype=np.int64))
    edges = np.array([cal.timegm((y, m, dd, hh, mm, 0)) for y in (1900, 1970, 2000, 2016, 2100)
                      for (m, dd) in ((1, 1), (2, 28), (12, 31)) for hh in (0, 23)
                      for mm in (0, 14, 15, 59)], dtype=np.int64)
    seconds = np.unique(np.concatenate([synthetic, edges]))
    outputs = {"%s_%s" % (embed, freq): ed.marks(seconds, freq, embed)
               for embed, freq in MARK_ENCODINGS}
    mf.save_case(out_dir, "encdec_marks", {"encodings": MARK_ENCODINGS}, None,
                 {"timestamps": torch.from_numpy(seconds)}, outputs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.set_num_threads(1)
    t0 = time.time()
    cfg = encdec_config
    # factor 100: u = factor * ceil(ln L) >= L for every attention, so every query is active
    # and ProbSparse is TSLib's (whatever its sample) in TSLib's context layout.
    informer = encdec_case(args.out, "inf_distil_timef_t_all_active",
                           cfg("Informer", 32, 16, 8, 3, 3, 2, "timeF", "t", factor=100),
                           every_query_active=True)
    encdec_case(args.out, "inf_nodistil_fixed_s_all_active",
                cfg("Informer", 24, 12, 8, 1, 1, 1, "fixed", "h", features="S", factor=100,
                    distil=False, act="relu"), every_query_active=True)
    # factor 2 / 1: only some queries active; the reference uses the server's sampler.
    encdec_case(args.out, "inf_sampled_fixed_t_ms",
                cfg("Informer", 48, 12, 12, 4, 2, 1, "fixed", "t", features="MS", factor=2,
                    seed=3))
    encdec_case(args.out, "inf_sampled_canonical_learned",
                cfg("Informer", 48, 24, 16, 3, 3, 2, "learned", "h", factor=1, seed=5,
                    layout="canonical", H=2))
    encdec_case(args.out, "tr_fixed_m", cfg("Transformer", 36, 18, 12, 3, 2, 1, "fixed", "h"))
    encdec_case(args.out, "tr_timef_ms",
                cfg("Transformer", 24, 12, 6, 3, 1, 2, "timeF", "h", features="MS", c_out=2))
    # "MS" over ETTh1's 7 columns with the dataset's scaler (the bundled Informer's): OT,
    # the scaler's last column, is the target. Untrained; tsserve-calibrate's "MS" path is
    # checked on it against check_calibration.py, and the served intervals use its scaler.
    with open(os.path.join(HERE, "..", "..", "model", "default", "informer_etth1.json")) as f:
        etth1_scaler = json.load(f)["scaler"]
    encdec_case(args.out, "inf_etth1_ms",
                dict(cfg("Informer", 96, 48, 24, 7, 2, 1, "timeF", "h", features="MS", factor=3,
                         seed=7), scaler=etth1_scaler))
    sd = informer.state_dict()
    d = os.path.join(args.out, "encdec")
    torch.save({"module." + k: v for k, v in sd.items()},
               os.path.join(d, "inf_distil_parallel.pt"))
    with open(os.path.join(d, "inf_distil_timef_t_all_active.json")) as f:
        config = json.load(f)
    with open(os.path.join(d, "inf_distil_parallel.json"), "w") as f:
        json.dump(config, f, indent=1)
    marks_case(args.out)
    print("wrote Informer/Transformer fixtures to %s in %.1f s" % (args.out, time.time() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
