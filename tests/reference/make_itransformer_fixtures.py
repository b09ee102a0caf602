"""Write the iTransformer and calendar-feature fixtures (format: FIXTURES.md).

    /usr/bin/python3 tests/reference/make_itransformer_fixtures.py --out DIR [--data ETTh1.csv]

- itr_<case>.pt: iTransformer parity cases from itransformer_reference.py (same dict layout
  as make_fixtures.py; timestamps as int64 Unix seconds, the calendar rows computed from
  them by TSLib's time_features via pandas).
- calendar_etth1.pt / calendar_synthetic.pt: TSLib's time features of every ETTh1 date (and
  of random instants 1900-2100 at second resolution) for each frequency.
- checkpoints/itransformer.{pt,safetensors,json}: a TSLib-style checkpoint
  (torch.save(model.state_dict())), the same tensors as safetensors, its config, and the
  reference forecast of one input (itransformer_checkpoint_case.pt).
- itransformer_bundled_case.pt: the bundled model/default/itransformer_etth1 checkpoint's
  forecast and attention for ETTh1's first test window, in the CSV's units.
Without ETTh1.csv the two ETTh1 cases are skipped (<case>.skipped naming the file, exit 77:
dataset_skip.py); every other fixture is written.
"""

import argparse
import json
import os
import sys
import time

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import itransformer_reference as itr  # noqa: E402
import dataset_skip  # noqa: E402
import make_checkpoint_files as mcf  # noqa: E402
import make_fixtures as mf  # noqa: E402
import tslib_timefeatures as tf  # noqa: E402

DEFAULT_DATA = os.path.join(HERE, "..", "..", "..", "shared", "data", "ETTh1.csv")
CALENDAR_FREQS = ["s", "t", "min", "15min", "h", "4h", "d", "b", "w", "m", "q"]
STEP_SECONDS = {"h": 3600, "t": 900, "d": 86400}


def itransformer_config(T, F, N, D, H, e, d_ff, act, freq=None, attention="full", factor=1):
    c = {"model": "iTransformer", "seq_len": T, "pred_len": F, "enc_in": N, "d_model": D,
         "n_heads": H, "e_layers": e, "d_ff": d_ff, "activation": act, "attention": attention,
         "factor": factor, "prob_layout": "canonical", "prob_seed": 0,
         "dropout": 0.1}  # training only: must have no effect in eval
    if freq is None:
        c["calendar_tokens"] = False
    else:
        c.update({"calendar_tokens": True, "embed": "timeF", "freq": freq})
    return c


