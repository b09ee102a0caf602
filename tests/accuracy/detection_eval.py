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
unless spikes are found (recall >= 0.9) and clean points rarely flagged (rate <= 0.1).
"""

import argparse
import json
import os
import subprocess
import sys

from anomaly_injection import KINDS, inject, interval_widths, read_table, write_table
from replay_accuracy_test import CONFIG, DEFAULT_CSV, TEST_ROWS, start_tsserve

SEQ_LEN = 336


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
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)

    header, rows = read_table(args.data)
    end = TEST_ROWS[1] if args.rows == 0 else TEST_ROWS[0] + args.rows
    rows = rows[TEST_ROWS[0] - SEQ_LEN:end]
    widths = interval_widths(CONFIG, header[1:], args.level)
    per_kind = args.per_kind if args.rows == 0 else max(2, args.per_kind * args.rows // 2880)
    injected, labels = inject(header, rows, widths, SEQ_LEN, args.seed, per_kind, args.size)
    csv_path = os.path.join(args.work, "etth1_test_injected.csv")
    write_table(csv_path, header, injected)

    server, grpc_port, _ = start_tsserve(args.tsserve, args.work, [])
    flags_path = os.path.join(args.work, "flags.jsonl")
    try:
        subprocess.run([args.client, "observe", csv_path, "--series-key", "etth1-test",
                        "--target", "127.0.0.1:%d" % grpc_port, "--out", flags_path, "--quiet"],
                       check=True)
    finally:
        server.terminate()
        server.wait(60)

    kind_of = {(row, name): kind for row, name, kind in labels}
    found = {kind: [0, 0] for kind in KINDS + ("clean",)}  # [flagged, points]
    with open(flags_path) as f:
        points = [json.loads(line) for line in f]
    for i, point in enumerate(points):
        row = i // (len(header) - 1)
        if row < SEQ_LEN or not point["scored"]:
            continue
        outside = any(b["outside"] for b in point["intervals"] if abs(b["level"] - args.level) < 1e-9)
        kind = kind_of.get((row, point["variable"]), "clean")
        found[kind][0] += int(outside)
        found[kind][1] += 1

    print("| kind | injected points | flagged | recall / false-positive rate |")
    print("|---|---|---|---|")
    for kind in KINDS + ("clean",):
        flagged, total = found[kind]
        rate = flagged / total if total else float("nan")
        label = "clean (false positives)" if kind == "clean" else kind
        print("| %s | %d | %d | %.3f |" % (label, total, flagged, rate))
    print("level %.2f, seed %d, %d test rows, %d per kind, size %g interval widths, runs of 12"
          % (args.level, args.seed, len(rows) - SEQ_LEN, per_kind, args.size))
    if args.check:
        spike = found["spike"][0] / max(1, found["spike"][1])
        clean = found["clean"][0] / max(1, found["clean"][1])
        if spike < 0.9 or clean > 0.1:
            print("check failed: spike recall %.3f (>= 0.9), clean rate %.3f (<= 0.1)" % (spike, clean))
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
