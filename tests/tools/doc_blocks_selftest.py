#!/usr/bin/env python3
"""Proves doc_blocks.py can fail, and where: plants small Markdown trees in a temp
directory with blocks that need no server (echo, seq, false) and expects
  - a passing block, and an output that differs from the run's in numbers only, to pass;
  - a failing block to fail naming the FILE:LINE of the command that failed;
  - an output of another shape to fail naming the FILE:LINE of the differing line;
  - a marker not followed by its block to fail naming its line;
  - a file with no runnable block to fail (zero blocks checked is not a pass);
  - a ```python block to run (and a failing one to fail naming the line of its traceback);
  - a shell or Python block marked neither runnable nor not runnable with a reason, or a
    "not runnable" marker without a reason, to fail naming its line;
  - --write to fill an output block (a long one trimmed with "..."), which then passes;
  - the default ports and build/client/tsserve-client to be pointed at the test server's
    (--grpc-port ... --client), and the run's output to show them as the docs write them.

  tests/tools/doc_blocks_selftest.py   (CTest docs_runnable_blocks_selftest)
"""
import os
import subprocess
import sys
import tempfile

TOOL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "doc_blocks.py")
FENCE = "```"


def block(code, output=None):
    text = "<!-- runnable -->\n%ssh\n%s\n%s\n" % (FENCE, code, FENCE)
    if output is not None:
        text += "\n<!-- output -->\n%stext\n%s%s\n" % (FENCE, output + "\n" if output else "", FENCE)
    return text


def run(root, files, *options):
    done = subprocess.run([sys.executable, TOOL, "--root", root, *options, *files],
                          capture_output=True, text=True, timeout=120)
    return done.returncode, done.stdout + done.stderr


failures = []


def expect(name, root, files, options, code, *needles):
    rc, out = run(root, files, *options)
    missing = [n for n in needles if n not in out]
    if rc != code or missing:
        failures.append("%s: expected exit %d with %s; got %d:\n%s" % (name, code, needles, rc, out))
    else:
        print("ok: %s" % name)


