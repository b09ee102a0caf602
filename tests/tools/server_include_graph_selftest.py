#!/usr/bin/env python3
"""Proves server_include_graph.py --check can fail: plants small server/ trees in a temp
directory, each broken one way (an upward include, registry/ -> app/ as the audit planted;
a sideways one between two folders of one rank; a file in a folder LAYERS does not name; a
generated .pb.h reached through a header from request/ and from repository/; an include
loop through a header/source pair; a codec/common header that names tsserve.v1's types or
includes a generated header), and expects for each the checker's findings exit (3) with
the finding's own line in its report, and exit 0 for the same tree without the fault.

A crash is not a finding: any other exit, or a Python traceback on stderr, fails this test
(judge()); a stand-in checker that raises proves judge() refuses it.

  tests/tools/server_include_graph_selftest.py   (CTest server_layering_selftest)
"""
import os
import subprocess
import sys
import tempfile

CHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "server_include_graph.py")
FINDINGS = 3  # server_include_graph.py's exit status for "found a fault"

# A tree the check accepts: a call path that admits calls through a context header of its
# own, and a neutral codec/common header.
CLEAN = {
    "server/request/request_types.h": "#pragma once\nstruct AttentionRequest {};\n",
    "server/codec/common/attention_selection.h":
        '#pragma once\n// Not tsserve.v1::AttentionOptions: a comment may name it.\n'
        '#include "server/request/request_types.h"\n',
    "server/call/service_context.h": "#pragma once\nstruct ServiceContext {};\n",
    "server/call/model_route.h": '#pragma once\n#include "server/call/service_context.h"\n',
    "server/call/model_route.cpp": '#include "server/call/model_route.h"\n'
                                      '#include "server/call/service_context.h"\n',
    "server/call/batched_call.h": '#pragma once\n#include "server/call/model_route.h"\n',
    "server/grpc/forecast_service.h": '#pragma once\n#include "server/call/batched_call.h"\n',
    # The real layers' neighbours of the plants below.
    "server/repository/repository_scan.h": '#pragma once\n#include "server/status/status.h"\n',
    "server/status/status.h": "#pragma once\nstruct Status {};\n",
    "server/registry/model_registry.h":
        '#pragma once\n#include "server/repository/repository_scan.h"\n'
        '#include "server/request/request_types.h"\n',
    "server/config/server_options.h": "#pragma once\nstruct ServerOptions {};\n",
    "server/app/inference_server.h":
        '#pragma once\n#include "server/registry/model_registry.h"\n'
        '#include "server/grpc/forecast_service.h"\n',
    "server/families/patchtst/patchtst_batches.h": "#pragma once\n",  # under families/
    "server/codec/v1/tensor_message.h": '#pragma once\n#include "tsserve/v1/tensor.pb.h"\n',
}

# Each fault: the files it changes in CLEAN, and a line its report must hold.
FAULTS = {
    "upward include, registry/ -> app/ (the audit's plant)": ({
        "server/registry/model_registry.cpp": '#include "server/registry/model_registry.h"\n'
                                              '#include "server/app/inference_server.h"\n',
    }, "server/registry/model_registry.cpp [registry] -> server/app/inference_server.h [app] "
       "(upward: rank 2 -> 5)"),
    "upward include, repository/ -> registry/": ({
        "server/repository/repository_scan.h": '#pragma once\n'
                                               '#include "server/registry/model_registry.h"\n',
    }, "server/repository/repository_scan.h [repository] -> server/registry/model_registry.h "
       "[registry] (upward: rank 0 -> 2)"),
    "sideways include, registry/ -> config/ (both rank 2)": ({
        "server/registry/model_registry.h": '#pragma once\n'
                                            '#include "server/config/server_options.h"\n',
    }, "server/registry/model_registry.h [registry] -> server/config/server_options.h [config] "
       "(sideways: both rank 2)"),
    "include from a folder not in LAYERS": ({
        "server/scheduler/queue.h": '#pragma once\n#include "server/app/inference_server.h"\n',
    }, "server/scheduler: folder not in LAYERS"),
    "a folder not in LAYERS that includes nothing": ({
        "server/newthing/helper.cpp": "int helper() { return 1; }\n",
    }, "server/newthing: folder not in LAYERS"),
    "a source directly in server/": ({
        "server/stray.h": "#pragma once\n",
    }, "server/: a source outside every layer folder"),
    ".pb.h reached from request/ through codec/v1's header": ({
        "server/request/request_types.h":
            '#pragma once\n#include "server/codec/v1/tensor_message.h"\nstruct AttentionRequest {};\n',
    }, "server/request/request_types.h [request] reaches a protobuf header"),
    ".pb.h included by repository/ (no gRPC there)": ({
        "server/repository/repository_scan.cpp": '#include "server/repository/repository_scan.h"\n'
                                                 '#include "tsserve/v1/forecast_service.pb.h"\n',
    }, "server/repository/repository_scan.cpp [repository] reaches a protobuf header"),
    # model_route.cpp -> forecast_service.h -> batched_call.h -> model_route.h
    "loop through a header/source pair": ({
        "server/call/model_route.cpp": '#include "server/call/model_route.h"\n'
                                          '#include "server/grpc/forecast_service.h"\n',
    }, "server/call/batched_call.{h,cpp} <-> server/call/model_route.{h,cpp} <-> "
       "server/grpc/forecast_service.{h,cpp}"),
    "loop between two headers": ({
        "server/call/service_context.h": '#pragma once\n#include "server/call/batched_call.h"\n',
    }, "server/call/batched_call.{h,cpp} <-> server/call/model_route.{h,cpp} <-> "
       "server/call/service_context.{h,cpp}"),
    "codec/common header naming v1 types": ({
        "server/codec/common/attention_selection.h":
            '#pragma once\nvoid resolve(const tsserve::v1::AttentionOptions& options);\n',
    }, "server/codec/common/attention_selection.h  (v1::)"),
    "codec/common header including a tsserve.v1 generated header": ({
        "server/codec/common/attention_selection.h":
            '#pragma once\n#include "tsserve/v1/attention.pb.h"\n',
    }, "server/codec/common/attention_selection.h  (tsserve/v1/attention.pb.h)"),
    "codec/common source naming tsserve.v1's enum": ({
        "server/codec/common/attention_selection.cpp":
            'bool none(int mode) { return mode == v1::SCALER_MODE_NONE; }\n',
    }, "server/codec/common/attention_selection.cpp  (v1::)"),
    "codec/common header naming Open Inference Protocol types": ({
        "server/codec/common/attention_selection.h":
            '#pragma once\nvoid read(const inference::ModelInferRequest& request);\n',
    }, "server/codec/common/attention_selection.h  (inference::)"),
}


