#!/usr/bin/env python3
"""The include graph of server/, for the layering figures in docs/ARCHITECTURE.md.

Reads every #include "..." of the .h/.cpp files under ROOT/server and prints:
  - the files that include a generated protobuf header (*.pb.h) directly, and the files
    of the lower layers (request, batching, runtime) that reach one through other headers;
  - every arrow that runs from a layer to a higher one or to a sibling of the same rank
    (e.g. codec/oip -> codec/v1), which the layout forbids;
  - every include loop: a cycle among server/'s files, counting a header and its source
    (foo.h, foo.cpp) as one unit, so foo.cpp -> bar.h -> foo.h is a loop too;
  - every file of codec/common/ that names a protocol's generated type (includes a
    tsserve/v1 or inference/ protobuf header, or says v1:: or inference:: outside a
    comment): the shared rules take request/'s neutral types (AttentionRequest,
    ScalerMode, TensorView), and each protocol adapts its own messages in codec/v1 and
    codec/oip.

Layers are the folders of server/ (see LAYERS). A tree from before the folders existed
(server/include + server/src) is measured against the same layers: pass --folders-from
with a checkout that has them, and each old file counts in the folder its name moved to.

  tests/tools/server_include_graph.py [--root DIR] [--folders-from DIR] [--check]

  - every folder of server/ that LAYERS does not name (nor a folder above it, as families/
    holds one folder per family): each folder must be given its rank here, so a new folder
    cannot slip past the arrow check.

--check (CTest server_layering): exit 3 (FINDINGS) when a folder of server/ is not in
LAYERS, a layer of NO_PROTOBUF reaches a protobuf header, an arrow runs upward or sideways,
includes form a loop, or codec/common names a protocol; 0 when there is none. Any other
exit (2: a usage error; 1: a Python traceback) is the checker failing, not a finding.
--root may be any directory with a server/ folder (server_include_graph_selftest.py plants
broken trees to prove each check can fail, and that a crash is told from a finding).
"""
import argparse
import os
import re
import sys

# Folder -> rank. An include must go to a strictly lower rank, or stay in its folder.
LAYERS = {
    # The standard library only, below every other folder: Mutex, MutexLock; Status.
    "sync": -2, "status": -2,
    "codec/json": -1,  # JSON text, read (simdjson) and written; errors as Status
    "request": 0, "httpd": 0,  # httpd: the HTTP server, below the metrics page
    "batching": 1, "codec/common": 1, "observability": 1, "auth": 1, "codec/oip_rest": 1,
    # Each protocol's codec, over the rules they share in codec/common (the JSON API's too:
    # its forecast decodes straight into the neutral request).
    "codec/v1": 2, "codec/oip": 2, "codec/v1_json": 2,
    "config": 2,  # config checks the batcher's row limits
    "accuracy": 2,  # the forecast store's clock is the batcher's
    # repository/: a model repository's directory and each model's settings, over status/
    # only (no gRPC, no LibTorch); registry/, call/ and app/ read it.
    "repository": 0,
    # registry/: the loaded versions and their batchers, over batching/, request/ and
    # repository/ (and the generated message types); call/ and app/ resolve through it.
    "registry": 2,
    "live": 2.5,  # the series windows and each point's flag, over the forecast store
    "redis": 2.7,  # the shared series store: both stores of live/ and accuracy/ in Redis
    "runtime": 3,
    "call": 3,  # the call path every door shares: admission, BatchedCall, statuses, answers
    "families": 4,  # one folder per model family, over the runtime they share
    "grpc": 4, "http": 4,  # the two doors, side by side over the call path of call/
    "app": 5,
}
# The layers that never see a generated protobuf header, directly or through includes: the
# request path below the protocols, and repository/ (its CMakeLists: no gRPC).
NO_PROTOBUF = ("sync", "status", "codec/json", "request", "batching", "runtime", "repository",
               "redis")
