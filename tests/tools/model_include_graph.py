#!/usr/bin/env python3
"""The include graph of model/, for the library folders of model/CMakeLists.txt and
docs/ARCHITECTURE.md.

Reads every #include of the .h/.cpp files under ROOT/model and prints a table of model/'s
folders (rank, files, the folders their includes reach), then:
  - every .h/.cpp outside the folders of LAYERS: in a folder LAYERS does not name (a folder's
    subfolders are its own: fused/kernels, layers/include/...), directly in model/ or in
    model/families/ (a family is a folder, model/families/<f>/), or in a data folder of
    DATA (model/default/: the bundled models, no code); and two public headers of one name;
  - every include model/ forbids: one that climbs with "..", a "tsserve/model/X.h" that
    names no public header (model/<folder>/include/tsserve/model/X.h), a bare name that is
    neither beside its includer nor at the top of its folder (another folder's private
    header is not included: include its public header), a private header included from a
    public one, and another component's header: server/'s, client/'s, the protocols'
    (model/ is below them all), csv/'s ("tsserve/csv/...") but from tools/;
  - the files of NO_TORCH that reach a LibTorch header (<torch/...>, <ATen/...>, <c10/...>,
    <caffe2/...>), directly or through the model headers they include, and the files of
    NO_TORCH_MODULES that reach a <torch/...> one (ATen's and c10's core headers are theirs);
  - every arrow that runs from a folder to a higher one or to a sibling of the same rank
    (fused -> checkpoints, host -> layers, families/patchtst -> families/itransformer);
  - every include loop: a cycle among model/'s units, a header and its source (X.h under
    include/tsserve/model/ or beside, X.cpp) counting as one (include_loops, shared with
    server_include_graph.py).
Angle-bracket includes are the system's and the libraries' (LibTorch, nlohmann): only the
LibTorch rules read them. A quoted include is this repository's own.

  tests/tools/model_include_graph.py [--root DIR] [--check]

--check (CTest model_layering): exit 3 (FINDINGS) when any of the above is found; 0 when
there is none. Any other exit (2: a usage error; 1: a Python traceback) is the checker
failing, not a finding. --root may be any directory with a model/ folder
(model_include_graph_selftest.py plants broken trees to prove each check can fail, and that
a crash is told from a finding).
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# One findings exit, one repository root, one file walk and one loop finder for both checkers.
from server_include_graph import FINDINGS, code_files, default_root, include_loops  # noqa: E402

# Folder -> rank. An include must go to a strictly lower rank, or stay in its folder.
LAYERS = {
    "base": 0,  # ModelError, environment lookups
    "config": 1,  # model.json, calibration, time features and marks, the scaler
    "checkpoints": 2, "fused": 2,  # the .pt/.safetensors readers; the fused CPU kernels
    "host": 3, "layers": 3,  # threads, kernel flags, malloc; attention, encoder, embeddings
    "forecasting": 4,  # the family interface (Forecaster), placement, shared loading steps
    "families/*": 5,  # each family its own unit: an include between two is sideways
    "tools": 6,  # the executables (tsserve-forecast-csv, tsserve-calibrate)
}
DATA = ("default",)  # the bundled models: may hold no .h/.cpp
# Compiled without LibTorch: no <torch/...>, <ATen/...>, <c10/...> or <caffe2/...> header,
# directly or through the model headers they include.
NO_TORCH = ("base", "config", "fused")
# ATen's core headers only (ATen/, c10/): no <torch/...> header, directly or through.
NO_TORCH_MODULES = ("checkpoints", "host")
LIBTORCH = re.compile(r"^(torch|ATen|c10|caffe2)/")
TORCH_MODULES = re.compile(r"^torch/")
# The other components' headers, by their include's first path (a quoted include that does
# not start "tsserve/model/"): the folders of model/ that may include them. Absent: none may.
OTHER_COMPONENTS = {"tsserve/csv/": ("tools",)}  # the CSV reader, which the client uses too
# Named here for the report: model/ is below each of them.
ABOVE = ("server/", "client/", "tsserve/")
PUBLIC = "include/tsserve/model/"
INCLUDE = re.compile(r'^\s*#\s*include\s*(?:<([^>\n]+)>|"([^"\n]+)")', re.M)


def folder_of(root, path):
    """The folder of LAYERS or DATA that holds `path` ("layers", "families/patchtst",
    "default"), or None: a subfolder is its folder's (fused/kernels is fused's)."""
    rel = os.path.relpath(os.path.dirname(path), os.path.join(root, "model"))
    parts = [] if rel == "." else rel.split(os.sep)
    for n in range(1, len(parts) + 1):
        head = "/".join(parts[:n])
        if head in LAYERS or head in DATA or "/".join(parts[:n - 1]) + "/*" in LAYERS:
            return head
    return None


def rank(folder):
    """The rank of a folder of LAYERS (families/patchtst: families/*'s), else None."""
    if folder is None or folder in LAYERS:
        return LAYERS.get(folder)
    return LAYERS.get(os.path.dirname(folder) + "/*") if "/" in folder else None


def folder_dir(root, folder):
    return os.path.join(root, "model", *folder.split("/"))


def public_name(path):
    """"tsserve/model/X.h" for a public header .../include/tsserve/model/X.h, else None."""
    rel = path.replace(os.sep, "/")
    at = rel.rfind("/" + PUBLIC)
    return "tsserve/model/" + rel[at + 1 + len(PUBLIC):] if at >= 0 else None


def unit_of(root, folder, path):
    """foo.h and foo.cpp of one folder are one unit, wherever in it each sits (the public
    header under include/tsserve/model/, the source at the top): model/layers/encoder."""
    stem = os.path.splitext(os.path.basename(path))[0]
    return os.path.relpath(os.path.join(folder_dir(root, folder), stem), root)


class Graph:
    """model/'s files, their folders and includes, and what each quoted include resolves to."""

    def __init__(self, root):
        self.root = root
        self.files = code_files(root, "model")
        self.folder = {p: folder_of(root, p) for p in self.files}
        self.public = {}  # "tsserve/model/X.h" -> the headers of that name
        for p in self.files:
            if public_name(p):
                self.public.setdefault(public_name(p), []).append(p)
        self.by_base = {}
        for p in self.files:
            self.by_base.setdefault(os.path.basename(p), []).append(p)
        self.angles, self.quoted = {}, {}
        for p in self.files:
            with open(p, encoding="utf-8", errors="replace") as f:
                found = INCLUDE.findall(f.read())
            self.angles[p] = [a for a, _ in found if a]
            self.quoted[p] = [q for _, q in found if q]
        self.edges, self.faults = {}, []  # path -> [(name, target)]; (path, name, why)
        for p in self.files:
            self.edges[p] = []
            for name in self.quoted[p]:
                target, why = self.resolve(p, name)
                if why:
                    self.faults.append((p, name, why))
                if target:
                    self.edges[p].append((name, target))

    def rel(self, path):
        return os.path.relpath(path, self.root)

    def resolve(self, path, name):
        """(the model file `name` names from `path` or None, why the include is a fault or
        None). Another component's header resolves to None: it is outside the graph."""
        folder = self.folder[path]
        if ".." in name.split("/"):
            return None, 'climbs with "..": include a public header as "tsserve/model/X.h"'
        if name.startswith("tsserve/model/"):
            found = self.public.get(name, [])
            if len(found) == 1:
                return found[0], None
            if not found:
                return None, f"names no public header (model/<folder>/{PUBLIC}" \
                             f"{name[len('tsserve/model/'):]})"
            return None, "names two public headers: " + ", ".join(map(self.rel, found))
        for prefix, allowed in OTHER_COMPONENTS.items():
            if name.startswith(prefix):
                return None, None if folder in allowed else \
                    f"{prefix} is for {', '.join(f + '/' for f in allowed)} only"
        if name.startswith(ABOVE):
            return None, f"another component's header ({os.path.dirname(name)}/): model/ " \
                         "is below server/, client/ and the protocols"
        if folder is None:  # an unknown folder's private includes: the folder is the fault
            here = [os.path.dirname(path)]
        else:
            here = [os.path.dirname(path), folder_dir(self.root, folder)]
        for base in here:
            target = os.path.normpath(os.path.join(base, name))
            if os.path.isfile(target):
                if public_name(path) and not public_name(target) and target in self.folder:
                    return target, f"a public header includes {self.rel(target)}, private " \
                                   f"to {folder}/: its users cannot reach it"
                return target, None
        others = self.by_base.get(os.path.basename(name), [])
        if others:
            where = ", ".join(f"{self.rel(o)} [{self.folder[o]}]" for o in others)
            if public_name(others[0]):
                how = f'write "{public_name(others[0])}"'
            elif self.folder[others[0]] == folder:
                how = "name it by its path from the includer"
            else:
                how = "another folder's private header: include its public header"
            top = f"at the top of {folder}/" if folder else "in its folder"
            return None, f"not beside the includer nor {top} ({where}: {how})"
        return None, "names no header of model/ (a library's or the system's goes in <...>)"

    def reaches(self, path, wanted, seen):
        """The includes from `path` to the first angle-bracket header `wanted` matches,
        [name, ..., "<header>"], or None."""
        if path in seen:
            return None
        seen.add(path)
        for name in self.angles[path]:
            if wanted.match(name):
                return [f"<{name}>"]
        for name, target in self.edges[path]:
            chain = self.reaches(target, wanted, seen)
            if chain:
                return [f'"{name}"'] + chain
        return None


def outside_sources(graph):
    """(path, why) for each .h/.cpp outside every layer folder, or in a data folder."""
    out = []
    for p in graph.files:
        folder = graph.folder[p]
        parts = os.path.relpath(p, os.path.join(graph.root, "model")).split(os.sep)
        if folder in DATA:
            out.append((p, f"code in model/{folder}/, which holds the bundled models only"))
        elif folder is not None:
            continue
        elif len(parts) == 1:
            out.append((p, "a source directly in model/, outside every layer folder"))
        elif parts[0] + "/*" in LAYERS and len(parts) == 2:
            out.append((p, f"a source directly in model/{parts[0]}/, outside each of its "
                           f"folders (model/{parts[0]}/<name>/)"))
        else:
            out.append((p, f"folder model/{parts[0]}/ not in LAYERS (give it a rank in "
                           "tests/tools/model_include_graph.py; a family goes in "
                           "model/families/<f>/)"))
    for name, found in sorted(graph.public.items()):
        if len(found) > 1:
            out += [(p, f"a second public header {name}") for p in found[1:]]
    return out


def torch_reach(graph, folders, wanted):
    out = []
    for p in graph.files:
        if graph.folder[p] in folders:
            chain = graph.reaches(p, wanted, set())
            if chain:
                out.append((p, chain))
    return out


def wrong_arrows(graph):
    wrong = []
    for path in graph.files:
        source = graph.folder[path]
        for _, target in graph.edges[path]:
            dest = graph.folder[target]
            if source == dest or rank(source) is None or rank(dest) is None:
                continue
            if rank(dest) >= rank(source):
                wrong.append((path, source, target, dest))
    return wrong


def loops(graph):
    """Include loops among units: the folder's unit of each file, as include_loops wants
    them (a key whose extension it strips)."""
    key = lambda p: unit_of(graph.root, graph.folder[p] or os.path.relpath(
        os.path.dirname(p), os.path.join(graph.root, "model")), p) + ".unit"
    includes, resolved = {}, {}
    for p in graph.files:
        includes[key(p)] = True
        resolved.setdefault(key(p), []).extend(key(t) for _, t in graph.edges[p])
    return include_loops(includes, resolved)


def table(graph):
    folders = sorted({f for f in graph.folder.values() if rank(f) is not None},
                     key=lambda f: (rank(f), f))
    print("model/'s folders: rank, .h/.cpp files, the folders their includes reach")
    for f in folders:
        files = [p for p in graph.files if graph.folder[p] == f]
        reach = sorted({graph.folder[t] for p in files for _, t in graph.edges[p]}
                       - {f, None}, key=lambda d: (rank(d) if rank(d) is not None else 99, d))
        print(f"  {f + '/':26} {rank(f):>2} {len(files):>4}  {', '.join(reach) or '-'}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=default_root())
    parser.add_argument("--check", action="store_true",
                        help=f"exit {FINDINGS} on any layering fault")
    args = parser.parse_args()
    graph = Graph(os.path.abspath(args.root))
    rel = graph.rel
    table(graph)

    outside = outside_sources(graph)
    print(f"{len(outside)} sources of model/ outside its layer folders"
          f"{':' if outside else ''}")
    for p, why in outside:
        print(f"  {rel(p)}: {why}")

    print(f"{len(graph.faults)} includes model/ forbids{':' if graph.faults else ''}")
    for p, name, why in graph.faults:
        print(f'  {rel(p)} [{graph.folder[p]}] -> "{name}": {why}')

    reached = []
    for folders, wanted, what in ((NO_TORCH, LIBTORCH, "a LibTorch header"),
                                  (NO_TORCH_MODULES, TORCH_MODULES, "a <torch/...> header")):
        found = torch_reach(graph, folders, wanted)
        print(f"{len(found)} files of {', '.join(f + '/' for f in folders)} reach {what}"
              f"{':' if found else ''}")
        for p, chain in found:
            how = f" through {' -> '.join(chain[:-1])}" if len(chain) > 1 else ""
            print(f"  {rel(p)} [{graph.folder[p]}] reaches {chain[-1]}{how}")
        reached += found

    wrong = wrong_arrows(graph)
    print(f"{len(wrong)} arrows from a folder to a higher or sibling one"
          f"{':' if wrong else ''}")
    for path, source, target, dest in wrong:
        how = (f"upward: rank {rank(source)} -> {rank(dest)}" if rank(dest) > rank(source)
               else f"sideways: both rank {rank(source)}")
        print(f"  {rel(path)} [{source}] -> {rel(target)} [{dest}] ({how})")

    cycles = loops(graph)
    print(f"{len(cycles)} include loops among model/'s units (a header and its source as one)"
          f"{':' if cycles else ''}")
    for loop in cycles:
        print("  " + " <-> ".join(u + ".{h,cpp}" for u in loop))
    found = outside or graph.faults or reached or wrong or cycles
    return FINDINGS if args.check and found else 0


if __name__ == "__main__":
    sys.exit(main())
