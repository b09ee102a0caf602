#!/usr/bin/env python3
"""Proves family_isolation.py can fail: plants a one-family tree (TSSERVE_FAMILIES alpha,
TSLib name "Alpha") clean, then with each way of naming the family outside its folders, and
checks each verdict; a checker crash (a traceback) is a failure, not a finding.

  tests/tools/family_isolation_selftest.py
"""
import os
import subprocess
import sys
import tempfile

CHECKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "family_isolation.py")
PUB = "include/tsserve/model/"
CLEAN = {
    "CMakeLists.txt": "set(TSSERVE_FAMILIES alpha)\n",
    f"model/families/alpha/{PUB}alpha_family.h":
        '#pragma once\ninline constexpr char kAlphaFamily[] = "Alpha";\n',
    "model/families/alpha/alpha_registration.cpp":
        '#include "tsserve/model/alpha_family.h"\nconst char* n = kAlphaFamily;\n',
    "server/families/alpha/alpha_family.cpp":
        '#include "tsserve/model/alpha_family.h"\nint AlphaForecaster = 0;\n',
    # Comments and messages may name it: only code is judged.
    "server/runtime/served.cpp": '// an Alpha is served like any family\n'
                                 'const char* m = "an Alpha model";\n',
}
CASES = {
    "clean": ({}, None),
    "a family header included from the runtime": ({
        "server/runtime/x.cpp": '#include "server/families/alpha/alpha_batches.h"\n',
    }, "server/runtime/x.cpp: includes server/families/alpha/alpha_batches.h"),
    "a family's public model header included from config/": ({
        "model/config/x.cpp": '#include "tsserve/model/alpha_family.h"\n',
    }, "model/config/x.cpp: includes tsserve/model/alpha_family.h"),
    "the family's name as a literal": ({
        "model/config/x.cpp": 'bool f(const char* s) { return s == "Alpha"; }\n',
    }, 'model/config/x.cpp: names "Alpha"'),
    "an identifier holding the name": ({
        "server/app/x.cpp": "AlphaForecaster make();\n",
    }, "server/app/x.cpp: identifier AlphaForecaster"),
    "an identifier holding the folder's name": ({
        "server/app/CMakeLists.txt": "target_link_libraries(x tsserve_serve_alpha)\n",
    }, "server/app/CMakeLists.txt: identifier tsserve_serve_alpha"),
}


def run(files):
    with tempfile.TemporaryDirectory() as root:
        for rel, text in {**CLEAN, **files}.items():
            path = os.path.join(root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        return subprocess.run([sys.executable, CHECKER, "--root", root, "--check"],
                              capture_output=True, text=True)


def main():
    failures = 0
    for name, (files, expected) in CASES.items():
        result = run(files)
        crashed = "Traceback" in result.stderr or result.returncode not in (0, 3)
        ok = not crashed and (result.returncode == 0 if expected is None
                              else result.returncode == 3 and expected in result.stdout)
        if not ok:
            failures += 1
            print(f"FAIL {name}: exit {result.returncode}\n{result.stdout}{result.stderr}")
    print(f"{len(CASES) - failures} of {len(CASES)} planted trees judged right")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