# --check's exit status when it found something (1 is Python's for a traceback, 2 argparse's).
FINDINGS = 3
# Files whose name changed in the move (old name -> new name).
RENAMED = {"forecast_task.h": "request_task.h"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# A protocol's generated headers and namespaces, which codec/common/'s files never name.
PROTOCOL_HEADER = re.compile(r'^(tsserve/v1/.*|inference/.*|(.*/)?grpc_service)\.(grpc\.)?pb\.h$')
PROTOCOL_NAME = re.compile(r"(?<!\w)(v1|inference)::")
COMMENT = re.compile(r'//[^\n]*|/\*.*?\*/', re.S)


def code_files(root, top):
    """Every .h/.cpp under ROOT/top, sorted (top: "server" or "model")."""
    out = []
    for folder, _, names in os.walk(os.path.join(root, top)):
        out += [os.path.join(folder, n) for n in names if n.endswith((".h", ".cpp"))]
    return sorted(out)


def folder_of_new(root, path):
    rel = os.path.relpath(os.path.dirname(path), os.path.join(root, "server"))
    while rel and rel not in LAYERS:  # families/patchtst/ is in families/'s layer
        rel = os.path.dirname(rel)
    return rel or None


def unknown_folders(root):
    """server/'s folders that hold a file but are not in LAYERS, nor under a folder that is
    (families/patchtst/ is families/'s); a .h/.cpp directly in server/ counts as ".". A
    folder holding only folders (codec/) is not a layer: each of its folders is judged."""
    server = os.path.join(root, "server")
    out = []
    for folder, _, names in os.walk(server):
        rel = os.path.relpath(folder, server)
        if rel == ".":
            if any(n.endswith((".h", ".cpp")) for n in names):
                out.append(".")
            continue
        if names and folder_of_new(root, os.path.join(folder, names[0])) is None:
            out.append(rel)
    return sorted(out)


def folder_map(new_root):
    """Base name -> folder, from a checkout with the folders."""
    return {os.path.basename(p): folder_of_new(new_root, p) for p in code_files(new_root, "server")}


def resolve(root, path, name):
    for base in (root, os.path.join(root, "server", "include"), os.path.dirname(path)):
        candidate = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(candidate):
            return candidate
    return None  # generated (proto), another component's (model/, tsserve/v1), or system


def unit_of(path):
    """foo.h and foo.cpp are one unit: a loop may run through either half of a pair."""
    return os.path.splitext(path)[0]


def include_loops(includes, resolved):
    """The include loops among units, each a sorted list of units (Tarjan's SCCs > 1)."""
    graph = {}
    for path in includes:
        edges = graph.setdefault(unit_of(path), set())
        for target in resolved[path]:
            if unit_of(target) != unit_of(path):
                edges.add(unit_of(target))
    index, low, stack, on_stack, loops = {}, {}, [], set(), []

    def visit(unit):  # recursive: server/'s include chains are a few dozen deep at most
        index[unit] = low[unit] = len(index)
        stack.append(unit)
        on_stack.add(unit)
        for succ in sorted(graph.get(unit, ())):
            if succ not in index:
                visit(succ)
                low[unit] = min(low[unit], low[succ])
            elif succ in on_stack:
                low[unit] = min(low[unit], index[succ])
        if low[unit] == index[unit]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == unit:
                    break
            if len(component) > 1:
                loops.append(sorted(component))

    for unit in sorted(graph):
        if unit not in index:
            visit(unit)
    return sorted(loops)


def protocol_names(text):
    """What in a file's text names a protocol's generated code (includes, v1::, ...)."""
    found = [n for n in INCLUDE.findall(text) if PROTOCOL_HEADER.match(n)]
    found += sorted({m.group(0) for m in PROTOCOL_NAME.finditer(COMMENT.sub("", text))})
    return found


def default_root():
    return os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=default_root())
    parser.add_argument("--folders-from", help="a checkout with server/'s folders")
    parser.add_argument("--check", action="store_true",
                        help=f"exit {FINDINGS} on any layering fault")
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    names = folder_map(os.path.abspath(args.folders_from)) if args.folders_from else None

    def folder(path):
        if names is None:
            return folder_of_new(root, path)
        base = os.path.basename(path)
        return names.get(RENAMED.get(base, base))

    files = code_files(root, "server")
    includes, texts = {}, {}
    for path in files:
        with open(path, encoding="utf-8") as f:
            texts[path] = f.read()
        includes[path] = INCLUDE.findall(texts[path])

    rel = lambda p: os.path.relpath(p, root)
    # The folders are judged in the tree that has them (--folders-from's, for an old tree).
    layout_root = os.path.abspath(args.folders_from) if args.folders_from else root
    unknown = unknown_folders(layout_root)
    print(f"{len(unknown)} folders of server/ not in LAYERS (give each its rank in "
          f"tests/tools/server_include_graph.py){':' if unknown else ''}")
    for u in unknown:
        print(f"  server/{u}: folder not in LAYERS" if u != "." else
              "  server/: a source outside every layer folder")

    direct = [p for p in files if any(n.endswith(".pb.h") for n in includes[p])]
    print(f"{len(direct)} of {len(files)} files in server/ include a generated protobuf header:")
    for p in direct:
        print(f"  {rel(p)}  ({', '.join(n for n in includes[p] if n.endswith('.pb.h'))})")

    def reaches_pb(path, seen):
        if path in seen:
            return False
        seen.add(path)
        for name in includes.get(path, []):
            if name.endswith(".pb.h"):
                return True
            target = resolve(root, path, name)
            if target in includes and reaches_pb(target, seen):
                return True
        return False

    low = [p for p in files if folder(p) in NO_PROTOBUF]
    reached = [p for p in low if reaches_pb(p, set())]
    print(f"{len(reached)} files of {', '.join(f + '/' for f in NO_PROTOBUF)} reach one "
          f"through their includes{':' if reached else ''}")
    for p in reached:
        print(f"  {rel(p)} [{folder(p)}] reaches a protobuf header")

    wrong = []
    for path in files:
        source = folder(path)
        for name in includes[path]:
            target = resolve(root, path, name)
            if target is None or target not in includes:
                continue
            dest = folder(target)
            if source is None or dest is None or source == dest:
                continue
            if LAYERS[dest] >= LAYERS[source]:
                wrong.append((rel(path), source, rel(target), dest))
    print(f"{len(wrong)} arrows from a layer to a higher or sibling one"
          f"{':' if wrong else ''}")
    for path, source, target, dest in wrong:
        how = (f"upward: rank {LAYERS[source]} -> {LAYERS[dest]}" if LAYERS[dest] > LAYERS[source]
               else f"sideways: both rank {LAYERS[source]}")
        print(f"  {path} [{source}] -> {target} [{dest}] ({how})")

    resolved = {p: [t for t in (resolve(root, p, n) for n in includes[p]) if t in includes]
                for p in files}
    loops = include_loops(includes, resolved)
    print(f"{len(loops)} include loops among server/'s files (a header and its source as one)"
          f"{':' if loops else ''}")
    for loop in loops:
        print("  " + " <-> ".join(rel(u) + ".{h,cpp}" for u in loop))

    common = [p for p in files if folder(p) == "codec/common"]
    naming = [(p, protocol_names(texts[p])) for p in common]
    naming = [(p, names) for p, names in naming if names]
    print(f"{len(naming)} files of codec/common/ name a protocol's generated types"
          f"{':' if naming else ''}")
    for p, names in naming:
        print(f"  {rel(p)}  ({', '.join(names)})")
    found = unknown or reached or wrong or loops or naming
    return FINDINGS if args.check and found else 0


if __name__ == "__main__":
    sys.exit(main())