def timestamps_for(case, B, T, freq):
    """B windows of T steps at the frequency's step, from random starts in 2016-2020."""
    gen = torch.Generator().manual_seed(mf.hash_case(case) + 1)
    starts = 1451606400 + torch.randint(0, 5 * 365 * 86400 // 3600, (B,), generator=gen) * 3600
    return starts[:, None] + torch.arange(T)[None, :] * STEP_SECONDS[freq]


def itransformer_case(out_dir, case, config, B):
    torch.manual_seed(mf.hash_case(case))
    model = mf.randomize_norms(itr.ITransformer(config))
    T, N = config["seq_len"], config["enc_in"]
    x = torch.randn(B, T, N) * 3 + 10
    inputs = {"x": x}
    x_mark = None
    if config["calendar_tokens"]:
        stamps = timestamps_for(case, B, T, config["freq"])
        x_mark = torch.stack([torch.from_numpy(tf.stamp(s.numpy(), config["freq"])) for s in stamps])
        inputs.update({"timestamps": stamps, "x_mark": x_mark})
    with torch.no_grad():
        forecast, attns, enc_out = model.forecast_with_details(x, x_mark)
    mf.check_topk_gaps(model, case)
    C = 0 if x_mark is None else x_mark.shape[2]
    assert forecast.shape == (B, config["pred_len"], N)
    assert enc_out.shape == (B, N + C, config["d_model"])
    outputs = {"forecast": forecast, "encoder_output": enc_out}
    outputs.update({"attention.%d" % i: a for i, a in enumerate(attns)})
    if config["attention"] == "prob":
        # With every query active and every key sampled, ProbSparse is Full attention.
        full = itr.ITransformer(dict(config, attention="full")).eval()
        full.load_state_dict(model.state_dict())
        with torch.no_grad():
            assert torch.allclose(full(x, x_mark), forecast, atol=1e-5), case
    mf.save_case(out_dir, case, config, model, inputs, outputs)


def calendar_case(out_dir, case, seconds):
    outputs = {}
    for freq in CALENDAR_FREQS:
        # TSLib's data_stamp [T, C] -> the model's token rows [C, T].
        outputs[freq] = torch.from_numpy(tf.stamp(seconds, freq)).t().contiguous()
    mf.save_case(out_dir, case, {"freqs": CALENDAR_FREQS}, None,
                 {"timestamps": torch.from_numpy(seconds)}, outputs)


def checkpoint_files(out_dir):
    d = os.path.join(out_dir, "checkpoints")
    os.makedirs(d, exist_ok=True)
    config = itransformer_config(48, 12, 5, 16, 4, 2, 32, "gelu", freq="h")
    torch.manual_seed(mf.hash_case("itransformer_checkpoint"))
    model = mf.randomize_norms(itr.ITransformer(config))
    sd = model.state_dict()
    torch.save(sd, os.path.join(d, "itransformer.pt"))
    torch.save({"module." + k: v for k, v in sd.items()}, os.path.join(d, "itransformer_parallel.pt"))
    mcf.write_safetensors(os.path.join(d, "itransformer.safetensors"), sd, metadata={"format": "pt"})
    for stem in ("itransformer", "itransformer_parallel"):
        with open(os.path.join(d, stem + ".json"), "w") as f:
            json.dump(config, f)
    x = torch.randn(1, 48, 5) * 2 + 1
    stamps = timestamps_for("itransformer_checkpoint", 1, 48, "h")
    x_mark = torch.from_numpy(tf.stamp(stamps[0].numpy(), "h"))[None]
    with torch.no_grad():
        forecast = model(x, x_mark)
    mf.save_case(out_dir, "itransformer_checkpoint_case", config, None,
                 {"x": x, "timestamps": stamps}, {"forecast": forecast})



def bundled_case(out_dir, etth1_seconds, data_path):
    """The bundled model's forecast of ETTh1's first test window (raw units), by the reference."""
    stem = os.path.join(HERE, "..", "..", "model", "default", "itransformer_etth1")
    with open(stem + ".json") as f:
        config = json.load(f)
    model = itr.ITransformer(config).eval()
    model.load_state_dict(torch.load(stem + ".pt"))
    T = config["seq_len"]
    start = 12 * 30 * 24 + 4 * 30 * 24 - T  # the first test forecast starts at the split
    raw = np.loadtxt(data_path, delimiter=",", skiprows=1, usecols=range(1, 8), dtype=np.float64)
    x = torch.from_numpy(raw[start:start + T]).float()[None]
    stamps = torch.from_numpy(etth1_seconds[start:start + T])[None]
    x_mark = torch.from_numpy(tf.stamp(stamps[0].numpy(), config["freq"]))[None]
    with torch.no_grad():
        forecast, attns, _ = model.forecast_with_details(x, x_mark)
    outputs = {"forecast": forecast}
    outputs.update({"attention.%d" % i: a for i, a in enumerate(attns)})
    mf.save_case(out_dir, "itransformer_bundled_case", config, None, {"x": x, "timestamps": stamps},
                 outputs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--data", default=DEFAULT_DATA)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.set_num_threads(1)
    t0 = time.time()

    cfg = itransformer_config
    itransformer_case(args.out, "itr_gelu_calendar_h_n7", cfg(96, 24, 7, 16, 4, 2, 32, "gelu", "h"), 3)
    itransformer_case(args.out, "itr_relu_plain_n1", cfg(32, 8, 1, 8, 2, 1, 16, "relu"), 2)
    itransformer_case(args.out, "itr_gelu_calendar_t_n21", cfg(64, 16, 21, 16, 2, 3, 32, "gelu", "t"), 2)
    itransformer_case(args.out, "itr_relu_calendar_d_n3", cfg(40, 10, 3, 8, 1, 3, 16, "relu", "d"), 2)
    itransformer_case(args.out, "itr_gelu_plain_n12", cfg(96, 96, 12, 32, 8, 2, 64, "gelu"), 2)
    # factor 100: u = min(100 * ceil(ln 11), 11) = 11, every query active and every key sampled.
    itransformer_case(args.out, "itr_prob_every_query", cfg(96, 24, 7, 16, 4, 2, 32, "gelu", "h",
                                                            attention="prob", factor=100), 2)

    import calendar as cal
    have_data = os.path.exists(args.data)
    if have_data:
        with open(args.data) as f:
            rows = f.read().splitlines()[1:]
        etth1 = np.array([cal.timegm(time.strptime(r.split(",")[0], "%Y-%m-%d %H:%M:%S"))
                          for r in rows], dtype=np.int64)
        calendar_case(args.out, "calendar_etth1", etth1)
        dataset_skip.case_made(args.out, "calendar_etth1")
    else:
        dataset_skip.skip_case(args.out, "calendar_etth1", args.data)
    gen = np.random.default_rng(17)
    synthetic = np.unique(gen.integers(-2208988800, 4102444800, 4000, dtype=np.int64))  # 1900-2100
    # Year boundaries and leap days, where day-of-year and ISO weeks turn.
    edges = np.array([cal.timegm((y, m, d, hh, 0, 0)) for y in (1900, 1970, 2000, 2015, 2016, 2020, 2021, 2100)
                      for (m, d) in ((1, 1), (2, 29) if y % 4 == 0 and y != 1900 and y != 2100 else (2, 28),
                                     (12, 31)) for hh in (0, 23)], dtype=np.int64)
    calendar_case(args.out, "calendar_synthetic", np.unique(np.concatenate([synthetic, edges])))
    checkpoint_files(args.out)
    if have_data:
        bundled_case(args.out, etth1, args.data)
        dataset_skip.case_made(args.out, "itransformer_bundled_case")
    else:
        dataset_skip.skip_case(args.out, "itransformer_bundled_case", args.data)
    print("wrote iTransformer fixtures to %s in %.1f s" % (args.out, time.time() - t0))
    # Without the dataset every other fixture is written, and CTest reports this as skipped.
    return 0 if have_data else dataset_skip.SKIPPED


if __name__ == "__main__":
    sys.exit(main())
