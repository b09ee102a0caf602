#!/usr/bin/env python3
"""The shell blocks the docs mark runnable, run as a reader would, so that a command the
README or docs/ shows cannot silently stop working, and an output they show is one a real
run printed.

The convention, in README.md and docs/**/*.md:

    <!-- runnable -->
    ```sh
    curl -s localhost:8000/v2/health/ready
    ```
    <!-- output -->
    ```text
    {"ready":true}
    ```

`<!-- runnable -->` on the line right before a ```sh block marks it: run from the
repository root with bash -euo pipefail against a tsserve started with the bundled model on
its default ports (gRPC 127.0.0.1:50051, HTTP 127.0.0.1:8000, metrics 127.0.0.1:9464). The
optional `<!-- output -->` and ```text block after it is that block's stdout from a real run.
Before a ```python block it runs the block in /usr/bin/python3 the same way, with the
stubs of proto/'s .proto files (grpc_tools.protoc) on its path.

Every other shell or Python block (```sh, bash, shell, console, zsh, python, py) says on
the line before it why it does not run here: `<!-- not runnable: needs a Kubernetes
cluster -->` (a reason is required), or carries the marker of the test that runs it
(`<!-- http-examples -->`: tests/e2e/http_examples_test.sh). An unmarked block is a problem
(FILE:LINE), with or without --run.

  tests/tools/doc_blocks.py [--root DIR] [FILE ...]           list the runnable blocks
  tests/tools/doc_blocks.py --run --grpc-port P --http-port P --metrics-port P
                            [--client BIN] [--tsserve BIN] [--write] [FILE ...]
  tests/tools/doc_blocks.py --run --no-server [--write] [FILE ...]

--run starts no server: it runs each block against the one whose ports it is given, with
localhost/127.0.0.1/0.0.0.0 at 50051, 8000 and 9464 pointed at them, and
build/client/tsserve-client (or tsserve-client on PATH) replaced by --client, given
--target when the command names none (its default is localhost:50051), and
build/server/tsserve by --tsserve (for --help and the like: the server already runs), and
a Python script of the tree whose option defaults to one of those addresses given that
option (client/python/rest_forecast.py --url) when the command names none. Blocks run in file
order, each in its own bash, so files one writes are there for the next. It fails naming
FILE:LINE and the block's stderr when a block exits non-zero, and FILE:LINE of an output
block whose shape differs from the run's: measured numbers are masked (a fraction or an
exponent: forecasts, timings; 4 digits or more: ports, bytes, dates), while short integers
(steps, counts, codes), the lines and words may not change; runs of spaces count as one,
and a line ending in "..." matches any line that starts as it does.
--write replaces each output block with the run's stdout instead (ports shown as the docs
write them; more than MAX_LINES lines keep the head and end with "...").
--no-server runs blocks unchanged (doc_blocks_selftest.py, whose blocks need no server).

With no FILE: README.md and docs/**/*.md under --root. Exit 1 on any problem, including a
marker that is not followed by what it must be.
"""
import argparse
import glob
import os
import re
import stat
import subprocess
import sys
import tempfile
from collections import namedtuple

RUNNABLE = "<!-- runnable -->"
OUTPUT = "<!-- output -->"
# A block that cannot run here says why: <!-- not runnable: needs a Kubernetes cluster -->.
NOT_RUNNABLE = re.compile(r"^<!--\s*not runnable:?\s*(.*?)\s*-->$")
# Blocks another test runs as written: the marker, and that test.
RUN_ELSEWHERE = {"<!-- http-examples -->": "tests/e2e/http_examples_test.sh (e2e_http_examples)"}
SHELL_FENCE = re.compile(r"^(`{3,}|~{3,})\s*(sh|bash|shell|python)\s*$")
# The blocks that must be marked one way or the other: shell and Python code.
CODE_FENCE = re.compile(r"^(`{3,}|~{3,})\s*(sh|bash|shell|console|zsh|python|py)\s*$")
TEXT_FENCE = re.compile(r"^(`{3,}|~{3,})\s*text\s*$")
MAX_LINES = 30
MAX_WIDTH = 200

