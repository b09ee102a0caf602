"""Seeded anomalies injected into a copy of a CSV, for the live-series detection check.

Three kinds, each at seeded random rows and columns that do not overlap, sized in
calibrated interval widths (the width of the model's `level` interval at horizon step 1
for that column, in raw units: 2 * quantile * std, from the model's config):
  - spike:       one row moved `size` widths away (up or down at random);
  - level_shift: `length` rows shifted by `size` widths (one direction);
  - stuck:       `length` rows repeating the value of the row before them (a frozen sensor).
Only rows at or after `first_row` are touched (the history before them stays clean).
The labels are (row, column, kind) for every changed point: what the detector should flag.
"""

import csv
import json
import random

KINDS = ("spike", "level_shift", "stuck")


def interval_widths(config_path, columns, level):
    """Each column's calibrated interval width at `level`, horizon step 1, raw units."""
    with open(config_path) as f:
        config = json.load(f)
    calibration = config["calibration"]
    li = calibration["levels"].index(level)
    scaler = config["scaler"]
    widths = {}
    for name in columns:
        c = scaler["columns"].index(name)
        widths[name] = 2 * calibration["quantiles"][li][0][c] * scaler["std"][c]
    return widths


def read_table(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


def inject(header, rows, widths, first_row, seed, per_kind=20, size=3.0, length=12):
    """Returns (new rows, labels). `rows` are CSV rows (time first, then values)."""
    rng = random.Random(seed)
    columns = header[1:]
    out = [list(r) for r in rows]
    taken = set()  # rows already changed, with a margin, so anomalies stay apart
    labels = []

    def free_span(span):
        for _ in range(10000):
            start = rng.randrange(first_row + 1, len(rows) - span)
            if all(r not in taken for r in range(start - 24, start + span + 24)):
                taken.update(range(start, start + span))
                return start
        raise RuntimeError("no room left for another anomaly: fewer per kind or more rows")

    for kind in KINDS:
        for _ in range(per_kind):
            span = 1 if kind == "spike" else length
            start = free_span(span)
            column = rng.randrange(len(columns))
            name = columns[column]
            sign = rng.choice((-1, 1))
            for row in range(start, start + span):
                value = float(out[row][column + 1])
                if kind == "stuck":
                    value = float(out[start - 1][column + 1])
                else:
                    value += sign * size * widths[name]
                out[row][column + 1] = "%.4f" % value
                labels.append((row, name, kind))
    return out, labels


def write_table(path, header, rows):
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows(rows)
