"""A planted defect for drain_selftest.py: a tsserve that crashes at SIGTERM.

Runs the real tsserve given as argv[1] with the rest of the arguments (so it listens,
prints its listening line and answers like the real one), and on SIGTERM kills it and
aborts itself: the exit a crash at SIGTERM gives (death by SIGABRT, no drain line).
"""

import os
import signal
import subprocess
import sys


def main():
    child = subprocess.Popen(sys.argv[1:])

    def crash(signum, frame):
        # No child.wait() here: the interrupted wait below holds Popen's lock.
        os.kill(child.pid, signal.SIGKILL)
        os.abort()

    signal.signal(signal.SIGTERM, crash)
    sys.exit(child.wait())


if __name__ == "__main__":
    main()
