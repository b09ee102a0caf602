"""drain.py fails on a server that crashes at SIGTERM, at once and with the crash shown.

Runs drain.py against crash_at_sigterm.py (the real tsserve, aborted when SIGTERM comes)
and requires: exit 1; a FAIL naming the signal death of the first attempt and printing
that attempt's log; no rerun (a crash is never taken for a SIGTERM that found no call).
"""

import argparse
import os
import stat
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def fail(message):
    print("FAIL: %s" % message, file=sys.stderr)
    sys.exit(1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tsserve", required=True)
    parser.add_argument("--client", required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    # drain.py runs its --tsserve as a program: a launcher that wraps the real one.
    launcher = os.path.join(args.work, "tsserve-crashing-at-sigterm")
    with open(launcher, "w") as f:
        f.write("#!/bin/sh\nexec %s %s %s \"$@\"\n" % (
            sys.executable, os.path.join(HERE, "crash_at_sigterm.py"), args.tsserve))
    os.chmod(launcher, os.stat(launcher).st_mode | stat.S_IXUSR)
    run = subprocess.run(
        [sys.executable, os.path.join(HERE, "drain.py"), "--tsserve", launcher,
         "--client", args.client, "--work", os.path.join(args.work, "drain"),
         "--warm-calls", "20", "--concurrency", "8", "--variables", "8"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=240)
    out = run.stdout
    print(out[-4000:])
    if run.returncode != 1:
        fail("drain.py exited %d on a server that crashes at SIGTERM, not 1" % run.returncode)
    if "FAIL: attempt 1: the server exited -6 at SIGTERM (killed by signal 6)" not in out:
        fail("drain.py did not name the first attempt's signal death")
    if "its log:" not in out:
        fail("drain.py did not print the crashed attempt's log")
    if "again" in out or "attempt 2" in out:
        fail("drain.py reran after a crash")
    print("PASS: drain.py fails at once on a crash at SIGTERM, with its exit code and log")


if __name__ == "__main__":
    main()
