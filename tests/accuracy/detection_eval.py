"""Live-series anomaly detection on data nobody tuned on: ETTh1's test split with injected
anomalies (anomaly_injection.py), fed point by point through Observe.

    /usr/bin/python3 tests/accuracy/detection_eval.py --tsserve BIN --client BIN --work DIR \
        [--data ETTh1.csv] [--rows 0] [--seed 1] [--level 0.99] [--size 3] [--check]

The CSV: TSLib's ETTh1 test split (rows 11520 .. 14399) and the seq_len rows before it as
history; --rows keeps only that many test rows. Anomalies are injected into the test rows
(seeded), then `tsserve-client observe` sends the history in one call and every test row
alone, writing each point's flags. A point is detected when it lies outside its
forecast's interval at --level (the server's `anomaly`, the highest calibrated level, is
0.99 for the bundled model). Printed, as a Markdown table: per kind the recall (injected
points flagged), and the false-positive rate (clean points flagged). --check exits 1
unless every bound holds:
  - clean points (not within 24 rows after an anomaly of their column): flagged at the interval's own miss rate, 1 - level, within 4 binomial
    standard deviations of the count (both ways: too narrow flags too many, too wide too
    few);
  - spikes (--size widths) and small spikes (--small-spikes of --small-size widths, 1 in
    the test: small, so that an interval much wider than calibrated misses them): recall
    >= 0.9 each;
  - level shifts (--size widths, 12 rows): recall >= 0.75 (1.000 on the whole split);
  - stuck values: recall <= 0.1: an interval test does not see a frozen sensor (the
    forecast follows the frozen window; docs/intervals-and-accuracy.md says so), and a
    change there is a change the docs must follow.
--interval-scale K serves the model with every calibrated interval K times its width (a
copy of the config): the plant. --plant-scales 0.6,3 runs the check at each scale and
exits 1 unless every one fails it (the check knows a mis-scaled interval).
"""

import argparse
import json
import math
import os
import random
import subprocess
import sys

from anomaly_injection import KINDS, inject, interval_widths, read_table, write_table
from replay_accuracy_test import CONFIG, DEFAULT_CSV, TEST_ROWS, start_tsserve

SEQ_LEN = 336
SMALL_SPIKE = "small spike"
AFTER = "clean, <= 24 rows after an anomaly"  # printed, not checked


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tsserve", required=True)
    parser.add_argument("--client", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--data", default=DEFAULT_CSV)
    parser.add_argument("--rows", type=int, default=0, help="test rows used (0: all 2880)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--per-kind", type=int, default=20)
    parser.add_argument("--level", type=float, default=0.99)
    parser.add_argument("--size", type=float, default=3.0,
                        help="spike and shift size, in interval widths at --level")
    parser.add_argument("--small-spikes", type=int, default=0,
                        help="spikes of --small-size widths besides, each in a column with no "
                             "other anomaly within 24 rows (the model is channel independent)")
    parser.add_argument("--small-size", type=float, default=1.0,
                        help="the small spikes' size, in interval widths at --level")
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--interval-scale", type=float, default=1.0,
                        help="the plant: serve every calibrated interval this many times its width")
    parser.add_argument("--plant-scales", default="",
                        help="comma-separated scales; exit 1 unless --check fails at each")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    if args.plant_scales:
        return plants(args)
    return evaluate(args)


def plants(args):
    """Runs this script with --check at each scale; each must fail the check (exit 1)."""
    caught = True
    for scale in args.plant_scales.split(","):
        argv = [sys.executable, os.path.abspath(__file__)]
        skip = {"--plant-scales", "--work", "--interval-scale"}
        rest = sys.argv[1:]
        i = 0
        while i < len(rest):
            if rest[i] in skip:
                i += 2
                continue
            if rest[i].split("=")[0] in skip or rest[i] == "--check":
                i += 1
                continue
            argv.append(rest[i])
            i += 1
        argv += ["--work", os.path.join(args.work, "scale-%s" % scale), "--interval-scale", scale,
                 "--check"]
        run = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        print(run.stdout)
        if run.returncode != 1 or "check failed" not in run.stdout:
            print("PLANT MISSED: intervals x%s passed the check (exit %d)" % (scale, run.returncode))
            caught = False
        else:
            print("plant caught: intervals x%s fail the check" % scale)
    return 0 if caught else 1


def add_spikes(header, rows, labels, widths, first_row, seed, count, size):
    """`count` spikes of `size` widths (kind SMALL_SPIKE), each in a column with no anomaly
    within 24 rows of it in that column (PatchTST forecasts each variable alone)."""
    rng = random.Random(seed + 1000)
    columns = header[1:]
    near = {}
    for row, name, _ in labels:
        near.setdefault(name, set()).update(range(row - 24, row + 25))
    for _ in range(count):
        for _ in range(10000):
            row = rng.randrange(first_row + 1, len(rows) - 1)
            name = rng.choice(columns)
            if row not in near.get(name, ()):
                break
        else:
            raise RuntimeError("no room for another spike: fewer --small-spikes")
        near.setdefault(name, set()).update(range(row - 24, row + 25))
        column = columns.index(name)
        value = float(rows[row][column + 1]) + rng.choice((-1, 1)) * size * widths[name]
        rows[row][column + 1] = "%.4f" % value
        labels.append((row, name, SMALL_SPIKE))


