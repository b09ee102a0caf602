#!/usr/bin/env python3
"""Proves server_include_graph.py --check can fail: plants small server/ trees in a temp
directory, each broken one way (an include loop through a header/source pair, a
codec/common header that names tsserve.v1's types or includes a generated header), and
expects exit 1 for each and exit 0 for the same tree without the fault.

  tests/tools/server_include_graph_selftest.py   (CTest server_layering_selftest)
"""
import os
import subprocess
import sys
import tempfile

CHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "server_include_graph.py")

# A tree the check accepts: a call path that admits calls through a context header of its
# own, and a neutral codec/common header.
CLEAN = {
    "server/request/request_types.h": "#pragma once\nstruct AttentionRequest {};\n",
    "server/codec/common/attention_selection.h":
        '#pragma once\n// Not tsserve.v1::AttentionOptions: a comment may name it.\n'
        '#include "server/request/request_types.h"\n',
    "server/service/service_context.h": "#pragma once\nstruct ServiceContext {};\n",
    "server/service/model_route.h": '#pragma once\n#include "server/service/service_context.h"\n',
    "server/service/model_route.cpp": '#include "server/service/model_route.h"\n'
                                      '#include "server/service/service_context.h"\n',
    "server/service/batched_call.h": '#pragma once\n#include "server/service/model_route.h"\n',
    "server/service/forecast_service.h": '#pragma once\n#include "server/service/batched_call.h"\n',
}

# Each fault: the files it changes in CLEAN.
FAULTS = {
    # model_route.cpp -> forecast_service.h -> batched_call.h -> model_route.h
    "loop through a header/source pair": {
        "server/service/model_route.cpp": '#include "server/service/model_route.h"\n'
                                          '#include "server/service/forecast_service.h"\n',
    },
    "loop between two headers": {
        "server/service/service_context.h": '#pragma once\n#include "server/service/batched_call.h"\n',
    },
    "codec/common header naming v1 types": {
        "server/codec/common/attention_selection.h":
            '#pragma once\nvoid resolve(const tsserve::v1::AttentionOptions& options);\n',
    },
    "codec/common header including a tsserve.v1 generated header": {
        "server/codec/common/attention_selection.h":
            '#pragma once\n#include "tsserve/v1/attention.pb.h"\n',
    },
    "codec/common source naming tsserve.v1's enum": {
        "server/codec/common/attention_selection.cpp":
            'bool none(int mode) { return mode == v1::SCALER_MODE_NONE; }\n',
    },
    "codec/common header naming Open Inference Protocol types": {
        "server/codec/common/attention_selection.h":
            '#pragma once\nvoid read(const inference::ModelInferRequest& request);\n',
    },
}


def run_check(files):
    with tempfile.TemporaryDirectory() as root:
        for path, text in files.items():
            full = os.path.join(root, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w", encoding="utf-8") as f:
                f.write(text)
        done = subprocess.run([sys.executable, CHECK, "--root", root, "--check"],
                              capture_output=True, text=True)
        return done.returncode, done.stdout + done.stderr


def main():
    failures = []
    code, output = run_check(CLEAN)
    if code != 0:
        failures.append(f"the clean tree was refused (exit {code}):\n{output}")
    for name, change in FAULTS.items():
        code, output = run_check({**CLEAN, **change})
        if code != 1:
            failures.append(f"{name}: expected exit 1, got {code}:\n{output}")
    for failure in failures:
        print("FAIL " + failure)
    print(f"{len(FAULTS) + 1 - len(failures)} of {len(FAULTS) + 1} planted trees judged right")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
