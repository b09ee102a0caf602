#!/usr/bin/env python3
"""Plants skipped tests in small CTest projects and checks skip_summary's verdicts.

Through tests/tools/ctest_and_skips.sh, as tests/run.sh runs the suite:
  - a skip whose dependency is present here (a file that exists, a program on PATH, a CPU
    flag this CPU has, npm reaching the registry: a stand-in npm whose ping succeeds, a
    gtest GTEST_SKIP naming a file that exists) must be "could have run" and fail the run;
  - the same kinds with the dependency absent must stand, and a run of only those passes;
  - a skip with no reason, or a reason no kind knows, fails the run;
  - a failing test fails the run even with no skip; the summary is the output's last line.
Also: the reasons the suite's tests give today are each recognised as their kind.
"""

import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import skip_summary  # noqa: E402

WRAPPER = os.path.join(HERE, "ctest_and_skips.sh")
failures = []


def check(condition, what):
    print(("ok   " if condition else "FAIL ") + what)
    if not condition:
        failures.append(what)


def cmake_quote(text):
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$")


def plant(work, name, tests):
    """A CTest project of `tests`: (name, shell script, exit code semantics). Each script
    is written to a file; 77 is the skip code; gtest-like ones skip by regex."""
    src = os.path.join(work, name, "src")
    build = os.path.join(work, name, "build")
    os.makedirs(src)
    os.makedirs(build)
    lines = ["cmake_minimum_required(VERSION 3.16)", "project(planted NONE)", "enable_testing()"]
    for test, script, gtest_like in tests:
        path = os.path.join(src, test + ".sh")
        with open(path, "w") as f:
            f.write("#!/bin/sh\n" + script + "\n")
        lines.append('add_test(NAME %s COMMAND sh "%s")' % (test, cmake_quote(path)))
        if gtest_like:
            lines.append('set_tests_properties(%s PROPERTIES SKIP_REGULAR_EXPRESSION '
                         '"\\\\[  SKIPPED \\\\]")' % test)
        else:
            lines.append("set_tests_properties(%s PROPERTIES SKIP_RETURN_CODE 77)" % test)
    with open(os.path.join(src, "CMakeLists.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    subprocess.run(["cmake", "-S", src, "-B", build], check=True, stdout=subprocess.DEVNULL)
    return build


def run(build, npm_ping_status):
    """ctest_and_skips.sh on `build` with a stand-in npm whose `npm ping` exits as told."""
    stub = os.path.join(os.path.dirname(build), "bin")
    os.makedirs(stub, exist_ok=True)
    npm = os.path.join(stub, "npm")
    with open(npm, "w") as f:
        f.write("#!/bin/sh\n[ \"$1\" = ping ] && exit %d\nexit 3\n" % npm_ping_status)
    os.chmod(npm, os.stat(npm).st_mode | stat.S_IXUSR)
    env = dict(os.environ, PATH=stub + os.pathsep + os.environ.get("PATH", ""))
    env.pop("OPENBLAS_NUM_THREADS", None)
    done = subprocess.run(["bash", WRAPPER, build], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, env=env)
    out = done.stdout.decode("utf-8", "replace")
    return done.returncode, out


def verdict(out, test):
    m = re.search(r"^skipped %s: .* -- (stands|could have run|cannot judge): " % re.escape(test),
                  out, re.M)
    return m.group(1) if m else None


def skip(reason):
    return 'echo "something first"\necho "SKIPPED: %s"\nexit 77' % reason


def gtest_skip(reason):
    return ('echo "[ RUN      ] Planted.Case"\necho "/src/planted_test.cpp:12: Skipped"\n'
            'echo "%s"\necho\necho "[  SKIPPED ] Planted.Case (0 ms)"\nexit 0' % reason)


def main():
    work = tempfile.mkdtemp(prefix="skip-summary-selftest-")
    try:
        present_file = os.path.join(work, "ETTh1.csv")
        open(present_file, "w").close()
        absent_file = os.path.join(work, "nothing-here", "ETTh1.csv")
        flags = sorted(skip_summary.cpu_flags())
        check(bool(flags), "this machine's /proc/cpuinfo lists CPU flags")
        present_flag = flags[0] if flags else "fpu"

        # 1. Dependencies present: each skip could have run, and the run fails.
        present = [
            ("present_file", skip("no %s (the dataset beside the project)" % present_file), False),
            ("present_program", skip("sh is not installed (Debian: dash)"), False),
            ("present_flag", skip("fused=x needs the CPU flag %s, which this CPU (x) lacks"
                                  % present_flag), False),
            ("present_cpu_lacks", skip("x needs a CPU without the flag tsserve_no_such_flag, "
                                       "and this one has it"), False),
            ("present_npm", skip("the console check: npm registry unreachable (code ETIMEDOUT)"),
             False),
            ("present_gtest_file", gtest_skip("%s is missing, so the generator skipped a_case"
                                              % present_file), True),
            ("no_reason", "echo working\nexit 77", False),
            ("unknown_reason", skip("the moon is full"), False),
            ("passes", "echo PASS", False),
        ]
        status, out = run(plant(work, "present", present), npm_ping_status=0)
        print(out)
        check(status == 1, "a run with skips this machine could have run exits 1 (got %d)"
              % status)
        for test in ("present_file", "present_program", "present_flag", "present_cpu_lacks",
                     "present_npm", "present_gtest_file"):
            check(verdict(out, test) == "could have run",
                  "%s: its dependency is here, so 'could have run' (got %s)"
                  % (test, verdict(out, test)))
        for test in ("no_reason", "unknown_reason"):
            check(verdict(out, test) == "cannot judge",
                  "%s: 'cannot judge' (got %s)" % (test, verdict(out, test)))
        last = out.strip().splitlines()[-1]
        check(last.startswith("Skipped: 8 of 9 tests") and "FAIL: 8" in last,
              "the last line counts 8 skipped of 9 and fails 8: %s" % last)
        for test in ("present_file", "present_npm", "no_reason", "unknown_reason"):
            check(test in last, "the last line names %s" % test)

        # 2. Dependencies absent: each skip stands, and the run passes.
        absent = [
            ("absent_file", skip("no %s (the dataset beside the project)" % absent_file), False),
            ("absent_program", skip("tsserve-no-such-program is not installed"), False),
            ("absent_flag", skip("fused=x needs the CPU flag tsserve_no_such_flag, which this "
                                 "CPU (x) lacks"), False),
            ("absent_cpu_lacks", skip("x needs a CPU without the flag %s, and this one has it"
                                      % present_flag), False),
            ("absent_npm", skip("the console check: npm registry unreachable (code ETIMEDOUT)"),
             False),
            ("absent_gtest_file", gtest_skip("%s is missing, so the generator skipped a_case"
                                             % absent_file), True),
            ("passes", "echo PASS", False),
        ]
        status, out = run(plant(work, "absent", absent), npm_ping_status=1)
        print(out)
        check(status == 0, "a run whose every skip stands exits 0 (got %d)" % status)
        for test, _, _ in absent[:-1]:
            check(verdict(out, test) == "stands",
                  "%s: its dependency is absent, so the skip stands (got %s)"
                  % (test, verdict(out, test)))
        last = out.strip().splitlines()[-1]
        check(re.match(r"Skipped: 6 of 7 tests \(CPU flag 1, CPU without a flag 1, file 2, "
                       r"npm registry 1, program 1\); each for a dependency this machine lacks$", last)
              is not None, "the last line counts the 6 by kind: %s" % last)

        # 3. A failing test fails the run with no skip at all.
        status, out = run(plant(work, "failing", [("fails", "exit 1", False),
                                                  ("passes", "echo PASS", False)]), 1)
        check(status != 0, "a failing test fails the run (got %d)" % status)
        check(out.strip().splitlines()[-1].startswith("Skipped: 0 of 2 tests"),
              "the last line says 0 skipped: %s" % out.strip().splitlines()[-1])

        # 4. The reasons the suite's tests print today, each known by its kind.
        samples = [
            ("the console check: npm registry unreachable (code ENOTFOUND)", "npm registry"),
            ("fused=avx512 needs the CPU flag avx512f, which this CPU (x) lacks", "CPU flag"),
            ("the refusal of TSSERVE_FUSED_ISA=avx512 needs a CPU without the flag avx512f, "
             "and this one has AVX-512 F/VL/BW/DQ", "CPU without a flag"),
            ("clang++-14 is not installed (Debian: clang-14 libclang-rt-14-dev)", "program"),
            ("/usr/bin/clang++-14 cannot link libFuzzer (Debian: libclang-rt-14-dev):",
             "libFuzzer"),
            ("/usr/bin/python3 lacks grpcio or grpc_tools (python3-grpcio, python3-grpc-tools)",
             "python grpc"),
            ("podman cannot apply layers in this root: Error: remount /", "podman"),
            ("no CUDA device visible to LibTorch (a CPU-only build, or no GPU)", "GPU"),
            ("this LibTorch sees a GPU", "no GPU"),
            ("the process's BLAS is not OpenBLAS", "OpenBLAS"),
            ("the environment sizes OpenBLAS's pool, which the server then keeps",
             "OpenBLAS environment"),
            ("a sanitizer's allocator replaces glibc's here", "glibc allocator"),
            ("any N runs: channel independent", "does not apply"),
            ("/d/ETTh1.csv is missing (the dataset beside the project; see TSSERVE_DATA_DIR)",
             "file"),
            ("/d/ETTh2.csv is missing, so the generator skipped patchtst_etth2", "file"),
            ("no /d/ETTh1.csv (the dataset beside the project)", "file"),
            ("/usr/bin/prometheus is absent (Debian package `prometheus`)", "file"),
            ("/usr/bin/promtool not found: install Debian's `prometheus` package", "file"),
        ]
        for reason, kind in samples:
            found = next((k for k, pattern, _ in skip_summary.KINDS if re.search(pattern, reason)),
                         None)
            check(found == kind, "'%s' is of kind %s (got %s)" % (reason, kind, found))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if failures:
        print("FAIL: %d checks" % len(failures))
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
