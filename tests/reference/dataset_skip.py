"""What a fixture generator does for a case it cannot make because the dataset is missing.

The dataset (ETTh1.csv, ETTh2.csv) lives beside the project, not in it. Without it the
generator writes every case it can, and for each case it cannot: removes that case's
outputs from an earlier run (a stale fixture must not stand in for a fresh one) and
writes DIR/<case>.skipped naming the missing file; the C++ tests that read the case skip
with that reason (tests/model/reference_fixture.h: fixture_skip_reason). The generator
then exits SKIPPED, which CTest reports as "Skipped" (SKIP_RETURN_CODE 77); the other
fixtures are still written, and tests that need only those run as usual.
"""

import os

SKIPPED = 77


def marker(out_dir, case):
    return os.path.join(out_dir, case + ".skipped")


def skip_case(out_dir, case, missing, outputs=None):
    """Records that `case` was not made because the file `missing` does not exist.

    outputs: the file names the case writes when it can (default: <case>.pt)."""
    for name in outputs or [case + ".pt"]:
        path = os.path.join(out_dir, name)
        if os.path.exists(path):
            os.remove(path)
    reason = "%s is missing, so the generator skipped %s" % (os.path.abspath(missing), case)
    with open(marker(out_dir, case), "w") as f:
        f.write(reason + "\n")
    print("skipped:", reason)


def case_made(out_dir, case):
    """Removes the skip marker of an earlier run without the dataset."""
    if os.path.exists(marker(out_dir, case)):
        os.remove(marker(out_dir, case))
