"""The containerised server forecasts like PyTorch does: one real forecast from outside.

    /usr/bin/python3 tests/deploy/check_image_forecast.py --target HOST:PORT --out DIR

Writes a CSV in the ETTh1 layout (seeded random walk around the bundled model's scaler),
asks the server for a forecast with the example client (client/python/forecast_from_csv.py,
as a user would), and compares the printed table with the independent PyTorch reference
run on the same last seq_len rows. The image's own copy of the bundled model and its
build of LibTorch are what is under test here, so the bar is the client's print rounding.
"""

import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "reference"))
from check_forecast_csv import parse_table, random_window, reference_forecast, write_csv  # noqa: E402
from make_bundled_model_fixture import load_reference  # noqa: E402


def require(condition, message="check failed"):
    """The pass check: explicit, so it holds under PYTHONOPTIMIZE (an assert would not)."""
    if not condition:
        print("FAIL: %s" % (message,), file=sys.stderr)
        sys.exit(1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--target", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)

    model, config = load_reference()
    columns = config["scaler"]["columns"]
    raw = random_window(config, seed=5)
    csv_path = os.path.join(args.out, "image_window.csv")
    write_csv(csv_path, columns, raw)

    client = os.path.join(ROOT, "client", "python", "forecast_from_csv.py")
    run = subprocess.run([sys.executable, client, "--target", args.target, csv_path],
                         capture_output=True, text=True, timeout=120)
    require(run.returncode == 0, "client failed: %s%s" % (run.stdout, run.stderr))
    print(run.stdout.splitlines()[0])
    require("scaler applied: True" in run.stdout, run.stdout)
    printed = parse_table(run.stdout, columns)

    expected = reference_forecast(model, config, raw)
    error = (printed - expected).abs().max().item()
    print("max |container - PyTorch reference| = %.2e over %d x %d values" % (error, *expected.shape))
    require(printed.shape == expected.shape, (printed.shape, expected.shape))
    # The client prints 4 decimals (5e-5); float32 through a different build adds ~1e-5.
    require(error <= 1.6e-4, "the container's forecast differs from the reference by %g" % error)


if __name__ == "__main__":
    main()