def plant(root, files):
    for path, text in files.items():
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as f:
            f.write(text)


def run_check(files, check=CHECK):
    """(exit status, stdout, stderr) of `check --check` over a tree holding `files`."""
    with tempfile.TemporaryDirectory() as root:
        plant(root, files)
        done = subprocess.run([sys.executable, check, "--root", root, "--check"],
                              capture_output=True, text=True)
        return done.returncode, done.stdout, done.stderr


def judge(result, expected):
    """None when `result` is what was expected, else why not. `expected` is None for a clean
    tree (exit 0) or the line a finding must print (exit FINDINGS). A traceback, or any
    other exit status, is the checker crashing: never counted as the finding."""
    code, out, err = result
    if "Traceback (most recent call last)" in err:
        return f"the checker crashed (exit {code}):\n{err}"
    if expected is None:
        return None if code == 0 else f"expected exit 0, got {code}:\n{out}{err}"
    if code != FINDINGS:
        return f"expected the findings exit {FINDINGS}, got {code}:\n{out}{err}"
    if expected not in out:
        return f"exit {FINDINGS}, but the report lacks {expected!r}:\n{out}{err}"
    return None


def crash_is_refused():
    """judge() must refuse a checker that crashes with exit 1 (a traceback), and one that
    exits FINDINGS without printing the finding: a stand-in checker plants each."""
    failures = []
    with tempfile.TemporaryDirectory() as scratch:
        stand_ins = {
            "a traceback (exit 1)": "raise RuntimeError('planted crash')\n",
            "a traceback with the finding printed first":
                "print('  server/scheduler: folder not in LAYERS')\n"
                "raise KeyError('planted crash')\n",
            f"exit {FINDINGS} with no finding": f"raise SystemExit({FINDINGS})\n",
            "exit 2 (usage)": "raise SystemExit(2)\n",
        }
        for name, body in stand_ins.items():
            check = os.path.join(scratch, "stand_in.py")
            with open(check, "w", encoding="utf-8") as f:
                f.write(body)
            result = run_check(CLEAN, check)
            if judge(result, "server/scheduler: folder not in LAYERS") is None:
                failures.append(f"judge() took a checker's {name} for a finding: {result}")
            if judge(result, None) is None:
                failures.append(f"judge() took a checker's {name} for a clean pass: {result}")
    return failures


def judge_all(clean, faults, check=CHECK):
    """Runs `check` over the clean tree and over it with each fault's files (a fault's
    expected line None: still clean), prints each misjudged tree and the count; 1 when any
    was misjudged or judge() took a crash for a result, else 0. model_include_graph_selftest.py
    runs its own trees through it."""
    failures = []
    why = judge(run_check(clean, check), None)
    if why:
        failures.append(f"the clean tree: {why}")
    for name, (change, expected) in faults.items():
        why = judge(run_check({**clean, **change}, check), expected)
        if why:
            failures.append(f"{name}: {why}")
    refused = crash_is_refused()
    failures += refused
    for failure in failures:
        print("FAIL " + failure)
    judged = len(faults) + 1 - (len(failures) - len(refused))
    print(f"{judged} of {len(faults) + 1} planted trees judged right; "
          f"{'a crash told from a finding' if not refused else 'a crash NOT told from a finding'}")
    return 1 if failures else 0


def main():
    return judge_all(CLEAN, FAULTS)


if __name__ == "__main__":
    sys.exit(main())