# The ports a reader's server has (tsserve's defaults) and the flag that sets each port here.
DEFAULT_PORTS = {"grpc": 50051, "http": 8000, "metrics": 9464}
LOOPBACK_HOSTS = r"(?:localhost|127\.0\.0\.1|0\.0\.0\.0)"
CLIENT_IN_BLOCK = re.compile(r"(?<![\w/.$-])(?:\./)?build/client/tsserve-client(?![\w./-])")
# A Python script of the tree in a block, and an argparse option of it whose default is a
# loopback address at a default port (rest_forecast.py's --url http://localhost:8000).
SCRIPT_IN_BLOCK = re.compile(r"(?<![\w/.$-])((?:\./)?[\w./-]+\.py)(?![\w.-])")
DEFAULT_ADDRESS_OPTION = re.compile(
    r"add_argument\(\s*[\"'](--[\w-]+)[\"'][^)]*?default=[\"']((?:\w+://)?)(" + LOOPBACK_HOSTS
    + r"):(\d+)[\"']")
SERVER_IN_BLOCK = re.compile(r"(?<![\w/.$-])(?:\./)?build/server/tsserve(?![\w./-])")

# What may change between runs: measured numbers (forecasts, scores, timings: a fraction
# or an exponent), long integers (ports, byte counts, ids, dates: 4 digits or more) and
# long hex ids (request ids, hashes). Short integers are shape, never masked: the 96 steps
# and 7 variables of a forecast, counts, status codes, exit codes.
HEX_ID = re.compile(r"\b(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b")
NUMBER = re.compile(r"-?(?:\d+\.\d*|\.\d+|\d+(?=[eE][-+]?\d)|\d{4,})(?:[eE][-+]?\d+)?"
                    r"|(?<![\w.])-?\d{1,3}(?=[eE][-+]?\d)")

# One runnable block: the 0-based indices of its fence lines, and of its output block's
# (None when it shows no output).
Block = namedtuple("Block", "path fence end code output_fence output_end language")
Problem = namedtuple("Problem", "path line message")


def fence_end(lines, start, fence):
    """Index of the line closing the fence opened at lines[start], or None."""
    closing = re.compile("^" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}\s*$")
    for i in range(start + 1, len(lines)):
        if closing.match(lines[i]):
            return i
    return None


def find_blocks(root, path):
    """(blocks, problems) of one Markdown file; path is relative to root."""
    with open(os.path.join(root, path), encoding="utf-8") as f:
        lines = f.read().split("\n")
    blocks, problems, used_outputs = [], [], set()
    i = 0
    while i < len(lines):
        if lines[i].strip() != RUNNABLE:
            i += 1
            continue
        opening = SHELL_FENCE.match(lines[i + 1]) if i + 1 < len(lines) else None
        if not opening:
            problems.append(Problem(path, i + 1, RUNNABLE + " must be followed at once by a "
                                    "```sh or ```python block"))
            i += 1
            continue
        end = fence_end(lines, i + 1, opening.group(1))
        if end is None:
            problems.append(Problem(path, i + 2, "the runnable block is never closed"))
            break
        output_fence = output_end = None
        k = end + 1
        while k < len(lines) and not lines[k].strip():
            k += 1
        if k < len(lines) and lines[k].strip() == OUTPUT:
            used_outputs.add(k)
            j = k + 1
            while j < len(lines) and not lines[j].strip():
                j += 1
            text = TEXT_FENCE.match(lines[j]) if j < len(lines) else None
            close = fence_end(lines, j, text.group(1)) if text else None
            if close is None:
                problems.append(Problem(path, k + 1, OUTPUT + " must be followed by a closed ```text block"))
            else:
                output_fence, output_end = j, close
        language = "python" if opening.group(2) == "python" else "sh"
        blocks.append(Block(path, i + 1, end, lines[i + 2:end], output_fence, output_end, language))
        i = end + 1
    for k, line in enumerate(lines):
        if line.strip() == OUTPUT and k not in used_outputs:
            problems.append(Problem(path, k + 1, OUTPUT + " follows no runnable block"))
    return blocks, problems + unmarked_blocks(path, lines)


