#!/usr/bin/env python3
"""Forecast with tsserve's JSON API for people (/v1), using Python's standard library only.

Sends the last window of a CSV (a date column, then one column per variable, as ETTh1) to
POST /v1/models/<model>/forecast, by column with its timestamps, and prints the forecast:

    python3 json_forecast.py ETTh1.csv [--url http://localhost:8000] [--model patchtst-etth1]
                             [--token TOKEN] [--intervals]

The window length comes from the model's description (GET /v1/models/<model>, its
seq_len). rest_forecast.py does the same over the Open Inference Protocol's /v2 binding.
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
        # Errors are {"error": "..."} naming the field at fault.
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

    model_url = "%s/v1/models/%s" % (args.url.rstrip("/"), args.model)
    window = call(model_url, args.token)["seq_len"]

    with open(args.csv, newline="") as f:
        rows = list(csv.reader(f))
    columns, rows = rows[0][1:], rows[1:][-window:]
    if len(rows) < window:
        sys.exit("%s: %d rows; the model needs %d" % (args.csv, len(rows), window))

    request = {
        # The history by column, in raw units; the server scales it.
        "series": {c: [float(row[1 + i]) for row in rows] for i, c in enumerate(columns)},
        # ISO 8601 texts (as the CSV's date column); the answer's come back in the same form.
        "timestamps": [row[0] for row in rows],
    }
    if args.intervals:
        request["intervals"] = [0.8, 0.95]
    answer = call(model_url + "/forecast", args.token, request)

    forecast = answer["forecast"]
    names = list(forecast)
    times = answer.get("timestamps") or [""] * len(forecast[names[0]])
    print("model %s version %s: %d steps of %s" % (answer["model"], answer["version"],
                                                   len(times), ", ".join(names)))
    for step, time in enumerate(times):
        print("%3d %s " % (step + 1, time) + "  ".join("%9.4f" % forecast[n][step] for n in names))
    for level, band in sorted(answer.get("intervals", {}).items()):
        print("%s interval, step 1: " % level + "  ".join(
            "[%.3f, %.3f]" % (band["lower"][n][0], band["upper"][n][0]) for n in names))


if __name__ == "__main__":
    main()
