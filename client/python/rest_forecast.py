#!/usr/bin/env python3
"""Forecast with tsserve over HTTP/JSON, using Python's standard library only.

Sends the last window of a CSV (a date column, then one column per variable, as ETTh1)
to the Open Inference Protocol's REST binding and prints the forecast by column:

    python3 rest_forecast.py ETTh1.csv [--url http://localhost:8000] [--model patchtst-etth1]
                             [--token TOKEN] [--intervals]

The window length comes from the model's metadata (GET /v2/models/<model>), so the same
script serves any model of the server.
"""
import argparse
import csv
import json
import sys
import urllib.error
import urllib.request


def call(url, token=None, body=None):
    """GET (or POST `body` as JSON) and return the decoded JSON answer."""
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = "Bearer " + token
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return json.load(answer)
    except urllib.error.HTTPError as error:
        # tsserve answers every error with {"error": "..."} naming the field at fault.
        sys.exit("%s: HTTP %d: %s" % (url, error.code, json.load(error).get("error")))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv")
    parser.add_argument("--url", default="http://localhost:8000")
    parser.add_argument("--model", default="patchtst-etth1")
    parser.add_argument("--token", help="bearer token, when the server asks for one")
    parser.add_argument("--intervals", action="store_true",
                        help="also ask for the calibrated 80%% and 95%% intervals")
    args = parser.parse_args()

    model_url = "%s/v2/models/%s" % (args.url.rstrip("/"), args.model)
    metadata = call(model_url, args.token)
    window = next(t["shape"][1] for t in metadata["inputs"] if t["name"] == "series")

    with open(args.csv, newline="") as f:
        rows = list(csv.reader(f))
    columns, history = rows[0][1:], [[float(x) for x in row[1:]] for row in rows[1:]][-window:]
    if len(history) < window:
        sys.exit("%s: %d rows; the model needs %d" % (args.csv, len(history), window))

    request = {
        "id": "rest-forecast-example",
        # Named columns let the server match its scaler's columns by name.
        "parameters": {"variable_names": ",".join(columns)},
        # Nested as the shape (one sample of `window` rows), or flat; nothing in between.
        "inputs": [{"name": "series", "datatype": "FP32", "shape": [1, window, len(columns)],
                    "data": [history]}],
    }
    if args.intervals:
        # The bands come as the outputs forecast_lower and forecast_upper, [levels, 1, F, N].
        request["parameters"]["interval_levels"] = "0.8,0.95"
    answer = call(model_url + "/infer", args.token, request)

    outputs = {o["name"]: o for o in answer["outputs"]}
    forecast = outputs["forecast"]
    horizon, width = forecast["shape"][1], forecast["shape"][2]
    values = forecast["data"]  # flat, [1, horizon, N] row-major
    print("model %s version %s: %d steps of %s" % (answer["model_name"], answer.get("model_version"),
                                                   horizon, ", ".join(columns)))
    for step in range(horizon):
        row = values[step * width:(step + 1) * width]
        print("%3d  " % (step + 1) + "  ".join("%9.4f" % v for v in row))
    if "forecast_lower" in outputs:
        lower, upper = outputs["forecast_lower"]["data"], outputs["forecast_upper"]["data"]
        block = horizon * width
        for i, level in enumerate(answer["parameters"]["interval_levels"].split(",")):
            print("%s interval, step 1: " % level + "  ".join(
                "[%.3f, %.3f]" % (lower[i * block + v], upper[i * block + v]) for v in range(width)))


if __name__ == "__main__":
    main()
