#!/usr/bin/env python3
"""Whether each model family lives in its two folders only: docs/ARCHITECTURE.md's "to add a
family, create model/families/<f>/ and server/families/<f>/ and register it in one line".

For every family of TSSERVE_FAMILIES (the top CMakeLists.txt) it reads the family's TSLib
names from its folder (`inline constexpr char k...Family[] = "Name";`) and looks, in the
code (comments left out) of every .h/.cpp/CMakeLists.txt of model/ and server/ outside its
two folders, for:
  - an include of one of its headers (server/families/<f>/..., or a public header of
    model/families/<f>/);
  - a string literal that is one of its names ("PatchTST");
  - an identifier that holds one of its names (PatchTSTForecaster, load_patchtst) or its
    folder's name (tsserve_patchtst).
Allowed, and listed in ALLOWED with why: the fused kernels (model/fused/: one kernel table
per instruction set, which a family may add to), the tool that serves one family, and the
bundled model's path; and the default family's name as data (DEFAULT_FAMILY).

  tests/tools/family_isolation.py [--root DIR] [--check]

--check (CTest family_isolation): exit 3 when a family is named outside its folders, 0
when none is; any other exit is the checker failing.
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_include_graph import FINDINGS, default_root  # noqa: E402

# Folders (relative to the root) that may name a family, and why.
ALLOWED = {
    "model/fused/": "the fused CPU kernels: one kernel table per instruction set, which a "
                   "family adds its entry points to",
    "model/tools/": "tsserve-forecast-csv runs the bundled PatchTST by design",
    "model/CMakeLists.txt": "the bundled default model's path (model/default/)",
}
# The default family held as data: a config without "model" is PatchTST's, and so is the
# codecs' view of a model until model_shape_of fills it.
DEFAULT_FAMILY = {("model/config/include/tsserve/model/model_config.h", "PatchTST"),
                  ("server/request/model_shape.h", "PatchTST")}
FAMILY_LIST = re.compile(r"^\s*set\(TSSERVE_FAMILIES\s+([^)]*)\)", re.M)
FAMILY_NAME = re.compile(r'inline\s+constexpr\s+char\s+k\w+Family\[\]\s*=\s*"([^"]+)"')
COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/|#[^\n]*$", re.S | re.M)
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def families(root):
    """{folder: [TSLib names]} for the families of TSSERVE_FAMILIES."""
    with open(os.path.join(root, "CMakeLists.txt")) as f:
        match = FAMILY_LIST.search(f.read())
    if not match:
        raise SystemExit("no set(TSSERVE_FAMILIES ...) in the top CMakeLists.txt")
    found = {}
    for folder in match.group(1).split():
        names = []
        include = os.path.join(root, "model", "families", folder, "include")
        for base, _, files in os.walk(include):
            for name in files:
                with open(os.path.join(base, name)) as f:
                    names += FAMILY_NAME.findall(f.read())
        found[folder] = names
    return found


def code_of(path):
    with open(path, errors="replace") as f:
        text = f.read()
    if path.endswith("CMakeLists.txt"):
        return re.sub(r"#[^\n]*", "", text), []
    includes = INCLUDE.findall(text)
    return COMMENT.sub("", re.sub(r"^\s*#\s*include[^\n]*", "", text, flags=re.M)), includes


def public_headers(root, folder):
    include = os.path.join(root, "model", "families", folder, "include", "tsserve", "model")
    return {"tsserve/model/" + name for name in os.listdir(include)} if os.path.isdir(include) else set()


def names_family(ident, words, longer):
    """Whether `ident` holds one of `words` (a TSLib name as written, a folder name in any
    case) not as part of a longer family name (iTransformer holds Transformer)."""
    for word in words:
        at = ident.lower().find(word.lower()) if word.islower() else ident.find(word)
        if at < 0:
            continue
        if any(word in other and other.lower() in ident.lower() for other in longer):
            continue
        return True
    return False


def findings(root):
    out = []
    table = families(root)
    every_name = [n for names in table.values() for n in names]
    for folder, names in table.items():
        own = (f"model/families/{folder}/", f"server/families/{folder}/")
        headers = public_headers(root, folder)
        words = list(names) + [folder]
        longer = [n for n in every_name if any(w in n and w != n for w in names)]
        for top in ("model", "server"):
            for base, _, files in os.walk(os.path.join(root, top)):
                for name in sorted(files):
                    if not (name.endswith((".h", ".cpp")) or name == "CMakeLists.txt"):
                        continue
                    path = os.path.join(base, name)
                    rel = os.path.relpath(path, root).replace(os.sep, "/")
                    if rel.startswith(own) or any(rel.startswith(a) for a in ALLOWED):
                        continue
                    code, includes = code_of(path)
                    for inc in includes:
                        if inc in headers or inc.startswith(f"server/families/{folder}/"):
                            out.append(f"{rel}: includes {inc} ({folder}'s)")
                    for literal in STRING.findall(code):
                        if literal in names and (rel, literal) not in DEFAULT_FAMILY:
                            out.append(f'{rel}: names "{literal}" ({folder}\'s)')
                    for ident in sorted(set(IDENTIFIER.findall(STRING.sub('""', code)))):
                        if names_family(ident, words, longer):
                            out.append(f"{rel}: identifier {ident} ({folder}'s)")
    return table, out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=default_root())
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    table, found = findings(args.root)
    for folder, names in table.items():
        print(f"{folder}: {', '.join(names) or '(no names)'}")
    for line in found:
        print("  " + line)
    print(f"{len(found)} places outside a family's two folders name it")
    return FINDINGS if args.check and found else 0


if __name__ == "__main__":
    sys.exit(main())
