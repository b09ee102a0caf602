#!/usr/bin/env python3
"""The JSON API's OpenAPI document (docs/api/openapi.json) held to what the server does:
every example in it validates against its schema; the document GET /openapi.json serves is
the file; and a real tsserve's answers on every /v1 operation (successes and errors) each
validate against the schema the document gives for that operation and status code, which
it must document. Schemas are JSON Schema 2020-12 (OpenAPI 3.1's dialect), checked with
jsonschema. The document's own validity is validate_openapi.js's part (openapi_test.sh).

    openapi_check.py [--tsserve build/server/tsserve] [--examples DIR]
"""
import argparse
import json
import math
import os
import sys
import tempfile

import jsonschema

from tsserve_http import call, start_tsserve, stop_tsserve

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOCUMENT = os.path.join(ROOT, "docs", "api", "openapi.json")
COLUMNS = ["HUFL", "HULL", "MUFL", "MULL", "LUFL", "LULL", "OT"]


def require(condition, message="check failed"):
    """The pass check: explicit, so it holds under PYTHONOPTIMIZE (an assert would not)."""
    if not condition:
        print("FAIL: %s" % (message,), file=sys.stderr)
        sys.exit(1)


class Document:
    def __init__(self, path):
        self.text = open(path, "rb").read()
        self.doc = json.loads(self.text)
        self.resolver = jsonschema.RefResolver.from_schema(self.doc)

    def validate(self, schema, instance, what):
        jsonschema.Draft202012Validator(schema, resolver=self.resolver).validate(instance)
        print("  %-44s valid: %s" % (what, json.dumps(instance)[:90]))

    def operation(self, path, method):
        return self.doc["paths"][path][method]

    def response_schema(self, path, method, status):
        responses = self.operation(path, method)["responses"]
        require(str(status) in responses, "%s %s: status %d is not documented" % (method, path, status))
        return responses[str(status)]["content"]["application/json"]["schema"]

    def request_schema(self, path, method):
        return self.operation(path, method)["requestBody"]["content"]["application/json"]["schema"]

    def check_examples(self):
        count = 0
        for path, item in self.doc["paths"].items():
            for method, operation in item.items():
                if not isinstance(operation, dict) or "responses" not in operation:
                    continue
                body = operation.get("requestBody", {}).get("content", {}).get("application/json", {})
                if "example" in body:
                    self.validate(body["schema"], body["example"], "example %s %s" % (method, path))
                    count += 1
                for status, response in operation["responses"].items():
                    media = response.get("content", {}).get("application/json", {})
                    if "example" in media:
                        self.validate(media["schema"], media["example"],
                                      "example %s %s %s" % (method, path, status))
                        count += 1
        require(count >= 5, "only %d examples in the document" % count)
        return count


