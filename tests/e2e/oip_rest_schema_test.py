#!/usr/bin/env python3
"""Every REST endpoint of the Open Inference Protocol, answered by a real tsserve, against
the schemas of the published open_inference_rest.yaml (docs/specs/open-inference-protocol):
server and model metadata, an inference (typed JSON, with intervals and attention) and
each error body, validated with jsonschema (Draft 4, the dialect OpenAPI 3.0's schema
objects extend). The health answers, for which the YAML gives no schema, against
inference_rest.md's objects.

    oip_rest_schema_test.py --tsserve build/server/tsserve
"""
import argparse
import json
import math
import os
import sys
import tempfile

import jsonschema
import yaml

from tsserve_http import call, start_tsserve, stop_tsserve

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SPEC = os.path.join(ROOT, "docs", "specs", "open-inference-protocol", "open_inference_rest.yaml")


def require(condition, message="check failed"):
    """The pass check: explicit, so it holds under PYTHONOPTIMIZE (an assert would not)."""
    if not condition:
        print("FAIL: %s" % (message,), file=sys.stderr)
        sys.exit(1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tsserve", required=True)
    args = parser.parse_args()
    spec = yaml.safe_load(open(SPEC))

    def check(name, instance):
        # A schema of components/schemas, its $refs resolved within the document.
        schema = dict(spec["components"]["schemas"][name], components=spec["components"])
        jsonschema.Draft4Validator(schema).validate(instance)
        print("  %-32s valid: %s" % (name, json.dumps(instance)[:100]))

    live_schema = {"type": "object", "required": ["live"], "properties": {"live": {"type": "boolean"}},
                   "additionalProperties": False}
    ready_schema = {"type": "object", "required": ["ready"],
                    "properties": {"ready": {"type": "boolean"}}, "additionalProperties": False}
    model_ready_schema = {"type": "object", "required": ["name", "ready"],
                          "properties": {"name": {"type": "string"}, "ready": {"type": "boolean"}},
                          "additionalProperties": False}

    work = tempfile.mkdtemp(prefix="oip-rest-schema-")
    server, port = start_tsserve(args.tsserve, work)
    try:
        status, live = call(port, "/v2/health/live")
        require(status == 200, status)
        jsonschema.validate(live, live_schema)
        status, ready = call(port, "/v2/health/ready")
        require(status == 200 and ready["ready"] is True, (status, ready))
        jsonschema.validate(ready, ready_schema)
        status, model_ready = call(port, "/v2/models/patchtst-etth1/ready")
        require(status == 200, status)
        jsonschema.validate(model_ready, model_ready_schema)

        status, server_metadata = call(port, "/v2")
        require(status == 200, status)
        check("metadata_server_response", server_metadata)
        for path in ("/v2/models/patchtst-etth1", "/v2/models/patchtst-etth1/versions/1"):
            status, model_metadata = call(port, path)
            require(status == 200, status)
            check("metadata_model_response", model_metadata)

        window = [[[10 * math.sin(t / 24 + v) + v for v in range(7)] for t in range(336)]]
        request = {"id": "schema", "inputs": [{"name": "series", "datatype": "FP32",
                                               "shape": [1, 336, 7], "data": window}],
                   "parameters": {"interval_levels": "0.8,0.95", "attention_layers": "0",
                                  "attention_variables": "0"},
                   "outputs": [{"name": "forecast"}, {"name": "attention"}]}
        check("inference_request", request)
        status, answer = call(port, "/v2/models/patchtst-etth1/infer", request)
        require(status == 200, (status, answer))
        check("inference_response", answer)
        names = [o["name"] for o in answer["outputs"]]
        require(names == ["forecast", "attention", "forecast_lower", "forecast_upper"], names)
        for output in answer["outputs"]:
            count = math.prod(output["shape"])
            require(len(output["data"]) == count, (output["name"], len(output["data"]), count))

        errors = [("/v2/models/nope", None, 404, "metadata_model_error_response"),
                  ("/v2/models/patchtst-etth1/infer", b"{", 400, "inference_error_response"),
                  ("/v2/models/patchtst-etth1/infer", {"inputs": []}, 400, "inference_error_response")]
        for path, body, want, schema in errors:
            status, error = call(port, path, body)
            require(status == want, (path, status, error))
            check(schema, error)
    finally:
        stop_tsserve(server, work)
    print("PASS: every answer validates against %s" % os.path.relpath(SPEC, ROOT))


if __name__ == "__main__":
    main()
