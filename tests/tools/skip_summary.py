#!/usr/bin/env python3
"""Names every skipped CTest test with its reason, and fails a skip this machine did not need.

    skip_summary.py --junit FILE [--build-dir DIR]

FILE is `ctest --output-junit FILE`'s report (tests/tools/ctest_and_skips.sh writes it).
CTest counts a skipped test in "100% tests passed" and never prints why it skipped; this
prints, for each skipped test, the reason it gave and whether that reason holds here, then
ends with one line counting the skipped tests by kind of reason.

A skipping test says why on a line `SKIPPED: <reason>` (any case, anywhere on the line) or,
inside a gtest case, with GTEST_SKIP() << reason (gtest prints `FILE:LINE: Skipped` and the
reason on the next lines). Each reason is matched against KINDS below: a kind names the
dependency the reason says is missing and a probe that tells whether this machine has it.

Verdicts (exit 1 when any skip is not "stands"):
  stands          the dependency is absent here: the skip is the honest outcome
  could have run  the dependency IS present here (the file exists, npm reaches the
                  registry, the CPU has the flag, ...): the test skipped what it could check
  cannot judge    no reason line, or a reason no kind knows: teach KINDS its dependency
Exit 2: no report to read (ctest did not finish), or bad arguments.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def run_quiet(command, timeout, env=None, shell=False):
    """(exit status, output) of a probe command; a command that cannot start or times out
    counts as a failure with its reason as output."""
    try:
        done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              timeout=timeout, env=env, shell=shell)
        return done.returncode, done.stdout.decode("utf-8", "replace").strip()
    except (OSError, subprocess.TimeoutExpired) as error:
        return 1, str(error)


# Each probe gets the reason's regex match and the options; returns (present, evidence).

def probe_path(match, _opts):
    path = next(g for g in match.groups() if g)
    path = path.rstrip(".,;:)")
    if os.path.exists(path):
        return True, "%s exists" % path
    return False, "%s does not exist" % path


def probe_program(match, _opts):
    found = shutil.which(match.group(1))
    return (True, "%s is at %s" % (match.group(1), found)) if found else (
        False, "%s is not on PATH" % match.group(1))


def cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def probe_cpu_flag(match, _opts):
    flag = match.group(1)
    if flag in cpu_flags():
        return True, "this CPU has %s (/proc/cpuinfo)" % flag
    return False, "this CPU lacks %s (/proc/cpuinfo)" % flag


def probe_cpu_lacks(match, opts):
    present, evidence = probe_cpu_flag(match, opts)
    return not present, evidence


def probe_npm(_match, _opts):
    if not shutil.which("npm"):
        return False, "npm is not installed"
    status, output = run_quiet(["npm", "ping", "--loglevel=error"], timeout=90)
    if status == 0:
        return True, "`npm ping` reaches the registry now"
    return False, "`npm ping` fails too: %s" % (output.splitlines() or ["exit %d" % status])[-1]


def probe_libfuzzer(match, _opts):
    clang = match.group(1)
    work = tempfile.mkdtemp(prefix="skip-probe-")
    try:
        source = os.path.join(work, "probe.cpp")
        with open(source, "w") as f:
            f.write('extern "C" int LLVMFuzzerTestOneInput(const char*, unsigned long) '
                    '{ return 0; }\n')
        status, output = run_quiet([clang, "-fsanitize=fuzzer,address,undefined", source,
                                    "-o", os.path.join(work, "probe")], timeout=120)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if status == 0:
        return True, "%s links a libFuzzer probe here" % clang
    return False, "%s cannot link a libFuzzer probe here either" % clang


def probe_python_grpc(match, _opts):
    python = match.group(1)
    status, _ = run_quiet([python, "-c", "import grpc, grpc_tools"], timeout=60)
    if status == 0:
        return True, "%s imports grpc and grpc_tools" % python
    return False, "%s cannot import grpc and grpc_tools" % python


def probe_podman(_match, _opts):
    if not shutil.which("podman"):
        return False, "podman is not installed"
    work = tempfile.mkdtemp(prefix="skip-probe-podman-")
    script = ('. "$1" "$2" >/dev/null && tar -c --files-from /dev/null | '
              'podman import --quiet - localhost/tsserve-skip-probe && '
              'podman rmi --force localhost/tsserve-skip-probe >/dev/null')
    try:
        status, output = run_quiet(
            ["bash", "-c", script, "probe",
             os.path.join(ROOT, "tests", "deploy", "podman_env.sh"), work], timeout=120)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if status == 0:
        return True, "podman imports a layer here"
    return False, "podman cannot import a layer here either: %s" % output[-200:]


def torch_sees_gpu(opts):
    status, output = run_quiet([opts.python, "-c",
                                "import torch; print(torch.cuda.is_available())"], timeout=120)
    if status != 0:
        raise RuntimeError("%s cannot import torch to tell: %s" % (opts.python, output[-300:]))
    return output.splitlines()[-1].strip() == "True"


def probe_gpu(_match, opts):
    if torch_sees_gpu(opts):
        return True, "LibTorch (%s) sees a CUDA device" % opts.python
    return False, "LibTorch (%s) sees no CUDA device" % opts.python


def probe_no_gpu(_match, opts):
    if torch_sees_gpu(opts):
        return False, "LibTorch (%s) sees a CUDA device" % opts.python
    return True, "LibTorch (%s) sees no CUDA device" % opts.python


def probe_openblas(_match, opts):
    status, output = run_quiet([opts.python, "-c",
                                "import torch; print(any('openblas' in l for l in "
                                "open('/proc/self/maps')))"], timeout=120)
    if status != 0:
        raise RuntimeError("%s cannot import torch to tell: %s" % (opts.python, output[-300:]))
    if output.splitlines()[-1].strip() == "True":
        return True, "LibTorch loads OpenBLAS here"
    return False, "LibTorch does not load OpenBLAS here"


def probe_blas_environment(_match, _opts):
    named = [v for v in ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS") if v in os.environ]
    if named:
        return False, "the environment sets %s" % ", ".join(named)
    return True, "neither OPENBLAS_NUM_THREADS nor GOTO_NUM_THREADS is set"


def probe_glibc_allocator(_match, opts):
    sanitize = ""
    cache = os.path.join(opts.build_dir or "", "CMakeCache.txt")
    if opts.build_dir and os.path.exists(cache):
        with open(cache, errors="replace") as f:
            for line in f:
                if line.startswith("TSSERVE_SANITIZE:"):
                    sanitize = line.split("=", 1)[1].strip()
    else:
        raise RuntimeError("no CMakeCache.txt in --build-dir to tell whether it is sanitized")
    if sanitize and sanitize.upper() not in ("OFF", "NO", "FALSE", "0"):
        return False, "this build is sanitized (TSSERVE_SANITIZE=%s)" % sanitize
    return True, "this build is not sanitized: glibc's allocator is the one in use"


def never(_match, _opts):
    return False, "the case does not apply to this parameter, on any machine"


# (kind, regex on the reason, probe). First match wins; order the specific before the
# general (the path kind would read "no /x" in many texts).
KINDS = [
    ("npm registry", r"npm registry unreachable", probe_npm),
    ("CPU flag", r"needs the CPU flag ([A-Za-z0-9_]+)", probe_cpu_flag),
    ("CPU without a flag", r"needs a CPU without the flag ([A-Za-z0-9_]+)", probe_cpu_lacks),
    ("libFuzzer", r"(\S+) cannot link libFuzzer", probe_libfuzzer),
    ("python grpc", r"(\S+) lacks grpcio or grpc_tools", probe_python_grpc),
    ("podman", r"podman cannot apply layers in this root", probe_podman),
    ("GPU", r"no CUDA device visible to LibTorch", probe_gpu),
    ("no GPU", r"this LibTorch sees a GPU", probe_no_gpu),
    ("OpenBLAS", r"the process's BLAS is not OpenBLAS", probe_openblas),
    ("OpenBLAS environment", r"the environment sizes OpenBLAS's pool", probe_blas_environment),
    ("glibc allocator", r"a sanitizer's allocator replaces glibc's", probe_glibc_allocator),
    ("does not apply", r"any N runs: channel independent", never),
    ("program", r"^(\S+) is not installed", probe_program),
    ("file", r"(/[^\s:]+) (?:is missing|is absent|not found)|\bno (/\S+)", probe_path),
]


def reasons_in(output):
    """The skip reasons a test's output gives: `SKIPPED: reason` lines and gtest's
    `FILE:LINE: Skipped` followed by the message (up to a blank or a `[` line)."""
    reasons = []
    lines = output.splitlines()
    for i, line in enumerate(lines):
        m = re.search(r"(?i)\bskipped:\s*(.*\S)", line)
        if m:
            reasons.append(m.group(1))
            continue
        if re.search(r":\d+: Skipped\s*$", line):
            message = []
            for follow in lines[i + 1:]:
                if not follow.strip() or follow.startswith("["):
                    break
                message.append(follow.strip())
            if message:
                reasons.append(" ".join(message))
    return reasons


class Judge:
    def __init__(self, opts):
        self.opts = opts
        self.cache = {}

    def reason(self, reason):
        """(kind or None, verdict, evidence) for one reason."""
        for kind, pattern, probe in KINDS:
            match = re.search(pattern, reason)
            if not match:
                continue
            key = (kind, match.groups())
            if key not in self.cache:
                try:
                    self.cache[key] = probe(match, self.opts)
                except Exception as error:  # a probe that cannot tell: say so, never pass
                    self.cache[key] = (None, "the probe failed: %s" % error)
            present, evidence = self.cache[key]
            if present is None:
                return kind, "cannot judge", evidence
            return kind, "could have run" if present else "stands", evidence
        return None, "cannot judge", "no kind in tests/tools/skip_summary.py KINDS knows it"


def read_report(path):
    """[(name, status, skipped_message, output)] of every test in a CTest JUnit report."""
    tests = []
    for case in ET.parse(path).getroot().iter("testcase"):
        skipped = case.find("skipped")
        out = case.find("system-out")
        tests.append((case.get("name"), case.get("status"),
                      skipped.get("message", "") if skipped is not None else None,
                      (out.text or "") if out is not None else ""))
    return tests


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--junit", required=True, help="ctest --output-junit's report")
    parser.add_argument("--build-dir", default="", help="the build (its CMakeCache.txt)")
    parser.add_argument("--python", default="/usr/bin/python3",
                        help="the Python whose torch is the build's LibTorch")
    opts = parser.parse_args()
    if not os.path.exists(opts.junit):
        print("Skipped: unknown: no CTest report at %s (ctest did not finish)" % opts.junit)
        return 2
    try:
        tests = read_report(opts.junit)
    except ET.ParseError as error:
        print("Skipped: unknown: the CTest report %s is unreadable: %s" % (opts.junit, error))
        return 2

    judge = Judge(opts)
    by_kind = {}
    wrong = []
    skipped = [t for t in tests
               if t[1] == "notrun" and t[2] is not None and t[2].startswith("SKIP_")]
    disabled = [t[0] for t in tests if t[1] == "disabled"]
    for name, _status, _message, output in skipped:
        reasons = reasons_in(output)
        if not reasons:
            verdicts = [(None, "cannot judge", "it printed no `SKIPPED: reason` line")]
            reasons = ["(no reason given)"]
        else:
            verdicts = [judge.reason(r) for r in reasons]
        for reason, (kind, verdict, evidence) in zip(reasons, verdicts):
            print("skipped %s: %s -- %s: %s" % (name, reason, verdict, evidence))
        kinds = sorted({k or "unknown" for k, _, _ in verdicts})
        for kind in kinds:
            by_kind[kind] = by_kind.get(kind, 0) + 1
        if any(v != "stands" for _, v, _ in verdicts):
            wrong.append(name)

    counts = ", ".join("%s %d" % (k, n) for k, n in sorted(by_kind.items()))
    line = "Skipped: %d of %d tests" % (len(skipped), len(tests) - len(disabled))
    if counts:
        line += " (%s)" % counts
    if disabled:
        line += "; disabled: %s" % ", ".join(disabled)
    if wrong:
        line += "; FAIL: %d skipped what this machine can run or gave no known reason: %s" % (
            len(wrong), ", ".join(wrong))
    else:
        line += "; each for a dependency this machine lacks"
    print(line)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