def scaled_config(work, scale):
    """A copy of the bundled model's config with every calibrated quantile times `scale`."""
    with open(CONFIG) as f:
        config = json.load(f)
    config["calibration"]["quantiles"] = json.loads(json.dumps(
        config["calibration"]["quantiles"]), parse_float=lambda x: float(x) * scale)
    path = os.path.join(work, "patchtst_etth1_intervals_x%g.json" % scale)
    with open(path, "w") as f:
        json.dump(config, f)
    return path


def evaluate(args):

    header, rows = read_table(args.data)
    end = TEST_ROWS[1] if args.rows == 0 else TEST_ROWS[0] + args.rows
    rows = rows[TEST_ROWS[0] - SEQ_LEN:end]
    widths = interval_widths(CONFIG, header[1:], args.level)
    per_kind = args.per_kind if args.rows == 0 else max(2, args.per_kind * args.rows // 2880)
    injected, labels = inject(header, rows, widths, SEQ_LEN, args.seed, per_kind, args.size)
    add_spikes(header, injected, labels, widths, SEQ_LEN, args.seed, args.small_spikes,
               args.small_size)
    csv_path = os.path.join(args.work, "etth1_test_injected.csv")
    write_table(csv_path, header, injected)

    extra = [] if args.interval_scale == 1.0 else [
        "--model-config", scaled_config(args.work, args.interval_scale)]
    server, grpc_port, _ = start_tsserve(args.tsserve, args.work, extra)
    flags_path = os.path.join(args.work, "flags.jsonl")
    try:
        subprocess.run([args.client, "observe", csv_path, "--series-key", "etth1-test",
                        "--target", "127.0.0.1:%d" % grpc_port, "--out", flags_path, "--quiet"],
                       check=True)
    finally:
        server.terminate()
        server.wait(60)

    kind_of = {(row, name): kind for row, name, kind in labels}
    # A clean point within 24 rows after an anomaly of its column has that anomaly in its
    # window (the forecast it is checked against saw it): counted apart, not as clean.
    shadow = {(row + d, name) for row, name, _ in labels for d in range(1, 25)}
    found = {kind: [0, 0] for kind in KINDS + (SMALL_SPIKE, AFTER, "clean")}  # [flagged, points]
    with open(flags_path) as f:
        points = [json.loads(line) for line in f]
    for i, point in enumerate(points):
        row = i // (len(header) - 1)
        if row < SEQ_LEN or not point["scored"]:
            continue
        outside = any(b["outside"] for b in point["intervals"] if abs(b["level"] - args.level) < 1e-9)
        kind = kind_of.get((row, point["variable"]), "clean")
        if kind == "clean" and (row, point["variable"]) in shadow:
            kind = AFTER
        found[kind][0] += int(outside)
        found[kind][1] += 1

    print("| kind | injected points | flagged | recall / false-positive rate |")
    print("|---|---|---|---|")
    for kind in KINDS + (SMALL_SPIKE, AFTER, "clean"):
        flagged, total = found[kind]
        rate = flagged / total if total else float("nan")
        label = "clean (false positives)" if kind == "clean" else kind
        print("| %s | %d | %d | %.3f |" % (label, total, flagged, rate))
    print("level %.2f, seed %d, %d test rows, %d per kind, size %g interval widths, runs of 12"
          % (args.level, args.seed, len(rows) - SEQ_LEN, per_kind, args.size))
    if args.interval_scale != 1.0:
        print("PLANT: intervals served at %g times their calibrated width" % args.interval_scale)
    if args.check:
        failures = check_bounds(found, args.level)
        for failure in failures:
            print("check failed: %s" % failure)
        if failures:
            return 1
        print("PASS: every detection bound holds")
    return 0


def check_bounds(found, level):
    """What --check requires (the docstring's list); the failures, empty when all hold."""
    failures = []
    rate = {kind: found[kind][0] / found[kind][1] if found[kind][1] else float("nan")
            for kind in found}
    for kind in found:
        if found[kind][1] == 0 and kind not in (SMALL_SPIKE, AFTER):
            failures.append("no %s points were scored" % kind)
    flagged, clean = found["clean"]
    p = 1.0 - level
    expected = clean * p
    sd = math.sqrt(clean * p * (1 - p))
    if not expected - 4 * sd <= flagged <= expected + 4 * sd:
        failures.append("%d of %d clean points flagged, outside %.1f +- 4 x %.1f (the %g "
                        "interval's miss rate %g)" % (flagged, clean, expected, sd, level, p))
    for kind in ("spike", SMALL_SPIKE):
        if found[kind][1] and not rate[kind] >= 0.9:
            failures.append("%s recall %.3f < 0.9" % (kind, rate[kind]))
    if not rate["level_shift"] >= 0.75:
        failures.append("level-shift recall %.3f < 0.75" % rate["level_shift"])
    if not rate["stuck"] <= 0.1:
        failures.append("stuck recall %.3f > 0.1: the interval test now sees frozen values, "
                        "which docs/intervals-and-accuracy.md says it does not" % rate["stuck"])
    return failures


if __name__ == "__main__":
    sys.exit(main())
