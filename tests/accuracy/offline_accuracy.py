"""MAE / MSE of a replay's forecasts, computed offline from the forecasts themselves.

    /usr/bin/python3 tests/accuracy/offline_accuracy.py FORECASTS.jsonl CSV MODEL_CONFIG.json

Independent of the server: reads the forecasts `tsserve-client replay --out` wrote (raw
units, as the server answered), the CSV's actual rows, and the model config's scaler, and
scores every (forecast, row, variable) once, in the scaled space (x - mean) / std, by the
server's horizon buckets (1-24, 25-48, 49-96, ... steps ahead). Forecasts that carry
prediction intervals also score coverage: the actual inside [lower, upper] (raw units, as
answered). Prints one JSON object: {bucket: {"abs": sum, "squared": sum, "points": n,
"covered": {level: n}, "interval_points": {level: n}}}.
"""

import csv
import json
import sys
from datetime import datetime, timezone

BOUNDS = [(1, 24, "1-24"), (25, 48, "25-48"), (49, 96, "49-96"), (97, 192, "97-192"),
          (193, 336, "193-336"), (337, 720, "337-720")]


def require(condition, message="check failed"):
    """The pass check: explicit, so it holds under PYTHONOPTIMIZE (an assert would not)."""
    if not condition:
        print("FAIL: %s" % (message,), file=sys.stderr)
        sys.exit(1)


def bucket(step):
    for low, high, name in BOUNDS:
        if low <= step <= high:
            return name
    return "721+"


def offline_accuracy(forecasts_path, csv_path, config_path):
    with open(config_path) as f:
        scaler = json.load(f)["scaler"]
    mean = dict(zip(scaler["columns"], scaler["mean"]))
    std = dict(zip(scaler["columns"], scaler["std"]))
    actual = {}
    with open(csv_path) as f:
        reader = csv.reader(f)
        header = next(reader)
        for row in reader:
            when = datetime.strptime(row[0], "%Y-%m-%d %H:%M:%S").replace(tzinfo=timezone.utc)
            actual[int(when.timestamp())] = dict(zip(header[1:], map(float, row[1:])))
    sums = {}
    seen = set()
    with open(forecasts_path) as f:
        for number, line in enumerate(f):
            forecast = json.loads(line)
            require(forecast["scaler_applied"], "the replay's forecasts should be scaled")
            for n, name in enumerate(forecast["variables"]):
                for k, time in enumerate(forecast["forecast_timestamps"]):
                    if time not in actual or (number, n, k) in seen:
                        continue
                    seen.add((number, n, k))
                    f_scaled = (forecast["forecast"][n][k] - mean[name]) / std[name]
                    a_scaled = (actual[time][name] - mean[name]) / std[name]
                    error = f_scaled - a_scaled
                    s = sums.setdefault(bucket(k + 1), {"abs": 0.0, "squared": 0.0, "points": 0,
                                                        "covered": {}, "interval_points": {}})
                    s["abs"] += abs(error)
                    s["squared"] += error * error
                    s["points"] += 1
                    for interval in forecast.get("intervals", []):
                        level = "%.6g" % interval["level"]
                        inside = interval["lower"][n][k] <= actual[time][name] <= interval["upper"][n][k]
                        s["covered"][level] = s["covered"].get(level, 0) + int(inside)
                        s["interval_points"][level] = s["interval_points"].get(level, 0) + 1
    return sums


if __name__ == "__main__":
    print(json.dumps(offline_accuracy(*sys.argv[1:4]), indent=1))
