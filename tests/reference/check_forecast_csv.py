"""End-to-end check of `tsserve-forecast-csv` with the bundled model.

    /usr/bin/python3 tests/reference/check_forecast_csv.py --tool PATH --out DIR

Writes a CSV in the ETTh1 layout (date + 7 columns, 400 rows, seeded), runs the tool on
it, and compares the printed forecast with the PyTorch reference run on the same last 336
rows (scaled with the config's scaler, inverse-scaled after). Also checks that a CSV with
a bad cell fails with a message naming the line and the column. Exit status 0 = pass.
"""

import argparse
import datetime
import os
import subprocess
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_bundled_model_fixture import load_reference  # noqa: E402


def require(condition, message="check failed"):
    """The pass check: explicit, so it holds under PYTHONOPTIMIZE (an assert would not)."""
    if not condition:
        print("FAIL: %s" % (message,), file=sys.stderr)
        sys.exit(1)


def write_csv(path, columns, values, bad_cell=None):
    start = datetime.datetime(2018, 1, 1)
    with open(path, "w") as f:
        f.write(",".join(["date"] + columns) + "\n")
        for r, row in enumerate(values.tolist()):
            cells = ["%.6f" % v for v in row]
            if bad_cell is not None and bad_cell[0] == r:
                cells[bad_cell[1]] = "n/a"
            stamp = (start + datetime.timedelta(hours=r)).strftime("%Y-%m-%d %H:%M:%S")
            f.write(",".join([stamp] + cells) + "\n")


def random_window(config, seed, rows=400):
    """Raw values [rows, columns]: seeded random walks around the model's scaler, rounded to
    the 6 decimals write_csv keeps, so a CSV reader and the reference see the same numbers."""
    scaler = config["scaler"]
    mean = torch.tensor(scaler["mean"], dtype=torch.float64)
    std = torch.tensor(scaler["std"], dtype=torch.float64)
    torch.manual_seed(seed)
    raw = mean + std * (torch.randn(rows, len(mean), dtype=torch.float64).cumsum(0) * 0.1)
    return torch.tensor([[float("%.6f" % v) for v in row] for row in raw.tolist()], dtype=torch.float64)


def reference_forecast(model, config, raw):
    """The PyTorch reference's forecast [F, columns] of the last seq_len rows, raw units."""
    scaler = config["scaler"]
    mean = torch.tensor(scaler["mean"], dtype=torch.float64)
    std = torch.tensor(scaler["std"], dtype=torch.float64)
    window = ((raw[-config["seq_len"]:] - mean) / std).float().unsqueeze(0)
    with torch.no_grad():
        return model(window)[0].double() * std + mean


def parse_table(stdout, columns):
    lines = stdout.strip().splitlines()
    header = lines[1].split()
    require(header == ["step"] + columns, "unexpected header %r" % lines[1])
    rows = [list(map(float, line.split()[1:])) for line in lines[2:]]
    return torch.tensor(rows, dtype=torch.float64)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tool", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)

    model, config = load_reference()
    columns = config["scaler"]["columns"]
    raw = random_window(config, seed=99)

    csv_path = os.path.join(args.out, "etth1_layout.csv")
    write_csv(csv_path, columns, raw)
    run = subprocess.run([args.tool, csv_path], capture_output=True, text=True)
    require(run.returncode == 0, run.stderr)
    printed = parse_table(run.stdout, columns)

    expected = reference_forecast(model, config, raw)
    # The tool prints 4 decimals; anything beyond rounding is a real difference.
    error = (printed - expected).abs().max().item()
    print("max |tool - reference| = %.2e over %d x %d values" % (error, *expected.shape))
    require(printed.shape == expected.shape, 'printed.shape == expected.shape: failed')
    require(error <= 6e-5 + 1e-4, "forecast differs from the reference by %g" % error)

    bad_path = os.path.join(args.out, "etth1_bad_cell.csv")
    write_csv(bad_path, columns, raw, bad_cell=(390, 3))
    bad = subprocess.run([args.tool, bad_path], capture_output=True, text=True)
    require(bad.returncode != 0, "a bad cell was accepted")
    require("line 392, column 'MULL': 'n/a' is not a finite number" in bad.stderr, bad.stderr)
    print("bad cell reported:", bad.stderr.strip())


if __name__ == "__main__":
    main()