def window(points=336):
    """A daily wave per column, as a forecast's series; hourly ISO 8601 timestamps."""
    series = {c: [10 * math.sin(t / 24 + v) + v for t in range(points)] for v, c in enumerate(COLUMNS)}
    stamps = ["2016-07-%02d %02d:00:00" % (1 + t // 24, t % 24) for t in range(points)]
    return series, stamps


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tsserve", help="a tsserve binary whose live answers to check")
    parser.add_argument("--examples", help="a directory of the HTTP examples' files "
                        "(docs/api/http-json.md): *.request.json (ForecastRequest) and "
                        "*.response.json (ForecastResponse) to validate")
    args = parser.parse_args()
    document = Document(DOCUMENT)
    print("the document's examples: %d valid" % document.check_examples())

    forecast_path = "/v1/models/{model}/forecast"
    if args.examples:
        checked = set()
        for name in sorted(os.listdir(args.examples)):
            kind = "request" if name.endswith(".request.json") else \
                   "response" if name.endswith(".response.json") else None
            if kind is None:
                continue
            instance = json.load(open(os.path.join(args.examples, name)))
            schema = document.request_schema(forecast_path, "post") if kind == "request" \
                else document.response_schema(forecast_path, "post", 200)
            document.validate(schema, instance, "docs/api/http-json.md " + name)
            checked.add(kind)
        require(checked == {"request", "response"}, "%s: no *.request.json and *.response.json" % args.examples)
    if not args.tsserve:
        print("PASS: the document's examples%s are valid" % (" and docs/api/http-json.md's" if args.examples else ""))
        return 0

    work = tempfile.mkdtemp(prefix="openapi-check-")
    # With metrics, so that GET /v1/accuracy counts (the last flag wins).
    server, port = start_tsserve(args.tsserve, work, "--metrics-address", "127.0.0.1:0")
    try:
        status, served = call(port, "/openapi.json")
        require(status == 200 and served == document.doc, "GET /openapi.json is not docs/api/openapi.json")

        def check(path, template, method, body, want_status, what):
            status, answer = call(port, path, body, method=method.upper())
            require(status == want_status, (path, status, str(answer)[:300]))
            document.validate(document.response_schema(template, method, status), answer,
                              "%d %s" % (status, what))
            return answer

        check("/v1/models", "/v1/models", "get", None, 200, "list")
        check("/v1/models/patchtst-etth1", "/v1/models/{model}", "get", None, 200, "info")
        check("/v1/models/patchtst-etth1/versions/1", "/v1/models/{model}/versions/{version}",
              "get", None, 200, "info of version 1")
        check("/v1/models/nope", "/v1/models/{model}", "get", None, 404, "unknown model")

        series, stamps = window()
        request = {"series": series, "timestamps": stamps, "intervals": [0.8, 0.95],
                   "attention": {"layers": [0], "average_heads": True, "variables": ["OT"]},
                   "series_key": "openapi-check", "request_id": "openapi-1"}
        document.validate(document.request_schema(forecast_path, "post"), request, "forecast request")
        answer = check("/v1/models/patchtst-etth1/forecast", forecast_path, "post", request, 200,
                       "forecast, intervals, attention")
        require(answer["request_id"] == "openapi-1" and answer["forecast_stored"] is True, answer)
        require(sorted(answer["intervals"]) == ["0.8", "0.95"], answer["intervals"].keys())
        check("/v1/models/patchtst-etth1/versions/1/forecast",
              "/v1/models/{model}/versions/{version}/forecast", "post", {"series": series}, 200,
              "forecast of version 1")
        for bad, what in [({"series": {"OT": [1, None]}}, "a gap"), (b"{", "truncated"),
                          ({"series": series, "intervals": [0.33]}, "an uncalibrated level")]:
            error = check("/v1/models/patchtst-etth1/forecast", forecast_path, "post", bad, 400, what)
            require(error["error"].startswith(("series.OT[1]", "the body", "intervals[0]")), error)
        check("/v1/models/nope/forecast", forecast_path, "post", {"series": series}, 404,
              "unknown model")
        status, error = call(port, "/v1/models/patchtst-etth1/forecast", b"{}",
                             headers={"Content-Type": "text/csv"})
        require(status == 415, status)
        document.validate(document.response_schema(forecast_path, "post", 415), error, "415")

        report = {"series_key": "openapi-check", "timestamps": [answer["timestamps"][0]],
                  "actuals": {"OT": [1.5]}}
        document.validate(document.request_schema("/v1/actuals", "post"), report, "actuals report")
        scored = check("/v1/actuals", "/v1/actuals", "post", report, 200, "actuals")
        require(scored["matched"] == 1, scored)
        check("/v1/actuals", "/v1/actuals", "post", {"timestamps": [0]}, 400, "actuals, no key")
        # Live series: the history in one call with a forecast, then one point flagged
        # against it; a gap (a null) refused naming the point.
        observe_path = "/v1/series/{key}/observe"
        history = {"timestamps": stamps, "values": series, "forecast": True}
        document.validate(document.request_schema(observe_path, "post"), history, "observation")
        first = check("/v1/series/openapi-live/observe", observe_path, "post", history, 200,
                      "observe the history, forecast")
        require(first["window_points"] == 336 and "forecast" in first, str(first)[:300])
        point = {"timestamps": [first["forecast"]["timestamps"][0]],
                 "values": {c: [first["forecast"]["forecast"][c][0]] for c in COLUMNS}}
        flagged = check("/v1/series/openapi-live/observe", observe_path, "post", point, 200,
                        "observe one point, flagged")
        require(flagged["points"]["OT"][0]["scored"] and flagged["points"]["OT"][0]["step"] == 1, flagged)
        error = check("/v1/series/openapi-live/observe", observe_path, "post",
                      {"timestamps": [0], "values": {"OT": [None]}}, 400, "observe a null")
        require(error["error"].startswith("values.OT[0]"), error)
        counted = check("/v1/accuracy", "/v1/accuracy", "get", None, 200, "accuracy")
        # The report's point, and the observed point against its forecast.
        require(counted["counting"] and counted["versions"][0]["horizons"][0]["points"] >= 1, counted)
    finally:
        stop_tsserve(server, work)
    print("PASS: %s: examples and live answers valid" % os.path.relpath(DOCUMENT, ROOT))


if __name__ == "__main__":
    sys.exit(main())