def unmarked_blocks(path, lines):
    """Problems with the shell and Python blocks of a file that are neither marked runnable
    nor marked not runnable with a reason (nor run by another test, RUN_ELSEWHERE): the
    line right before each such fence must say which."""
    problems, i = [], 0
    while i < len(lines):
        opening = re.match(r"^\s*(`{3,}|~{3,})", lines[i])
        if not opening:
            i += 1
            continue
        end = fence_end(lines, i, opening.group(1).strip()) or len(lines)
        code = CODE_FENCE.match(lines[i].strip())
        marker = lines[i - 1].strip() if i > 0 else ""
        not_runnable = NOT_RUNNABLE.match(marker)
        if code and not_runnable and not not_runnable.group(1):
            problems.append(Problem(path, i, "<!-- not runnable: REASON --> gives no reason"))
        elif code and marker != RUNNABLE and not not_runnable and marker not in RUN_ELSEWHERE:
            problems.append(Problem(path, i + 1, "a ```%s block must be marked %s (it runs "
                                    "against the test server) or <!-- not runnable: REASON --> "
                                    "on the line before it" % (code.group(2), RUNNABLE)))
        i = end + 1
    return problems


def markdown_files(root):
    files = ["README.md"] if os.path.exists(os.path.join(root, "README.md")) else []
    found = glob.glob(os.path.join(root, "docs", "**", "*.md"), recursive=True)
    return files + sorted(os.path.relpath(p, root) for p in found if "node_modules" not in p)


def shape(line):
    """The line with what may differ between runs masked."""
    return re.sub(r"[ \t]+", " ", NUMBER.sub("#", HEX_ID.sub("#", line))).strip()