def plant(root, path, text):
    full = os.path.join(root, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        f.write(text)


with tempfile.TemporaryDirectory() as root:
    no_server = ["--run", "--no-server"]
    # Lines:        1      2-5                         6-10
    # Measured numbers (a fraction, 4 digits or more) are masked; short integers are not.
    plant(root, "README.md", "# ok\n" + block("echo 3 apples at 0.25 ms on port 50051",
                                             "3 apples at 1.75 ms on port 8000")
          + "\n" + block("seq 1 3 | wc -l"))
    expect("passing blocks, numbers aside", root, ["README.md"], no_server, 0, "0 problem(s)")
    expect("the listing", root, [], [], 0, "README.md:3: runnable, with output", "README.md:13: runnable")

    # The failing command is line 6 of the file: 1 title, 2 marker, 3 fence, 4-6 the block.
    plant(root, "docs/failing.md", "# failing\n" + block("echo fine\ntrue\nls /no/such/dir\necho never"))
    expect("a failing block", root, ["docs/failing.md"], no_server, 1,
           "docs/failing.md:6: `ls /no/such/dir` exited", "No such file")

    # The output's line 2 ("3 pears") is file line 10: 1 title, 2-5 the block, 7 marker,
    # 8 fence, 9 "3 apples".
    plant(root, "docs/shape.md", "# shape\n" + block("echo 3 apples; echo 4 apples", "3 apples\n3 pears"))
    expect("an output of another shape", root, ["docs/shape.md"], no_server, 1,
           "docs/shape.md:10: the output differs", "documented: 3 pears", "run:        4 apples")
    # A count is shape: 5 documented where 3 ran is a difference, not a masked number.
    plant(root, "docs/count.md", "# count\n" + block("echo 3 apples at 0.25 ms", "5 apples at 0.25 ms"))
    expect("a count that differs", root, ["docs/count.md"], no_server, 1,
           "docs/count.md:9: the output differs", "documented: 5 apples", "run:        3 apples")
    plant(root, "docs/short.md", "# short\n" + block("echo 3 apples; echo 4 apples", "3 apples"))
    expect("an output with a line less", root, ["docs/short.md"], no_server, 1,
           "docs/short.md:10: the output differs", "(no line)")

    plant(root, "docs/marker.md", "# marker\n<!-- runnable -->\n\n%ssh\necho x\n%s\n" % (FENCE, FENCE)
          + "\n<!-- output -->\n%stext\nx\n%s\n" % (FENCE, FENCE))
    plant(root, "docs/none.md", "# none\n%ssh\necho not marked\n%s\n" % (FENCE, FENCE))
    expect("no runnable block at all", root, ["docs/none.md"], no_server, 1,
           "no <!-- runnable --> block found: nothing was checked", "0 runnable block(s)")
    expect("no runnable block, listed", root, ["docs/none.md"], [], 1,
           "no <!-- runnable --> block found")

    expect("markers without their blocks", root, ["docs/marker.md"], [], 1,
           "docs/marker.md:2: <!-- runnable --> must be followed",
           "docs/marker.md:8: <!-- output --> follows no runnable block")

    # Python blocks run too (in /usr/bin/python3, the protos' stubs on the path); a failing
    # one is named by the FILE:LINE of the line its traceback ends in: 1 title, 2 marker,
    # 3 fence, 4-5 the block.
    plant(root, "docs/python.md", "# python\n<!-- runnable -->\n%spython\nx = 2 + 1\n"
          "print(x, 'apples')\n%s\n\n<!-- output -->\n%stext\n3 apples\n%s\n"
          % (FENCE, FENCE, FENCE, FENCE))
    expect("a Python block", root, ["docs/python.md"], no_server, 0, "docs/python.md:3: ran",
           "0 problem(s)")
    plant(root, "docs/python_fails.md", "# python\n<!-- runnable -->\n%spython\nx = 1\n"
          "print(y)\nprint(x)\n%s\n" % (FENCE, FENCE))
    expect("a failing Python block", root, ["docs/python_fails.md"], no_server, 1,
           "docs/python_fails.md:5: `print(y)` failed", "NameError")

    # Every shell or Python block is marked: runnable, not runnable with a reason, or run by
    # another test; an unmarked one fails (listed or run), as does a marker without a reason.
    marked = ("# marked\n" + block("echo ok")
              + "\n<!-- not runnable: needs a Kubernetes cluster -->\n"
              "%ssh\nkubectl apply -k deploy/k8s\n%s\n\n<!-- http-examples -->\n"
              "%ssh\ncurl -s x\n%s\n\n%stext\nan output, not code\n%s\n"
              % (FENCE, FENCE, FENCE, FENCE, FENCE, FENCE))
    plant(root, "docs/marked.md", marked)
    expect("every block marked", root, ["docs/marked.md"], [], 0, "0 problem(s)")
    expect("every block marked, run", root, ["docs/marked.md"], no_server, 0, "0 problem(s)")
    # Lines: 1 title, 2-5 the runnable block, 6 blank, 7 the python fence.
    plant(root, "docs/unmarked.md",
          "# unmarked\n" + block("echo ok") + "\n%spython\nimport os\n%s\n" % (FENCE, FENCE))
    expect("an unmarked Python block", root, ["docs/unmarked.md"], [], 1,
           "docs/unmarked.md:7: a ```python block must be marked")
    expect("an unmarked block, run", root, ["docs/unmarked.md"], no_server, 1,
           "docs/unmarked.md:7: a ```python block must be marked")
    plant(root, "docs/no_reason.md", "# no reason\n" + block("echo ok")
          + "\n<!-- not runnable: -->\n%sbash\nrm -rf /\n%s\n" % (FENCE, FENCE))
    expect("not runnable without a reason", root, ["docs/no_reason.md"], [], 1,
           "docs/no_reason.md:7: <!-- not runnable: REASON --> gives no reason")

    # --write fills the outputs; 40 lines keep 29 and "...", and then the check passes.
    plant(root, "docs/write.md", "# write\n" + block("seq 1 40", "") + "\n" + block("echo 7 days", "stale"))
    expect("a stale output before --write", root, ["docs/write.md"], no_server, 1, "documented: stale")
    expect("--write", root, ["docs/write.md"], no_server + ["--write"], 0, "docs/write.md: outputs written")
    with open(os.path.join(root, "docs/write.md")) as f:
        written = f.read()
    if "\n29\n...\n```" not in written or "\n30\n" in written or "\n7 days\n" not in written:
        failures.append("--write wrote:\n" + written)
    expect("the written outputs", root, ["docs/write.md"], no_server, 0, "0 problem(s)")

    # The test server's ports, and a client that prints what it was given.
    plant(root, "fake-client", "#!/bin/sh\necho \"client $*\"\n")
    os.chmod(os.path.join(root, "fake-client"), 0o755)
    plant(root, "docs/ports.md", "# ports\n" + block(
        "echo see http://localhost:8000/v2\n"
        '[ "127.0.0.1:8000 localhost:50051 localhost:9464" = "127.0.0.1:18000 127.0.0.1:15051 127.0.0.1:19464" ]\n'
        "build/client/tsserve-client health\n"
        "build/client/tsserve-client info --target 10.0.0.1:1\n"
        "build/client/tsserve-client forecast a.csv -c OT -- -b",
        "see http://localhost:8000/v2\nclient health --target localhost:50051\nclient info --target 10.0.0.1:1\nclient forecast a.csv -c OT --target localhost:50051 -- -b"))
    server = ["--run", "--grpc-port", "15051", "--http-port", "18000", "--metrics-port", "19464",
              "--client", os.path.join(root, "fake-client")]
    expect("pointed at the test server", root, ["docs/ports.md"], server, 0, "0 problem(s)")
    # A script of the tree whose --url defaults to the HTTP port gets the test server's.
    plant(root, "client/tool.py", "import argparse\np = argparse.ArgumentParser()\np.add_argument('csv')\n"
          "p.add_argument(\"--url\", default=\"http://localhost:8000\")\n"
          "a = p.parse_args()\nassert not a.url.endswith(':8000'), 'not pointed at the test server'\n"
          "print(a.csv, a.url)\n")
    plant(root, "docs/script.md", "# script\n" + block(
        "python3 client/tool.py a.csv\npython3 client/tool.py b.csv --url http://10.0.0.1:1",
        "a.csv http://localhost:8000\nb.csv http://10.0.0.1:1"))
    expect("a script's default address", root, ["docs/script.md"], server, 0, "0 problem(s)")
    expect("unchanged without a server", root, ["docs/ports.md"], no_server, 1, "docs/ports.md:5:")

if failures:
    print("\n\n".join(failures), file=sys.stderr)
    print("FAIL: %d case(s)" % len(failures), file=sys.stderr)
    sys.exit(1)
print("PASS")