def trimmed(output):
    """[(shown, full)]: the lines an output block shows for `output`; a line cut at
    MAX_WIDTH ends in "...", and past MAX_LINES the head is kept and a last "..." (full
    None) says so."""
    lines = output.rstrip("\n").split("\n") if output.strip() else []
    shown = []
    for line in lines[:MAX_LINES - 1] if len(lines) > MAX_LINES else lines:
        line = line.rstrip()
        if len(line) > MAX_WIDTH:
            cut = line[:MAX_WIDTH - 3]
            # Cut after a separator, never inside a number (its mask would differ).
            at = max(cut.rfind(c) for c in " ,;:[]{}()\"'")
            shown.append((cut[:at + 1] if at > MAX_WIDTH // 2 else cut) + "...")
        else:
            shown.append(line)
    full = [line.rstrip() for line in lines]
    pairs = list(zip(shown, full))
    if len(lines) > MAX_LINES:
        pairs.append(("...", None))
    return pairs


def first_difference(documented, run):
    """None when the documented lines have the run's shape, else (index, documented line,
    run's line) of the first difference."""
    for i in range(max(len(documented), len(run))):
        if i >= len(documented) or i >= len(run):
            return (i, documented[i] if i < len(documented) else "(no line)",
                    run[i][0] if i < len(run) else "(no line)")
        doc = documented[i]
        shown, full = run[i]
        if doc == "..." and full is None:
            continue
        if doc.endswith("...") and full is not None and shape(full).startswith(shape(doc[:-3])):
            continue
        if shape(doc) != shape(shown):
            return (i, doc, shown)
    return None


class Target:
    """How a block is pointed at the test server, and its output pointed back."""

    def __init__(self, args, work):
        self.root, self.work = os.path.abspath(args.root), work
        self.ports = None if args.no_server else {
            "grpc": args.grpc_port, "http": args.http_port, "metrics": args.metrics_port}
        self.tsserve = os.path.abspath(args.tsserve) if self.ports and args.tsserve else None
        self.client = None
        if self.ports and args.client:
            # A tsserve-client that adds --target when the command gives none, so the
            # docs can show the client's defaults.
            bindir = os.path.join(work, "bin")
            os.makedirs(bindir, exist_ok=True)
            self.client = os.path.join(bindir, "tsserve-client")
            with open(self.client, "w") as f:
                f.write("#!/usr/bin/env bash\n"
                        "# doc_blocks.py: tsserve-client at the test server unless told where.\n"
                        "# --target goes last (or before --): its values would take a positional.\n"
                        "client=%s\n"
                        "target=127.0.0.1:%d\n"
                        "for a in \"$@\"; do case $a in -t|--target|--target=*|-t?*) exec \"$client\" \"$@\";; esac; done\n"
                        "case ${1:-} in \"\"|-*) exec \"$client\" \"$@\";; esac\n"
                        "args=(); added=\n"
                        "for a in \"$@\"; do\n"
                        "  if [ \"$a\" = -- ] && [ -z \"$added\" ]; then args+=(--target \"$target\"); added=1; fi\n"
                        "  args+=(\"$a\")\n"
                        "done\n"
                        "[ -n \"$added\" ] || args+=(--target \"$target\")\n"
                        "exec \"$client\" \"${args[@]}\"\n"
                        % (shlex_quote(os.path.abspath(args.client)), self.ports["grpc"]))
            os.chmod(self.client, os.stat(self.client).st_mode | stat.S_IXUSR)

    def script(self, code):
        """(script, [(what the run prints, what the docs write)])."""
        text = "\n".join(code) + "\n"
        back = self.back = []  # script_wrapper adds the defaults it replaces
        if self.ports:
            for name, default in DEFAULT_PORTS.items():
                pattern = re.compile(r"\b(" + LOOPBACK_HOSTS + r"):" + str(default) + r"\b")
                # A port the block spells several ways is shown as first spelled.
                hosts = pattern.findall(text)
                if hosts:
                    back.append(("127.0.0.1:%d" % self.ports[name], "%s:%d" % (hosts[0], default)))
                text = pattern.sub("127.0.0.1:%d" % self.ports[name], text)
        if self.tsserve:
            text = SERVER_IN_BLOCK.sub(lambda _: shlex_quote(self.tsserve), text)
        text = SCRIPT_IN_BLOCK.sub(lambda m: self.script_wrapper(m.group(1)), text)
        if self.client:
            text = CLIENT_IN_BLOCK.sub(lambda _: shlex_quote(self.client), text)
            # The target the wrapper adds, as the client's own default spells it.
            back.append(("127.0.0.1:%d" % self.ports["grpc"], "localhost:%d" % DEFAULT_PORTS["grpc"]))
        return text, back

    def script_wrapper(self, path):
        """A Python script of the tree that defaults to a loopback address at a default port
        as a wrapper that gives the test server's when the command names none; any other
        path as it is."""
        full = os.path.join(self.root, path)
        if not self.ports or not os.path.isfile(full):
            return path
        with open(full, encoding="utf-8", errors="replace") as f:
            options = []
            for flag, scheme, host, port in DEFAULT_ADDRESS_OPTION.findall(f.read()):
                name = next((n for n, p in DEFAULT_PORTS.items() if p == int(port)), None)
                if name:
                    options.append((flag, "%s127.0.0.1:%d" % (scheme, self.ports[name])))
                    self.back.append(("127.0.0.1:%d" % self.ports[name], "%s:%s" % (host, port)))
        if not options:
            return path
        wrapper = os.path.join(self.work, "py", path.replace("/", "_"))
        os.makedirs(os.path.dirname(wrapper), exist_ok=True)
        with open(wrapper, "w") as f:
            f.write("# doc_blocks.py: %s at the test server unless told where.\n"
                    "import os, runpy, sys\n"
                    "script = %r\n"
                    "args = sys.argv[1:]\n"
                    "for flag, value in %r:\n"
                    "    if not any(a == flag or a.startswith(flag + '=') for a in args):\n"
                    "        args += [flag, value]\n"
                    "sys.argv = [script] + args\n"
                    "sys.path.insert(0, os.path.dirname(script))\n"
                    "runpy.run_path(script, run_name='__main__')\n" % (path, os.path.abspath(full), options))
        return wrapper

    def environment(self):
        env = dict(os.environ)
        if self.client:
            env["PATH"] = os.path.dirname(self.client) + os.pathsep + env.get("PATH", "")
        return env


def shlex_quote(text):
    return "'" + text.replace("'", "'\\''") + "'"


PYTHON = "/usr/bin/python3"  # Debian's, which sees python3-grpcio (as the docs say)


def python_stubs(root, work):
    """A folder of the Python stubs of every .proto under proto/ (as a reader generates
    them with grpc_tools.protoc, the docs' Python blocks import them), or raises."""
    out = os.path.join(work, "python-stubs")
    if not os.path.isdir(out):
        proto = os.path.join(root, "proto")
        protos = sorted(os.path.relpath(p, proto) for p in
                        glob.glob(os.path.join(proto, "**", "*.proto"), recursive=True))
        os.makedirs(out)
        if protos:  # a tree without .proto files (the selftest's) needs none
            subprocess.run([PYTHON, "-m", "grpc_tools.protoc", "-I", proto, "--python_out=" + out,
                            "--grpc_python_out=" + out] + protos, check=True,
                           capture_output=True, text=True)
    return out


def run_block(root, block, target, work, timeout):
    """(stdout with the docs' addresses, None, None), or (None, the failing line (1-based),
    the failure's message). A ```python block runs in /usr/bin/python3 with the protos'
    stubs on its path."""
    text, back = target.script(block.code)
    env = target.environment()
    if block.language == "python":
        script = os.path.join(work, "block.py")
        with open(script, "w") as f:
            f.write(text)
        try:
            env["PYTHONPATH"] = python_stubs(root, work) + os.pathsep + env.get("PYTHONPATH", "")
        except subprocess.CalledProcessError as error:
            return None, block.fence + 2, "no Python stubs from proto/: %s" % error.stderr
        command = [PYTHON, script]
    else:
        script = os.path.join(work, "block.sh")
        with open(script, "w") as f:
            # Line 1 reports the failing line; block line k is script line k + 1.
            f.write('trap \'echo "doc_blocks: failed at block line $((LINENO - 1))" >&2\' ERR\n')
            f.write(text)
        command = ["bash", "-Eeuo", "pipefail", script]
    try:
        done = subprocess.run(command, cwd=root, env=env, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, block.fence + 2, "timed out after %d s" % timeout
    if done.returncode != 0 and block.language == "python":
        # The traceback's last frame in the block names its line (block line k = line k).
        lines = re.findall(r'File "%s", line (\d+)' % re.escape(script), done.stderr)
        k = int(lines[-1]) if lines and 1 <= int(lines[-1]) <= len(block.code) else 1
        tail = "\n".join(done.stderr.rstrip().split("\n")[-20:]) or "(no stderr)"
        return None, block.fence + 1 + k, "`%s` failed (python3 exited %d); stderr:\n%s" % (
            block.code[k - 1].strip(), done.returncode, tail)
    if done.returncode != 0:
        failed = re.findall(r"doc_blocks: failed at block line (\d+)", done.stderr)
        k = int(failed[-1]) if failed and 1 <= int(failed[-1]) <= len(block.code) else 1
        stderr = re.sub(r"doc_blocks: failed at block line -?\d+\n?", "", done.stderr).rstrip()
        tail = "\n".join(stderr.split("\n")[-20:]) or (
            "(no stderr; stdout ends: %s)" % "\n".join(done.stdout.rstrip().split("\n")[-5:]))
        return None, block.fence + 1 + k, "`%s` exited %d; stderr:\n%s" % (
            block.code[k - 1].strip(), done.returncode, tail)
    out = done.stdout
    for run_address, doc_address in back:
        out = out.replace(run_address, doc_address)
    return out, None, None


def write_outputs(root, path, replacements):
    """Replaces output blocks' lines: replacements is [(fence, end, new lines)]."""
    full = os.path.join(root, path)
    with open(full, encoding="utf-8") as f:
        lines = f.read().split("\n")
    before = list(lines)
    for fence, end, new in sorted(replacements, reverse=True):
        lines[fence + 1:end] = new
    if lines != before:
        with open(full, "w", encoding="utf-8") as f:
            f.write("\n".join(lines))
        return True
    return False


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", help="Markdown files, relative to --root")
    parser.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    parser.add_argument("--run", action="store_true", help="run the blocks and check their outputs")
    parser.add_argument("--write", action="store_true", help="with --run: write the outputs instead")
    parser.add_argument("--no-server", action="store_true", help="run the blocks unchanged")
    parser.add_argument("--grpc-port", type=int)
    parser.add_argument("--http-port", type=int)
    parser.add_argument("--metrics-port", type=int)
    parser.add_argument("--client", help="tsserve-client to run for build/client/tsserve-client")
    parser.add_argument("--tsserve", help="tsserve to run for build/server/tsserve (--help and the like)")
    parser.add_argument("--timeout", type=int, default=120, help="seconds per block")
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    if args.run and not args.no_server and None in (args.grpc_port, args.http_port, args.metrics_port):
        parser.error("--run needs --grpc-port, --http-port and --metrics-port, or --no-server")
    if args.write and not args.run:
        parser.error("--write needs --run")

    blocks, problems = [], []
    for path in args.files or markdown_files(root):
        found, wrong = find_blocks(root, path)
        blocks += found
        problems += wrong
    if not args.run:
        for block in blocks:
            print("%s:%d: runnable%s" % (block.path, block.fence + 1,
                                         ", with output" if block.output_fence is not None else ""))
    else:
        with tempfile.TemporaryDirectory(prefix="doc_blocks.") as work:
            target = Target(args, work)
            writes = {}
            for block in blocks:
                out, line, failure = run_block(root, block, target, work, args.timeout)
                if failure:
                    problems.append(Problem(block.path, line, failure))
                    continue
                print("%s:%d: ran" % (block.path, block.fence + 1))
                if block.output_fence is None:
                    continue
                run = trimmed(out)
                if args.write:
                    writes.setdefault(block.path, []).append(
                        (block.output_fence, block.output_end, [shown for shown, _ in run]))
                    continue
                with open(os.path.join(root, block.path), encoding="utf-8") as f:
                    documented = f.read().split("\n")[block.output_fence + 1:block.output_end]
                difference = first_difference(documented, run)
                if difference:
                    i, doc, got = difference
                    problems.append(Problem(
                        block.path, block.output_fence + 2 + i,
                        "the output differs from the run's (numbers aside):\n  documented: %s\n"
                        "  run:        %s\n  (update it: doc_blocks.py --run --write, or "
                        "bash tests/tools/regenerate_docs.sh)" % (doc, got)))
            if args.write and not problems:
                for path, replacements in writes.items():
                    if write_outputs(root, path, replacements):
                        print("%s: outputs written" % path)
    if not blocks:
        # Zero blocks checks nothing: a renamed marker or moved docs must not read as a pass.
        problems.append(Problem(" ".join(args.files) or "README.md and docs/", 0,
                                "no <!-- runnable --> block found: nothing was checked"))
    sys.stdout.flush()
    for problem in problems:
        print("%s:%d: %s" % problem, file=sys.stderr)
    print("%d runnable block(s), %d problem(s)" % (len(blocks), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
